/* The averaging core: exact rounding, integers, weights, NaN. */
#include "unit.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(float64_mean_rounded_once),
		cmocka_unit_test(mixed_float_types),
		cmocka_unit_test(float16_stays_exact),
		cmocka_unit_test(float64_compensated),
		cmocka_unit_test(integers_exact_half_even),
		cmocka_unit_test(weights_and_nan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
