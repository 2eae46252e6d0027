/* Flat vectors: the manifest format, name escapes, conversions between
 * dtypes, and the bundle's compression by name. */
#include "unit.h"

static const char good[] =
	"#ckpt-flat\t1\tdtype=float32\tbyteorder=little\tcount=17\tfuture=1\n"
	"a/w\tfloat32\t[4,3]\t0\t12\n"
	"a/b\tfloat16\t[3]\t12\t3\n"
	"empty\tint8\t[0,5]\t15\t0\n"
	"step\tint64\t[]\t15\t1\n"
	"n\tbool\t[1]\t16\t1\n"
	"nothing\tfloat32\tnull\t17\t0\n";

static void parse_good(void **state)
{
	ckpt_flat m;

	(void)state;
	assert_int_equal(ckpt_flat_parse(&m, good, sizeof good - 1, "m.tsv"), 0);
	assert_int_equal(m.n, 6);
	assert_int_equal(m.dtype, CKPT_F32);
	assert_int_equal(m.big_endian, 0);
	assert_int_equal(m.count, 17);
	assert_string_equal(m.e[1].name, "a/b");
	assert_int_equal(m.e[1].dtype, CKPT_F16);
	assert_int_equal(m.e[0].rank, 2);
	assert_int_equal(m.e[0].dims[1], 3);
	assert_int_equal(m.e[2].count, 0);
	assert_int_equal(m.e[3].rank, 0);
	assert_int_equal(m.e[3].count, 1);
	assert_int_equal(m.e[5].rank, -1);
	assert_int_equal(ckpt_flat_bytes(&m), 68);
	ckpt_flat_free(&m);
}

/* Formatting what was parsed gives the same text (without the field this
 * version does not know); parsing that again gives the same layout. */
static void format_round_trip(void **state)
{
	ckpt_flat m, m2;
	size_t len;
	char *text;

	(void)state;
	assert_int_equal(ckpt_flat_parse(&m, good, sizeof good - 1, "m.tsv"), 0);
	m.big_endian = 1;
	text = ckpt_flat_format(&m, &len);
	assert_non_null(text);
	assert_true(strncmp(text, "#ckpt-flat\t1\tdtype=float32\tbyteorder=big\tcount=17\n",
	                    50) == 0);
	assert_string_equal(strchr(text, '\n') + 1, strchr(good, '\n') + 1);
	assert_int_equal(ckpt_flat_parse(&m2, text, len, "again"), 0);
	assert_int_equal(m2.big_endian, 1);
	assert_int_equal(ckpt_flat_same_layout(&m, "a", &m2, "b"), 0);
	free(text);
	ckpt_flat_free(&m);
	ckpt_flat_free(&m2);
}

static void expect_bad_n(const char *text, size_t len, const char *message)
{
	ckpt_flat m;

	assert_int_equal(ckpt_flat_parse(&m, text, len, "m.tsv"), -1);
	if (!strstr(ckpt_errmsg(), message))
		fail_msg("'%s': message '%s' lacks '%s'", text, ckpt_errmsg(), message);
	assert_null(strchr(ckpt_errmsg(), '\n'));
	assert_int_equal(m.n, 0);
}

static void expect_bad(const char *text, const char *message)
{
	expect_bad_n(text, strlen(text), message);
}

#define HDR "#ckpt-flat\t1\tdtype=float32\tbyteorder=little\tcount="

