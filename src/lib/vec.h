/* vec.h - (internal to libckpt) loops compiled twice where the compiler can
 * choose at run time (GCC on x86-64 Linux, through ifunc): for AVX2, 4
 * doubles at a time, and for any x86-64.  The same operations, so the same
 * bits, either way; elsewhere one portable build. */
#ifndef CKPT_VEC_H
#define CKPT_VEC_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define CKPT_WIDE_VECTORS __attribute__((target_clones("avx2", "default")))
#else
#define CKPT_WIDE_VECTORS
#endif

#endif
