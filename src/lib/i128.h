/* i128.h - (internal to libckpt) integers exactly, in the 128-bit type GCC
 * and clang offer: sums of up to 2^64 64-bit values never overflow it.  Not
 * installed: the public headers are plain C11. */
#ifndef CKPT_I128_H
#define CKPT_I128_H

#include "dtype.h"

__extension__ typedef __int128 ckpt_i128;
__extension__ typedef unsigned __int128 ckpt_u128;

/* Integers exactly: n values of integer type t (or bool) as 128-bit
 * numbers, stored in dst, or added to it when add is set; and back, rounded
 * already, when the value is in the type's range (returns 0 if not). */
void ckpt_to_i128(ckpt_dtype t, const void *src, ckpt_i128 *dst, size_t n, int add);
int ckpt_from_i128(ckpt_dtype t, ckpt_i128 v, void *dst, size_t i);

/* sum / n as a double: rounded to nearest for float64; rounded to odd for
 * a narrower type, so that rounding it into that type is the one rounding
 * of the exact quotient. */
double ckpt_i128_quotient(ckpt_i128 sum, ckpt_i128 n, int to_odd);

#endif
