/* xsum.c - exact sums of doubles, rounded once. */
#include "xsumint.h"
#include "eft.h"
#include "err.h"
#include "par.h"
#include "vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ckpt_xsum_init(ckpt_xsum *s)
{
	memset(s, 0, sizeof *s);
}

/* Digits back into [0, 2^32), the top one holding the sign. */
static void settle(ckpt_xsum *s)
{
	int64_t carry = 0;

	for (int i = 0; i < CKPT_XSUM_DIGITS - 1; i++) {
		int64_t v = s->d[i] + carry;

		carry = v >> 32; /* (arithmetic: floor) */
		s->d[i] = v & 0xffffffff;
	}
	s->d[CKPT_XSUM_DIGITS - 1] += carry;
	s->adds = 0;
}

static inline void add(ckpt_xsum *s, double x)
{
	uint64_t bits, m;
	int e, pos;
	unsigned __int128 v;

	memcpy(&bits, &x, sizeof bits);
	e = (int)(bits >> 52 & 0x7ff);
	m = bits & ((UINT64_C(1) << 52) - 1);
	if (e == 0x7ff) {
		s->nonfinite = 1;
		return;
	}
	if (m == 0 && e == 0)
		return;
	/* x = m 2^(pos - 1074) */
	pos = e ? e - 1 : 0;
	m |= e ? UINT64_C(1) << 52 : 0;
	v = (unsigned __int128)m << (pos % 32);
	if (bits >> 63) {
		s->d[pos / 32] -= (int64_t)(uint32_t)v;
		s->d[pos / 32 + 1] -= (int64_t)(uint32_t)(v >> 32);
		s->d[pos / 32 + 2] -= (int64_t)(uint32_t)(v >> 64);
	} else {
		s->d[pos / 32] += (int64_t)(uint32_t)v;
		s->d[pos / 32 + 1] += (int64_t)(uint32_t)(v >> 32);
		s->d[pos / 32 + 2] += (int64_t)(uint32_t)(v >> 64);
	}
	if (++s->adds >= (UINT32_C(1) << 30))
		settle(s);
}

void ckpt_xsum_add(ckpt_xsum *s, double x)
{
	add(s, x);
}

/* s += a b: the product and its error (Dekker's), the error only where
 * there is one */
static inline void add_prod(ckpt_xsum *s, double a, double b)
{
	double e, p = ckpt_two_prod(a, b, &e);

	if (p != 0)
		add(s, p);
	if (e != 0 && isfinite(p))
		add(s, e);
}

void ckpt_xsum_add_prod(ckpt_xsum *s, double a, double b)
{
	add_prod(s, a, b);
}

void ckpt_xsum_dot(ckpt_xsum *s, const double *a, const double *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		add_prod(s, a[i], b[i]);
}

void ckpt_xsum_merge(ckpt_xsum *s, ckpt_xsum *t)
{
	settle(s);
	settle(t);
	for (int i = 0; i < CKPT_XSUM_DIGITS; i++)
		s->d[i] += t->d[i];
	s->nonfinite |= t->nonfinite;
}

int ckpt_xsum_sum_ranks(ckpt_xsum *s, size_t n)
{
	enum { PER = CKPT_XSUM_DIGITS + 1 }; /* (the digits and the NaN flag) */
	uint64_t *v = malloc((n * PER + 1) * sizeof *v);

	if (!v)
		return ckpt_seterr("out of memory");
	for (size_t i = 0; i < n; i++) {
		settle(&s[i]); /* (digits below 2^32: P of them add without overflow) */
		for (int d = 0; d < CKPT_XSUM_DIGITS; d++)
			v[i * PER + (size_t)d] = (uint64_t)s[i].d[d];
		v[i * PER + CKPT_XSUM_DIGITS] = s[i].nonfinite != 0;
	}
	if (ckpt_par_sum_u64(v, n * PER) < 0) {
		free(v);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		for (int d = 0; d < CKPT_XSUM_DIGITS; d++) /* (two's complement: the top's sign) */
			s[i].d[d] = (int64_t)v[i * PER + (size_t)d];
		s[i].nonfinite = v[i * PER + CKPT_XSUM_DIGITS] != 0;
		settle(&s[i]);
	}
	free(v);
	return 0;
}

