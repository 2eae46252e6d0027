/* mblock.c - the merge methods' formula over a block of elements at once,
 * in loops the compiler vectorises: the task vectors exactly (TwoSum), the
 * sums in double-double with what makes them exact tracked, the quotient
 * with its remainder, and the rounding decided - exactly where the pair is
 * exact, else where two bounds around it round alike - or left to
 * method.c's exact arithmetic. */
#include "method.h"
#include "eft.h"
#include "methodint.h"
#include "vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 256
#define GOLDEN UINT64_C(0x9e3779b97f4a7c15)

/* A block's working arrays; x, th, tl and keep hold one row per model. */
struct scratch {
	double b[BLOCK], shi[BLOCK], slo[BLOCK], smag[BLOCK], big[BLOCK], least[BLOCK];
	double whi[BLOCK], wlo[BLOCK], wmag[BLOCK], wbig[BLOCK], wleast[BLOCK];
	double res[BLOCK], rlo[BLOCK], rhi[BLOCK], dh[BLOCK], dl[BLOCK];
	double exact[BLOCK], dexact[BLOCK], pow2[BLOCK], hard[BLOCK], slack[BLOCK];
	double resq[BLOCK];     /* quick()'s results, while the rest are redone */
	uint64_t idx[BLOCK];    /* each element's flat index */
	size_t at[BLOCK];       /* where a gathered element came from */
	unsigned char special[BLOCK];
	unsigned char lo_out[BLOCK * 8], hi_out[BLOCK * 8];
	double *x, *th, *tl;
	double *keep;           /* 1 or 0: the model is in A */
	unsigned char *keep1;
	double *x1;
};

/* Track a term's size: the largest, and the least nonzero. */
static inline void track(double t, double *big, double *least)
{
	double a = fabs(t);

	*big = a > *big ? a : *big;
	*least = a < *least ? (a != 0 ? a : *least) : *least;
}

/* A sum of at most n terms, each a multiple of the least one's last place,
 * is exact in a pair of doubles when the largest is within 2^50 / n of it.
 * (Flags are doubles, 0 or 1, and conditions selections, not branches:
 * the loops vectorise.) */
static inline double span_exact(double big, double least, double n)
{
	double r = big * n <= least * 0x1p50 ? 1.0 : 0.0;

	r = least >= 0x1p-900 ? r : 0.0;
	r = big < 0x1p990 ? r : 0.0;
	return big == 0 ? 1.0 : r;
}

/* hi + lo (normalised) rounded to a double: to nearest (hi), or to odd
 * (to_odd 1). */
static inline double round_pair(double hi, double lo, double to_odd)
{
	uint64_t bits, toward = (lo > 0 ? UINT64_C(1) : 0) ^ (hi > 0 ? UINT64_C(1) : 0);
	double odd;

	memcpy(&bits, &hi, sizeof bits);
	bits = (bits - toward) | 1;
	memcpy(&odd, &bits, sizeof odd);
	to_odd = lo != 0 ? to_odd : 0.0;
	to_odd = fabs(hi) <= 0x1.fffffffffffffp1023 ? to_odd : 0.0;
	return to_odd != 0 ? odd : hi;
}

/* hi + lo + d, normalised again, rounded as round_pair() */
static inline double round_bound(double hi, double lo, double d, double to_odd)
{
	double e, f, s = ckpt_two_sum(hi, d, &e);

	s = ckpt_two_sum(s, e + lo, &f);
	return round_pair(s, f, to_odd);
}

/* ---- the stages --------------------------------------------------------- */

CKPT_WIDE_VECTORS
static void task_vectors(const ckpt_mvar *v, struct scratch *s, size_t m)
{
	double beta = v->m->kind == CKPT_SLERP ? 0 : 1;

	memset(s->special, 0, m);
	for (size_t k = 0; k < v->nx; k++) {
		const double *x = s->x + k * BLOCK;
		double *th = s->th + k * BLOCK, *tl = s->tl + k * BLOCK;

		for (size_t i = 0; i < m; i++) {
			th[i] = ckpt_two_sum(x[i], -beta * s->b[i], &tl[i]);
			s->special[i] |= !(fabs(x[i]) <= 0x1.fffffffffffffp1023);
		}
	}
	for (size_t i = 0; i < m; i++)
		s->special[i] |= !(fabs(s->b[i]) <= 0x1.fffffffffffffp1023);
}

