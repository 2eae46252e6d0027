/* tfbundle.c - TensorFlow's tensor bundle (TF1 Saver, TF2 Checkpoint,
 * Keras 2 save_weights, a SavedModel's variables/) as a format of the
 * toolkit (format.h), reading side: PREFIX.index, a table (tftable.c)
 * whose empty key holds the BundleHeaderProto and every other key a
 * tensor's BundleEntryProto; the values in PREFIX.data-NNNNN-of-NNNNN,
 * read at their offsets, every tensor's CRC-32C checked as it is read
 * through. */
#include "backend.h"
#include "crc32c.h"
#include "err.h"
#include "format.h"
#include "pb.h"
#include "tf.h"
#include "tftable.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where a tensor's bytes are. */
struct where {
	uint32_t dtype, shard, crc;
	uint64_t offset, size;
	int has_crc;
};

struct bundle {
	uint32_t nshards;
	int *fd;            /* per shard */
	uint64_t *size;     /* per shard */
	char *prefix;       /* PATH without .index */
	struct where *at;   /* per variable */
	size_t nvars, cap;
	int seen_header;
};

/* A slab being read: the CRC of the bytes read so far, in order. */
struct tfslab {
	uint64_t next;      /* the byte the next in-order read starts at */
	uint32_t crc;
};

static struct bundle *bundle_of(const ckpt_file *f)
{
	return f->backend->state;
}

static const ckpt_dtype types[] = {
	[1] = CKPT_F32, [2] = CKPT_F64, [3] = CKPT_I32, [4] = CKPT_U8, [5] = CKPT_I16,
	[6] = CKPT_I8, [9] = CKPT_I64, [10] = CKPT_BOOL, [14] = CKPT_BF16,
	[17] = CKPT_U16, [19] = CKPT_F16, [22] = CKPT_U32, [23] = CKPT_U64,
	[24] = CKPT_F8E5M2, [25] = CKPT_F8E4M3,
};

ckpt_dtype ckpt_tf_type(uint64_t dt, const char **kind)
{
	static const char *const kinds[] = {
		[7] = "string", [8] = "complex64", [11] = "qint8", [12] = "quint8",
		[13] = "qint32", [15] = "qint16", [16] = "quint16", [18] = "complex128",
		[20] = "resource", [21] = "variant",
	};

	*kind = NULL;
	if (dt < sizeof types / sizeof *types && types[dt] != 0 && dt != 0)
		return types[dt];
	*kind = dt < sizeof kinds / sizeof *kinds && kinds[dt] ? kinds[dt] : "unknown";
	return CKPT_OTHER;
}

uint64_t ckpt_tf_number(const ckpt_var *v)
{
	if (v->dtype == CKPT_OTHER) /* (what no entry of types is) */
		return 0;
	for (uint64_t dt = 1; dt < sizeof types / sizeof *types; dt++)
		if (types[dt] == v->dtype)
			return dt;
	return 0;
}

int ckpt_tf_plain(uint64_t dt)
{
	const char *kind;

	/* complex64, complex128; qint8, quint8, qint32, qint16, quint16 */
	return ckpt_tf_type(dt, &kind) != CKPT_OTHER || dt == 8 || dt == 18 ||
	       (dt >= 11 && dt <= 16 && dt != 14);
}

void ckpt_tf_raw(const ckpt_file *f, const ckpt_var *v, struct ckpt_tf_raw *r)
{
	const struct bundle *b = bundle_of(f);
	const struct where *w = &b->at[v - f->vars];

	*r = (struct ckpt_tf_raw){w->dtype, b->fd[w->shard], w->offset, w->size, w->crc,
	                          w->has_crc};
}

size_t ckpt_tf_prefix_len(const char *path)
{
	size_t n = strlen(path);

	return n > 6 && strcmp(path + n - 6, ".index") == 0 ? n - 6 : n;
}

/* ---- the index ------------------------------------------------------------- */

struct entry {
	uint64_t dtype, shard, offset, size, crc;
	uint64_t dims[CKPT_MAX_RANK];
	int rank, sliced, has_crc;
};

