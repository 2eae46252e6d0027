/* Shards: how variables are shared out, and the attribute that records
 * the original order. */
#include "unit.h"

/* A checkpoint in memory only: what ckpt_shard_assign() and
 * ckpt_shard_format() look at. */
static void fake_file(ckpt_file *f, ckpt_var *v, const uint64_t *bytes, size_t n)
{
	static char names[16][24];

	memset(f, 0, sizeof *f);
	for (size_t i = 0; i < n; i++) {
		memset(&v[i], 0, sizeof v[i]);
		snprintf(names[i], sizeof names[i], "v%zu", i);
		v[i].name = names[i];
		v[i].nbytes = bytes[i];
	}
	f->vars = v;
	f->nvars = n;
	f->name = "fake.h5";
}

static void assigns_round_robin(void **state)
{
	uint64_t bytes[7] = {1, 1, 1, 1, 1, 1, 1};
	size_t owner[7];
	ckpt_var v[7];
	ckpt_file f;

	(void)state;
	fake_file(&f, v, bytes, 7);
	assert_int_equal(ckpt_shard_assign(&f, 3, CKPT_BY_ROUND_ROBIN, owner), 0);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(owner[i], i % 3);
}

static void assigns_largest_first_to_the_lightest_shard(void **state)
{
	/* largest first, each to the lightest shard, ties to the lowest */
	uint64_t bytes[6] = {10, 70, 20, 40, 30, 30};
	size_t owner[6], load[2] = {0, 0};
	ckpt_var v[6];
	ckpt_file f;

	(void)state;
	fake_file(&f, v, bytes, 6);
	assert_int_equal(ckpt_shard_assign(&f, 2, CKPT_BY_SIZE, owner), 0);
	assert_int_equal(owner[1], 0); /* 70 */
	assert_int_equal(owner[3], 1); /* 40 */
	assert_int_equal(owner[4], 1); /* 30: 0 has 70, 1 has 40 */
	assert_int_equal(owner[5], 0); /* 30: 0 has 70, 1 has 70 */
	for (size_t i = 0; i < 6; i++)
		load[owner[i]] += bytes[i];
	assert_int_equal(load[0], 100);
	assert_int_equal(load[1], 100);
}

static void parses_the_attribute_it_formats(void **state)
{
	uint64_t bytes[5] = {1, 2, 3, 4, 5};
	size_t owner[5];
	ckpt_var v[5];
	ckpt_file f;
	ckpt_shard_info info;
	char *text;

	(void)state;
	fake_file(&f, v, bytes, 5);
	v[2].name = "odd\tname\n";
	ckpt_shard_assign(&f, 2, CKPT_BY_ROUND_ROBIN, owner);
	text = ckpt_shard_format(&f, owner, 1, 2, CKPT_BY_ROUND_ROBIN);
	assert_non_null(text);
	assert_true(strncmp(text, "#ckpt-shard\t1\tindex=1\tcount=2\tby=round-robin\n", 44) == 0);
	assert_int_equal(ckpt_shard_parse(text, &info, "x.h5"), 0);
	assert_int_equal(info.index, 1);
	assert_int_equal(info.count, 2);
	assert_int_equal(info.nvars, 5);
	assert_string_equal(info.names[2], "odd\tname\n");
	assert_int_equal(info.owner[3], 1);
	ckpt_shard_free(&info);
	free(text);
}

static void expect_bad(const char *text, const char *message)
{
	ckpt_shard_info info;

	assert_int_equal(ckpt_shard_parse(text, &info, "x.h5"), -1);
	if (!strstr(ckpt_errmsg(), message))
		fail_msg("'%s': message '%s' lacks '%s'", text, ckpt_errmsg(), message);
	assert_null(info.names);
}

static void rejects_malformed_attributes(void **state)
{
	(void)state;
	expect_bad("", "not one this program reads");
	expect_bad("#ckpt-shard\t2\tindex=0\tcount=1\n", "not one this program reads");
	expect_bad("#ckpt-shard\t1\tindex=0\n", "no valid index= and count=");
	expect_bad("#ckpt-shard\t1\tindex=2\tcount=2\n", "no valid index= and count=");
	expect_bad("#ckpt-shard\t1\tindex=0\tcount=0\n", "no valid index= and count=");
	expect_bad("#ckpt-shard\t1\tindex=x\tcount=2\n", "no valid index=");
	expect_bad("#ckpt-shard\t1\tindex=0\tcount=2\nw\t2\n", "malformed at line 2");
	expect_bad("#ckpt-shard\t1\tindex=0\tcount=2\nw 1\n", "malformed at line 2");
	expect_bad("#ckpt-shard\t1\tindex=0\tcount=2\nw\t1", "malformed at line 2");
	expect_bad("#ckpt-shard\t1\tindex=0\tcount=2\nw\t1\nb\\q\t0\n", "line 3: bad escape");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(assigns_round_robin),
		cmocka_unit_test(assigns_largest_first_to_the_lightest_shard),
		cmocka_unit_test(parses_the_attribute_it_formats),
		cmocka_unit_test(rejects_malformed_attributes),
	};

	ckpt_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
