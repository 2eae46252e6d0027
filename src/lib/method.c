/* method.c - the merge methods: their names and parameters, DARE's
 * generator, and the formula for one element exactly (exact.c), for the
 * elements mblock.c's double-double arithmetic cannot decide. */
#include "method.h"
#include "convert.h"
#include "exact.h"
#include "methodint.h"
#include "eft.h"
#include "vec.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
	[CKPT_TASK_ARITHMETIC] = "task-arithmetic",
	[CKPT_TIES] = "ties",
	[CKPT_DARE_TIES] = "dare-ties",
	[CKPT_DARE_LINEAR] = "dare-linear",
	[CKPT_BREADCRUMBS] = "breadcrumbs",
	[CKPT_BREADCRUMBS_TIES] = "breadcrumbs-ties",
	[CKPT_SLERP] = "slerp",
	[CKPT_MODEL_STOCK] = "model-stock",
};

const char *ckpt_method_name(ckpt_method_kind k)
{
	return names[k];
}

int ckpt_method_parse(const char *s, ckpt_method_kind *k)
{
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(s, names[i]) == 0) {
			*k = (ckpt_method_kind)i;
			return 0;
		}
	return -1;
}

int ckpt_method_uses_base(ckpt_method_kind k)
{
	return k != CKPT_SLERP;
}

int ckpt_method_ranks(ckpt_method_kind k)
{
	return k == CKPT_TIES || k == CKPT_BREADCRUMBS || k == CKPT_BREADCRUMBS_TIES;
}

int ckpt_method_random(ckpt_method_kind k)
{
	return k == CKPT_DARE_TIES || k == CKPT_DARE_LINEAR;
}

int ckpt_method_elects(ckpt_method_kind k)
{
	return k == CKPT_TIES || k == CKPT_DARE_TIES || k == CKPT_BREADCRUMBS_TIES;
}

int ckpt_method_dots(ckpt_method_kind k)
{
	return k == CKPT_SLERP || k == CKPT_MODEL_STOCK;
}

/* floor(d n), exactly */
static uint64_t floor_times(double d, uint64_t n)
{
	double x = (double)n, p = d * x, e = fma(d, x, -p), f = floor(p);

	if (f == p && e < 0)
		f -= 1;
	return f <= 0 ? 0 : f >= x ? n : (uint64_t)f;
}

void ckpt_method_window(const ckpt_method *m, uint64_t n, uint64_t *first, uint64_t *keep)
{
	uint64_t target, top;

	*first = 0;
	*keep = n;
	if (!ckpt_method_ranks(m->kind) || m->density >= 1)
		return;
	target = floor_times(m->density, n);
	*keep = target;
	if (m->kind == CKPT_TIES)
		return;
	top = floor_times(m->gamma, n);
	if (top > n - target) /* fewer large ones dropped, so that target remain */
		top = n - target;
	*first = top;
}

/* ---- DARE's random mask: SplitMix64 in counter mode ------------------- */

uint64_t ckpt_mix64(uint64_t z)
{
	return splitmix64(z);
}

uint64_t ckpt_dare_key(uint64_t seed, const char *name)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325); /* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * UINT64_C(0x100000001b3);
	return ckpt_mix64(seed ^ h);
}

double ckpt_dare_draw(uint64_t key, size_t model, uint64_t index)
{
	uint64_t k = ckpt_mix64(key + (uint64_t)model);

	return (double)(ckpt_mix64(k + (index + 1) * CKPT_GOLDEN) >> 11) * 0x1p-53;
}

uint64_t ckpt_magnitude_key(double x, double b)
{
	double t = fabs(x - b);
	uint64_t k;

	memcpy(&k, &t, sizeof k);
	return k & ~(UINT64_C(1) << 63);
}

CKPT_WIDE_VECTORS
static void keys_f32(const float *restrict b, const float *restrict x, uint64_t *restrict keys,
                     size_t n)
{
	for (size_t i = 0; i < n; i++)
		keys[i] = ckpt_magnitude_key_f32(x[i], b[i]);
}

CKPT_WIDE_VECTORS
static void keys_f64(const double *restrict b, const double *restrict x,
                     uint64_t *restrict keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double t = fabs(x[i] - b[i]);

		memcpy(&keys[i], &t, sizeof t);
	}
}

enum { CHUNK = 512 };

/* Whether b and x are of types float holds: then taken CHUNK at a time as
 * floats by the float32 loops. */
