/* eft.h - (internal to libckpt) error-free transformations: a + b and
 * a * b as a double and its exact error (Knuth's TwoSum; Dekker's product
 * with Veltkamp's split, not fma, which is slow software where the
 * instruction is not compiled in; exact below 2^996 unless it underflows).
 * The toolkit is compiled with -ffp-contract=off, as these need. */
#ifndef CKPT_EFT_H
#define CKPT_EFT_H

static inline double ckpt_two_sum(double a, double b, double *e)
{
	double s = a + b, bb = s - a;

	*e = (a - (s - bb)) + (b - bb);
	return s;
}

static inline double ckpt_two_prod(double a, double b, double *e)
{
	double p = a * b, t, ah, al, bh, bl;

	t = 134217729.0 * a; /* 2^27 + 1 */
	ah = t - (t - a);
	al = a - ah;
	t = 134217729.0 * b;
	bh = t - (t - b);
	bl = b - bh;
	*e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
	return p;
}

#endif
