/* torchwalk.c - a torch.save pickle's structure as named variables
 * (torch.h): a dict's keys and a list's indices are the levels of a name,
 * every tensor a variable, checked against the storage it views. */
#include "torch.h"
#include "backend.h"
#include "err.h"
#include "fmt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper than this, a pickle is no checkpoint (and a walk's stack ends). */
#define MAX_DEPTH 200

static const struct {
	const char *global;
	ckpt_dtype dtype;
	const char *kind; /* not read */
	size_t elsize;
} storages[] = {
	{"torch.FloatStorage", CKPT_F32, NULL, 4}, {"torch.DoubleStorage", CKPT_F64, NULL, 8},
	{"torch.HalfStorage", CKPT_F16, NULL, 2}, {"torch.BFloat16Storage", CKPT_BF16, NULL, 2},
	{"torch.LongStorage", CKPT_I64, NULL, 8}, {"torch.IntStorage", CKPT_I32, NULL, 4},
	{"torch.ShortStorage", CKPT_I16, NULL, 2}, {"torch.CharStorage", CKPT_I8, NULL, 1},
	{"torch.ByteStorage", CKPT_U8, NULL, 1}, {"torch.BoolStorage", CKPT_BOOL, NULL, 1},
	{"torch.UInt16Storage", CKPT_U16, NULL, 2}, {"torch.UInt32Storage", CKPT_U32, NULL, 4},
	{"torch.UInt64Storage", CKPT_U64, NULL, 8},
	{"torch.Float8_e4m3fnStorage", CKPT_F8E4M3, NULL, 1},
	{"torch.Float8_e5m2Storage", CKPT_F8E5M2, NULL, 1},
	{"torch.UntypedStorage", CKPT_U8, NULL, 1}, {"torch.storage.UntypedStorage", CKPT_U8, NULL, 1},
	{"torch.ComplexFloatStorage", CKPT_OTHER, "complex64", 8},
	{"torch.ComplexDoubleStorage", CKPT_OTHER, "complex128", 16},
	{"torch.QInt8Storage", CKPT_OTHER, "qint8", 1}, {"torch.QUInt8Storage", CKPT_OTHER, "quint8", 1},
	{"torch.QInt32Storage", CKPT_OTHER, "qint32", 4},
	{"torch.QUInt4x2Storage", CKPT_OTHER, "quint4x2", 1},
	{"torch.QUInt2x4Storage", CKPT_OTHER, "quint2x4", 1},
	{"torch.Float8_e4m3fnuzStorage", CKPT_OTHER, "float8_e4m3fnuz", 1},
	{"torch.Float8_e5m2fnuzStorage", CKPT_OTHER, "float8_e5m2fnuz", 1},
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211u;
	return h;
}

static int rehash(struct ckpt_torch *t)
{
	size_t n = t->nslot ? 2 * t->nslot : 64, *slot = calloc(n, sizeof *slot);

	if (!slot)
		return -1;
	for (size_t i = 0; i < t->nst; i++) {
		size_t at = (size_t)(hash(t->st[i].key) & (n - 1));

		while (slot[at])
			at = (at + 1) & (n - 1);
		slot[at] = i + 1;
	}
	free(t->slot);
	t->slot = slot, t->nslot = n;
	return 0;
}

static ptrdiff_t new_storage(ckpt_file *f, struct ckpt_torch *t, const ckpt_pk *s)
{
	struct ckpt_torch_storage *st;
	const char *type = s->item[0]->s;
	size_t k = 0;

	while (k < sizeof storages / sizeof *storages && strcmp(storages[k].global, type) != 0)
		k++;
	if (k == sizeof storages / sizeof *storages)
		return ckpt_seterr("%s: storage '%s' is of type '%s', which is no storage class",
		                   f->name, s->s, type);
	if (t->nst == t->stcap) {
		size_t cap = t->stcap ? 2 * t->stcap : 64;

		if (!(st = realloc(t->st, cap * sizeof *st)))
			return ckpt_seterr("%s: out of memory", f->name);
		t->st = st, t->stcap = cap;
	}
	if (s->i > 0 && (uint64_t)s->i > UINT64_MAX / storages[k].elsize)
		return ckpt_seterr("%s: storage '%s' of %" PRId64 " elements: too large", f->name,
		                   s->s, s->i);
	t->st[t->nst] = (struct ckpt_torch_storage){s->s, storages[k].dtype, storages[k].kind,
	                                            storages[k].elsize, (uint64_t)s->i, -1, 0,
	                                            0, 0};
	t->nst++;
	return (ptrdiff_t)t->nst - 1;
}

