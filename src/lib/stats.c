/* stats.c - streaming statistics with slab-wise exact-ish accumulation:
 * each slab is reduced on its own (compensated sum, two-pass variance,
 * scaled sum of squares) and merged with Chan's formulas, so that a large
 * variable loses no more precision than a small one. */
#include "stats.h"

#include <math.h>
#include <string.h>

void ckpt_stats_init(ckpt_stats *s)
{
	memset(s, 0, sizeof *s);
	s->min = INFINITY;
	s->max = -INFINITY;
}

/* Reduction of the finite values of one slab. */
struct part {
	uint64_t n;
	double mean, m2, scale, ssq, min, max;
};

static void reduce_finite(const double *v, size_t n, struct part *p)
{
	double sum = 0, c = 0, maxabs = 0, inv, m2 = 0, ssq = 0;

	p->n = 0;
	p->min = INFINITY;
	p->max = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		double x = v[i], t;

		if (!isfinite(x))
			continue;
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
	if (!p->n)
		return;
	p->mean = (sum + c) / (double)p->n;
	inv = maxabs > 0 ? 1 / maxabs : 0;
	for (size_t i = 0; i < n; i++) {
		double x = v[i];

		if (!isfinite(x))
			continue;
		m2 += (x - p->mean) * (x - p->mean);
		ssq += (x * inv) * (x * inv);
	}
	p->m2 = m2;
	p->scale = maxabs;
	p->ssq = ssq;
}

static void merge(ckpt_stats *s, const struct part *p)
{
	uint64_t n = s->nfinite + p->n;
	double delta = p->mean - s->mean;

	s->mean += delta * ((double)p->n / (double)n);
	s->m2 += p->m2 + delta * delta * ((double)s->nfinite * (double)p->n / (double)n);
	s->nfinite = n;
	if (p->min < s->min)
		s->min = p->min;
	if (p->max > s->max)
		s->max = p->max;
	if (p->scale > s->scale) {
		double r = s->scale / p->scale;
		s->ssq = s->ssq * r * r + p->ssq;
		s->scale = p->scale;
	} else if (p->scale > 0) {
		double r = p->scale / s->scale;
		s->ssq += p->ssq * r * r;
	}
}

void ckpt_stats_add(ckpt_stats *s, const double *v, size_t n)
{
	struct part p;

	s->count += n;
	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i]))
			s->nan++;
		else if (isinf(v[i]))
			v[i] > 0 ? s->posinf++ : s->neginf++;
		else if (v[i] == 0)
			s->zeros++;
	}
	reduce_finite(v, n, &p);
	if (p.n)
		merge(s, &p);
}

void ckpt_stats_summary(const ckpt_stats *s, ckpt_summary *o)
{
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
	o->std = o->inf ? NAN : sqrt(s->m2 / (double)s->nfinite);
}
