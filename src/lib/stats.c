/* stats.c - streaming statistics with slab-wise exact-ish accumulation:
 * each slab is reduced on its own (compensated sum, two-pass variance,
 * scaled sum of squares) and merged with Chan's formulas, so that a large
 * variable loses no more precision than a small one. */
#include "stats.h"
#include "i128.h"

#include <math.h>
#include <string.h>

void ckpt_stats_init(ckpt_stats *s)
{
	memset(s, 0, sizeof *s);
	s->min = INFINITY;
	s->max = -INFINITY;
}

/* Reduction of the finite values of one slab.  Second moments are kept in
 * units of scale^2, scale a power of two near the largest magnitude, so
 * that neither values near 1e308 overflow nor values near 1e-300 vanish:
 * m2 = sum((x - mean)^2) / scale^2, ssq = sum(x^2) / scale^2. */
struct part {
	uint64_t n;
	double mean, m2, scale, ssq, min, max;
};

/* The n values of a slab, read in chunks that stay in the first-level
 * cache: a slab of a narrow type is decoded chunk by chunk, on each pass,
 * instead of into one array four times its size. */
#define CHUNK 512

struct values {
	ckpt_dtype t;
	const void *buf;
	size_t n;
};

/* The values [off, off + m) as doubles: in place, or decoded into tmp. */
static const double *chunk(const struct values *src, size_t off, size_t m, double *tmp)
{
	if (src->t == CKPT_F64)
		return (const double *)src->buf + off;
	ckpt_to_double(src->t, (const char *)src->buf + off * ckpt_dtype_size(src->t), tmp, m);
	return tmp;
}

/* for each chunk: v, its m values as doubles (tmp: a double[CHUNK]) */
#define EACH_CHUNK(src, tmp, v, m)                                                   \
	for (size_t off_ = 0, m = 0; off_ < (src)->n; off_ += m)                     \
		for (const double *v = chunk((src), off_,                            \
		         m = (src)->n - off_ < CHUNK ? (src)->n - off_ : CHUNK, tmp); \
		     v; v = NULL)

/* (with the counts of NaN, infinite and zero values into s, on the way) */
static void reduce_finite(ckpt_stats *s, const struct values *src, struct part *p)
{
	double sum = 0, c = 0, maxabs = 0, inv, ms, m2 = 0, ssq = 0, tmp[CHUNK];
	int e, shift, fast;

	memset(p, 0, sizeof *p);
	p->min = INFINITY;
	p->max = -INFINITY;
	EACH_CHUNK(src, tmp, v, m)
		for (size_t i = 0; i < m; i++) {
			double x = v[i], t;

			if (!isfinite(x)) {
				if (isnan(x))
					s->nan++;
				else
					x > 0 ? s->posinf++ : s->neginf++;
				continue;
			}
			s->zeros += x == 0;
			p->n++;
			t = sum + x; /* Neumaier's compensated sum */
			c += fabs(sum) >= fabs(x) ? (sum - t) + x : (x - t) + sum;
			sum = t;
			if (x < p->min)
				p->min = x;
			if (x > p->max)
				p->max = x;
			if (fabs(x) > maxabs)
				maxabs = fabs(x);
		}
	if (!p->n || maxabs == 0) {
		p->mean = p->n ? sum : 0;
		return;
	}
	frexp(maxabs, &e);
	shift = 1 - e; /* |x| * 2^shift < 2 */
	p->scale = ldexp(1, -shift);
	/* the plain sum serves unless it overflowed, or 2^shift does */
	fast = isfinite(sum + c) && shift < 1000;
	inv = fast ? ldexp(1, shift) : 0;
	if (fast) {
		p->mean = (sum + c) / (double)p->n;
		ms = p->mean * inv;
	} else {
		sum = c = 0;
		EACH_CHUNK(src, tmp, v, m)
			for (size_t i = 0; i < m; i++) {
				double y, t;

				if (!isfinite(v[i]))
					continue;
				y = ldexp(v[i], shift);
				t = sum + y;
				c += fabs(sum) >= fabs(y) ? (sum - t) + y : (y - t) + sum;
				sum = t;
			}
		ms = (sum + c) / (double)p->n;
		p->mean = ldexp(ms, -shift);
	}
	EACH_CHUNK(src, tmp, v, m)
		for (size_t i = 0; i < m; i++) {
			double y;

			if (!isfinite(v[i]))
				continue;
			y = fast ? v[i] * inv : ldexp(v[i], shift);
			m2 += (y - ms) * (y - ms);
			ssq += y * y;
		}
	p->m2 = m2;
	p->ssq = ssq;
}