static inline uint64_t mix64(uint64_t z) /* ckpt_mix64(), inlined */
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

CKPT_WIDE_VECTORS
static void dare_mask(const ckpt_mvar *v, struct scratch *s, uint64_t start, size_t m)
{
	/* u 2^-53 < density, for the integer u >> 11: below ceil(density 2^53) */
	uint64_t limit = (uint64_t)ceil(v->m->density * 0x1p53);

	for (size_t k = 0; k < v->nx; k++) {
		uint64_t key = ckpt_mix64(v->mask_key + (uint64_t)k);
		double *keep = s->keep + k * BLOCK;

		for (size_t i = 0; i < m; i++)
			keep[i] = mix64(key + (start + i + 1) * GOLDEN) >> 11 < limit ? 1.0 : 0.0;
	}
}

/* Ranks above a boundary: keys are below 2^63, compared as signed
 * integers (which AVX2 compares, not unsigned ones). */
static inline double below(int64_t ckey, int64_t cindex, double all, int64_t key,
                           int64_t index)
{
	double r = key == ckey ? (index < cindex ? 1.0 : 0.0) : 0.0;

	r = key > ckey ? 1.0 : r;
	return all != 0 ? 1.0 : r;
}

CKPT_WIDE_VECTORS
static void magnitude_window(const ckpt_mvar *v, struct scratch *s, uint64_t start, size_t m)
{
	for (size_t k = 0; k < v->nx; k++) {
		const double *th = s->th + k * BLOCK;
		double *keep = s->keep + k * BLOCK, hall = v->hi[k].all, lall = v->lo[k].all;
		int64_t hk = (int64_t)v->hi[k].key, hi = (int64_t)v->hi[k].index;
		int64_t lk = (int64_t)v->lo[k].key, li = (int64_t)v->lo[k].index;

		for (size_t i = 0; i < m; i++) {
			double a = fabs(th[i]); /* th is x - b rounded */
			int64_t key, at = (int64_t)(start + i);

			memcpy(&key, &a, sizeof key);
			keep[i] = below(hk, hi, hall, key, at) * (1 - below(lk, li, lall, key, at));
		}
	}
}

static int all_zero(const double *v, size_t n)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t b;

		memcpy(&b, &v[i], sizeof b);
		acc |= b;
	}
	return (acc << 1) == 0;
}

/* S over the kept models into shi/slo, with its size and span; with w,
 * the sum of their weights too. */
