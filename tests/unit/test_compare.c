/* The comparison core: values, tolerances, NaN, signed zeros, ULPs,
 * integers of every width, mixed dtypes, bitwise. */
#include "unit.h"

static const ckpt_tol exact = {0};

static int close_d(const ckpt_tol *t, double a, double b)
{
	return ckpt_cmp_close(t, CKPT_F64, &a, CKPT_F64, &b);
}

static void compares_by_value(void **state)
{
	(void)state;
	assert_true(close_d(&exact, 1.5, 1.5));
	assert_true(close_d(&exact, 0.0, -0.0));      /* signed zeros are equal */
	assert_true(close_d(&exact, NAN, NAN));       /* NaN at the same place */
	assert_false(close_d(&exact, NAN, 1));
	assert_true(close_d(&exact, INFINITY, INFINITY));
	assert_false(close_d(&exact, INFINITY, -INFINITY));
	assert_false(close_d(&exact, 1, nextafter(1, 2)));
}

static void follows_numpy_isclose(void **state)
{
	ckpt_tol t = {.atol = 0.1};
	ckpt_tol r = {.rtol = 0.01};
	ckpt_tol both = {.atol = 1, .rtol = 0.5};

	(void)state;
	assert_true(close_d(&t, 1.0, 1.05)); /* 1.1 - 1.0 > 0.1 in binary */
	assert_false(close_d(&t, 1.0, 1.2));
	assert_true(close_d(&r, 100, 101.009));       /* 1.009 <= 0.01 * |b| */
	assert_false(close_d(&r, 101.009, 100));      /* asymmetric, as numpy */
	assert_true(close_d(&both, 0, 2));            /* 2 <= 1 + 0.5 * 2 */
	assert_false(close_d(&both, 0, 2.1));
	assert_false(close_d(&t, INFINITY, 1e308));
}

static void counts_units_in_the_last_place(void **state)
{
	ckpt_tol u1 = {.ulps = 1, .use_ulps = 1}, u0 = {.ulps = 0, .use_ulps = 1};
	float a = 1.0f, b = nextafterf(1.0f, 2), c = nextafterf(b, 2), z = 0, m = -0.0f;
	float tiny = nextafterf(0, 1), ntiny = -tiny;
	uint16_t h1 = 0x3c00, h2 = 0x3c01, h3 = 0x3c02;

	(void)state;
	assert_true(ckpt_cmp_close(&u1, CKPT_F32, &a, CKPT_F32, &b));
	assert_false(ckpt_cmp_close(&u1, CKPT_F32, &a, CKPT_F32, &c));
	assert_false(ckpt_cmp_close(&u0, CKPT_F32, &a, CKPT_F32, &b));
	assert_true(ckpt_cmp_close(&u0, CKPT_F32, &z, CKPT_F32, &m));
	/* across zero: -tiny, 0, tiny are 2 units apart */
	assert_false(ckpt_cmp_close(&u1, CKPT_F32, &ntiny, CKPT_F32, &tiny));
	u1.ulps = 2;
	assert_true(ckpt_cmp_close(&u1, CKPT_F32, &ntiny, CKPT_F32, &tiny));
	/* in float16's own units */
	u1.ulps = 1;
	assert_true(ckpt_cmp_close(&u1, CKPT_F16, &h1, CKPT_F16, &h2));
	assert_false(ckpt_cmp_close(&u1, CKPT_F16, &h1, CKPT_F16, &h3));
}

static void compares_integers_exactly(void **state)
{
	int64_t a = INT64_MAX, b = INT64_MAX - 1;  /* equal as doubles */
	uint64_t u = UINT64_MAX;
	int8_t i8 = -1;
	uint8_t u8 = 255;
	int32_t x = 7, y = 9;
	ckpt_tol u2 = {.ulps = 2, .use_ulps = 1};

	(void)state;
	assert_false(ckpt_cmp_close(&exact, CKPT_I64, &a, CKPT_I64, &b));
	assert_true(ckpt_cmp_close(&exact, CKPT_I64, &a, CKPT_I64, &a));
	assert_false(ckpt_cmp_close(&exact, CKPT_U64, &u, CKPT_I64, &a));
	assert_false(ckpt_cmp_close(&exact, CKPT_I8, &i8, CKPT_U8, &u8));
	assert_true(ckpt_cmp_close(&u2, CKPT_I32, &x, CKPT_I32, &y));
	for (int t = CKPT_BOOL; t <= CKPT_U64; t++) {
		uint64_t v = 1, w = 0;

		assert_true(ckpt_cmp_close(&exact, (ckpt_dtype)t, &v, (ckpt_dtype)t, &v));
		assert_false(ckpt_cmp_close(&exact, (ckpt_dtype)t, &v, (ckpt_dtype)t, &w));
	}
}

