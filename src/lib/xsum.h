/* xsum.h - sums of doubles kept exactly (a fixed point of 2^-1074 in 32-bit
 * digits with room for carries), whatever the order of the additions, and
 * rounded once: the dot products and norms SLERP and model stock measure,
 * the same for any slab size, rank count or order of work. */
#ifndef CKPT_XSUM_H
#define CKPT_XSUM_H

#include <stddef.h>
#include <stdint.h>

#define CKPT_XSUM_DIGITS 70

typedef struct ckpt_xsum {
	int64_t d[CKPT_XSUM_DIGITS]; /* digit i: bits [32 i, 32 i + 32) */
	uint32_t adds;               /* since the carries were last settled */
	int nonfinite;               /* a NaN or Inf was added: the sum is NaN */
} ckpt_xsum;

void ckpt_xsum_init(ckpt_xsum *s);
void ckpt_xsum_add(ckpt_xsum *s, double x);
/* s += a b, exactly while the product stays within double's range */
void ckpt_xsum_add_prod(ckpt_xsum *s, double a, double b);
/* s += sum a[i] b[i], each product as ckpt_xsum_add_prod() adds it. */
void ckpt_xsum_dot(ckpt_xsum *s, const double *a, const double *b, size_t n);
/* s += sum a[i] b[i] faster, not exactly: pairs of doubles added to s
 * exactly, what they may be off by added to *bound (an upper bound, from
 * the products' sizes and counts alone: the same for any split). */
void ckpt_xsum_dot_bounded(ckpt_xsum *s, double *bound, const double *a, const double *b,
                           size_t n);
/* Model stock's (and SLERP's) dot products at once, each task vector read
 * once: for t_k = x_k - b (nx float32 models and their base; b NULL:
 * t_k = x_k), s[p] += sum t_a t_c
 * and bound[p] as ckpt_xsum_dot_bounded() would for every pair a <= c, in
 * the order (0, 0), (0, 1), .., (1, 1), ..; where it can (2 or 3 models,
 * a CPU with FMA) and every t_k is exact in double (always, without a
 * base): 1.  Else 0, nothing added (the caller takes a pair at a time). */
int ckpt_xsum_pair_dots_f32(ckpt_xsum *s, double *bound, const float *b, const float *const *x,
                            size_t nx, size_t n);
/* Whether it can for nx models on this CPU (else it adds nothing, ever). */
int ckpt_xsum_pair_dots_can(size_t nx);

/* Where s - bound and s + bound round to the same double, that double (the
 * exact sum's, which lies between) into *out: 1; else 0. */
int ckpt_xsum_round_bounded(const ckpt_xsum *s, double bound, double *out);
/* Each of s[0..n) the sum of every rank's, on every rank (under MPI;
 * else as it is): exactly, whatever the order; collective.  -1 with a
 * message where that failed. */
int ckpt_xsum_sum_ranks(ckpt_xsum *s, size_t n);
/* s += t (t's sum, exactly). */
void ckpt_xsum_merge(ckpt_xsum *s, ckpt_xsum *t);
/* The sum rounded to nearest even (NaN after a NaN or Inf). */
double ckpt_xsum_round(ckpt_xsum *s);

#endif
