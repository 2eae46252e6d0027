/* methodint.h - (internal to libckpt) what method.c and mblock.c share. */
#ifndef CKPT_METHODINT_H
#define CKPT_METHODINT_H

#include "method.h"

#include <math.h>
#include <string.h>

/* ckpt_magnitude_key() of floats (x - b exact in double), inline for the
 * loops that vectorise (method.c, mblock.c, topkguess.c). */
static inline uint64_t ckpt_magnitude_key_f32(float x, float b)
{
	double t = fabs((double)x - (double)b);
	uint64_t k;

	memcpy(&k, &t, sizeof k);
	return k;
}

/* Element `index` of variable v from the base's value b and the models'
 * x[0..nx): exactly, rounded once (to odd for a type narrower than
 * double), or - where an input or coefficient is NaN or Inf - the formula
 * in double.  keep: room for nx flags. */
double ckpt_method_slow(const ckpt_mvar *v, const double *x, double b, uint64_t index,
                        unsigned char *keep, int to_odd);

#endif
