/* mblock.c - the merge methods' formula over a block of elements at once,
 * in loops the compiler vectorises: the task vectors exactly (TwoSum), the
 * sums in double-double with what makes them exact tracked, the quotient
 * with its remainder, and the rounding decided - exactly where the pair is
 * exact, else where two bounds around it round alike - or left to
 * method.c's exact arithmetic. */
#include "method.h"
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
	unsigned char special[BLOCK];
	unsigned char lo_out[BLOCK * 8], hi_out[BLOCK * 8];
	double *x, *th, *tl;
	double *keep;           /* 1 or 0: the model is in A */
	unsigned char *keep1;
	double *x1;
};

static inline double two_sum(double a, double b, double *e)
{
	double s = a + b, bb = s - a;

	*e = (a - (s - bb)) + (b - bb);
	return s;
}

static inline double two_prod(double a, double b, double *e)
{
	double p = a * b, t, ah, al, bh, bl;

	t = 134217729.0 * a;
	ah = t - (t - a);
	al = a - ah;
	t = 134217729.0 * b;
	bh = t - (t - b);
	bl = b - bh;
	*e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
	return p;
}

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
	double e, f, s = two_sum(hi, d, &e);

	s = two_sum(s, e + lo, &f);
	return round_pair(s, f, to_odd);
}

static inline int sign_of(double x)
{
	return (x > 0) - (x < 0);
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
			th[i] = two_sum(x[i], -beta * s->b[i], &tl[i]);
			s->special[i] |= !(fabs(x[i]) <= 0x1.fffffffffffffp1023);
		}
	}
	for (size_t i = 0; i < m; i++)
		s->special[i] |= !(fabs(s->b[i]) <= 0x1.fffffffffffffp1023);
}

static void dare_mask(const ckpt_mvar *v, struct scratch *s, uint64_t start, size_t m)
{
	double limit = v->m->density * 0x1p53; /* u 2^-53 < density */

	for (size_t k = 0; k < v->nx; k++) {
		uint64_t key = ckpt_mix64(v->mask_key + (uint64_t)k);
		double *keep = s->keep + k * BLOCK;

		for (size_t i = 0; i < m; i++)
			keep[i] = (double)(ckpt_mix64(key + (start + i + 1) * GOLDEN) >> 11) < limit;
	}
}

static inline int below(const ckpt_rank_cut *c, uint64_t key, uint64_t index)
{
	return c->all | (key > c->key) | ((key == c->key) & (index < c->index));
}

