/* Name selection and mapping, shared by all programs. */
#include "unit.h"

static int picks(const ckpt_select *s, const char *name)
{
	char *m = ckpt_select_map(s, name);
	int r = ckpt_select_match(s, m);

	free(m);
	return r;
}

static void selects_everything_by_default(void **state)
{
	ckpt_select s;

	(void)state;
	ckpt_select_init(&s);
	assert_true(picks(&s, "a/b/c"));
	assert_true(picks(&s, ""));
	ckpt_select_free(&s);
}

static void applies_only_then_exclude(void **state)
{
	ckpt_select s;

	(void)state;
	ckpt_select_init(&s);
	ckpt_select_only(&s, "layer0/*");
	ckpt_select_only(&s, "emb");
	ckpt_select_exclude(&s, "*bias*");
	assert_true(picks(&s, "layer0/attn/qkv")); /* '*' crosses '/' */
	assert_true(picks(&s, "emb"));
	assert_false(picks(&s, "layer0/attn/bias"));
	assert_false(picks(&s, "layer1/w"));
	assert_false(picks(&s, "embedding"));
	ckpt_select_free(&s);
}

static void strips_then_adds_prefixes(void **state)
{
	ckpt_select s;
	char *m;

	(void)state;
	ckpt_select_init(&s);
	s.strip_prefix = "worker_3f2a/";
	s.add_prefix = "model/";
	m = ckpt_select_map(&s, "worker_3f2a/w");
	assert_string_equal(m, "model/w");
	free(m);
	m = ckpt_select_map(&s, "other/w"); /* no prefix: only added */
	assert_string_equal(m, "model/other/w");
	free(m);
	ckpt_select_only(&s, "model/w");
	assert_true(picks(&s, "worker_3f2a/w")); /* globs see the mapped name */
	assert_false(picks(&s, "worker_3f2a/b"));
	ckpt_select_free(&s);
}

static void expect_map(const ckpt_select *s, const char *name, const char *want)
{
	char *m = ckpt_select_map(s, name);

	assert_string_equal(m, want);
	free(m);
}

static void renames_exact_and_starred_names(void **state)
{
	ckpt_select s;

	(void)state;
	ckpt_select_init(&s);
	assert_int_equal(ckpt_select_rename(&s, "dense_1/*=dense/*"), 0);
	assert_int_equal(ckpt_select_rename(&s, "step=optimizer/step"), 0);
	assert_int_equal(ckpt_select_rename(&s, "*:0=*"), 0);
	expect_map(&s, "dense_1/kernel:0", "dense/kernel:0"); /* first rule only */
	expect_map(&s, "dense_1/", "dense/");
	expect_map(&s, "step", "optimizer/step");
	expect_map(&s, "steps", "steps");
	expect_map(&s, "conv/bias:0", "conv/bias");
	expect_map(&s, ":0", "");
	s.strip_prefix = "w3/"; /* prefixes first, then renames */
	expect_map(&s, "w3/dense_1/b", "dense/b");
	ckpt_select_free(&s);
	for (const char **bad = (const char *[]){"a", "=b", "a=", "a=b=c", "a*=b",
	                                         "a=b*", "**=x*", "*a*=*b*", NULL};
	     *bad; bad++) {
		ckpt_select_init(&s);
		assert_int_equal(ckpt_select_rename(&s, *bad), -1);
		assert_non_null(strstr(ckpt_errmsg(), "--rename"));
		ckpt_select_free(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(selects_everything_by_default),
		cmocka_unit_test(applies_only_then_exclude),
		cmocka_unit_test(strips_then_adds_prefixes),
		cmocka_unit_test(renames_exact_and_starred_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
