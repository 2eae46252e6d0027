/* The first line of ckpt's text formats (header.c), as the manifest and
 * the shard attribute read it. */
#include "unit.h"
#include "lib/header.h"

static int parse(const char *line, const char *kind, ckpt_header *h)
{
	return ckpt_header_parse(line, strlen(line), kind, h);
}

static const char *get(const ckpt_header *h, const char *key, char *buf)
{
	size_t n;
	const char *v = ckpt_header_get(h, key, &n);

	if (!v)
		return NULL;
	memcpy(buf, v, n);
	buf[n] = 0;
	return buf;
}

static void reads_kind_version_and_keys(void **state)
{
	ckpt_header h;
	char buf[64];

	(void)state;
	assert_int_equal(parse("#ckpt-flat\t1\tdtype=float32\tbyteorder=little\tcount=5",
	                       "flat", &h), CKPT_HEADER_OK);
	assert_int_equal(h.version, 1);
	assert_string_equal(get(&h, "dtype", buf), "float32");
	assert_string_equal(get(&h, "count", buf), "5");
	assert_null(get(&h, "nope", buf));
}

static void skips_fields_that_are_not_key_value_and_takes_the_last_of_a_key(void **state)
{
	ckpt_header h;
	char buf[64];

	(void)state;
	assert_int_equal(parse("#ckpt-shard\t7\tfuture\t=x\tindex=1\tindex=2", "shard", &h),
	                 CKPT_HEADER_OK);
	assert_int_equal(h.version, 7);
	assert_int_equal(h.nfields, 2);
	assert_string_equal(get(&h, "index", buf), "2");
	assert_int_equal(parse("#ckpt-shard\t1", "shard", &h), CKPT_HEADER_OK);
	assert_int_equal(h.nfields, 0);
	assert_int_equal(parse("#ckpt-shard\t1\tk=", "shard", &h), CKPT_HEADER_OK);
	assert_string_equal(get(&h, "k", buf), "");
}

static void tells_another_format_from_a_bad_version(void **state)
{
	ckpt_header h;

	(void)state;
	assert_int_equal(parse("#ckpt-shard\t1\tindex=0", "flat", &h), CKPT_HEADER_OTHER);
	assert_int_equal(parse("#ckpt-flatter\t1", "flat", &h), CKPT_HEADER_OTHER);
	assert_int_equal(parse("#ckpt-flat", "flat", &h), CKPT_HEADER_OTHER);
	assert_int_equal(parse("ckpt-flat\t1", "flat", &h), CKPT_HEADER_OTHER);
	assert_int_equal(parse("", "flat", &h), CKPT_HEADER_OTHER);
	assert_int_equal(parse("#ckpt-flat\tv1\tdtype=f32", "flat", &h),
	                 CKPT_HEADER_BAD_VERSION);
	assert_int_equal(parse("#ckpt-flat\t\tdtype=f32", "flat", &h), CKPT_HEADER_BAD_VERSION);
}

static void keeps_at_most_the_first_sixteen_fields(void **state)
{
	char line[1024] = "#ckpt-flat\t1";
	ckpt_header h;
	char buf[64];

	(void)state;
	for (int i = 0; i < 20; i++)
		snprintf(line + strlen(line), sizeof line - strlen(line), "\tk%d=%d", i, i);
	assert_int_equal(parse(line, "flat", &h), CKPT_HEADER_OK);
	assert_int_equal(h.nfields, CKPT_HEADER_MAX_FIELDS);
	assert_string_equal(get(&h, "k15", buf), "15");
	assert_null(get(&h, "k16", buf));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_kind_version_and_keys),
		cmocka_unit_test(skips_fields_that_are_not_key_value_and_takes_the_last_of_a_key),
		cmocka_unit_test(tells_another_format_from_a_bad_version),
		cmocka_unit_test(keeps_at_most_the_first_sixteen_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