static int read_shape(const unsigned char *p, const unsigned char *end, struct entry *e)
{
	struct ckpt_pb_field f, g;
	int rc;

	while ((rc = ckpt_pb_next(&p, end, &f)) > 0) {
		const unsigned char *q = f.bytes;

		if (f.number == 3 && f.wire == 0 && f.value) /* unknown_rank */
			return -1;
		if (f.number != 2 || f.wire != 2)
			continue;
		if (e->rank == CKPT_MAX_RANK)
			return -1;
		e->dims[e->rank] = 0;
		while ((rc = ckpt_pb_next(&q, f.bytes + f.len, &g)) > 0)
			if (g.number == 1 && g.wire == 0) {
				if ((int64_t)g.value < 0) /* -1: unknown */
					return -1;
				e->dims[e->rank] = g.value;
			}
		if (rc < 0)
			return -1;
		e->rank++;
	}
	return rc;
}

static int read_entry(const unsigned char *p, size_t n, struct entry *e)
{
	const unsigned char *end = p + n;
	struct ckpt_pb_field f;
	int rc;

	memset(e, 0, sizeof *e);
	while ((rc = ckpt_pb_next(&p, end, &f)) > 0)
		switch (f.number * 8 + (uint32_t)f.wire) {
		case 1 * 8 + 0: e->dtype = f.value; break;
		case 2 * 8 + 2: if (read_shape(f.bytes, f.bytes + f.len, e) < 0) return -1; break;
		case 3 * 8 + 0: e->shard = f.value; break;
		case 4 * 8 + 0: e->offset = f.value; break;
		case 5 * 8 + 0: e->size = f.value; break;
		case 6 * 8 + 5: e->crc = f.value, e->has_crc = 1; break;
		case 7 * 8 + 2: e->sliced = 1; break;
		default: break;
		}
	return rc;
}

struct walk {
	ckpt_file *f;
	struct bundle *b;
};

static int read_header(struct walk *w, const unsigned char *p, size_t n)
{
	const unsigned char *end = p + n;
	struct ckpt_pb_field f;
	uint64_t shards = 0, endian = 0;
	int rc;

	while ((rc = ckpt_pb_next(&p, end, &f)) > 0)
		if (f.number == 1 && f.wire == 0)
			shards = f.value;
		else if (f.number == 2 && f.wire == 0)
			endian = f.value;
	if (rc < 0 || shards == 0 || shards > 99999)
		return ckpt_seterr("%s: the bundle header is malformed (the file is damaged)",
		                   w->f->name);
	if (endian != 0)
		return ckpt_seterr("%s: a big-endian TensorFlow bundle: ckpt reads little-endian "
		                   "ones", w->f->name);
	w->b->nshards = (uint32_t)shards;
	w->b->seen_header = 1;
	return 0;
}

static int grow(struct walk *w)
{
	struct bundle *b = w->b;
	ckpt_file *f = w->f;
	size_t cap = b->cap ? 2 * b->cap : 64;
	ckpt_var *v;
	struct where *at;

	if (b->nvars < b->cap)
		return 0;
	if (!(v = realloc(f->vars, cap * sizeof *v)))
		return ckpt_seterr("%s: out of memory", f->name);
	f->vars = v;
	if (!(at = realloc(b->at, cap * sizeof *at)))
		return ckpt_seterr("%s: out of memory", f->name);
	b->at = at;
	b->cap = cap;
	return 0;
}

/* The entry's sizes, checked: its shape's bytes (numbers), its shard. */
static int check_entry(struct walk *w, const ckpt_var *v, const struct entry *e)
{
	char shape[512];

	if (e->sliced)
		return ckpt_seterr("%s: variable '%s' is partitioned (saved in slices): ckpt does "
		                   "not assemble partitioned variables yet", w->f->name, v->name);
	if (e->shard >= w->b->nshards)
		return ckpt_seterr("%s: variable '%s' is in shard %" PRIu64 " of %" PRIu32
		                   " (the file is damaged)", w->f->name, v->name, e->shard,
		                   w->b->nshards);
	if (v->dtype != CKPT_OTHER && e->size != v->nbytes)
		return ckpt_seterr("%s: variable '%s': shape %s of %s needs %" PRIu64 " bytes; the "
		                   "index says %" PRIu64 " (the file is damaged)", w->f->name,
		                   v->name, ckpt_shape_str(v, shape, sizeof shape), v->type,
		                   v->nbytes, e->size);
	return 0;
}

