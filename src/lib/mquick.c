/* mquick.c - the merge methods' formula over a block in plain double
 * arithmetic, with a bound on its error: where both ends of the bound
 * round alike (or the arithmetic is exact) that is the result; the rest
 * of the block is left to mblock.c's double-double and exact steps. */
#include "convert.h"
#include "mblockint.h"
#include "methodint.h"
#include "vec.h"

#include <limits.h>

/* Whether plain double arithmetic can decide a type's rounding: not
 * float64's, and not a normalised election with negative weights (whose
 * sum may cancel). */
int ckpt_mquick_applies(const ckpt_mvar *v)
{
	int negative = 0;

	for (size_t k = 0; k < v->nx; k++)
		negative |= v->m->weights[k] < 0;
	return v->out != CKPT_F64 && isfinite(v->a) && isfinite(v->lambda) &&
	       !(negative && ckpt_method_elects(v->m->kind) && v->m->normalize);
}

/* The exponent of x's lowest set bit (x a multiple of 2^that); INT_MAX
 * for 0, which constrains nothing; for NaN and Inf, less than any
 * double's (nothing is exact). */
static int low_bit(double x)
{
	int e;
	uint64_t m;

	if (x == 0)
		return INT_MAX;
	if (!isfinite(x))
		return -100000;
	m = (uint64_t)ldexp(fabs(frexp(x, &e)), 53);
	return e - 53 + __builtin_ctzll(m);
}

static int least_of(int a, int b)
{
	return a < b ? a : b;
}

/* x's odd part: x / 2^low_bit(x). */
static double odd_part(double x)
{
	return x == 0 ? 0 : ldexp(fabs(x), -low_bit(x));
}

/* Where plain double arithmetic is exact, r computed as (a D b + lambda S)
 * / D.  D is dc, or (a normalised election) dc times the agreeing weights'
 * sum: at most Dmax, a multiple of 2^lD.  Every input is a multiple of
 * the least nonzero one's last place g >= least 2^-p, every coefficient
 * one of 2^(its lowest bit); so every quantity of that computation - x_k
 * - b, each term, the partial sums (S's, the election's, the weights'), a
 * D b, lambda S, their sum - is a multiple of g 2^E (E the least of their
 * exponents and 0) of size at most M big (M = max(2 W, |a| Dmax + 2
 * |lambda| W), W the weights' total size): when M big <= 2^53 g 2^E, and
 * a D has at most 53 bits, all are doubles and the arithmetic exact.
 * Then D = d 2^f with d odd below 2^28, and the one rounding of the
 * quotient to a double cannot put it on a point halfway between two values
 * of a narrow type that r is not (f32mean.c's argument, scaled by 2^f).
 * Returns C such that big C <= least 2^53 says so for an element; 0 where
 * no element can be (wide inputs, coefficients of many bits). */
static double exact_terms(const ckpt_mvar *v, const double *weights, struct ckpt_exact_terms *x)
{
	int normalised = ckpt_method_elects(v->m->kind) && v->m->normalize;
	double w = 0, dmax, m, c;
	int p = 0, lw = INT_MAX, ld, e;

	for (size_t k = 0; k <= v->nx; k++) /* (the widest: the most places) */
		p = ckpt_dtype_precision(v->types[k]) > p ? ckpt_dtype_precision(v->types[k]) : p;
	for (size_t k = 0; k < v->nx; k++) {
		w += fabs(weights ? weights[k] : 1.0);
		lw = least_of(lw, low_bit(weights ? weights[k] : 1.0));
	}
	w *= 1 + 0x1p-40; /* (an upper bound of the rounded sum) */
	if (!(v->dc > 0) || !isfinite(v->dc) || !isfinite(w) || lw < -600 || w == 0)
		return 0;
	dmax = normalised ? v->dc * w : v->dc;
	ld = low_bit(v->dc) + (normalised ? lw : 0);
	if (!(ldexp(dmax, -ld) < 0x1p28) || odd_part(v->a) * ldexp(dmax, -ld) >= 0x1p53)
		return 0;
	e = least_of(0, least_of(lw, least_of(low_bit(v->lambda) + least_of(lw, 0),
	                                      low_bit(v->a) == INT_MAX ? 0 : low_bit(v->a) + ld)));
	m = fabs(v->a) * dmax + 2 * fabs(v->lambda) * w;
	m = m > 2 * w ? m : 2 * w;
	if (e < -600 || !(m < 0x1p60))
		return 0;
	c = m * ldexp(1, p - e);
	if (!(c <= 0x1p50))
		return 0;
	*x = (struct ckpt_exact_terms){c, ldexp(dmax, -ld), e};
	return c;
}

