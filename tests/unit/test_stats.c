/* Streaming statistics: exact small cases, numpy's NaN/Inf semantics, and
 * slab-by-slab accumulation equal to one pass. */
#include "unit.h"

static ckpt_summary summarise(const double *v, size_t n, size_t slab)
{
	ckpt_stats s;
	ckpt_summary m;
	double *copy = malloc(n * sizeof *copy + 1);

	if (n)
		memcpy(copy, v, n * sizeof *v);
	ckpt_stats_init(&s);
	for (size_t i = 0; i < n; i += slab)
		ckpt_stats_add(&s, copy + i, n - i < slab ? n - i : slab);
	ckpt_stats_summary(&s, &m);
	free(copy);
	return m;
}

static void summarises_min_max_mean_std_and_norm(void **state)
{
	double v[4] = {1, 2, 3, 4};
	ckpt_summary m = summarise(v, 4, 4);

	(void)state;
	assert_true(m.min == 1 && m.max == 4 && m.mean == 2.5);
	assert_close(m.std, sqrt(1.25), 1e-15);
	assert_close(m.l2, sqrt(30), 1e-15);
	assert_true(m.count == 4 && m.zeros == 0 && m.nan == 0 && m.inf == 0);
}

static void gives_the_same_over_one_element_slabs(void **state)
{
	double v[5] = {0, -1, 5, 0, 2};
	ckpt_summary a = summarise(v, 5, 5), b = summarise(v, 5, 1);

	(void)state;
	assert_true(b.min == -1 && b.max == 5 && b.zeros == 2 && b.count == 5);
	assert_close(a.mean, b.mean, 1e-15);
	assert_close(a.std, b.std, 1e-15);
	assert_close(a.l2, b.l2, 1e-15);
}

static void counts_nan_and_propagates_it(void **state)
{
	double v[4] = {1, NAN, INFINITY, 0};
	ckpt_summary m = summarise(v, 4, 2);

	(void)state;
	assert_true(isnan(m.min) && isnan(m.max) && isnan(m.mean));
	assert_true(isnan(m.std) && isnan(m.l2));
	assert_true(m.nan == 1 && m.inf == 1 && m.zeros == 1);
}

static void treats_infinities_as_numpy_does(void **state)
{
	double p[3] = {1, INFINITY, 2}, both[2] = {INFINITY, -INFINITY};
	ckpt_summary m = summarise(p, 3, 3), n = summarise(both, 2, 1);

	(void)state;
	assert_true(m.max == INFINITY && m.min == 1 && m.mean == INFINITY);
	assert_true(isnan(m.std) && m.l2 == INFINITY);
	assert_true(isnan(n.mean) && n.min == -INFINITY && n.max == INFINITY);
}

static void summarises_nothing_as_nan_mean(void **state)
{
	ckpt_summary m = summarise(NULL, 0, 1);

	(void)state;
	assert_true(m.count == 0 && isnan(m.mean) && m.l2 == 0);
}

/* Large values would overflow a plain sum of squares; tiny ones underflow. */
static void computes_norms_without_overflow(void **state)
{
	double big[3] = {3e200, 4e200, 0}, tiny[2] = {3e-200, 4e-200};

	(void)state;
	assert_close(summarise(big, 3, 1).l2, 5e200, 1e-15);
	assert_close(summarise(tiny, 2, 2).l2, 5e-200, 1e-15);
}

/* A mean near 1e8 with small spread keeps its digits over many slabs. */
static void stays_accurate_over_many_slabs(void **state)
{
	enum { N = 100000 };
	double *v = malloc(N * sizeof *v);
	ckpt_summary m;

	(void)state;
	for (int i = 0; i < N; i++)
		v[i] = 1e8 + (i % 2 ? 0.5 : -0.5);
	m = summarise(v, N, 333);
	assert_true(m.mean == 1e8);
	assert_close(m.std, 0.5, 1e-9);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summarises_min_max_mean_std_and_norm),
		cmocka_unit_test(gives_the_same_over_one_element_slabs),
		cmocka_unit_test(counts_nan_and_propagates_it),
		cmocka_unit_test(treats_infinities_as_numpy_does),
		cmocka_unit_test(summarises_nothing_as_nan_mean),
		cmocka_unit_test(computes_norms_without_overflow),
		cmocka_unit_test(stays_accurate_over_many_slabs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
