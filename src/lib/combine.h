/* combine.h - the averaging core: a linear combination of N slabs of one
 * element type, the one implementation behind ckpt-average and the
 * reference model's parameter averaging.
 *
 * Floats accumulate in double, in input order; float64 inputs with
 * compensated (Neumaier) summation.  The mean is the sum divided by N, the
 * same operations as numpy's mean over stacked float64 arrays; weighted
 * combinations are sum(w_i * x_i).  The result is rounded to nearest even
 * into the stored type.  NaN and Inf propagate.
 *
 * Integers (and bool): the plain mean is exact, a 128-bit sum divided by N
 * and rounded half to even; weighted combinations are computed in double
 * (exact while sums stay below 2^53) and rounded half to even.  Results
 * out of range saturate and are counted. */
#ifndef CKPT_COMBINE_H
#define CKPT_COMBINE_H

#include <stddef.h>

#include "dtype.h"

typedef struct ckpt_combine {
	ckpt_dtype dtype, out;  /* of the inputs, of the result */
	size_t cap, nin;
	const double *weights;  /* NULL: plain mean */
	double *sum, *comp, *tmp;
	void *isum;             /* 128-bit integer sums for exact means */
} ckpt_combine;

/* For slabs of up to cap values of type t from nin inputs, the result in
 * type out; weights (nin of them, used as given) or NULL for the mean.
 * (A mean of integers into another type is computed in double.)  Returns
 * -1 when out of memory. */
int ckpt_combine_init(ckpt_combine *c, ckpt_dtype t, ckpt_dtype out, size_t cap,
                      size_t nin, const double *weights);

/* Add input number k's slab of n values (k = 0 starts a new slab). */
void ckpt_combine_add(ckpt_combine *c, size_t k, const void *slab, size_t n);

/* The combination of the n values added, in the result type, into out.  Returns how
 * many could not be represented (overflow to Inf, integer saturation). */
size_t ckpt_combine_result(ckpt_combine *c, void *out, size_t n);

void ckpt_combine_free(ckpt_combine *c);

#endif
