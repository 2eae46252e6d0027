/* exact.c - numbers m 2^e exactly, and a quotient of two rounded once. */
#include "exact.h"

#include <math.h>
#include <string.h>

/* Working room: a number shifted into alignment with another, plus the
 * 68 bits of a quotient. */
#define ROOM (2 * CKPT_BIG_LIMBS + 4)

typedef unsigned __int128 u128;

static int length(const uint32_t *d, int n)
{
	while (n > 0 && d[n - 1] == 0)
		n--;
	return n;
}

static int64_t bit_length(const uint32_t *d, int n)
{
	n = length(d, n);
	return n ? 32 * (int64_t)(n - 1) + 32 - __builtin_clz(d[n - 1]) : 0;
}

/* dst = src << bits; returns dst's length (dst has room for it). */
static int shift_left(uint32_t *dst, const uint32_t *src, int n, int64_t bits)
{
	int limbs = (int)(bits / 32), b = (int)(bits % 32);

	memset(dst, 0, (size_t)limbs * sizeof *dst);
	dst[limbs + n] = 0;
	for (int i = n - 1; i >= 0; i--) {
		dst[limbs + i + 1] |= b ? src[i] >> (32 - b) : 0;
		dst[limbs + i] = src[i] << b;
	}
	return length(dst, limbs + n + 1);
}

/* dst = src >> bits */
static int shift_right(uint32_t *dst, const uint32_t *src, int n, int64_t bits)
{
	int limbs = (int)(bits / 32), b = (int)(bits % 32), m = n - limbs;

	if (m <= 0)
		return 0;
	for (int i = 0; i < m; i++) {
		uint32_t hi = i + limbs + 1 < n ? src[i + limbs + 1] : 0;

		dst[i] = src[i + limbs] >> b | (b ? hi << (32 - b) : 0);
	}
	return length(dst, m);
}

