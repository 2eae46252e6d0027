/* mfloat.c - the merge methods' formula over a block in float32 lanes,
 * where every input is a 16-bit float (bfloat16, float16) and each
 * element's arithmetic is exact in float: twice the lanes of mquick.c's
 * exact step in double, the same bits.
 *
 * mquick.c's exact_terms() argument, with float's 24 bits for double's
 * 53.  An element's inputs are multiples of g = 2^(el - 127 - p + 1) (el
 * the least nonzero one's exponent field, p the inputs' places), so every
 * quantity of r = (a D b + lambda S) / D is a multiple of G = g 2^E, of
 * size at most M big < M 2^(eb - 126) (eb the largest's field): where eb -
 * el <= span = 22 - ceil(log2 C) (C = M 2^(p - E)), that is at most 2^22
 * G, and where el >= lmin, G >= 2^-149: each is a float, or past float's
 * largest - an infinity, which makes r one (or NaN).  D and a D are
 * multiples of 2^lD of at most 24 bits (dodd < 2^24; a D is a term).  So
 * with finite inputs and a finite r, the sums are exact and the quotient
 * rounded once, to float: for a float32 output that is r rounded.  For a
 * narrower type of p_o bits the float is rounded again, which is r's
 * rounding unless the float is a halfway point h of that type (p_o + 1
 * bits) that r is not: then |r - h| <= 2^(e_h - 24) (h in [2^e_h, 2^(e_h
 * + 1))), while r - h = (N - D h) / D, D = d 2^f with d odd, N - D h a
 * nonzero multiple of G or of 2^(f + e_h - p_o), so |r - h| >= G / D or
 * 2^(e_h - p_o) / d: the first above 2^(e_h - 24) as N >= D h (1 - 2^-24)
 * and N <= 2^22 G, the second where d < 2^(24 - p_o).  An element outside
 * those bounds is left to mquick.c's steps. */
#include "convert.h"
#include "mblockint.h"
#include "methodint.h"
#include "vec.h"

static int narrow(ckpt_dtype t)
{
	return t == CKPT_BF16 || t == CKPT_F16;
}

static int is_float(double x)
{
	return (double)(float)x == x;
}

/* The exponent of the least power of two at or above x > 0. */
static int ceil_log2(double x)
{
	int e;
	double f = frexp(x, &e);

	return f == 0.5 ? e - 1 : e;
}

void ckpt_mfloat_setup(const ckpt_mvar *v, struct mfloat *f)
{
	struct ckpt_exact_terms x;
	int p = 0, po = ckpt_dtype_precision(v->out);

	memset(f, 0, sizeof *f);
	if (!FUSED_LOOPS || v->nx > FUSED || !ckpt_mquick_applies(v) ||
	    !(v->out == CKPT_F32 || narrow(v->out)))
		return;
	for (size_t k = 0; k <= v->nx; k++) {
		if (!narrow(v->types[k]))
			return;
		p = ckpt_dtype_precision(v->types[k]) > p ? ckpt_dtype_precision(v->types[k]) : p;
	}
	for (size_t k = 0; k < v->nx; k++) {
		if (!is_float(v->m->weights[k]))
			return;
		f->w[k] = (float)v->m->weights[k];
	}
	if (!ckpt_mquick_exact_terms(v, &x) || !is_float(v->a) || !is_float(v->lambda) ||
	    !is_float(v->dc) || !(x.dodd < ldexp(1, v->out == CKPT_F32 ? 24 : 24 - po)))
		return;
	f->span = 22 - ceil_log2(x.c);
	/* (subnormal inputs, field 0, are left to the double steps) */
	f->lmin = p - x.e - 23 > 1 ? p - x.e - 23 : 1;
	f->a = (float)v->a;
	f->lambda = (float)v->lambda;
	f->dc = (float)v->dc;
	f->on = f->span >= 0;
}

