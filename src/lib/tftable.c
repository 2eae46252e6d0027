/* tftable.c - reading TensorFlow's (LevelDB's) sorted string table. */
#include "tftable.h"
#include "crc32c.h"
#include "err.h"
#include "pb.h"

#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>

#define FOOTER 48  /* two block handles padded to 40 bytes, the magic */
#define TRAILER 5  /* a block's compression type and masked CRC */

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)ckpt_pb_le(p, 4);
}

int ckpt_tftable_magic(const unsigned char *tail)
{
	return ckpt_pb_le(tail, 8) == CKPT_TFTABLE_MAGIC;
}

struct handle {
	uint64_t offset, size;
};

static int read_handle(const unsigned char **p, const unsigned char *end, struct handle *h)
{
	return ckpt_pb_varint(p, end, &h->offset) < 0 || ckpt_pb_varint(p, end, &h->size) < 0
	       ? -1 : 0;
}

/* A block's contents, checked: in place, or uncompressed into *owned. */
struct block {
	const unsigned char *data;
	size_t size;
	unsigned char *owned;
};

static int load_block(const char *name, const unsigned char *image, size_t size,
                      const struct handle *h, struct block *b)
{
	const unsigned char *p;
	size_t n, plain;

	b->owned = NULL;
	if (h->offset > size || h->size > size - h->offset || size - h->offset - h->size < TRAILER)
		return ckpt_seterr("%s: a block at byte %llu runs past the end of the file (truncated?)",
		                   name, (unsigned long long)h->offset);
	p = image + h->offset;
	n = (size_t)h->size;
	if (ckpt_crc32c_unmask(le32(p + n + 1)) != ckpt_crc32c_extend(0, p, n + 1))
		return ckpt_seterr("%s: the block at byte %llu fails its CRC (the file is damaged)",
		                   name, (unsigned long long)h->offset);
	switch (p[n]) {
	case 0:
		b->data = p, b->size = n;
		return 0;
	case 1:
		/* (Snappy expands no byte more than 32 times: a length beyond
		 * that is damage, not a reason to allocate) */
		if (snappy_uncompressed_length((const char *)p, n, &plain) != SNAPPY_OK ||
		    plain / 32 > n)
			break;
		if (!(b->owned = malloc(plain ? plain : 1)))
			return ckpt_seterr("%s: out of memory", name);
		if (snappy_uncompress((const char *)p, n, (char *)b->owned, &plain) != SNAPPY_OK) {
			free(b->owned);
			b->owned = NULL;
			break;
		}
		b->data = b->owned, b->size = plain;
		return 0;
	default:
		return ckpt_seterr("%s: the block at byte %llu has compression type %u, "
		                   "which ckpt does not know", name, (unsigned long long)h->offset,
		                   p[n]);
	}
	return ckpt_seterr("%s: the block at byte %llu is not valid Snappy data (the file is damaged)",
	                   name, (unsigned long long)h->offset);
}

/* The entries of one block to fn, keys rebuilt from their shared
 * prefixes into *key (grown as needed). */
static int each_entry(const char *name, uint64_t at, const struct block *b, char **key,
                      size_t *cap, ckpt_tftable_fn fn, void *user)
{
	const unsigned char *p = b->data, *end;
	uint32_t restarts;
	size_t klen = 0;

	if (b->size < 4 || (restarts = le32(b->data + b->size - 4)) > (b->size - 4) / 4)
		goto bad;
	end = b->data + b->size - 4 - 4 * (size_t)restarts;
	while (p < end) {
		uint64_t shared, fresh, vlen;
		int rc;

		if (ckpt_pb_varint(&p, end, &shared) < 0 || ckpt_pb_varint(&p, end, &fresh) < 0 ||
		    ckpt_pb_varint(&p, end, &vlen) < 0 || shared > klen ||
		    fresh > (uint64_t)(end - p) || vlen > (uint64_t)(end - p) - fresh)
			goto bad;
		if (shared + fresh + 1 > *cap) {
			char *k = realloc(*key, (size_t)(shared + fresh + 1));

			if (!k)
				return ckpt_seterr("%s: out of memory", name);
			*key = k, *cap = (size_t)(shared + fresh + 1);
		}
		memcpy(*key + shared, p, (size_t)fresh);
		klen = (size_t)(shared + fresh);
		(*key)[klen] = '\0';
		p += fresh;
		if ((rc = fn(*key, klen, p, (size_t)vlen, user)) != 0)
			return rc;
		p += vlen;
	}
	return 0;
bad:
	return ckpt_seterr("%s: the block at byte %llu is malformed (the file is damaged)", name,
	                   (unsigned long long)at);
}

struct walk {
	const char *name;
	const unsigned char *image;
	size_t size;
	char *key; /* the data blocks' keys */
	size_t cap;
	ckpt_tftable_fn fn;
	void *user;
};

/* An index entry: the handle of a data block, whose entries go to fn. */
static int data_block(const char *ikey, size_t iklen, const unsigned char *val, size_t vlen,
                      void *user)
{
	struct walk *w = user;
	struct handle h;
	struct block b;
	int rc;

	(void)ikey, (void)iklen;
	if (read_handle(&val, val + vlen, &h) < 0)
		return ckpt_seterr("%s: an index entry is not a block handle (the file is damaged)",
		                   w->name);
	if (load_block(w->name, w->image, w->size, &h, &b) < 0)
		return -1;
	rc = each_entry(w->name, h.offset, &b, &w->key, &w->cap, w->fn, w->user);
	free(b.owned);
	return rc;
}

int ckpt_tftable_each(const char *name, const unsigned char *image, size_t size,
                      ckpt_tftable_fn fn, void *user)
{
	struct walk w = {name, image, size, NULL, 0, fn, user};
	const unsigned char *p, *end;
	struct handle meta, index;
	struct block b;
	char *ikey = NULL;
	size_t icap = 0;
	int rc;

	if (size < FOOTER || !ckpt_tftable_magic(image + size - 8))
		return ckpt_seterr("%s: not a TensorFlow table (no table footer at its end)", name);
	p = image + size - FOOTER, end = image + size - 8;
	if (read_handle(&p, end, &meta) < 0 || read_handle(&p, end, &index) < 0)
		return ckpt_seterr("%s: the table footer is malformed (the file is damaged)", name);
	/* the meta index (empty in a bundle) is not used, but checked */
	if (load_block(name, image, size - FOOTER, &meta, &b) < 0)
		return -1;
	free(b.owned);
	if (load_block(name, image, size - FOOTER, &index, &b) < 0)
		return -1;
	rc = each_entry(name, index.offset, &b, &ikey, &icap, data_block, &w);
	free(b.owned);
	free(ikey);
	free(w.key);
	return rc;
}