CKPT_WIDE_VECTORS
static void sums(const ckpt_mvar *v, struct scratch *s, size_t m, int with_w)
{
	memset(s->shi, 0, m * sizeof *s->shi);
	memset(s->slo, 0, m * sizeof *s->slo);
	memset(s->smag, 0, m * sizeof *s->smag);
	memset(s->big, 0, m * sizeof *s->big);
	memset(s->whi, 0, m * sizeof *s->whi);
	memset(s->wlo, 0, m * sizeof *s->wlo);
	memset(s->wmag, 0, m * sizeof *s->wmag);
	memset(s->wbig, 0, m * sizeof *s->wbig);
	for (size_t i = 0; i < m; i++)
		s->least[i] = s->wleast[i] = INFINITY;
	for (size_t k = 0; k < v->nx; k++) {
		const double *th = s->th + k * BLOCK, *tl = s->tl + k * BLOCK;
		const double *keep = s->keep + k * BLOCK;
		double w = v->m->weights[k];

		if (w == 1 && all_zero(tl, m)) { /* mostly: a plain sum (and a count) */
			for (size_t i = 0; i < m; i++) {
				double p = th[i] * keep[i], ee; /* (keep: 1 or 0) */

				s->shi[i] = ckpt_two_sum(s->shi[i], p, &ee);
				s->slo[i] += ee;
				s->smag[i] += fabs(p);
				track(p, &s->big[i], &s->least[i]);
				s->whi[i] += keep[i];
				s->wmag[i] += keep[i];
				s->wbig[i] = s->wbig[i] > keep[i] ? s->wbig[i] : keep[i];
				s->wleast[i] = keep[i] != 0 ? 1.0 : s->wleast[i];
			}
			continue;
		}
		for (size_t i = 0; i < m; i++) {
			double wk = w * keep[i], e, p, pe, q, qe, ee;

			p = ckpt_two_prod(wk, th[i], &pe);
			q = ckpt_two_prod(wk, tl[i], &qe);
			s->shi[i] = ckpt_two_sum(s->shi[i], p, &ee);
			s->slo[i] += ee + (pe + (q + qe));
			s->smag[i] += fabs(p) + fabs(q);
			track(p, &s->big[i], &s->least[i]);
			track(pe, &s->big[i], &s->least[i]);
			track(q, &s->big[i], &s->least[i]);
			track(qe, &s->big[i], &s->least[i]);
			if (with_w) {
				s->whi[i] = ckpt_two_sum(s->whi[i], wk, &e);
				s->wlo[i] += e;
				s->wmag[i] += fabs(wk);
				track(wk, &s->wbig[i], &s->wleast[i]);
			}
		}
	}
}

/* TIES' election: keep only the models whose w tau has the element's
 * elected sign; an element whose sum's sign the pair cannot tell is left
 * to the exact path. */
static inline double sign_d(double x)
{
	return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
}

CKPT_WIDE_VECTORS
static void elect(const ckpt_mvar *v, struct scratch *s, size_t m)
{
	double n = 4.0 * (double)v->nx;

	sums(v, s, m, 0);
	for (size_t i = 0; i < m; i++) /* the sum's sign, or a count */
		s->res[i] = v->m->sign_count ? 0 : s->shi[i] + s->slo[i];
	for (size_t k = 0; v->m->sign_count && k < v->nx; k++)
		for (size_t i = 0; i < m; i++)
			s->res[i] += s->keep[k * BLOCK + i] * sign_d(v->m->weights[k]) *
			             sign_d(s->th[k * BLOCK + i]);
	for (size_t i = 0; i < m; i++) {
		double sure = span_exact(s->big[i], s->least[i], n);

		sure = fabs(s->res[i]) > s->smag[i] * 0x1p-90 + 0x1p-1060 ? 1.0 : sure;
		sure = v->m->sign_count ? 1.0 : sure;
		s->special[i] |= sure == 0;
		s->res[i] = s->res[i] >= 0 ? 1.0 : -1.0; /* the elected sign */
	}
	for (size_t k = 0; k < v->nx; k++) {
		double sw = sign_d(v->m->weights[k]);

		for (size_t i = 0; i < m; i++)
			s->keep[k * BLOCK + i] = sw * sign_d(s->th[k * BLOCK + i]) == s->res[i] ?
			                         s->keep[k * BLOCK + i] : 0.0;
	}
}

/* r + rl (in rlo, rhi) rounded into res, and the bounds slack around it
 * into rlo, rhi.  (Apart from the loop that computes r: in one loop gcc 12
 * vectorises neither.) */
CKPT_WIDE_VECTORS
static void bounds(struct scratch *s, size_t m, double to_odd)
{
	for (size_t i = 0; i < m; i++) {
		double r = s->rlo[i], rl = s->rhi[i], x = round_pair(r, rl, to_odd);

		s->res[i] = r == 0 ? (s->exact[i] != 0 ? 0 : x) : x;
		s->rlo[i] = round_bound(r, rl, -s->slack[i], to_odd);
		s->rhi[i] = round_bound(r, rl, s->slack[i], to_odd);
	}
}

