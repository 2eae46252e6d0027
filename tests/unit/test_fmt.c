/* Round-trip number formatting. */
#include "unit.h"

static void shortest(void **state)
{
	char b[CKPT_FMT_MAX];

	(void)state;
	assert_string_equal(ckpt_fmt_double(0.1f, CKPT_F32, b), "0.1");
	assert_string_equal(ckpt_fmt_double(0.1f, CKPT_F64, b), "0.10000000149011612");
	assert_string_equal(ckpt_fmt_double(1.0 / 3, CKPT_F64, b), "0.3333333333333333");
	assert_string_equal(ckpt_fmt_double((float)(1.0 / 3), CKPT_F32, b), "0.33333334");
	assert_string_equal(ckpt_fmt_double(ckpt_f16_to_double(0x2e66), CKPT_F16, b), "0.1");
	assert_string_equal(ckpt_fmt_double(ckpt_bf16_to_double(0x3dcd), CKPT_BF16, b), "0.1");
	assert_string_equal(ckpt_fmt_double(-0.0, CKPT_F32, b), "-0");
	assert_string_equal(ckpt_fmt_double(NAN, CKPT_F32, b), "nan");
	assert_string_equal(ckpt_fmt_double(-INFINITY, CKPT_F64, b), "-inf");
	assert_string_equal(ckpt_fmt_double(5e-324, CKPT_F64, b), "5e-324");
	assert_string_equal(ckpt_fmt_double(10, CKPT_F32, b), "10");
	assert_string_equal(ckpt_fmt_double(300, CKPT_F64, b), "300");
	assert_string_equal(ckpt_fmt_double(1e15, CKPT_F64, b), "1000000000000000");
	assert_string_equal(ckpt_fmt_double(1e16, CKPT_F64, b), "1e+16");
	assert_string_equal(ckpt_fmt_double(16777216, CKPT_F32, b), "16777216");
	assert_string_equal(ckpt_fmt_double(0.0001, CKPT_F64, b), "0.0001");
	assert_string_equal(ckpt_fmt_double(1e-5, CKPT_F64, b), "1e-05");
	assert_string_equal(ckpt_fmt_double(1e-5f, CKPT_F32, b), "1e-05");
}

/* Every float16 value prints as text that parses back to the same bits. */
static void every_f16_roundtrips(void **state)
{
	char b[CKPT_FMT_MAX];

	(void)state;
	for (uint32_t i = 0; i < 0x7c00; i++) {
		double d = ckpt_f16_to_double((uint16_t)i);

		ckpt_fmt_double(d, CKPT_F16, b);
		assert_int_equal(ckpt_double_to_f16(strtod(b, NULL)), i);
	}
}

static void elements(void **state)
{
	int64_t i64[2] = {INT64_MIN, 42};
	uint64_t u64 = UINT64_MAX;
	signed char bools[2] = {1, 0};
	uint16_t h = 0x3c00;
	char b[CKPT_FMT_MAX];

	(void)state;
	assert_string_equal(ckpt_fmt_elem(CKPT_I64, i64, 0, b), "-9223372036854775808");
	assert_string_equal(ckpt_fmt_elem(CKPT_I64, i64, 1, b), "42");
	assert_string_equal(ckpt_fmt_elem(CKPT_U64, &u64, 0, b), "18446744073709551615");
	assert_string_equal(ckpt_fmt_elem(CKPT_BOOL, bools, 0, b), "true");
	assert_string_equal(ckpt_fmt_elem(CKPT_BOOL, bools, 1, b), "false");
	assert_string_equal(ckpt_fmt_elem(CKPT_F16, &h, 0, b), "1");
}

static int scan(const char *s, uint64_t *v)
{
	return ckpt_scan_u64(s, strlen(s), v);
}

static void reads_whole_numbers_and_tells_too_large_from_not_a_number(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(scan("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(scan("18446744073709551615", &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(scan("000000000000000000000042", &v), 0); /* 24 digits */
	assert_int_equal(v, 42);
	assert_int_equal(scan("18446744073709551616", &v), -2);
	assert_int_equal(scan("99999999999999999999999", &v), -2);
	assert_int_equal(v, 42); /* untouched on failure */
	assert_int_equal(scan("", &v), -1);
	assert_int_equal(scan("-1", &v), -1);
	assert_int_equal(scan("+1", &v), -1);
	assert_int_equal(scan(" 1", &v), -1);
	assert_int_equal(scan("1e3", &v), -1);
	assert_int_equal(scan("99999999999999999999x", &v), -1);
	assert_int_equal(ckpt_scan_u64("12x", 2, &v), 0); /* only len bytes */
	assert_int_equal(v, 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shortest),
		cmocka_unit_test(every_f16_roundtrips),
		cmocka_unit_test(elements),
		cmocka_unit_test(reads_whole_numbers_and_tells_too_large_from_not_a_number),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
