/* mbounded.c - the merge methods' formula over a block of float inputs in
 * plain double arithmetic with a bound on its error, where no element is
 * exact (SLERP and model stock's coefficients, a lambda no power of two,
 * weights too fine for any element to be exact: -w 0.3,0.3,0.4):
 * mquick.c's bounded step, with or without an election. */
#include "convert.h"
#include "mblockint.h"
#include "methodint.h"
#include "vec.h"

/* r = a b + lambda S / D, and what it may be off by (*e) */
static inline double bounded_r(double a, double lambda, const struct scratch *s, double bi,
                               size_t i, double inv, double n, double *e)
{
	*e = n * 0x1p-50 * (fabs(a * bi) + fabs(lambda) * s->smag[i] * fabs(inv)) + 0x1p-1060;
	return a * bi + lambda * (s->shi[i] * inv);
}

/* The bounded step's end where its bounds rounded apart (hard): nowhere,
 * 1; for at most few, their lower bounds made 0 (not counted as
 * overflowing) and 2; for more, 0 (the block goes the general way). */
CKPT_WIDE_VECTORS
static int few_apart(struct scratch *s, size_t m, size_t few)
{
	uint64_t nh = 0;

	for (size_t i = 0; i < m; i++)
		nh += s->hard[i] != 0 ? 1u : 0u;
	if (nh == 0)
		return 1;
	if (nh > few)
		return 0;
	for (size_t i = 0; i < m; i++)
		s->rlo[i] = s->hard[i] != 0 ? 0 : s->rlo[i];
	return 2;
}

/* The bounds in rlo and rhi (the elements hard already among them) into
 * out, of any type: where every element's round alike, 1; else as
 * few_apart() says, at most few undecided. */
static int store_bounds(const ckpt_mvar *v, struct scratch *s, void *out, size_t m, size_t few,
                        size_t *bad)
{
	size_t es = ckpt_dtype_size(v->out), over;
	int done;

	over = ckpt_from_double(v->out, s->rlo, s->lo_out, m);
	ckpt_from_double(v->out, s->rhi, s->hi_out, m);
	if (memcmp(s->lo_out, s->hi_out, m * es) == 0 && all_zero(s->hard, m)) {
		memcpy(out, s->lo_out, m * es);
		*bad += over;
		return 1;
	}
	ckpt_mblock_undecided(s, m, es);
	if ((done = few_apart(s, m, few)) != 0) /* (the undecided as 0) */
		*bad += ckpt_from_double(v->out, s->rlo, out, m);
	return done;
}

/* ckpt_mbounded_f32()'s end into a 16-bit type: both bounds rounded into it */
CKPT_WIDE_VECTORS
static int bounded_narrow(const ckpt_mvar *v, struct scratch *s, const float *b, void *out,
                          size_t m, size_t *bad)
{
	double n = (double)v->nx + 10, inv = 1 / v->dc, a = v->a, lambda = v->lambda;
	uint64_t apart = 0;

	for (size_t i = 0; i < m; i++) {
		double e, r = bounded_r(a, lambda, s, b[i], i, inv, n, &e);

		s->rlo[i] = r - e;
		s->rhi[i] = r + e;
		s->hard[i] = 0;
		apart += !(e <= 0x1p1000) || !(fabs(r) <= 0x1.fffffffffffffp1023) ? 1u : 0u;
	}
	return apart ? 0 : store_bounds(v, s, out, m, FEW_UNDECIDED, bad);
}

/* S and its terms' sizes in plain double (shi, smag), each term added to
 * 0 in the models' order: element by element for up to FUSED models, nx
 * a constant (the caller's switch: the loop over the models unrolls, the
 * sums stay in registers and the loop vectorises), or a model at a time
 * over the block's arrays, zeroed first. */
static inline void plain_sums_f32(const ckpt_mvar *v, struct scratch *s, const float *const *in,
                                  size_t m, int masked, double beta, size_t nx)
{
	const float *b = in[0], *x[FUSED];
	const double *keep[FUSED];
	double w[FUSED], *restrict shi = s->shi, *restrict smag = s->smag;

	for (size_t k = 0; k < nx; k++) {
		x[k] = in[k + 1];
		keep[k] = keep_row(s, k, masked);
		w[k] = v->m->weights[k];
	}
	for (size_t i = 0; i < m; i++) {
		double sh = 0, sm = 0;

#pragma GCC unroll 4
		for (size_t k = 0; k < nx; k++) {
			double p = keep[k][i] * w[k] * ((double)x[k][i] - beta * (double)b[i]);

			sh = sh + p;
			sm = sm + fabs(p);
		}
		shi[i] = sh;
		smag[i] = sm;
	}
}

CKPT_WIDE_VECTORS
static void plain_sums_rows_f32(const ckpt_mvar *v, struct scratch *s, const float *const *in,
                                size_t m, int masked, double beta)
{
	const float *b = in[0];

	for (size_t i = 0; i < m; i++)
		s->shi[i] = s->smag[i] = 0;
	for (size_t k = 0; k < v->nx; k++) {
		const float *x = in[k + 1];
		const double *keep = keep_row(s, k, masked);
		double w = v->m->weights[k];

		for (size_t i = 0; i < m; i++) {
			double p = keep[i] * w * ((double)x[i] - beta * (double)b[i]);

			s->shi[i] += p;
			s->smag[i] += fabs(p);
		}
	}
}

