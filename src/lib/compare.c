/* compare.c - element-wise comparison with tolerances. */
#include "compare.h"
#include "i128.h"

#include <math.h>
#include <string.h>

typedef __int128 i128;

void ckpt_cmp_init(ckpt_cmp *c, int products)
{
	memset(c, 0, sizeof *c);
	c->products = products;
}

/* Position of a float's bit pattern on the number line: consecutive floats
 * are consecutive integers, -0 and +0 both 0. */
static int64_t ordered(double v, ckpt_dtype t)
{
	uint64_t bits, mag, sign;

	switch (t) {
	case CKPT_F16: bits = ckpt_double_to_f16(v); sign = bits >> 15; mag = bits & 0x7fff; break;
	case CKPT_BF16: bits = ckpt_double_to_bf16(v); sign = bits >> 15; mag = bits & 0x7fff; break;
	case CKPT_F8E4M3: bits = ckpt_double_to_e4m3(v); sign = bits >> 7; mag = bits & 0x7f; break;
	case CKPT_F8E5M2: bits = ckpt_double_to_e5m2(v); sign = bits >> 7; mag = bits & 0x7f; break;
	case CKPT_F32: {
		float f = (float)v;
		uint32_t b;
		memcpy(&b, &f, sizeof b);
		sign = b >> 31;
		mag = b & 0x7fffffffu;
		break;
	}
	default:
		memcpy(&bits, &v, sizeof bits);
		sign = bits >> 63;
		mag = bits & 0x7fffffffffffffffULL;
		break;
	}
	return sign ? -(int64_t)mag : (int64_t)mag;
}

static uint64_t ulp_distance(double a, double b, ckpt_dtype t)
{
	int64_t x = ordered(a, t), y = ordered(b, t);

	return x > y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
}

static int is_int(ckpt_dtype t)
{
	return t != CKPT_OTHER && !ckpt_dtype_is_float(t);
}

/* Equal by value or within atol + rtol * |b|: NaN equals NaN; NaN against a
 * number, or an infinite difference, fails every comparison.  Branch-free,
 * for the hot loop. */
static inline int within(double a, double b, double atol, double rtol)
{
	return (a == b) | ((a != a) & (b != b)) | (fabs(a - b) <= atol + rtol * fabs(b));
}

/* a and b as doubles, already converted; ia and ib exact when integers. */
static int values_close(const ckpt_tol *tol, double a, double b, ckpt_dtype ta,
                        ckpt_dtype tb, const i128 *ia, const i128 *ib)
{
	if (ia && ib) { /* both integers: exactly */
		i128 diff = *ia > *ib ? *ia - *ib : *ib - *ia;

		if (diff == 0)
			return 1;
		if (tol->use_ulps && diff <= (i128)tol->ulps)
			return 1;
		return (double)diff <= tol->atol + tol->rtol * fabs(b);
	}
	if (within(a, b, tol->atol, tol->rtol))
		return 1;
	if (!tol->use_ulps || !isfinite(a) || !isfinite(b))
		return 0;
	/* in the stored type's units; across types (float against integer
	 * too), in float64's */
	return ulp_distance(a, b, ta == tb ? ta : CKPT_F64) <= tol->ulps;
}

int ckpt_cmp_close(const ckpt_tol *tol, ckpt_dtype ta, const void *a,
                   ckpt_dtype tb, const void *b)
{
	double x, y;
	i128 ix, iy;

	if (tol->bitwise)
		return ta == tb && memcmp(a, b, ckpt_dtype_size(ta)) == 0;
	ckpt_to_double(ta, a, &x, 1);
	ckpt_to_double(tb, b, &y, 1);
	if (is_int(ta) && is_int(tb)) {
		ckpt_to_i128(ta, a, &ix, 1, 0);
		ckpt_to_i128(tb, b, &iy, 1, 0);
		return values_close(tol, x, y, ta, tb, &ix, &iy);
	}
	return values_close(tol, x, y, ta, tb, NULL, NULL);
}

#define BLOCK 512

/* A sum of squares in units of 2^(2 e), in units of 2^(2 big), big >= e
 * unless the sum is 0 (powers of two: exact, or 0 when too small to
 * matter beside the other). */
static double in_units(double sum, int e, int big)
{
	double r = ldexp(1, e - big);

	return sum == 0 ? 0 : sum * r * r;
}

/* 2^-e as two factors (2^-e alone overflows for e down to -1073). */
static void unit_factors(double maxabs, int *e, double *s1, double *s2)
{
	frexp(maxabs, e); /* maxabs * 2^-e < 1 */
	*s1 = ldexp(1, -*e / 2);
	*s2 = ldexp(1, -*e - -*e / 2);
}

