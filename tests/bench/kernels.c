/* tests/bench/kernels.c - the merge methods' formula alone
 * (ckpt_method_range()), in cache, on one thread: nanoseconds per element
 * of a 16 Ki-element piece of three models and a base, the least of 7
 * rounds of 200 pieces, for every method, float32 and bfloat16 inputs.
 * What a pass computes, without its reads and writes: a figure that a
 * noisy machine changes little (the whole runs of make bench-methods vary
 * by a fifth from run to run there).  Magnitude windows keep the
 * elements above the median magnitude; DARE keeps half.
 *
 * kernels [METHOD...] - the methods named (default: all). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/ckpt.h"
#include "lib/method.h"

enum { N = 1 << 14, NX = 3, ROUNDS = 7, PIECES = 200 };

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The inputs: uniform in (-1, 1), as float32 and converted to type t. */
static void inputs(ckpt_dtype t, void *in[NX + 1])
{
	static float f[N];

	srand(1);
	for (int k = 0; k <= NX; k++) {
		for (int i = 0; i < N; i++)
			f[i] = (float)rand() / (float)RAND_MAX * 2 - 1;
		if (!(in[k] = malloc(N * ckpt_dtype_size(t))) ||
		    ckpt_convert(CKPT_F32, f, t, in[k], N) != 0) {
			fprintf(stderr, "kernels: cannot make the inputs\n");
			exit(2);
		}
	}
}

static double ns_per_element(ckpt_method_kind kind, ckpt_dtype t)
{
	double w[NX] = {1, 1, 1}, best = 1e30;
	ckpt_dtype types[NX + 1] = {t, t, t, t};
	ckpt_rank_cut lo[NX], hi[NX];
	ckpt_var var = {.name = "x", .nelems = N, .dtype = t};
	ckpt_method m = {.kind = kind, .nmodels = NX, .weights = w, .lambda = 1,
	                 .density = 0.5, .gamma = 0.01, .t = 0.3, .normalize = 1,
	                 .divisor = NX, .seed = 7};
	ckpt_mvar v = {.m = &m, .var = &var, .out = t, .types = types, .lo = lo, .hi = hi,
	               .a = 1, .lambda = 1, .nx = kind == CKPT_SLERP ? 1 : NX};
	void *in[NX + 1], *out = malloc(N * ckpt_dtype_size(t));

	inputs(t, in);
	for (int k = 0; k < NX; k++) { /* ranks 0 .. about n/2: |x - b| above 2/3 */
		lo[k] = (ckpt_rank_cut){INT64_MAX, 0, 0};
		hi[k] = (ckpt_rank_cut){ckpt_magnitude_key(2.0 / 3, 0), 0, 0};
	}
	v.mask_key = ckpt_dare_key(m.seed, var.name);
	v.dc = (ckpt_method_random(kind) ? m.density : 1) *
	       (ckpt_method_elects(kind) && m.normalize ? 1 : m.divisor);
	if (kind == CKPT_SLERP) /* (coefficients of no few bits, as measured ones) */
		v.a = 0.6180339887498949, v.lambda = 0.4142135623730951;
	if (kind == CKPT_MODEL_STOCK)
		v.lambda = 0.7320508075688772, v.dc = NX;
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now();

		for (int j = 0; j < PIECES; j++)
			if (ckpt_method_range(&v, (const void *const *)in, out, (uint64_t)j * N, 0, N) ==
			    SIZE_MAX) {
				fprintf(stderr, "kernels: out of memory\n");
				exit(2);
			}
		t0 = now() - t0;
		best = t0 < best ? t0 : best;
	}
	for (int k = 0; k <= NX; k++)
		free(in[k]);
	free(out);
	return best / PIECES / N * 1e9;
}

int main(int argc, char **argv)
{
	static const char *all[] = {"task-arithmetic", "dare-linear", "dare-ties", "ties",
	                            "breadcrumbs", "breadcrumbs-ties", "slerp", "model-stock"};
	const char **names = argc > 1 ? (const char **)argv + 1 : all;
	int n = argc > 1 ? argc - 1 : (int)(sizeof all / sizeof *all);

	printf("%-18s %10s %10s   (ns per element, 3 models and a base, in cache)\n", "method",
	       "float32", "bfloat16");
	for (int i = 0; i < n; i++) {
		ckpt_method_kind kind;

		if (ckpt_method_parse(names[i], &kind) < 0) {
			fprintf(stderr, "kernels: %s: no such method\n", names[i]);
			return 2;
		}
		printf("%-18s %10.2f %10.2f\n", names[i], ns_per_element(kind, CKPT_F32),
		       ns_per_element(kind, CKPT_BF16));
	}
	return 0;
}