static double exact_constant(const ckpt_mvar *v, const double *weights)
{
	struct ckpt_exact_terms x;

	return exact_terms(v, weights, &x);
}

int ckpt_mquick_exact_terms(const ckpt_mvar *v, struct ckpt_exact_terms *x)
{
	return exact_terms(v, v->m->weights, x) != 0;
}

double ckpt_mquick_exact_constant(const ckpt_mvar *v)
{
	return exact_constant(v, v->m->weights);
}

/* A normalised election's result depends on the agreeing weights only
 * through their ratios: where they are all one weight, r is (a D b +
 * lambda S) / D with S the agreeing task vectors' sum and D dc times their
 * number, as with weights of 1.  Where the weights make no element exact
 * (0.3, 0.3, 0.4: not multiples of a power of two that fits), that is
 * what decides the elements whose r lies on a tie of the stored type (two
 * of the three agree: the mean of two floats, half of them on a tie) -
 * which bounds never decide, and which the exact step took (a fiftieth of
 * the bench models' elements: TIES 2.5 times, DARE-TIES 11 times as long).
 * Returns ckpt_mquick_exact_constant() for weights of 1 where that applies
 * (0 elsewhere, and where every element is exact already). */
double ckpt_mquick_equal_constant(const ckpt_mvar *v, double exact_c)
{
	if (exact_c != 0 || !ckpt_method_elects(v->m->kind) || !v->m->normalize)
		return 0;
	return exact_constant(v, NULL);
}

static int float_holds(ckpt_dtype t)
{
	return t == CKPT_F32 || t == CKPT_BF16 || t == CKPT_F16;
}

/* Whether the float32 step below applies to v (some element exact,
 * nothing elected, or the bounded election takes the blocks that are not:
 * ckpt_melect_applies()): 1 where every input and the output are float32; 2
 * where they are float16, bfloat16 or float32 but not all float32 (the
 * inputs widened to float exactly, block by block). */
int ckpt_mquick_f32_applies(const ckpt_mvar *v, double exact_c)
{
	int all = v->out == CKPT_F32;

	if (!float_holds(v->out) || !ckpt_mquick_applies(v))
		return 0;
	for (size_t k = 0; k <= v->nx; k++) {
		if (!float_holds(v->types[k]))
			return 0;
		all &= v->types[k] == CKPT_F32;
	}
	if (exact_c == 0 && ckpt_method_elects(v->m->kind) && !ckpt_melect_applies(v))
		return 0;
	return all ? 1 : 2;
}

/* Whether every element of the block lies within the exact span:
 * the largest magnitude of all its inputs and the least nonzero one (as
 * bits: their order is the magnitudes'), a stricter test than each
 * element's own. */
CKPT_WIDE_VECTORS
static int block_exact(const float *const *in, size_t nin, size_t m, double c)
{
	uint32_t big = 0, low = UINT32_MAX; /* low: least nonzero - 1 */
	float fb, fl;

	for (size_t k = 0; k < nin; k++)
		for (size_t i = 0; i < m; i++) {
			uint32_t a;

			memcpy(&a, &in[k][i], sizeof a);
			a &= 0x7fffffffu;
			big = a > big ? a : big;
			low = a - 1 < low ? a - 1 : low; /* (0: UINT32_MAX) */
		}
	if (big >= 0x7f800000u)
		return 0;
	if (low == UINT32_MAX)
		return 1;
	low++;
	memcpy(&fb, &big, sizeof fb);
	memcpy(&fl, &low, sizeof fl);
	return (double)fb * c <= (double)fl * 0x1p53;
}

