/* Element types and the conversion module. */
#include "unit.h"
#include "lib/dtypeint.h"

#include <float.h>

static void f16_roundtrip_every_pattern(void **state)
{
	(void)state;
	for (uint32_t b = 0; b < 65536; b++) {
		double d = ckpt_f16_to_double((uint16_t)b);
		uint16_t back = ckpt_double_to_f16(d);

		if (isnan(d))
			assert_int_equal(back, b | 0x0200); /* quieted, payload kept */
		else
			assert_int_equal(back, b);
	}
}

static void bf16_roundtrip_every_pattern(void **state)
{
	(void)state;
	for (uint32_t b = 0; b < 65536; b++) {
		double d = ckpt_bf16_to_double((uint16_t)b);
		uint16_t back = ckpt_double_to_bf16(d);
		float f;
		uint32_t fb = b << 16;

		memcpy(&f, &fb, sizeof f);
		if (isnan(d)) {
			assert_true(isnan(f));
			assert_int_equal(back, b | 0x0040);
		} else {
			assert_true(d == (double)f); /* bf16 is the top half of f32 */
			assert_int_equal(back, b);
		}
	}
}

static void f16_known_values(void **state)
{
	(void)state;
	assert_true(ckpt_f16_to_double(0x3c00) == 1.0);
	assert_true(ckpt_f16_to_double(0x7bff) == 65504.0);
	assert_true(ckpt_f16_to_double(0x0001) == ldexp(1, -24));
	assert_true(ckpt_f16_to_double(0x03ff) == ldexp(1023, -24));
	assert_true(isinf(ckpt_f16_to_double(0xfc00)) && ckpt_f16_to_double(0xfc00) < 0);
	assert_int_equal(ckpt_double_to_f16(65504), 0x7bff);
	assert_int_equal(ckpt_double_to_f16(65519.99), 0x7bff);
	assert_int_equal(ckpt_double_to_f16(65520), 0x7c00); /* tie rounds to Inf */
	assert_int_equal(ckpt_double_to_f16(1e300), 0x7c00);
	assert_int_equal(ckpt_double_to_f16(-0.0), 0x8000);
	assert_int_equal(ckpt_double_to_f16(ldexp(1, -25)), 0x0000); /* tie to even */
	assert_int_equal(ckpt_double_to_f16(ldexp(3, -25)), 0x0002); /* tie to even */
	assert_int_equal(ckpt_double_to_f16(ldexp(1, -25) * 1.0000001), 0x0001);
	assert_int_equal(ckpt_double_to_f16(ldexp(1023.5, -24)), 0x0400); /* into normal */
	assert_int_equal(ckpt_double_to_f16(1e-300), 0x0000);
	assert_int_equal(ckpt_double_to_f16(0.1), 0x2e66);
	assert_int_equal(ckpt_double_to_f16(1 + ldexp(1, -11)), 0x3c00); /* tie */
	assert_int_equal(ckpt_double_to_f16(1 + ldexp(3, -11)), 0x3c02); /* tie up */
}

/* Rounding straight from double, not through float32, which would round
 * twice: 1 + 2^-8 + 2^-30 becomes the tie 1 + 2^-8 in float32. */
static void bf16_no_double_rounding(void **state)
{
	double v = 1 + ldexp(1, -8) + ldexp(1, -30);

	(void)state;
	assert_int_equal(ckpt_double_to_bf16(v), 0x3f81);
	assert_int_equal(ckpt_double_to_bf16(1 + ldexp(1, -8)), 0x3f80);
	assert_int_equal(ckpt_double_to_bf16(3.3895313892515355e38), 0x7f7f);
	assert_int_equal(ckpt_double_to_bf16(3.4e38), 0x7f80);
	assert_int_equal(ckpt_double_to_bf16(ldexp(1, -133)), 0x0001);
}

/* The generic encoder, set to float32's layout, rounds exactly as the
 * hardware does: random doubles over the whole range, exact ties between
 * adjacent floats, subnormals, overflow. */
