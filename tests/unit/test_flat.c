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

static void parses_a_manifest(void **state)
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
static void parses_what_it_formats(void **state)
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

static void rejects_malformed_manifests_naming_the_line(void **state)
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

static void escapes_control_bytes_in_names_both_ways(void **state)
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
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_a_manifest),
		cmocka_unit_test(parses_what_it_formats),
		cmocka_unit_test(rejects_malformed_manifests_naming_the_line),
		cmocka_unit_test(escapes_control_bytes_in_names_both_ways),
	};

	ckpt_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