static void merge(ckpt_stats *s, const struct part *p)
{
	uint64_t n = s->nfinite + p->n;
	double big = s->scale > p->scale ? s->scale : p->scale;
	double rs = big > 0 ? s->scale / big : 0, rp = big > 0 ? p->scale / big : 0;
	double delta = big > 0 ? p->mean / big - s->mean / big : 0; /* in units of big */
	double w = (double)p->n / (double)n, d = p->mean - s->mean;

	s->mean = isfinite(d) ? s->mean + d * w : s->mean * (1 - w) + p->mean * w;
	s->m2 = s->m2 * rs * rs + p->m2 * rp * rp +
	        delta * delta * ((double)s->nfinite * (double)p->n / (double)n);
	s->ssq = s->ssq * rs * rs + p->ssq * rp * rp;
	s->scale = big;
	s->nfinite = n;
	if (p->min < s->min)
		s->min = p->min;
	if (p->max > s->max)
		s->max = p->max;
}

static void add_values(ckpt_stats *s, const struct values *src)
{
	struct part p;

	s->count += src->n;
	reduce_finite(s, src, &p);
	if (p.n)
		merge(s, &p);
}

void ckpt_stats_add(ckpt_stats *s, const double *v, size_t n)
{
	struct values src = {CKPT_F64, v, n};

	add_values(s, &src);
}

void ckpt_stats_add_typed(ckpt_stats *s, ckpt_dtype t, const void *buf, size_t n)
{
	struct values src = {t, buf, n};

	add_values(s, &src);
	ckpt_stats_add_integers(s, t, buf, n);
}

#define INT_BLOCK 512

void ckpt_stats_add_integers(ckpt_stats *s, ckpt_dtype t, const void *buf, size_t n)
{
	ckpt_i128 v[INT_BLOCK], sum, lo, hi;
	int first = s->integer == 0;

	if (ckpt_dtype_is_float(t) || t == CKPT_OTHER || n == 0)
		return;
	s->integer = ckpt_dtype_is_signed(t) ? 1 : 2;
	sum = (ckpt_i128)((ckpt_u128)s->isum[1] << 64 | s->isum[0]);
	lo = first ? 0 : s->integer == 1 ? s->imin : (ckpt_i128)s->umin;
	hi = first ? 0 : s->integer == 1 ? s->imax : (ckpt_i128)s->umax;
	for (size_t off = 0; off < n; off += INT_BLOCK) {
		size_t m = n - off < INT_BLOCK ? n - off : INT_BLOCK;

		ckpt_to_i128(t, (const char *)buf + off * ckpt_dtype_size(t), v, m, 0);
		for (size_t i = 0; i < m; i++) {
			if (first || v[i] < lo)
				lo = v[i];
			if (first || v[i] > hi)
				hi = v[i];
			first = 0;
			sum += v[i];
		}
	}
	s->imin = (int64_t)lo, s->imax = (int64_t)hi;
	s->umin = (uint64_t)lo, s->umax = (uint64_t)hi;
	s->isum[0] = (uint64_t)sum;
	s->isum[1] = (uint64_t)((ckpt_u128)sum >> 64);
}

void ckpt_stats_summary(const ckpt_stats *s, ckpt_summary *o)
{
	o->integer = s->integer;
	o->imin = s->imin, o->imax = s->imax;
	o->umin = s->umin, o->umax = s->umax;
	o->count = s->count;
	o->nan = s->nan;
	o->inf = s->posinf + s->neginf;
	o->zeros = s->zeros;
	if (s->count == 0 || s->nan) {
		/* numpy: reductions of an empty array or one with NaN are NaN */
		o->min = o->max = o->mean = o->std = NAN;
		o->l2 = s->count ? NAN : 0;
		return;
	}
	o->min = s->neginf ? -INFINITY : s->min;
	o->max = s->posinf ? INFINITY : s->max;
	o->l2 = o->inf ? INFINITY : s->scale * sqrt(s->ssq);
	if (s->posinf && s->neginf)
		o->mean = NAN;
	else if (o->inf)
		o->mean = s->posinf ? INFINITY : -INFINITY;
	else
		o->mean = s->mean;
	o->std = o->inf ? NAN : s->scale * sqrt(s->m2 / (double)s->nfinite);
	if (s->integer)
		o->mean = ckpt_i128_quotient(
			(ckpt_i128)((ckpt_u128)s->isum[1] << 64 | s->isum[0]),
			(ckpt_i128)s->count, 0);
}
