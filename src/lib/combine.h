/* combine.h - the averaging core: a linear combination of N slabs, the one
 * implementation behind ckpt-average and the reference model's parameter
 * averaging.
 *
 * Floats (of one type, or of several float types): the exact mean, or the
 * exact combination sum(w_i * x_i) with the weights as given, rounded once
 * to nearest even into the stored type.  The sums are kept as pairs of
 * doubles (error-free transformations) and the division by N corrected;
 * the mean is always correctly rounded (what the pair cannot decide is
 * redone from the exact sum in fixed point); a weighted combination is
 * unless the exact value lies within about N 2^-106 sum|w_i x_i| of a
 * halfway point, and products w_i x_i beyond 2^996 are plain double
 * (with weights of B <= 28 significant bits, inputs of at most 24 within
 * 2^(28 - B) / N of each other sum exactly: correctly rounded).  A sum
 * that overflows double is redone scaled, so a representable result is
 * never Inf.  NaN and Inf propagate.
 *
 * Integers (and bool): the plain mean is exact, a 128-bit sum divided by N
 * and rounded half to even; weighted combinations are computed as floats
 * are (exact while the values stay below 2^53) and rounded half to even.  Results
 * out of range saturate and are counted. */
#ifndef CKPT_COMBINE_H
#define CKPT_COMBINE_H

#include <stddef.h>

#include "dtype.h"

typedef struct ckpt_combine {
	ckpt_dtype dtype, out;  /* of the inputs, of the result */
	size_t nin;
	const double *weights;  /* NULL: plain mean */
	const ckpt_dtype *types; /* each input's float type where they differ;
	                          * NULL (set by init): all dtype */
} ckpt_combine;

/* Combine values of type t from nin inputs into type out; weights (nin of
 * them, used as given) or NULL for the mean.  (A mean of integers into
 * another type is computed in double.) */
void ckpt_combine_init(ckpt_combine *c, ckpt_dtype t, ckpt_dtype out, size_t nin,
                       const double *weights);

/* out[i] = the combination of in[0][i] .. in[nin-1][i], for i < n, in
 * memory layouts of the types.  Works through cache-sized blocks, so each
 * input is read once; threads may combine disjoint ranges at once.
 * Returns how many results could not be represented (overflow to Inf,
 * integer saturation). */
size_t ckpt_combine_slabs(const ckpt_combine *c, const void *const *in, void *out,
                          size_t n);

/* The same for the values [off, off + n) only: threads may combine
 * disjoint ranges of one slab at once. */
size_t ckpt_combine_range(const ckpt_combine *c, const void *const *in, void *out,
                          size_t off, size_t n);

#endif
