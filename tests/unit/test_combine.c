/* The averaging core: exact rounding, integers, weights, NaN. */
#include "unit.h"
#include "lib/exact.h"

static void combine(ckpt_dtype t, const void *const *in, size_t nin,
                    const double *w, void *out, size_t n)
{
	ckpt_combine c;

	ckpt_combine_init(&c, t, t, nin, w);
	ckpt_combine_slabs(&c, in, out, n);
}

/* The exact mean, rounded once: float64 triples where the compensated sum
 * divided by 3 (two roundings) is one ulp off; the answers are Python's
 * fractions'. */
static void float64_mean_rounded_once(void **state)
{
	double a[2] = {0x1.a28124398ffcfp+0, -0x1.06e443228d0cdp-2};
	double b[2] = {0x1.1750b2ae7dfcdp-2, -0x1.f6248477b1ebcp-1};
	double c[2] = {-0x1.3bbb6d653b45fp+0, -0x1.629f34df4fc70p-3};
	double out[2];
	const void *in[3] = {a, b, c};

	(void)state;
	combine(CKPT_F64, in, 3, NULL, out, 2);
	assert_true(out[0] == 0x1.cc45095535e5ep-3);
	assert_true(out[1] == -0x1.e17ef7808842ap-2);
}

/* Inputs of several float types: the exact mean of their values. */
static void mixed_float_types(void **state)
{
	uint16_t h[1] = {0x3c01};                    /* float16 1 + 2^-10 */
	float f[1] = {0x1p-30f};
	double d[1] = {-1}, out[1];
	const void *in[3] = {h, f, d};
	const ckpt_dtype types[3] = {CKPT_F16, CKPT_F32, CKPT_F64};
	ckpt_combine c;

	(void)state;
	ckpt_combine_init(&c, CKPT_F16, CKPT_F64, 3, NULL);
	c.types = types;
	ckpt_combine_slabs(&c, in, out, 1);
	assert_true(out[0] == (0x1p-10 + 0x1p-30) / 3); /* exact sum, one division */
}

static void float16_stays_exact(void **state)
{
	uint16_t a[2] = {ckpt_double_to_f16(1), ckpt_double_to_f16(65504)};
	uint16_t b[2] = {ckpt_double_to_f16(ldexp(1, -11)), ckpt_double_to_f16(65504)};
	uint16_t out[2];
	const void *in[2] = {a, b};

	(void)state;
	/* (1 + 2^-11) / 2: exactly between two float16 neighbours of 0.5 */
	combine(CKPT_F16, in, 2, NULL, out, 2);
	assert_int_equal(out[0], ckpt_double_to_f16(0.5));
	assert_int_equal(out[1], ckpt_double_to_f16(65504)); /* no overflow */
}

/* float64: exact sums do not lose the small addend. */
static void float64_compensated(void **state)
{
	double a = 1e16, b = 1, c = -1e16, out;
	double z[2] = {-0.0, -0.0}, zo[2];
	const void *in[3] = {&a, &b, &c}, *zin[2] = {z, z + 1};

	(void)state;
	combine(CKPT_F64, in, 3, NULL, &out, 1);
	assert_true(out == 1.0 / 3);
	combine(CKPT_F64, zin, 2, NULL, zo, 1); /* a zero compensation keeps -0 */
	assert_true(zo[0] == 0 && signbit(zo[0]));
}

