/* mblock.c - the merge methods' formula over a block of elements at once,
 * in loops the compiler vectorises: the task vectors exactly (TwoSum), the
 * sums in double-double with what makes them exact tracked, the quotient
 * with its remainder, and the rounding decided - exactly where the pair is
 * exact, else where two bounds around it round alike - or left to
 * method.c's exact arithmetic; most blocks decided first by mquick.c's
 * plain double step. */
#include "mblockint.h"
#include "convert.h"
#include "eft.h"
#include "methodint.h"
#include "vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* One model's keep row, the draws of elements start .. start + m - 1 (of
 * key: ckpt_dare_draw()'s) below limit = ceil(density 2^53) as integers */
CKPT_WIDE_VECTORS
static void dare_row(uint64_t key, uint64_t start, size_t m, uint64_t limit, double *keep)
{
	uint64_t z = key + (start + 1) * CKPT_GOLDEN;

	/* (a running sum: no product; u < limit as the borrow of u - limit,
	 * both below 2^54: arithmetic, where a comparison became a branch
	 * that a scalar loop mispredicted half the time at density 0.5) */
	for (size_t i = 0; i < m; i++, z += CKPT_GOLDEN)
		keep[i] = (double)(((splitmix64(z) >> 11) - limit) >> 63);
}

#if CKPT_HAVE_FMA
/* a c mod 2^64 from 32 x 32-bit products, c's halves in cl and ch */
__attribute__((target("avx2"))) static inline __m256i times_avx2(__m256i a, __m256i cl,
                                                                 __m256i ch)
{
	__m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), cl),
	                                 _mm256_mul_epu32(a, ch));

	return _mm256_add_epi64(_mm256_mul_epu32(a, cl), _mm256_slli_epi64(cross, 32));
}

__attribute__((target("avx2"))) void ckpt_dare_row_avx2(uint64_t key, uint64_t start, size_t m,
                                                        uint64_t limit, double *keep)
{
	const uint64_t c1 = UINT64_C(0xbf58476d1ce4e5b9), c2 = UINT64_C(0x94d049bb133111eb);
	__m256i c1l = _mm256_set1_epi64x((int64_t)(c1 & 0xffffffffu));
	__m256i c1h = _mm256_set1_epi64x((int64_t)(c1 >> 32));
	__m256i c2l = _mm256_set1_epi64x((int64_t)(c2 & 0xffffffffu));
	__m256i c2h = _mm256_set1_epi64x((int64_t)(c2 >> 32));
	__m256i lim = _mm256_set1_epi64x((int64_t)limit), one = _mm256_castpd_si256(_mm256_set1_pd(1));
	__m256i step = _mm256_set1_epi64x((int64_t)(4 * CKPT_GOLDEN));
	uint64_t z = key + (start + 1) * CKPT_GOLDEN;
	__m256i zv = _mm256_setr_epi64x((int64_t)z, (int64_t)(z + CKPT_GOLDEN),
	                                (int64_t)(z + 2 * CKPT_GOLDEN),
	                                (int64_t)(z + 3 * CKPT_GOLDEN));
	size_t i = 0;

	for (; i + 4 <= m; i += 4, zv = _mm256_add_epi64(zv, step)) {
		__m256i y = times_avx2(_mm256_xor_si256(zv, _mm256_srli_epi64(zv, 30)), c1l, c1h);

		y = times_avx2(_mm256_xor_si256(y, _mm256_srli_epi64(y, 27)), c2l, c2h);
		y = _mm256_srli_epi64(_mm256_xor_si256(y, _mm256_srli_epi64(y, 31)), 11);
		y = _mm256_and_si256(_mm256_cmpgt_epi64(lim, y), one); /* (signed: below 2^63) */
		_mm256_storeu_si256((__m256i *)(keep + i), y);
	}
	dare_row(key, start + i, m - i, limit, keep + i); /* (the last few) */
}
#endif