/* The models' magnitude windows over the block into their keep rows
 * (mblock.c's magnitude_window() from float32 inputs: the base's, then the
 * models'). */
CKPT_WIDE_VECTORS
static void magnitude_window_f32(const ckpt_mvar *v, struct scratch *s, const float *const *in,
                                 uint64_t start, size_t m)
{
	for (size_t k = 0; k < v->nx; k++) {
		const float *x = in[k + 1], *b = in[0];
		double *keep = s->keep + k * BLOCK;
		ckpt_rank_cut lo = v->lo[k], hi = v->hi[k];
		int64_t glo, ghi;
		int plain = plain_cut(&lo, start, m, &glo) && plain_cut(&hi, start, m, &ghi);

		for (size_t i = 0; plain && i < m; i++)
			keep[i] = in_plain_window(glo, ghi, (int64_t)ckpt_magnitude_key_f32(x[i], b[i]));
		for (size_t i = 0; !plain && i < m; i++)
			keep[i] = in_window(&lo, &hi, (int64_t)ckpt_magnitude_key_f32(x[i], b[i]),
			                    (int64_t)(start + i));
	}
}

/* The formula at each element of a block within the exact span, into res
 * (exact sums, one rounding of the quotient: the same bits whatever the
 * order of the terms).
 *
 * For up to FUSED models, element by element in one loop, for nx models,
 * a way of electing (none, by sum, by count) and where the keeps come
 * from (the rows, or each model's magnitude window tested on the task
 * vector as it is computed) that are constants (the caller's switch: as
 * variables, the loop stays scalar; and inlined always, lest GCC make a
 * clone of its own with some of them variables again), so that the loops
 * over the models unroll, the sums stay in registers and the loop
 * vectorises: a quarter less time than a loop per model over the block's
 * arrays (TIES, 3 models), which is what more models take.
 *
 * An election needs no second loop over the models: a model agrees with
 * the elected sign e exactly where its kept term p = keep w t has the
 * sign e (sw sign(t) = e; p = 0, kept or not, never agrees).  So the terms
 * above 0 and those below are summed apart, with their weights, and e
 * picks one of the two - the sum of all is their sum, a count of votes
 * the sum of the terms' signs. */

static inline __attribute__((always_inline)) void
formula_f32(const ckpt_mvar *v, struct scratch *s, const float *const *in, size_t m, int masked,
            const int64_t *glo, const int64_t *ghi, size_t nx, int elects, int count, int keeps)
{
	const float *b = in[0], *x[FUSED];
	const double *keep[FUSED];
	int64_t wlo[FUSED], whi[FUSED];
	uint64_t z[FUSED], limit = s->dlimit;
	double beta = v->m->kind == CKPT_SLERP ? 0 : 1, dc = v->dc, a = v->a, lambda = v->lambda;
	double w[FUSED], *restrict res = s->res;
	int normalised = elects && v->m->normalize, windowed = keeps == KEEP_WINDOWS;

	for (size_t k = 0; k < nx; k++) {
		x[k] = in[k + 1];
		keep[k] = keep_row(s, k, masked && keeps == KEEP_ROWS);
		w[k] = v->m->weights[k];
		wlo[k] = windowed ? glo[k] : 0;
		whi[k] = windowed ? ghi[k] : 0;
		z[k] = keeps == KEEP_DRAWS ? s->dz[k] : 0;
	}
	for (size_t i = 0; i < m; i++) {
		double bi = b[i], sh = 0, wh = 0, neg = 0, wneg = 0, votes = 0, d, dz;

#pragma GCC unroll 4
		for (size_t k = 0; k < nx; k++) {
			/* (beta is 1 where electing: so a constant, no product) */
			double t = (double)x[k][i] - (elects ? 1 : beta) * bi;
			/* (a kept model's weight selected, not a flag's product:
			 * the same value, +0 for -0 where w < 0, which no sum
			 * or election tells apart) */
			double kept = windowed ? keep_t(wlo[k], whi[k], t) : draw_keep(z[k], i, limit);
			double q = keeps == KEEP_ROWS ? keep[k][i] * w[k] : kept != 0 ? w[k] : 0.0;
			double p = q * t;

			if (!elects) {
				sh = sh + p;
				continue;
			}
			sh = sh + (p > 0 ? p : 0.0);
			wh = wh + (p > 0 ? q : 0.0);
			neg = neg + (p < 0 ? p : 0.0);
			wneg = wneg + (p < 0 ? q : 0.0);
			votes = votes + (count ? sign_d(p) : 0.0);
		}
		if (elects && (count ? votes : sh + neg) < 0) {
			sh = neg;
			wh = wneg;
		}
		d = normalised ? dc * wh : dc;
		dz = d == 0 ? 1 : d;
		res[i] = (a * dz * bi + lambda * sh) / dz + 0.0; /* (+0, not -0) */
	}
}

