/* exact.h - exact arithmetic for the few values double-double arithmetic
 * cannot decide: numbers m 2^e, m an integer of up to CKPT_BIG_LIMBS 32-bit
 * limbs (sums of products of up to four doubles fit), and the one rounding
 * of a quotient of two such numbers into a double. */
#ifndef CKPT_EXACT_H
#define CKPT_EXACT_H

#include <stdint.h>

#define CKPT_BIG_LIMBS 300

typedef struct ckpt_big {
	int neg;            /* the sign (of a nonzero value) */
	int n;              /* limbs in use; 0: the value is zero */
	int64_t exp;        /* value = (-1)^neg sum d[i] 2^(32 i) 2^exp */
	uint32_t d[CKPT_BIG_LIMBS];
} ckpt_big;

/* a = x, a finite double. */
void ckpt_big_set(ckpt_big *a, double x);
/* a *= x, a finite double. */
void ckpt_big_mul(ckpt_big *a, double x);
/* a += b; a -= b. */
void ckpt_big_add(ckpt_big *a, const ckpt_big *b);
void ckpt_big_sub(ckpt_big *a, const ckpt_big *b);
/* -1, 0 or 1 as a is negative, zero, positive. */
int ckpt_big_sign(const ckpt_big *a);

/* num / den (den nonzero) as a double: rounded to nearest even (to_odd 0),
 * or to odd, so that rounding that double into a type of at most 51
 * significant bits is the one rounding of the exact quotient.  Past the
 * double's range: +-Inf; an exact zero is +0. */
double ckpt_big_quotient(const ckpt_big *num, const ckpt_big *den, int to_odd);

#endif
