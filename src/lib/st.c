/* st.c - the safetensors backend's reading side: the header checked
 * against every rule of the format, the tensors listed in the order of
 * their data, slabs read in place where aligned. */
#include "st.h"
#include "err.h"
#include "jsonio.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ckpt_st {
	uint64_t data;      /* where the data start: 8 + the header's length */
	uint64_t *begin;    /* per variable: its first byte within the data */
	char **meta;        /* __metadata__: key, value, key, value, ... */
	size_t *metalen;    /* each value's length (JSON strings may hold NUL) */
	size_t nmeta;
};

/* The header of f, a safetensors file (NULL for a file of another format). */
static struct ckpt_st *st_of(const ckpt_file *f)
{
	return ckpt_file_fmt(f) == &ckpt_format_safetensors ? f->backend->state : NULL;
}

static const struct {
	const char *name;
	ckpt_dtype dtype;
} st_types[] = {
	{"F64", CKPT_F64}, {"F32", CKPT_F32}, {"F16", CKPT_F16}, {"BF16", CKPT_BF16},
	{"I64", CKPT_I64}, {"I32", CKPT_I32}, {"I16", CKPT_I16}, {"I8", CKPT_I8},
	{"U8", CKPT_U8}, {"U16", CKPT_U16}, {"U32", CKPT_U32}, {"U64", CKPT_U64},
	{"BOOL", CKPT_BOOL}, {"F8_E4M3", CKPT_F8E4M3}, {"F8_E5M2", CKPT_F8E5M2},
};

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int ckpt_st_looks_like(const void *head, size_t n)
{
	const unsigned char *p = head;
	uint64_t len;

	if (n < 9)
		return 0;
	len = le64(p);
	return len >= 2 && p[8] == '{';
}

/* ---- the header ------------------------------------------------------------ */

static int read_at(const ckpt_file *f, void *buf, size_t n, uint64_t off)
{
	if (f->image) {
		if (off > f->image_size || n > f->image_size - off)
			return ckpt_seterr("%s: truncated", f->name);
		memcpy(buf, (const char *)f->image + off, n);
		return 0;
	}
	ptrdiff_t got = ckpt_pread_full(f->fd, buf, n, off);

	if (got < 0)
		return ckpt_seterr_errno(f->name);
	return (size_t)got < n ? ckpt_seterr("%s: truncated", f->name) : 0;
}

struct tensor {
	uint64_t begin, end;
	size_t order;       /* place in the header, for ties */
	ckpt_var v;
};

/* The header is read as a stream (jsonio.h): a million tensors cost
 * their variables, not a document tree. */
struct header {
	ckpt_file *f;
	uint64_t off, end;  /* the JSON's bytes in the file: next, past the last */
	struct tensor *t;
	size_t n, cap;
	int bad;            /* a rule broken (its message set): the rest is only
	                     * checked as JSON, whose errors come first */
	int saw_meta;
	ckpt_jp jp;
};

/* A field of a tensor, as met. */
struct fields {
	int dtype;          /* index in st_types; -1 no string, -2 unknown */
	char dtype_text[48];
	int shape;          /* -1 no list, 0 read, 1 holds other than sizes */
	int rank;           /* (may pass CKPT_MAX_RANK: then refused) */
	uint64_t dims[CKPT_MAX_RANK];
	int offsets;        /* -1 not [begin, end] with 0 <= begin <= end */
	int64_t at[2];
	const char *twice;  /* a field given twice */
	unsigned seen;
};

static ptrdiff_t header_bytes(void *from, void *buf, size_t n)
{
	struct header *h = from;

	if (n > h->end - h->off)
		n = (size_t)(h->end - h->off);
	if (n && read_at(h->f, buf, n, h->off) < 0)
		return -1;
	h->off += n;
	return (ptrdiff_t)n;
}

static int broke(struct header *h, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!h->bad)
		ckpt_seterr("%s: %s", h->f->name, msg);
	h->bad = 1;
	return 1;
}

/* Skip a value that breaks a rule: 1, or -1 when it is not even JSON. */
static int skip_broken(struct header *h)
{
	return ckpt_jp_skip(&h->jp) < 0 ? -1 : 1;
}

static int nomem(struct header *h)
{
	h->jp.status = CKPT_JP_NOMEM;
	return -1;
}

static int is_key(const ckpt_jp *p, const char *key)
{
	return p->len == strlen(key) && memcmp(p->str, key, p->len) == 0;
}