static void dare_mask(const ckpt_mvar *v, struct scratch *s, uint64_t start, size_t m)
{
	uint64_t limit = s->dlimit;
#if CKPT_HAVE_FMA
	/* (AVX-512 has the 64-bit products the compiler vectorises with;
	 * without them its loop is scalar) */
	int avx2 = !__builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx2");
#endif

	for (size_t k = 0; k < v->nx; k++) {
		uint64_t key = ckpt_mix64(v->mask_key + (uint64_t)k);

#if CKPT_HAVE_FMA
		if (avx2) {
			ckpt_dare_row_avx2(key, start, m, limit, s->keep + k * BLOCK);
			continue;
		}
#endif
		dare_row(key, start, m, limit, s->keep + k * BLOCK);
	}
	s->drawn = 1;
}

static int rows_only; /* ckpt_mblock_draw_in_loops(0) */

static int can_draw_in_loops(void)
{
#if CKPT_HAVE_FMA
	return FUSED_LOOPS && __builtin_cpu_supports("avx512dq");
#else
	return 0;
#endif
}

int ckpt_mblock_draw_in_loops(int on)
{
	rows_only = !on;
	return can_draw_in_loops();
}

/* Whether the fused loops draw DARE's keeps themselves: where the CPU has
 * AVX-512's 64-bit products (elsewhere their loops would be scalar, the
 * rows' AVX2 loop is not).  Drawn in the loop, a keep is a comparison's
 * mask, not a row of doubles stored and loaded (and the few elements the
 * loops leave undecided are drawn alone): the bench models' user time for
 * DARE-linear 6 % less in float32, 14 % in bfloat16, DARE-TIES' 10 % in
 * bfloat16. */
static int draws_in_loops(const ckpt_mvar *v)
{
	return ckpt_method_random(v->m->kind) && v->nx <= FUSED && !rows_only &&
	       can_draw_in_loops();
}

/* The block's draws for the fused loops: each model's counter, the rows
 * not yet drawn. */
static void draws_start(const ckpt_mvar *v, struct scratch *s, uint64_t start)
{
	s->drawn = 0;
	for (size_t k = 0; k < v->nx; k++)
		s->dz[k] = ckpt_mix64(v->mask_key + (uint64_t)k) + (start + 1) * CKPT_GOLDEN;
}

void ckpt_mblock_keep_rows(const ckpt_mvar *v, struct scratch *s, uint64_t start, size_t m)
{
	if (s->draws && !s->drawn)
		dare_mask(v, s, start, m);
}