static inline double vote(int count, double keep, double w, double sw, double t)
{
	return count ? keep * sw * sign_d(t) : keep * w * t;
}

/* The same a model at a time (any number of them): the sums in the
 * block's arrays, zeroed first (clang vectorises these loops only so). */
CKPT_WIDE_VECTORS
static void formula_rows_f32(const ckpt_mvar *v, struct scratch *s, const float *const *in,
                             size_t m, int masked)
{
	const float *b = in[0];
	double beta = v->m->kind == CKPT_SLERP ? 0 : 1, dc = v->dc, a = v->a, lambda = v->lambda;
	int elects = ckpt_method_elects(v->m->kind), normalised = elects && v->m->normalize;
	int count = v->m->sign_count;

	memset(s->shi, 0, m * sizeof *s->shi);
	if (elects) {
		memset(s->whi, 0, m * sizeof *s->whi);
		memset(s->res, 0, m * sizeof *s->res);
	}
	for (size_t k = 0; elects && k < v->nx; k++) {
		const float *x = in[k + 1];
		const double *keep = keep_row(s, k, masked);
		double w = v->m->weights[k], sw = sign_d(w);

		for (size_t i = 0; i < m; i++)
			s->res[i] += vote(count, keep[i], w, sw, (double)x[i] - (double)b[i]);
	}
	for (size_t i = 0; elects && i < m; i++)
		s->res[i] = s->res[i] >= 0 ? 1.0 : -1.0;
	for (size_t k = 0; !elects && k < v->nx; k++) {
		const float *x = in[k + 1];
		const double *keep = keep_row(s, k, masked);
		double w = v->m->weights[k];

		for (size_t i = 0; i < m; i++)
			s->shi[i] += keep[i] * w * ((double)x[i] - beta * (double)b[i]);
	}
	for (size_t k = 0; elects && k < v->nx; k++) {
		const float *x = in[k + 1];
		const double *keep = keep_row(s, k, masked);
		double w = v->m->weights[k], sw = sign_d(w);

		for (size_t i = 0; i < m; i++) {
			double t = (double)x[i] - (double)b[i], kp = keep[i];

			kp = agrees(t, sw, s->res[i]) ? kp : 0.0;
			s->shi[i] += kp * w * t;
			s->whi[i] += kp * w;
		}
	}
	for (size_t i = 0; i < m; i++) {
		double d = normalised ? dc * s->whi[i] : dc, dz = d == 0 ? 1 : d;

		s->res[i] = (a * dz * (double)b[i] + lambda * s->shi[i]) / dz + 0.0;
	}
}

/* (formula_f32() for each of its variants) */
#define FORMULA_CASE(n, e, c, w)                                                   \
	case FORMULA_VARIANT(n, e, c, w):                                          \
		formula_f32(v, s, in, m, masked, glo, ghi, n, e, c, w);            \
		break;

/* r = (a D b + lambda S) / D, from the float32 inputs (in: the base, then the
 * models, at the block) where the block is within the exact span: one
 * rounding (ckpt_mquick_exact_constant()), into out of v's output type.
 * Returns 0 (nothing done) where it is not; else 1, with the overflowed
 * values added to *bad. */
