/* tfout.c - TensorFlow's tensor bundle, writing side: PREFIX.index and
 * PREFIX.data-00000-of-00001 (or K data shards, for ckpt-merge --split) as
 * TensorFlow's BundleWriter makes them.  Variables are declared first;
 * their values go into the data file in that order, without gaps
 * (TensorFlow's default alignment), each tensor's CRC-32C taken as its
 * bytes are written in order (read back where they were not); at the
 * commit the index - a table of the header and one entry per tensor, in
 * the keys' order - is written, and the files put in place together.  A
 * bundle keeps no texts (its table has no out_set_text: out.c names what
 * is left out). */
#include "backend.h"
#include "crc32c.h"
#include "decl.h"
#include "err.h"
#include "format.h"
#include "pb.h"
#include "temp.h"
#include "tf.h"
#include "tftable.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOT_IN_ORDER UINT64_MAX

/* A declaration's state once the layout is fixed. */
struct tfstate {
	uint64_t next;            /* its CRC so far: of bytes [0, next), */
	uint32_t crc;             /* written in order */
	uint32_t shard;
	uint64_t dtype;           /* its DataType number */
	int carried;              /* copied as stored from a bundle, crc its entry's */
};

struct tfout {
	struct ckpt_temp index;
	struct ckpt_temp *data;   /* the data shards */
	uint32_t nshards;
	char *prefix;
	int force;
	uint64_t old;             /* data shards of the bundle replaced (0: none) */
	const ckpt_file *in;      /* a split: variable i of in goes */
	const size_t *owner;      /* into shard owner[i] */
	struct ckpt_decls l;
	struct tfstate *st;       /* per declaration, once the layout is fixed */
	uint64_t *end;            /* per shard: the data's size */
	int fixed;
};

struct tfvar {
	struct tfout *o;
	const struct ckpt_decl *d;
	struct tfstate *st;
	ckpt_dtype mem;           /* the type of the values given */
	void *conv;               /* room for them converted */
	size_t convcap;
};

static char *path_with(const char *prefix, const char *suffix)
{
	size_t n = strlen(prefix), k = strlen(suffix);
	char *p = malloc(n + k + 1);

	if (p) {
		memcpy(p, prefix, n);
		memcpy(p + n, suffix, k + 1);
	}
	return p;
}

char *ckpt_tfout_shard_name(const char *target, size_t s, size_t k)
{
	size_t n = ckpt_tf_prefix_len(target), size = n + 32;
	char *name = malloc(size);

	if (name)
		snprintf(name, size, "%.*s.data-%05zu-of-%05zu", (int)n, target, s, k);
	return name;
}

/* The header's shard count (field 1), into user. */
static int shard_count(const char *key, size_t klen, const unsigned char *val, size_t vlen,
                       void *user)
{
	struct ckpt_pb_field f;

	(void)key;
	if (klen)
		return 1; /* no header first: no bundle */
	while (ckpt_pb_next(&val, val + vlen, &f) > 0)
		if (f.number == 1 && f.wire == 0)
			*(uint64_t *)user = f.value;
	return 1;
}

/* The data shards of the bundle whose index is at path: 0 when there is
 * none, or it is no bundle. */
static uint64_t shards_of(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	unsigned char *image = NULL;
	uint64_t n = 0;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (1 << 30) &&
	    (image = malloc((size_t)st.st_size + 1)) &&
	    ckpt_pread_full(fd, image, (size_t)st.st_size, 0) == (ptrdiff_t)st.st_size)
		ckpt_tftable_each(path, image, (size_t)st.st_size, shard_count, &n);
	free(image);
	if (fd >= 0)
		close(fd);
	return n <= 99999 ? n : 0;
}

/* The data shards' temporaries: k of them, or k + 1 (the last empty) when
 * the bundle replaced has k - so that no new file takes the name of one
 * the old index reads, and the old bundle stays whole until the new index
 * replaces it, the commit. */