static void compares_mixed_dtypes_exactly(void **state)
{
	uint16_t h = ckpt_double_to_f16(0.1);
	float f = 0.1f, g = (float)ckpt_f16_to_double(h);

	(void)state;
	assert_false(ckpt_cmp_close(&exact, CKPT_F16, &h, CKPT_F32, &f));
	assert_true(ckpt_cmp_close(&exact, CKPT_F16, &h, CKPT_F32, &g));
}

static void compares_bits_when_bitwise(void **state)
{
	ckpt_tol bw = {.bitwise = 1};
	float z = 0, m = -0.0f, n1 = NAN, n2 = -NAN;

	(void)state;
	assert_false(ckpt_cmp_close(&bw, CKPT_F32, &z, CKPT_F32, &m));
	assert_false(ckpt_cmp_close(&bw, CKPT_F32, &n1, CKPT_F32, &n2));
	assert_true(ckpt_cmp_close(&bw, CKPT_F32, &n1, CKPT_F32, &n1));
}

static void accumulates_difference_statistics_over_slabs(void **state)
{
	float a[5] = {1, 2, 3, 4, NAN}, b[5] = {1, 2.5, 3, 0, NAN};
	ckpt_cmp c;

	(void)state;
	ckpt_cmp_init(&c, 1);
	ckpt_cmp_slab(&c, &exact, CKPT_F32, a, CKPT_F32, b, 3, 0, NULL, NULL);
	ckpt_cmp_slab(&c, &exact, CKPT_F32, a + 3, CKPT_F32, b + 3, 2, 3, NULL, NULL);
	assert_int_equal(c.count, 5);
	assert_int_equal(c.ndiff, 2);
	assert_true(c.max_abs == 4 && c.max_abs_at == 3);
	assert_true(isinf(c.max_rel));                  /* b = 0 */
	assert_close(ckpt_cmp_rms(&c), sqrt(16.25 / 5), 1e-15);
	ckpt_cmp_init(&c, 1);
	ckpt_cmp_slab(&c, &exact, CKPT_F32, a, CKPT_F32, a, 4, 0, NULL, NULL);
	assert_true(ckpt_cmp_cosine(&c) == 1 && ckpt_cmp_rel_l2(&c) == 0);
}

/* Sums of squares near both ends of float64's range, and merged across
 * slabs of very different magnitude. */
static void handles_the_ends_of_float64s_range(void **state)
{
	double big[2] = {1e308, -1.7e308}, t1[2] = {1e-300, -2e-300},
	       t2[2] = {-1e-300, 2e-300}, one = 1e300, sub = 5e-324;
	ckpt_cmp c, later;

	(void)state;
	ckpt_cmp_init(&c, 1);
	ckpt_cmp_slab(&c, &exact, CKPT_F64, big, CKPT_F64, big, 2, 0, NULL, NULL);
	assert_true(ckpt_cmp_cosine(&c) == 1 && ckpt_cmp_rel_l2(&c) == 0);
	ckpt_cmp_init(&c, 1);
	ckpt_cmp_slab(&c, &exact, CKPT_F64, t1, CKPT_F64, t2, 2, 0, NULL, NULL);
	assert_true(ckpt_cmp_cosine(&c) == -1);
	assert_close(ckpt_cmp_rel_l2(&c), 2, 1e-15);
	assert_close(ckpt_cmp_rms(&c) / 1e-300, sqrt(10), 1e-15);
	ckpt_cmp_init(&c, 1);
	ckpt_cmp_slab(&c, &exact, CKPT_F64, &sub, CKPT_F64, &sub, 1, 0, NULL, NULL);
	assert_true(ckpt_cmp_cosine(&c) == 1);
	/* a slab at 1e300 then one at 1e-300: the small one is negligible */
	ckpt_cmp_init(&c, 1);
	ckpt_cmp_slab(&c, &exact, CKPT_F64, &one, CKPT_F64, &one, 1, 0, NULL, NULL);
	ckpt_cmp_init(&later, 1);
	ckpt_cmp_slab(&later, &exact, CKPT_F64, t1, CKPT_F64, t2, 2, 1, NULL, NULL);
	ckpt_cmp_merge(&c, &later);
	assert_true(ckpt_cmp_cosine(&c) == 1 && ckpt_cmp_rel_l2(&c) == 0);
	assert_close(ckpt_cmp_rms(&c) / 1e-300, sqrt(20.0 / 3), 1e-15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(compares_by_value),
		cmocka_unit_test(follows_numpy_isclose),
		cmocka_unit_test(counts_units_in_the_last_place),
		cmocka_unit_test(compares_integers_exactly),
		cmocka_unit_test(compares_mixed_dtypes_exactly),
		cmocka_unit_test(compares_bits_when_bitwise),
		cmocka_unit_test(accumulates_difference_statistics_over_slabs),
		cmocka_unit_test(handles_the_ends_of_float64s_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
