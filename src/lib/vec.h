/* vec.h - (internal to libckpt) what the CPU offers, chosen at run time:
 * loops compiled three times where the compiler can choose (GCC on x86-64
 * Linux, through ifunc), for x86-64-v4 (AVX-512: fewer instructions for
 * the same work: TIES' CPU time a tenth less), for AVX2, 4
 * doubles at a time, and for any x86-64; the same operations (no
 * contraction into FMA: -ffp-contract=off), so the same bits, either way;
 * elsewhere (or with CKPT_PORTABLE: make PORTABLE=1) one portable build. */
#ifndef CKPT_VEC_H
#define CKPT_VEC_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
	!defined(CKPT_PORTABLE)
#define CKPT_WIDE_VECTORS __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
/* (the FMA instruction in a function of its own, chosen at run time;
 * elsewhere Dekker's product does without) */
#define CKPT_HAVE_FMA 1
#else
#define CKPT_WIDE_VECTORS
#define CKPT_HAVE_FMA 0
#endif

/* The x86 conversion instructions for float16 (F16C), chosen at run time
 * where the CPU has them (GCC: clang's __builtin_cpu_supports does not know
 * them). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(CKPT_PORTABLE)
#define CKPT_HAVE_F16C 1
#include <immintrin.h>
#else
#define CKPT_HAVE_F16C 0
#endif

#endif