static uint32_t hw_f32(double d)
{
	float f = (float)d;
	uint32_t b;

	memcpy(&b, &f, sizeof b);
	return b;
}

/* The fast 16-bit conversions give the generic (reference) ones' bits:
 * every pattern decoded, and 10^7 doubles encoded - random over the whole
 * range, exact ties and their neighbours, subnormals of both formats, values
 * around the largest finite, and NaNs with payloads. */
static uint64_t bits64(double v)
{
	uint64_t b;

	memcpy(&b, &v, sizeof b);
	return b;
}

static double double_of_bits(uint64_t b)
{
	double v;

	memcpy(&v, &b, sizeof v);
	return v;
}

static void fast_decoders_match_reference(void **state)
{
	(void)state;
	for (uint32_t b = 0; b < 65536; b++) {
		assert_true(bits64(ckpt_f16_to_double((uint16_t)b)) ==
		            bits64(ckpt_float_decode(b, 5, 10)));
		assert_true(bits64(ckpt_bf16_to_double((uint16_t)b)) ==
		            bits64(ckpt_float_decode(b, 8, 7)));
	}
}

/* The slab conversions (vectorised, or the CPU's F16C instructions where
 * present) give the same bits: every pattern, in one slab. */
static void slab_decoders_match_reference(void **state)
{
	static uint16_t h[65536];
	static double d[65536];

	(void)state;
	for (uint32_t b = 0; b < 65536; b++)
		h[b] = (uint16_t)b;
	ckpt_to_double(CKPT_F16, h, d, 65536);
	for (uint32_t b = 0; b < 65536; b++)
		assert_true(bits64(d[b]) == bits64(ckpt_float_decode(b, 5, 10)));
	ckpt_to_double(CKPT_BF16, h, d, 65536);
	for (uint32_t b = 0; b < 65536; b++)
		assert_true(bits64(d[b]) == bits64(ckpt_float_decode(b, 8, 7)));
	/* and back, through the slab encoders */
	ckpt_to_double(CKPT_F16, h, d, 65536);
	ckpt_from_double(CKPT_F16, d, h, 65536);
	for (uint32_t b = 0; b < 65536; b++)
		assert_int_equal(h[b], ckpt_float_encode(ckpt_float_decode(b, 5, 10), 5, 10));
}

static void check_encoders(double d)
{
	if (ckpt_double_to_f16(d) != ckpt_float_encode(d, 5, 10))
		fail_msg("f16 of %a: %#x, want %#x", d, ckpt_double_to_f16(d),
		         ckpt_float_encode(d, 5, 10));
	if (ckpt_double_to_bf16(d) != ckpt_float_encode(d, 8, 7))
		fail_msg("bf16 of %a: %#x, want %#x", d, ckpt_double_to_bf16(d),
		         ckpt_float_encode(d, 8, 7));
}

static void fast_encoders_match_reference(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	(void)state;
	for (int i = 0; i < 2500000; i++) {
		double d, tie;
		uint16_t h;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		/* exponents from below bf16's subnormals to past its maximum */
		d = ldexp((double)(x >> 11), (int)(x % 300) - 140 - 53);
		if (x & 1)
			d = -d;
		check_encoders(d);
		/* exact ties between adjacent 16-bit values, and one ulp either side */
		h = (uint16_t)(x >> 40);
		tie = (ckpt_f16_to_double(h) + ckpt_f16_to_double((uint16_t)(h + 1))) / 2;
		check_encoders(tie);
		check_encoders(nextafter(tie, 0));
		check_encoders(nextafter(tie, INFINITY));
	}
	for (uint32_t b = 0; b < 65536; b++) { /* bf16 ties, and NaN payloads */
		double lo = ckpt_bf16_to_double((uint16_t)b);

		check_encoders((lo + ckpt_bf16_to_double((uint16_t)(b + 1))) / 2);
		check_encoders(lo);
	}
	check_encoders(65520);           /* f16: rounds to Inf */
	check_encoders(nextafter(65520, 0));
	check_encoders(DBL_MAX);
	check_encoders(DBL_TRUE_MIN);
	check_encoders(-0.0);
	check_encoders(double_of_bits(0x7ff0000000000001ULL)); /* signalling NaN */
}

