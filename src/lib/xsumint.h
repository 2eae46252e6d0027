/* xsumint.h - (internal to libckpt) xsum.c's pairs' loop at a chosen
 * width, for the tests. */
#ifndef CKPT_XSUMINT_H
#define CKPT_XSUMINT_H

#include "vec.h"
#include "xsum.h"

#if CKPT_HAVE_FMA
/* ckpt_xsum_pair_dots_f32() in AVX2 (wide 0: 4 lanes; what it takes where
 * the CPU has no AVX-512, and the tests take wherever it has AVX2) or
 * AVX-512 (wide 1: 8 lanes, another bound, the same sums), where
 * ckpt_xsum_pair_dots_can() and the CPU allow. */
int ckpt_xsum_pair_dots_f32_lanes(ckpt_xsum *s, double *bound, const float *b,
                                  const float *const *x, size_t nx, size_t n, int wide);
#endif

#endif
