/* st.c - the safetensors backend's reading side: the header checked
 * against every rule of the format, the tensors listed in the order of
 * their data, slabs read in place where aligned. */
#include "st.h"
#include "err.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

struct ckpt_st {
	uint64_t data;      /* where the data start: 8 + the header's length */
	uint64_t *begin;    /* per variable: its first byte within the data */
	char **meta;        /* __metadata__: key, value, key, value, ... */
	size_t *metalen;    /* each value's length (JSON strings may hold NUL) */
	size_t nmeta;
};

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

struct tensor {
	const char *name;
	size_t order;       /* place in the header, for ties */
	ckpt_var v;
	uint64_t begin, end;
};

static int read_at(const ckpt_file *f, void *buf, size_t n, uint64_t off)
{
	if (f->image) {
		if (off > f->image_size || n > f->image_size - off)
			return ckpt_seterr("%s: truncated", f->name);
		memcpy(buf, (const char *)f->image + off, n);
		return 0;
	}
	for (size_t got = 0; got < n;) {
		ssize_t r = pread(f->fd, (char *)buf + got, n - got, (off_t)(off + got));

		if (r <= 0)
			return r == 0 ? ckpt_seterr("%s: truncated", f->name) : ckpt_seterr_errno(f->name);
		got += (size_t)r;
	}
	return 0;
}

static int parse_dtype(const ckpt_file *f, const char *name, json_t *t, ckpt_var *v)
{
	const char *s = json_string_value(json_object_get(t, "dtype"));

	if (!s)
		return ckpt_seterr("%s: tensor '%s': no \"dtype\" string", f->name, name);
	for (size_t i = 0; i < sizeof st_types / sizeof *st_types; i++)
		if (strcmp(s, st_types[i].name) == 0) {
			v->dtype = st_types[i].dtype;
			v->elsize = ckpt_dtype_size(v->dtype);
			snprintf(v->type, sizeof v->type, "%s", ckpt_dtype_name(v->dtype));
			return 0;
		}
	return ckpt_seterr("%s: tensor '%s': unknown dtype \"%.40s\"", f->name, name, s);
}

static int parse_shape(const ckpt_file *f, const char *name, json_t *t, ckpt_var *v)
{
	json_t *shape = json_object_get(t, "shape"), *d;
	size_t i;

	if (!json_is_array(shape))
		return ckpt_seterr("%s: tensor '%s': no \"shape\" list", f->name, name);
	if (json_array_size(shape) > CKPT_MAX_RANK)
		return ckpt_seterr("%s: tensor '%s': more than %d dimensions", f->name, name,
		                   CKPT_MAX_RANK);
	v->rank = (int)json_array_size(shape);
	v->nelems = 1;
	json_array_foreach(shape, i, d) {
		if (!json_is_integer(d) || json_integer_value(d) < 0)
			return ckpt_seterr("%s: tensor '%s': shape holds something other than "
			                   "sizes", f->name, name);
		v->dims[i] = (uint64_t)json_integer_value(d);
		if (__builtin_mul_overflow(v->nelems, v->dims[i], &v->nelems))
			return ckpt_seterr("%s: tensor '%s': its shape overflows", f->name, name);
	}
	if (__builtin_mul_overflow(v->nelems, (uint64_t)v->elsize, &v->nbytes))
		return ckpt_seterr("%s: tensor '%s': its shape overflows", f->name, name);
	return 0;
}

static int parse_offsets(const ckpt_file *f, struct tensor *t, json_t *obj)
{
	json_t *o = json_object_get(obj, "data_offsets");
	json_t *b = json_array_get(o, 0), *e = json_array_get(o, 1);
	char shape[512];

	if (!json_is_array(o) || json_array_size(o) != 2 || !json_is_integer(b) ||
	    !json_is_integer(e) || json_integer_value(b) < 0 ||
	    json_integer_value(e) < json_integer_value(b))
		return ckpt_seterr("%s: tensor '%s': data_offsets is not [begin, end] with "
		                   "0 <= begin <= end", f->name, t->name);
	t->begin = (uint64_t)json_integer_value(b);
	t->end = (uint64_t)json_integer_value(e);
	if (t->end - t->begin != t->v.nbytes)
		return ckpt_seterr("%s: tensor '%s': shape %s of %s needs %" PRIu64 " bytes; "
		                   "data_offsets hold %" PRIu64, f->name, t->name,
		                   ckpt_shape_str(&t->v, shape, sizeof shape), t->v.type,
		                   t->v.nbytes, t->end - t->begin);
	return 0;
}