/* Where the block is not exact (or no element can be) and nothing is
 * elected: ckpt_mquick()'s arithmetic and bound, from the float32 inputs
 * (times 1 / D rather than divided by D: two roundings for one, counted),
 * stored where every element's bounds round alike (else 0, nothing done:
 * the block goes the general way). */
CKPT_WIDE_VECTORS
int ckpt_mbounded_f32(const ckpt_mvar *v, struct scratch *s, const float *const *in, void *out,
                      size_t m, int masked, size_t *bad)
{
	const float *b = in[0];
	double n = (double)v->nx + 10, a = v->a, lambda = v->lambda, inv = 1 / v->dc;
	double beta = v->m->kind == CKPT_SLERP ? 0 : 1;
	uint64_t apart = 0, over = 0;
	int done;

	if (!isnormal(inv) || !isnormal(v->dc))
		return 0;
	switch (FUSED_LOOPS ? v->nx : 0) {
	case 1: plain_sums_f32(v, s, in, m, masked, beta, 1); break;
	case 2: plain_sums_f32(v, s, in, m, masked, beta, 2); break;
	case 3: plain_sums_f32(v, s, in, m, masked, beta, 3); break;
	case 4: plain_sums_f32(v, s, in, m, masked, beta, 4); break;
	default: plain_sums_rows_f32(v, s, in, m, masked, beta); break;
	}
	if (v->out != CKPT_F32)
		return bounded_narrow(v, s, b, out, m, bad);
	for (size_t i = 0; i < m; i++) {
		double bi = b[i], e, r = bounded_r(a, lambda, s, bi, i, inv, n, &e);
		double lo = (float)(r - e), hi = (float)(r + e);
		uint64_t l, h; /* (64-bit lanes throughout: the loop vectorises) */

		memcpy(&l, &lo, sizeof l);
		memcpy(&h, &hi, sizeof h);
		apart += !(e <= 0x1p1000) || !(fabs(r) <= 0x1.fffffffffffffp1023) ? 1u : 0u;
		s->hard[i] = l != h ? 1.0 : 0.0;
		s->rlo[i] = lo;
	}
	if (apart || !(done = few_apart(s, m, FEW_UNDECIDED)))
		return 0;
	for (size_t i = 0; i < m; i++) {
		float lo = (float)s->rlo[i];

		over += fabsf(lo) > 0x1.fffffep127f ? 1u : 0u;
		((float *)out)[i] = lo;
	}
	*bad += over;
	return done;
}

/* ---- with an election ------------------------------------------------ */

/* Whether the bounded election below takes v's blocks: up to FUSED models
 * (in one loop), every weight 0 or within 2^-800 .. 2^800 (so that no
 * term of a float input underflows to 0 and drops out of the vote). */
int ckpt_melect_applies(const ckpt_mvar *v)
{
	if (!FUSED_LOOPS || v->nx > FUSED || !ckpt_method_elects(v->m->kind))
		return 0;
	for (size_t k = 0; k < v->nx; k++) {
		double w = fabs(v->m->weights[k]);

		if (w != 0 && !(w >= 0x1p-800 && w <= 0x1p800))
			return 0;
	}
	return 1;
}

/* ckpt_mquick()'s election and formula element by element, nx models in
 * one loop (count, equal: how the sign is elected, whether equal_c applies;
 * constants, as formula_f32()'s).  The kept terms p = keep w t above 0 and
 * those below are summed apart (a model agrees with the elected sign
 * exactly where p has it): their sum's sign is the vote's where it lies
 * beyond its bound (else hard), and the elected side's sum S (of terms of
 * one sign: |S| their sizes' sum) gives r = (a D b + lambda S) / D, with
 * E = n 2^-50 (|a b| + |lambda| |S| / D) - or, where the agreeing models
 * have one weight and the element is within the span of weights of 1,
 * exactly from their task vectors' sum and number (ckpt_mquick_equal_
 * constant()).  A NaN or an infinity among the inputs: hard. */