static int add_variable(struct walk *w, const char *key, size_t klen, const unsigned char *val,
                        size_t vlen)
{
	ckpt_file *f = w->f;
	struct bundle *b = w->b;
	struct entry e;
	const char *kind;
	ckpt_var *v;

	if (!b->seen_header)
		return ckpt_seterr("%s: no bundle header before the first tensor (not a "
		                   "TensorFlow checkpoint index?)", f->name);
	if (memchr(key, '\0', klen))
		return ckpt_seterr("%s: a tensor name holds a NUL byte", f->name);
	if (read_entry(val, vlen, &e) < 0)
		return ckpt_seterr("%s: the entry of '%s' is malformed (the file is damaged)",
		                   f->name, key);
	if (grow(w) < 0)
		return -1;
	v = &f->vars[b->nvars];
	memset(v, 0, sizeof *v);
	if (!(v->name = ckpt_file_strdup(f, key)))
		return -1;
	v->dtype = ckpt_tf_type(e.dtype, &kind);
	v->elsize = v->dtype == CKPT_OTHER ? 1 : ckpt_dtype_size(v->dtype);
	snprintf(v->type, sizeof v->type, "%s", kind ? kind : ckpt_dtype_name(v->dtype));
	v->nelems = 1;
	for (int i = 0; i < e.rank; i++)
		if (__builtin_mul_overflow(v->nelems, e.dims[i], &v->nelems))
			return ckpt_seterr("%s: variable '%s': its shape overflows", f->name, key);
	if (__builtin_mul_overflow(v->nelems, (uint64_t)v->elsize, &v->nbytes))
		return ckpt_seterr("%s: variable '%s': its shape overflows", f->name, key);
	if (v->dtype == CKPT_OTHER) /* a scalar string: one value of its bytes */
		v->nbytes = e.size, v->elsize = v->nelems == 1 ? (size_t)e.size : 0;
	if (ckpt_file_set_dims(f, v, e.rank, e.dims) < 0 || check_entry(w, v, &e) < 0)
		return -1;
	b->at[b->nvars] = (struct where){(uint32_t)e.dtype, (uint32_t)e.shard, (uint32_t)e.crc,
	                                 e.offset, e.size, e.has_crc};
	b->nvars++;
	f->nvars = b->nvars;
	return 0;
}

static int each(const char *key, size_t klen, const unsigned char *val, size_t vlen, void *user)
{
	struct walk *w = user;

	if (klen == 0)
		return read_header(w, val, vlen);
	return add_variable(w, key, klen, val, vlen);
}

/* The data shards: open, and every tensor inside its shard. */
static int open_shards(ckpt_file *f, struct bundle *b)
{
	struct stat st;

	if (!(b->fd = malloc(b->nshards * sizeof *b->fd)) ||
	    !(b->size = calloc(b->nshards, sizeof *b->size)))
		return ckpt_seterr("%s: out of memory", f->name);
	for (uint32_t i = 0; i < b->nshards; i++)
		b->fd[i] = -1;
	for (uint32_t i = 0; i < b->nshards; i++) {
		char *path = ckpt_tfout_shard_name(b->prefix, i, b->nshards);

		if (!path)
			return ckpt_seterr("%s: out of memory", f->name);
		if ((b->fd[i] = open(path, O_RDONLY)) < 0 || fstat(b->fd[i], &st) < 0) {
			ckpt_seterr("%s: its data file %s: %s", f->name, path, strerror(errno));
			free(path);
			return -1;
		}
		free(path);
		b->size[i] = (uint64_t)st.st_size;
	}
	for (size_t k = 0; k < b->nvars; k++) {
		const struct where *at = &b->at[k];

		if (at->offset > b->size[at->shard] || at->size > b->size[at->shard] - at->offset)
			return ckpt_seterr("%s: variable '%s' lies beyond the end of data shard %"
			                   PRIu32 " (truncated?)", f->name, f->vars[k].name, at->shard);
	}
	return 0;
}