static int open_data(struct tfout *o, size_t k)
{
	if (o->old == k)
		k++;
	for (uint32_t s = 0; o->data && s < o->nshards; s++)
		ckpt_temp_release(&o->data[s]);
	free(o->data);
	o->nshards = 0;
	if (!(o->data = calloc(k, sizeof *o->data)))
		return ckpt_seterr("out of memory");
	for (size_t s = 0; s < k; s++) {
		char *name = ckpt_tfout_shard_name(o->prefix, s, k);
		int rc;

		o->data[s].fd = o->data[s].slot = -1;
		o->nshards++;
		if (!name)
			return ckpt_seterr("out of memory");
		rc = ckpt_temp_open(&o->data[s], name, o->force, 0, NULL);
		free(name);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int ckpt_tfout_split(void *w, size_t k, const ckpt_file *in, const size_t *owner)
{
	struct tfout *o = w;

	if (k >= 99999)
		return ckpt_seterr("%s: a bundle has at most 99998 data shards", ckpt_tfout_name(o));
	o->in = in, o->owner = owner;
	return open_data(o, k);
}

void *ckpt_tfout_open(const char *target, int force, const ckpt_file *like)
{
	struct tfout *o;
	char *index = NULL;

	(void)like; /* what a bundle keeps besides tensors are tensors */
	if (!target || strcmp(target, "-") == 0) {
		ckpt_seterr("(stdout): a TensorFlow bundle is two files (PREFIX.index and its data): "
		            "name the output PREFIX.index");
		return NULL;
	}
	if (!(o = calloc(1, sizeof *o)) ||
	    !(o->prefix = strndup(target, ckpt_tf_prefix_len(target)))) {
		free(o);
		ckpt_seterr("out of memory");
		return NULL;
	}
	o->index.fd = o->index.slot = -1;
	o->force = force;
	if (!(index = path_with(o->prefix, ".index")))
		ckpt_seterr("out of memory");
	if (index && force)
		o->old = shards_of(index);
	if (!index || ckpt_temp_open(&o->index, index, force, 0, NULL) < 0 || open_data(o, 1) < 0) {
		ckpt_tfout_abort(o);
		o = NULL;
	}
	free(index);
	return o;
}

const char *ckpt_tfout_name(const void *w)
{
	return ckpt_temp_name(&((const struct tfout *)w)->index);
}

void ckpt_tfout_abort(void *w)
{
	struct tfout *o = w;

	if (!o)
		return;
	ckpt_temp_release(&o->index);
	for (uint32_t s = 0; o->data && s < o->nshards; s++)
		ckpt_temp_release(&o->data[s]);
	free(o->data);
	free(o->prefix);
	ckpt_decl_free(&o->l);
	free(o->st);
	free(o->end);
	free(o);
}

/* ---- what a bundle holds ------------------------------------------------------- */

/* Numbers of a type TensorFlow has; from a bundle, any tensor (strings,
 * variants, complex numbers ...: carried as stored). */
int ckpt_tfout_storable(const ckpt_file *src, const ckpt_var *v)
{
	return v->dtype != CKPT_OTHER ? ckpt_tf_number(v) != 0
	                              : src && ckpt_file_fmt(src) == &ckpt_format_tf;
}

int ckpt_tfout_declare_from(void *w, const char *name, const ckpt_var *like, ckpt_dtype t,
                            const ckpt_file *src, const ckpt_var *sv)
{
	struct tfout *o = w;
	ckpt_var v = ckpt_decl_as(like, t);

	if (o->fixed)
		return ckpt_seterr("%s: variable '%s' made after values were written",
		                   ckpt_tfout_name(o), name);
	if (!ckpt_tfout_storable(src, &v))
		return ckpt_seterr("%s: variable '%s': a TensorFlow bundle cannot hold %s values%s",
		                   ckpt_tfout_name(o), name, v.type,
		                   v.dtype == CKPT_OTHER ? " but from a bundle" : "");
	if (!name[0])
		return ckpt_seterr("%s: a variable without a name: a TensorFlow bundle keeps its "
		                   "header under the empty name", ckpt_tfout_name(o));
	return ckpt_decl_add(&o->l, ckpt_tfout_name(o), name, &v, src, sv) ? 0 : -1;
}

int ckpt_tfout_declare(void *w, const char *name, ckpt_dtype t, int rank, const uint64_t *dims)
{
	ckpt_var v = ckpt_decl_new_var(t, rank, dims);

	return ckpt_tfout_declare_from(w, name, &v, t, NULL, NULL);
}

/* ---- the data ------------------------------------------------------------------- */

/* n bytes at offset at of d's written; its CRC extended when they follow
 * the bytes before. */
static int put_bytes(struct tfout *o, const struct ckpt_decl *d, struct tfstate *st,
                     const void *buf, size_t n, uint64_t at)
{
	struct ckpt_temp *t = &o->data[st->shard];

	if (at == 0)
		st->next = 0, st->crc = 0;
	if (at == st->next) {
		st->crc = ckpt_crc32c_extend(st->crc, buf, n);
		st->next = at + n;
	} else {
		st->next = NOT_IN_ORDER;
	}
	return ckpt_pwrite_all(t->fd, buf, n, d->begin + at, ckpt_temp_name(t));
}

struct copy_into {
	struct tfout *o;
	size_t i;
};

static int put_copy(void *user, const void *buf, size_t n, uint64_t at)
{
	struct copy_into *c = user;

	return put_bytes(c->o, &c->o->l.d[c->i], &c->o->st[c->i], buf, n, at);
}

/* A tensor ckpt does not read as numbers, from a bundle: its bytes as
 * stored, checked against its CRC where that is theirs (complex and
 * quantized numbers) or a scalar string's; its entry's CRC kept. */
static int copy_carried(struct tfout *o, size_t i)
{
	const struct ckpt_decl *d = &o->l.d[i];
	struct tfstate *st = &o->st[i];
	struct ckpt_temp *t = &o->data[st->shard];
	struct ckpt_tf_raw r;
	int plain, whole;
	size_t chunk;
	unsigned char *buf;
	uint32_t c = 0;
	int rc = 0;

	ckpt_tf_raw(d->src, d->sv, &r);
	plain = ckpt_tf_plain(r.dtype);
	whole = r.dtype == 7 && d->v.nelems == 1 && r.size <= (1u << 28);
	chunk = whole ? (size_t)r.size : r.size < (1u << 20) ? (size_t)r.size : (1u << 20);
	if (!(buf = malloc(chunk ? chunk : 1)))
		return ckpt_seterr("out of memory");
	for (uint64_t at = 0; at < r.size && rc == 0; at += chunk) {
		size_t k = r.size - at < chunk ? (size_t)(r.size - at) : chunk;

		if (ckpt_pread_full(r.fd, buf, k, r.offset + at) != (ptrdiff_t)k)
			rc = ckpt_seterr("%s: variable '%s': its data file could not be read (or "
			                 "shrank)", d->src->name, d->sv->name);
		c = plain ? ckpt_crc32c_extend(c, buf, k) : whole ? ckpt_tf_string_crc(buf, k) : 0;
		rc = rc ? rc : ckpt_pwrite_all(t->fd, buf, k, d->begin + at, ckpt_temp_name(t));
	}
	free(buf);
	if (rc == 0 && (plain || whole) && r.has_crc && ckpt_crc32c_mask(c) != r.crc)
		rc = ckpt_seterr("%s: variable '%s' fails its CRC (the data file is damaged)",
		                 d->src->name, d->sv->name);
	st->dtype = r.dtype, st->crc = r.has_crc ? r.crc : 0, st->carried = 1;
	return rc;
}

/* The shard of declaration d: of a split, its variable's. */
static uint32_t shard_of(const struct tfout *o, const struct ckpt_decl *d)
{
	const ckpt_var *v = o->in ? ckpt_find(o->in, d->name) : NULL;

	return !o->in ? 0 : v ? (uint32_t)o->owner[v - o->in->vars] : o->nshards - 1;
}

/* The tensors one after the other in the order declared, in their shards;
 * the copies written. */
static int fix_layout(struct tfout *o)
{
	int rc = 0;

	if (o->fixed)
		return 0;
	o->fixed = 1;
	if (!(o->st = calloc(o->l.n ? o->l.n : 1, sizeof *o->st)) ||
	    !(o->end = calloc(o->nshards, sizeof *o->end)))
		return ckpt_seterr("out of memory");
	for (size_t i = 0; i < o->l.n; i++) {
		struct ckpt_decl *d = &o->l.d[i];
		uint32_t s = o->st[i].shard = shard_of(o, d);

		o->st[i].dtype = ckpt_tf_number(&d->v);
		d->begin = o->end[s];
		o->end[s] += d->v.nbytes;
	}
	for (size_t i = 0; i < o->l.n && rc == 0; i++)
		if (o->l.d[i].src)
			rc = o->l.d[i].v.dtype == CKPT_OTHER
			     ? copy_carried(o, i)
			     : ckpt_decl_copy(&o->l.d[i], put_copy, &(struct copy_into){o, i});
	return rc;
}

/* d's CRC as its entry keeps it (masked): of the bytes written in order,
 * else of the bytes read back; a carried tensor's from its entry. */
static int tensor_crc(struct tfout *o, const struct ckpt_decl *d, const struct tfstate *st,
                      uint32_t *crc)
{
	const uint64_t n = d->v.nbytes;
	const struct ckpt_temp *t = &o->data[st->shard];
	size_t chunk = n < (1u << 20) ? (size_t)n : (1u << 20);
	unsigned char *buf;
	uint32_t c = 0;

	if (st->carried || st->next == n) {
		*crc = st->carried ? st->crc : ckpt_crc32c_mask(st->crc);
		return 0;
	}
	if (!(buf = malloc(chunk ? chunk : 1)))
		return ckpt_seterr("out of memory");
	for (uint64_t at = 0; at < n; at += chunk) {
		size_t k = n - at < chunk ? (size_t)(n - at) : chunk;

		if (ckpt_pread_full(t->fd, buf, k, d->begin + at) != (ptrdiff_t)k) {
			free(buf);
			return ckpt_seterr("%s: read error", ckpt_temp_name(t));
		}
		c = ckpt_crc32c_extend(c, buf, k);
	}
	free(buf);
	*crc = ckpt_crc32c_mask(c);
	return 0;
}

/* ---- the index ------------------------------------------------------------------- */

static void put_entry(struct ckpt_bytes *e, const struct ckpt_decl *d,
                      const struct tfstate *st, uint32_t crc)
{
	struct ckpt_bytes shape = {0}, dim = {0};

	for (int i = 0; i < d->v.rank; i++) {
		dim.n = 0;
		if (d->v.dims[i])
			ckpt_pb_put_uint(&dim, 1, d->v.dims[i]);
		ckpt_pb_put_bytes(&shape, 2, dim.p, dim.n);
	}
	e->n = 0;
	ckpt_pb_put_uint(e, 1, st->dtype);
	ckpt_pb_put_bytes(e, 2, shape.p, shape.n);
	if (st->shard)
		ckpt_pb_put_uint(e, 3, st->shard);
	if (d->begin)
		ckpt_pb_put_uint(e, 4, d->begin);
	if (d->v.nbytes)
		ckpt_pb_put_uint(e, 5, d->v.nbytes);
	if (crc)
		ckpt_pb_put_fixed32(e, 6, crc);
	if (shape.failed || dim.failed)
		e->failed = 1;
	ckpt_bytes_free(&shape);
	ckpt_bytes_free(&dim);
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct ckpt_decl *const *)a)->name, (*(struct ckpt_decl *const *)b)->name);
}

