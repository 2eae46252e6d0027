/* combine.c - linear combinations of slabs, exactly rounded. */
#include "combine.h"
#include "bf16mean.h"
#include "f32mean.h"
#include "err.h"
#include "vec.h"
#include "i128.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef __int128 i128;

/* Values per block: the working arrays stay in L1 whatever the slab size. */
#define BLOCK 512
_Static_assert(BLOCK <= CKPT_BF16_BLOCK, "a block fits bf16mean.c");
_Static_assert(BLOCK <= CKPT_F32_BLOCK, "a block fits f32mean.c");

static int exact_integer_mean(const ckpt_combine *c)
{
	return !ckpt_dtype_is_float(c->dtype) && !c->weights && c->out == c->dtype;
}

/* The mean of integers stored as a float type: from the exact sum. */
static int integer_mean_to_float(const ckpt_combine *c)
{
	return !ckpt_dtype_is_float(c->dtype) && !c->weights &&
	       ckpt_dtype_is_float(c->out);
}

void ckpt_combine_init(ckpt_combine *c, ckpt_dtype t, ckpt_dtype out, size_t nin,
                       const double *weights)
{
	c->dtype = t;
	c->out = out;
	c->nin = nin;
	c->weights = weights;
	c->types = NULL;
}

/* floor(s / n), rounded half to even */
static i128 div_half_even(i128 s, i128 n)
{
	i128 q = s / n, r = s % n;

	if (r < 0) {
		q -= 1;
		r += n;
	}
	if (2 * r > n || (2 * r == n && (q & 1)))
		q += 1;
	return q;
}

/* The mean of integers of one type is within the type's range. */
static void mean_exact_block(const ckpt_combine *c, const void *const *in,
                             size_t off, void *out, size_t n)
{
	size_t es = ckpt_dtype_size(c->dtype);
	i128 sum[BLOCK];

	for (size_t k = 0; k < c->nin; k++)
		ckpt_to_i128(c->dtype, (const char *)in[k] + off * es, sum, n, k > 0);
	for (size_t i = 0; i < n; i++)
		ckpt_from_i128(c->dtype, div_half_even(sum[i], (i128)c->nin), out, off + i);
}

static int bit_length(unsigned __int128 a)
{
	int n = 0;

	for (; a; a >>= 1)
		n++;
	return n;
}

/* sum / n as a double: rounded to nearest for float64; rounded to odd for
 * a narrower type, so that rounding it into that type is the one rounding
 * of the exact quotient (53 bits are more than 2 beyond 24). */
double ckpt_i128_quotient(ckpt_i128 sum, ckpt_i128 n, int to_odd)
{
	unsigned __int128 a = sum < 0 ? -(unsigned __int128)sum : (unsigned __int128)sum, q;
	int k, len;
	double d;

	if (a == 0)
		return 0;
	k = 120 - bit_length(a); /* a fixed point with 120 significant bits */
	a <<= k;
	q = a / (unsigned __int128)n;
	q |= a % (unsigned __int128)n != 0; /* sticky: the quotient was inexact */
	len = bit_length(q);
	if (to_odd && len > 53) {
		unsigned __int128 t = q >> (len - 53);

		t |= (q & (((unsigned __int128)1 << (len - 53)) - 1)) != 0;
		d = ldexp((double)t, len - 53 - k);
	} else {
		d = ldexp((double)q, -k); /* (double) rounds to nearest, once */
	}
	return sum < 0 ? -d : d;
}

static size_t mean_to_float_block(const ckpt_combine *c, const void *const *in,
                                  size_t off, void *out, size_t n)
{
	size_t es = ckpt_dtype_size(c->dtype);
	i128 sum[BLOCK];
	double mean[BLOCK];

	for (size_t k = 0; k < c->nin; k++)
		ckpt_to_i128(c->dtype, (const char *)in[k] + off * es, sum, n, k > 0);
	for (size_t i = 0; i < n; i++)
		mean[i] = ckpt_i128_quotient(sum[i], (i128)c->nin, c->out != CKPT_F64);
	return ckpt_from_double(c->out, mean, (char *)out + off * ckpt_dtype_size(c->out), n);
}

/* ---- floats: exact sums, one rounding ---------------------------------- */

/* a + b = s + *e exactly (Knuth's TwoSum). */
static inline double two_sum(double a, double b, double *e)
{
	double s = a + b, bb = s - a;

	*e = (a - (s - bb)) + (b - bb);
	return s;
}