/* Add sums in units of 2^(2 e) to c's, both kept in units of the larger. */
static void add_products(ckpt_cmp *c, int e, double dot, double ssa, double ssb)
{
	int big = e > c->pexp || (c->ssa == 0 && c->ssb == 0) ? e : c->pexp;

	if (ssa == 0 && ssb == 0)
		return;
	c->dot = in_units(c->dot, c->pexp, big) + in_units(dot, e, big);
	c->ssa = in_units(c->ssa, c->pexp, big) + in_units(ssa, e, big);
	c->ssb = in_units(c->ssb, c->pexp, big) + in_units(ssb, e, big);
	c->pexp = big;
}

static void add_ssd(ckpt_cmp *c, int e, double ssd)
{
	int big = e > c->dexp || c->ssd == 0 ? e : c->dexp;

	if (ssd == 0)
		return;
	if (!isfinite(ssd) || !isfinite(c->ssd))
		c->ssd += ssd; /* inf, or NaN */
	else
		c->ssd = in_units(c->ssd, c->dexp, big) + in_units(ssd, e, big);
	c->dexp = big;
}

/* Whether plain double sums of squares of values up to maxabs neither
 * overflow nor lose digits to underflow: then they need no scaling. */
static int plain_range(double maxabs)
{
	return maxabs >= 0x1p-500 && maxabs <= 0x1p500;
}

/* Products for cosine and relative L2, over finite pairs; outside
 * plain_range() again in units of a power of two near the largest magnitude
 * (no overflow near 1e308, nothing lost to underflow near 1e-300). */
static void products_pass(ckpt_cmp *c, const double *x, const double *y, size_t m)
{
	double maxabs = 0, dot = 0, ssa = 0, ssb = 0, s1, s2;
	int e;

	for (size_t i = 0; i < m; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i]))
			continue;
		maxabs = fmax(maxabs, fmax(fabs(x[i]), fabs(y[i])));
		dot += x[i] * y[i];
		ssa += x[i] * x[i];
		ssb += y[i] * y[i];
	}
	if (maxabs == 0)
		return;
	if (plain_range(maxabs)) {
		add_products(c, 0, dot, ssa, ssb);
		return;
	}
	unit_factors(maxabs, &e, &s1, &s2);
	dot = ssa = ssb = 0;
	for (size_t i = 0; i < m; i++) {
		double p, q;

		if (!isfinite(x[i]) || !isfinite(y[i]))
			continue;
		p = x[i] * s1 * s2;
		q = y[i] * s1 * s2;
		dot += p * q;
		ssa += p * p;
		ssb += q * q;
	}
	add_products(c, e, dot, ssa, ssb);
}

/* The squares of a block's differences (0 for none), scaled likewise; an
 * infinite or NaN difference makes the sum so. */
static void ssd_pass(ckpt_cmp *c, const double *d, size_t m)
{
	double maxabs = 0, ssd = 0, s1, s2;
	int e, nan = 0;

	for (size_t i = 0; i < m; i++) {
		nan |= d[i] != d[i];
		maxabs = fmax(maxabs, fabs(d[i]));
		ssd += d[i] * d[i];
	}
	if (nan || isinf(maxabs)) {
		add_ssd(c, 0, nan ? NAN : INFINITY);
		return;
	}
	if (maxabs == 0)
		return;
	if (plain_range(maxabs)) {
		add_ssd(c, 0, ssd);
		return;
	}
	unit_factors(maxabs, &e, &s1, &s2);
	ssd = 0;
	for (size_t i = 0; i < m; i++) {
		double p = d[i] * s1 * s2;

		ssd += p * p;
	}
	add_ssd(c, e, ssd);
}

/* The statistics of differing elements, kept in locals over a slab. */
struct diffs {
	uint64_t n, max_at;
	double max_abs, max_rel;
};

/* d: a - b, rounded once (exact integers differ by their exact difference) */
static inline void note_difference(struct diffs *t, double d, double b,
                                   uint64_t index)
{
	double fb = fabs(b);

	d = fabs(d);
	t->n++;
	if (d != d) { /* NaN against a number, or inf - inf */
		if (t->n == 1)
			t->max_at = index;
		return;
	}
	if (d > t->max_abs || t->n == 1) {
		t->max_abs = d;
		t->max_at = index;
	}
	/* only a possible new maximum pays for the division; the margin keeps
	 * the multiplication's rounding from hiding one */
	if (fb == 0)
		t->max_rel = d > 0 ? INFINITY : t->max_rel;
	else if (d >= t->max_rel * fb * (1 - 1e-7) && d / fb > t->max_rel)
		t->max_rel = d / fb;
}

