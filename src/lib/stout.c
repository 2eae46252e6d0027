/* stout.c - the safetensors backend's writing side.  Variables are declared
 * first (created, or copied whole from an input); the layout is fixed when
 * the first values are written or at the commit: the header, then each
 * variable's bytes at its offset, in declaration order, written in place
 * in the temporary file. */
#include "st.h"
#include "decl.h"
#include "err.h"
#include "temp.h"
#include "jsonio.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

struct ckpt_stout {
	struct ckpt_temp t;
	struct ckpt_decls l;
	json_t *meta;             /* __metadata__, or NULL */
	uint64_t data;            /* where the data start, once fixed */
	int fixed;
};

struct ckpt_stvar {
	struct ckpt_stout *o;
	const struct ckpt_decl *d;
	ckpt_dtype mem;           /* the type of the values given */
	void *conv;               /* room for them converted */
	size_t convcap;
};

static const char *const st_names[CKPT_NDTYPES] = {
	[CKPT_BOOL] = "BOOL", [CKPT_I8] = "I8", [CKPT_I16] = "I16", [CKPT_I32] = "I32",
	[CKPT_I64] = "I64", [CKPT_U8] = "U8", [CKPT_U16] = "U16", [CKPT_U32] = "U32",
	[CKPT_U64] = "U64", [CKPT_F16] = "F16", [CKPT_BF16] = "BF16", [CKPT_F32] = "F32",
	[CKPT_F64] = "F64", [CKPT_F8E4M3] = "F8_E4M3", [CKPT_F8E5M2] = "F8_E5M2",
};

/* The safetensors name of v's type; NULL where the format has none. */
static const char *st_type(const ckpt_var *v)
{
	return v->dtype != CKPT_OTHER ? st_names[v->dtype] : NULL;
}

int ckpt_st_storable(const ckpt_file *src, const ckpt_var *v)
{
	(void)src;
	return st_type(v) != NULL;
}

struct ckpt_stout *ckpt_stout_open(const char *target, int force)
{
	struct ckpt_stout *o = calloc(1, sizeof *o);

	if (!o) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	if (ckpt_temp_open(&o->t, target, force, 1, "a safetensors file") < 0) {
		ckpt_stout_abort(o);
		return NULL;
	}
	return o;
}

const char *ckpt_stout_name(const struct ckpt_stout *o)
{
	return ckpt_temp_name(&o->t);
}

void ckpt_stout_abort(struct ckpt_stout *o)
{
	if (!o)
		return;
	ckpt_temp_release(&o->t);
	ckpt_decl_free(&o->l);
	json_decref(o->meta);
	free(o);
}

int ckpt_stout_set_meta(struct ckpt_stout *o, const char *key, const char *value)
{
	return ckpt_stout_set_meta_n(o, key, value, strlen(value));
}

int ckpt_stout_set_meta_n(struct ckpt_stout *o, const char *key, const char *value,
                          size_t len)
{
	if (o->fixed)
		return ckpt_seterr("%s: metadata '%s' set after values were written",
		                   ckpt_stout_name(o), key);
	if (!o->meta && !(o->meta = json_object()))
		return ckpt_seterr("out of memory");
	if (json_object_set_new(o->meta, key, json_stringn(value, len)) < 0)
		return ckpt_seterr("%s: metadata '%s' is not UTF-8 text", ckpt_stout_name(o), key);
	return 0;
}

void ckpt_stout_unset_meta(struct ckpt_stout *o, const char *key)
{
	if (o->meta)
		json_object_del(o->meta, key);
}

/* ---- the declarations ---------------------------------------------------- */

int ckpt_stout_declare(struct ckpt_stout *o, const char *name, const ckpt_var *like,
                       ckpt_dtype t, const ckpt_file *src, const ckpt_var *sv)
{
	ckpt_var v = ckpt_decl_as(like, t);

	if (o->fixed)
		return ckpt_seterr("%s: variable '%s' made after values were written",
		                   ckpt_stout_name(o), name);
	if (strcmp(name, "__metadata__") == 0)
		return ckpt_seterr("%s: variable '__metadata__': safetensors keeps its metadata under "
		                   "that name (rename the variable: ckpt-merge --add --rename "
		                   "__metadata__=NEW onto an empty base)",
		                   ckpt_stout_name(o));
	if (!st_type(&v))
		return ckpt_seterr("%s: variable '%s': safetensors cannot hold %s values",
		                   ckpt_stout_name(o), name, v.type);
	if (!ckpt_json_utf8(name, strlen(name)))
		return ckpt_seterr("%s: variable '%s': safetensors names are UTF-8 text",
		                   ckpt_stout_name(o), name);
	return ckpt_decl_add(&o->l, ckpt_stout_name(o), name, &v, src, sv) ? 0 : -1;
}