/* a * b = p + *e exactly (Dekker's product with Veltkamp's split, not fma:
 * without the instruction, fma is slow software); exact below 2^996. */
static inline void split(double a, double *hi, double *lo)
{
	double t = 134217729.0 * a; /* 2^27 + 1 */

	*hi = t - (t - a);
	*lo = a - *hi;
}

/* A weight split once for all the products it is in. */
struct weight {
	double w, hi, lo;
};

static struct weight weight_of(double w)
{
	struct weight s = {w, 0, 0};

	split(w, &s.hi, &s.lo);
	return s;
}

/* w * x = p + *e; narrow: x has at most 26 significant bits (float32 and
 * narrower), so it is its own upper half and needs no split */
static inline double two_prod(struct weight w, double x, int narrow, double *e)
{
	double p = w.w * x, xh = x, xl = 0;

	if (!narrow)
		split(x, &xh, &xl);
	*e = ((w.hi * xh - p) + w.hi * xl + w.lo * xh) + w.lo * xl;
	return p;
}

/* hi + lo += x */
static inline void accumulate(double *hi, double *lo, double x, double xe)
{
	double e;

	*hi = two_sum(*hi, x, &e);
	*lo += e + xe;
}

/* Dividing by the number of inputs (1 for a weighted combination): n and
 * 1/n, n split once. */
struct divisor {
	struct weight n;
	double inv;
	int pow2; /* 1/n is exact: dividing is scaling */
};

static struct divisor divisor_of(size_t n)
{
	struct divisor d = {weight_of((double)n), 1 / (double)n, (n & (n - 1)) == 0};

	return d;
}

/* Whether v[0..n) are all +-0 (an OR of the bits without the sign, which
 * vectorises: narrow inputs mostly have exact double sums). */
static inline int all_zero(const double *v, size_t n)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t b;

		memcpy(&b, &v[i], sizeof b);
		acc |= b << 1;
	}
	return acc == 0;
}

/* Whether v[0..n) are all finite (in a form that vectorises). */
static inline int all_finite(const double *v, size_t n)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t b;

		memcpy(&b, &v[i], sizeof b);
		acc |= (b & UINT64_C(0x7ff0000000000000)) == UINT64_C(0x7ff0000000000000);
	}
	return acc == 0;
}

/* The exact sums hi[i] + lo[i], divided by d, as doubles into hi: rounded
 * to nearest for float64, to odd for a narrower type (so that rounding it
 * into that type is the one rounding of the exact value: 53 bits are more
 * than 2 beyond 24).  Inf and NaN sums are left as they are (an overflow
 * is the caller's to redo scaled). */
static inline void finish(double *hi, double *lo, size_t n, struct divisor d, int to_odd)
{
	/* without branches or bit tricks, so that it vectorises; a power of
	 * two scales both halves exactly (below 2^-1021 the low half may
	 * round, which no type narrower than float64 can tell) */
	for (size_t i = 0; d.pow2 && i < n; i++) {
		double h = hi[i], l = fabs(lo[i]) <= DBL_MAX ? lo[i] : 0;
		double e, s = two_sum(h, l, &e);

		s = l == 0 ? h : s;
		e = l == 0 ? 0 : e;
		hi[i] = fabs(h) <= DBL_MAX ? s * d.inv : h;
		lo[i] = e * d.inv;
	}
	for (size_t i = 0; !d.pow2 && i < n; i++) {
		/* (fabs(x) <= DBL_MAX: isfinite(x) in a form that vectorises) */
		double h = hi[i], l = fabs(lo[i]) <= DBL_MAX ? lo[i] : 0; /* beyond 2^996 */
		double e, s = two_sum(h, l, &e), q, p, pe, r, qe, t;

		/* adding a zero would turn -0 into +0 */
		s = l == 0 ? h : s;
		e = l == 0 ? 0 : e;
		/* q + r/n: q the rounded quotient, so r = s + e - q n is exact
		 * when it is a multiple of ulp(q) / 2, a tie (q n = p + pe by
		 * two_prod; s - p is exact, p being close to s); r / n (a
		 * division, exact at a tie, where r * (1/n) need not be) only
		 * decides the last rounding */
		q = s / d.n.w;
		p = two_prod(d.n, q, 0, &pe);
		r = ((s - p) - pe) + e;
		t = two_sum(q, r / d.n.w, &qe);
		s = r == 0 ? q : t;
		lo[i] = r == 0 ? 0 : qe;
		hi[i] = fabs(h) <= DBL_MAX ? s : h;
	}
	if (!to_odd || all_zero(lo, n))
		return;
	/* To odd: toward zero, then the last bit set - the exact value lies
	 * strictly between hi and its neighbour on lo's side (one less in the
	 * bits is one ulp toward zero, across binades too).  Only a value
	 * exactly halfway between two of a type of at most 24 bits (its low 27
	 * bits zero) can be rounded twice, so only such a one is looked at. */
	for (size_t i = 0; i < n; i++) { /* (selects, not branches: it vectorises) */
		uint64_t b, odd;
		int at = lo[i] != 0 && hi[i] != 0 && fabs(hi[i]) <= DBL_MAX;

		memcpy(&b, &hi[i], sizeof b);
		odd = (b - (uint64_t)((lo[i] > 0) != (hi[i] > 0))) | 1;
		b = (b & 0x7ffffff) == 0 && at ? odd : b;
		memcpy(&hi[i], &b, sizeof b);
	}
}

