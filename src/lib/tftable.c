/* tftable.c - reading and writing TensorFlow's (LevelDB's) sorted string
 * table. */
#include "tftable.h"
#include "crc32c.h"
#include "err.h"
#include "pb.h"

#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>

#include "temp.h"

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

/* ---- writing ---------------------------------------------------------------- */

/* A block being made: its entries, its restart points, the last key. */
struct block_out {
	struct ckpt_bytes entries, restarts, last;
	int interval, since; /* entries since the last restart point */
	size_t n;
};

struct ckpt_tftable_out {
	int fd;
	const char *what;
	size_t block_size;
	uint64_t offset;          /* bytes written */
	struct block_out data, index;
	struct handle pending;    /* the data block the index has no key for yet */
	int has_pending;
};

static void block_init(struct block_out *b, int interval)
{
	*b = (struct block_out){.interval = interval, .since = interval};
}

static void block_free(struct block_out *b)
{
	ckpt_bytes_free(&b->entries);
	ckpt_bytes_free(&b->restarts);
	ckpt_bytes_free(&b->last);
}

static void block_add(struct block_out *b, const char *key, size_t klen, const void *val,
                      size_t vlen)
{
	size_t shared = 0;

	if (b->since < b->interval) {
		while (shared < klen && shared < b->last.n && b->last.p[shared] == (unsigned char)key[shared])
			shared++;
	} else {
		ckpt_bytes_put_le(&b->restarts, b->entries.n, 4);
		b->since = 0;
	}
	ckpt_pb_put_varint(&b->entries, shared);
	ckpt_pb_put_varint(&b->entries, klen - shared);
	ckpt_pb_put_varint(&b->entries, vlen);
	ckpt_bytes_put(&b->entries, key + shared, klen - shared);
	ckpt_bytes_put(&b->entries, val, vlen);
	b->last.n = 0;
	ckpt_bytes_put(&b->last, key, klen);
	b->since++;
	b->n++;
}

static size_t block_estimate(const struct block_out *b)
{
	return b->entries.n + b->restarts.n + 4;
}

/* Block b (its entries, restart points and their count; the compression
 * type and masked CRC after) written at the end of the file: its handle
 * into *h, b emptied. */
static int block_write(struct ckpt_tftable_out *t, struct block_out *b, struct handle *h)
{
	struct ckpt_bytes *e = &b->entries;
	uint32_t crc;
	int rc;

	if (!b->restarts.n)
		ckpt_bytes_put_le(&b->restarts, 0, 4);
	ckpt_bytes_put(e, b->restarts.p, b->restarts.n);
	ckpt_bytes_put_le(e, b->restarts.n / 4, 4);
	ckpt_bytes_put(e, "", 1); /* no compression */
	if (e->failed || b->restarts.failed || b->last.failed)
		return ckpt_seterr("%s: out of memory", t->what);
	crc = ckpt_crc32c_extend(0, e->p, e->n);
	ckpt_bytes_put_le(e, ckpt_crc32c_mask(crc), 4);
	if (e->failed)
		return ckpt_seterr("%s: out of memory", t->what);
	h->offset = t->offset, h->size = e->n - TRAILER;
	rc = ckpt_write_all(t->fd, e->p, e->n, t->what);
	t->offset += e->n;
	e->n = b->restarts.n = 0;
	b->since = b->interval, b->n = 0;
	return rc;
}

/* LevelDB's bytewise comparator: a short key k with start <= k < limit
 * (start made one), or the shortest key after start (limit NULL). */
static void shorten(struct ckpt_bytes *start, const char *limit, size_t llen)
{
	const unsigned char *lim = (const unsigned char *)limit;
	size_t i = 0;

	if (!limit) {
		for (; i < start->n; i++)
			if (start->p[i] != 0xff) {
				start->p[i]++;
				start->n = i + 1;
				return;
			}
		return;
	}
	while (i < start->n && i < llen && start->p[i] == lim[i])
		i++;
	if (i < start->n && i < llen && start->p[i] < 0xff && start->p[i] + 1 < lim[i]) {
		start->p[i]++;
		start->n = i + 1;
	}
}

/* The index entry of the last data block, keyed before next (NULL: the
 * table's end). */
static void index_pending(struct ckpt_tftable_out *t, const char *next, size_t nlen)
{
	struct ckpt_bytes key = {0}, handle = {0};

	if (!t->has_pending)
		return;
	ckpt_bytes_put(&key, t->data.last.p, t->data.last.n);
	if (!key.failed)
		shorten(&key, next, nlen);
	ckpt_pb_put_varint(&handle, t->pending.offset);
	ckpt_pb_put_varint(&handle, t->pending.size);
	if (key.failed || handle.failed)
		t->index.entries.failed = 1;
	else
		block_add(&t->index, (const char *)key.p, key.n, handle.p, handle.n);
	ckpt_bytes_free(&key);
	ckpt_bytes_free(&handle);
	t->has_pending = 0;
}

struct ckpt_tftable_out *ckpt_tftable_out_new(int fd, const char *what, size_t block_size)
{
	struct ckpt_tftable_out *t = calloc(1, sizeof *t);

	if (!t) {
		ckpt_seterr("%s: out of memory", what);
		return NULL;
	}
	t->fd = fd, t->what = what, t->block_size = block_size;
	block_init(&t->data, 16);
	block_init(&t->index, 1);
	return t;
}

int ckpt_tftable_add(struct ckpt_tftable_out *t, const char *key, size_t klen,
                     const void *val, size_t vlen)
{
	index_pending(t, key, klen);
	block_add(&t->data, key, klen, val, vlen);
	if (block_estimate(&t->data) < t->block_size)
		return 0;
	t->has_pending = 1;
	return block_write(t, &t->data, &t->pending);
}

int ckpt_tftable_finish(struct ckpt_tftable_out *t)
{
	struct block_out meta;
	struct handle mh, ih;
	struct ckpt_bytes footer = {0};
	int rc = 0;

	if (t->data.n) {
		rc = block_write(t, &t->data, &t->pending);
		t->has_pending = 1;
	}
	index_pending(t, NULL, 0);
	block_init(&meta, 16);
	rc = rc ? rc : block_write(t, &meta, &mh);
	block_free(&meta);
	rc = rc ? rc : block_write(t, &t->index, &ih);
	if (rc < 0)
		return rc;
	ckpt_pb_put_varint(&footer, mh.offset);
	ckpt_pb_put_varint(&footer, mh.size);
	ckpt_pb_put_varint(&footer, ih.offset);
	ckpt_pb_put_varint(&footer, ih.size);
	while (!footer.failed && footer.n < FOOTER - 8)
		ckpt_bytes_put(&footer, "", 1);
	ckpt_bytes_put_le(&footer, CKPT_TFTABLE_MAGIC, 8);
	rc = footer.failed ? ckpt_seterr("%s: out of memory", t->what)
	                   : ckpt_write_all(t->fd, footer.p, footer.n, t->what);
	ckpt_bytes_free(&footer);
	return rc;
}

void ckpt_tftable_out_free(struct ckpt_tftable_out *t)
{
	if (!t)
		return;
	block_free(&t->data);
	block_free(&t->index);
	free(t);
}