int ckpt_stout_declare_new(struct ckpt_stout *o, const char *name, ckpt_dtype t, int rank,
                           const uint64_t *dims)
{
	ckpt_var v = ckpt_decl_new_var(t, rank, dims);

	return ckpt_stout_declare(o, name, &v, t, NULL, NULL);
}

/* ---- the layout ------------------------------------------------------------ */

static int pwrite_all(struct ckpt_stout *o, const void *buf, size_t n, uint64_t off)
{
	return ckpt_pwrite_all(o->t.fd, buf, n, off, ckpt_stout_name(o));
}

/* The header is written as it is made, twice: once to measure it (the
 * data's offset depends on its length), once to write it.  A million
 * tensors cost no document tree. */
struct header {
	struct ckpt_stout *o;
	int writing;
	uint64_t len;       /* bytes so far */
	size_t n;           /* of them in buf */
	char buf[65536];
};

static int flush(struct header *h)
{
	int rc = h->writing && h->n ? pwrite_all(h->o, h->buf, h->n, 8 + h->len - h->n) : 0;

	h->n = 0;
	return rc;
}

static int emit(void *to, const char *s, size_t n)
{
	struct header *h = to;

	while (n > 0) {
		size_t k = sizeof h->buf - h->n < n ? sizeof h->buf - h->n : n;

		memcpy(h->buf + h->n, s, k);
		h->n += k, h->len += k, s += k, n -= k;
		if (h->n == sizeof h->buf && flush(h) < 0)
			return -1;
	}
	return 0;
}

