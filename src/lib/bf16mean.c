/* bf16mean.c - the mean of bfloat16 values into bfloat16, exactly.
 *
 * Why it is exact: every bfloat16 is a double, and n of them whose
 * magnitudes lie within 2^(45 - ceil(log2 n)) of each other sum exactly in
 * a double (their last places are at least the least one's, their sum has
 * at most 53 bits above it).  The quotient q = S / n is then rounded twice,
 * to double and to float32 (q32); both roundings are monotone and every
 * point halfway between two bfloat16 values is a float32, so q32 lies on
 * the same side of every halfway point as the exact mean, or on one.  Off
 * the halfway points, rounding q32 to bfloat16 is rounding the mean.  On
 * one, m, the exact S - m n (m has 9 significant bits, n fewer than 30:
 * the product is a double) says whether the mean is m itself, a tie for
 * nearest even, or lies above or below it: q32 is moved one float32 step
 * that way before rounding. */
#include "bf16mean.h"
#include "vec.h"

#include <string.h>

static inline double widen(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

static unsigned ceil_log2(size_t n)
{
	unsigned c = 0;

	while (c < 64 && ((size_t)1 << c) < n)
		c++;
	return c;
}

/* Whether every element's inputs are finite and within 2^(45 - ceil(log2
 * nin)) of each other (zeros aside): the magnitudes' bit patterns order as
 * the magnitudes do; the exponent fields give the binades (a subnormal's
 * last place is that of the least normal binade). */
CKPT_WIDE_VECTORS
static int summable(const uint16_t *const *in, size_t nin, size_t n)
{
	uint16_t big[CKPT_BF16_BLOCK], low[CKPT_BF16_BLOCK]; /* low: least nonzero - 1 */
	int spread = 45 - (int)ceil_log2(nin), bad = 0;

	for (size_t k = 0; k < nin; k++)
		for (size_t i = 0; i < n; i++) {
			uint16_t a = in[k][i] & 0x7fff, l = (uint16_t)(a - 1); /* 0 -> 0xffff */

			big[i] = k && big[i] > a ? big[i] : a;
			low[i] = k && low[i] < l ? low[i] : l;
		}
	for (size_t i = 0; i < n; i++) {
		int eb = big[i] >> 7, el = (uint16_t)(low[i] + 1) >> 7;

		el += el == 0;
		bad |= (big[i] >= 0x7f80) | (eb - el > spread);
	}
	return !bad;
}

/* (a function of its own: inlined, GCC jams two inputs into one loop that
 * it does not vectorise) */
CKPT_WIDE_VECTORS __attribute__((noinline))
static void add_widened(double *restrict s, const uint16_t *restrict x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		s[i] += widen(x[i]);
}

CKPT_WIDE_VECTORS
static void mean(const uint16_t *const *in, size_t nin, uint16_t *out, size_t n)
{
	double s[CKPT_BF16_BLOCK], dn = (double)nin;
	int pow2 = (nin & (nin - 1)) == 0;

	for (size_t i = 0; i < n; i++) /* (not 0 + x: -0 stays -0) */
		s[i] = widen(in[0][i]);
	for (size_t k = 1; k < nin; k++)
		add_widened(s, in[k], n);
	for (size_t i = 0; i < n; i++) {
		/* (times 1/n is the division when n is a power of two) */
		double q = pow2 ? s[i] * (1 / dn) : s[i] / dn, d;
		float q32 = (float)q;
		uint32_t u;

		d = s[i] - (double)q32 * dn;
		memcpy(&u, &q32, sizeof u);
		if ((u & 0xffff) == 0x8000 && d != 0)
			u += (d > 0) == (q32 > 0) ? 1 : (uint32_t)-1;
		u += 0x7fff + (u >> 16 & 1);
		out[i] = (uint16_t)(u >> 16);
	}
}

int ckpt_bf16_mean_block(const uint16_t *const *in, size_t nin, uint16_t *out, size_t n)
{
	if (!summable(in, nin, n))
		return 0;
	mean(in, nin, out, n);
	return 1;
}
