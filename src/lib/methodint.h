/* methodint.h - (internal to libckpt) what method.c and mblock.c share. */
#ifndef CKPT_METHODINT_H
#define CKPT_METHODINT_H

#include "method.h"

/* Element `index` of variable v from the base's value b and the models'
 * x[0..nx): exactly, rounded once (to odd for a type narrower than
 * double), or - where an input or coefficient is NaN or Inf - the formula
 * in double.  keep: room for nx flags. */
double ckpt_method_slow(const ckpt_mvar *v, const double *x, double b, uint64_t index,
                        unsigned char *keep, int to_odd);

#endif