void ckpt_cmp_slab(ckpt_cmp *c, const ckpt_tol *tol, ckpt_dtype ta, const void *a,
                   ckpt_dtype tb, const void *b, size_t n, uint64_t start,
                   void (*each)(uint64_t index, size_t i, void *user), void *user)
{
	size_t sa = ckpt_dtype_size(ta), sb = ckpt_dtype_size(tb);
	int ints = is_int(ta) && is_int(tb);
	double x[BLOCK], y[BLOCK], dsq[BLOCK];
	i128 ix, iy;
	struct diffs t = {c->ndiff, c->max_abs_at, c->max_abs, c->max_rel};
	double atol = tol->atol, rtol = tol->rtol;

	for (size_t off = 0; off < n; off += BLOCK) {
		size_t m = n - off < BLOCK ? n - off : BLOCK;
		const char *pa = (const char *)a + off * sa, *pb = (const char *)b + off * sb;

		/* the same bytes are the same values, in every mode */
		if (ta == tb && !c->products && memcmp(pa, pb, m * sa) == 0)
			continue;
		ckpt_to_double(ta, pa, x, m);
		ckpt_to_double(tb, pb, y, m);
		if (c->products)
			products_pass(c, x, y, m);
		for (size_t i = 0; i < m; i++) {
			double d = x[i] - y[i];
			int eq;

			if (tol->bitwise) {
				eq = ta == tb && memcmp(pa + i * sa, pb + i * sb, sa) == 0;
			} else if (ints) {
				ckpt_to_i128(ta, pa + i * sa, &ix, 1, 0);
				ckpt_to_i128(tb, pb + i * sb, &iy, 1, 0);
				eq = values_close(tol, x[i], y[i], ta, tb, &ix, &iy);
				d = (double)(ix - iy); /* 2^53 and 2^53+1 differ by 1 */
			} else {
				eq = within(x[i], y[i], atol, rtol) ||
				     (tol->use_ulps &&
				      values_close(tol, x[i], y[i], ta, tb, NULL, NULL));
			}
			/* equal values (NaN and NaN, inf and inf) add nothing to the
			 * squared difference; an infinite or NaN difference makes it so */
			dsq[i] = d != 0 && (isfinite(d) || !eq) ? d : 0;
			if (eq)
				continue;
			note_difference(&t, d, y[i], start + off + i);
			if (each)
				each(start + off + i, off + i, user);
		}
		ssd_pass(c, dsq, m);
	}
	c->ndiff = t.n;
	c->max_abs_at = t.max_at;
	c->max_abs = t.max_abs;
	c->max_rel = t.max_rel;
	c->count += n;
}

void ckpt_cmp_merge(ckpt_cmp *c, const ckpt_cmp *later)
{
	if (later->ndiff && (!c->ndiff || later->max_abs > c->max_abs)) {
		c->max_abs = later->max_abs;
		c->max_abs_at = later->max_abs_at;
	}
	if (later->max_rel > c->max_rel)
		c->max_rel = later->max_rel;
	if (!c->ndiff && later->ndiff)
		c->max_abs_at = later->max_abs_at;
	c->count += later->count;
	c->ndiff += later->ndiff;
	add_ssd(c, later->dexp, later->ssd);
	add_products(c, later->pexp, later->dot, later->ssa, later->ssb);
}

double ckpt_cmp_rms(const ckpt_cmp *c)
{
	return c->count ? ldexp(sqrt(c->ssd / (double)c->count), c->dexp) : 0;
}

double ckpt_cmp_cosine(const ckpt_cmp *c)
{
	double p = c->ssa * c->ssb, cos;

	if (c->ssa == 0 && c->ssb == 0)
		return 1;
	/* sqrt(x * x) is x exactly: identical vectors give exactly 1 */
	cos = isfinite(p) ? c->dot / sqrt(p) : c->dot / (sqrt(c->ssa) * sqrt(c->ssb));
	return cos > 1 ? 1 : cos < -1 ? -1 : cos;
}

double ckpt_cmp_rel_l2(const ckpt_cmp *c)
{
	if (c->ssb == 0)
		return c->ssd == 0 ? 0 : INFINITY;
	return ldexp(sqrt(c->ssd) / sqrt(c->ssb), c->dexp - c->pexp);
}
