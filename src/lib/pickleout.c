/* pickleout.c - pickles written (pickle.h): protocol 2 as Python's pickler
 * writes it for torch.save - the values of a tree read by the unpickler,
 * and the pieces a writer of tensors puts together. */
#include "pickle.h"

#include <stdlib.h>
#include <string.h>

/* Items a MARK ... SETITEMS/APPENDS group holds, as Python batches them. */
#define BATCH 1000
/* Deeper than this, a structure is no checkpoint's (or holds itself). */
#define MAX_DEPTH 1000

void ckpt_pk_out_free(struct ckpt_pk_out *o)
{
	ckpt_bytes_free(&o->b);
	o->memo = 0;
}

static void put(struct ckpt_pk_out *o, const void *p, size_t n)
{
	ckpt_bytes_put(&o->b, p, n);
}

static void put_le(struct ckpt_pk_out *o, uint64_t v, int n)
{
	ckpt_bytes_put_le(&o->b, v, n);
}

void ckpt_pk_op(struct ckpt_pk_out *o, unsigned char op)
{
	put(o, &op, 1);
}

void ckpt_pk_put_int(struct ckpt_pk_out *o, int64_t v)
{
	unsigned char b[8];
	int n = 8;

	if (v >= 0 && v < 256) {
		ckpt_pk_op(o, 'K'), put_le(o, (uint64_t)v, 1);
	} else if (v >= 0 && v < 65536) {
		ckpt_pk_op(o, 'M'), put_le(o, (uint64_t)v, 2);
	} else if (v >= INT32_MIN && v <= INT32_MAX) {
		ckpt_pk_op(o, 'J'), put_le(o, (uint64_t)v, 4);
	} else { /* LONG1: the fewest bytes of two's complement */
		for (int i = 0; i < 8; i++)
			b[i] = (unsigned char)((uint64_t)v >> (8 * i));
		while (n > 1 && ((b[n - 1] == 0 && !(b[n - 2] & 0x80)) ||
		                 (b[n - 1] == 0xff && (b[n - 2] & 0x80))))
			n--;
		ckpt_pk_op(o, 0x8a), put_le(o, (uint64_t)n, 1), put(o, b, (size_t)n);
	}
}

void ckpt_pk_put_bool(struct ckpt_pk_out *o, int v)
{
	ckpt_pk_op(o, v ? 0x88 : 0x89);
}

void ckpt_pk_put_str(struct ckpt_pk_out *o, const char *s, size_t n)
{
	ckpt_pk_op(o, 'X'), put_le(o, n, 4), put(o, s, n);
}

void ckpt_pk_put_global(struct ckpt_pk_out *o, const char *dotted)
{
	const char *dot = strrchr(dotted, '.');

	/* "torch._utils._rebuild_tensor_v2": module and name at the last dot */
	ckpt_pk_op(o, 'c');
	put(o, dotted, (size_t)(dot - dotted));
	ckpt_pk_op(o, '\n');
	put(o, dot + 1, strlen(dot + 1));
	ckpt_pk_op(o, '\n');
}

void ckpt_pk_put_ints(struct ckpt_pk_out *o, const uint64_t *v, int n)
{
	if (n == 0) {
		ckpt_pk_op(o, ')');
		return;
	}
	if (n > 3)
		ckpt_pk_op(o, '(');
	for (int i = 0; i < n; i++)
		ckpt_pk_put_int(o, (int64_t)v[i]);
	ckpt_pk_op(o, n > 3 ? 't' : (unsigned char)(0x84 + n));
}

uint32_t ckpt_pk_put_memo(struct ckpt_pk_out *o)
{
	uint32_t at = o->memo++;

	if (at < 256)
		ckpt_pk_op(o, 'q'), put_le(o, at, 1);
	else
		ckpt_pk_op(o, 'r'), put_le(o, at, 4);
	return at;
}

void ckpt_pk_get_memo(struct ckpt_pk_out *o, uint32_t at)
{
	if (at < 256)
		ckpt_pk_op(o, 'h'), put_le(o, at, 1);
	else
		ckpt_pk_op(o, 'j'), put_le(o, at, 4);
}

/* Protocol 2 has no bytes: Python writes _codecs.encode(text, "latin1"). */
static void put_bytes(struct ckpt_pk_out *o, const unsigned char *p, size_t n)
{
	struct ckpt_bytes t = {0};

	for (size_t i = 0; i < n; i++) {
		unsigned char u[2] = {(unsigned char)(0xc0 | p[i] >> 6),
		                      (unsigned char)(0x80 | (p[i] & 0x3f))};

		if (p[i] < 0x80)
			ckpt_bytes_put(&t, &p[i], 1);
		else
			ckpt_bytes_put(&t, u, 2);
	}
	ckpt_pk_put_global(o, "_codecs.encode");
	ckpt_pk_put_str(o, t.failed ? "" : (const char *)t.p, t.failed ? 0 : t.n);
	ckpt_pk_put_str(o, "latin1", 6);
	ckpt_pk_op(o, 0x86);
	ckpt_pk_op(o, 'R');
	o->b.failed |= t.failed;
	ckpt_bytes_free(&t);
}