struct ckpt_torch_storage *ckpt_torch_find(struct ckpt_torch *t, const char *key)
{
	size_t at = t->nslot ? (size_t)(hash(key) & (t->nslot - 1)) : 0;

	for (; t->nslot && t->slot[at]; at = (at + 1) & (t->nslot - 1))
		if (strcmp(t->st[t->slot[at] - 1].key, key) == 0)
			return &t->st[t->slot[at] - 1];
	return NULL;
}

ptrdiff_t ckpt_torch_storage_of(ckpt_file *f, struct ckpt_torch *t, const ckpt_pk *s)
{
	size_t at;
	ptrdiff_t i;

	if (2 * (t->nst + 1) > t->nslot && rehash(t) < 0)
		return ckpt_seterr("%s: out of memory", f->name);
	at = (size_t)(hash(s->s) & (t->nslot - 1));
	for (; t->slot[at]; at = (at + 1) & (t->nslot - 1))
		if (strcmp(t->st[t->slot[at] - 1].key, s->s) == 0) {
			const struct ckpt_torch_storage *st = &t->st[t->slot[at] - 1];

			if (strcmp(s->item[0]->s, "torch.UntypedStorage") != 0 &&
			    (uint64_t)s->i != st->numel)
				return ckpt_seterr("%s: storage '%s' is named with two sizes (damaged)",
				                   f->name, s->s);
			return (ptrdiff_t)t->slot[at] - 1;
		}
	if ((i = new_storage(f, t, s)) >= 0)
		t->slot[at] = (size_t)i + 1;
	return i;
}

/* ---- the walk ------------------------------------------------------------------ */

struct walk {
	ckpt_file *f;
	struct ckpt_torch *t;
	char *path;
	size_t len, cap;
	int depth;
	size_t objcap;
};

static int grow(struct walk *w)
{
	ckpt_file *f = w->f;
	struct ckpt_torch *t = w->t;
	size_t cap = t->cap ? 2 * t->cap : 64;
	ckpt_var *v;
	struct ckpt_torch_view *at;

	if (f->nvars < t->cap)
		return 0;
	if (!(v = realloc(f->vars, cap * sizeof *v)))
		return ckpt_seterr("%s: out of memory", f->name);
	f->vars = v;
	if (!(at = realloc(t->at, cap * sizeof *at)))
		return ckpt_seterr("%s: out of memory", f->name);
	t->at = at, t->cap = cap;
	return 0;
}

static const char *name_of(const struct walk *w)
{
	return w->len ? w->path : CKPT_TORCH_ROOT;
}

/* A new object of f's walk, zeroed but for its kind. */
static ckpt_obj *new_obj(struct walk *w, ckpt_obj_kind kind)
{
	ckpt_file *f = w->f;
	ckpt_obj *o;

	if (f->nobjs == w->objcap) {
		size_t cap = w->objcap ? 2 * w->objcap : 64;

		if (!(o = realloc(f->objs, cap * sizeof *o))) {
			ckpt_seterr("%s: out of memory", f->name);
			return NULL;
		}
		f->objs = o, w->objcap = cap;
	}
	o = &f->objs[f->nobjs++];
	memset(o, 0, sizeof *o);
	o->kind = kind;
	o->target_var = -1;
	return o;
}

