/* Name selection and mapping, shared by all programs. */
#include "unit.h"

static int picks(const ckpt_select *s, const char *name)
{
	char *m = ckpt_select_map(s, name);
	int r = ckpt_select_match(s, m);

	free(m);
	return r;
}

static void everything_by_default(void **state)
{
	ckpt_select s;

	(void)state;
	ckpt_select_init(&s);
	assert_true(picks(&s, "a/b/c"));
	assert_true(picks(&s, ""));
	ckpt_select_free(&s);
}

static void only_and_exclude(void **state)
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

static void prefixes(void **state)
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(everything_by_default),
		cmocka_unit_test(only_and_exclude),
		cmocka_unit_test(prefixes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