static void parse_bad(void **state)
{
	(void)state;
	expect_bad("", "empty manifest");
	expect_bad("name\tfloat32\t[1]\t0\t1\n", "not a ckpt-flat manifest");
	expect_bad("#ckpt-flat\t2\tdtype=float32\tbyteorder=little\tcount=0\n",
	           "manifest format 2");
	expect_bad("#ckpt-flat\tx\n", "bad version");
	expect_bad("#ckpt-flat\t1\tdtype=float33\tbyteorder=little\tcount=0\n",
	           "unknown dtype 'float33'");
	expect_bad("#ckpt-flat\t1\tdtype=float32\tbyteorder=middle\tcount=0\n",
	           "byteorder is 'middle'");
	expect_bad("#ckpt-flat\t1\tdtype=float32\tcount=0\n", "needs dtype=");
	expect_bad(HDR "1\nw\tfloat32\t[1]\t0\n", "line 2: 4 fields, not 5");
	expect_bad(HDR "1\nw\tfloat32\t[1]\t0\t1\textra\n", "line 2: 6 fields");
	expect_bad(HDR "1\nw\tstring\t[1]\t0\t1\n", "line 2: unknown dtype 'string'");
	expect_bad(HDR "1\nw\tfloat32\t[x]\t0\t1\n", "line 2: bad shape '[x]'");
	expect_bad(HDR "1\nw\tfloat32\t[1,]\t0\t1\n", "bad shape");
	expect_bad(HDR "1\nw\tfloat32\t1\t0\t1\n", "bad shape");
	expect_bad(HDR "1\nw\tfloat32\t[-1]\t0\t1\n", "bad shape");
	expect_bad(HDR "0\nw\tfloat32\t[4294967296,4294967296,4294967296]\t0\t0\n",
	           "bad shape"); /* 2^96 values */
	expect_bad(HDR "0\nw\tfloat32\t[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
	           "1,1,1,1,1,1,1,1,1,1]\t0\t1\n", "bad shape"); /* rank 33 */
	expect_bad(HDR "1\nw\tfloat32\t[1]\t1\t1\n", "line 2: offset 1 and count 1 do not");
	expect_bad(HDR "1\nw\tfloat32\t[1]\t0\t2\n", "do not follow");
	expect_bad(HDR "1\nw\tfloat32\t[1]\t0\t1x\n", "whole numbers");
	expect_bad(HDR "1\nw\tfloat32\t[1]\t0\t99999999999999999999999\n", "whole numbers");
	expect_bad(HDR "2\nw\tfloat32\t[1]\t0\t1\nw\tfloat32\t[1]\t1\t1\n",
	           "line 3: variable 'w' listed twice");
	expect_bad(HDR "5\nw\tfloat32\t[1]\t0\t1\n", "add up to 1 values, the header says 5");
	expect_bad(HDR "1\n\tfloat32\t[1]\t0\t1\n", "is not a variable name");
	expect_bad(HDR "1\n/w\tfloat32\t[1]\t0\t1\n", "is not a variable name");
	expect_bad(HDR "1\na//w\tfloat32\t[1]\t0\t1\n", "is not a variable name");
	expect_bad(HDR "1\na/../w\tfloat32\t[1]\t0\t1\n", "is not a variable name");
	expect_bad(HDR "1\na\\q\tfloat32\t[1]\t0\t1\n", "bad escape");
	expect_bad(HDR "1\na\\x0\tfloat32\t[1]\t0\t1\n", "bad escape");
	expect_bad(HDR "1\na\\x00\tfloat32\t[1]\t0\t1\n", "bad escape");
	expect_bad(HDR "1\nw\tfloat32\t[1]\t0\t1\r\n", "whole numbers");
	expect_bad_n(HDR "1\nw\0\tfloat32\t[1]\t0\t1\n",
	             sizeof(HDR "1\nw\0\tfloat32\t[1]\t0\t1\n") - 1, "NUL byte");
	expect_bad(HDR "1\n\n", "line 2: 1 field, not 5");
}

static void escapes(void **state)
{
	static const char *names[] = {
		"plain/name:0", "with space", "tab\there", "new\nline", "back\\slash",
		"cr\rx", "ctl\x01\x1f\x7f", "utf8 \xc3\xa9", "bad \xff\xfe", "%d%s",
	};

	(void)state;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char *e = ckpt_flat_escape(names[i]), *u;

		assert_non_null(e);
		assert_null(strpbrk(e, "\t\n\r"));
		u = ckpt_flat_unescape(e, strlen(e));
		assert_non_null(u);
		assert_string_equal(u, names[i]);
		free(e);
		free(u);
	}
}

/* Conversions between the flat vector's type and the variables'. */
static void conversions(void **state)
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

static void swapping(void **state)
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

static void compression_by_name(void **state)
{
	(void)state;
	assert_string_equal(ckpt_bundle_compression("a.tar.gz"), "gzip");
	assert_string_equal(ckpt_bundle_compression("dir/a.tgz"), "gzip");
	assert_string_equal(ckpt_bundle_compression("a.tar.zst"), "zstd");
	assert_string_equal(ckpt_bundle_compression("a.tar.xz"), "xz");
	assert_string_equal(ckpt_bundle_compression("a.tar.bz2"), "bzip2");
	assert_string_equal(ckpt_bundle_compression("a.tar"), "none");
	assert_string_equal(ckpt_bundle_compression("-"), "none");
	assert_string_equal(ckpt_bundle_compression(".tar.gz"), "none");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_good),
		cmocka_unit_test(format_round_trip),
		cmocka_unit_test(parse_bad),
		cmocka_unit_test(escapes),
		cmocka_unit_test(conversions),
		cmocka_unit_test(swapping),
		cmocka_unit_test(compression_by_name),
	};

	ckpt_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
