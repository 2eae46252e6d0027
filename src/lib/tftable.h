/* tftable.h - (internal to libckpt) TensorFlow's sorted string table, the
 * .index file of a tensor bundle: LevelDB's table format (blocks of
 * prefix-compressed keys with restart points, each followed by its
 * compression type and masked CRC-32C; an index block of block handles;
 * a 48-byte footer ending in the magic number), read from memory - an
 * index holds one short entry per tensor.  Every block's CRC is checked;
 * anything malformed is an error naming the file and the block, never a
 * read out of bounds.  Written as TensorFlow writes them. */
#ifndef CKPT_TFTABLE_H
#define CKPT_TFTABLE_H

#include <stddef.h>
#include <stdint.h>

/* The footer's last 8 bytes, little-endian. */
#define CKPT_TFTABLE_MAGIC UINT64_C(0xdb4775248b80fb57)

/* Whether the 8 bytes at tail are the magic number. */
int ckpt_tftable_magic(const unsigned char *tail);

/* An entry's key and value, valid during the call. */
typedef int (*ckpt_tftable_fn)(const char *key, size_t klen, const unsigned char *val,
                               size_t vlen, void *user);

/* Every entry of the table image[0..size), in the table's order, to fn
 * (which stops the walk by returning nonzero: that value is returned).
 * 0 when all were seen; -1 with a message beginning with name. */
int ckpt_tftable_each(const char *name, const unsigned char *image, size_t size,
                      ckpt_tftable_fn fn, void *user);

/* ---- writing ---------------------------------------------------------------- */

/* A table written to fd as TensorFlow's bundle writer makes them: keys
 * added in increasing order (bytewise), blocks of about block_size bytes
 * with a restart point every 16 keys, uncompressed, the index block's
 * keys the shortest separators between blocks, an empty meta index.
 * what names the file in messages. */
struct ckpt_tftable_out;
struct ckpt_tftable_out *ckpt_tftable_out_new(int fd, const char *what, size_t block_size);
int ckpt_tftable_add(struct ckpt_tftable_out *t, const char *key, size_t klen,
                     const void *val, size_t vlen);
/* The last blocks and the footer written; 0 or -1 with a message. */
int ckpt_tftable_finish(struct ckpt_tftable_out *t);
void ckpt_tftable_out_free(struct ckpt_tftable_out *t);

/* TensorFlow's block size (table_options.h). */
#define CKPT_TFTABLE_BLOCK 262144

#endif