static int emitf(struct header *h, const char *fmt, ...)
{
	char text[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return emit(h, text, (size_t)n);
}

/* What json_dumps(JSON_COMPACT | JSON_PRESERVE_ORDER) wrote when the
 * header was a document: the same bytes. */
static int emit_tensor(struct header *h, struct ckpt_decl *d, uint64_t *at)
{
	int rc = ckpt_json_quote(d->name, strlen(d->name), emit, h);

	rc = rc ? rc : emitf(h, ":{\"dtype\":\"%s\",\"shape\":[", st_type(&d->v));
	for (int k = 0; k < d->v.rank && rc == 0; k++)
		rc = emitf(h, k ? ",%" PRIu64 : "%" PRIu64, d->v.dims[k]);
	d->begin = *at;
	*at += d->v.nbytes;
	return rc ? rc : emitf(h, "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}", d->begin, *at);
}

static int emit_header(struct header *h)
{
	static const char key[] = "\"__metadata__\":";
	char *meta = NULL;
	uint64_t at = 0;
	int rc, comma = h->o->meta != NULL;

	if (h->o->meta && !(meta = json_dumps(h->o->meta, JSON_COMPACT | JSON_PRESERVE_ORDER)))
		return ckpt_seterr("%s: out of memory", ckpt_stout_name(h->o));
	rc = emit(h, "{", 1);
	if (meta && rc == 0)
		rc = emit(h, key, sizeof key - 1) < 0 || emit(h, meta, strlen(meta)) < 0 ? -1 : 0;
	free(meta);
	for (size_t i = 0; i < h->o->l.n && rc == 0; i++)
		rc = (i || comma) && emit(h, ",", 1) < 0 ? -1 : emit_tensor(h, &h->o->l.d[i], &at);
	rc = rc ? rc : emit(h, "}", 1);
	return rc ? rc : flush(h);
}

/* A copied variable's bytes, as the input holds them. */
struct copy_into {
	struct ckpt_stout *o;
	const struct ckpt_decl *d;
};

static int put_copy(void *user, const void *buf, size_t n, uint64_t at)
{
	struct copy_into *c = user;

	return pwrite_all(c->o, buf, n, c->o->data + c->d->begin + at);
}

/* The header first (padded with spaces to 8 bytes, so that every value is
 * aligned as the reference writer aligns them), the copies after it. */
static int fix_layout(struct ckpt_stout *o)
{
	struct header *h;
	char len8[8];
	uint64_t n, pad;
	int rc;

	if (o->fixed)
		return 0;
	o->fixed = 1;
	if (!(h = calloc(1, sizeof *h)))
		return ckpt_seterr("%s: out of memory", ckpt_stout_name(o));
	h->o = o;
	if ((rc = emit_header(h)) < 0)
		goto out;
	n = h->len;
	pad = (8 - (8 + n) % 8) % 8;
	if (n + pad > CKPT_ST_MAX_HEADER) {
		rc = ckpt_seterr("%s: the header would take %" PRIu64 " bytes, over the %u "
		                 "safetensors readers accept (%zu tensors): write a sharded set "
		                 "(NAME.safetensors.index.json; ckpt-merge --split) or HDF5",
		                 ckpt_stout_name(o), n + pad, CKPT_ST_MAX_HEADER, o->l.n);
		goto out;
	}
	for (int i = 0; i < 8; i++)
		len8[i] = (char)((n + pad) >> (8 * i));
	o->data = 8 + n + pad;
	h->writing = 1, h->len = 0, h->n = 0;
	rc = pwrite_all(o, len8, 8, 0);
	rc = rc ? rc : emit_header(h);
	rc = rc ? rc : pwrite_all(o, "        ", pad, 8 + n);
out:
	free(h);
	for (size_t i = 0; i < o->l.n && rc == 0; i++)
		if (o->l.d[i].src)
			rc = ckpt_decl_copy(&o->l.d[i], put_copy, &(struct copy_into){o, &o->l.d[i]});
	return rc;
}

int ckpt_stout_finish(struct ckpt_stout *o)
{
	uint64_t end;
	int rc = fix_layout(o);

	/* the file ends where the data do, also when the last values are empty */
	end = o->l.n ? o->data + o->l.d[o->l.n - 1].begin + o->l.d[o->l.n - 1].v.nbytes : o->data;
	if (rc == 0 && ftruncate(o->t.fd, (off_t)end) < 0)
		rc = ckpt_seterr_errno(ckpt_stout_name(o));
	return rc;
}

uint64_t ckpt_stout_bytes(const struct ckpt_stout *o)
{
	uint64_t n = 0;

	for (size_t i = 0; i < o->l.n; i++)
		n += o->l.d[i].v.nbytes;
	return n;
}

const char *ckpt_stout_tensor(const struct ckpt_stout *o, size_t i)
{
	return i < o->l.n ? o->l.d[i].name : NULL;
}

struct ckpt_temp *ckpt_stout_tempfile(struct ckpt_stout *o)
{
	return &o->t;
}

int ckpt_stout_commit(struct ckpt_stout *o)
{
	int rc = ckpt_stout_finish(o);

	rc = rc ? rc : ckpt_temp_commit(&o->t);
	ckpt_stout_abort(o);
	return rc;
}

/* ---- writing a variable's values ---------------------------------------- */

struct ckpt_stvar *ckpt_stvar_open(struct ckpt_stout *o, const char *name, ckpt_dtype mem)
{
	struct ckpt_stvar *w;
	const struct ckpt_decl *d = ckpt_decl_find(&o->l, name);

	if (!d) {
		ckpt_seterr("%s: variable '%s': not in the output", ckpt_stout_name(o), name);
		return NULL;
	}
	if (fix_layout(o) < 0)
		return NULL;
	if (!(w = calloc(1, sizeof *w))) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	w->o = o;
	w->d = d;
	w->mem = mem == CKPT_OTHER ? d->v.dtype : mem;
	return w;
}

int ckpt_stvar_write(struct ckpt_stvar *w, const ckpt_region *r, const void *buf)
{
	const ckpt_var *v = &w->d->v;
	uint64_t index = 0;

	for (int i = 0; i < r->rank; i++)
		index = index * v->dims[i] + r->start[i];
	if (!(buf = ckpt_decl_stored(v, w->mem, buf, r->n, &w->conv, &w->convcap)))
		return -1;
	return pwrite_all(w->o, buf, r->n * v->elsize, w->o->data + w->d->begin + index * v->elsize);
}

const ckpt_var *ckpt_stvar_var(const struct ckpt_stvar *w)
{
	return &w->d->v;
}

void ckpt_stvar_close(struct ckpt_stvar *w)
{
	if (!w)
		return;
	free(w->conv);
	free(w);
}