/* The slab encoders (ckpt_from_double: integer arithmetic where the
 * result is normal, the scalar encoder elsewhere) give the reference's
 * bits and count the overflows: per format, random values over its normal
 * range, exact ties between adjacent values and their neighbours, in slabs
 * of 256 that mostly hold no value the fast step leaves, and in a fifth of
 * them one (a subnormal result, NaN, Inf, huge, zero). */
static void fill_for_format(double *d, size_t n, int eb, int mb, uint64_t x)
{
	const double odd[] = {0.0, -0.0, 65520, 0x1p-20, INFINITY, -INFINITY, NAN, DBL_MAX,
	                      0x1p-140, 3.4e38, -0x1.ffp127, 0x1.fffp15, DBL_TRUE_MIN};
	uint32_t first = 1u << mb, last = ((1u << eb) - 1) << mb; /* normal, finite */

	for (size_t i = 0; i < n; i++) {
		uint32_t v;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v = first + (uint32_t)(x >> 32) % (last - first - 1);
		d[i] = ckpt_float_decode(v, eb, mb);
		if (i % 2) /* a tie, or beside one */
			d[i] = (d[i] + ckpt_float_decode(v + 1, eb, mb)) / 2;
		if (i % 4 == 3)
			d[i] = nextafter(d[i], x & 4 ? INFINITY : 0);
		if (i % 8 == 2) /* anything in the range */
			d[i] *= 1 + (double)(x >> 12) * 0x1p-53;
		d[i] = x & 1 ? -d[i] : d[i];
	}
	for (size_t at = 0; at < n; at += 256) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (x % 5 == 0)
			d[at + x % 256] = odd[(x >> 20) % (sizeof odd / sizeof *odd)];
	}
}

/* (slab lengths: whole groups of 16 and not, for the AVX2 encoder's tail) */
static const size_t slab_len[] = {256, 255, 17, 16, 15, 1, 100, 48};
#define SLAB_LEN(j) slab_len[(j) % (sizeof slab_len / sizeof *slab_len)]

static void slab_encoders_match_reference(void **state)
{
	enum { N = 1 << 20 };
	double *d = malloc(N * sizeof *d);
	uint16_t *h = malloc(N * sizeof *h);

	(void)state;
	assert_non_null(d);
	assert_non_null(h);
	for (int t = 0; t < 2; t++) {
		ckpt_dtype type = t ? CKPT_BF16 : CKPT_F16;
		int eb = t ? 8 : 5, mb = t ? 7 : 10;
		size_t len;

		fill_for_format(d, N, eb, mb, 0x2545f4914f6cdd1dULL + (uint64_t)t);
		for (size_t at = 0, j = 0; at < N; at += len, j++) {
			size_t bad, want = 0;

			len = SLAB_LEN(j) < N - at ? SLAB_LEN(j) : N - at;
			bad = ckpt_from_double(type, d + at, h + at, len);
			for (size_t i = at; i < at + len; i++) {
				uint32_t r = ckpt_float_encode(d[i], eb, mb);

				if (h[i] != r)
					fail_msg("%s of %a: %#x, want %#x", ckpt_dtype_name(type), d[i],
					         h[i], r);
				want += (r & 0x7fff) == (((1u << eb) - 1) << mb) && isfinite(d[i]);
			}
			assert_int_equal(bad, want);
		}
	}
	free(d);
	free(h);
}

/* The AVX2 encoder (where the CPU has AVX2; ckpt_from_double() takes it
 * where it has no AVX-512) encodes a slab exactly when every value is 0 or
 * rounds to a normal value, not an infinity - and then as the reference
 * does; else it says so, and the scalar encoder takes the slab. */
