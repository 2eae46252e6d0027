/* f32mean.c - the mean of float32 values into float32, exactly.
 *
 * Why it is exact: n float32 values whose magnitudes lie within
 * 2^(29 - ceil(log2 n)) of each other sum exactly in a double S (their last
 * places are at least the least one's, their sum has at most 53 bits above
 * it).  The quotient is rounded twice, to a double q and to float32; the
 * second rounding can only go wrong where q is a point m halfway between
 * two float32 values while S / n is not.  It cannot be: with 2^e <= |m| <
 * 2^(e+1), q = m needs |S - n m| <= n 2^(e-53); but m is a multiple of
 * 2^(e-24) (a halfway point has at most 25 significant bits; a subnormal
 * one is a multiple of 2^-150) and S one of its last place, at least
 * 2^(e + floor(log2 n) - 52), so a nonzero S - n m is at least
 * 2^(e-53) 2^(floor(log2 n) + 1) > n 2^(e-53) - and when n is a power of
 * two, q = S / n is exact.  (bfloat16, rounded through float32, needs
 * bf16mean.c's remainder step; float32 does not.)  Every double here is
 * normal: the least float32 is 2^-149, the most inputs 2^10. */
#include "f32mean.h"
#include "vec.h"

#include <stdint.h>
#include <string.h>

static unsigned ceil_log2(size_t n)
{
	unsigned c = 0;

	while (c < 64 && ((size_t)1 << c) < n)
		c++;
	return c;
}

static inline uint32_t bits_of(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof u);
	return u;
}

/* Whether every element's inputs are finite and within 2^(29 - ceil(log2
 * nin)) of each other (zeros aside): the magnitudes' bit patterns order as
 * the magnitudes do; the exponent fields give the binades (a subnormal's
 * last place is that of the least normal binade). */
CKPT_WIDE_VECTORS
static int summable(const float *const *in, size_t nin, size_t n)
{
	uint32_t big[CKPT_F32_BLOCK], low[CKPT_F32_BLOCK]; /* low: least nonzero - 1 */
	int spread = 29 - (int)ceil_log2(nin), bad = 0;

	for (size_t k = 0; k < nin; k++)
		for (size_t i = 0; i < n; i++) {
			uint32_t a = bits_of(in[k][i]) & 0x7fffffffu, l = a - 1; /* 0 -> max */

			big[i] = k && big[i] > a ? big[i] : a;
			low[i] = k && low[i] < l ? low[i] : l;
		}
	for (size_t i = 0; i < n; i++) {
		int eb = (int)(big[i] >> 23), el = (int)((low[i] + 1) >> 23);

		el += el == 0;
		bad |= (big[i] >= 0x7f800000u) | (eb - el > spread);
	}
	return !bad;
}

/* (a function of its own, as in bf16mean.c: inlined, GCC jams two inputs
 * into one loop that it does not vectorise) */
CKPT_WIDE_VECTORS __attribute__((noinline))
static void add_widened(double *restrict s, const float *restrict x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		s[i] += x[i];
}

CKPT_WIDE_VECTORS
static void quotients(const double *s, double dn, int pow2, float *out, size_t n)
{
	for (size_t i = 0; i < n; i++) /* (times 1/n: the division, for a power of two) */
		out[i] = (float)(pow2 ? s[i] * (1 / dn) : s[i] / dn);
}

int ckpt_f32_mean_block(const float *const *in, size_t nin, float *out, size_t n)
{
	double s[CKPT_F32_BLOCK];

	if (!summable(in, nin, n))
		return 0;
	for (size_t i = 0; i < n; i++) /* (not 0 + x: -0 stays -0) */
		s[i] = in[0][i];
	for (size_t k = 1; k < nin; k++)
		add_widened(s, in[k], n);
	quotients(s, (double)nin, (nin & (nin - 1)) == 0, out, n);
	return 1;
}