/* D per element: dc, or (the TIES family's normalised mean) dc times the
 * kept weights' sum; whether it is exact, and whether it is a power of two
 * (then S / D is exact). */
static void divisors(const ckpt_mvar *v, struct scratch *s, size_t m, int normalised)
{
	int mant;
	double pow2 = fabs(v->dc) >= 0x1p-900 && fabs(v->dc) <= 0x1p900 &&
	              fabs(frexp(v->dc, &mant)) == 0.5;

	for (size_t i = 0; !normalised && i < m; i++) {
		s->dexact[i] = 1;
		s->dh[i] = v->dc;
		s->dl[i] = 0;
		s->pow2[i] = pow2;
	}
	for (size_t i = 0; normalised && i < m; i++) {
		double e, dl, dh, wh = ckpt_two_sum(s->whi[i], s->wlo[i], &e), p;
		uint64_t bits;

		s->dexact[i] = span_exact(s->wbig[i], s->wleast[i], (double)v->nx);
		dh = ckpt_two_prod(wh, v->dc, &dl);
		dl += e * v->dc;
		s->dh[i] = dh;
		s->dl[i] = dl;
		memcpy(&bits, &dh, sizeof bits); /* a power of two: no mantissa bits */
		p = (bits & UINT64_C(0xfffffffffffff)) == 0 ? 1.0 : 0.0;
		p = dl == 0 ? p : 0.0;
		p = fabs(dh) >= 0x1p-900 ? p : 0.0;
		s->pow2[i] = fabs(dh) <= 0x1p900 ? p : 0.0;
	}
}

/* r = a b + lambda S / D: res, whether it is exact, the bounds around it,
 * and whether the pair is out of its range (hard). */
CKPT_WIDE_VECTORS
static void combine_loop(const ckpt_mvar *v, struct scratch *s, size_t m)
{
	double n = 4.0 * (double)v->nx, a = v->a, lambda = v->lambda, dc = v->dc;

	for (size_t i = 0; i < m; i++) {
		double shi, slo, dh = s->dh[i], dl = s->dl[i], dz = dh == 0 ? 1 : dh, qh, ql;
		double p, pe, t1, e1, t2, e2, t3, e3, rem, e, r, rl, big = 0, least = INFINITY;
		double size, slack, x, xe, wm = s->wmag[i] * fabs(dc) / fabs(dz), exact, exact_q;

		exact = span_exact(s->big[i], s->least[i], n) * s->dexact[i];
		shi = ckpt_two_sum(s->shi[i], s->slo[i], &slo);
		/* q = S / D: exact when D is a power of two, or the remainder 0 */
		qh = shi / dz;
		p = ckpt_two_prod(qh, dz, &pe);
		t1 = ckpt_two_sum(shi, -p, &e1);
		t2 = ckpt_two_sum(t1, -pe, &e2);
		t3 = ckpt_two_sum(t2, slo, &e3);
		rem = (t3 - qh * dl) + (e1 + e2 + e3);
		ql = rem / dz;
		exact_q = rem == 0 ? 1.0 : 0.0;
		exact_q = (fabs(dl) + fabs(e1) + fabs(e2) + fabs(e3)) == 0 ? exact_q : 0.0;
		exact_q = s->pow2[i] != 0 ? (ql * dz == rem ? 1.0 : 0.0) : exact_q;
		exact_q = dh == 0 ? 1.0 : exact_q;
		exact *= exact_q;
		qh = ckpt_two_sum(qh, ql, &ql);
		qh = dh == 0 ? 0 : qh;
		ql = dh == 0 ? 0 : ql;
		/* r = a b + lambda q */
		x = ckpt_two_prod(a, s->b[i], &xe);
		track(x, &big, &least);
		track(xe, &big, &least);
		r = ckpt_two_sum(x, xe, &rl);
		x = ckpt_two_prod(lambda, qh, &xe);
		track(x, &big, &least);
		track(xe, &big, &least);
		r = ckpt_two_sum(r, x, &e);
		rl += e + xe;
		x = ckpt_two_prod(lambda, ql, &xe);
		track(x, &big, &least);
		track(xe, &big, &least);
		rl += x + xe;
		r = ckpt_two_sum(r, rl, &rl);
		exact *= span_exact(big, least, 6);
		exact = fabs(r) <= 0x1.fffffffffffffp1023 ? exact : 0.0;
		/* what the pair may be off by: a few 2^-100 of the terms' sizes */
		wm = wm > 1 ? wm : 1;
		size = fabs(a * s->b[i]) + fabs(lambda) * s->smag[i] / fabs(dz) * wm;
		slack = size * 0x1p-88 + 0x1p-1060;
		s->exact[i] = exact;
		x = slack <= 0x1p1000 ? 0.0 : 1.0;
		x = fabs(r) >= 0x1p-900 ? x : 1.0;
		s->hard[i] = fabs(r) <= 0x1p1000 ? x : 1.0;
		s->rlo[i] = r;
		s->rhi[i] = rl;
		s->slack[i] = slack;
	}
}

