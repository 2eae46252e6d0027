/* convert.c - values of one element type as another. */
#include "convert.h"
#include "i128.h"
#include "vec.h"

#include <math.h>
#include <string.h>

#define BLOCK 512 /* values converted at a time through the working type */

/* A 64-bit integer as a double rounded to odd (toward zero, then the last
 * bit set when inexact): narrowed again with round-to-nearest-even it gives
 * the correctly rounded float32/16, where plain double would round twice. */
static double i128_to_double_odd(__int128 x)
{
	double d = (double)x;
	__int128 back = (__int128)d;
	uint64_t bits;

	if (back == x)
		return d;
	if ((back > x) == (x > 0))
		d = nextafter(d, 0.0);
	memcpy(&bits, &d, sizeof bits);
	bits |= 1;
	memcpy(&d, &bits, sizeof d);
	return d;
}

static size_t convert_integers(ckpt_dtype from, const void *src, ckpt_dtype to,
                               void *dst, size_t n)
{
	__int128 v[BLOCK];
	size_t bad = 0, ts = ckpt_dtype_size(to);

	for (size_t off = 0; off < n; off += BLOCK) {
		size_t m = n - off < BLOCK ? n - off : BLOCK;

		ckpt_to_i128(from, (const char *)src + off * ckpt_dtype_size(from), v, m, 0);
		for (size_t i = 0; i < m; i++)
			if (!ckpt_from_i128(to, v[i], dst, off + i)) {
				/* out of range: saturate, as ckpt_from_double() does */
				double inf = v[i] < 0 ? -INFINITY : INFINITY;

				ckpt_from_double(to, &inf, (char *)dst + (off + i) * ts, 1);
				bad++;
			}
	}
	return bad;
}

size_t ckpt_convert(ckpt_dtype from, const void *src, ckpt_dtype to, void *dst,
                    size_t n)
{
	size_t bad = 0, fs = ckpt_dtype_size(from), ts = ckpt_dtype_size(to);
	int narrow_float = ckpt_dtype_is_float(to) && to != CKPT_F64;
	double d[BLOCK];

	if (from == to) {
		memcpy(dst, src, n * fs);
		return 0;
	}
	if (!ckpt_dtype_is_float(from) && !ckpt_dtype_is_float(to))
		return convert_integers(from, src, to, dst, n);
	for (size_t off = 0; off < n; off += BLOCK) {
		size_t m = n - off < BLOCK ? n - off : BLOCK;
		const char *s = (const char *)src + off * fs;

		if ((from == CKPT_I64 || from == CKPT_U64) && narrow_float) {
			__int128 v[BLOCK];

			ckpt_to_i128(from, s, v, m, 0);
			for (size_t i = 0; i < m; i++)
				d[i] = i128_to_double_odd(v[i]);
		} else {
			ckpt_to_double(from, s, d, m);
		}
		bad += ckpt_from_double(to, d, (char *)dst + off * ts, m);
	}
	return bad;
}

const float *ckpt_as_float(ckpt_dtype t, const void *src, float *buf, size_t n)
{
	if (t == CKPT_F32)
		return src;
	if (!ckpt_dtype_holds(CKPT_F32, t))
		return NULL;
	ckpt_to_float(t, src, buf, n);
	return buf;
}

/* (bfloat16: the top half of a float32, shifted into place) */
CKPT_WIDE_VECTORS
void ckpt_to_float(ckpt_dtype t, const void *src, float *dst, size_t n)
{
	const uint16_t *h = src;
	double d[BLOCK];

	if (t == CKPT_F32) {
		memcpy(dst, src, n * sizeof *dst);
	} else if (t == CKPT_BF16) {
		for (size_t i = 0; i < n; i++) {
			uint32_t u = (uint32_t)h[i] << 16;

			memcpy(&dst[i], &u, sizeof u);
		}
	} else {
		for (size_t off = 0; off < n; off += BLOCK) {
			size_t m = n - off < BLOCK ? n - off : BLOCK;

			ckpt_to_double(t, (const char *)src + off * ckpt_dtype_size(t), d, m);
			for (size_t i = 0; i < m; i++)
				dst[off + i] = (float)d[i];
		}
	}
}

