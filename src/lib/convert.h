/* convert.h - values of one element type as another: exactly where the
 * target holds them, else rounded once. */
#ifndef CKPT_CONVERT_H
#define CKPT_CONVERT_H

#include "dtype.h"

#include <stddef.h>

/* Exact widening of n values of a type float holds (ckpt_dtype_holds(
 * CKPT_F32, t): float16, bfloat16, the 8-bit floats and integers, ...) to
 * float; a NaN stays a NaN (its payload not kept). */
void ckpt_to_float(ckpt_dtype t, const void *src, float *dst, size_t n);

/* n values of type t as floats: src itself for float32, else widened into
 * buf (room for n) where float holds t; NULL where it does not. */
const float *ckpt_as_float(ckpt_dtype t, const void *src, float *buf, size_t n);

/* n values of type from as type to: exact where to holds the value,
 * otherwise rounded to nearest even (once, also from 64-bit integers to
 * narrow floats), integers saturating.  Returns how many values could not
 * be represented, as ckpt_from_double() counts them. */
size_t ckpt_convert(ckpt_dtype from, const void *src, ckpt_dtype to, void *dst,
                    size_t n);

/* The significand bits of a float type (float32: 24), the value bits of an
 * integer type (int32: 31): a value's last place is at least its size
 * times 2^-that. */
int ckpt_dtype_precision(ckpt_dtype t);

/* Whether type to holds every value of type from exactly. */
int ckpt_dtype_holds(ckpt_dtype to, ckpt_dtype from);

/* Of n values src of type from and dst, their conversion to type to (by
 * ckpt_convert()), how many dst does not hold exactly (a NaN that stayed
 * NaN is unchanged); *first, when there are any, the index of the first. */
size_t ckpt_convert_changed(ckpt_dtype from, const void *src, ckpt_dtype to,
                            const void *dst, size_t n, size_t *first);

#endif
