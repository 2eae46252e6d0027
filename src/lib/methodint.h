/* methodint.h - (internal to libckpt) what method.c and mblock.c share. */
#ifndef CKPT_METHODINT_H
#define CKPT_METHODINT_H

#include "method.h"

#include <math.h>
#include <string.h>

/* DARE's counter step (the golden ratio's 64 bits) and SplitMix64's
 * finaliser (ckpt_mix64()), inline for the loops that vectorise. */
#define CKPT_GOLDEN UINT64_C(0x9e3779b97f4a7c15)

static inline uint64_t splitmix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

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