static void integers_exact_half_even(void **state)
{
	int64_t a[4] = {INT64_MAX, 1, -1, 3}, b[4] = {INT64_MAX, 2, -2, 4}, out[4];
	uint8_t u1[2] = {255, 0}, u2[2] = {254, 1}, uo[2];
	signed char t[3] = {1, 1, 0}, f[3] = {0, 1, 0}, bo[3];
	const void *in[2] = {a, b}, *uin[2] = {u1, u2}, *bin[2] = {t, f};

	(void)state;
	combine(CKPT_I64, in, 2, NULL, out, 4);
	assert_true(out[0] == INT64_MAX); /* no overflow in the sum */
	assert_int_equal(out[1], 2);      /* 1.5 -> 2 */
	assert_int_equal(out[2], -2);     /* -1.5 -> -2 */
	assert_int_equal(out[3], 4);      /* 3.5 -> 4 */
	combine(CKPT_U8, uin, 2, NULL, uo, 2);
	assert_int_equal(uo[0], 254);     /* 254.5 -> 254 */
	assert_int_equal(uo[1], 0);       /* 0.5 -> 0 */
	combine(CKPT_BOOL, bin, 2, NULL, bo, 3);
	assert_int_equal(bo[0], 0);       /* a tie: half to even */
	assert_int_equal(bo[1], 1);
	assert_int_equal(bo[2], 0);
}

static void weights_and_nan(void **state)
{
	float a[3] = {1, NAN, INFINITY}, b[3] = {2, 1, 1}, c[3] = {4, 1, -INFINITY}, out[3];
	const void *in[3] = {a, b, c};
	double w[3] = {1, 1, -1};

	(void)state;
	combine(CKPT_F32, in, 3, w, out, 3);
	assert_true(out[0] == -1);        /* a + b - c */
	assert_true(isnan(out[1]));
	assert_true(isinf(out[2]) && out[2] > 0);
}

/* Narrow floats (float32, float16, bfloat16) averaged as themselves and
 * as float64 values rounded into their type give the same bits: blocks of
 * values within a few binades (summed in one add each), blocks that spread
 * wide, ties (few-bit significands), zeros of both signs, subnormals. */
static uint64_t rng_state = 88172645463325252u;

static uint64_t next(void)
{
	rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
	return rng_state;
}

static double draw(int e0, int spread, int bits)
{
	uint64_t r = next();
	double m = (double)((r >> 8) & ((UINT64_C(1) << bits) - 1)) + 1;
	int e = e0 + (spread ? (int)(next() % (unsigned)(spread + 1)) : 0) - bits;

	if (r % 53 == 0)
		return r & 64 ? -0.0 : 0.0;
	return ldexp(r & 1 ? -m : m, e);
}

static void narrow_as_float64(void **state)
{
	enum { N = 512 * 3 };
	static const ckpt_dtype types[] = {CKPT_F32, CKPT_F16, CKPT_BF16};
	static const int limits[][2] = {{-140, 120}, {-20, 12}, {-125, 120}}; /* e0 range */
	static double d[5][N];
	static unsigned char raw[5][N * 4], got[N * 4], want[N * 4];
	size_t fast_blocks = 0, ties = 0;

	(void)state;
	for (size_t ti = 0; ti < 3; ti++) {
		ckpt_dtype t = types[ti];
		size_t es = ckpt_dtype_size(t);

		for (int round = 0; round < 200; round++) {
			size_t nin = 2 + (size_t)round % 4;
			int lo = limits[ti][0], hi = limits[ti][1];
			int e0 = lo + (int)(next() % (unsigned)(hi - lo));
			int spread = round % 3 == 0 ? 40 : (int)(next() % 12);
			int bits = round % 2 ? 3 : (t == CKPT_F32 ? 24 : t == CKPT_F16 ? 11 : 8);
			const void *in[5], *din[5];
			ckpt_combine c;

			for (size_t k = 0; k < nin; k++) {
				for (size_t i = 0; i < N; i++)
					d[k][i] = draw(e0, spread, bits);
				ckpt_from_double(t, d[k], raw[k], N); /* what t holds of them */
				ckpt_to_double(t, raw[k], d[k], N);
				in[k] = raw[k], din[k] = d[k];
			}
			ckpt_combine_init(&c, t, t, nin, NULL);
			ckpt_combine_slabs(&c, in, got, N);
			ckpt_combine_init(&c, CKPT_F64, t, nin, NULL);
			ckpt_combine_slabs(&c, din, want, N);
			assert_memory_equal(got, want, N * es);
			fast_blocks += spread < 20;
			ties += bits == 3;
		}
	}
	assert_true(fast_blocks > 100 && ties > 100);
}