double ckpt_xsum_round(ckpt_xsum *s)
{
	uint32_t mag[CKPT_XSUM_DIGITS];
	int neg, top = -1, len, sh;
	uint64_t mant = 0, half, sticky = 0;

	if (s->nonfinite)
		return NAN;
	settle(s);
	neg = s->d[CKPT_XSUM_DIGITS - 1] < 0;
	/* the magnitude, from two's complement */
	{
		uint64_t carry = neg;

		for (int i = 0; i < CKPT_XSUM_DIGITS; i++) {
			uint64_t v = (uint32_t)(neg ? ~(uint32_t)s->d[i] : (uint32_t)s->d[i]);

			v += carry;
			mag[i] = (uint32_t)v;
			carry = v >> 32;
		}
	}
	for (int i = CKPT_XSUM_DIGITS - 1; i >= 0 && top < 0; i--)
		if (mag[i])
			top = i;
	if (top < 0)
		return 0;
	len = 32 * top + 32 - __builtin_clz(mag[top]); /* bits of the integer */
	sh = len > 53 ? len - 53 : 0;
	for (int b = 0; b < 53 && sh + b < len; b++)
		mant |= (uint64_t)(mag[(sh + b) / 32] >> ((sh + b) % 32) & 1) << b;
	half = sh ? mag[(sh - 1) / 32] >> ((sh - 1) % 32) & 1 : 0;
	for (int b = 0; b + 1 < sh && !sticky; b++)
		sticky = mag[b / 32] >> (b % 32) & 1;
	if (half && (sticky || (mant & 1)))
		mant++;
	return (neg ? -1 : 1) * ldexp((double)mant, sh - 1074);
}

/* ---- in double-double, with a bound ------------------------------------ */

#define DOT_LANES 8 /* independent sums: the loop vectorises */

/* What n products' sums in `lanes` double-double lanes may be off by, m at
 * least the sum of their magnitudes (dot_lanes() says why); lane 0 takes
 * the elements past the last whole group too. */
static double lanes_bound(size_t n, size_t lanes, double m)
{
	size_t per = n / lanes + lanes;

	return 4 * (double)(per + 1) * (double)(per + 1) * 0x1p-106 * m * (1 + 0x1p-40) +
	       (double)n * 0x1p-1000;
}

/* The lanes' last steps: the elements past the last whole group into
 * lane 0, each lane's pair added to s exactly, the bound. */
static void end_lanes(ckpt_xsum *s, double *bound, const double *a, const double *b, size_t i,
                      size_t n, double *hi, double *lo, double *mag)
{
	double m = 0;

	for (; i < n; i++) {
		double pe, e, p = ckpt_two_prod(a[i], b[i], &pe);

		hi[0] = ckpt_two_sum(hi[0], p, &e);
		lo[0] += e + pe;
		mag[0] += fabs(p);
	}
	for (size_t j = 0; j < DOT_LANES; j++) {
		add(s, hi[j]);
		add(s, lo[j]);
		m += mag[j];
	}
	*bound += lanes_bound(n, DOT_LANES, m);
}

/* sum a[i] b[i] in DOT_LANES double-double sums (Ogita, Rump and Oishi's
 * Dot2: the products' and the additions' errors kept apart), each lane's
 * pair into s exactly; into *bound what the pairs may be off by.  A lane
 * of m products: its error is at most 2 (m + 1)^2 u^2 sum |a b| (u =
 * 2^-53; counted twice over), and 2^-1000 a product for underflow. */
CKPT_WIDE_VECTORS
static void dot_lanes(ckpt_xsum *s, double *bound, const double *a, const double *b, size_t n)
{
	double hi[DOT_LANES] = {0}, lo[DOT_LANES] = {0}, mag[DOT_LANES] = {0};
	size_t i = 0;

	for (; i + DOT_LANES <= n; i += DOT_LANES)
		for (size_t j = 0; j < DOT_LANES; j++) {
			double pe, e, p = ckpt_two_prod(a[i + j], b[i + j], &pe);

			hi[j] = ckpt_two_sum(hi[j], p, &e);
			lo[j] += e + pe;
			mag[j] += fabs(p);
		}
	end_lanes(s, bound, a, b, i, n, hi, lo, mag);
}

#if CKPT_HAVE_FMA
/* a + b and its error (TwoSum), four at a time */
__attribute__((target("avx2"))) static inline __m256d two_sum_pd(__m256d a, __m256d b,
                                                                 __m256d *e)
{
	__m256d s = _mm256_add_pd(a, b), bb = _mm256_sub_pd(s, a);

	*e = _mm256_add_pd(_mm256_sub_pd(a, _mm256_sub_pd(s, bb)), _mm256_sub_pd(b, bb));
	return s;
}