static void combine(const ckpt_mvar *v, struct scratch *s, size_t m, double to_odd)
{
	combine_loop(v, s, m);
	bounds(s, m, to_odd);
}

/* ---- a range ----------------------------------------------------------- */

/* hard: also where the two bounds rounded apart (compared as integers of
 * the stored type's size, in a loop that vectorises) */
static void undecided(struct scratch *s, size_t m, size_t es)
{
	switch (es) {
	case 1:
		for (size_t i = 0; i < m; i++)
			s->hard[i] = s->lo_out[i] != s->hi_out[i] ? 1.0 : s->hard[i];
		break;
	case 2:
		for (size_t i = 0; i < m; i++) {
			uint16_t a, b;

			memcpy(&a, s->lo_out + 2 * i, 2);
			memcpy(&b, s->hi_out + 2 * i, 2);
			s->hard[i] = a != b ? 1.0 : s->hard[i];
		}
		break;
	case 4:
		for (size_t i = 0; i < m; i++) {
			uint32_t a, b;

			memcpy(&a, s->lo_out + 4 * i, 4);
			memcpy(&b, s->hi_out + 4 * i, 4);
			s->hard[i] = a != b ? 1.0 : s->hard[i];
		}
		break;
	default:
		for (size_t i = 0; i < m; i++) {
			uint64_t a, b;

			memcpy(&a, s->lo_out + 8 * i, 8);
			memcpy(&b, s->hi_out + 8 * i, 8);
			s->hard[i] = a != b ? 1.0 : s->hard[i];
		}
	}
}

/* ---- in plain double, where that decides ------------------------------ */

/* Whether plain double arithmetic can decide a type's rounding: not
 * float64's, and not a normalised election with negative weights (whose
 * sum may cancel). */
static int quick_applies(const ckpt_mvar *v)
{
	int negative = 0;

	for (size_t k = 0; k < v->nx; k++)
		negative |= v->m->weights[k] < 0;
	return v->out != CKPT_F64 && isfinite(v->a) && isfinite(v->lambda) &&
	       !(negative && ckpt_method_elects(v->m->kind) && v->m->normalize);
}

/* The block in plain double arithmetic, with a bound E on its error (every
 * rounding at most 2^-53 of the terms' sizes, n + 8 of them counted twice
 * over): where r - E and r + E round to the same value of the stored type,
 * so does the exact r.  Into res; whether every element was decided so
 * (an election whose sum is within its bound of 0 is not). */