/* A tie broken by a value 2^54..2^57 below the others: summed in one add
 * each, the breaker would be lost beyond 2^53 and the tie go to even. */
static void narrow_tie_broken_far_below(void **state)
{
	static float a[512], b[512], c[512], z[512], out[512];
	const void *in[4] = {a, b, c, z};

	(void)state;
	for (size_t i = 0; i < 512; i++) {
		a[i] = 1, b[i] = 0x1p-24f, z[i] = 0;
		c[i] = ldexpf(1, -54 - (int)(i % 4));
	}
	combine(CKPT_F32, in, 4, NULL, out, 512);
	for (size_t i = 0; i < 512; i++) /* (1 + 2^-24 + c) / 4: above the tie */
		assert_true(out[i] == 0x1.000002p-2f);
}

static uint16_t bf16(double v)
{
	return ckpt_double_to_bf16(v);
}

/* bfloat16 means of three whose single-precision quotient lands on a
 * halfway point that the exact mean is not on: (3 + 3 2^-8 +- 2^-30) / 3
 * is just above or below 1 + 2^-8, halfway between 1 and 1 + 2^-7, and
 * must not go to the even one; the exact ties beside them must. */
static void bf16_halfway_decided_exactly(void **state)
{
	enum { N = 8 };
	static const double third[N] = {0x1p-30, -0x1p-30, 0, 0x1p-40, -0x1p-40, 0, 0, 0};
	static const double want[N] = {1 + 0x1p-7, 1, 1, 1 + 0x1p-7, 1, 1, 2, 2};
	uint16_t a[N], b[N], c[N], out[N];
	const void *in[3] = {a, b, c};

	(void)state;
	for (size_t i = 0; i < N; i++) {
		a[i] = bf16(3), b[i] = bf16(3 * 0x1p-8), c[i] = bf16(third[i]);
	}
	/* 6, 7: exact ties (3 + 3 (1 + 2^-7 + 2^-8) ... ) to the even 2 */
	a[6] = bf16(6), b[6] = bf16(3 * 0x1p-7), c[6] = bf16(0);
	a[7] = bf16(-6), b[7] = bf16(-3 * 0x1p-7), c[7] = bf16(0);
	combine(CKPT_BF16, in, 3, NULL, out, N);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(out[i], bf16(i == 7 ? -want[i] : want[i]));
	for (size_t i = 0; i < N; i++) { /* the same, negated */
		a[i] ^= 0x8000, b[i] ^= 0x8000, c[i] ^= 0x8000;
	}
	combine(CKPT_BF16, in, 3, NULL, out, N);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(out[i], bf16(i == 7 ? want[i] : -want[i]));
}

/* bfloat16 blocks that hold a NaN, an infinity, or inputs 2^60 apart:
 * the general path's answer for the whole block. */
static void bf16_blocks_the_fast_path_declines(void **state)
{
	static uint16_t a[512], b[512], out[512];
	const void *in[2] = {a, b};

	(void)state;
	for (size_t i = 0; i < 512; i++)
		a[i] = bf16(1.5), b[i] = bf16(2.5);
	a[7] = 0x7fc0, b[9] = 0x7f80, a[11] = bf16(0x1p60), b[11] = bf16(1);
	combine(CKPT_BF16, in, 2, NULL, out, 512);
	assert_true((out[7] & 0x7fff) > 0x7f80 && out[9] == 0x7f80);
	assert_int_equal(out[11], bf16(0x1p59)); /* (2^60 + 1) / 2 */
	assert_int_equal(out[0], bf16(2));
}

/* float32 means through f32mean.c: the general path's bits (the same
 * inputs as float64) with 2 to 1024 inputs, their magnitudes near the
 * fast path's limit and in the subnormal range, ties among them. */