static void avx2_half_encoder_takes_only_normal_results(void **state)
{
#if CKPT_HAVE_FMA
	enum { N = 1 << 19 };
	double *d = malloc(N * sizeof *d);
	uint16_t *h = malloc(N * sizeof *h);
	size_t taken = 0, left = 0;

	(void)state;
	if (!__builtin_cpu_supports("avx2")) {
		free(d), free(h);
		skip();
	}
	assert_non_null(d);
	assert_non_null(h);
	for (int t = 0; t < 2; t++) {
		int eb = t ? 8 : 5, mb = t ? 7 : 10;
		uint32_t inf = ((1u << eb) - 1) << mb;
		double least = ckpt_float_decode(1u << mb, eb, mb);
		size_t len;

		fill_for_format(d, N, eb, mb, 0x5851f42d4c957f2dULL + (uint64_t)t);
		d[1000] = nextafter(least, 0); /* rounds up to the least normal */
		d[3000] = ckpt_float_decode(inf - 1, eb, mb) * (1 + 0x1p-9); /* to an infinity */
		for (size_t at = 0, j = 0; at < N; at += len, j++) {
			int fast = 1, said;

			len = SLAB_LEN(j) < N - at ? SLAB_LEN(j) : N - at;
			for (size_t i = at; i < at + len; i++)
				fast &= d[i] == 0 || (fabs(d[i]) >= least &&
				                      (ckpt_float_encode(d[i], eb, mb) & 0x7fff) < inf);
			said = ckpt_encode_half_avx2(d + at, h + at, len, eb, mb);
			assert_int_equal(said, !fast);
			taken += !said, left += (size_t)said;
			for (size_t i = at; !said && i < at + len; i++)
				if (h[i] != ckpt_float_encode(d[i], eb, mb))
					fail_msg("%d-bit exponent, %a: %#x, want %#x", eb, d[i], h[i],
					         ckpt_float_encode(d[i], eb, mb));
		}
	}
	assert_true(taken > 1000 && left > 100); /* (both ways, often) */
	free(d);
	free(h);
#else
	(void)state;
	skip();
#endif
}

static void generic_encoder_matches_hardware(void **state)
{
	uint64_t x = 88172645463325252ULL;

	(void)state;
	for (int i = 0; i < 300000; i++) {
		double d, tie;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		d = ldexp((double)(x >> 11), (int)(x % 320) - 210 - 53);
		if (x & 1)
			d = -d;
		assert_int_equal(ckpt_float_encode(d, 8, 23), hw_f32(d));
		/* the midpoint between d's float and the next one up */
		tie = ((double)(float)d + (double)nextafterf((float)d, INFINITY)) / 2;
		assert_int_equal(ckpt_float_encode(tie, 8, 23), hw_f32(tie));
	}
	assert_int_equal(ckpt_float_encode(FLT_MAX * 1.0000001, 8, 23), hw_f32(FLT_MAX * 1.0000001));
	assert_int_equal(ckpt_float_encode(ldexp(1, -150), 8, 23), 0);
	assert_int_equal(ckpt_float_encode(ldexp(3, -150), 8, 23), 2);
}

static void widen_every_type(void **state)
{
	int8_t i8[3] = {-128, 0, 127};
	uint64_t u64[2] = {0, UINT64_MAX};
	int64_t i64[2] = {INT64_MIN, (1LL << 53) + 1};
	signed char bools[2] = {0, 1};
	double out[3];

	(void)state;
	ckpt_to_double(CKPT_I8, i8, out, 3);
	assert_true(out[0] == -128 && out[1] == 0 && out[2] == 127);
	ckpt_to_double(CKPT_U64, u64, out, 2);
	assert_true(out[1] == 18446744073709551616.0);
	ckpt_to_double(CKPT_I64, i64, out, 2);
	assert_true(out[0] == -9223372036854775808.0 && out[1] == 9007199254740992.0);
	ckpt_to_double(CKPT_BOOL, bools, out, 2);
	assert_true(out[0] == 0 && out[1] == 1);
}

/* Every type float holds, widened to float as to double, past the
 * conversion's own block of 512 (types of 1, 2 and 4 bytes). */
