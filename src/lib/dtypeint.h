/* dtypeint.h - (internal to libckpt) dtype.c's AVX2 16-bit encoder, for
 * the tests. */
#ifndef CKPT_DTYPEINT_H
#define CKPT_DTYPEINT_H

#include <stddef.h>
#include <stdint.h>

#include "vec.h"

#if CKPT_HAVE_FMA
/* The n doubles rounded to nearest even into the 16-bit float format of
 * ebits exponent and mbits fraction bits (float16: 5, 10; bfloat16: 8, 7)
 * in AVX2, where each is 0 or its result normal (not an infinity);
 * returns 0 then, else 1 (h not all written: the scalar encoder's turn).
 * ckpt_from_double() takes it where the CPU has AVX2 but not AVX-512; the
 * tests, wherever it has AVX2. */
int ckpt_encode_half_avx2(const double *src, uint16_t *h, size_t n, int ebits, int mbits);
#endif

#endif