CKPT_WIDE_VECTORS
static void magnitude_window(const ckpt_mvar *v, struct scratch *s, uint64_t start, size_t m)
{
	for (size_t k = 0; k < v->nx; k++) {
		const double *x = s->x + k * BLOCK;
		double *keep = s->keep + k * BLOCK;
		ckpt_rank_cut lo = v->lo[k], hi = v->hi[k];
		int64_t glo, ghi;
		int plain = plain_cut(&lo, start, m, &glo) && plain_cut(&hi, start, m, &ghi);

		for (size_t i = 0; plain && i < m; i++) {
			double a = fabs(x[i] - s->b[i]); /* the task vector rounded */
			int64_t key;

			memcpy(&key, &a, sizeof key);
			keep[i] = in_plain_window(glo, ghi, key);
		}
		for (size_t i = 0; !plain && i < m; i++) {
			double a = fabs(x[i] - s->b[i]);
			int64_t key;

			memcpy(&key, &a, sizeof key);
			keep[i] = in_window(&lo, &hi, key, (int64_t)(start + i));
		}
	}
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
			s->keep[k * BLOCK + i] = agrees(s->th[k * BLOCK + i], sw, s->res[i]) ?
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

/* (compared as integers of the stored type's size, in a loop that
 * vectorises) */
void ckpt_mblock_undecided(struct scratch *s, size_t m, size_t es)
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

/* Add the elements quick() left undecided in the block at off to the
 * pending ones (done together, BLOCK at a time: most blocks have a few),
 * from the block's arrays or (f not NULL) its float rows. */
static void gather(const ckpt_mvar *v, struct scratch *s, const float *const *f,
                   uint64_t start, size_t off, size_t m, int masked)
{
	size_t j = s->npend;
	int fresh = s->draws && !s->drawn; /* (no rows: the few drawn here) */

	for (size_t i = 0; i < m; i++) {
		if (i % 16 == 0 && all_zero(s->hard + i, m - i < 16 ? m - i : 16)) {
			i += 15; /* (most are decided: 16 at a time) */
			continue;
		}
		if (s->hard[i] == 0)
			continue;
		s->pb[j] = f ? f[0][i] : s->b[i];
		s->pidx[j] = start + off + i;
		s->at[j] = off + i;
		for (size_t k = 0; k < v->nx; k++) {
			s->px[k * BLOCK + j] = f ? f[k + 1][i] : s->x[k * BLOCK + i];
			s->pkeep[k * BLOCK + j] = !masked ? 1.0
			                          : fresh ? draw_keep(s->dz[k], i, s->dlimit)
			                                  : s->keep[k * BLOCK + i];
		}
		j++;
	}
	s->npend = j;
}

static void slow(const ckpt_mvar *v, struct scratch *s, size_t m, int coefficients, int to_odd);

/* Elements 0..n of the block's arrays in double-double, the ones that
 * does not decide exactly, into res. */
static void pairs(const ckpt_mvar *v, struct scratch *s, size_t n)
{
	const ckpt_method *meth = v->m;
	int to_odd = v->out != CKPT_F64, normalised = ckpt_method_elects(meth->kind) &&
	                                                 meth->normalize;
	int coefficients = isfinite(v->a) && isfinite(v->lambda);

	task_vectors(v, s, n);
	if (ckpt_method_elects(meth->kind))
		elect(v, s, n);
	sums(v, s, n, normalised);
	divisors(v, s, n, normalised);
	combine(v, s, n, to_odd);
	ckpt_from_double(v->out, s->rlo, s->lo_out, n);
	ckpt_from_double(v->out, s->rhi, s->hi_out, n);
	ckpt_mblock_undecided(s, n, ckpt_dtype_size(v->out));
	for (size_t i = 0; i < n; i++) /* (free of branches: most blocks have none) */
		s->hard[i] = s->exact[i] != 0 ? 0.0 : s->hard[i];
	if (!coefficients || !all_zero(s->hard, n) || memchr(s->special, 1, n))
		slow(v, s, n, coefficients, to_odd);
}

/* The pending elements, into their places in out; returns how many
 * overflowed. */
static size_t flush(const ckpt_mvar *v, struct scratch *s, void *out)
{
	size_t n = s->npend, nx = v->nx, es = ckpt_dtype_size(v->out), bad = 0;

	memcpy(s->b, s->pb, n * sizeof *s->b);
	memcpy(s->idx, s->pidx, n * sizeof *s->idx);
	for (size_t k = 0; k < nx; k++) {
		memcpy(s->x + k * BLOCK, s->px + k * BLOCK, n * sizeof *s->x);
		memcpy(s->keep + k * BLOCK, s->pkeep + k * BLOCK, n * sizeof *s->keep);
	}
	pairs(v, s, n);
	for (size_t j = 0; j < n; j++)
		bad += ckpt_from_double(v->out, &s->res[j], (char *)out + s->at[j] * es, 1);
	s->npend = 0;
	return bad;
}

/* The block's float32 inputs straight into out, if mquick.c decides it
 * so (the common case: all exact), the few elements it leaves pending.
 * (Where it does not, the general step draws the mask again: a flush may
 * take the arrays first; here, before the mask, it makes room for them.) */
static int f32_block(const ckpt_mvar *v, struct scratch *s, const void *const *in,
                     void *out, uint64_t start, size_t off, size_t m, int masked,
                     size_t *bad)
{
	const float *at[64]; /* (more models: the general step) */
	int done;

	if (!s->f32 || v->nx + 1 > sizeof at / sizeof *at)
		return 0;
	if (s->npend + FEW_UNDECIDED > BLOCK)
		*bad += flush(v, s, out);
	for (size_t k = 0; k <= v->nx; k++) /* (float holds every type here) */
		at[k] = ckpt_as_float(v->types[k],
		                      (const char *)in[k] + off * ckpt_dtype_size(v->types[k]),
		                      s->frow + k * BLOCK, m);
	if (s->draws)
		draws_start(v, s, start + off);
	else if (ckpt_method_random(v->m->kind))
		dare_mask(v, s, start + off, m);
	done = ckpt_mquick_f32(v, s, at, (char *)out + off * ckpt_dtype_size(v->out), start + off,
	                       m, masked, bad);
	if (done == 2)
		gather(v, s, at, start, off, m, masked);
	return done != 0;
}

/* The block at off. */
static size_t block(const ckpt_mvar *v, struct scratch *s, const void *const *in,
                    void *out, uint64_t start, size_t off, size_t m)
{
	const ckpt_method *meth = v->m;
	size_t es = ckpt_dtype_size(v->out), nx = v->nx, bad = 0;
	int masked = ckpt_method_random(meth->kind) || ckpt_method_ranks(meth->kind);
	char *o = (char *)out + off * es;

	if (f32_block(v, s, in, out, start, off, m, masked, &bad))
		return bad;
	if (s->npend + m > BLOCK) /* (before the block takes the arrays) */
		bad += flush(v, s, out);
	ckpt_to_double(v->types[0], (const char *)in[0] + off * ckpt_dtype_size(v->types[0]),
	               s->b, m);
	for (size_t k = 0; k < nx; k++)
		ckpt_to_double(v->types[k + 1],
		               (const char *)in[k + 1] + off * ckpt_dtype_size(v->types[k + 1]),
		               s->x + k * BLOCK, m);
	if (ckpt_method_random(meth->kind))
		dare_mask(v, s, start + off, m);
	if (ckpt_method_ranks(meth->kind))
		magnitude_window(v, s, start + off, m);
	/* mostly plain doubles decide; the rest in pairs, the rare ones exactly */
	if (s->quick) {
		bad += ckpt_mquick(v, s, o, m, masked);
		if (!all_zero(s->hard, m))
			gather(v, s, NULL, start, off, m, masked);
		return bad;
	}
	for (size_t i = 0; i < m; i++)
		s->idx[i] = start + off + i;
	for (size_t i = 0; !masked && i < nx * BLOCK; i++)
		s->keep[i] = 1;
	pairs(v, s, m);
	return bad + ckpt_from_double(v->out, s->res, o, m);
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
	struct scratch *s = calloc(1, sizeof *s); /* (big, least: read, unused, without exact_c) */
	size_t nx = v->nx, bad = 0;
	/* (and after them, room for the inputs widened to float) */
	double *rows = malloc((6 * nx * BLOCK + nx + 1 + (nx + 1) * BLOCK / 2) * sizeof *rows);
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
	s->px = rows + 4 * nx * BLOCK;
	s->pkeep = rows + 5 * nx * BLOCK;
	s->x1 = rows + 6 * nx * BLOCK;
	s->keep1 = flags;
	s->frow = (float *)(rows + 6 * nx * BLOCK + nx + 1);
	for (size_t i = 0; i < BLOCK; i++)
		s->ones[i] = 1;
	s->exact_c = ckpt_mquick_exact_constant(v);
	s->equal_c = ckpt_mquick_equal_constant(v, s->exact_c);
	s->quick = ckpt_mquick_applies(v);
	s->f32 = ckpt_mquick_f32_applies(v, s->exact_c);
	s->melect = ckpt_melect_applies(v);
	if (s->f32 == 2)
		ckpt_mfloat_setup(v, &s->fl);
	s->draws = s->f32 && draws_in_loops(v);
	/* (u 2^-53 < density, for the integer u: u below ceil(density 2^53)) */
	s->dlimit = (uint64_t)ceil(v->m->density * 0x1p53);
	for (size_t end = off + n; off < end; off += BLOCK)
		bad += block(v, s, in, out, start, off, end - off < BLOCK ? end - off : BLOCK);
	if (s->npend)
		bad += flush(v, s, out);
	free(s);
	free(rows);
	free(flags);
	return bad;
}
