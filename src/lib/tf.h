/* tf.h - (internal to libckpt) TensorFlow's tensor bundle, what its
 * reading side (tfbundle.c, which holds the format's table) and its
 * writing side (tfout.c) share. */
#ifndef CKPT_TF_H
#define CKPT_TF_H

#include <stddef.h>
#include <stdint.h>

#include "file.h"
#include "slab.h"

/* TensorFlow's DataType number (types.proto) as ckpt's type; CKPT_OTHER
 * with *kind naming what ckpt lists but does not read as numbers. */
ckpt_dtype ckpt_tf_type(uint64_t dt, const char **kind);

/* The DataType number of v's numbers, 0 when TensorFlow has none. */
uint64_t ckpt_tf_number(const ckpt_var *v);

/* Where variable v of bundle f lies, as stored: its DataType number, the
 * file and the bytes, the entry's (masked) CRC. */
struct ckpt_tf_raw {
	uint64_t dtype;
	int fd;
	uint64_t offset, size;
	uint32_t crc;
	int has_crc;
};
void ckpt_tf_raw(const ckpt_file *f, const ckpt_var *v, struct ckpt_tf_raw *r);

/* Whether a tensor of DataType dt is stored as plain bytes, its CRC theirs
 * (numbers, complex, quantized: not strings, variants, resources). */
int ckpt_tf_plain(uint64_t dt);

/* The length of path's prefix: path without its .index. */
size_t ckpt_tf_prefix_len(const char *path);

/* The CRC TensorFlow keeps of a scalar string tensor stored as the n
 * bytes at p (its length as a varint, the masked CRC of the length, the
 * bytes); 0, which no check passes with, when they are not so. */
uint32_t ckpt_tf_string_crc(const unsigned char *p, size_t n);

/* ---- writing (tfout.c): the table's writer operations ------------------------- */

/* PREFIX.index and PREFIX.data-00000-of-00001 for a target PREFIX.index
 * or PREFIX, written to temporaries beside them and committed together. */
void *ckpt_tfout_open(const char *target, int force, const ckpt_file *like);
const char *ckpt_tfout_name(const void *w);
int ckpt_tfout_declare(void *w, const char *name, ckpt_dtype t, int rank, const uint64_t *dims);
int ckpt_tfout_declare_from(void *w, const char *name, const ckpt_var *like, ckpt_dtype t,
                            const ckpt_file *src, const ckpt_var *sv);
int ckpt_tfout_storable(const ckpt_file *src, const ckpt_var *v);
int ckpt_tfout_commit(void *w);
/* ckpt-merge --split: k data shards, variable i of in into owner[i]; the
 * name of shard s of k of the bundle target (or prefix; malloc'd). */
int ckpt_tfout_split(void *w, size_t k, const ckpt_file *in, const size_t *owner);
char *ckpt_tfout_shard_name(const char *target, size_t s, size_t k);
void ckpt_tfout_abort(void *w);
void *ckpt_tfvar_open(void *w, const char *name, ckpt_dtype t, const ckpt_slab *like);
int ckpt_tfvar_write(void *var, const ckpt_region *r, const void *buf);
void ckpt_tfvar_close(void *var);

#endif