static void magnitude_window(const ckpt_mvar *v, struct scratch *s, uint64_t start, size_t m)
{
	for (size_t k = 0; k < v->nx; k++) {
		const double *th = s->th + k * BLOCK;
		double *keep = s->keep + k * BLOCK;

		for (size_t i = 0; i < m; i++) {
			double a = fabs(th[i]); /* th is x - b rounded */
			uint64_t key;

			memcpy(&key, &a, sizeof key);
			keep[i] = below(&v->hi[k], key, start + i) & !below(&v->lo[k], key, start + i);
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

		if (w == 1 && !with_w && all_zero(tl, m)) { /* mostly: a plain sum */
			for (size_t i = 0; i < m; i++) {
				double p = th[i] * keep[i], ee; /* (keep: 1 or 0) */

				s->shi[i] = two_sum(s->shi[i], p, &ee);
				s->slo[i] += ee;
				s->smag[i] += fabs(p);
				track(p, &s->big[i], &s->least[i]);
			}
			continue;
		}
		for (size_t i = 0; i < m; i++) {
			double wk = w * keep[i], e, p, pe, q, qe, ee;

			p = two_prod(wk, th[i], &pe);
			q = two_prod(wk, tl[i], &qe);
			s->shi[i] = two_sum(s->shi[i], p, &ee);
			s->slo[i] += ee + (pe + (q + qe));
			s->smag[i] += fabs(p) + fabs(q);
			track(p, &s->big[i], &s->least[i]);
			track(pe, &s->big[i], &s->least[i]);
			track(q, &s->big[i], &s->least[i]);
			track(qe, &s->big[i], &s->least[i]);
			if (with_w) {
				s->whi[i] = two_sum(s->whi[i], wk, &e);
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
static void elect(const ckpt_mvar *v, struct scratch *s, size_t m)
{
	double n = 4.0 * (double)v->nx;
	int count = v->m->sign_count;

	sums(v, s, m, 0);
	for (size_t i = 0; i < m; i++) {
		double hi = s->shi[i] + s->slo[i];
		int sure = span_exact(s->big[i], s->least[i], n) ||
		           fabs(hi) > s->smag[i] * 0x1p-90 + 0x1p-1060, elected;
		long c = 0;

		for (size_t k = 0; count && k < v->nx; k++)
			c += (long)s->keep[k * BLOCK + i] * sign_of(v->m->weights[k]) *
			     sign_of(s->th[k * BLOCK + i]);
		elected = count ? (c >= 0 ? 1 : -1) : (hi >= 0 ? 1 : -1);
		s->special[i] |= !count && !sure;
		for (size_t k = 0; k < v->nx; k++)
			s->keep[k * BLOCK + i] *= sign_of(v->m->weights[k]) *
			                          sign_of(s->th[k * BLOCK + i]) == elected;
	}
}

/* D per element: dc, or dc times the kept weights' sum; whether it is
 * exact, and whether it is a power of two (then S / D is exact). */
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
		double e, dl, dh, wh = two_sum(s->whi[i], s->wlo[i], &e);

		s->dexact[i] = span_exact(s->wbig[i], s->wleast[i], (double)v->nx);
		dh = two_prod(wh, v->dc, &dl);
		dl += e * v->dc;
		s->dh[i] = dh;
		s->dl[i] = dl;
		s->pow2[i] = dl == 0 && fabs(dh) >= 0x1p-900 && fabs(dh) <= 0x1p900 &&
		             fabs(frexp(dh, &mant)) == 0.5;
	}
}

/* r = a b + lambda S / D: res, whether it is exact, the bounds around it,
 * and whether the pair is out of its range (hard). */
CKPT_WIDE_VECTORS
static void combine(const ckpt_mvar *v, struct scratch *s, size_t m, double normalised,
                    double to_odd)
{
	double n = 4.0 * (double)v->nx, a = v->a[0], lambda = v->lambda, dc = v->dc;

	for (size_t i = 0; i < m; i++) {
		double shi, slo, dh = s->dh[i], dl = s->dl[i], dz = dh == 0 ? 1 : dh, qh, ql;
		double p, pe, t1, e1, t2, e2, t3, e3, rem, e, r, rl, big = 0, least = INFINITY;
		double size, slack, x, xe, wm = s->wmag[i] * fabs(dc) / fabs(dz), exact, exact_q;

		exact = span_exact(s->big[i], s->least[i], n) * s->dexact[i];
		shi = two_sum(s->shi[i], s->slo[i], &slo);
		/* q = S / D: exact when D is a power of two, or the remainder 0 */
		qh = shi / dz;
		p = two_prod(qh, dz, &pe);
		t1 = two_sum(shi, -p, &e1);
		t2 = two_sum(t1, -pe, &e2);
		t3 = two_sum(t2, slo, &e3);
		rem = (t3 - qh * dl) + (e1 + e2 + e3);
		ql = rem / dz;
		exact_q = rem == 0 ? 1.0 : 0.0;
		exact_q = (fabs(dl) + fabs(e1) + fabs(e2) + fabs(e3)) == 0 ? exact_q : 0.0;
		exact_q = s->pow2[i] != 0 ? (ql * dz == rem ? 1.0 : 0.0) : exact_q;
		exact_q = dh == 0 ? 1.0 : exact_q;
		exact *= exact_q;
		qh = two_sum(qh, ql, &ql);
		qh = dh == 0 ? 0 : qh;
		ql = dh == 0 ? 0 : ql;
		/* r = a b + lambda q */
		x = two_prod(a, s->b[i], &xe);
		track(x, &big, &least);
		track(xe, &big, &least);
		r = two_sum(x, xe, &rl);
		x = two_prod(lambda, qh, &xe);
		track(x, &big, &least);
		track(xe, &big, &least);
		r = two_sum(r, x, &e);
		rl += e + xe;
		x = two_prod(lambda, ql, &xe);
		track(x, &big, &least);
		track(xe, &big, &least);
		rl += x + xe;
		r = two_sum(r, rl, &rl);
		exact *= span_exact(big, least, 6);
		exact = fabs(r) <= 0x1.fffffffffffffp1023 ? exact : 0.0;
		/* what the pair may be off by: a few 2^-100 of the terms' sizes */
		wm = wm > 1 ? wm : 1;
		wm = normalised != 0 ? wm : 1;
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
	for (size_t i = 0; i < m; i++) { /* (in one loop, gcc 12 vectorises neither) */
		double r = s->rlo[i], rl = s->rhi[i], x = round_pair(r, rl, to_odd);

		s->res[i] = r == 0 ? (s->exact[i] != 0 ? 0 : x) : x;
		s->rlo[i] = round_bound(r, rl, -s->slack[i], to_odd);
		s->rhi[i] = round_bound(r, rl, s->slack[i], to_odd);
	}
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

static void block(const ckpt_mvar *v, struct scratch *s, const void *const *in,
                  void *out, uint64_t start, size_t off, size_t m, size_t *bad)
{
	const ckpt_method *meth = v->m;
	size_t es = ckpt_dtype_size(v->out), nx = v->nx;
	int to_odd = v->out != CKPT_F64, normalised = ckpt_method_elects(meth->kind) &&
	                                                 meth->normalize;
	int coefficients = isfinite(v->a[0]) && isfinite(v->lambda);

	ckpt_to_double(v->types[0], (const char *)in[0] + off * ckpt_dtype_size(v->types[0]),
	               s->b, m);
	for (size_t k = 0; k < nx; k++)
		ckpt_to_double(v->types[k + 1],
		               (const char *)in[k + 1] + off * ckpt_dtype_size(v->types[k + 1]),
		               s->x + k * BLOCK, m);
	task_vectors(v, s, m);
	for (size_t i = 0; i < nx * BLOCK; i++)
		s->keep[i] = 1;
	if (ckpt_method_random(meth->kind))
		dare_mask(v, s, start + off, m);
	if (ckpt_method_ranks(meth->kind))
		magnitude_window(v, s, start + off, m);
	if (ckpt_method_elects(meth->kind))
		elect(v, s, m);
	sums(v, s, m, normalised);
	divisors(v, s, m, normalised);
	combine(v, s, m, normalised, to_odd);
	ckpt_from_double(v->out, s->rlo, s->lo_out, m);
	ckpt_from_double(v->out, s->rhi, s->hi_out, m);
	undecided(s, m, es);
	for (size_t i = 0; i < m; i++) {
		if (coefficients && !s->special[i] && (s->exact[i] != 0 || s->hard[i] == 0))
			continue;
		for (size_t k = 0; k < nx; k++)
			s->x1[k] = s->x[k * BLOCK + i];
		s->res[i] = ckpt_method_slow(v, s->x1, s->b[i], start + off + i, s->keep1, to_odd);
	}
	*bad += ckpt_from_double(v->out, s->res, (char *)out + off * es, m);
}

size_t ckpt_method_range(const ckpt_mvar *v, const void *const *in, void *out,
                         uint64_t start, size_t off, size_t n)
{
	struct scratch *s = malloc(sizeof *s);
	size_t nx = v->nx, bad = 0;
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
		block(v, s, in, out, start, off, end - off < BLOCK ? end - off : BLOCK, &bad);
	free(s);
	free(rows);
	free(flags);
	return bad;
}
