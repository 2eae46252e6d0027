/* stats.h - per-variable statistics, computed in one streaming pass.
 *
 * Semantics follow numpy: any NaN makes min, max, mean, std and the L2 norm
 * NaN; an Inf makes the norm Inf and std NaN, the mean +-Inf (NaN when both
 * signs occur).  std is the population standard deviation (ddof=0). */
#ifndef CKPT_STATS_H
#define CKPT_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

typedef struct ckpt_stats {
	uint64_t count, nan, posinf, neginf, zeros;
	/* over the finite values; m2 (the sum of squared deviations) and ssq
	 * (of squares) in units of scale^2, a power of two: no overflow near
	 * 1e308, no underflow near 1e-300 */
	uint64_t nfinite;
	double min, max, mean, m2, scale, ssq;
	/* integers (ckpt_stats_add_integers): min, max and sum exactly */
	int integer;              /* 0: none, 1: signed, 2: unsigned */
	int64_t imin, imax;       /* signed */
	uint64_t umin, umax;      /* unsigned */
	uint64_t isum[2];         /* 128 bits, two's complement, low first */
} ckpt_stats;

typedef struct ckpt_summary {
	double min, max, mean, std, l2;  /* mean exact, rounded once, for integers */
	uint64_t count, nan, inf, zeros;
	int integer;                     /* as in ckpt_stats: the exact min, max */
	int64_t imin, imax;
	uint64_t umin, umax;
} ckpt_summary;

void ckpt_stats_init(ckpt_stats *s);
void ckpt_stats_add(ckpt_stats *s, const double *v, size_t n);

/* n values of type t in its memory layout: what ckpt_stats_add() of them
 * as doubles and then ckpt_stats_add_integers() give, decoded a few at a
 * time (no copy of the slab as doubles). */
void ckpt_stats_add_typed(ckpt_stats *s, ckpt_dtype t, const void *buf, size_t n);

/* For an integer type t, n values in its memory layout, after
 * ckpt_stats_add() of the same values as doubles (which round beyond
 * 2^53): min, max and mean exact. */
void ckpt_stats_add_integers(ckpt_stats *s, ckpt_dtype t, const void *buf, size_t n);
void ckpt_stats_summary(const ckpt_stats *s, ckpt_summary *out);

#endif