/* A further name of variable var: a hard link among the objects. */
static int add_alias(struct walk *w, size_t var)
{
	ckpt_obj *o = new_obj(w, CKPT_OBJ_HARDLINK);

	if (!o)
		return -1;
	o->target_var = (int)var;
	o->var = var;
	if (!(o->path = strdup(name_of(w))) || !(o->target = strdup(w->f->vars[var].name)))
		return ckpt_seterr("%s: out of memory", w->f->name);
	return 0;
}

/* The tensor's size and strides: checked to lie within its storage. */
static int geometry(struct walk *w, const ckpt_pk *tv, const struct ckpt_torch_storage *st,
                    uint64_t *dims, struct ckpt_torch_view *view, int *rank)
{
	const ckpt_pk *size = ckpt_pk_seq(tv->item[1]), *stride = ckpt_pk_seq(tv->item[2]);
	uint64_t last = view->offset, n = 1, expect = 1;
	int r = size ? (int)size->n : 0;

	if (!size || !stride || stride->n != size->n)
		return ckpt_seterr("%s: '%s' has a malformed size or stride", w->f->name,
		                   name_of(w));
	if (r > CKPT_MAX_RANK)
		return ckpt_seterr("%s: '%s' has %d dimensions, more than ckpt's %d", w->f->name,
		                   name_of(w), r, CKPT_MAX_RANK);
	for (int i = 0; i < r; i++) {
		const ckpt_pk *d = size->item[i], *s = stride->item[i];

		if (d->kind != CKPT_PK_INT || s->kind != CKPT_PK_INT || d->i < 0 || s->i < 0)
			return ckpt_seterr("%s: '%s' has a malformed size or stride", w->f->name,
			                   name_of(w));
		dims[i] = (uint64_t)d->i, view->stride[i] = (uint64_t)s->i;
		if (__builtin_mul_overflow(n, dims[i], &n))
			return ckpt_seterr("%s: '%s': its shape overflows", w->f->name, name_of(w));
	}
	view->contiguous = 1;
	for (int i = r; i-- > 0;) {
		if (dims[i] != 1 && view->stride[i] != expect)
			view->contiguous = 0;
		expect *= dims[i];
	}
	for (int i = 0; i < r && n > 0; i++) {
		uint64_t reach;

		if (__builtin_mul_overflow(dims[i] - 1, view->stride[i], &reach) ||
		    __builtin_add_overflow(last, reach, &last))
			last = UINT64_MAX;
	}
	if (n > 0 && last >= st->numel)
		return ckpt_seterr("%s: '%s' reaches past the end of its storage '%s' (damaged)",
		                   w->f->name, name_of(w), st->key);
	*rank = r;
	return 0;
}

/* A variable before this one that views the same elements the same way. */
static ptrdiff_t same_view(const struct walk *w, const struct ckpt_torch_view *view, int rank,
                           const uint64_t *dims)
{
	const struct ckpt_torch *t = w->t;

	for (size_t k = t->st[view->storage].first_var; k; k = t->at[k - 1].next_var) {
		const struct ckpt_torch_view *o = &t->at[k - 1];
		const ckpt_var *v = &w->f->vars[k - 1];

		if (o->offset == view->offset && v->rank == rank &&
		    (rank == 0 || (memcmp(v->dims, dims, (size_t)rank * sizeof *dims) == 0 &&
		                   memcmp(o->stride, view->stride, (size_t)rank * sizeof *dims) == 0)))
			return (ptrdiff_t)k - 1;
	}
	return -1;
}