/* x y added to the lanes' double-double sums h + l: the product's error
 * from the FMA instruction (exact, as Dekker's), the sum's from TwoSum;
 * the product returned */
__attribute__((target("avx2,fma"))) static inline __m256d add_prod_pd(__m256d *h, __m256d *l,
                                                                      __m256d x, __m256d y)
{
	__m256d p = _mm256_mul_pd(x, y), pe = _mm256_fmsub_pd(x, y, p), e;

	*h = two_sum_pd(*h, p, &e);
	*l = _mm256_add_pd(*l, _mm256_add_pd(e, pe));
	return p;
}

/* The same with the products' errors from the FMA instruction (exact, as
 * Dekker's: the same lanes), lanes 4 j .. 4 j + 3 in vector j. */
__attribute__((target("avx2,fma")))
static void dot_lanes_fma(ckpt_xsum *s, double *bound, const double *a, const double *b,
                          size_t n)
{
	__m256d h[2], l[2], g[2];
	__m256d abs = _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX));
	double hi[DOT_LANES], lo[DOT_LANES], mag[DOT_LANES];
	size_t i = 0;

	for (int v = 0; v < 2; v++)
		h[v] = l[v] = g[v] = _mm256_setzero_pd();
	for (; i + DOT_LANES <= n; i += DOT_LANES)
		for (int v = 0; v < 2; v++) {
			__m256d p = add_prod_pd(&h[v], &l[v], _mm256_loadu_pd(a + i + 4 * v),
			                        _mm256_loadu_pd(b + i + 4 * v));

			g[v] = _mm256_add_pd(g[v], _mm256_and_pd(p, abs));
		}
	for (int v = 0; v < 2; v++) {
		_mm256_storeu_pd(hi + 4 * v, h[v]);
		_mm256_storeu_pd(lo + 4 * v, l[v]);
		_mm256_storeu_pd(mag + 4 * v, g[v]);
	}
	end_lanes(s, bound, a, b, i, n, hi, lo, mag);
}
#endif

/* ---- every pair of task vectors at once ---------------------------------- */

#if CKPT_HAVE_FMA
/* (lanes: 4 in AVX2, 8 in AVX-512; arrays of the most) */
enum { PAIR_MODELS = 3, PAIRS = PAIR_MODELS * (PAIR_MODELS + 1) / 2, LANES_MOST = 8 };

/* The elements past the last whole group of lanes, from i, into lane 0;
 * returns whether a task vector was inexact. */
static inline __attribute__((always_inline)) int
pair_tail(const float *b, const float *const *x, size_t nx, int based, size_t i, size_t n,
          double hi[PAIRS][LANES_MOST], double lo[PAIRS][LANES_MOST])
{
	uint64_t rest = 0;

	for (; i < n; i++) {
		double tk[PAIR_MODELS], e;

		for (size_t k = 0; k < nx && based; k++) {
			uint64_t u;

			tk[k] = ckpt_two_sum((double)x[k][i], -(double)b[i], &e);
			memcpy(&u, &e, sizeof u);
			rest |= u << 1; /* (the error's bits, its sign aside: -0 is exact) */
		}
		for (size_t k = 0; k < nx && !based; k++) /* (exact, Inf and NaN too) */
			tk[k] = x[k][i];
		for (size_t a = 0, p = 0; a < nx; a++)
			for (size_t c = a; c < nx; c++, p++) {
				double qe, q = ckpt_two_prod(tk[a], tk[c], &qe);

				hi[p][0] = ckpt_two_sum(hi[p][0], q, &e);
				lo[p][0] += e + qe;
			}
	}
	return rest != 0;
}

/* The lanes of every pair (nx models and whether there is a base,
 * constants: the loops unroll and the sums stay in registers) in one loop
 * over the elements: the task vectors t_k = x_k - b as TwoSum makes them
 * (an error not 0: the piece is not taken; without a base, x_k itself),
 * each pair's products with their errors (FMA) and their double-double
 * sums, as dot_lanes_fma() has them; lane 0 takes the elements past the
 * last whole group.  Returns whether every t_k was exact. */