static ckpt_dtype in_type(const ckpt_combine *c, size_t k)
{
	return c->types ? c->types[k] : c->dtype;
}

/* Values of t have at most 26 significant bits. */
static int narrow(ckpt_dtype t)
{
	return ckpt_dtype_size(t) <= 2 || t == CKPT_F32;
}

static const void *at(const ckpt_combine *c, const void *const *in, size_t k, size_t off)
{
	return (const char *)in[k] + off * ckpt_dtype_size(in_type(c, k));
}

/* A combination whose sum overflowed double on the way (the mean of 1e308
 * and 1e308): again with every term scaled by 2^-64, which is exact, so the
 * result is finite whenever it is representable. */
static double rescaled(const ckpt_combine *c, const void *const *in, size_t i)
{
	struct divisor d = divisor_of(c->weights ? 1 : c->nin);
	double hi = 0, lo = 0, x;

	for (size_t k = 0; k < c->nin; k++) {
		double e = 0;

		ckpt_to_double(in_type(c, k), at(c, in, k, i), &x, 1);
		x = ldexp(x, -64);
		if (c->weights)
			x = two_prod(weight_of(c->weights[k]), x, 0, &e);
		accumulate(&hi, &lo, x, e); /* (a zero result is finite: no -0 here) */
	}
	finish(&hi, &lo, 1, d, c->out != CKPT_F64);
	return ldexp(hi, 64);
}

/* ---- the exact mean, where the double-double cannot decide ----------- */

/* Every finite double is an integer multiple of 2^-1074: the sum of the
 * inputs is an integer of at most 2150 bits (plus the bits of n), held in
 * two's complement. */
#define LIMBS 36

struct fixed {
	uint64_t w[LIMBS]; /* least significant first */
};

/* f += m 2^shift (m < 2^64, shift < 64 (LIMBS - 2)), or f -= it */
static void fixed_add(struct fixed *f, uint64_t m, int shift, int negative)
{
	unsigned __int128 v = (unsigned __int128)m << (shift % 64);
	uint64_t part[2] = {(uint64_t)v, (uint64_t)(v >> 64)};
	unsigned carry = 0;

	for (int i = shift / 64, k = 0; i < LIMBS; i++, k++) {
		uint64_t a = k < 2 ? part[k] : 0, old = f->w[i], s;

		if (negative) { /* subtract a and the borrow */
			s = old - a - carry;
			carry = old < a || (old == a && carry) ? 1 : 0;
		} else {
			s = old + a + carry;
			carry = s < old || (s == old && carry) ? 1 : 0;
		}
		f->w[i] = s;
		if (k >= 1 && !carry)
			break;
	}
}

static void fixed_add_double(struct fixed *f, double x)
{
	int e;
	double m = frexp(fabs(x), &e); /* x = m 2^e, m in [0.5, 1) */
	uint64_t mant = (uint64_t)ldexp(m, 53);
	int shift = e - 53 + 1074;

	if (shift < 0) { /* a subnormal: its low bits are zero */
		mant >>= -shift;
		shift = 0;
	}
	fixed_add(f, mant, shift, x < 0);
}

static void fixed_add_integer(struct fixed *f, i128 v)
{
	unsigned __int128 a = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;

	fixed_add(f, (uint64_t)a, 1074, v < 0);
	fixed_add(f, (uint64_t)(a >> 64), 1074 + 64, v < 0);
}

