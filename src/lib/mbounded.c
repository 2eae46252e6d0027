/* mbounded.c - the merge methods' formula over a block of float inputs in
 * plain double arithmetic with a bound on its error, where no element is
 * exact and nothing is elected (SLERP and model stock's coefficients, a
 * lambda no power of two): mquick.c's bounded step. */
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
 * 1; for a few, their lower bounds made 0 (not counted as overflowing) and
 * 2; for more, 0 (the block goes the general way). */
CKPT_WIDE_VECTORS
static int few_apart(struct scratch *s, size_t m)
{
	uint64_t nh = 0;

	for (size_t i = 0; i < m; i++)
		nh += s->hard[i] != 0 ? 1u : 0u;
	if (nh == 0)
		return 1;
	if (nh > FEW_UNDECIDED)
		return 0;
	for (size_t i = 0; i < m; i++)
		s->rlo[i] = s->hard[i] != 0 ? 0 : s->rlo[i];
	return 2;
}

/* ckpt_mbounded_f32()'s end into a 16-bit type: both bounds rounded into it */
CKPT_WIDE_VECTORS
static int bounded_narrow(const ckpt_mvar *v, struct scratch *s, const float *b, void *out,
                          size_t m, size_t *bad)
{
	double n = (double)v->nx + 10, inv = 1 / v->dc, a = v->a, lambda = v->lambda;
	size_t es = ckpt_dtype_size(v->out), over;
	uint64_t apart = 0;
	int done;

	for (size_t i = 0; i < m; i++) {
		double e, r = bounded_r(a, lambda, s, b[i], i, inv, n, &e);

		s->rlo[i] = r - e;
		s->rhi[i] = r + e;
		s->hard[i] = 0;
		apart += !(e <= 0x1p1000) || !(fabs(r) <= 0x1.fffffffffffffp1023) ? 1u : 0u;
	}
	if (apart)
		return 0;
	over = ckpt_from_double(v->out, s->rlo, s->lo_out, m);
	ckpt_from_double(v->out, s->rhi, s->hi_out, m);
	if (memcmp(s->lo_out, s->hi_out, m * es) == 0) {
		memcpy(out, s->lo_out, m * es);
		*bad += over;
		return 1;
	}
	ckpt_mblock_undecided(s, m, es);
	if ((done = few_apart(s, m)) != 0) /* (the few as 0) */
		*bad += ckpt_from_double(v->out, s->rlo, out, m);
	return done;
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
	if (apart || !(done = few_apart(s, m)))
		return 0;
	for (size_t i = 0; i < m; i++) {
		float lo = (float)s->rlo[i];

		over += fabsf(lo) > 0x1.fffffep127f ? 1u : 0u;
		((float *)out)[i] = lo;
	}
	*bad += over;
	return done;
}