static int add_tensor(struct walk *w, ckpt_pk *tv, struct ckpt_torch_view *view, int rank,
                      const uint64_t *dims)
{
	ckpt_file *f = w->f;
	struct ckpt_torch_storage *st = &w->t->st[view->storage];
	ckpt_var *v;
	ckpt_obj *o;

	if (grow(w) < 0)
		return -1;
	v = &f->vars[f->nvars];
	memset(v, 0, sizeof *v);
	if (!(v->name = ckpt_file_strdup(f, name_of(w))) || ckpt_file_set_dims(f, v, rank, dims) < 0)
		return -1;
	v->dtype = st->dtype;
	v->elsize = st->elsize;
	snprintf(v->type, sizeof v->type, "%s", ckpt_dtype_name(v->dtype));
	v->nelems = 1;
	for (int i = 0; i < rank; i++)
		v->nelems *= dims[i];
	v->nbytes = v->nelems * v->elsize;
	view->next_var = 0;
	if (st->first_var) {
		size_t k = st->first_var;

		while (w->t->at[k - 1].next_var)
			k = w->t->at[k - 1].next_var;
		w->t->at[k - 1].next_var = f->nvars + 1;
	} else {
		st->first_var = f->nvars + 1;
	}
	w->t->at[f->nvars] = *view;
	tv->tag = ++f->nvars;
	if (!(o = new_obj(w, CKPT_OBJ_VAR)))
		return -1;
	o->var = f->nvars - 1;
	return 0;
}

static int tensor(struct walk *w, ckpt_pk *tv)
{
	struct ckpt_torch_view view;
	uint64_t dims[CKPT_MAX_RANK];
	ptrdiff_t s, same;
	int rank = 0;

	if (tv->refused)
		return ckpt_seterr("%s: '%s' is %s, which ckpt does not read", w->f->name,
		                   name_of(w), tv->refused);
	if (tv->tag) /* the same tensor object once more */
		return add_alias(w, tv->tag - 1);
	if ((s = ckpt_torch_storage_of(w->f, w->t, tv->item[0])) < 0)
		return -1;
	if (w->t->st[s].dtype == CKPT_OTHER)
		return ckpt_seterr("%s: '%s' is a %s tensor, which ckpt does not read", w->f->name,
		                   name_of(w), w->t->st[s].kind);
	memset(&view, 0, sizeof view);
	view.storage = (size_t)s;
	view.offset = (uint64_t)tv->i;
	if (tv->i < 0 || geometry(w, tv, &w->t->st[s], dims, &view, &rank) < 0)
		return tv->i < 0 ? ckpt_seterr("%s: '%s' has a negative storage offset", w->f->name,
		                               name_of(w))
		                 : -1;
	if ((same = same_view(w, &view, rank, dims)) >= 0) {
		tv->tag = (size_t)same + 1;
		return add_alias(w, (size_t)same);
	}
	return add_tensor(w, tv, &view, rank, dims);
}

static int visit(struct walk *w, ckpt_pk *v);

/* v under the name's next level part (n bytes). */
static int enter(struct walk *w, const char *part, size_t n, ckpt_pk *v)
{
	size_t len = w->len, need = len + 1 + n + 1;
	int rc;

	if (memchr(part, '\0', n))
		return ckpt_seterr("%s: a key under '%s' holds a NUL byte", w->f->name, name_of(w));
	if (need > w->cap) {
		char *p = realloc(w->path, 2 * need);

		if (!p)
			return ckpt_seterr("%s: out of memory", w->f->name);
		w->path = p, w->cap = 2 * need;
	}
	if (len)
		w->path[w->len++] = '/';
	memcpy(w->path + w->len, part, n);
	w->len += n;
	w->path[w->len] = '\0';
	rc = visit(w, v);
	w->len = len;
	w->path[len] = '\0';
	return rc;
}

/* A dict's key as a level of a name: a string, or a number as Python
 * prints it (an optimizer's state is keyed by parameter numbers). */
static int key_part(struct walk *w, const ckpt_pk *k, char *buf, size_t size, const char **part,
                    size_t *n)
{
	if (k->kind == CKPT_PK_STR || k->kind == CKPT_PK_BYTES) {
		*part = k->s, *n = k->len;
		return 0;
	}
	if (k->kind == CKPT_PK_INT)
		snprintf(buf, size, "%" PRId64, k->i);
	else if (k->kind == CKPT_PK_BOOL)
		snprintf(buf, size, "%s", k->i ? "True" : "False");
	else if (k->kind == CKPT_PK_NONE)
		snprintf(buf, size, "None");
	else if (k->kind == CKPT_PK_FLOAT)
		snprintf(buf, size, "%.17g", k->d);
	else
		return ckpt_seterr("%s: a key under '%s' is no string or number", w->f->name,
		                   name_of(w));
	*part = buf, *n = strlen(buf);
	return 0;
}