__attribute__((target("avx2,fma"))) static inline __attribute__((always_inline)) int
pair_lanes(const float *b, const float *const *x, size_t nx, int based, size_t n,
           double hi[PAIRS][LANES_MOST], double lo[PAIRS][LANES_MOST])
{
	__m256d h[PAIRS], l[PAIRS], t[PAIR_MODELS], inexact = _mm256_setzero_pd();
	__m256d sign = _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MIN));
	size_t i = 0;

	for (size_t p = 0; p < PAIRS; p++)
		h[p] = l[p] = _mm256_setzero_pd();
	for (; i + 4 <= n; i += 4) {
		__m256d nb = based ? _mm256_xor_pd(_mm256_cvtps_pd(_mm_loadu_ps(b + i)), sign)
		                   : _mm256_setzero_pd();

		for (size_t k = 0; k < nx; k++) {
			__m256d e;

			t[k] = _mm256_cvtps_pd(_mm_loadu_ps(x[k] + i));
			if (based) {
				t[k] = two_sum_pd(t[k], nb, &e);
				inexact = _mm256_or_pd(inexact, e);
			}
		}
		for (size_t a = 0, p = 0; a < nx; a++)
			for (size_t c = a; c < nx; c++, p++)
				add_prod_pd(&h[p], &l[p], t[a], t[c]);
	}
	for (size_t p = 0; p < PAIRS; p++) {
		_mm256_storeu_pd(hi[p], h[p]);
		_mm256_storeu_pd(lo[p], l[p]);
	}
	inexact = _mm256_andnot_pd(sign, inexact);
	return !pair_tail(b, x, nx, based, i, n, hi, lo) &&
	       _mm256_testz_si256(_mm256_castpd_si256(inexact), _mm256_castpd_si256(inexact));
}

/* The same in AVX-512: 8 lanes. */
__attribute__((target("avx512f"))) static inline __m512d two_sum_pd8(__m512d a, __m512d b,
                                                                    __m512d *e)
{
	__m512d s = _mm512_add_pd(a, b), bb = _mm512_sub_pd(s, a);

	*e = _mm512_add_pd(_mm512_sub_pd(a, _mm512_sub_pd(s, bb)), _mm512_sub_pd(b, bb));
	return s;
}

__attribute__((target("avx512f"))) static inline __attribute__((always_inline)) int
pair_lanes8(const float *b, const float *const *x, size_t nx, int based, size_t n,
            double hi[PAIRS][LANES_MOST], double lo[PAIRS][LANES_MOST])
{
	__m512d h[PAIRS], l[PAIRS], t[PAIR_MODELS];
	__m512i inexact = _mm512_setzero_si512(), sign = _mm512_set1_epi64(INT64_MIN);
	size_t i = 0;

	for (size_t p = 0; p < PAIRS; p++)
		h[p] = l[p] = _mm512_setzero_pd();
	for (; i + 8 <= n; i += 8) {
		__m512d nb = based ? _mm512_castsi512_pd(_mm512_xor_si512(
		                         _mm512_castpd_si512(_mm512_cvtps_pd(_mm256_loadu_ps(b + i))),
		                         sign))
		                   : _mm512_setzero_pd();

		for (size_t k = 0; k < nx; k++) {
			__m512d e;

			t[k] = _mm512_cvtps_pd(_mm256_loadu_ps(x[k] + i));
			if (based) {
				t[k] = two_sum_pd8(t[k], nb, &e);
				inexact = _mm512_or_si512(inexact, _mm512_castpd_si512(e));
			}
		}
		for (size_t a = 0, p = 0; a < nx; a++)
			for (size_t c = a; c < nx; c++, p++) {
				__m512d q = _mm512_mul_pd(t[a], t[c]), qe = _mm512_fmsub_pd(t[a], t[c], q), e;

				h[p] = two_sum_pd8(h[p], q, &e);
				l[p] = _mm512_add_pd(l[p], _mm512_add_pd(e, qe));
			}
	}
	for (size_t p = 0; p < PAIRS; p++) {
		_mm512_storeu_pd(hi[p], h[p]);
		_mm512_storeu_pd(lo[p], l[p]);
	}
	return !pair_tail(b, x, nx, based, i, n, hi, lo) &&
	       !_mm512_test_epi64_mask(_mm512_andnot_si512(sign, inexact),
	                               _mm512_andnot_si512(sign, inexact));
}

/* Each pair's lanes (L of them) added to s exactly, what they may be off
 * by to bound. */