static int read_dtype(ckpt_jp *p, struct fields *fl)
{
	if (ckpt_jp_peek(p) != '"') {
		fl->dtype = -1;
		return ckpt_jp_skip(p);
	}
	if (ckpt_jp_string(p) < 0)
		return -1;
	fl->dtype = -2;
	snprintf(fl->dtype_text, sizeof fl->dtype_text, "%s", p->str);
	for (size_t i = 0; i < sizeof st_types / sizeof *st_types; i++)
		if (is_key(p, st_types[i].name))
			fl->dtype = (int)i;
	return 0;
}

/* A list of sizes: the shape (into dims) or the data_offsets (into at). */
static int read_sizes(ckpt_jp *p, int *state, int *count, uint64_t *into, int room)
{
	int first = 1, more, integer;
	int64_t v;

	*count = 0;
	if (ckpt_jp_peek(p) != '[') {
		*state = -1;
		return ckpt_jp_skip(p);
	}
	*state = 0;
	while ((more = ckpt_jp_next(p, '[', &first)) > 0) {
		int c = ckpt_jp_peek(p);

		if (c != '-' && (c < '0' || c > '9')) {
			*state = 1;
			if (ckpt_jp_skip(p) < 0)
				return -1;
		} else if (ckpt_jp_number(p, &integer, &v) < 0)
			return -1;
		else if (!integer || v < 0)
			*state = 1;
		else if (*count < room)
			into[*count] = (uint64_t)v;
		(*count)++;
	}
	return more;
}

static int read_field(ckpt_jp *p, struct fields *fl)
{
	static const char *const names[] = {"dtype", "shape", "data_offsets"};
	uint64_t at[2];
	int n, rc;

	for (unsigned k = 0; k < 3; k++) {
		if (!is_key(p, names[k]))
			continue;
		if (fl->seen & 1u << k)
			fl->twice = names[k];
		fl->seen |= 1u << k;
		if (k == 0)
			return read_dtype(p, fl);
		if (k == 1)
			return read_sizes(p, &fl->shape, &fl->rank, fl->dims, CKPT_MAX_RANK);
		rc = read_sizes(p, &fl->offsets, &n, at, 2);
		if (fl->offsets || n != 2 || at[1] < at[0])
			fl->offsets = -1;
		else
			fl->at[0] = (int64_t)at[0], fl->at[1] = (int64_t)at[1];
		return rc;
	}
	return ckpt_jp_skip(p);
}

static int check_shape(struct header *h, const struct fields *fl, ckpt_var *v)
{
	const char *name = v->name;

	if (!(fl->seen & 2) || fl->shape < 0)
		return broke(h, "tensor '%s': no \"shape\" list", name);
	if (fl->rank > CKPT_MAX_RANK)
		return broke(h, "tensor '%s': more than %d dimensions", name, CKPT_MAX_RANK);
	if (fl->shape > 0)
		return broke(h, "tensor '%s': shape holds something other than sizes", name);
	v->nelems = 1;
	for (int i = 0; i < fl->rank; i++)
		if (__builtin_mul_overflow(v->nelems, fl->dims[i], &v->nelems))
			return broke(h, "tensor '%s': its shape overflows", name);
	if (__builtin_mul_overflow(v->nelems, (uint64_t)v->elsize, &v->nbytes))
		return broke(h, "tensor '%s': its shape overflows", name);
	return ckpt_file_set_dims(h->f, v, fl->rank, fl->dims) < 0 ? nomem(h) : 0;
}

/* The rules a tensor's fields keep, checked in the order of the
 * fields; 1 (message set) when one is broken. */