static int compare(const uint32_t *a, int na, const uint32_t *b, int nb)
{
	na = length(a, na);
	nb = length(b, nb);
	if (na != nb)
		return na < nb ? -1 : 1;
	for (int i = na - 1; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* a += b; a has room for one limb more than the longer */
static int add_to(uint32_t *a, int na, const uint32_t *b, int nb)
{
	uint64_t carry = 0;
	int n = na > nb ? na : nb;

	for (int i = 0; i < n; i++) {
		uint64_t s = (uint64_t)(i < na ? a[i] : 0) + (i < nb ? b[i] : 0) + carry;

		a[i] = (uint32_t)s;
		carry = s >> 32;
	}
	a[n] = (uint32_t)carry;
	return length(a, n + 1);
}

/* a -= b, a >= b */
static int sub_from(uint32_t *a, int na, const uint32_t *b, int nb)
{
	int64_t borrow = 0;

	for (int i = 0; i < na; i++) {
		int64_t s = (int64_t)a[i] - (i < nb ? b[i] : 0) - borrow;

		borrow = s < 0;
		a[i] = (uint32_t)(s + (borrow ? INT64_C(1) << 32 : 0));
	}
	return length(a, na);
}

/* Keep the value's limbs few: low zero limbs become exponent. */
static void normalise(ckpt_big *a)
{
	int z = 0;

	a->n = length(a->d, a->n);
	while (z < a->n && a->d[z] == 0)
		z++;
	if (z) {
		memmove(a->d, a->d + z, (size_t)(a->n - z) * sizeof *a->d);
		a->n -= z;
		a->exp += 32 * (int64_t)z;
	}
	if (a->n == 0)
		a->neg = 0;
}

void ckpt_big_set(ckpt_big *a, double x)
{
	int e;
	uint64_t m = (uint64_t)ldexp(frexp(fabs(x), &e), 53);

	a->neg = x < 0;
	a->exp = e - 53;
	a->d[0] = (uint32_t)m;
	a->d[1] = (uint32_t)(m >> 32);
	a->n = 2;
	normalise(a);
}

void ckpt_big_mul(ckpt_big *a, double x)
{
	int e;
	uint64_t m = (uint64_t)ldexp(frexp(fabs(x), &e), 53);
	u128 carry = 0;

	for (int i = 0; i < a->n; i++) {
		u128 t = (u128)a->d[i] * m + carry;

		a->d[i] = (uint32_t)t;
		carry = t >> 32;
	}
	for (; carry && a->n < CKPT_BIG_LIMBS; carry >>= 32)
		a->d[a->n++] = (uint32_t)carry;
	a->exp += e - 53;
	a->neg ^= x < 0;
	if (m == 0)
		a->n = 0;
	normalise(a);
}

/* a + (negate ? -b : b) */
static void add_signed(ckpt_big *a, const ckpt_big *b, int negate)
{
	uint32_t x[ROOM], y[ROOM];
	int64_t e;
	int nx, ny, bneg = b->neg ^ negate;

	if (b->n == 0)
		return;
	if (a->n == 0) {
		*a = *b;
		a->neg = bneg;
		return;
	}
	e = a->exp < b->exp ? a->exp : b->exp;
	/* (a sum of products of four doubles spans fewer than 8400 bits) */
	nx = shift_left(x, a->d, a->n, a->exp - e);
	ny = shift_left(y, b->d, b->n, b->exp - e);
	if (a->neg == bneg) {
		nx = add_to(x, nx, y, ny);
	} else if (compare(x, nx, y, ny) >= 0) {
		nx = sub_from(x, nx, y, ny);
	} else {
		ny = sub_from(y, ny, x, nx);
		memcpy(x, y, (size_t)ny * sizeof *x);
		nx = ny;
		a->neg = bneg;
	}
	if (nx > CKPT_BIG_LIMBS) { /* not reached: keep the top */
		e += 32 * (int64_t)(nx - CKPT_BIG_LIMBS);
		memmove(x, x + nx - CKPT_BIG_LIMBS, CKPT_BIG_LIMBS * sizeof *x);
		nx = CKPT_BIG_LIMBS;
	}
	memcpy(a->d, x, (size_t)nx * sizeof *x);
	a->n = nx;
	a->exp = e;
	normalise(a);
}

void ckpt_big_add(ckpt_big *a, const ckpt_big *b)
{
	add_signed(a, b, 0);
}

void ckpt_big_sub(ckpt_big *a, const ckpt_big *b)
{
	add_signed(a, b, 1);
}

int ckpt_big_sign(const ckpt_big *a)
{
	return a->n == 0 ? 0 : a->neg ? -1 : 1;
}

static int bit_at(const uint32_t *d, int n, int64_t i)
{
	return i / 32 < n ? (int)(d[i / 32] >> (i % 32) & 1) : 0;
}

/* (q + r) 2^e, 0 <= r < 1 (sticky: r > 0), as a double. */
static double round_double(u128 q, int sticky, int64_t e, int to_odd)
{
	int len = 0;
	int64_t lsb, drop;
	u128 kept;
	int half;

	for (u128 t = q; t; t >>= 1)
		len++;
	if (len == 0)
		return 0;
	lsb = e + len - 53;
	if (lsb < -1074)
		lsb = -1074;
	if (lsb > 1024)
		return INFINITY;
	drop = lsb - e;
	if (drop <= 0) {
		kept = q << -drop;
		half = 0;
	} else if (drop > 127) {
		kept = 0;
		half = 0;
		sticky = 1;
	} else {
		kept = q >> drop;
		half = (int)(q >> (drop - 1) & 1);
		sticky |= (q & (((u128)1 << (drop - 1)) - 1)) != 0;
	}
	if (to_odd)
		kept |= (u128)(half | sticky);
	else if (half && (sticky || (kept & 1)))
		kept++;
	return ldexp((double)kept, (int)lsb);
}

double ckpt_big_quotient(const ckpt_big *num, const ckpt_big *den, int to_odd)
{
	uint32_t n[ROOM], d[ROOM], r[ROOM];
	int64_t s, ln = bit_length(num->d, num->n), ld = bit_length(den->d, den->n);
	int nn, nd, nr;
	u128 q = 0;
	double x;

	if (num->n == 0)
		return 0;
	/* n / d in [2^67, 2^69): 68 bits of quotient and more */
	s = 68 + ld - ln;
	if (s >= 0) {
		nn = shift_left(n, num->d, num->n, s);
		memcpy(d, den->d, (size_t)den->n * sizeof *d);
		nd = den->n;
	} else {
		memcpy(n, num->d, (size_t)num->n * sizeof *n);
		nn = num->n;
		nd = shift_left(d, den->d, den->n, -s);
	}
	nr = shift_right(r, n, nn, 69);
	for (int64_t i = 68; i >= 0; i--) {
		nr = shift_left(r, r, nr, 1); /* (in place: from the top down) */
		r[0] |= (uint32_t)bit_at(n, nn, i);
		nr = length(r, nr > 0 ? nr : 1);
		q <<= 1;
		if (compare(r, nr, d, nd) >= 0) {
			nr = sub_from(r, nr, d, nd);
			q |= 1;
		}
	}
	x = round_double(q, nr != 0, num->exp - den->exp - s, to_odd);
	return num->neg != den->neg ? -x : x;
}