/* The variables in the order of their data (as a safetensors file's
 * are): the order they were written in, which a bundle written from this
 * one keeps; the index holds them in the keys' order. */
struct place {
	uint64_t shard, offset;
	size_t k;
};

static int by_place(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	if (x->shard != y->shard)
		return x->shard < y->shard ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

static int data_order(ckpt_file *f, struct bundle *b)
{
	struct place *p = malloc((b->nvars ? b->nvars : 1) * sizeof *p);
	ckpt_var *v = malloc((b->nvars ? b->nvars : 1) * sizeof *v);
	struct where *at = malloc((b->nvars ? b->nvars : 1) * sizeof *at);

	if (!p || !v || !at) {
		free(p), free(v), free(at);
		return ckpt_seterr("%s: out of memory", f->name);
	}
	for (size_t k = 0; k < b->nvars; k++)
		p[k] = (struct place){b->at[k].shard, b->at[k].offset, k};
	qsort(p, b->nvars, sizeof *p, by_place);
	for (size_t k = 0; k < b->nvars; k++)
		v[k] = f->vars[p[k].k], at[k] = b->at[p[k].k];
	free(f->vars), free(b->at), free(p);
	f->vars = v, b->at = at;
	b->cap = b->nvars;
	return 0;
}

static int read_index(ckpt_file *f, unsigned char **image)
{
	ptrdiff_t got;

	if (f->image) {
		*image = f->image;
		return 0;
	}
	if (f->size > ((uint64_t)1 << 30))
		return ckpt_seterr("%s: a TensorFlow index of over 1 GiB", f->name);
	if (!(*image = malloc(f->size ? (size_t)f->size : 1)))
		return ckpt_seterr("%s: out of memory", f->name);
	if ((got = ckpt_pread_full(f->fd, *image, (size_t)f->size, 0)) < 0)
		return ckpt_seterr_errno(f->name);
	return (uint64_t)got < f->size ? ckpt_seterr("%s: the file shrank while being read",
	                                             f->name) : 0;
}

static int tf_open(ckpt_file *f, const char *path)
{
	struct bundle *b;
	struct walk w;
	unsigned char *image = NULL;
	int rc;

	if (!path)
		return ckpt_seterr("%s: a TensorFlow bundle is read from its files (its .index "
		                   "beside its .data-* shards), not from a stream", f->name);
	if (!(f->backend = calloc(1, sizeof *f->backend)) || !(b = calloc(1, sizeof *b)))
		return ckpt_seterr("%s: out of memory", f->name);
	f->backend->format = &ckpt_format_tf;
	f->backend->state = b;
	if (!(b->prefix = strndup(path, ckpt_tf_prefix_len(path))))
		return ckpt_seterr("%s: out of memory", f->name);
	w.f = f, w.b = b;
	rc = read_index(f, &image) < 0 ? -1 : ckpt_tftable_each(f->name, image, (size_t)f->size,
	                                                        each, &w);
	if (image != f->image)
		free(image);
	if (rc == 0 && !b->seen_header)
		return ckpt_seterr("%s: a table without a bundle header (not a TensorFlow "
		                   "checkpoint index?)", f->name);
	return rc < 0 || data_order(f, b) < 0 ? -1 : open_shards(f, b);
}

static void tf_close(ckpt_file *f)
{
	struct bundle *b = f->backend ? bundle_of(f) : NULL;

	if (!b)
		return;
	for (uint32_t i = 0; b->fd && i < b->nshards; i++)
		if (b->fd[i] >= 0)
			close(b->fd[i]);
	free(b->fd);
	free(b->size);
	free(b->prefix);
	free(b->at);
	free(b);
	f->backend->state = NULL;
}

/* ---- naming: a prefix, a directory of checkpoints, a SavedModel --------------- */

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The latest checkpoint a `checkpoint` state file names
 * (model_checkpoint_path: "ckpt-100"), beside it when relative. */
static int latest(const char *dir, char *out, size_t size)
{
	char state[4200], line[4200];
	FILE *fp;
	int found = 0;

	snprintf(state, sizeof state, "%s/checkpoint", dir);
	if (!(fp = fopen(state, "r")))
		return 0;
	while (!found && fgets(line, sizeof line, fp)) {
		char *q = strstr(line, "model_checkpoint_path:"), *end;

		if (q != line || !(q = strchr(q, '"')) || !(end = strrchr(q + 1, '"')))
			continue;
		*end = '\0';
		if (q[1] == '/')
			snprintf(out, size, "%s.index", q + 1);
		else
			snprintf(out, size, "%s/%s.index", dir, q + 1);
		found = 1;
	}
	fclose(fp);
	if (found && !is_file(out))
		return ckpt_seterr("%s: its checkpoint file names %s, which is not there", dir, out);
	return found;
}

static int tf_locate(const char *path, char *out, size_t size)
{
	struct stat st;
	int rc;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		if ((rc = latest(path, out, size)) != 0)
			return rc;
		snprintf(out, size, "%s/variables/variables.index", path);
		return is_file(out);
	}
	if (stat(path, &st) == 0)
		return 0;
	snprintf(out, size, "%s.index", path);
	return is_file(out);
}

