/* decl.c - the declarations of a flat output file. */
#include "decl.h"
#include "convert.h"
#include "err.h"
#include "slab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ckpt_var ckpt_decl_as(const ckpt_var *like, ckpt_dtype t)
{
	ckpt_var v = *like;

	if (t != like->dtype) {
		v.dtype = t;
		v.elsize = ckpt_dtype_size(t);
		v.nbytes = like->nelems * v.elsize;
		snprintf(v.type, sizeof v.type, "%s", ckpt_dtype_name(t));
	}
	return v;
}

ckpt_var ckpt_decl_new_var(ckpt_dtype t, int rank, const uint64_t *dims)
{
	ckpt_var v = {.dims = dims, .dtype = t, .rank = rank, .nelems = 1};

	for (int i = 0; i < rank; i++)
		v.nelems *= dims[i];
	v.elsize = ckpt_dtype_size(t);
	v.nbytes = v.nelems * v.elsize;
	snprintf(v.type, sizeof v.type, "%s", ckpt_dtype_name(t));
	return v;
}

static size_t *slot_of(const struct ckpt_decls *l, const char *name)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */

	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = (h ^ *c) * 0x100000001b3u;
	for (size_t i = (size_t)h & (l->nslots - 1);; i = (i + 1) & (l->nslots - 1))
		if (!l->slot[i] || strcmp(l->d[l->slot[i] - 1].name, name) == 0)
			return &l->slot[i];
}

struct ckpt_decl *ckpt_decl_find(const struct ckpt_decls *l, const char *name)
{
	size_t *at = l->nslots ? slot_of(l, name) : NULL;

	return at && *at ? &l->d[*at - 1] : NULL;
}

/* Declaration i (its name set) found by name from now on. */
static int remember(struct ckpt_decls *l, size_t i)
{
	if (2 * (i + 1) > l->nslots) {
		size_t *old = l->slot, n = l->nslots;

		l->nslots = n ? 2 * n : 64;
		if (!(l->slot = calloc(l->nslots, sizeof *l->slot))) {
			l->slot = old, l->nslots = n;
			return -1;
		}
		for (size_t k = 0; k < n; k++)
			if (old[k])
				*slot_of(l, l->d[old[k] - 1].name) = old[k];
		free(old);
	}
	*slot_of(l, l->d[i].name) = i + 1;
	return 0;
}

static int own_shape(struct ckpt_decl *d)
{
	static const uint64_t none = 0;

	if (d->v.rank < 0) { /* a null dataspace: no values, an empty list */
		d->v.rank = 1, d->v.dims = &none, d->v.nelems = 0, d->v.nbytes = 0;
		return 0;
	}
	if (d->v.rank > 0 && !(d->dims = malloc((size_t)d->v.rank * sizeof *d->dims)))
		return -1;
	if (d->v.rank > 0)
		memcpy(d->dims, d->v.dims, (size_t)d->v.rank * sizeof *d->dims);
	d->v.dims = d->dims;
	return 0;
}

struct ckpt_decl *ckpt_decl_add(struct ckpt_decls *l, const char *what, const char *name,
                                const ckpt_var *v, const ckpt_file *src, const ckpt_var *sv)
{
	struct ckpt_decl *d;

	if (ckpt_decl_find(l, name)) {
		ckpt_seterr("%s: variable '%s' made twice", what, name);
		return NULL;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;

		if (!(d = realloc(l->d, cap * sizeof *d)))
			goto oom;
		l->d = d;
		l->cap = cap;
	}
	d = &l->d[l->n];
	*d = (struct ckpt_decl){.v = *v, .src = src, .sv = sv};
	if (!(d->name = strdup(name)) || own_shape(d) < 0 || remember(l, l->n) < 0) {
		free(d->name);
		free(d->dims);
		goto oom;
	}
	d->v.name = d->name;
	l->n++;
	return d;
oom:
	ckpt_seterr("out of memory");
	return NULL;
}

void ckpt_decl_free(struct ckpt_decls *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->d[i].name);
		free(l->d[i].dims);
	}
	free(l->d);
	free(l->slot);
	*l = (struct ckpt_decls){0};
}

int ckpt_decl_copy(const struct ckpt_decl *d, ckpt_decl_put_fn put, void *user)
{
	ckpt_slab s;
	int rc;

	if (ckpt_slab_open(&s, d->src, d->sv, CKPT_SLAB_BYTES) < 0)
		return -1;
	while ((rc = ckpt_slab_next(&s)) > 0)
		if ((rc = put(user, s.buf, s.count * s.elsize, s.start * s.elsize)) < 0)
			break;
	ckpt_slab_close(&s);
	return rc;
}

const void *ckpt_decl_stored(const ckpt_var *v, ckpt_dtype mem, const void *buf, size_t n,
                             void **conv, size_t *cap)
{
	size_t bytes = n * v->elsize;

	if (mem == v->dtype && !ckpt_host_big_endian())
		return buf;
	if (bytes > *cap) {
		free(*conv);
		if (!(*conv = malloc(bytes))) {
			*cap = 0;
			ckpt_seterr("out of memory");
			return NULL;
		}
		*cap = bytes;
	}
	if (mem != v->dtype)
		ckpt_convert(mem, buf, v->dtype, *conv, n);
	else
		memcpy(*conv, buf, bytes);
	if (ckpt_host_big_endian())
		ckpt_swap_bytes(*conv, n, v->elsize);
	return *conv;
}