static int parse_tensor(const ckpt_file *f, const char *name, json_t *obj, struct tensor *t)
{
	t->name = name;
	if (!json_is_object(obj))
		return ckpt_seterr("%s: tensor '%s': not an object", f->name, name);
	if (parse_dtype(f, name, obj, &t->v) < 0 || parse_shape(f, name, obj, &t->v) < 0)
		return -1;
	return parse_offsets(f, t, obj);
}

static int parse_metadata(const ckpt_file *f, json_t *m, struct ckpt_st *st)
{
	const char *key;
	json_t *val;

	if (!json_is_object(m))
		return ckpt_seterr("%s: __metadata__ is not an object", f->name);
	if (!(st->meta = calloc(2 * json_object_size(m) + 1, sizeof *st->meta)) ||
	    !(st->metalen = calloc(json_object_size(m) + 1, sizeof *st->metalen)))
		return ckpt_seterr("%s: out of memory", f->name);
	json_object_foreach(m, key, val) {
		size_t len = json_string_length(val);
		char *copy;

		if (!json_is_string(val))
			return ckpt_seterr("%s: __metadata__: \"%s\" is not a string", f->name, key);
		if (!(st->meta[2 * st->nmeta] = strdup(key)) || !(copy = malloc(len + 1)))
			return ckpt_seterr("%s: out of memory", f->name);
		memcpy(copy, json_string_value(val), len + 1);
		st->meta[2 * st->nmeta + 1] = copy;
		st->metalen[st->nmeta++] = len;
	}
	return 0;
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
			                   " bytes)", f->name, t[i].name, t[i].begin, t[i].end, len);
		if (t[i].begin > at)
			return i ? ckpt_seterr("%s: %" PRIu64 " bytes between tensors '%s' and '%s' "
			                       "belong to neither", f->name, t[i].begin - at,
			                       t[i - 1].name, t[i].name)
			         : ckpt_seterr("%s: the first %" PRIu64 " bytes of the data belong "
			                       "to no tensor", f->name, t[i].begin);
		if (t[i].begin < at)
			return ckpt_seterr("%s: tensors '%s' and '%s' overlap", f->name, t[i - 1].name,
			                   t[i].name);
		at = t[i].end;
	}
	if (at < len)
		return ckpt_seterr("%s: the last %" PRIu64 " bytes of the file belong to no tensor",
		                   f->name, len - at);
	return 0;
}

static json_t *load_header(ckpt_file *f, uint64_t *data)
{
	unsigned char lenb[8];
	uint64_t n;
	char *text;
	json_error_t err;
	json_t *root;

	if (read_at(f, lenb, 8, 0) < 0)
		return NULL;
	n = le64(lenb);
	if (n > CKPT_ST_MAX_HEADER) {
		ckpt_seterr("%s: a safetensors header of %" PRIu64 " bytes: more than the format "
		            "allows (%u)", f->name, n, CKPT_ST_MAX_HEADER);
		return NULL;
	}
	if (n > f->size - 8) {
		ckpt_seterr("%s: the safetensors header (%" PRIu64 " bytes) runs past the end of "
		            "the file (%" PRIu64 " bytes)", f->name, n, f->size);
		return NULL;
	}
	if (!(text = malloc(n ? n : 1))) {
		ckpt_seterr("%s: out of memory", f->name);
		return NULL;
	}
	if (read_at(f, text, n, 8) < 0) {
		free(text);
		return NULL;
	}
	/* (strings may hold NUL: \u0000 is valid JSON, and metadata is any text) */
	root = json_loadb(text, n, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &err);
	free(text);
	/* (jansson leaves the error empty when an allocation failed) */
	if (!root && (json_error_code(&err) == json_error_out_of_memory || !err.text[0]))
		ckpt_seterr("%s: out of memory reading the safetensors header (%" PRIu64
		            " bytes of JSON)", f->name, n);
	else if (!root)
		ckpt_seterr("%s: the safetensors header is not valid JSON: %s (byte %d)", f->name,
		            err.text, err.position);
	else if (!json_is_object(root)) {
		ckpt_seterr("%s: the safetensors header is not a JSON object", f->name);
		json_decref(root);
		root = NULL;
	}
	*data = 8 + n;
	return root;
}

