/* stats.h - per-variable statistics, computed in one streaming pass.
 *
 * Semantics follow numpy: any NaN makes min, max, mean, std and the L2 norm
 * NaN; an Inf makes the norm Inf and std NaN, the mean +-Inf (NaN when both
 * signs occur).  std is the population standard deviation (ddof=0). */
#ifndef CKPT_STATS_H
#define CKPT_STATS_H

#include <stddef.h>
#include <stdint.h>

typedef struct ckpt_stats {
	uint64_t count, nan, posinf, neginf, zeros;
	/* over the finite values; m2 (the sum of squared deviations) and ssq
	 * (of squares) in units of scale^2, a power of two: no overflow near
	 * 1e308, no underflow near 1e-300 */
	uint64_t nfinite;
	double min, max, mean, m2, scale, ssq;
} ckpt_stats;

typedef struct ckpt_summary {
	double min, max, mean, std, l2;
	uint64_t count, nan, inf, zeros;
} ckpt_summary;

void ckpt_stats_init(ckpt_stats *s);
void ckpt_stats_add(ckpt_stats *s, const double *v, size_t n);
void ckpt_stats_summary(const ckpt_stats *s, ckpt_summary *out);

#endif