static void pair_sums(ckpt_xsum *s, double *bound, size_t nx, size_t n, size_t L,
                      double hi[PAIRS][LANES_MOST], double lo[PAIRS][LANES_MOST])
{
	double sq[PAIR_MODELS];

	/* sum |t_a t_c|: the squares' sums themselves (pair p of a == c), and
	 * by Cauchy and Schwarz at most their roots' product for the others */
	for (size_t a = 0, p = 0; a < nx; p += nx - a, a++) {
		sq[a] = 0;
		for (size_t j = 0; j < L; j++)
			sq[a] += hi[p][j] + fabs(lo[p][j]);
		sq[a] = sqrt(sq[a] * (1 + 0x1p-40));
	}
	for (size_t a = 0, p = 0; a < nx; a++)
		for (size_t c = a; c < nx; c++, p++) {
			for (size_t j = 0; j < L; j++) {
				add(&s[p], hi[p][j]);
				add(&s[p], lo[p][j]);
			}
			bound[p] += lanes_bound(n, L, sq[a] * sq[c] * (1 + 0x1p-40));
		}
}

/* (each case its own loop: the model count and whether there is a base
 * constants) */
__attribute__((target("avx2,fma"))) static int pair_lanes4_any(const float *b,
                                                               const float *const *x,
                                                               size_t nx, size_t n,
                                                               double hi[PAIRS][LANES_MOST],
                                                               double lo[PAIRS][LANES_MOST])
{
	if (b)
		return nx == 2 ? pair_lanes(b, x, 2, 1, n, hi, lo) : pair_lanes(b, x, 3, 1, n, hi, lo);
	return nx == 2 ? pair_lanes(b, x, 2, 0, n, hi, lo) : pair_lanes(b, x, 3, 0, n, hi, lo);
}

__attribute__((target("avx512f"))) static int pair_lanes8_any(const float *b,
                                                              const float *const *x,
                                                              size_t nx, size_t n,
                                                              double hi[PAIRS][LANES_MOST],
                                                              double lo[PAIRS][LANES_MOST])
{
	if (b)
		return nx == 2 ? pair_lanes8(b, x, 2, 1, n, hi, lo) : pair_lanes8(b, x, 3, 1, n, hi, lo);
	return nx == 2 ? pair_lanes8(b, x, 2, 0, n, hi, lo) : pair_lanes8(b, x, 3, 0, n, hi, lo);
}

int ckpt_xsum_pair_dots_f32_lanes(ckpt_xsum *s, double *bound, const float *b,
                                  const float *const *x, size_t nx, size_t n, int wide)
{
	double hi[PAIRS][LANES_MOST] = {{0}}, lo[PAIRS][LANES_MOST] = {{0}};

	if (!(wide ? pair_lanes8_any(b, x, nx, n, hi, lo) : pair_lanes4_any(b, x, nx, n, hi, lo)))
		return 0;
	pair_sums(s, bound, nx, n, wide ? 8 : 4, hi, lo);
	return 1;
}
#endif

int ckpt_xsum_pair_dots_can(size_t nx)
{
#if CKPT_HAVE_FMA
	return (nx == 2 || nx == 3) && __builtin_cpu_supports("avx2") &&
	       __builtin_cpu_supports("fma");
#else
	(void)nx;
	return 0;
#endif
}

int ckpt_xsum_pair_dots_f32(ckpt_xsum *s, double *bound, const float *b, const float *const *x,
                            size_t nx, size_t n)
{
#if CKPT_HAVE_FMA
	if (ckpt_xsum_pair_dots_can(nx))
		return ckpt_xsum_pair_dots_f32_lanes(s, bound, b, x, nx, n,
		                                     __builtin_cpu_supports("avx512f"));
#endif
	(void)s, (void)bound, (void)b, (void)x, (void)nx, (void)n;
	return 0;
}

void ckpt_xsum_dot_bounded(ckpt_xsum *s, double *bound, const double *a, const double *b,
                           size_t n)
{
#if CKPT_HAVE_FMA
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
		dot_lanes_fma(s, bound, a, b, n);
		return;
	}
#endif
	dot_lanes(s, bound, a, b, n);
}

int ckpt_xsum_round_bounded(const ckpt_xsum *s, double bound, double *out)
{
	ckpt_xsum lo = *s, hi = *s;
	double l, h;

	if (s->nonfinite || !(bound <= 0x1p1000))
		return 0;
	ckpt_xsum_add(&lo, -bound);
	ckpt_xsum_add(&hi, bound);
	l = ckpt_xsum_round(&lo);
	h = ckpt_xsum_round(&hi);
	if (memcmp(&l, &h, sizeof l) != 0 || !isfinite(l))
		return 0;
	*out = l;
	return 1;
}