static int list_tensors(ckpt_file *f, json_t *root, struct tensor *t, size_t *n)
{
	struct ckpt_st *st = f->backend->st;
	const char *key;
	json_t *val;

	*n = 0;
	json_object_foreach(root, key, val) {
		if (strcmp(key, "__metadata__") == 0) {
			if (parse_metadata(f, val, st) < 0)
				return -1;
			continue;
		}
		t[*n] = (struct tensor){0};
		t[*n].order = *n;
		if (parse_tensor(f, key, val, &t[*n]) < 0)
			return -1;
		(*n)++;
	}
	qsort(t, *n, sizeof *t, by_offset);
	return check_layout(f, t, *n, f->size - st->data);
}

static int take_tensors(ckpt_file *f, const struct tensor *t, size_t n)
{
	struct ckpt_st *st = f->backend->st;

	if (!(f->vars = calloc(n + 1, sizeof *f->vars)) ||
	    !(st->begin = calloc(n + 1, sizeof *st->begin)))
		return ckpt_seterr("%s: out of memory", f->name);
	for (size_t i = 0; i < n; i++) {
		f->vars[i] = t[i].v;
		if (!(f->vars[i].name = strdup(t[i].name)))
			return ckpt_seterr("%s: out of memory", f->name);
		st->begin[i] = t[i].begin;
		f->nvars++;
	}
	return 0;
}

int ckpt_st_open(ckpt_file *f)
{
	struct ckpt_st *st;
	struct tensor *t = NULL;
	json_t *root;
	size_t n;
	int rc;

	if (!(f->backend = calloc(1, sizeof *f->backend)) || !(st = calloc(1, sizeof *st))) {
		free(f->backend);
		f->backend = NULL;
		return ckpt_seterr("%s: out of memory", f->name);
	}
	f->backend->format = CKPT_FORMAT_SAFETENSORS;
	f->backend->st = st;
	if (!(root = load_header(f, &st->data)))
		return -1;
	if (!(t = calloc(json_object_size(root) + 1, sizeof *t)))
		rc = ckpt_seterr("%s: out of memory", f->name);
	else
		rc = list_tensors(f, root, t, &n) < 0 ? -1 : take_tensors(f, t, n);
	free(t);
	json_decref(root);
	return rc;
}

void ckpt_st_close(ckpt_file *f)
{
	struct ckpt_st *st = f->backend ? f->backend->st : NULL;

	if (!st)
		return;
	for (size_t i = 0; i < 2 * st->nmeta; i++)
		free(st->meta[i]);
	free(st->meta);
	free(st->metalen);
	free(st->begin);
	free(st);
	f->backend->st = NULL;
}

const char *const *ckpt_st_metadata(const ckpt_file *f, size_t *n)
{
	const struct ckpt_st *st = f->backend ? f->backend->st : NULL;

	*n = st ? st->nmeta : 0;
	return st && st->nmeta ? (const char *const *)st->meta : NULL;
}

size_t ckpt_st_metadata_len(const ckpt_file *f, size_t i)
{
	return f->backend->st->metalen[i];
}

uint64_t ckpt_st_offset(const ckpt_file *f, const ckpt_var *v)
{
	const struct ckpt_st *st = f->backend->st;

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
