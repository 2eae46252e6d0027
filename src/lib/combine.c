/* combine.c - linear combinations of slabs, exactly rounded. */
#include "combine.h"
#include "err.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef __int128 i128;

static int exact_integer_mean(const ckpt_combine *c)
{
	return !ckpt_dtype_is_float(c->dtype) && !c->weights && c->out == c->dtype;
}

int ckpt_combine_init(ckpt_combine *c, ckpt_dtype t, ckpt_dtype out, size_t cap,
                      size_t nin, const double *weights)
{
	memset(c, 0, sizeof *c);
	c->dtype = t;
	c->out = out;
	c->cap = cap ? cap : 1;
	c->nin = nin;
	c->weights = weights;
	if (exact_integer_mean(c)) {
		c->isum = malloc(c->cap * sizeof(i128));
		return c->isum ? 0 : ckpt_seterr("out of memory");
	}
	c->sum = malloc(c->cap * sizeof *c->sum);
	c->tmp = malloc(c->cap * sizeof *c->tmp);
	if (t == CKPT_F64)
		c->comp = malloc(c->cap * sizeof *c->comp);
	if (!c->sum || !c->tmp || (t == CKPT_F64 && !c->comp)) {
		ckpt_combine_free(c);
		return ckpt_seterr("out of memory");
	}
	return 0;
}

/* Integer values as exact 128-bit numbers. */
static void widen_exact(ckpt_dtype t, const void *src, i128 *dst, size_t n, int add)
{
#define WIDEN(T) do { const T *s = src; \
	for (size_t i = 0; i < n; i++) dst[i] = (add ? dst[i] : 0) + (i128)s[i]; } while (0)
	switch (t) {
	case CKPT_BOOL: WIDEN(signed char); break;
	case CKPT_I8: WIDEN(int8_t); break;
	case CKPT_I16: WIDEN(int16_t); break;
	case CKPT_I32: WIDEN(int32_t); break;
	case CKPT_I64: WIDEN(int64_t); break;
	case CKPT_U8: WIDEN(uint8_t); break;
	case CKPT_U16: WIDEN(uint16_t); break;
	case CKPT_U32: WIDEN(uint32_t); break;
	case CKPT_U64: WIDEN(uint64_t); break;
	default: break;
	}
#undef WIDEN
}

void ckpt_combine_add(ckpt_combine *c, size_t k, const void *slab, size_t n)
{
	double w = c->weights ? c->weights[k] : 1;

	if (exact_integer_mean(c)) {
		widen_exact(c->dtype, slab, c->isum, n, k > 0);
		return;
	}
	ckpt_to_double(c->dtype, slab, k ? c->tmp : c->sum, n);
	if (k == 0) {
		if (c->weights)
			for (size_t i = 0; i < n; i++)
				c->sum[i] *= w;
		if (c->comp)
			memset(c->comp, 0, n * sizeof *c->comp);
		return;
	}
	if (c->comp) {
		for (size_t i = 0; i < n; i++) { /* Neumaier */
			double x = c->tmp[i] * w, s = c->sum[i], t = s + x;

			c->comp[i] += fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
			c->sum[i] = t;
		}
	} else {
		for (size_t i = 0; i < n; i++)
			c->sum[i] += c->tmp[i] * w;
	}
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

static size_t narrow_exact(ckpt_combine *c, void *out, size_t n)
{
	i128 *s = c->isum, lo, hi;
	size_t bad = 0;

	switch (c->dtype) {
	case CKPT_BOOL: lo = 0, hi = 1; break;
	case CKPT_I8: lo = INT8_MIN, hi = INT8_MAX; break;
	case CKPT_I16: lo = INT16_MIN, hi = INT16_MAX; break;
	case CKPT_I32: lo = INT32_MIN, hi = INT32_MAX; break;
	case CKPT_I64: lo = INT64_MIN, hi = INT64_MAX; break;
	case CKPT_U8: lo = 0, hi = UINT8_MAX; break;
	case CKPT_U16: lo = 0, hi = UINT16_MAX; break;
	case CKPT_U32: lo = 0, hi = UINT32_MAX; break;
	default: lo = 0, hi = (i128)UINT64_MAX; break;
	}
	for (size_t i = 0; i < n; i++) {
		i128 q = div_half_even(s[i], (i128)c->nin);

		/* A mean of values in range is in range; kept for safety. */
		if (q < lo || q > hi) {
			q = q < lo ? lo : hi;
			bad++;
		}
		switch (c->dtype) {
		case CKPT_BOOL: ((signed char *)out)[i] = (signed char)q; break;
		case CKPT_I8: ((int8_t *)out)[i] = (int8_t)q; break;
		case CKPT_I16: ((int16_t *)out)[i] = (int16_t)q; break;
		case CKPT_I32: ((int32_t *)out)[i] = (int32_t)q; break;
		case CKPT_I64: ((int64_t *)out)[i] = (int64_t)q; break;
		case CKPT_U8: ((uint8_t *)out)[i] = (uint8_t)q; break;
		case CKPT_U16: ((uint16_t *)out)[i] = (uint16_t)q; break;
		case CKPT_U32: ((uint32_t *)out)[i] = (uint32_t)q; break;
		default: ((uint64_t *)out)[i] = (uint64_t)q; break;
		}
	}
	return bad;
}

size_t ckpt_combine_result(ckpt_combine *c, void *out, size_t n)
{
	if (exact_integer_mean(c))
		return narrow_exact(c, out, n);
	if (c->comp)
		for (size_t i = 0; i < n; i++)
			if (isfinite(c->sum[i] + c->comp[i]))
				c->sum[i] += c->comp[i];
	if (!c->weights)
		for (size_t i = 0; i < n; i++)
			c->sum[i] /= (double)c->nin;
	return ckpt_from_double(c->out, c->sum, out, n);
}

void ckpt_combine_free(ckpt_combine *c)
{
	free(c->sum);
	free(c->comp);
	free(c->tmp);
	free(c->isum);
	memset(c, 0, sizeof *c);
}
