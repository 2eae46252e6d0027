/* mquick.c - the merge methods' formula over a block in plain double
 * arithmetic, with a bound on its error: where both ends of the bound
 * round alike (or the arithmetic is exact) that is the result; the rest
 * of the block is left to mblock.c's double-double and exact steps. */
#include "mblockint.h"
#include "vec.h"

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

/* The bits of a type's significand (its last place is at least the
 * value times 2^-p); 53 (nothing gained) for the others. */
static int precision(ckpt_dtype t)
{
	switch (t) {
	case CKPT_F32: return 24;
	case CKPT_F16: return 11;
	case CKPT_BF16: return 8;
	case CKPT_F8E4M3: return 4;
	case CKPT_F8E5M2: return 3;
	default: return 53;
	}
}

static int power_of_two(double x)
{
	int e;

	return x == 0 || (fabs(frexp(x, &e)) == 0.5 && e > -400 && e < 400);
}

/* Where plain double arithmetic is exact: with a, lambda, the weights and
 * D powers of two (or 0) and narrow inputs, every term of r = a b +
 * lambda S / D is an input times a power of two, a multiple of the least
 * one's last place g (> least input 2^-p times the least scale), and no
 * partial sum exceeds (2N + 1) times the largest input times the largest
 * scale: all is exact when that is at most 2^53 g.  Returns C such that
 * big C <= least 2^53 says so for an element, or 0 where no element can
 * be (a per-element D, other coefficients, wide inputs). */
double ckpt_mquick_exact_constant(const ckpt_mvar *v)
{
	double smax = fabs(v->a), smin = v->a != 0 ? fabs(v->a) : INFINITY, c;
	int p = 0, ok = power_of_two(v->a) && power_of_two(v->lambda) && power_of_two(v->dc) &&
	                v->dc != 0 && !(ckpt_method_elects(v->m->kind) && v->m->normalize);

	for (size_t k = 0; k <= v->nx; k++)
		p = precision(v->types[k]) > p ? precision(v->types[k]) : p;
	for (size_t k = 0; ok && k < v->nx; k++) {
		double sc = fabs(v->lambda * v->m->weights[k] / v->dc);

		ok = power_of_two(v->m->weights[k]);
		smax = sc > smax ? sc : smax;
		smin = sc != 0 && sc < smin ? sc : smin;
	}
	if (!ok || smin == INFINITY)
		return 0;
	c = (2.0 * (double)v->nx + 1) * (smax / smin) * ldexp(1, p);
	return c <= 0x1p50 ? c : 0;
}

/* Model k's keep flags in the block: its mask's or window's, or ones. */
static inline const double *keep_row(const struct scratch *s, size_t k, int masked)
{
	return masked ? s->keep + k * BLOCK : s->ones;
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
	double n = (double)v->nx + 8, a = v->a, lambda = v->lambda;
	double beta = v->m->kind == CKPT_SLERP ? 0 : 1;
	int elects = ckpt_method_elects(v->m->kind), count = v->m->sign_count;
	int normalised = elects && v->m->normalize;

	for (size_t i = 0; i < m; i++) {
		s->shi[i] = s->smag[i] = s->whi[i] = 0;
		s->hard[i] = 0;
		s->res[i] = 1; /* the elected sign */
	}
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

			/* (no model kept, or only zeros: none agrees, whatever the sign) */
			sure = s->whi[i] == 0 ? 1.0 : sure;
			s->hard[i] = count || sure ? s->hard[i] : 1.0;
			s->res[i] = s->shi[i] >= 0 ? 1.0 : -1.0;
			s->shi[i] = s->smag[i] = s->whi[i] = 0;
		}
	}
	for (size_t k = 0; elects && k < v->nx; k++) {
		const double *x = s->x + k * BLOCK, *keep = keep_row(s, k, masked);
		double w = v->m->weights[k], sw = sign_d(w);

		for (size_t i = 0; i < m; i++) {
			double t = x[i] - s->b[i], kp = keep[i], p;

			kp = sw * sign_d(t) != s->res[i] ? 0.0 : kp;
			p = kp * w * t;
			s->shi[i] += p;
			s->smag[i] += fabs(p);
			s->whi[i] += kp * w;
		}
	}
	if (!elects)
		add_models(v, s, m, masked, beta);
	if (s->exact_c != 0)
		inputs_span(v, s, m);
	for (size_t i = 0; i < m; i++) {
		double d = normalised ? v->dc * s->whi[i] : v->dc, dz = d == 0 ? 1 : d;
		double q = d == 0 ? 0 : s->shi[i] / dz, r = a * s->b[i] + lambda * q;
		double e = n * 0x1p-50 * (fabs(a * s->b[i]) + fabs(lambda) * s->smag[i] / fabs(dz)) +
		           0x1p-1060, exact = 0;

		exact = s->big[i] * s->exact_c <= s->least[i] * 0x1p53 ? 1.0 : 0.0;
		exact = s->exact_c != 0 ? exact : 0.0;
		e = exact != 0 ? 0 : e;
		r = r == 0 ? (exact != 0 ? 0.0 : r) : r; /* (an exact 0 is +0) */
		s->rlo[i] = r - e;
		s->rhi[i] = r + e;
		s->hard[i] = e <= 0x1p1000 ? s->hard[i] : 1.0; /* (NaN and Inf too) */
		s->hard[i] = fabs(r) <= 0x1.fffffffffffffp1023 ? s->hard[i] : 1.0;
	}
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