/* The header (the shards, little-endian: 0, left out; version 1), then
 * every tensor's entry in the keys' order. */
static int write_index(struct tfout *o, struct ckpt_tftable_out *t)
{
	static const unsigned char version[] = {0x08, 0x01};
	struct ckpt_decl **sorted = malloc((o->l.n ? o->l.n : 1) * sizeof *sorted);
	struct ckpt_bytes e = {0};
	int rc;

	ckpt_pb_put_uint(&e, 1, o->nshards);
	ckpt_pb_put_bytes(&e, 3, version, sizeof version);
	rc = sorted && !e.failed ? ckpt_tftable_add(t, "", 0, e.p, e.n) : -1;

	for (size_t i = 0; sorted && i < o->l.n; i++)
		sorted[i] = &o->l.d[i];
	if (sorted)
		qsort(sorted, o->l.n, sizeof *sorted, by_name);
	for (size_t i = 0; rc == 0 && sorted && i < o->l.n; i++) {
		const struct ckpt_decl *d = sorted[i];
		uint32_t crc = 0;

		if ((rc = tensor_crc(o, d, &o->st[d - o->l.d], &crc)) < 0)
			break;
		put_entry(&e, d, &o->st[d - o->l.d], crc);
		rc = e.failed ? -1 : ckpt_tftable_add(t, d->name, strlen(d->name), e.p, e.n);
	}
	if (rc == 0 && (!sorted || e.failed))
		rc = ckpt_seterr("out of memory");
	free(sorted);
	ckpt_bytes_free(&e);
	return rc < 0 ? -1 : ckpt_tftable_finish(t);
}

