/* linear.h - the reference model: y = W x + b fitted to y = 0.1 x + 0.3
 * by gradient descent, optionally data-parallel over N workers, all in
 * float32 as the TensorFlow original computes it.
 *
 * Batch i holds n points x drawn as np.random.seed(i); np.random.rand(n, N)
 * draws them, converted to float32; targets y = sum_k(x_k * 0.1f) + 0.3f in
 * float32.  W starts as np.random.seed(s); np.random.uniform(-1, 1) draws
 * (in C order, converted to float32), b at 0.  The loss is the mean of the
 * squared residuals over the batch and the outputs. */
#ifndef CKPT_LINEAR_H
#define CKPT_LINEAR_H

#include <stddef.h>
#include <stdint.h>

typedef struct ckpt_linear {
	size_t features, outputs; /* N and M: W is [M,N], b is [M] */
	float *w, *b;
} ckpt_linear;

typedef struct ckpt_batch {
	size_t n, features, outputs;
	float *x, *y;             /* [n,N] and [n,M] */
} ckpt_batch;

int ckpt_linear_init(ckpt_linear *m, size_t features, size_t outputs, uint32_t seed);
int ckpt_linear_copy(ckpt_linear *dst, const ckpt_linear *src);
void ckpt_linear_free(ckpt_linear *m);

int ckpt_batch_make(ckpt_batch *b, uint32_t seed, size_t n, size_t features,
                    size_t outputs);
void ckpt_batch_free(ckpt_batch *b);

/* The loss of m on b. */
float ckpt_linear_loss(const ckpt_linear *m, const ckpt_batch *b);

/* The gradient of the loss at m on b into g (shaped like m); returns the
 * loss. */
float ckpt_linear_grad(const ckpt_linear *m, const ckpt_batch *b, ckpt_linear *g);

/* m -= lr * g */
void ckpt_linear_apply(ckpt_linear *m, const ckpt_linear *g, float lr);

typedef struct ckpt_train_opts {
	size_t workers;       /* worker i trains on batches[i] */
	size_t iterations;
	size_t local_steps;   /* sync params: steps each worker takes */
	int sync_grads;       /* average gradients instead of parameters */
	float lr;
	/* called after each iteration with the mean loss of the workers at
	 * the shared weights the iteration started from; may be NULL */
	void (*report)(size_t iteration, const ckpt_linear *m, float loss, void *user);
	void *user;
} ckpt_train_opts;

/* Train m in place; returns the loss of the last iteration, NaN on error
 * (out of memory, with a message). */
float ckpt_linear_train(ckpt_linear *m, const ckpt_batch *batches,
                        const ckpt_train_opts *o);

/* ---- model checkpoints ---- */

/* Load w and b from a checkpoint: "P/w" and "P/b" when prefix P is given,
 * else "w" and "b", else the one pair "X/w", "X/b" the file has.  features
 * and outputs of 0 are taken from the file; otherwise the shapes must
 * match.  *found (may be NULL) receives the prefix used ("" for none,
 * malloc'd); *iterations the file's iteration count (0 if it has none). */
int ckpt_linear_load(ckpt_linear *m, const char *path, const char *prefix,
                     size_t features, size_t outputs, char **found,
                     uint64_t *iterations);

/* Write m as variables "P/w" and "P/b" (or "w", "b" for an empty prefix)
 * to target ("-" for stdout), with the root attributes iterations, loss and
 * options (the run's settings). */
int ckpt_linear_save(const ckpt_linear *m, const char *target, int force,
                     const char *prefix, uint64_t iterations, double loss,
                     const char *options);

#endif