static void widen_to_float_as_to_double(void **state)
{
	static const ckpt_dtype types[] = {CKPT_BOOL, CKPT_I8, CKPT_U8, CKPT_F8E4M3,
	                                   CKPT_F8E5M2, CKPT_I16, CKPT_U16, CKPT_F16,
	                                   CKPT_BF16, CKPT_F32};
	enum { N = 1500 };
	unsigned char src[N * 4];
	float f[N];
	double d[N];

	(void)state;
	for (size_t i = 0; i < sizeof src; i++)
		src[i] = (unsigned char)(i * 7 + i / 5);
	for (size_t i = 0; i < N; i++) /* (bools: 0 or 1) */
		src[i] &= 1;
	for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
		assert_true(ckpt_dtype_holds(CKPT_F32, types[t]));
		ckpt_to_float(types[t], src, f, N);
		ckpt_to_double(types[t], src, d, N);
		for (size_t i = 0; i < N; i++)
			assert_true((double)f[i] == d[i] || (isnan(f[i]) && isnan(d[i])));
	}
}

static void narrow_integers(void **state)
{
	double v[8] = {2.5, 3.5, -2.5, -0.5, 127.4, 128, NAN, -129};
	int8_t o[8];
	uint8_t u[3];
	double uv[3] = {-0.6, 255.5, 254.5};
	int64_t big;
	double huge = 9.3e18;

	(void)state;
	assert_int_equal(ckpt_from_double(CKPT_I8, v, o, 8), 3);
	assert_int_equal(o[0], 2);
	assert_int_equal(o[1], 4);
	assert_int_equal(o[2], -2);
	assert_int_equal(o[3], 0);
	assert_int_equal(o[4], 127);
	assert_int_equal(o[5], 127); /* saturated */
	assert_int_equal(o[6], 0);   /* NaN: counted, never silently a number */
	assert_int_equal(o[7], -128);
	assert_int_equal(ckpt_from_double(CKPT_U8, uv, u, 3), 2);
	assert_int_equal(u[2], 254);
	assert_int_equal(ckpt_from_double(CKPT_I64, &huge, &big, 1), 1);
	assert_true(big == INT64_MAX);
}

static void narrow_float_overflow_counted(void **state)
{
	double v[3] = {1e39, INFINITY, 1.0};
	float f[3];
	uint16_t h[3];

	(void)state;
	assert_int_equal(ckpt_from_double(CKPT_F32, v, f, 3), 1);
	assert_int_equal(ckpt_from_double(CKPT_F16, v, h, 3), 1);
	assert_int_equal(ckpt_from_double(CKPT_BF16, v, h, 3), 1);
}

/* float32's overflow count at its edge: a finite double counts where its
 * conversion is infinite - from 2^128 - 2^103, halfway past FLT_MAX, on -
 * one by one as the hardware converts, in slabs (the count is vectorised). */
static void float32_overflow_counted_at_the_edge(void **state)
{
	enum { N = 64 };
	const double edge = 0x1.ffffffp127;
	double v[N];
	float f[N];
	size_t want = 0;

	(void)state;
	for (int i = 0; i < N; i++) {
		double at = i % 4 == 0 ? edge : i % 4 == 1 ? FLT_MAX : i % 4 == 2 ? DBL_MAX : 0x1p128;

		for (int k = 0; k < i / 8; k++) /* (the neighbours of each) */
			at = nextafter(at, i % 8 < 4 ? 0 : INFINITY);
		v[i] = i % 3 ? at : -at;
	}
	v[5] = NAN, v[6] = INFINITY, v[7] = -INFINITY;
	for (int i = 0; i < N; i++) {
		volatile float r = (float)v[i];

		want += isinf(r) && !isinf(v[i]);
	}
	assert_true(want > 8 && want < N - 8);
	assert_int_equal(ckpt_from_double(CKPT_F32, v, f, N), want);
	assert_int_equal(ckpt_from_double(CKPT_F32, v, f, 1), 1);     /* (-edge) */
	assert_int_equal(ckpt_from_double(CKPT_F32, v + 1, f, 1), 0); /* (FLT_MAX) */
}

