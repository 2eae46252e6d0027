/* unit.h - what every cmocka unit test of libckpt includes. */
#ifndef CKPT_UNIT_H
#define CKPT_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "lib/ckpt.h"

static inline uint64_t bits_of(double v)
{
	uint64_t b;
	memcpy(&b, &v, sizeof b);
	return b;
}

/* cmocka's assert_float_equal works in float; checkpoints need double. */
#define assert_close(a, b, rel)                                              \
	do {                                                                 \
		double a_ = (a), b_ = (b);                                   \
		if (!(fabs(a_ - b_) <= (rel) * fabs(b_)))                    \
			fail_msg("%.17g is not within %g of %.17g", a_,      \
			         (double)(rel), b_);                         \
	} while (0)

#endif