struct writing {
	ckpt_pk_tensor_fn tensor;
	int (*extra)(void *user, struct ckpt_pk_out *o);
	void *user;
	int depth;
};

static int value(struct ckpt_pk_out *o, const ckpt_pk *v, struct writing *w, int root);

/* Items from..n of v (in steps of step), MARK'd in batches ending in op. */
static int batches(struct ckpt_pk_out *o, const ckpt_pk *v, size_t step, unsigned char op,
                   struct writing *w)
{
	int rc = 0;

	for (size_t i = 0; i < v->n && rc == 0; i += BATCH * step) {
		ckpt_pk_op(o, '(');
		for (size_t k = i; k < v->n && k < i + BATCH * step && rc == 0; k++)
			rc = value(o, v->item[k], w, 0);
		ckpt_pk_op(o, op);
	}
	return rc;
}

static int dict(struct ckpt_pk_out *o, const ckpt_pk *v, struct writing *w, int root)
{
	int rc;

	if (v->ordered) {
		ckpt_pk_put_global(o, "collections.OrderedDict");
		ckpt_pk_op(o, ')');
		ckpt_pk_op(o, 'R');
	} else {
		ckpt_pk_op(o, '}');
	}
	rc = batches(o, v, 2, 'u', w);
	if (rc == 0 && root && w->extra) {
		ckpt_pk_op(o, '(');
		rc = w->extra(w->user, o);
		ckpt_pk_op(o, 'u');
	}
	if (rc == 0 && v->attrs) {
		rc = value(o, v->attrs, w, 0);
		ckpt_pk_op(o, 'b');
	}
	return rc;
}

static int sequence(struct ckpt_pk_out *o, const ckpt_pk *v, struct writing *w)
{
	int rc = 0;

	switch (v->kind) {
	case CKPT_PK_LIST:
		ckpt_pk_op(o, ']');
		return batches(o, v, 1, 'e', w);
	case CKPT_PK_TUPLE:
		ckpt_pk_op(o, '(');
		for (size_t i = 0; i < v->n && rc == 0; i++)
			rc = value(o, v->item[i], w, 0);
		ckpt_pk_op(o, 't');
		return rc;
	default: /* SET, FROZENSET: builtins.set([items]) */
		ckpt_pk_put_global(o, v->kind == CKPT_PK_SET ? "builtins.set" : "builtins.frozenset");
		ckpt_pk_op(o, ']');
		rc = batches(o, v, 1, 'e', w);
		ckpt_pk_op(o, 0x85);
		ckpt_pk_op(o, 'R');
		return rc;
	}
}

static int value(struct ckpt_pk_out *o, const ckpt_pk *v, struct writing *w, int root)
{
	union { double d; uint64_t u; } f;
	int rc = 0;

	if (w->depth >= MAX_DEPTH)
		return CKPT_PK_TOO_DEEP;
	w->depth++;
	switch (v->kind) {
	case CKPT_PK_NONE: ckpt_pk_op(o, 'N'); break;
	case CKPT_PK_BOOL: ckpt_pk_put_bool(o, (int)v->i); break;
	case CKPT_PK_INT: ckpt_pk_put_int(o, v->i); break;
	case CKPT_PK_BIGINT:
		ckpt_pk_op(o, 0x8b), put_le(o, v->len, 4), put(o, v->s, v->len);
		break;
	case CKPT_PK_FLOAT:
		f.d = v->d;
		ckpt_pk_op(o, 'G');
		for (int i = 7; i >= 0; i--)
			ckpt_pk_op(o, (unsigned char)(f.u >> (8 * i)));
		break;
	case CKPT_PK_STR: ckpt_pk_put_str(o, v->s, v->len); break;
	case CKPT_PK_BYTES: put_bytes(o, (const unsigned char *)v->s, v->len); break;
	case CKPT_PK_GLOBAL: ckpt_pk_put_global(o, v->s); break;
	case CKPT_PK_CALL:
		ckpt_pk_put_global(o, v->item[0]->s);
		rc = value(o, v->item[1], w, 0);
		ckpt_pk_op(o, 'R');
		break;
	case CKPT_PK_DICT: rc = dict(o, v, w, root); break;
	case CKPT_PK_TENSOR: rc = w->tensor(w->user, o, v); break;
	case CKPT_PK_STORAGE: rc = -1; break; /* (only inside a tensor) */
	default: rc = sequence(o, v, w); break;
	}
	w->depth--;
	return rc;
}

int ckpt_pk_put_value(struct ckpt_pk_out *o, const ckpt_pk *v, ckpt_pk_tensor_fn tensor,
                      int (*extra)(void *user, struct ckpt_pk_out *o), void *user)
{
	struct writing w = {tensor, extra, user, 0};

	return value(o, v, &w, 1);
}