static void f32_fast_path_as_float64(void **state)
{
	enum { N = 512 * 2, NIN = 1024 };
	static const size_t nins[] = {2, 3, 5, 6, 7, 8, 33, 1024};
	static float raw[NIN][N];
	static double d[NIN][N];
	static float got[N], want[N];
	static const void *in[NIN], *din[NIN];

	(void)state;
	for (int round = 0; round < 64; round++) {
		size_t nin = nins[round % 8];
		int e0 = round % 4 == 0 ? -150 : -100 + (int)(next() % 200);
		int spread = 20 + (int)(next() % 10), bits = round % 3 ? 24 : 2;
		ckpt_combine c;

		for (size_t k = 0; k < nin; k++) {
			for (size_t i = 0; i < N; i++) {
				raw[k][i] = (float)draw(e0, spread, bits);
				d[k][i] = raw[k][i];
			}
			in[k] = raw[k], din[k] = d[k];
		}
		ckpt_combine_init(&c, CKPT_F32, CKPT_F32, nin, NULL);
		ckpt_combine_slabs(&c, in, got, N);
		ckpt_combine_init(&c, CKPT_F64, CKPT_F32, nin, NULL);
		ckpt_combine_slabs(&c, din, want, N);
		assert_memory_equal(got, want, sizeof got);
	}
}

/* float32 blocks that hold a NaN, an infinity, or inputs 2^40 apart: the
 * general path's answer for the whole block. */
static void f32_blocks_the_fast_path_declines(void **state)
{
	static float a[512], b[512], out[512];
	const void *in[2] = {a, b};

	(void)state;
	for (size_t i = 0; i < 512; i++)
		a[i] = 1.5f, b[i] = 2.5f;
	a[7] = NAN, b[9] = INFINITY, a[11] = 0x1p40f, b[11] = 0x1p-23f;
	combine(CKPT_F32, in, 2, NULL, out, 512);
	assert_true(isnan(out[7]) && out[9] == INFINITY);
	assert_true(out[11] == 0x1p39f); /* (2^40 + 2^-23) / 2, rounded */
	assert_true(out[0] == 2.0f);
}

/* Inputs 2^38 apart whose double sum drops a last bit that decides the
 * rounding: 2 + (2 + 2^-22) + 2^-37 (1 + 2^-23) - 2^-37 is 4 + 2^-22 +
 * 2^-60, whose mean lies above the halfway point 1 + 2^-24 (a sum rounded
 * to 4 + 2^-22 would tie, to the even 1). */
static void f32_sum_past_53_bits_declined(void **state)
{
	float a[1] = {2}, b[1] = {2 + 0x1p-22f}, c[1] = {0x1p-37f * (1 + 0x1p-23f)},
	      d[1] = {-0x1p-37f}, out[1];
	const void *in[4] = {a, b, c, d};

	(void)state;
	combine(CKPT_F32, in, 4, NULL, out, 1);
	assert_true(out[0] == 1 + 0x1p-23f);
}

/* sum(w_k x_k) exactly (ckpt_big), rounded once into t at out; an exact 0
 * with IEEE's sign of the products summed in order, as combine.c gives. */
static void exact_weighted(ckpt_dtype t, const double *w, double x[][512], size_t nin, size_t i,
                           void *out)
{
	ckpt_big acc, term, one;
	double ieee = w[0] * x[0][i], r;

	ckpt_big_set(&acc, w[0]);
	ckpt_big_mul(&acc, x[0][i]);
	for (size_t k = 1; k < nin; k++) {
		ckpt_big_set(&term, w[k]);
		ckpt_big_mul(&term, x[k][i]);
		ckpt_big_add(&acc, &term);
		ieee += w[k] * x[k][i];
	}
	ckpt_big_set(&one, 1);
	r = ckpt_big_sign(&acc) ? ckpt_big_quotient(&acc, &one, 1) : ieee;
	ckpt_from_double(t, &r, out, 1);
}