/* float8: every pattern decodes to the value the format defines (E5M2 as
 * the generic IEEE decoder says; E4M3 likewise below its top binade, where
 * it has numbers instead of Inf) and encodes back to itself; NaNs stay
 * NaN; midpoints round to even; beyond the largest E4M3 (448) is NaN. */
static void f8_every_pattern_and_rounding(void **state)
{
	(void)state;
	for (unsigned b = 0; b < 256; b++) {
		double e5 = ckpt_e5m2_to_double((uint8_t)b), e4 = ckpt_e4m3_to_double((uint8_t)b);
		unsigned e = b >> 3 & 15, m = b & 7;

		if (isnan(e5))
			assert_true(isnan(ckpt_e5m2_to_double(ckpt_double_to_e5m2(e5))));
		else
			assert_int_equal(ckpt_double_to_e5m2(e5), b);
		assert_true(e5 == ckpt_float_decode(b, 5, 2) ||
		            (isnan(e5) && isnan(ckpt_float_decode(b, 5, 2))));
		if (e == 15 && m == 7) {
			assert_true(isnan(e4));
			assert_int_equal(ckpt_double_to_e4m3(e4) & 0x7f, 0x7f);
			continue;
		}
		assert_int_equal(ckpt_double_to_e4m3(e4), b);
		if (e < 15)
			assert_true(e4 == ckpt_float_decode(b, 4, 3));
		else
			assert_true(fabs(e4) == ldexp(8 + m, 5));
	}
	assert_true(ckpt_e4m3_to_double(0x7e) == 448 && ckpt_e4m3_to_double(0x01) == ldexp(1, -9));
	assert_int_equal(ckpt_double_to_e4m3(464), 0x7e);        /* tie: to even */
	assert_int_equal(ckpt_double_to_e4m3(464.0001), 0x7f);   /* overflow: NaN */
	assert_int_equal(ckpt_double_to_e4m3(-INFINITY), 0xff);
	assert_int_equal(ckpt_double_to_e4m3(1.0625), 0x38);     /* 1 + 1/16: tie to 1 */
	assert_int_equal(ckpt_double_to_e4m3(1.1875), 0x3a);     /* 1 + 3/16: tie to 1.25 */
	assert_int_equal(ckpt_double_to_e4m3(ldexp(1, -10)), 0); /* tie to zero */
	assert_int_equal(ckpt_double_to_e4m3(ldexp(3, -11)), 1);
	assert_int_equal(ckpt_double_to_e5m2(61440), 0x7c);      /* tie: up to Inf */
	assert_int_equal(ckpt_double_to_e5m2(1.125), 0x3c);
	assert_int_equal(ckpt_double_to_e5m2(1.375), 0x3e);
}

static void parses_long_and_short_names(void **state)
{
	ckpt_dtype t;

	(void)state;
	for (int i = CKPT_BOOL; i < CKPT_NDTYPES; i++) {
		assert_int_equal(ckpt_dtype_parse(ckpt_dtype_name((ckpt_dtype)i), &t), 0);
		assert_int_equal(t, i);
	}
	assert_int_equal(ckpt_dtype_parse("bf16", &t), 0);
	assert_int_equal(t, CKPT_BF16);
	assert_int_equal(ckpt_dtype_parse("u32", &t), 0);
	assert_int_equal(t, CKPT_U32);
	assert_int_equal(ckpt_dtype_parse("f8e4m3", &t), 0);
	assert_int_equal(t, CKPT_F8E4M3);
	assert_int_equal(ckpt_dtype_parse("float8", &t), -1);
	assert_non_null(strstr(ckpt_errmsg(), "unknown dtype 'float8'"));
}

/* Every file type the toolkit writes reads back as the same dtype, and the
 * standard HDF5 types map as expected. */