/* ---- the table's other entries ----------------------------------------------- */

static int probe(const struct ckpt_probe *p)
{
	unsigned char tail[8];

	if (p->size < 48)
		return 0;
	if (p->tail)
		return ckpt_tftable_magic(p->tail);
	if (p->image)
		return ckpt_tftable_magic((const unsigned char *)p->image + p->size - 8);
	return p->fd >= 0 && pread(p->fd, tail, 8, (off_t)(p->size - 8)) == 8 &&
	       ckpt_tftable_magic(tail);
}

static char *storage(const ckpt_file *f, const ckpt_var *v, char *out, size_t size)
{
	const struct bundle *b = bundle_of(f);

	snprintf(out, size, "contiguous, data shard %" PRIu32 " of %" PRIu32,
	         b->at[v - f->vars].shard, b->nshards);
	return out;
}

static int slab_open(ckpt_slab *s, size_t max_bytes)
{
	const ckpt_var *v = s->var;
	struct tfslab *t;

	if (v->dtype == CKPT_OTHER && (v->nelems != 1 || strcmp(v->type, "string") != 0))
		return ckpt_seterr("%s: variable '%s' holds %s values, which ckpt does not read",
		                   s->file->name, v->name, v->type);
	if (!(t = calloc(1, sizeof *t)))
		return ckpt_seterr("%s: out of memory", s->file->name);
	s->backend = t;
	s->elsize = v->elsize;
	memset(&s->at, 0, sizeof s->at);
	s->at.var = v;
	ckpt_slab_plan(v->rank, v->dims, NULL, max_bytes / (s->elsize ? s->elsize : 1),
	               &s->at.split, &s->at.step);
	return 0;
}

/* Over the length as a uint32, the 4 bytes of its CRC and the string. */
uint32_t ckpt_tf_string_crc(const unsigned char *p, size_t n)
{
	const unsigned char *q = p;
	uint64_t len;
	unsigned char len32[4];
	uint32_t crc;

	if (ckpt_pb_varint(&q, p + n, &len) < 0 || len > UINT32_MAX ||
	    (size_t)(p + n - q) < 4 || len != (uint64_t)(p + n - q) - 4)
		return 0;
	for (int i = 0; i < 4; i++)
		len32[i] = (unsigned char)(len >> (8 * i));
	crc = ckpt_crc32c_extend(0, len32, 4);
	crc = ckpt_crc32c_extend(crc, q, 4);
	return ckpt_crc32c_extend(crc, q + 4, (size_t)len);
}