CKPT_WIDE_VECTORS
int ckpt_mquick_f32(const ckpt_mvar *v, struct scratch *s, const float *const *in, void *out,
                    uint64_t start, size_t m, int masked, size_t *bad)
{
	int elects = ckpt_method_elects(v->m->kind), ranks = ckpt_method_ranks(v->m->kind);
	int64_t glo[FUSED], ghi[FUSED];
	int plain = ranks && FUSED_LOOPS && v->nx <= FUSED && plain_windows(v, start, m, glo, ghi);
	int rows = 0, exact, windowed;

	if (s->fl.on) { /* (where every element is exact in float) */
		if (ranks && !plain) {
			magnitude_window_f32(v, s, in, start, m);
			rows = 1;
		}
		int done = ckpt_mfloat(v, s, in, out, m, masked, plain ? glo : NULL, ghi, bad);

		if (done)
			return done;
	}
	exact = s->exact_c != 0 && block_exact(in, v->nx + 1, m, s->exact_c);
	windowed = (exact || elects) && plain;
	if (!exact && elects && !s->melect)
		return 0;
	if (ranks && !windowed && !rows)
		magnitude_window_f32(v, s, in, start, m);
	if (!exact)
		ckpt_mblock_keep_rows(v, s, start, m);
	if (!exact && elects) {
		int done = ckpt_melect_f32(v, s, in, out, m, masked, windowed ? glo : NULL, ghi, bad);

		if (done == 2 && windowed) /* (gather() takes the undecided from the rows) */
			magnitude_window_f32(v, s, in, start, m);
		return done;
	}
	if (!exact)
		return ckpt_mbounded_f32(v, s, in, out, m, masked, bad);
	switch (FUSED_LOOPS ? formula_variant(v, block_keeps(s, windowed)) : 0) {
	FORMULA_VARIANTS(FORMULA_CASE)
	default: formula_rows_f32(v, s, in, m, masked); break;
	}
#undef FORMULA_CASE
	*bad += ckpt_from_double(v->out, s->res, out, m);
	return 1;
}

/* float32 out: both bounds rounded and compared as bits (-0 is not +0:
 * hard where they differ), the lower one stored (0 for an undecided one,
 * whose place is filled later); returns how many overflowed.  (An integer
 * count: a sum of doubles would not vectorise.) */
CKPT_WIDE_VECTORS
static size_t quick_f32(struct scratch *s, float *out, size_t m)
{
	uint64_t over = 0;

	for (size_t i = 0; i < m; i++) {
		double lo = (float)s->rlo[i], hi = (float)s->rhi[i], h;
		uint64_t a, b; /* (64-bit lanes throughout: the loop vectorises) */

		memcpy(&a, &lo, sizeof a);
		memcpy(&b, &hi, sizeof b);
		h = a != b ? 1.0 : s->hard[i];
		s->hard[i] = h;
		lo = h != 0 ? 0.0 : lo;
		over += fabs(lo) > 0x1.fffffep127 ? 1u : 0u;
		out[i] = (float)lo;
	}
	return over;
}

/* Each element's largest input magnitude and least nonzero one, into big
 * and least. */
CKPT_WIDE_VECTORS
static void inputs_span(const ckpt_mvar *v, struct scratch *s, size_t m)
{
	for (size_t i = 0; i < m; i++) {
		s->big[i] = 0;
		s->least[i] = INFINITY;
		track(s->b[i], &s->big[i], &s->least[i]);
	}
	for (size_t k = 0; k < v->nx; k++)
		for (size_t i = 0; i < m; i++)
			track(s->x[k * BLOCK + i], &s->big[i], &s->least[i]);
}

/* Whether each element is within the exact span (1 or 0, in exact), and
 * within that of weights of 1 (in uexact, where equal_c says so). */