/* f = |f| / n; returns the remainder */
static uint64_t fixed_divide(struct fixed *f, uint64_t n)
{
	unsigned __int128 r = 0;

	for (int i = LIMBS - 1; i >= 0; i--) {
		unsigned __int128 cur = r << 64 | f->w[i];

		f->w[i] = (uint64_t)(cur / n);
		r = cur % n;
	}
	return (uint64_t)r;
}

static void fixed_negate(struct fixed *f)
{
	for (int i = 0; i < LIMBS; i++)
		f->w[i] = ~f->w[i];
	fixed_add(f, 1, 0, 0);
}

/* the 64 bits of f from bit at up (at >= 0) */
static uint64_t fixed_bits(const struct fixed *f, int at)
{
	int i = at / 64, b = at % 64;
	uint64_t lo = f->w[i], hi = i + 1 < LIMBS ? f->w[i + 1] : 0;

	return b ? lo >> b | hi << (64 - b) : lo;
}

static int fixed_length(const struct fixed *f)
{
	for (int i = LIMBS - 1; i >= 0; i--)
		if (f->w[i])
			return 64 * i + 64 - __builtin_clzll(f->w[i]);
	return 0;
}

static int fixed_low_bits_zero(const struct fixed *f, int below)
{
	for (int i = 0; i < below / 64; i++)
		if (f->w[i])
			return 0;
	return below % 64 == 0 || (f->w[below / 64] & ((UINT64_C(1) << below % 64) - 1)) == 0;
}

/* q 2^-1074 plus a remainder (rem of n) as a double: rounded to nearest
 * even, or to odd for a narrower type. */
static double fixed_round(const struct fixed *q, uint64_t rem, uint64_t n, int to_odd)
{
	int len = fixed_length(q), sh = len > 53 ? len - 53 : 0;
	uint64_t mant = fixed_bits(q, sh) & ((UINT64_C(1) << 53) - 1);
	int half, sticky; /* the first bit dropped; any below it */

	if (sh == 0) { /* the grid of 2^-1074: the remainder decides */
		half = (unsigned __int128)rem * 2 >= n;
		sticky = rem != 0 && (unsigned __int128)rem * 2 != n;
	} else {
		half = fixed_bits(q, sh - 1) & 1;
		sticky = rem != 0 || !fixed_low_bits_zero(q, sh - 1);
	}
	if (to_odd)
		mant |= half || sticky;
	else if (half && (sticky || (mant & 1)))
		mant++;
	return ldexp((double)mant, sh - 1074);
}

/* The mean of element i of the inputs, from their exact sum: NaN and Inf
 * as IEEE arithmetic gives them. */
static double exact_mean(const ckpt_combine *c, const void *const *in, size_t i)
{
	struct fixed sum = {{0}};
	double x, plain = 0;
	uint64_t rem;
	int negative, nonfinite = 0;

	for (size_t k = 0; k < c->nin; k++) {
		ckpt_dtype t = in_type(c, k);

		if (!ckpt_dtype_is_float(t)) {
			i128 v;

			ckpt_to_i128(t, at(c, in, k, i), &v, 1, 0);
			fixed_add_integer(&sum, v);
			continue;
		}
		ckpt_to_double(t, at(c, in, k, i), &x, 1);
		plain += x;
		nonfinite |= !isfinite(x);
		if (isfinite(x))
			fixed_add_double(&sum, x);
	}
	if (nonfinite)
		return plain / (double)c->nin;
	negative = sum.w[LIMBS - 1] >> 63;
	if (negative)
		fixed_negate(&sum);
	rem = fixed_divide(&sum, c->nin);
	x = fixed_round(&sum, rem, c->nin, c->out != CKPT_F64);
	return negative ? -x : x;
}

/* 2^e for the binade [2^e, 2^(e+1)) of a normal x */
static inline double binade(double x)
{
	uint64_t b;

	memcpy(&b, &x, sizeof b);
	b &= UINT64_C(0x7ff0000000000000);
	memcpy(&x, &b, sizeof b);
	return x;
}

/* Means the pair of doubles may have wrong, made NaN for exact_mean():
 * below 2^-900 (the products and remainders of the division underflow: a
 * sum of 2^-1020 lost its last bits); after cancellation (an input beyond
 * 2^22 / n times the mean: the low half lost up to n^2 2^-106 of the
 * largest input); and where the inputs' magnitudes are 2^45 / n^2 apart
 * (the low half may have rounded: a subnormal beside 1e300 that was to
 * break a tie), those within 2^-30 ulp of a halfway point - or any, for a
 * narrower type.  Otherwise the pair is the exact sum and finish() rounds
 * exactly, ties included. */