int ckpt_dtype_precision(ckpt_dtype t)
{
	switch (t) {
	case CKPT_OTHER: return 64;
	case CKPT_F16: return 11;
	case CKPT_BF16: return 8;
	case CKPT_F32: return 24;
	case CKPT_F64: return 53;
	case CKPT_F8E4M3: return 4;
	case CKPT_F8E5M2: return 3;
	case CKPT_BOOL: return 1;
	default: return (int)ckpt_dtype_size(t) * 8 - ckpt_dtype_is_signed(t);
	}
}

int ckpt_dtype_holds(ckpt_dtype to, ckpt_dtype from)
{
	int fi = !ckpt_dtype_is_float(from), ti = !ckpt_dtype_is_float(to);

	if (from == to)
		return 1;
	if (to == CKPT_BOOL || from == CKPT_OTHER || to == CKPT_OTHER)
		return 0;
	if (fi && ti) /* a signed type never fits an unsigned one */
		return (!ckpt_dtype_is_signed(from) || ckpt_dtype_is_signed(to)) &&
		       ckpt_dtype_precision(to) >= ckpt_dtype_precision(from);
	if (fi) /* integers in a float: its significand */
		return ckpt_dtype_precision(to) >= ckpt_dtype_precision(from);
	if (ti)
		return 0;
	/* floats: wider in both significand and exponent */
	return (to == CKPT_F64) || (to == CKPT_F32 && from != CKPT_F64) ||
	       (from == CKPT_F8E4M3 && (to == CKPT_F16 || to == CKPT_BF16)) ||
	       (from == CKPT_F8E5M2 && (to == CKPT_F16 || to == CKPT_BF16));
}

/* Whether element i of x and y (fs bytes each: every type has 8 or fewer)
 * differs in value: not the same bytes, nor two NaNs, nor two zeros (a and
 * b: their doubles). */
static inline __attribute__((always_inline)) int
differs(const char *x, const char *y, const double *a, const double *b, size_t i, size_t fs)
{
	uint64_t u = 0, v = 0;

	memcpy(&u, x + i * fs, fs);
	memcpy(&v, y + i * fs, fs);
	return (u != v) & !((isnan(a[i]) != 0) & (isnan(b[i]) != 0)) & !((a[i] == 0) & (b[i] == 0));
}

/* How many of the block's m elements differ, fs a constant in each loop
 * (a call to memcmp per element took a fifth of a --dtype bf16 average) */
#define COUNT_DIFFERING(size)                                            \
	case size:                                                       \
		for (size_t i = 0; i < m; i++)                           \
			k += (size_t)differs(x, y, a, b, i, size);       \
		break;

static size_t count_differing(const char *x, const char *y, const double *a, const double *b,
                              size_t m, size_t fs)
{
	size_t k = 0;

	switch (fs) {
	COUNT_DIFFERING(1)
	COUNT_DIFFERING(2)
	COUNT_DIFFERING(4)
	COUNT_DIFFERING(8)
	default: break;
	}
	return k;
}
#undef COUNT_DIFFERING

size_t ckpt_convert_changed(ckpt_dtype from, const void *src, ckpt_dtype to,
                            const void *dst, size_t n, size_t *first)
{
	size_t fs = ckpt_dtype_size(from), changed = 0, k;
	char back[BLOCK * 8];
	double a[BLOCK], b[BLOCK];

	if (ckpt_dtype_holds(to, from))
		return 0;
	for (size_t off = 0; off < n; off += BLOCK) {
		size_t m = n - off < BLOCK ? n - off : BLOCK;
		const char *s = (const char *)src + off * fs;

		/* back to the source type: the same bytes if dst held the value */
		ckpt_convert(to, (const char *)dst + off * ckpt_dtype_size(to), from, back, m);
		if (!memcmp(back, s, m * fs))
			continue;
		ckpt_to_double(from, s, a, m);
		ckpt_to_double(from, back, b, m);
		k = count_differing(back, s, a, b, m, fs);
		for (size_t i = 0; k && !changed && i < m; i++) /* (the first, once) */
			if (differs(back, s, a, b, i, fs)) {
				*first = off + i;
				break;
			}
		changed += k;
	}
	return changed;
}