CKPT_WIDE_VECTORS
static void exact_elements(const ckpt_mvar *v, struct scratch *s, size_t m)
{
	double c = s->exact_c, cu = s->equal_c;

	if (c == 0)
		memset(s->exact, 0, m * sizeof *s->exact);
	if (c == 0 && cu == 0)
		return;
	inputs_span(v, s, m);
	for (size_t i = 0; c != 0 && i < m; i++)
		s->exact[i] = s->big[i] * c <= s->least[i] * 0x1p53 ? 1.0 : 0.0;
	for (size_t i = 0; cu != 0 && i < m; i++)
		s->uexact[i] = s->big[i] * cu <= s->least[i] * 0x1p53 ? 1.0 : 0.0;
}

/* The agreeing models' sums (the elected sign in res): S, its terms'
 * sizes and their weights' sum; with equal (a constant: a loop each way),
 * also their task vectors' sum (ush), their number (ucount), and in uexact
 * whether an element has some, all of one weight (and was within the
 * span of weights of 1). */
static inline __attribute__((always_inline)) void
agreeing(const ckpt_mvar *v, struct scratch *s, size_t m, int masked, int equal)
{
	for (size_t i = 0; equal && i < m; i++) {
		s->ush[i] = s->ucount[i] = 0;
		s->wmin[i] = INFINITY;
		s->wmax[i] = -INFINITY;
	}
	for (size_t k = 0; k < v->nx; k++) {
		const double *x = s->x + k * BLOCK, *keep = keep_row(s, k, masked);
		double w = v->m->weights[k], sw = sign_d(w);

		for (size_t i = 0; i < m; i++) {
			double t = x[i] - s->b[i], kp = keep[i], p;

			kp = agrees(t, sw, s->res[i]) ? kp : 0.0;
			p = kp * w * t;
			s->shi[i] += p;
			s->smag[i] += fabs(p);
			s->whi[i] += kp * w;
			if (equal) {
				double lo = kp != 0 ? w : INFINITY, hi = kp != 0 ? w : -INFINITY;

				s->ush[i] += kp * t;
				s->ucount[i] += kp;
				s->wmin[i] = s->wmin[i] < lo ? s->wmin[i] : lo;
				s->wmax[i] = s->wmax[i] > hi ? s->wmax[i] : hi;
			}
		}
	}
	for (size_t i = 0; equal && i < m; i++)
		s->uexact[i] = s->ucount[i] != 0 && s->wmin[i] == s->wmax[i] ? s->uexact[i] : 0.0;
}

/* S and its terms' sizes in plain double where no election drops terms:
 * two models a pass (half the passes over the sums). */
CKPT_WIDE_VECTORS
static void add_models(const ckpt_mvar *v, struct scratch *s, size_t m, int masked,
                       double beta)
{
	size_t k = 0;

	for (; k + 1 < v->nx; k += 2) {
		const double *x = s->x + k * BLOCK, *y = x + BLOCK;
		const double *kx = keep_row(s, k, masked), *ky = keep_row(s, k + 1, masked);
		double wx = v->m->weights[k], wy = v->m->weights[k + 1];

		for (size_t i = 0; i < m; i++) {
			double p = kx[i] * wx * (x[i] - beta * s->b[i]);
			double q = ky[i] * wy * (y[i] - beta * s->b[i]);

			s->shi[i] = s->shi[i] + p + q;
			s->smag[i] = s->smag[i] + fabs(p) + fabs(q);
		}
	}
	for (; k < v->nx; k++) {
		const double *x = s->x + k * BLOCK, *kx = keep_row(s, k, masked);
		double wx = v->m->weights[k];

		for (size_t i = 0; i < m; i++) {
			double p = kx[i] * wx * (x[i] - beta * s->b[i]);

			s->shi[i] += p;
			s->smag[i] += fabs(p);
		}
	}
}

/* r and its bounds (rlo, rhi) from the sums, hard where they are out of
 * range; with equal (a constant: the other loop divides once), r where
 * the agreeing models have one weight from agreeing()'s sums. */