static int finish(struct tfout *o)
{
	struct ckpt_tftable_out *t;
	int rc = fix_layout(o);

	for (uint32_t s = 0; s < o->nshards && rc == 0; s++)
		if (ftruncate(o->data[s].fd, (off_t)o->end[s]) < 0)
			rc = ckpt_seterr_errno(ckpt_temp_name(&o->data[s]));
	if (rc < 0)
		return rc;
	if (!(t = ckpt_tftable_out_new(o->index.fd, ckpt_tfout_name(o), CKPT_TFTABLE_BLOCK)))
		return -1;
	rc = write_index(o, t);
	ckpt_tftable_out_free(t);
	return rc;
}

/* The data files replaced bundle had, now that no index names them. */
static void remove_old_data(const struct tfout *o)
{
	for (uint64_t s = 0; s < o->old; s++) {
		char *name = ckpt_tfout_shard_name(o->prefix, (size_t)s, (size_t)o->old);

		if (name)
			unlink(name);
		free(name);
	}
}

/* The data files first, under names the old index (if any) does not use,
 * then the index that names them - the commit - and the old data files
 * go: with the signals that would remove temporaries held throughout. */
int ckpt_tfout_commit(void *w)
{
	struct tfout *o = w;
	sigset_t old;
	int rc = finish(o);

	if (rc == 0) {
		ckpt_temp_hold_signals(&old);
		for (uint32_t s = 0; s < o->nshards && rc == 0; s++)
			rc = ckpt_temp_commit(&o->data[s]);
		rc = rc ? rc : ckpt_temp_commit(&o->index);
		if (rc == 0)
			remove_old_data(o);
		ckpt_temp_release_signals(&old);
	}
	ckpt_tfout_abort(o);
	return rc;
}