/* The bytes [at, at + n) of v, through the tensor's CRC when they follow
 * what was read before: at the end, it must be the index's. */
static int slab_read(ckpt_slab *s, void *buf, const ckpt_region *r)
{
	const ckpt_var *v = s->var;
	const struct bundle *b = bundle_of(s->file);
	const struct where *w = &b->at[v - s->file->vars];
	struct tfslab *t = s->backend;
	uint64_t index = 0, at;
	size_t n = r->n * s->elsize;
	ptrdiff_t got;

	for (int i = 0; i < r->rank; i++)
		index = index * v->dims[i] + r->start[i];
	at = index * s->elsize;
	if ((got = ckpt_pread_full(b->fd[w->shard], buf, n, w->offset + at)) < 0)
		return ckpt_seterr_errno(s->file->name);
	if ((size_t)got < n)
		return ckpt_seterr("%s: data shard %" PRIu32 " shrank while being read (changed by "
		                   "another program?)", s->file->name, w->shard);
	if (at == 0)
		t->crc = 0, t->next = 0;
	if (at == t->next) {
		t->crc = v->dtype == CKPT_OTHER ? ckpt_tf_string_crc(buf, n)
		                                : ckpt_crc32c_extend(t->crc, buf, n);
		t->next = at + n;
		if (t->next == w->size && w->has_crc && ckpt_crc32c_mask(t->crc) != w->crc)
			return ckpt_seterr("%s: variable '%s' fails its CRC (the data file is damaged)",
			                   s->file->name, v->name);
	}
	return 0;
}

/* Two tensors ckpt does not read as values: the same type, shape and
 * bytes as stored. */
static int blobs_same(const ckpt_file *fa, const ckpt_var *a, const ckpt_file *fb,
                      const ckpt_var *b)
{
	struct ckpt_tf_raw ra, rb;
	unsigned char x[65536], y[65536];

	ckpt_tf_raw(fa, a, &ra);
	ckpt_tf_raw(fb, b, &rb);
	if (ra.dtype != rb.dtype || ra.size != rb.size || !ckpt_same_shape(a, b))
		return 0;
	for (uint64_t at = 0; at < ra.size; at += sizeof x) {
		size_t k = ra.size - at < sizeof x ? (size_t)(ra.size - at) : sizeof x;

		if (ckpt_pread_full(ra.fd, x, k, ra.offset + at) != (ptrdiff_t)k)
			return ckpt_seterr("%s: variable '%s': its data file shrank", fa->name, a->name);
		if (ckpt_pread_full(rb.fd, y, k, rb.offset + at) != (ptrdiff_t)k)
			return ckpt_seterr("%s: variable '%s': its data file shrank", fb->name, b->name);
		if (memcmp(x, y, k) != 0)
			return 0;
	}
	return 1;
}

static void slab_close(ckpt_slab *s)
{
	free(s->backend);
	s->backend = NULL;
}

static const char *const suffixes[] = {".index", NULL};

const struct ckpt_format ckpt_format_tf = {
	.name = "a TensorFlow bundle",
	.probe = probe,
	.locate = tf_locate,
	.open = tf_open,
	.close = tf_close,
	.text = ckpt_format_no_text,
	.texts = ckpt_format_no_texts,
	.storage = storage,
	.slab_open = slab_open,
	.slab_read = slab_read,
	.slab_close = slab_close,
	.blobs_same = blobs_same,
	.suffixes = suffixes,
	.out_open = ckpt_tfout_open,
	.out_name = ckpt_tfout_name,
	.out_declare = ckpt_tfout_declare,
	.out_commit = ckpt_tfout_commit,
	.out_abort = ckpt_tfout_abort,
	.out_declare_from = ckpt_tfout_declare_from,
	.storable = ckpt_tfout_storable,
	.out_split = ckpt_tfout_split,
	.split_name = ckpt_tfout_shard_name,
	.var_open = ckpt_tfvar_open,
	.var_write = ckpt_tfvar_write,
	.var_close = ckpt_tfvar_close,
};
