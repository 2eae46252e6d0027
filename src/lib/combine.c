/* combine.c - linear combinations of slabs, exactly rounded. */
#include "combine.h"
#include "err.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef __int128 i128;

/* Values per block: the working arrays stay in L1 whatever the slab size. */
#define BLOCK 512

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
static double quotient(i128 sum, i128 n, int to_odd)
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
		mean[i] = quotient(sum[i], (i128)c->nin, c->out != CKPT_F64);
	return ckpt_from_double(c->out, mean, (char *)out + off * ckpt_dtype_size(c->out), n);
}

/* A combination whose sum overflowed double on the way (the mean of 1e308
 * and 1e308): again with every term scaled by 2^-64, which is exact, so the
 * result is finite whenever it is representable. */
static double rescaled(const ckpt_combine *c, const void *const *in, size_t at)
{
	size_t es = ckpt_dtype_size(c->dtype);
	double s = 0, comp = 0, x;

	for (size_t k = 0; k < c->nin; k++) {
		double xi, t;

		ckpt_to_double(c->dtype, (const char *)in[k] + at * es, &x, 1);
		xi = ldexp(x, -64) * (c->weights ? c->weights[k] : 1);
		t = s + xi;
		comp += fabs(s) >= fabs(xi) ? (s - t) + xi : (xi - t) + s;
		s = t;
	}
	if (comp != 0 && isfinite(s + comp))
		s += comp;
	if (!c->weights)
		s /= (double)c->nin;
	return ldexp(s, 64);
}

static size_t combine_block(const ckpt_combine *c, const void *const *in,
                            size_t off, void *out, size_t n)
{
	size_t es = ckpt_dtype_size(c->dtype);
	double sum[BLOCK], x[BLOCK], comp[BLOCK];
	int compensated = c->dtype == CKPT_F64;

	for (size_t k = 0; k < c->nin; k++) {
		double w = c->weights ? c->weights[k] : 1;

		ckpt_to_double(c->dtype, (const char *)in[k] + off * es, k ? x : sum, n);
		if (k == 0) {
			if (c->weights)
				for (size_t i = 0; i < n; i++)
					sum[i] *= w;
			if (compensated)
				memset(comp, 0, n * sizeof *comp);
		} else if (compensated) {
			for (size_t i = 0; i < n; i++) { /* Neumaier */
				double xi = x[i] * w, s = sum[i], t = s + xi;

				comp[i] += fabs(s) >= fabs(xi) ? (s - t) + xi : (xi - t) + s;
				sum[i] = t;
			}
		} else if (c->weights) {
			for (size_t i = 0; i < n; i++)
				sum[i] += x[i] * w;
		} else {
			for (size_t i = 0; i < n; i++)
				sum[i] += x[i];
		}
	}
	if (compensated) /* a zero compensation would turn -0 into +0 */
		for (size_t i = 0; i < n; i++)
			if (comp[i] != 0 && isfinite(sum[i] + comp[i]))
				sum[i] += comp[i];
	if (!c->weights) {
		double nin = (double)c->nin;

		for (size_t i = 0; i < n; i++)
			sum[i] /= nin;
	}
	for (size_t i = 0; i < n; i++)
		if (!isfinite(sum[i]))
			sum[i] = rescaled(c, in, off + i);
	return ckpt_from_double(c->out, sum,
	                        (char *)out + off * ckpt_dtype_size(c->out), n);
}

size_t ckpt_combine_range(const ckpt_combine *c, const void *const *in, void *out,
                          size_t off, size_t n)
{
	size_t bad = 0, end = off + n;

	for (; off < end; off += BLOCK) {
		size_t m = end - off < BLOCK ? end - off : BLOCK;

		if (exact_integer_mean(c))
			mean_exact_block(c, in, off, out, m);
		else if (integer_mean_to_float(c))
			bad += mean_to_float_block(c, in, off, out, m);
		else
			bad += combine_block(c, in, off, out, m);
	}
	return bad;
}

size_t ckpt_combine_slabs(const ckpt_combine *c, const void *const *in, void *out,
                          size_t n)
{
	return ckpt_combine_range(c, in, out, 0, n);
}
