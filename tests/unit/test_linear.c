/* The reference model: a gradient step by hand, data, convergence. */
#include "unit.h"

static void one_step_by_hand(void **state)
{
	float x[2] = {1, 2}, y[2] = {0.4f, 0.5f}, w = 0.5f, b = 0, gw, gb;
	ckpt_batch data = {2, 1, 1, x, y};
	ckpt_linear m = {1, 1, &w, &b}, g = {1, 1, &gw, &gb};
	float loss;

	(void)state;
	/* residuals 0.1 and 0.5: loss (0.01 + 0.25) / 2, gradients
	 * 2 * (0.1 * 1 + 0.5 * 2) / 2 and 2 * (0.1 + 0.5) / 2 */
	loss = ckpt_linear_grad(&m, &data, &g);
	assert_close(loss, 0.13, 1e-6);
	assert_close(gw, 1.1, 1e-6);
	assert_close(gb, 0.6, 1e-6);
	assert_close(ckpt_linear_loss(&m, &data), 0.13, 1e-6);
	ckpt_linear_apply(&m, &g, 0.5f);
	assert_close(w, 0.5 - 0.55, 1e-6);
	assert_close(b, -0.3, 1e-6);
}

static void data_as_numpy_draws_it(void **state)
{
	ckpt_batch b;

	(void)state;
	assert_int_equal(ckpt_batch_make(&b, 0, 100, 1, 1), 0);
	assert_true(b.x[0] == (float)0.5488135039273248);
	assert_true(b.x[2] == (float)0.6027633760716439);
	assert_true(b.y[0] == (float)0.5488135039273248 * 0.1f + 0.3f);
	ckpt_batch_free(&b);
}

static void initial_weights(void **state)
{
	ckpt_linear m;

	(void)state;
	assert_int_equal(ckpt_linear_init(&m, 1, 1, 0), 0);
	assert_true(m.w[0] == (float)0.0976270078546495 && m.b[0] == 0);
	ckpt_linear_free(&m);
}

static void converges(void **state)
{
	ckpt_linear m;
	ckpt_batch b[5];
	ckpt_train_opts o = {.workers = 1, .iterations = 201, .local_steps = 1, .lr = 0.5f};

	(void)state;
	for (int i = 0; i < 5; i++)
		ckpt_batch_make(&b[i], (uint32_t)i, 100, 1, 1);
	ckpt_linear_init(&m, 1, 1, 0);
	ckpt_linear_train(&m, b, &o);
	assert_true(fabs(m.w[0] - 0.1) < 1e-3 && fabs(m.b[0] - 0.3) < 1e-3);
	ckpt_linear_free(&m);
	for (int grads = 0; grads < 2; grads++) {
		o.workers = 4;
		o.sync_grads = grads;
		ckpt_linear_init(&m, 1, 1, 0);
		ckpt_linear_train(&m, b, &o);
		assert_true(fabs(m.w[0] - 0.1) < 1e-3 && fabs(m.b[0] - 0.3) < 1e-3);
		assert_true(ckpt_linear_loss(&m, &b[4]) < 1e-9);
		ckpt_linear_free(&m);
	}
	for (int i = 0; i < 5; i++)
		ckpt_batch_free(&b[i]);
}

/* One worker's data-parallel training is plain training, bit for bit. */
static void one_worker_is_plain(void **state)
{
	ckpt_linear a, c, g;
	ckpt_batch b;
	ckpt_train_opts o = {.workers = 1, .iterations = 30, .local_steps = 1, .lr = 0.5f};

	(void)state;
	ckpt_batch_make(&b, 3, 50, 3, 2);
	ckpt_linear_init(&a, 3, 2, 9);
	ckpt_linear_init(&c, 3, 2, 9);
	ckpt_linear_copy(&g, &a);
	ckpt_linear_train(&a, &b, &o);
	for (int i = 0; i < 30; i++) {
		ckpt_linear_grad(&c, &b, &g);
		ckpt_linear_apply(&c, &g, 0.5f);
	}
	assert_memory_equal(a.w, c.w, 6 * sizeof(float));
	assert_memory_equal(a.b, c.b, 2 * sizeof(float));
	ckpt_linear_free(&a);
	ckpt_linear_free(&c);
	ckpt_linear_free(&g);
	ckpt_batch_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_step_by_hand),
		cmocka_unit_test(data_as_numpy_draws_it),
		cmocka_unit_test(initial_weights),
		cmocka_unit_test(converges),
		cmocka_unit_test(one_worker_is_plain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
