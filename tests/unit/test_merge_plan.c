/* ckpt-merge's plan (src/merge/plan.c): which variable of the output comes
 * from which SOURCE, checked on checkpoints made in memory. */
#include "unit.h"
#include "merge/merge.h"

#define MAXV 8

/* A checkpoint in memory: what the plan looks at (names, shapes, types). */
struct fake {
	ckpt_file f;
	ckpt_var v[MAXV];
	uint64_t dims[MAXV];
	const ckpt_var *by_name[MAXV];
};

static int cmp_var(const void *a, const void *b)
{
	return strcmp((*(const ckpt_var *const *)a)->name, (*(const ckpt_var *const *)b)->name);
}

/* spec: "name:dtype:n" separated by spaces, e.g. "a:f32:2 g/b:f16:3". */
static void fake(struct fake *k, const char *file, const char *spec)
{
	char *copy = strdup(spec), *save = NULL;

	memset(k, 0, sizeof *k);
	k->f.name = (char *)file;
	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		ckpt_var *v = &k->v[k->f.nvars++];
		char *c1 = strchr(t, ':'), *c2 = strrchr(t, ':');

		*c1 = *c2 = 0;
		v->name = strdup(t);
		assert_int_equal(ckpt_dtype_parse(c1 + 1, &v->dtype), 0);
		snprintf(v->type, sizeof v->type, "%s", ckpt_dtype_name(v->dtype));
		v->rank = 1;
		k->dims[k->f.nvars - 1] = v->nelems = strtoull(c2 + 1, NULL, 10);
		v->dims = &k->dims[k->f.nvars - 1];
	}
	free(copy);
	k->f.vars = k->v;
	for (size_t i = 0; i < k->f.nvars; i++)
		k->by_name[i] = &k->v[i];
	qsort(k->by_name, k->f.nvars, sizeof *k->by_name, cmp_var);
	k->f.by_name = k->by_name;
}

static void unfake(struct fake *k)
{
	for (size_t i = 0; i < k->f.nvars; i++)
		free(k->v[i].name);
}

struct setup {
	struct fake base, s1, s2;
	ckpt_file *src[2];
	ckpt_select sel;
	struct merge_rules rules;
	struct merge_plan plan;
};

static void given(struct setup *s, const char *base, const char *s1, const char *s2)
{
	memset(s, 0, sizeof *s);
	fake(&s->base, "base.h5", base);
	fake(&s->s1, "one.h5", s1);
	fake(&s->s2, "two.h5", s2 ? s2 : "");
	s->src[0] = &s->s1.f;
	s->src[1] = &s->s2.f;
	ckpt_select_init(&s->sel);
	s->rules.sel = &s->sel;
}

static int plan(struct setup *s, size_t nsrc)
{
	return merge_plan_make(&s->plan, &s->rules, &s->base.f, s->src, nsrc);
}

static void done(struct setup *s)
{
	merge_plan_free(&s->plan);
	ckpt_select_free(&s->sel);
	unfake(&s->base);
	unfake(&s->s1);
	unfake(&s->s2);
}

static void replaces_the_names_a_source_has_and_keeps_the_rest(void **state)
{
	struct setup s;

	(void)state;
	given(&s, "a:f32:2 b:f32:3 g/c:f32:1", "b:f32:3 zz:f32:1", NULL);
	assert_int_equal(plan(&s, 1), 0);
	assert_null(s.plan.from[0].v);
	assert_ptr_equal(s.plan.from[1].v, &s.s1.v[0]);
	assert_null(s.plan.from[2].v);
	assert_int_equal(s.plan.replaced, 1);
	assert_int_equal(s.plan.ignored, 1); /* zz: not in BASE, no --add */
	assert_int_equal(s.plan.nadded, 0);
	done(&s);
}

static void lets_the_last_source_win(void **state)
{
	struct setup s;

	(void)state;
	given(&s, "a:f32:2", "a:f32:2", "a:f32:2");
	assert_int_equal(plan(&s, 2), 0);
	assert_int_equal(s.plan.from[0].src, 1);
	assert_ptr_equal(s.plan.from[0].v, &s.s2.v[0]);
	done(&s);
}