static int check_fields(struct header *h, const struct fields *fl, struct tensor *t)
{
	ckpt_var *v = &t->v;
	char shape[512];
	int rc;

	if (fl->twice)
		return broke(h, "tensor '%s': \"%s\" given twice", v->name, fl->twice);
	if (!(fl->seen & 1) || fl->dtype == -1)
		return broke(h, "tensor '%s': no \"dtype\" string", v->name);
	if (fl->dtype < 0)
		return broke(h, "tensor '%s': unknown dtype \"%.40s\"", v->name, fl->dtype_text);
	v->dtype = st_types[fl->dtype].dtype;
	v->elsize = ckpt_dtype_size(v->dtype);
	snprintf(v->type, sizeof v->type, "%s", ckpt_dtype_name(v->dtype));
	if ((rc = check_shape(h, fl, v)) != 0)
		return rc;
	if (!(fl->seen & 4) || fl->offsets < 0)
		return broke(h, "tensor '%s': data_offsets is not [begin, end] with "
		             "0 <= begin <= end", v->name);
	t->begin = (uint64_t)fl->at[0];
	t->end = (uint64_t)fl->at[1];
	if (t->end - t->begin != v->nbytes)
		return broke(h, "tensor '%s': shape %s of %s needs %" PRIu64 " bytes; "
		             "data_offsets hold %" PRIu64, v->name,
		             ckpt_shape_str(v, shape, sizeof shape), v->type, v->nbytes,
		             t->end - t->begin);
	return 0;
}

/* A tensor's value: an object with dtype, shape and data_offsets (other
 * keys are skipped).  Read whole whatever it holds: 0, 1 when it breaks a
 * rule, -1 when it is not JSON. */
static int read_tensor(struct header *h, struct tensor *t)
{
	ckpt_jp *p = &h->jp;
	struct fields fl = {.dtype = -1};
	int first = 1, more;

	if (ckpt_jp_peek(p) != '{')
		return skip_broken(h) < 0 ? -1 : broke(h, "tensor '%s': not an object", t->v.name);
	while ((more = ckpt_jp_next(p, '{', &first)) > 0)
		if (ckpt_jp_key(p) < 0 || read_field(p, &fl) < 0)
			return -1;
	return more < 0 ? -1 : check_fields(h, &fl, t);
}

static int add_tensor(struct header *h)
{
	ckpt_jp *p = &h->jp;
	struct tensor *t;
	int rc;

	if (memchr(p->str, '\0', p->len))
		return skip_broken(h) < 0 ? -1 : broke(h, "a tensor name holds a NUL byte "
		                                       "(\"%s\\u0000...\")", p->str);
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 1024;
		struct tensor *nt = realloc(h->t, cap * sizeof *nt);

		if (!nt)
			return nomem(h);
		h->t = nt;
		h->cap = cap;
	}
	t = &h->t[h->n];
	*t = (struct tensor){.order = h->n};
	if (!(t->v.name = ckpt_file_strdup(h->f, p->str)))
		return nomem(h);
	if ((rc = read_tensor(h, t)) == 0)
		h->n++;
	return rc;
}