static inline __attribute__((always_inline)) void
elect_f32(const ckpt_mvar *v, struct scratch *s, const float *const *in, size_t m, int masked,
          const int64_t *glo, const int64_t *ghi, size_t nx, int count, int equal, int windowed)
{
	const float *b = in[0], *x[FUSED];
	const double *keep[FUSED];
	int64_t wlo[FUSED], whi[FUSED];
	double w[FUSED], n = (double)v->nx + 8, a = v->a, lambda = v->lambda, dc = v->dc;
	double cu = s->equal_c;
	/* (restrict: else GCC checks its arrays for overlaps, and for some of
	 * these loops took the scalar version the check leaves) */
	double *restrict rlo = s->rlo, *restrict rhi = s->rhi, *restrict hard = s->hard;
	int normalised = v->m->normalize;

	for (size_t k = 0; k < nx; k++) {
		x[k] = in[k + 1];
		keep[k] = keep_row(s, k, masked);
		w[k] = v->m->weights[k];
		wlo[k] = windowed ? glo[k] : 0;
		whi[k] = windowed ? ghi[k] : 0;
	}
	for (size_t i = 0; i < m; i++) {
		double bi = b[i], big = fabs(bi), least = bi != 0 ? fabs(bi) : INFINITY;
		double odd = fabs(bi) <= 0x1.fffffep127 ? 0.0 : 1.0; /* NaN, Inf */
		double sp = 0, wp = 0, sn = 0, wn = 0, votes = 0;
		double up = 0, cp = 0, un = 0, cn = 0, lp = INFINITY, hp = -INFINITY;
		double ln = INFINITY, hn = -INFINITY;

#pragma GCC unroll 4
		for (size_t k = 0; k < nx; k++) {
			double xk = x[k][i], ax = fabs(xk), t = xk - bi;
			double kp = windowed ? keep_t(wlo[k], whi[k], t) : keep[k][i];
			double q = kp * w[k], p = q * t;
			int pos = p > 0, neg = p < 0;

			odd = ax <= 0x1.fffffep127 ? odd : 1.0;
			big = ax > big ? ax : big;
			least = ax < least ? (ax != 0 ? ax : least) : least;
			sp = sp + (pos ? p : 0.0);
			wp = wp + (pos ? q : 0.0);
			sn = sn + (neg ? p : 0.0);
			wn = wn + (neg ? q : 0.0);
			votes = votes + (count ? sign_d(p) : 0.0);
			if (equal) {
				up = up + (pos ? kp * t : 0.0);
				cp = cp + (pos ? kp : 0.0);
				un = un + (neg ? kp * t : 0.0);
				cn = cn + (neg ? kp : 0.0);
				lp = pos ? (w[k] < lp ? w[k] : lp) : lp;
				hp = pos ? (w[k] > hp ? w[k] : hp) : hp;
				ln = neg ? (w[k] < ln ? w[k] : ln) : ln;
				hn = neg ? (w[k] > hn ? w[k] : hn) : hn;
			}
		}
		/* (only zeros kept, sp - sn 0: none agrees, whatever the sign; and
		 * selects throughout, no branches: the loop vectorises) */
		double el = count ? votes : sp + sn;
		double sure = fabs(sp + sn) > (n + 2) * 0x1p-52 * (sp - sn) + 0x1p-1060 ? 1.0 : 0.0;
		double S = el >= 0 ? sp : sn, wa = el >= 0 ? wp : wn, uc = el >= 0 ? cp : cn;
		double one = el >= 0 ? (lp == hp ? 1.0 : 0.0) : (ln == hn ? 1.0 : 0.0);
		double span = big * cu <= least * 0x1p53 ? one : 0.0;
		double by_count = equal ? (uc != 0 ? span : 0.0) : 0.0;
		double d = normalised ? dc * wa : dc, dz = d == 0 ? 1 : d;
		double du = by_count != 0 ? dc * uc : dz;
		double sum = by_count != 0 ? (el >= 0 ? up : un) : S, h;

		sure = sp - sn == 0 ? 1.0 : sure;
		sure = count ? 1.0 : sure;
		h = sure == 0 ? 1.0 : odd;
		quotient_bounds(a, lambda, bi, du, sum, dz, fabs(S), n, by_count, &rlo[i], &rhi[i], &h);
		hard[i] = h;
	}
}

#define ELECT_CASE(n, c, e, w)                                                     \
	case 8 * (n) + 4 * (c) + 2 * (e) + (w):                                    \
		elect_f32(v, s, in, m, masked, glo, ghi, n, c, e, w);              \
		break;
#define ELECT_CASES_W(n, c, e) ELECT_CASE(n, c, e, 0) ELECT_CASE(n, c, e, 1)
#define ELECT_CASES(n)                                                             \
	ELECT_CASES_W(n, 0, 0) ELECT_CASES_W(n, 0, 1) ELECT_CASES_W(n, 1, 0) ELECT_CASES_W(n, 1, 1)

/* Where the block is not exact and an election is held (ckpt_melect_
 * applies()), from the keep rows or (glo not NULL) the plain windows:
 * returns as ckpt_mquick_f32() does. */
CKPT_WIDE_VECTORS
int ckpt_melect_f32(const ckpt_mvar *v, struct scratch *s, const float *const *in, void *out,
                    size_t m, int masked, const int64_t *glo, const int64_t *ghi, size_t *bad)
{
	switch (8 * v->nx + 4 * (v->m->sign_count != 0) + 2 * (s->equal_c != 0) + (glo != NULL)) {
	ELECT_CASES(1)
	ELECT_CASES(2)
	ELECT_CASES(3)
	ELECT_CASES(4)
	default: return 0;
	}
#undef ELECT_CASES
#undef ELECT_CASES_W
#undef ELECT_CASE
	/* (the pending elements' room the limit: weights of many bits leave a
	 * tenth of some blocks undecided, which would otherwise be done twice) */
	return store_bounds(v, s, out, m, BLOCK - s->npend, bad);
}