static void maps_source_names_before_matching(void **state)
{
	struct setup s;

	(void)state;
	given(&s, "model/a:f32:2", "a:f32:2", NULL);
	s.sel.add_prefix = "model/";
	assert_int_equal(plan(&s, 1), 0);
	assert_int_equal(s.plan.replaced, 1);
	done(&s);
}

static void refuses_another_shape_naming_both_files(void **state)
{
	struct setup s;

	(void)state;
	given(&s, "a:f32:2", "a:f32:3", NULL);
	assert_int_equal(plan(&s, 1), -1);
	assert_string_equal(ckpt_errmsg(), "one.h5: variable 'a' has shape [3], base.h5 has [2]");
	done(&s);
}

static void refuses_another_dtype_unless_cast(void **state)
{
	struct setup s;

	(void)state;
	given(&s, "a:f32:2", "a:f16:2", NULL);
	assert_int_equal(plan(&s, 1), -1);
	assert_non_null(strstr(ckpt_errmsg(), "is float16, base.h5 has float32 (--cast converts)"));
	done(&s);
	given(&s, "a:f32:2", "a:f16:2", NULL);
	s.rules.cast = 1;
	assert_int_equal(plan(&s, 1), 0);
	assert_int_equal(s.plan.replaced, 1);
	done(&s);
}

static void refuses_a_name_base_lacks_when_strict(void **state)
{
	struct setup s;

	(void)state;
	given(&s, "a:f32:2", "a:f32:2 new:f32:1", NULL);
	s.rules.strict = 1;
	assert_int_equal(plan(&s, 1), -1);
	assert_string_equal(ckpt_errmsg(), "one.h5: variable 'new' is not in base.h5 (--strict)");
	done(&s);
}

static void adds_a_name_once_from_the_last_source_in_the_first_place(void **state)
{
	struct setup s;

	(void)state;
	given(&s, "a:f32:2", "x:f32:1 y:f32:1", "y:f16:1");
	s.rules.add = 1;
	assert_int_equal(plan(&s, 2), 0);
	assert_int_equal(s.plan.nadded, 2);
	assert_string_equal(s.plan.added[0].name, "x");
	assert_string_equal(s.plan.added[1].name, "y");
	assert_int_equal(s.plan.added[1].src, 1);
	assert_int_equal(s.plan.added[1].v->dtype, CKPT_F16);
	done(&s);
}

static void rejects_an_added_name_inside_a_base_variable(void **state)
{
	struct setup s;

	(void)state;
	given(&s, "w:f32:2", "w/x:f32:1", NULL);
	s.rules.add = 1;
	assert_int_equal(plan(&s, 1), -1);
	assert_non_null(strstr(ckpt_errmsg(), "one.h5: variable 'w/x' cannot be added as 'w/x': "
	                                      "inside variable 'w' (of base.h5)"));
	done(&s);
}

static void rejects_two_names_mapped_to_one(void **state)
{
	struct setup s;

	(void)state;
	given(&s, "w:f32:2", "w:f32:2 x/w:f32:2", NULL);
	s.sel.strip_prefix = "x/";
	assert_int_equal(plan(&s, 1), -1);
	assert_string_equal(ckpt_errmsg(), "one.h5: variables 'w' and 'x/w' would both be "
	                                   "called 'w': check --strip-prefix, --add-prefix "
	                                   "and --rename");
	done(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(replaces_the_names_a_source_has_and_keeps_the_rest),
		cmocka_unit_test(lets_the_last_source_win),
		cmocka_unit_test(maps_source_names_before_matching),
		cmocka_unit_test(refuses_another_shape_naming_both_files),
		cmocka_unit_test(refuses_another_dtype_unless_cast),
		cmocka_unit_test(refuses_a_name_base_lacks_when_strict),
		cmocka_unit_test(adds_a_name_once_from_the_last_source_in_the_first_place),
		cmocka_unit_test(rejects_an_added_name_inside_a_base_variable),
		cmocka_unit_test(rejects_two_names_mapped_to_one),
	};

	ckpt_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