static void maps_hdf5_types_both_ways(void **state)
{
	(void)state;
	for (int i = CKPT_BOOL; i < CKPT_NDTYPES; i++) {
		hid_t ft = ckpt_dtype_filetype((ckpt_dtype)i);
		hid_t mt = ckpt_dtype_memtype((ckpt_dtype)i);

		if (!ckpt_h5_has_type((ckpt_dtype)i)) { /* float8: refused, not made up */
			assert_true(ft < 0 && mt < 0);
			continue;
		}
		assert_true(ft >= 0 && mt >= 0);
		assert_int_equal(ckpt_dtype_of(ft), i);
		assert_int_equal(ckpt_dtype_of(mt), i);
		assert_int_equal(H5Tget_size(mt), ckpt_dtype_size((ckpt_dtype)i));
		H5Tclose(ft);
		H5Tclose(mt);
	}
	assert_int_equal(ckpt_dtype_of(H5T_IEEE_F32BE), CKPT_F32);
	assert_int_equal(ckpt_dtype_of(H5T_STD_U16BE), CKPT_U16);
	assert_int_equal(ckpt_dtype_of(H5T_NATIVE_LDOUBLE), CKPT_OTHER);
	assert_int_equal(ckpt_dtype_of(H5T_C_S1), CKPT_OTHER);
}

/* ckpt_convert_changed(): a value that comes back as other bytes, but not
 * a NaN that stays one nor a zero of either sign; counted over blocks of
 * 512, the first one's index kept - for elements of 4, 2, 8 and 1 bytes. */
static void counts_the_values_a_conversion_changed(void **state)
{
	enum { N = 1300 };
	static float f[N];
	static uint16_t h[N];
	static int16_t s16[N], f16i[N];
	static int8_t s8[N];
	static int64_t i64[N];
	static double d[N];
	static uint8_t u8[N], b[N];
	size_t first = 0;

	(void)state;
	for (size_t i = 0; i < N; i++) /* each kept exactly, but for those below */
		f[i] = (float)((int)(i % 200) - 100) * 2;
	for (size_t i = 0; i < N; i++) {
		s16[i] = (int16_t)(i % 100);
		i64[i] = (int64_t)i;
		u8[i] = (uint8_t)(i % 2);
	}
	f[3] = -0.0f, f[700] = 0.1f, f[701] = 1e-3f, f[1299] = 3e38f;
	memcpy(&f[7], &(uint32_t){0x7fc00001u}, sizeof *f); /* a payload bfloat16 drops */
	ckpt_convert(CKPT_F32, f, CKPT_BF16, h, N);
	assert_int_equal(ckpt_convert_changed(CKPT_F32, f, CKPT_BF16, h, N, &first), 3);
	assert_int_equal(first, 700);
	/* -0 as an integer comes back as +0: the same value */
	ckpt_convert(CKPT_F32, f, CKPT_I16, f16i, N);
	assert_int_equal(ckpt_convert_changed(CKPT_F32, f, CKPT_I16, f16i, N, &first), 4);
	assert_int_equal(first, 7);
	s16[600] = 300, s16[1000] = -129;
	ckpt_convert(CKPT_I16, s16, CKPT_I8, s8, N);
	assert_int_equal(ckpt_convert_changed(CKPT_I16, s16, CKPT_I8, s8, N, &first), 2);
	assert_int_equal(first, 600);
	i64[513] = ((int64_t)1 << 53) + 1, i64[514] = -(((int64_t)1 << 54) + 4); /* (exact) */
	ckpt_convert(CKPT_I64, i64, CKPT_F64, d, N);
	assert_int_equal(ckpt_convert_changed(CKPT_I64, i64, CKPT_F64, d, N, &first), 1);
	assert_int_equal(first, 513);
	u8[5] = 2, u8[1100] = 255;
	ckpt_convert(CKPT_U8, u8, CKPT_BOOL, b, N);
	assert_int_equal(ckpt_convert_changed(CKPT_U8, u8, CKPT_BOOL, b, N, &first), 2);
	assert_int_equal(first, 5);
	/* a type that holds the other: nothing to count */
	assert_int_equal(ckpt_convert_changed(CKPT_BF16, h, CKPT_F32, f, N, &first), 0);
}