static int items(struct walk *w, ckpt_pk *v)
{
	char buf[64];
	const char *part = NULL;
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < v->n && rc == 0; i++) {
		if (v->kind == CKPT_PK_DICT) {
			rc = key_part(w, v->item[i], buf, sizeof buf, &part, &n);
			i++;
		} else {
			snprintf(buf, sizeof buf, "%zu", i);
			part = buf, n = strlen(buf);
		}
		if (rc == 0)
			rc = enter(w, part, n, v->item[i]);
	}
	return rc;
}

/* A value as Python shows it (a string quoted; bytes, calls, sets by
 * kind): into out, of size bytes. */
static void show(const ckpt_pk *v, char *out, size_t size)
{
	switch (v->kind) {
	case CKPT_PK_NONE: snprintf(out, size, "None"); break;
	case CKPT_PK_BOOL: snprintf(out, size, "%s", v->i ? "True" : "False"); break;
	case CKPT_PK_INT: snprintf(out, size, "%" PRId64, v->i); break;
	case CKPT_PK_FLOAT: ckpt_fmt_double(v->d, CKPT_F64, out); break;
	case CKPT_PK_STR: snprintf(out, size, "'%s'", v->s); break;
	case CKPT_PK_BYTES: snprintf(out, size, "(%zu bytes)", v->len); break;
	case CKPT_PK_BIGINT: snprintf(out, size, "(an integer of %zu bytes)", v->len); break;
	case CKPT_PK_GLOBAL: snprintf(out, size, "%s", v->s); break;
	case CKPT_PK_CALL: snprintf(out, size, "%s(...)", v->item[0]->s); break;
	case CKPT_PK_SET: case CKPT_PK_FROZENSET:
		snprintf(out, size, "(a set of %zu)", v->n);
		break;
	default: snprintf(out, size, "(a storage)"); break;
	}
}

/* A value that is no tensor: an object of its own, what it holds as its
 * target. */
static int value(struct walk *w, const ckpt_pk *v)
{
	ckpt_obj *o = new_obj(w, CKPT_OBJ_VALUE);
	char text[256];

	if (!o)
		return -1;
	show(v, text, sizeof text);
	if (!(o->path = strdup(name_of(w))) || !(o->target = strdup(text)))
		return ckpt_seterr("%s: out of memory", w->f->name);
	return 0;
}

static int visit(struct walk *w, ckpt_pk *v)
{
	int rc;

	if (v->kind == CKPT_PK_TENSOR)
		return tensor(w, v);
	if (v->kind == CKPT_PK_STORAGE)
		return ckpt_seterr("%s: '%s' is a storage without a tensor, which ckpt does not "
		                   "read", w->f->name, name_of(w));
	if (v->kind != CKPT_PK_DICT && v->kind != CKPT_PK_LIST && v->kind != CKPT_PK_TUPLE)
		return value(w, v);
	if (v->walking || w->depth >= MAX_DEPTH)
		return ckpt_seterr("%s: '%s' %s", w->f->name, name_of(w),
		                   v->walking ? "holds itself (a cycle)"
		                              : "is nested deeper than a checkpoint is");
	v->walking = 1, w->depth++;
	rc = items(w, v);
	v->walking = 0, w->depth--;
	return rc;
}

int ckpt_torch_walk(ckpt_file *f, struct ckpt_torch *t)
{
	struct walk w = {f, t, NULL, 0, 0, 0, 0};
	int rc = visit(&w, t->root);

	free(w.path);
	return rc;
}
