/* compare.h - comparing two variables element by element, in slabs.
 *
 * By value: -0.0 equals +0.0, NaN equals NaN at the same place, integers
 * exactly (also beyond 2^53), across dtypes.  Tolerances combine as in
 * numpy.isclose: |a - b| <= atol + rtol * |b|; an element within ulps units
 * in the last place (of the stored type; of float64 across float types;
 * 1 for integers) is also close.  Bitwise compares the stored values'
 * bytes instead (NaN payloads and the sign of zero count). */
#ifndef CKPT_COMPARE_H
#define CKPT_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

typedef struct ckpt_tol {
	double atol, rtol;
	uint64_t ulps;
	int use_ulps, bitwise;
} ckpt_tol;

typedef struct ckpt_cmp {
	uint64_t count, ndiff;
	double max_abs, max_rel;   /* over differing elements */
	uint64_t max_abs_at;       /* C-order index of max_abs */
	double ssd, dot, ssa, ssb; /* sums of squares: of a-b, a.b, a, b (finite) */
	int pexp, dexp;            /* dot, ssa, ssb in units of 2^(2 pexp), ssd 2^(2 dexp) */
	int products;              /* compute dot, ssa, ssb (for cosine, rel_l2) */
} ckpt_cmp;

/* products: whether cosine and relative L2 are wanted (they cost a pass). */
void ckpt_cmp_init(ckpt_cmp *c, int products);

/* Compare n values of a (type ta) with n of b (type tb), element start of
 * the variable first; for each differing one, if each is not NULL, call it
 * with its index in the variable and in the slab. */
void ckpt_cmp_slab(ckpt_cmp *c, const ckpt_tol *tol, ckpt_dtype ta, const void *a,
                   ckpt_dtype tb, const void *b, size_t n, uint64_t start,
                   void (*each)(uint64_t index, size_t i, void *user), void *user);

/* Add the comparison of the elements that come after c's. */
void ckpt_cmp_merge(ckpt_cmp *c, const ckpt_cmp *later);

/* Whether one pair of values is equal under tol (exposed for tests). */
int ckpt_cmp_close(const ckpt_tol *tol, ckpt_dtype ta, const void *a,
                   ckpt_dtype tb, const void *b);

/* Summaries: root mean square of a - b, cosine similarity of a and b,
 * L2 distance relative to |b|. */
double ckpt_cmp_rms(const ckpt_cmp *c);
double ckpt_cmp_cosine(const ckpt_cmp *c);
double ckpt_cmp_rel_l2(const ckpt_cmp *c);

#endif