static inline void mark_undecided(double *hi, const double *lo, const double *big,
                                  const double *least, size_t n, size_t nin, int to_odd)
{
	double nn = (double)nin * (double)nin;

	for (size_t i = 0; i < n; i++) {
		double h = hi[i], a = fabs(lo[i]), half = binade(h) * 0x1p-53;
		int small = fabs(h) < 0x1p-900, tiny = small && (h != 0 || a != 0);
		int cancel = big[i] * (double)nin > fabs(h) * 0x1p22;
		int spread = big[i] * nn > least[i] * 0x1p45;
		int tie = to_odd || fabs(a - half) <= half * 0x1p-30 ||
		          fabs(a - half / 2) <= half * 0x1p-31;

		hi[i] = tiny || cancel || (spread && tie) ? NAN : h;
	}
}

/* The means hi[0..n) into out at off: those not decided yet (NaN, Inf)
 * redone element by element - one vector test, the redo rare. */
static size_t store(const ckpt_combine *c, const void *const *in, size_t off, double *hi,
                    void *out, size_t n)
{
	if (!all_finite(hi, n))
		for (size_t i = 0; i < n; i++)
			if (!isfinite(hi[i]))
				hi[i] = c->weights ? rescaled(c, in, off + i) : exact_mean(c, in, off + i);
	return ckpt_from_double(c->out, hi, (char *)out + off * ckpt_dtype_size(c->out), n);
}

/* Significant bits of a finite nonzero double. */
static int significant_bits(double w)
{
	int e;

	return 53 - __builtin_ctzll((uint64_t)ldexp(fabs(frexp(w, &e)), 53));
}

/* Where every input is a float of at most 24 significant bits and every
 * weight has at most B <= 28 (and is 0 or within 2^-800 .. 2^800: no
 * product underflows), each product w_i x_i is exact and a multiple of its
 * last place, above |w_i x_i| 2^-(24 + B); so n of them sum exactly where
 * the largest times n is at most the least nonzero times 2^(29 - B)
 * (taken as 2^(28 - B) with weights: the weights 1/4, 1/2, 1/4, whose
 * results are often ties).  That factor, or 0 where there is none. */
static double narrow_spread(const ckpt_combine *c)
{
	int bits = 0;

	for (size_t k = 0; k < c->nin; k++)
		if (!ckpt_dtype_is_float(in_type(c, k)) || !narrow(in_type(c, k)))
			return 0;
	for (size_t k = 0; c->weights && k < c->nin; k++) {
		double a = fabs(c->weights[k]);

		if (a != 0 && !(a >= 0x1p-800 && a <= 0x1p800))
			return 0;
		bits = a != 0 && significant_bits(a) > bits ? significant_bits(a) : bits;
	}
	return !c->weights ? 0x1p29 : bits <= 28 ? ldexp(1, 28 - bits) : 0;
}

/* The sums of narrow floats' products, one multiplication and one add
 * each, into hi; whether they are exact (narrow_spread()). */
CKPT_WIDE_VECTORS
static int narrow_sums(const ckpt_combine *c, const void *const *in, size_t off,
                       double *hi, size_t n, double spread)
{
	double x[BLOCK], big[BLOCK], least[BLOCK], nin = (double)c->nin;
	uint64_t wide = 0;

	for (size_t k = 0; k < c->nin; k++) {
		double w = c->weights ? c->weights[k] : 1;

		ckpt_to_double(in_type(c, k), at(c, in, k, off), x, n);
		for (size_t i = 0; i < n; i++) { /* not 0 + x: -0 stays -0 */
			double t = w * x[i], a = fabs(t);

			hi[i] = k ? hi[i] + t : t;
			big[i] = k && big[i] > a ? big[i] : a;
			least[i] = k && (a == 0 || least[i] < a) ? least[i] : a != 0 ? a : INFINITY;
		}
	}
	for (size_t i = 0; i < n; i++)
		wide |= !(big[i] * nin <= least[i] * spread);
	return !wide;
}