static int as_floats(ckpt_dtype tb, ckpt_dtype tx)
{
	return ckpt_dtype_holds(CKPT_F32, tb) && ckpt_dtype_holds(CKPT_F32, tx);
}

/* (fabs clears the sign bit: ckpt_magnitude_key()'s key) */
void ckpt_magnitude_keys(ckpt_dtype tb, const void *b, ckpt_dtype tx, const void *x,
                         uint64_t *keys, size_t n)
{
	double xb[CHUNK], xx[CHUNK];
	float fb[CHUNK], fx[CHUNK];
	int floats = as_floats(tb, tx);

	for (size_t off = 0; off < n; off += CHUNK) {
		size_t m = n - off < CHUNK ? n - off : CHUNK;
		const char *bo = (const char *)b + off * ckpt_dtype_size(tb);
		const char *xo = (const char *)x + off * ckpt_dtype_size(tx);

		if (floats) {
			keys_f32(ckpt_as_float(tb, bo, fb, m), ckpt_as_float(tx, xo, fx, m), keys + off,
			         m);
		} else {
			ckpt_to_double(tb, bo, xb, m);
			ckpt_to_double(tx, xo, xx, m);
			keys_f64(xb, xx, keys + off, m);
		}
	}
}

/* (an integer or of the low parts' bits, -0 aside: a loop that vectorises) */
CKPT_WIDE_VECTORS
static int tv_f32(const float *restrict b, const float *restrict x, double *restrict th,
                  double *restrict tl, size_t n)
{
	uint64_t any = 0;

	for (size_t i = 0; i < n; i++) {
		double e, t = ckpt_two_sum((double)x[i], -(double)b[i], &e);
		uint64_t u;

		memcpy(&u, &e, sizeof u);
		any |= u << 1;
		th[i] = t;
		tl[i] = e;
	}
	return any == 0;
}

/* (x in th, b in tl, replaced) */
CKPT_WIDE_VECTORS
static int tv_f64(double *restrict th, double *restrict tl, size_t n)
{
	uint64_t any = 0;

	for (size_t i = 0; i < n; i++) {
		double e, t = ckpt_two_sum(th[i], -tl[i], &e);
		uint64_t u;

		memcpy(&u, &e, sizeof u);
		any |= u << 1;
		th[i] = t;
		tl[i] = e;
	}
	return any == 0;
}

int ckpt_task_vector(ckpt_dtype tb, const void *b, ckpt_dtype tx, const void *x, double *th,
                     double *tl, size_t n)
{
	float fb[CHUNK], fx[CHUNK];
	int exact = 1;

	if (as_floats(tb, tx)) {
		for (size_t off = 0; off < n; off += CHUNK) {
			size_t m = n - off < CHUNK ? n - off : CHUNK;
			const char *bo = (const char *)b + off * ckpt_dtype_size(tb);
			const char *xo = (const char *)x + off * ckpt_dtype_size(tx);

			exact &= tv_f32(ckpt_as_float(tb, bo, fb, m), ckpt_as_float(tx, xo, fx, m),
			                th + off, tl + off, m);
		}
		return exact;
	}
	ckpt_to_double(tx, x, th, n);
	ckpt_to_double(tb, b, tl, n);
	return tv_f64(th, tl, n);
}

/* ---- one element, exactly -------------------------------------------- */

static int sign_of(double x)
{
	return (x > 0) - (x < 0);
}

static double beta(const ckpt_mvar *v)
{
	return v->m->kind == CKPT_SLERP ? 0 : 1;
}

static int below(const ckpt_rank_cut *c, uint64_t key, uint64_t index)
{
	return c->all || key > c->key || (key == c->key && index < c->index);
}

/* One element's inputs and the models it keeps. */
struct elem {
	const ckpt_mvar *v;
	double b;
	const double *x;
	unsigned char *keep;
	uint64_t index;
};