static int add_meta(struct header *h, char *key, size_t *cap)
{
	struct ckpt_st *st = h->f->backend->state;
	ckpt_jp *p = &h->jp;
	char *value;

	if (st->nmeta == *cap) {
		size_t ncap = *cap ? 2 * *cap : 16;
		char **meta = realloc(st->meta, (2 * ncap + 1) * sizeof *meta);
		size_t *len = meta ? realloc(st->metalen, ncap * sizeof *len) : NULL;

		if (meta)
			st->meta = meta;
		if (!len)
			return free(key), nomem(h);
		st->metalen = len;
		*cap = ncap;
	}
	if (!(value = malloc(p->len + 1)))
		return free(key), nomem(h);
	memcpy(value, p->str, p->len + 1);
	st->meta[2 * st->nmeta] = key;
	st->meta[2 * st->nmeta + 1] = value;
	st->meta[2 * st->nmeta + 2] = NULL;
	st->metalen[st->nmeta++] = p->len;
	return 0;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A key given twice in __metadata__: which value is meant? */
static int meta_twice(struct header *h)
{
	const struct ckpt_st *st = h->f->backend->state;
	char **keys = malloc((st->nmeta + 1) * sizeof *keys);
	int rc = 0;

	if (!keys)
		return nomem(h);
	for (size_t i = 0; i < st->nmeta; i++)
		keys[i] = st->meta[2 * i];
	qsort(keys, st->nmeta, sizeof *keys, by_key);
	for (size_t i = 1; i < st->nmeta && !rc; i++)
		if (strcmp(keys[i - 1], keys[i]) == 0)
			rc = broke(h, "__metadata__: \"%s\" given twice", keys[i]);
	free(keys);
	return rc;
}

/* __metadata__: an object of strings (which may hold NUL bytes; the
 * keys may not). */
static int read_metadata(struct header *h)
{
	ckpt_jp *p = &h->jp;
	int first = 1, more;
	size_t cap = 0;
	char *key;

	if (h->saw_meta++)
		return skip_broken(h) < 0 ? -1 : broke(h, "__metadata__ given twice");
	if (ckpt_jp_peek(p) != '{')
		return skip_broken(h) < 0 ? -1 : broke(h, "__metadata__ is not an object");
	while ((more = ckpt_jp_next(p, '{', &first)) > 0) {
		if (ckpt_jp_key(p) < 0)
			return -1;
		if (h->bad)
			;
		else if (memchr(p->str, '\0', p->len))
			broke(h, "__metadata__: a key holds a NUL byte (\"%s\\u0000...\")", p->str);
		else if (!(key = strdup(p->str)))
			return nomem(h);
		else if (ckpt_jp_peek(p) != '"') {
			broke(h, "__metadata__: \"%s\" is not a string", key);
			free(key);
		} else if (ckpt_jp_string(p) < 0) {
			free(key);
			return -1;
		} else if (add_meta(h, key, &cap) < 0)
			return -1;
		else
			continue;
		if (ckpt_jp_skip(p) < 0)
			return -1;
	}
	return more < 0 ? -1 : h->bad ? 1 : meta_twice(h);
}

/* The header: one object of tensors and maybe __metadata__. */
static int read_header(struct header *h)
{
	ckpt_jp *p = &h->jp;
	int first = 1, more;

	while ((more = ckpt_jp_next(p, '{', &first)) > 0) {
		if (ckpt_jp_key(p) < 0)
			return -1;
		if ((h->bad ? ckpt_jp_skip(p)
		     : is_key(p, "__metadata__") ? read_metadata(h) : add_tensor(h)) < 0)
			return -1;
	}
	return more < 0 ? -1 : ckpt_jp_end(p);
}

static int by_offset(const void *a, const void *b)
{
	const struct tensor *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The data are the tensors' bytes end to end: no gap, no overlap, nothing
 * after the last. */
static int check_layout(const ckpt_file *f, const struct tensor *t, size_t n, uint64_t len)
{
	uint64_t at = 0;

	for (size_t i = 0; i < n; i++) {
		if (t[i].end > len)
			return ckpt_seterr("%s: tensor '%s': data_offsets [%" PRIu64 ", %" PRIu64 "] "
			                   "run past the end of the file (the data hold %" PRIu64
			                   " bytes)", f->name, t[i].v.name, t[i].begin, t[i].end, len);
		if (t[i].begin > at)
			return i ? ckpt_seterr("%s: %" PRIu64 " bytes between tensors '%s' and '%s' "
			                       "belong to neither", f->name, t[i].begin - at,
			                       t[i - 1].v.name, t[i].v.name)
			         : ckpt_seterr("%s: the first %" PRIu64 " bytes of the data belong "
			                       "to no tensor", f->name, t[i].begin);
		if (t[i].begin < at)
			return ckpt_seterr("%s: tensors '%s' and '%s' overlap", f->name,
			                   t[i - 1].v.name, t[i].v.name);
		at = t[i].end;
	}
	if (at < len)
		return ckpt_seterr("%s: the last %" PRIu64 " bytes of the file belong to no tensor",
		                   f->name, len - at);
	return 0;
}

/* The header's length, checked against the format and the file. */
static int header_length(ckpt_file *f, uint64_t *n)
{
	unsigned char lenb[8];

	if (read_at(f, lenb, 8, 0) < 0)
		return -1;
	*n = le64(lenb);
	if (*n > CKPT_ST_MAX_HEADER)
		return ckpt_seterr("%s: a safetensors header of %" PRIu64 " bytes: more than the "
		                   "format allows (%u)", f->name, *n, CKPT_ST_MAX_HEADER);
	if (*n > f->size - 8)
		return ckpt_seterr("%s: the safetensors header (%" PRIu64 " bytes) runs past the "
		                   "end of the file (%" PRIu64 " bytes)", f->name, *n, f->size);
	return 0;
}

static int parse_header(struct header *h)
{
	ckpt_file *f = h->f;
	ckpt_jp *p = &h->jp;
	uint64_t n = h->end - h->off;

	ckpt_jp_init(p, header_bytes, h);
	if (read_header(h) == 0)
		return h->bad ? -1 : 0;
	if (p->status == CKPT_JP_SYNTAX)
		ckpt_seterr("%s: the safetensors header is not valid JSON: %s (byte %" PRIu64 ")",
		            f->name, p->err, p->err_pos);
	else if (p->status == CKPT_JP_NOMEM)
		ckpt_seterr("%s: out of memory reading the safetensors header (%" PRIu64
		            " bytes of JSON)", f->name, n);
	return -1;
}

/* The variables, in the order of their data. */
static int take_tensors(ckpt_file *f, struct tensor *t, size_t n)
{
	struct ckpt_st *st = f->backend->state;
	size_t i;

	for (i = 1; i < n && by_offset(&t[i - 1], &t[i]) < 0; i++)
		;
	if (i < n)
		qsort(t, n, sizeof *t, by_offset);
	if (check_layout(f, t, n, f->size - st->data) < 0)
		return -1;
	if (!(f->vars = calloc(n + 1, sizeof *f->vars)) ||
	    !(st->begin = calloc(n + 1, sizeof *st->begin)))
		return ckpt_seterr("%s: out of memory", f->name);
	for (i = 0; i < n; i++) {
		f->vars[i] = t[i].v;
		st->begin[i] = t[i].begin;
	}
	f->nvars = n;
	return 0;
}

int ckpt_st_open(ckpt_file *f)
{
	struct ckpt_st *st;
	struct header *h;
	uint64_t n;
	int rc;

	if (!(f->backend = calloc(1, sizeof *f->backend)) || !(st = calloc(1, sizeof *st))) {
		free(f->backend);
		f->backend = NULL;
		return ckpt_seterr("%s: out of memory", f->name);
	}
	f->backend->format = &ckpt_format_safetensors;
	f->backend->state = st;
	if (header_length(f, &n) < 0)
		return -1;
	st->data = 8 + n;
	if (!(h = calloc(1, sizeof *h)))
		return ckpt_seterr("%s: out of memory", f->name);
	h->f = f;
	h->off = 8;
	h->end = 8 + n;
	rc = parse_header(h) < 0 ? -1 : take_tensors(f, h->t, h->n);
	ckpt_jp_free(&h->jp);
	free(h->t);
	free(h);
	return rc;
}

void ckpt_st_close(ckpt_file *f)
{
	struct ckpt_st *st = st_of(f);

	if (!st)
		return;
	for (size_t i = 0; i < 2 * st->nmeta; i++)
		free(st->meta[i]);
	free(st->meta);
	free(st->metalen);
	free(st->begin);
	free(st);
	f->backend->state = NULL;
}

const char *const *ckpt_st_metadata(const ckpt_file *f, size_t *n)
{
	const struct ckpt_st *st = st_of(f);

	*n = st ? st->nmeta : 0;
	return st && st->nmeta ? (const char *const *)st->meta : NULL;
}

size_t ckpt_st_metadata_len(const ckpt_file *f, size_t i)
{
	return st_of(f)->metalen[i];
}

uint64_t ckpt_st_offset(const ckpt_file *f, const ckpt_var *v)
{
	const struct ckpt_st *st = f->backend->state;

	return st->data + st->begin[v - f->vars];
}

/* ---- slabs ---------------------------------------------------------------- */

/* Values are little-endian in the file: read in place on a little-endian
 * machine where aligned for their type (mappings need not be). */
int ckpt_st_slab_open(ckpt_slab *s, size_t max_bytes)
{
	const ckpt_var *v = s->var;
	uint64_t off = ckpt_st_offset(s->file, v);

	s->elsize = v->elsize;
	memset(&s->at, 0, sizeof s->at);
	s->at.var = v;
	ckpt_slab_plan(v->rank, v->dims, NULL, max_bytes / (s->elsize ? s->elsize : 1),
	               &s->at.split, &s->at.step);
	if (!ckpt_host_big_endian() && off % s->elsize == 0) {
		s->in_place = 1;
		s->addr = off;
	}
	return 0;
}

int ckpt_st_slab_read(ckpt_slab *s, void *buf, const ckpt_region *r)
{
	const ckpt_var *v = s->var;
	uint64_t index = 0;

	for (int i = 0; i < r->rank; i++)
		index = index * v->dims[i] + r->start[i];
	if (read_at(s->file, buf, r->n * s->elsize,
	            ckpt_st_offset(s->file, v) + index * s->elsize) < 0)
		return -1;
	if (ckpt_host_big_endian())
		ckpt_swap_bytes(buf, r->n, s->elsize);
	return 0;
}