/* Weighted combinations of narrow floats against the exact sum rounded
 * once: weights of few bits (1/4, 1/2, 1/4, summed exactly in one add
 * each, ties half the time: the sum's bits decide them), of many (0.3),
 * negative (a difference); blocks within the exact sums' spread and
 * beyond it, zeros of both signs, subnormals. */
static void weighted_narrow_exactly(void **state)
{
	enum { N = 512 };
	static const ckpt_dtype types[] = {CKPT_F32, CKPT_F16, CKPT_BF16};
	static const int limits[][2] = {{-140, 120}, {-20, 12}, {-125, 120}};
	static const double weights[][3] = {{0.25, 0.5, 0.25}, {0.5, 0.5, 0.25}, {1, -1, 0},
	                                    {0.3, 0.3, 0.4}, {0.75, 0.25, 0}, {3, 0.125, -0.5}};
	static double d[3][N];
	static unsigned char raw[3][N * 4], got[N * 4], want[4];
	size_t exact_blocks = 0;

	(void)state;
	for (size_t ti = 0; ti < 3; ti++)
		for (int round = 0; round < 120; round++) {
			ckpt_dtype t = types[ti];
			size_t es = ckpt_dtype_size(t), nin = round % 2 ? 3 : 2;
			const double *w = weights[round % 6];
			int spread = round % 4 == 0 ? (t == CKPT_F16 ? 28 : 45) : (int)(next() % 20);
			int lo = limits[ti][0], hi = limits[ti][1] - spread; /* all finite */
			int e0 = lo + (int)(next() % (unsigned)(hi > lo ? hi - lo : 1));
			int bits = round % 3 ? 3 : (t == CKPT_F32 ? 24 : t == CKPT_F16 ? 11 : 8);
			const void *in[3];
			ckpt_combine c;

			for (size_t k = 0; k < nin; k++) {
				for (size_t i = 0; i < N; i++)
					d[k][i] = draw(e0, spread, bits);
				ckpt_from_double(t, d[k], raw[k], N);
				ckpt_to_double(t, raw[k], d[k], N);
				in[k] = raw[k];
			}
			ckpt_combine_init(&c, t, t, nin, w);
			ckpt_combine_slabs(&c, in, got, N);
			for (size_t i = 0; i < N; i++) {
				exact_weighted(t, w, d, nin, i, want);
				assert_memory_equal(got + i * es, want, es);
			}
			exact_blocks += spread < 20 && round % 6 < 3;
		}
	assert_true(exact_blocks > 100);
}

/* Weights of few bits whose products' sum needs more than 53: 0.5 + 2^-25
 * (halfway between two float32) + 2^-62, which a plain double sum loses,
 * rounding the tie to the even 0.5. */
static void weighted_sum_past_53_bits_declined(void **state)
{
	float a[1] = {1}, b[1] = {0x1p-24f}, c[1] = {0x1p-60f}, out[1];
	const void *in[3] = {a, b, c};
	const double w[3] = {0.5, 0.5, 0.25};

	(void)state;
	combine(CKPT_F32, in, 3, w, out, 1);
	assert_true(out[0] == 0.5f + 0x1p-24f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(float64_mean_rounded_once),
		cmocka_unit_test(mixed_float_types),
		cmocka_unit_test(float16_stays_exact),
		cmocka_unit_test(float64_compensated),
		cmocka_unit_test(integers_exact_half_even),
		cmocka_unit_test(weights_and_nan),
		cmocka_unit_test(narrow_as_float64),
		cmocka_unit_test(narrow_tie_broken_far_below),
		cmocka_unit_test(bf16_halfway_decided_exactly),
		cmocka_unit_test(bf16_blocks_the_fast_path_declines),
		cmocka_unit_test(f32_fast_path_as_float64),
		cmocka_unit_test(f32_blocks_the_fast_path_declines),
		cmocka_unit_test(f32_sum_past_53_bits_declined),
		cmocka_unit_test(weighted_narrow_exactly),
		cmocka_unit_test(weighted_sum_past_53_bits_declined),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
