/* xsum.c - exact sums of doubles, rounded once. */
#include "xsum.h"
#include "eft.h"

#include <math.h>
#include <string.h>

void ckpt_xsum_init(ckpt_xsum *s)
{
	memset(s, 0, sizeof *s);
}

/* Digits back into [0, 2^32), the top one holding the sign. */
static void settle(ckpt_xsum *s)
{
	int64_t carry = 0;

	for (int i = 0; i < CKPT_XSUM_DIGITS - 1; i++) {
		int64_t v = s->d[i] + carry;

		carry = v >> 32; /* (arithmetic: floor) */
		s->d[i] = v & 0xffffffff;
	}
	s->d[CKPT_XSUM_DIGITS - 1] += carry;
	s->adds = 0;
}

static inline void add(ckpt_xsum *s, double x)
{
	uint64_t bits, m;
	int e, pos;
	unsigned __int128 v;

	memcpy(&bits, &x, sizeof bits);
	e = (int)(bits >> 52 & 0x7ff);
	m = bits & ((UINT64_C(1) << 52) - 1);
	if (e == 0x7ff) {
		s->nonfinite = 1;
		return;
	}
	if (m == 0 && e == 0)
		return;
	/* x = m 2^(pos - 1074) */
	pos = e ? e - 1 : 0;
	m |= e ? UINT64_C(1) << 52 : 0;
	v = (unsigned __int128)m << (pos % 32);
	if (bits >> 63) {
		s->d[pos / 32] -= (int64_t)(uint32_t)v;
		s->d[pos / 32 + 1] -= (int64_t)(uint32_t)(v >> 32);
		s->d[pos / 32 + 2] -= (int64_t)(uint32_t)(v >> 64);
	} else {
		s->d[pos / 32] += (int64_t)(uint32_t)v;
		s->d[pos / 32 + 1] += (int64_t)(uint32_t)(v >> 32);
		s->d[pos / 32 + 2] += (int64_t)(uint32_t)(v >> 64);
	}
	if (++s->adds >= (UINT32_C(1) << 30))
		settle(s);
}

void ckpt_xsum_add(ckpt_xsum *s, double x)
{
	add(s, x);
}

/* s += a b: the product and its error (Dekker's), the error only where
 * there is one */
static inline void add_prod(ckpt_xsum *s, double a, double b)
{
	double e, p = ckpt_two_prod(a, b, &e);

	if (p != 0)
		add(s, p);
	if (e != 0 && isfinite(p))
		add(s, e);
}

void ckpt_xsum_add_prod(ckpt_xsum *s, double a, double b)
{
	add_prod(s, a, b);
}

void ckpt_xsum_dot(ckpt_xsum *s, const double *a, const double *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		add_prod(s, a[i], b[i]);
}

void ckpt_xsum_merge(ckpt_xsum *s, ckpt_xsum *t)
{
	settle(s);
	settle(t);
	for (int i = 0; i < CKPT_XSUM_DIGITS; i++)
		s->d[i] += t->d[i];
	s->nonfinite |= t->nonfinite;
}

double ckpt_xsum_round(ckpt_xsum *s)
{
	uint32_t mag[CKPT_XSUM_DIGITS];
	int neg, top = -1, len, sh;
	uint64_t mant = 0, half, sticky = 0;

	if (s->nonfinite)
		return NAN;
	settle(s);
	neg = s->d[CKPT_XSUM_DIGITS - 1] < 0;
	/* the magnitude, from two's complement */
	{
		uint64_t carry = neg;

		for (int i = 0; i < CKPT_XSUM_DIGITS; i++) {
			uint64_t v = (uint32_t)(neg ? ~(uint32_t)s->d[i] : (uint32_t)s->d[i]);

			v += carry;
			mag[i] = (uint32_t)v;
			carry = v >> 32;
		}
	}
	for (int i = CKPT_XSUM_DIGITS - 1; i >= 0 && top < 0; i--)
		if (mag[i])
			top = i;
	if (top < 0)
		return 0;
	len = 32 * top + 32 - __builtin_clz(mag[top]); /* bits of the integer */
	sh = len > 53 ? len - 53 : 0;
	for (int b = 0; b < 53 && sh + b < len; b++)
		mant |= (uint64_t)(mag[(sh + b) / 32] >> ((sh + b) % 32) & 1) << b;
	half = sh ? mag[(sh - 1) / 32] >> ((sh - 1) % 32) & 1 : 0;
	for (int b = 0; b + 1 < sh && !sticky; b++)
		sticky = mag[b / 32] >> (b % 32) & 1;
	if (half && (sticky || (mant & 1)))
		mant++;
	return (neg ? -1 : 1) * ldexp((double)mant, sh - 1074);
}