CKPT_WIDE_VECTORS
static int quick(const ckpt_mvar *v, struct scratch *s, size_t m, size_t es)
{
	double n = (double)v->nx + 8, a = v->a, lambda = v->lambda;
	int elects = ckpt_method_elects(v->m->kind), count = v->m->sign_count;
	int normalised = elects && v->m->normalize;

	for (size_t i = 0; i < m; i++) {
		s->shi[i] = s->smag[i] = s->whi[i] = 0;
		s->hard[i] = s->special[i] ? 1.0 : 0.0;
		s->res[i] = 1; /* the elected sign */
	}
	if (elects) {
		for (size_t k = 0; k < v->nx; k++) {
			double w = v->m->weights[k], sw = sign_d(w);

			for (size_t i = 0; i < m; i++) {
				double t = s->th[k * BLOCK + i], p = s->keep[k * BLOCK + i] * w * t;

				s->shi[i] += count ? s->keep[k * BLOCK + i] * sw * sign_d(t) : p;
				s->smag[i] += fabs(p);
			}
		}
		for (size_t i = 0; i < m; i++) {
			double sure = fabs(s->shi[i]) > (n + 2) * 0x1p-52 * s->smag[i] + 0x1p-1060;

			s->hard[i] = count || sure ? s->hard[i] : 1.0;
			s->res[i] = s->shi[i] >= 0 ? 1.0 : -1.0;
			s->shi[i] = s->smag[i] = 0;
		}
	}
	for (size_t k = 0; k < v->nx; k++) {
		double w = v->m->weights[k], sw = sign_d(w);

		for (size_t i = 0; i < m; i++) {
			double t = s->th[k * BLOCK + i], keep = s->keep[k * BLOCK + i], p;

			keep = elects && sw * sign_d(t) != s->res[i] ? 0.0 : keep;
			p = keep * w * t;
			s->shi[i] += p;
			s->smag[i] += fabs(p);
			s->whi[i] += keep * w;
		}
	}
	for (size_t i = 0; i < m; i++) {
		double d = normalised ? v->dc * s->whi[i] : v->dc, dz = d == 0 ? 1 : d;
		double q = d == 0 ? 0 : s->shi[i] / dz, r = a * s->b[i] + lambda * q;
		double e = n * 0x1p-50 * (fabs(a * s->b[i]) + fabs(lambda) * s->smag[i] / fabs(dz)) +
		           0x1p-1060;

		s->res[i] = r;
		s->rlo[i] = r - e;
		s->rhi[i] = r + e;
		s->hard[i] = e <= 0x1p1000 ? s->hard[i] : 1.0;
	}
	ckpt_from_double(v->out, s->rlo, s->lo_out, m);
	ckpt_from_double(v->out, s->rhi, s->hi_out, m);
	undecided(s, m, es);
	for (size_t i = 0; i < m; i++)
		s->res[i] = s->rlo[i]; /* (rounds to the value, as every point between) */
	return all_zero(s->hard, m);
}

static void slow(const ckpt_mvar *v, struct scratch *s, size_t m, int coefficients, int to_odd);

/* Move the elements quick() left undecided to the front of the block's
 * arrays (their results so far kept in resq); returns how many. */
static size_t gather(const ckpt_mvar *v, struct scratch *s, size_t m)
{
	size_t j = 0;

	memcpy(s->resq, s->res, m * sizeof *s->res);
	for (size_t i = 0; i < m; i++) {
		if (s->hard[i] == 0)
			continue;
		s->b[j] = s->b[i];
		s->special[j] = s->special[i];
		s->idx[j] = s->idx[i];
		s->at[j] = i;
		for (size_t k = 0; k < v->nx; k++) {
			s->x[k * BLOCK + j] = s->x[k * BLOCK + i];
			s->th[k * BLOCK + j] = s->th[k * BLOCK + i];
			s->tl[k * BLOCK + j] = s->tl[k * BLOCK + i];
			s->keep[k * BLOCK + j] = s->keep[k * BLOCK + i];
		}
		j++;
	}
	return j;
}

