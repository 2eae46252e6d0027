/* The averaging core: exact rounding, integers, weights, NaN. */
#include "unit.h"

static void combine(ckpt_dtype t, const void *const *in, size_t nin,
                    const double *w, void *out, size_t n)
{
	ckpt_combine c;

	ckpt_combine_init(&c, t, t, nin, w);
	ckpt_combine_slabs(&c, in, out, n);
}

/* float32 mean = float32((x0 + x1 + ... ) / N) with the sum in double:
 * checked against exactly that, on random values. */
static void float32_mean_exact(void **state)
{
	float a[1000], b[1000], c[1000], out[1000];
	const void *in[3] = {a, b, c};
	uint64_t x = 12345;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		a[i] = (float)ldexp((double)(x >> 40), (int)(x % 40) - 40);
		b[i] = -a[i] / 3;
		c[i] = (float)i * 1e-3f;
	}
	combine(CKPT_F32, in, 3, NULL, out, 1000);
	for (int i = 0; i < 1000; i++)
		assert_true(out[i] == (float)(((double)a[i] + b[i] + c[i]) / 3));
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

/* float64: compensated sums do not lose the small addend. */
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
		cmocka_unit_test(float32_mean_exact),
		cmocka_unit_test(float16_stays_exact),
		cmocka_unit_test(float64_compensated),
		cmocka_unit_test(integers_exact_half_even),
		cmocka_unit_test(weights_and_nan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