static inline uint32_t bits_f(float x)
{
	uint32_t u;

	memcpy(&u, &x, sizeof u);
	return u;
}

/* A plain window's bound g (mblockint.h's plain_cut(): a key, as a
 * double's bits, or -1) for a float t: |t|'s key is above g where |t|'s
 * bits are above the result's, the largest float at most g's double. */
static int32_t float_cut(int64_t g)
{
	double d;
	float f;

	if (g < 0)
		return -1;
	if (g >= INT64_C(0x7ff0000000000000))
		return 0x7f800000;
	memcpy(&d, &g, sizeof d);
	f = (float)d;
	if ((double)f > d)
		f = nextafterf(f, 0);
	return (int32_t)bits_f(f);
}

static inline float keep_float(int32_t glo, int32_t ghi, float t)
{
	int32_t key = (int32_t)(bits_f(t) & 0x7fffffffu);

	return key > ghi && key <= glo ? 1.0f : 0.0f;
}

static inline float sign_f(float x)
{
	return x > 0 ? 1.0f : x < 0 ? -1.0f : 0.0f;
}

/* mquick.c's formula_f32() in float, into s->fres, for nx models, a way
 * of electing and keeps from rows or windows (constants, the caller's
 * switch); with each element's inputs tested against the bounds above,
 * 1 in fmiss where they are not (or its result is not finite).  Returns
 * how many are not. */
static inline __attribute__((always_inline)) uint32_t
formula(const ckpt_mvar *v, struct scratch *s, const float *const *in, size_t m, int masked,
        const int32_t *flo, const int32_t *fhi, size_t nx, int elects, int count, int keeps)
{
	const struct mfloat *fl = &s->fl;
	const float *b = in[0], *x[FUSED];
	const double *keep[FUSED];
	int32_t wlo[FUSED], whi[FUSED], span = fl->span, lmin = fl->lmin;
	uint64_t z[FUSED], limit = s->dlimit;
	int windowed = keeps == KEEP_WINDOWS;
	float w[FUSED], beta = v->m->kind == CKPT_SLERP ? 0 : 1, dc = fl->dc, a = fl->a;
	float lambda = fl->lambda, *restrict res = s->fres;
	int normalised = elects && v->m->normalize;
	uint32_t misses = 0;

	for (size_t k = 0; k < nx; k++) {
		x[k] = in[k + 1];
		keep[k] = keep_row(s, k, masked && keeps == KEEP_ROWS);
		w[k] = fl->w[k];
		wlo[k] = windowed ? flo[k] : 0;
		whi[k] = windowed ? fhi[k] : 0;
		z[k] = keeps == KEEP_DRAWS ? s->dz[k] : 0;
	}
	for (size_t i = 0; i < m; i++) {
		float bi = b[i], sh = 0, wh = 0, neg = 0, wneg = 0, votes = 0, d, dz, r;
		uint32_t big = bits_f(bi) & 0x7fffffffu, low = big - 1, eb, el, within, miss;

#pragma GCC unroll 4
		for (size_t k = 0; k < nx; k++) {
			float xk = x[k][i], t = xk - (elects ? 1 : beta) * bi;
			/* (as formula_f32()'s: a kept model's weight selected) */
			float kept = windowed ? keep_float(wlo[k], whi[k], t)
			                      : (float)draw_keep(z[k], i, limit);
			float q = keeps == KEEP_ROWS ? (float)keep[k][i] * w[k] : kept != 0 ? w[k] : 0.0f;
			float p = q * t;
			uint32_t u = bits_f(xk) & 0x7fffffffu;

			big = u > big ? u : big;
			low = u - 1 < low ? u - 1 : low; /* (0: UINT32_MAX) */
			if (!elects) {
				sh = sh + p;
				continue;
			}
			sh = sh + (p > 0 ? p : 0.0f);
			wh = wh + (p > 0 ? q : 0.0f);
			neg = neg + (p < 0 ? p : 0.0f);
			wneg = wneg + (p < 0 ? q : 0.0f);
			votes = votes + (count ? sign_f(p) : 0.0f);
		}
		if (elects && (count ? votes : sh + neg) < 0) {
			sh = neg;
			wh = wneg;
		}
		d = normalised ? dc * wh : dc;
		dz = d == 0 ? 1 : d;
		r = (a * dz * bi + lambda * sh) / dz + 0.0f;
		res[i] = r;
		eb = big >> 23;
		el = (low + 1) >> 23;
		within = ((int32_t)el >= lmin) & ((int32_t)eb < 255) & ((int32_t)(eb - el) <= span) &
		         ((bits_f(r) & 0x7fffffffu) < 0x7f800000u);
		miss = low == UINT32_MAX || within ? 0u : 1u; /* (every input 0: exact) */
		s->fmiss[i] = miss ? 1.0f : 0.0f;
		misses += miss;
	}
	return misses;
}