/* The block at off; can_quick: quick_applies(v), once per range. */
static void block(const ckpt_mvar *v, struct scratch *s, const void *const *in,
                  void *out, uint64_t start, size_t off, size_t m, int can_quick, size_t *bad)
{
	const ckpt_method *meth = v->m;
	size_t es = ckpt_dtype_size(v->out), nx = v->nx, n = m;
	int to_odd = v->out != CKPT_F64, normalised = ckpt_method_elects(meth->kind) &&
	                                                 meth->normalize;
	int coefficients = isfinite(v->a) && isfinite(v->lambda), gathered = 0;

	ckpt_to_double(v->types[0], (const char *)in[0] + off * ckpt_dtype_size(v->types[0]),
	               s->b, m);
	for (size_t k = 0; k < nx; k++)
		ckpt_to_double(v->types[k + 1],
		               (const char *)in[k + 1] + off * ckpt_dtype_size(v->types[k + 1]),
		               s->x + k * BLOCK, m);
	for (size_t i = 0; i < m; i++)
		s->idx[i] = start + off + i;
	task_vectors(v, s, m);
	for (size_t i = 0; i < nx * BLOCK; i++)
		s->keep[i] = 1;
	if (ckpt_method_random(meth->kind))
		dare_mask(v, s, start + off, m);
	if (ckpt_method_ranks(meth->kind))
		magnitude_window(v, s, start + off, m);
	/* mostly plain doubles decide; the rest in pairs, the rare ones exactly */
	if (can_quick && quick(v, s, m, es)) {
		*bad += ckpt_from_double(v->out, s->res, (char *)out + off * es, m);
		return;
	}
	if (can_quick) {
		n = gather(v, s, m);
		gathered = 1;
	}
	if (ckpt_method_elects(meth->kind))
		elect(v, s, n);
	sums(v, s, n, normalised);
	divisors(v, s, n, normalised);
	combine(v, s, n, to_odd);
	ckpt_from_double(v->out, s->rlo, s->lo_out, n);
	ckpt_from_double(v->out, s->rhi, s->hi_out, n);
	undecided(s, n, es);
	for (size_t i = 0; i < n; i++) /* (free of branches: most blocks have none) */
		s->hard[i] = s->exact[i] != 0 ? 0.0 : s->hard[i];
	if (!coefficients || !all_zero(s->hard, n) || memchr(s->special, 1, n))
		slow(v, s, n, coefficients, to_odd);
	for (size_t j = 0; gathered && j < n; j++)
		s->resq[s->at[j]] = s->res[j];
	*bad += ckpt_from_double(v->out, gathered ? s->resq : s->res, (char *)out + off * es, m);
}

/* The elements the pair could not decide, exactly. */
static void slow(const ckpt_mvar *v, struct scratch *s, size_t m, int coefficients, int to_odd)
{
	for (size_t i = 0; i < m; i++) {
		if (coefficients && !s->special[i] && s->hard[i] == 0)
			continue;
		for (size_t k = 0; k < v->nx; k++)
			s->x1[k] = s->x[k * BLOCK + i];
		s->res[i] = ckpt_method_slow(v, s->x1, s->b[i], s->idx[i], s->keep1, to_odd);
	}
}

size_t ckpt_method_range(const ckpt_mvar *v, const void *const *in, void *out,
                         uint64_t start, size_t off, size_t n)
{
	struct scratch *s = malloc(sizeof *s);
	size_t nx = v->nx, bad = 0;
	int can_quick = quick_applies(v);
	double *rows = malloc((4 * nx * BLOCK + nx + 1) * sizeof *rows);
	unsigned char *flags = malloc(nx + 1);

	if (!s || !rows || !flags) {
		free(s);
		free(rows);
		free(flags);
		return SIZE_MAX;
	}
	s->x = rows;
	s->th = rows + nx * BLOCK;
	s->tl = rows + 2 * nx * BLOCK;
	s->keep = rows + 3 * nx * BLOCK;
	s->x1 = rows + 4 * nx * BLOCK;
	s->keep1 = flags;
	for (size_t end = off + n; off < end; off += BLOCK)
		block(v, s, in, out, start, off, end - off < BLOCK ? end - off : BLOCK, can_quick,
		      &bad);
	free(s);
	free(rows);
	free(flags);
	return bad;
}