/* S over the models in keep, exactly (SLERP's x_i, else x_i - b). */
static void big_s(const struct elem *e, ckpt_big *s)
{
	ckpt_big t;

	ckpt_big_set(s, 0);
	for (size_t k = 0; k < e->v->nx; k++) {
		double w = e->v->m->weights[k];

		if (!e->keep[k])
			continue;
		ckpt_big_set(&t, e->x[k]);
		ckpt_big_mul(&t, w);
		ckpt_big_add(s, &t);
		if (beta(e->v) != 0) {
			ckpt_big_set(&t, e->b);
			ckpt_big_mul(&t, w);
			ckpt_big_sub(s, &t);
		}
	}
}

/* The sign of x - beta b, exactly. */
static int tau_sign(const struct elem *e, size_t k)
{
	double b = beta(e->v) * e->b;

	return (e->x[k] > b) - (e->x[k] < b);
}

/* The elected sign: of sum_k w_k tau_k over the kept models, or of the
 * count of their signs; 0 counts as +. */
static int elect(const struct elem *e)
{
	const ckpt_mvar *v = e->v;
	ckpt_big s;
	long count = 0;

	if (v->m->sign_count) {
		for (size_t k = 0; k < v->nx; k++)
			if (e->keep[k])
				count += sign_of(v->m->weights[k]) * tau_sign(e, k);
		return count >= 0 ? 1 : -1;
	}
	big_s(e, &s);
	return ckpt_big_sign(&s) >= 0 ? 1 : -1;
}

/* Which models the element keeps: the mask, the window, the election. */
static void choose(struct elem *e)
{
	const ckpt_mvar *v = e->v;
	const ckpt_method *m = v->m;

	for (size_t k = 0; k < v->nx; k++) {
		int keep = 1;

		if (ckpt_method_random(m->kind))
			keep = ckpt_dare_draw(v->mask_key, k, e->index) < m->density;
		if (ckpt_method_ranks(m->kind)) {
			uint64_t key = ckpt_magnitude_key(e->x[k], e->b);

			keep = below(&v->hi[k], key, e->index) && !below(&v->lo[k], key, e->index);
		}
		e->keep[k] = (unsigned char)keep;
	}
	if (ckpt_method_elects(m->kind)) {
		int s = elect(e);

		for (size_t k = 0; k < v->nx; k++)
			e->keep[k] &= sign_of(m->weights[k]) * tau_sign(e, k) == s;
	}
}

/* The result exactly, rounded once (to odd for a type narrower than
 * double). */
static double exact_result(const struct elem *e, int to_odd)
{
	const ckpt_mvar *v = e->v;
	int normalised = ckpt_method_elects(v->m->kind) && v->m->normalize;
	ckpt_big s, d, t, num;

	big_s(e, &s);
	ckpt_big_set(&d, normalised ? 0 : 1);
	for (size_t k = 0; normalised && k < v->nx; k++)
		if (e->keep[k]) {
			ckpt_big_set(&t, v->m->weights[k]);
			ckpt_big_add(&d, &t);
		}
	ckpt_big_mul(&d, v->dc);
	if (ckpt_big_sign(&d) == 0) { /* nothing kept: S / D = 0 */
		ckpt_big_set(&d, 1);
		ckpt_big_set(&s, 0);
	}
	num = d;
	ckpt_big_mul(&num, v->a);
	ckpt_big_mul(&num, e->b);
	ckpt_big_mul(&s, v->lambda);
	ckpt_big_add(&num, &s);
	return ckpt_big_quotient(&num, &d, to_odd);
}

/* Where an input is NaN or Inf: the formula in double over every model. */
static double ieee_result(const struct elem *e)
{
	const ckpt_mvar *v = e->v;
	double s = 0;

	for (size_t k = 0; k < v->nx; k++)
		s += v->m->weights[k] * (e->x[k] - beta(v) * e->b);
	return v->a * e->b + v->lambda * s;
}

double ckpt_method_slow(const ckpt_mvar *v, const double *x, double b, uint64_t index,
                        unsigned char *keep, int to_odd)
{
	struct elem e = {v, b, x, keep, index};
	int finite = isfinite(b) && isfinite(v->a) && isfinite(v->lambda);

	for (size_t k = 0; k < v->nx; k++)
		finite &= isfinite(x[k]) != 0;
	if (!finite)
		return ieee_result(&e);
	choose(&e);
	return exact_result(&e, to_odd);
}