/* ---- writing a variable's values -------------------------------------------------- */

void *ckpt_tfvar_open(void *w, const char *name, ckpt_dtype t, const ckpt_slab *like)
{
	struct tfout *o = w;
	struct tfvar *v;
	const struct ckpt_decl *d = ckpt_decl_find(&o->l, name);

	if (!d) {
		ckpt_seterr("%s: variable '%s': not in the output", ckpt_tfout_name(o), name);
		return NULL;
	}
	if (fix_layout(o) < 0)
		return NULL;
	if (!(v = calloc(1, sizeof *v))) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	v->o = o;
	v->d = d;
	v->st = &o->st[d - o->l.d];
	v->mem = like ? like->var->dtype : t == CKPT_OTHER ? d->v.dtype : t;
	return v;
}

int ckpt_tfvar_write(void *var, const ckpt_region *r, const void *buf)
{
	struct tfvar *w = var;
	const ckpt_var *v = &w->d->v;
	uint64_t index = 0;

	for (int i = 0; i < r->rank; i++)
		index = index * v->dims[i] + r->start[i];
	if (!(buf = ckpt_decl_stored(v, w->mem, buf, r->n, &w->conv, &w->convcap)))
		return -1;
	return put_bytes(w->o, w->d, w->st, buf, r->n * v->elsize, index * v->elsize);
}

void ckpt_tfvar_close(void *var)
{
	struct tfvar *w = var;

	if (!w)
		return;
	free(w->conv);
	free(w);
}