static void converts_rounding_once_and_counts_what_does_not_fit(void **state)
{
	int64_t big[] = {INT64_MAX, (int64_t)1 << 60 | (int64_t)1 << 36 | 1, -3, 16777217};
	float f[4];
	uint64_t u[] = {0, 200, 255, 256, UINT64_MAX};
	int8_t i8[5];
	double d[] = {1.0, 65504.0, 65520.0, -1e-8, 0.1};
	uint16_t h[5];
	unsigned char b[5];

	(void)state;
	/* 64-bit integers to float32 round once: 2^60 + 2^36 + 1 is just above
	 * the tie 2^60 + 2^36, so rounds up (double would round to the tie,
	 * then to even, down) */
	assert_int_equal(ckpt_convert(CKPT_I64, big, CKPT_F32, f, 4), 0);
	assert_true(f[0] == 0x1p63f);
	assert_true(f[1] == 0x1p60f + 0x1p37f);
	assert_true(f[2] == -3.0f);
	assert_true(f[3] == 16777216.0f);
	/* integers saturate, and are counted */
	assert_int_equal(ckpt_convert(CKPT_U64, u, CKPT_I8, i8, 5), 4);
	assert_int_equal(i8[0], 0);
	assert_int_equal(i8[1], 127);
	assert_int_equal(i8[4], 127);
	assert_int_equal(ckpt_convert(CKPT_I8, (int8_t[]){-1, 0, 1, 2, -128}, CKPT_BOOL, b, 5), 3);
	assert_int_equal(b[0], 0);
	assert_int_equal(b[2], 1);
	assert_int_equal(b[3], 1);
	/* to float16: 65520 is past the largest finite value once rounded */
	assert_int_equal(ckpt_convert(CKPT_F64, d, CKPT_F16, h, 5), 1);
	assert_int_equal(h[0], 0x3c00);
	assert_int_equal(h[1], 0x7bff);
	assert_int_equal(h[2], 0x7c00);
	assert_int_equal(h[3], 0x8000); /* -1e-8 rounds to -0 */
	/* the same type: the same bytes */
	assert_int_equal(ckpt_convert(CKPT_U64, u, CKPT_U64, big, 4), 0);
	assert_memory_equal(big, u, 4 * sizeof *u);
}

static void swaps_byte_order_in_place(void **state)
{
	uint32_t x[2] = {0x01020304, 0xa0b0c0d0};
	uint8_t y[3] = {1, 2, 3};

	(void)state;
	ckpt_swap_bytes(x, 2, 4);
	assert_int_equal(x[0], 0x04030201);
	assert_int_equal(x[1], 0xd0c0b0a0);
	ckpt_swap_bytes(y, 3, 1);
	assert_int_equal(y[2], 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(f16_roundtrip_every_pattern),
		cmocka_unit_test(bf16_roundtrip_every_pattern),
		cmocka_unit_test(f16_known_values),
		cmocka_unit_test(bf16_no_double_rounding),
		cmocka_unit_test(generic_encoder_matches_hardware),
		cmocka_unit_test(fast_decoders_match_reference),
		cmocka_unit_test(fast_encoders_match_reference),
		cmocka_unit_test(slab_encoders_match_reference),
		cmocka_unit_test(avx2_half_encoder_takes_only_normal_results),
		cmocka_unit_test(slab_decoders_match_reference),
		cmocka_unit_test(widen_every_type),
		cmocka_unit_test(widen_to_float_as_to_double),
		cmocka_unit_test(narrow_integers),
		cmocka_unit_test(narrow_float_overflow_counted),
		cmocka_unit_test(float32_overflow_counted_at_the_edge),
		cmocka_unit_test(f8_every_pattern_and_rounding),
		cmocka_unit_test(parses_long_and_short_names),
		cmocka_unit_test(maps_hdf5_types_both_ways),
		cmocka_unit_test(converts_rounding_once_and_counts_what_does_not_fit),
		cmocka_unit_test(counts_the_values_a_conversion_changed),
		cmocka_unit_test(swaps_byte_order_in_place),
	};

	ckpt_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