/* The elements not exact in float left undecided (hard, their results 0),
 * with their keep rows where they come from plain windows (gather() takes
 * them from the rows). */
CKPT_WIDE_VECTORS
static void undecided(const ckpt_mvar *v, struct scratch *s, const float *const *in, size_t m,
                      const int64_t *glo, const int64_t *ghi)
{
	for (size_t i = 0; i < m; i++) {
		s->hard[i] = s->fmiss[i];
		s->fres[i] = s->fmiss[i] != 0 ? 0.0f : s->fres[i];
	}
	for (size_t i = 0; glo && i < m; i++)
		for (size_t k = 0; s->fmiss[i] != 0 && k < v->nx; k++)
			s->keep[k * BLOCK + i] = in_plain_window(
			    glo[k], ghi[k], (int64_t)ckpt_magnitude_key_f32(in[k + 1][i], in[0][i]));
}

/* float to bfloat16, to nearest, ties to even (its top half rounded: no
 * NaN here); returns how many became infinities. */
static inline size_t to_bf16(const float *f, uint16_t *h, size_t m)
{
	uint32_t over = 0;

	for (size_t i = 0; i < m; i++) {
		uint32_t u = bits_f(f[i]), r = (u + 0x7fffu + (u >> 16 & 1)) >> 16;

		h[i] = (uint16_t)r;
		over += (r & 0x7fffu) == 0x7f80u ? 1u : 0u;
	}
	return over;
}

#define FLOAT_CASE(n, e, c, w)                                                     \
	case FORMULA_VARIANT(n, e, c, w):                                          \
		misses = formula(v, s, in, m, masked, flo, fhi, n, e, c, w);       \
		break;

CKPT_WIDE_VECTORS
int ckpt_mfloat(const ckpt_mvar *v, struct scratch *s, const float *const *in, void *out,
                size_t m, int masked, const int64_t *glo, const int64_t *ghi, size_t *bad)
{
	uint32_t misses = UINT32_MAX;
	int32_t flo[FUSED], fhi[FUSED];

	for (size_t k = 0; glo && k < v->nx; k++) {
		flo[k] = float_cut(glo[k]);
		fhi[k] = float_cut(ghi[k]);
	}
	switch (formula_variant(v, block_keeps(s, glo != NULL))) {
	FORMULA_VARIANTS(FLOAT_CASE)
	default: break;
	}
#undef FLOAT_CASE
	if (misses > FEW_UNDECIDED)
		return 0;
	if (misses)
		undecided(v, s, in, m, glo, ghi);
	if (v->out == CKPT_F32) {
		memcpy(out, s->fres, m * sizeof *s->fres);
	} else if (v->out == CKPT_BF16) {
		*bad += to_bf16(s->fres, out, m);
	} else {
		for (size_t i = 0; i < m; i++)
			s->res[i] = s->fres[i];
		*bad += ckpt_from_double(v->out, s->res, out, m);
	}
	return misses ? 2 : 1;
}