CKPT_WIDE_VECTORS /* the exact sums, 4 or 8 doubles at a time */
static size_t combine_block(const ckpt_combine *c, const void *const *in,
                            size_t off, void *out, size_t n, double spread)
{
	/* big, least: the largest |x|, the least nonzero |x| */
	double hi[BLOCK], lo[BLOCK], x[BLOCK], big[BLOCK], least[BLOCK];
	int weighted = c->weights != NULL, to_odd = c->out != CKPT_F64;
	struct divisor d = divisor_of(weighted ? 1 : c->nin);

	memset(lo, 0, n * sizeof *lo);
	/* mostly: narrow values within 2^25 of each other, summed exactly (a
	 * weighted sum so is the result itself) */
	if (spread != 0 && narrow_sums(c, in, off, hi, n, spread)) {
		if (!weighted)
			finish(hi, lo, n, d, to_odd);
		return store(c, in, off, hi, out, n);
	}
	memset(hi, 0, n * sizeof *hi);
	for (size_t k = 0; k < c->nin; k++) {
		struct weight w = weight_of(weighted ? c->weights[k] : 1);
		int nar = narrow(in_type(c, k));

		ckpt_to_double(in_type(c, k), at(c, in, k, off), x, n);
		if (k == 0) { /* not 0 + x: -0 stays -0 */
			for (size_t i = 0; i < n; i++) {
				hi[i] = weighted ? two_prod(w, x[i], nar, &lo[i]) : x[i];
				big[i] = fabs(x[i]);
				least[i] = big[i] != 0 ? big[i] : INFINITY;
			}
		} else if (!weighted) {
			for (size_t i = 0; i < n; i++) {
				double a = fabs(x[i]);

				accumulate(&hi[i], &lo[i], x[i], 0);
				big[i] = a > big[i] ? a : big[i];
				least[i] = a != 0 && a < least[i] ? a : least[i];
			}
		} else if (nar) {
			for (size_t i = 0; i < n; i++) {
				double e, p = two_prod(w, x[i], 1, &e);

				accumulate(&hi[i], &lo[i], p, e);
			}
		} else {
			for (size_t i = 0; i < n; i++) {
				double e, p = two_prod(w, x[i], 0, &e);

				accumulate(&hi[i], &lo[i], p, e);
			}
		}
	}
	finish(hi, lo, n, d, to_odd);
	if (!weighted)
		mark_undecided(hi, lo, big, least, n, c->nin, to_odd);
	return store(c, in, off, hi, out, n);
}

/* Whether this is the mean of inputs of type t into t, of at most max. */
static int plain_mean(const ckpt_combine *c, ckpt_dtype t, size_t max)
{
	for (size_t k = 0; k < c->nin; k++)
		if (in_type(c, k) != t)
			return 0;
	return !c->weights && c->out == t && c->nin <= max;
}

/* The block at off by bf16mean.c, if it can decide it. */
static int bf16_block(const ckpt_combine *c, const void *const *in, size_t off, void *out,
                      size_t n)
{
	const uint16_t *at_off[CKPT_BF16_MAX_INPUTS];

	for (size_t k = 0; k < c->nin; k++)
		at_off[k] = (const uint16_t *)in[k] + off;
	return ckpt_bf16_mean_block(at_off, c->nin, (uint16_t *)out + off, n);
}

/* The block at off by f32mean.c, if it can decide it. */
static int f32_block(const ckpt_combine *c, const void *const *in, size_t off, void *out,
                     size_t n)
{
	const float *at_off[CKPT_F32_MAX_INPUTS];

	for (size_t k = 0; k < c->nin; k++)
		at_off[k] = (const float *)in[k] + off;
	return ckpt_f32_mean_block(at_off, c->nin, (float *)out + off, n);
}

size_t ckpt_combine_range(const ckpt_combine *c, const void *const *in, void *out,
                          size_t off, size_t n)
{
	size_t bad = 0, end = off + n;
	/* (once, not per block) */
	double spread = narrow_spread(c);
	int bf16 = plain_mean(c, CKPT_BF16, CKPT_BF16_MAX_INPUTS),
	    f32 = plain_mean(c, CKPT_F32, CKPT_F32_MAX_INPUTS);

	for (; off < end; off += BLOCK) {
		size_t m = end - off < BLOCK ? end - off : BLOCK;

		if ((bf16 && bf16_block(c, in, off, out, m)) || (f32 && f32_block(c, in, off, out, m)))
			continue;
		if (exact_integer_mean(c))
			mean_exact_block(c, in, off, out, m);
		else if (integer_mean_to_float(c))
			bad += mean_to_float_block(c, in, off, out, m);
		else
			bad += combine_block(c, in, off, out, m, spread);
	}
	return bad;
}

size_t ckpt_combine_slabs(const ckpt_combine *c, const void *const *in, void *out,
                          size_t n)
{
	return ckpt_combine_range(c, in, out, 0, n);
}