static inline __attribute__((always_inline)) void
results(const ckpt_mvar *v, struct scratch *s, size_t m, int equal)
{
	double n = (double)v->nx + 8, a = v->a, lambda = v->lambda, dc = v->dc;
	int normalised = ckpt_method_elects(v->m->kind) && v->m->normalize;

	for (size_t i = 0; i < m; i++) {
		double wa = s->whi[i], d = normalised ? dc * wa : dc, dz = d == 0 ? 1 : d;
		double exact = s->exact[i], uexact = equal ? s->uexact[i] : 0.0;
		int by_count = equal && uexact != 0 && exact == 0;
		/* (one division: where no model is kept, S is 0 and r = a b) */
		double du = by_count ? dc * s->ucount[i] : dz, sum = by_count ? s->ush[i] : s->shi[i];

		quotient_bounds(a, lambda, s->b[i], du, sum, dz, s->smag[i], n,
		                exact != 0 || uexact != 0 ? 1.0 : 0.0, &s->rlo[i], &s->rhi[i],
		                &s->hard[i]);
	}
}

/* The block in plain double arithmetic from the inputs x and b, with a
 * bound E on its error (every rounding at most 2^-53 of the terms' sizes,
 * n + 8 of them counted twice over): where r - E and r + E round to the
 * same value of the stored type, so does the exact r, stored into out.
 * Elements left undecided (hard): an input or a bound not finite, the
 * bounds rounding apart, an election whose sum is within its bound of 0.
 * Returns how many stored values overflowed. */
CKPT_WIDE_VECTORS
size_t ckpt_mquick(const ckpt_mvar *v, struct scratch *s, void *out, size_t m, int masked)
{
	double n = (double)v->nx + 8, beta = v->m->kind == CKPT_SLERP ? 0 : 1;
	int elects = ckpt_method_elects(v->m->kind), count = v->m->sign_count;

	for (size_t i = 0; i < m; i++) {
		s->shi[i] = s->smag[i] = s->whi[i] = 0;
		s->hard[i] = 0;
		s->res[i] = 1; /* the elected sign */
	}
	exact_elements(v, s, m);
	if (elects) {
		for (size_t k = 0; k < v->nx; k++) {
			const double *x = s->x + k * BLOCK, *keep = keep_row(s, k, masked);
			double w = v->m->weights[k], sw = sign_d(w);

			for (size_t i = 0; i < m; i++) {
				double t = x[i] - s->b[i], p = keep[i] * w * t;

				s->shi[i] += count ? keep[i] * sw * sign_d(t) : p;
				s->smag[i] += fabs(p);
				s->whi[i] += t != 0 ? keep[i] : 0.0;
			}
		}
		for (size_t i = 0; i < m; i++) {
			double sure = fabs(s->shi[i]) > (n + 2) * 0x1p-52 * s->smag[i] + 0x1p-1060;

			/* (no model kept, or only zeros: none agrees, whatever the sign;
			 * an exact sum's sign is known) */
			sure = s->whi[i] == 0 || s->exact[i] != 0 ? 1.0 : sure;
			s->hard[i] = count || sure ? s->hard[i] : 1.0;
			s->res[i] = s->shi[i] >= 0 ? 1.0 : -1.0;
			s->shi[i] = s->smag[i] = s->whi[i] = 0;
		}
	}
	if (elects && s->equal_c != 0)
		agreeing(v, s, m, masked, 1);
	else if (elects)
		agreeing(v, s, m, masked, 0);
	else
		add_models(v, s, m, masked, beta);
	if (s->equal_c != 0)
		results(v, s, m, 1);
	else
		results(v, s, m, 0);
	if (v->out == CKPT_F32)
		return quick_f32(s, out, m);
	ckpt_from_double(v->out, s->rlo, s->lo_out, m);
	ckpt_from_double(v->out, s->rhi, s->hi_out, m);
	ckpt_mblock_undecided(s, m, ckpt_dtype_size(v->out));
	/* r - E rounds to the value, as every point up to r + E; an undecided
	 * one's place is filled later (0 meanwhile: not counted as overflowing) */
	for (size_t i = 0; i < m; i++)
		s->rlo[i] = s->hard[i] != 0 ? 0 : s->rlo[i];
	return ckpt_from_double(v->out, s->rlo, out, m);
}
