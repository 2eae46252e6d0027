/* The merge methods' parts: exact quotients rounded once, exact sums in
 * any order, radix select against a sort, DARE's draws as the man page
 * defines them, and the formula at ties and beside them. */
#include "unit.h"
#include "lib/exact.h"
#include "lib/method.h"
#include "lib/mblockint.h"
#include "lib/methodint.h"
#include "lib/topk.h"
#include "lib/topkint.h"

#include <stdlib.h>
#include <string.h>
#include "lib/xsumint.h"

static double quotient_of(double a, double b, int to_odd)
{
	ckpt_big n, d;

	ckpt_big_set(&n, a);
	ckpt_big_set(&d, b);
	return ckpt_big_quotient(&n, &d, to_odd);
}

static void rounds_quotients_once(void **state)
{
	(void)state;
	assert_true(quotient_of(1, 3, 0) == 1.0 / 3);
	assert_true(quotient_of(-2, 3, 0) == -2.0 / 3);
	assert_true(quotient_of(1, 0x1p-1000, 0) == 0x1p1000);
	assert_true(quotient_of(0x1p-1074, 2, 0) == 0);        /* a tie: to even */
	assert_true(quotient_of(0x1p-1074 * 3, 2, 0) == 0x1p-1073);
	assert_true(isinf(quotient_of(0x1p1000, 0x1p-100, 0)));
	assert_true(quotient_of(0, 7, 0) == 0 && !signbit(quotient_of(0, -7, 0)));
	/* to odd: an inexact quotient has its last bit set */
	assert_true(bits_of(quotient_of(1, 3, 1)) & 1);
	assert_true(quotient_of(1, 4, 1) == 0.25);
}

static void sums_products_exactly(void **state)
{
	ckpt_big a, t;

	(void)state;
	/* 1e300 * 1e-300 - (1 + tiny): exactly representable only in limbs */
	ckpt_big_set(&a, 1e300);
	ckpt_big_mul(&a, 1e-300);
	ckpt_big_set(&t, 1);
	ckpt_big_sub(&a, &t);
	ckpt_big_set(&t, 1);
	assert_true(ckpt_big_sign(&a) != 0);
	assert_true(ckpt_big_quotient(&a, &t, 0) == fma(1e300, 1e-300, -1));
	ckpt_big_set(&a, 0x1p-1074);
	ckpt_big_mul(&a, 0x1p-1074);
	ckpt_big_mul(&a, 0x1p1023);
	ckpt_big_mul(&a, 0x1p1023);
	assert_true(ckpt_big_quotient(&a, &t, 0) == 0x1p-102);
}

static void xsum_is_order_free(void **state)
{
	double v[] = {1e308, 1, -1e308, 0x1p-1074, -0.5, 3e-300, 1e200, -1e200};
	ckpt_xsum a, b;

	(void)state;
	ckpt_xsum_init(&a);
	ckpt_xsum_init(&b);
	for (size_t i = 0; i < 8; i++) {
		ckpt_xsum_add(&a, v[i]);
		ckpt_xsum_add(&b, v[7 - i]);
	}
	assert_true(ckpt_xsum_round(&a) == 0.5 && ckpt_xsum_round(&b) == 0.5);
	ckpt_xsum_init(&a);
	ckpt_xsum_add_prod(&a, 1 + 0x1p-30, 1 + 0x1p-30); /* 1 + 2^-29 + 2^-60 */
	ckpt_xsum_add(&a, -1);
	assert_true(ckpt_xsum_round(&a) == 0x1p-29 + 0x1p-60);
	ckpt_xsum_add(&a, NAN);
	assert_true(isnan(ckpt_xsum_round(&a)));
	ckpt_xsum_init(&a); /* two halves merged: the whole */
	ckpt_xsum_init(&b);
	for (size_t i = 0; i < 8; i++)
		ckpt_xsum_add(i < 3 ? &a : &b, v[i]);
	ckpt_xsum_merge(&a, &b);
	assert_true(ckpt_xsum_round(&a) == 0.5);
	ckpt_xsum_init(&a);
	ckpt_xsum_add(&a, -3);
	ckpt_xsum_add(&a, 0x1p-1074);
	assert_true(ckpt_xsum_round(&a) == -3);
	b = a; /* one rank's sums over the ranks: themselves (negative, and NaN) */
	ckpt_xsum_add(&b, NAN);
	ckpt_xsum_add(&a, -0x1p-1074);
	ckpt_xsum_add(&a, 0x1p-1000);
	ckpt_xsum_add(&a, 0.25);
	assert_int_equal(ckpt_xsum_sum_ranks(&a, 1), 0);
	assert_int_equal(ckpt_xsum_sum_ranks(&b, 1), 0);
	assert_true(ckpt_xsum_round(&a) == -2.75 && isnan(ckpt_xsum_round(&b)));
}

/* The bounded dot product, where its bound decides, is the exact one
 * rounded, for any split into pieces; where the exact sum is a point
 * halfway between doubles it cannot decide. */
static void bounded_dots_round_as_exact_ones(void **state)
{
	enum { N = 20000 };
	double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), exact, got, bound;
	size_t splits[] = {N, 4096, 1000, 7};
	ckpt_xsum x;

	(void)state;
	assert_true(a && b);
	srand(5);
	for (size_t i = 0; i < N; i++) {
		a[i] = ((double)rand() / RAND_MAX - 0.5) * ldexp(1, rand() % 40 - 20);
		b[i] = ((double)rand() / RAND_MAX - 0.5) * ldexp(1, rand() % 40 - 20);
	}
	ckpt_xsum_init(&x);
	ckpt_xsum_dot(&x, a, b, N);
	exact = ckpt_xsum_round(&x);
	for (size_t k = 0; k < 4; k++) {
		ckpt_xsum_init(&x);
		bound = 0;
		for (size_t i = 0; i < N; i += splits[k])
			ckpt_xsum_dot_bounded(&x, &bound, a + i, b + i,
			                      N - i < splits[k] ? N - i : splits[k]);
		assert_true(ckpt_xsum_round_bounded(&x, bound, &got));
		assert_true(got == exact);
	}
	for (size_t i = 0; i < N; i++) /* (1 + 2^-27)^2 = RN + 2^-54: errors that count */
		a[i] = b[i] = 1 + 0x1p-27;
	a[N - 1] = -(N - 1) * (1 + 0x1p-26) + 0x1p-5;
	b[N - 1] = 1;
	ckpt_xsum_init(&x);
	bound = 0;
	ckpt_xsum_dot_bounded(&x, &bound, a, b, N);
	assert_true(ckpt_xsum_round_bounded(&x, bound, &got));
	assert_true(got == 0x1p-5 + (N - 1) * 0x1p-54);
	a[0] = 1, b[0] = 1, a[1] = 0x1p-53, b[1] = 1; /* 1 + 2^-53: halfway */
	ckpt_xsum_init(&x);
	bound = 0;
	ckpt_xsum_dot_bounded(&x, &bound, a, b, 2);
	assert_false(ckpt_xsum_round_bounded(&x, bound, &got));
	a[0] = NAN;
	ckpt_xsum_init(&x);
	bound = 0;
	ckpt_xsum_dot_bounded(&x, &bound, a, b, 2);
	assert_false(ckpt_xsum_round_bounded(&x, bound, &got));
	free(a);
	free(b);
}

/* The pairs in AVX2 (wide 0) or AVX-512 (1), where the CPU has them (else
 * as the library chooses). */
static int pair_dots_lanes(ckpt_xsum *s, double *bound, const float *b, const float *const *x,
                           size_t nx, size_t n, int wide)
{
#if CKPT_HAVE_FMA
	if (ckpt_xsum_pair_dots_can(nx) && (!wide || __builtin_cpu_supports("avx512f")))
		return ckpt_xsum_pair_dots_f32_lanes(s, bound, b, x, nx, n, wide);
#endif
	(void)wide;
	return ckpt_xsum_pair_dots_f32(s, bound, b, x, nx, n);
}

/* Model stock's pairs at once (where the CPU has FMA), and SLERP's (no
 * base), in AVX2 and AVX-512: every pair's sum
 * off the exact one by at most its bound, and rounded as the exact one
 * where the bound decides, for 2 and 3 models and pieces of any length
 * (the last elements past the vectors' groups); a task vector not exact
 * in double (2^30 - 2^-30), in a group or past them, adds nothing. */
static void pair_dots_bound_as_one_pair_at_a_time(void **state)
{
	enum { N = 20003, NX = 3 };
	static float f[NX + 1][N];
	static double t[NX][N];
	const float *x[NX] = {f[1], f[2], f[3]};
	size_t pieces[] = {N, 4096, 7};
	int done = 0;

	(void)state;
	srand(9);
	for (size_t k = 0; k <= NX; k++)
		for (size_t i = 0; i < N; i++)
			f[k][i] = (float)(((double)rand() / RAND_MAX - 0.5) * ldexp(1, rand() % 20 - 10));
	for (int wide = 0; wide < 2; wide++) /* (AVX2, AVX-512: where the CPU has them) */
	for (size_t nx = 2, based = 1; nx <= NX; nx += !based, based = !based)
		for (size_t c = 0; c < 3; c++) {
			ckpt_xsum s[6], diff;
			double bound[6] = {0}, got, exact;

			for (size_t k = 0; k < NX; k++) /* (exact here; SLERP's: no base) */
				for (size_t i = 0; i < N; i++)
					t[k][i] = (double)f[k + 1][i] - (based ? (double)f[0][i] : 0);
			for (size_t p = 0; p < 6; p++)
				ckpt_xsum_init(&s[p]);
			for (size_t i = 0; i < N; i += pieces[c]) {
				size_t n = N - i < pieces[c] ? N - i : pieces[c];
				const float *xi[NX] = {x[0] + i, x[1] + i, x[2] + i};

				if (!pair_dots_lanes(s, bound, based ? f[0] + i : NULL, xi, nx, n, wide))
					return; /* (no FMA: the pairs one at a time) */
			}
			done = 1;
			for (size_t a = 0, p = 0; a < nx; a++)
				for (size_t b = a; b < nx; b++, p++) {
					double *na = malloc(N * sizeof *na);

					assert_non_null(na);
					for (size_t i = 0; i < N; i++)
						na[i] = -t[a][i];
					diff = s[p];
					ckpt_xsum_dot(&diff, na, t[b], N); /* the sum's error, exactly */
					assert_true(fabs(ckpt_xsum_round(&diff)) <= bound[p]);
					ckpt_xsum_init(&diff);
					ckpt_xsum_dot(&diff, t[a], t[b], N);
					exact = ckpt_xsum_round(&diff);
					assert_true(ckpt_xsum_round_bounded(&s[p], bound[p], &got));
					assert_true(got == exact);
					free(na);
				}
		}
	if (!done)
		return;
	for (size_t at = 0; at < 4; at++) { /* (in a group; past them; AVX2, AVX-512) */
		ckpt_xsum s[6];
		double bound[6] = {0};
		size_t i = at % 2 ? 10 : 3;
		float b0 = f[0][i], x0 = f[1][i];

		for (size_t p = 0; p < 6; p++)
			ckpt_xsum_init(&s[p]);
		f[0][i] = 0x1p-30f;
		f[1][i] = 0x1p30f;
		assert_false(pair_dots_lanes(s, bound, f[0], x, 3, 11, at >= 2));
		for (size_t p = 0; p < 6; p++)
			assert_true(ckpt_xsum_round(&s[p]) == 0 && bound[p] == 0);
		f[0][i] = b0;
		f[1][i] = x0;
	}
}

/* Radix select's boundaries against a sort, with many equal keys. */
static void selects_ranks_as_a_sort_does(void **state)
{
	enum { N = 3000 };
	uint64_t keys[N], order[N];
	ckpt_topk *t;
	ckpt_rank_cut lo, hi;

	(void)state;
	srand(7);
	for (size_t i = 0; i < N; i++) {
		keys[i] = (uint64_t)(rand() % 50) << (rand() % 2 ? 52 : 20);
		order[i] = i;
	}
	for (size_t i = 0; i < N; i++) /* (an insertion sort: larger first) */
		for (size_t j = i; j > 0 && keys[order[j]] > keys[order[j - 1]]; j--) {
			uint64_t x = order[j];

			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	assert_non_null(t = ckpt_topk_new(1, N, 100, 2100));
	while (ckpt_topk_more(t)) {
		for (size_t i = 0; i < N; i += 700) /* two lanes where allowed */
			ckpt_topk_feed(t, ckpt_topk_lanes(t) > 1 ? (int)(i / 700 % 2) : 0, 0,
			               keys + i, i, N - i < 700 ? N - i : 700);
		assert_int_equal(ckpt_topk_end_pass(t), 0);
	}
	ckpt_topk_cuts(t, 0, &lo, &hi);
	assert_true(lo.key == keys[order[100]] && lo.index == order[100] && !lo.all);
	assert_true(hi.key == keys[order[2100]] && hi.index == order[2100]);
	ckpt_topk_free(t);
	assert_non_null(t = ckpt_topk_new(2, N, 0, N));
	assert_false(ckpt_topk_more(t));
	ckpt_topk_cuts(t, 1, &lo, &hi);
	assert_true(hi.all && lo.key == INT64_MAX && lo.index == 0 && !lo.all);
	ckpt_topk_free(t);
}

/* (larger keys first, equal ones by lower index) */
static const uint64_t *sort_keys;

static int by_key_then_index(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	if (sort_keys[a] != sort_keys[b])
		return sort_keys[a] > sort_keys[b] ? -1 : 1;
	return (a > b) - (a < b);
}

/* The values whose keys select_with_sample() feeds (float32 x against b,
 * keyed as fed), or NULL: the keys themselves. */
static const float *feed_b, *feed_x;

/* Lane 1 fed one piece in ten, not every other one (as two threads taking
 * a pass's pieces may share them). */
static int uneven;

/* The guesses narrowed between pieces, as ckpt-average does between slabs. */
static int narrowing = 1;

/* Keys fed at a time (ckpt_topk_feed_f32() feeds its histograms 512). */
static size_t feed_piece = 60000;

/* One boundary pair found from the keys fed feed_piece at a time, after a
 * sample of `ns` keys from `sample` (0: none), against the sort. */
static int select_with_sample(const uint64_t *keys, const uint64_t *order, size_t n,
                              const uint64_t *sample, size_t ns, uint64_t rlo, uint64_t rhi)
{
	ckpt_topk *t;
	ckpt_rank_cut lo, hi;
	int passes = 0;

	assert_non_null(t = ckpt_topk_new(1, n, rlo, rhi));
	if (ns) {
		assert_true(ckpt_topk_wants_sample(t));
		ckpt_topk_sample(t, 0, sample, ns);
		ckpt_topk_guess(t);
	}
	while (ckpt_topk_more(t)) {
		for (size_t i = 0; i < n; i += feed_piece) {
			int lane = ckpt_topk_lanes(t) < 2  ? 0
			           : uneven                ? i / feed_piece % 10 == 9
			                                   : (int)(i / feed_piece % 2);
			size_t m = n - i < feed_piece ? n - i : feed_piece;

			if (feed_b)
				ckpt_topk_feed_f32(t, lane, 0, feed_b + i, feed_x + i, i, m);
			else
				ckpt_topk_feed(t, lane, 0, keys + i, i, m);
			if (narrowing)
				ckpt_topk_narrow(t, i + m);
		}
		assert_int_equal(ckpt_topk_end_pass(t), 0);
		passes++;
	}
	ckpt_topk_cuts(t, 0, &lo, &hi);
	assert_true(lo.key == keys[order[rlo]] && lo.index == order[rlo]);
	assert_true(hi.key == keys[order[rhi]] && hi.index == order[rhi]);
	ckpt_topk_free(t);
	return passes;
}

/* A variable too large for its candidates at once: the 16-bit histogram
 * passes alone, and after a sample that predicts the boundaries (found in
 * one pass), is somewhat off (found by the histograms fed beside) or
 * misleads (then found as without it, or a pass sooner): the sort's
 * elements, equal keys included. */
static void selects_large_variables_with_or_without_a_guess(void **state)
{
	enum { N = 1500000 };
	uint64_t *keys = malloc(N * sizeof *keys), *order = malloc(N * sizeof *order);
	uint64_t *wrong = malloc(N / 4 * sizeof *wrong);
	int none;

	(void)state;
	assert_true(keys && order && wrong);
	srand(11);
	for (size_t i = 0; i < N; i++) {
		double d = (double)rand() / RAND_MAX * 4;

		memcpy(&keys[i], &d, sizeof d);
		keys[i] = i % 7 == 0 ? 0x3fe0000000000000u : keys[i]; /* many 0.5s */
		order[i] = i;
	}
	for (size_t i = 0; i < N / 4; i++)
		wrong[i] = keys[i] >> 3;
	sort_keys = keys;
	qsort(order, N, sizeof *order, by_key_then_index);
	select_with_sample(keys, order, N, NULL, 0, 1000, 300000);
	assert_int_equal(select_with_sample(keys, order, N, keys, N / 4, 1000, 300000), 1);
	/* a small sample's window is narrow beside its error: the histograms
	 * fed with the guess, a miss costs no pass */
	none = select_with_sample(keys, order, N, NULL, 0, 200000, 600000);
	assert_true(select_with_sample(keys, order, N, wrong, 500, 200000, 600000) <= none);
	select_with_sample(keys, order, N, keys, 500, 200000, 600000);
	/* a sample whose ranks lie 100000 below: the guesses' wide windows
	 * hold the boundaries, narrowed as the keys come they find them in one
	 * pass (not narrowed, the histograms fed beside do: no pass more than
	 * none); 250000 above: the second's does not hold its boundary, the
	 * histograms fed beside find it - no pass more than none either */
	for (long off = 100000; off >= -250000; off -= 350000) {
		for (long i = 0; i < 500; i++) {
			long r = i * 3000 + off;

			wrong[i] = keys[order[r < 0 ? 0 : r >= N ? N - 1 : r]];
		}
		if (off > 0)
			assert_int_equal(select_with_sample(keys, order, N, wrong, 500, 200000, 600000),
			                 1);
		assert_true(select_with_sample(keys, order, N, wrong, 500, 200000, 600000) <= none);
		narrowing = 0;
		assert_true(select_with_sample(keys, order, N, wrong, 500, 200000, 600000) <= none);
		narrowing = 1;
	}
	select_with_sample(keys, order, N, keys, N / 4, 5, 900000);
	select_with_sample(keys, order, N, wrong, N / 4, 1000, 300000);
	for (size_t r = 0; r < N; r++) /* a boundary among the 0.5s (with a
	                                    * small sample: narrowed to them) */
		if (keys[order[r]] == 0x3fe0000000000000u) {
			select_with_sample(keys, order, N, keys, N / 4, r + 5000, r + 5001);
			select_with_sample(keys, order, N, keys, 500, r + 5000, r + 5001);
			select_with_sample(keys, order, N, keys, 500, r - 2000, r + 200000);
			break;
		}
	free(keys);
	free(order);
	free(wrong);
}

/* Whether the guesses after a sample narrow (nar) and feed the histograms
 * beside (hist): bit 0 the lower boundary's, bit 1 the upper's. */
static void guess_flags(size_t n, const uint64_t *sample, size_t ns, uint64_t rlo, uint64_t rhi,
                        int *nar, int *hist)
{
	ckpt_topk *t;

	assert_non_null(t = ckpt_topk_new(1, n, rlo, rhi));
	assert_true(ckpt_topk_wants_sample(t));
	ckpt_topk_sample(t, 0, sample, ns);
	ckpt_topk_guess(t);
	*nar = t->b[0].narrows | t->b[1].narrows << 1;
	*hist = t->b[0].hist_too | t->b[1].hist_too << 1;
	ckpt_topk_free(t);
}

/* A variable too large for a sound guess from its sample (2048 keys of 3
 * million, spread over it in flat order): the guesses' wide windows are
 * narrowed as the keys come, without the histograms where the sample's
 * parts agree (found in one pass), with them where its start is unlike
 * the rest (a third of the keys smaller: the keys seen first mislead the
 * narrowing, the histograms find the boundaries - no pass more than
 * none) and where a run of one key within the window could fill the room
 * (a 13th of the keys 2.5, nearly the room, the upper boundary among
 * them).  And a sound guess (the lower boundary at rank 60000) whose
 * window's edge is a run of one key (a 20th of the keys 3.9): the
 * histograms fed beside, its window narrowed too.  The sort's elements
 * every time. */
static void narrows_without_histograms_where_the_sample_agrees(void **state)
{
	enum { N = 3000000, NS = 2048 };
	uint64_t *keys = malloc(N * sizeof *keys), *order = malloc(N * sizeof *order);
	uint64_t sample[NS], rlo, rhi = 1200000;
	int nar, hist;

	(void)state;
	assert_true(keys && order);
	for (int shape = 0; shape < 4; shape++) {
		rlo = shape == 3 ? 60000 : 400000;
		srand(5 + shape);
		for (size_t i = 0; i < N; i++) {
			double d = (double)rand() / RAND_MAX * (shape == 1 && i < N / 3 ? 1 : 4);

			d = shape == 2 && i % 13 == 0 ? 2.5 : shape == 3 && i % 20 == 0 ? 3.9 : d;
			memcpy(&keys[i], &d, sizeof d);
			order[i] = i;
		}
		for (size_t i = 0; i < NS; i++)
			sample[i] = keys[i * (N / NS - 1)]; /* (1463: every i % 13, % 20) */
		sort_keys = keys;
		qsort(order, N, sizeof *order, by_key_then_index);
		guess_flags(N, sample, NS, rlo, rhi, &nar, &hist);
		assert_int_equal(nar, 3);
		assert_int_equal(hist, shape == 0 ? 0 : shape == 1 ? 3 : shape == 2 ? 2 : 1);
		if (shape == 0)
			assert_int_equal(select_with_sample(keys, order, N, sample, NS, rlo, rhi), 1);
		else
			assert_true(select_with_sample(keys, order, N, sample, NS, rlo, rhi) <=
			            select_with_sample(keys, order, N, NULL, 0, rlo, rhi));
	}
	free(keys);
	free(order);
}

/* A boundary among many equal keys (zeros: the frozen part of a
 * fine-tune; one value of a coarse type) is known whole once a histogram
 * pass has counted the group's least and largest keys, or the key its
 * sample had many of at a window's edge: then only its index is looked
 * for (a boundary among them used to take a pass for every 16 bits first)
 * - or, where every key is one, it is the element at its rank, in one
 * pass; the sort's elements either way.  All keys 0; a tenth larger and
 * the rest 0; nine tenths one key (the largest) and the rest smaller; a
 * third one key between a third larger and a third smaller (found so
 * after a sample only: its histograms take a pass more). */
static void finds_a_boundary_among_equal_keys_at_once(void **state)
{
	enum { N = 1500000 };
	uint64_t *keys = malloc(N * sizeof *keys), *order = malloc(N * sizeof *order);
	const int without[] = {1, 2, 2, 3}, with[] = {1, 2, 2, 2}; /* (passes at most) */

	(void)state;
	assert_true(keys && order);
	for (int shape = 0; shape < 4; shape++) {
		srand(5);
		for (size_t i = 0; i < N; i++) {
			uint64_t other = (uint64_t)rand() << 20 | (uint64_t)rand();

			keys[i] = shape == 0   ? 0
			          : shape == 1 ? (i % 10 == 3 ? other + 1 : 0)
			          : shape == 2 ? (i % 10 ? UINT64_C(1) << 55 : other % (UINT64_C(1) << 50))
			          : i % 3 == 0 ? (UINT64_C(1) << 52) + other
			          : i % 3 == 1 ? UINT64_C(1) << 51
			                       : other % (UINT64_C(1) << 50);
			order[i] = i;
		}
		sort_keys = keys;
		qsort(order, N, sizeof *order, by_key_then_index);
		/* (the lower boundary among the equal ones, the upper one too but
		 * where a tenth or a third are larger) */
		assert_true(select_with_sample(keys, order, N, NULL, 0, shape == 1 ? 1000 : 30000,
		                               900000) <= without[shape]);
		assert_true(select_with_sample(keys, order, N, keys, N / 16, shape == 1 ? 1000 : 30000,
		                               900000) <= with[shape]);
	}
	free(keys);
	free(order);
}

/* The group's ends counted over many small feeds: the largest key in the
 * last half only (a smaller one the largest before it), more of it than
 * the room holds and more than that of keys just below it (in its 16-bit
 * digit), zeros a third of the keys (more than the room too); the last of the largest and the first
 * zero, each found at an end in the first pass and in the second as the
 * sort has them; and the keys just past those runs.  A count one off
 * misses an end (the histograms take passes more) or puts a boundary in
 * a run it is past (a wrong key: told as changed values, or the wrong
 * index). */
static void counts_the_ends_over_many_feeds(void **state)
{
	enum { N = 1500000 };
	const uint64_t LARGEST = (UINT64_C(1) << 55) + (UINT64_C(1) << 48) - 1;
	uint64_t *keys = malloc(N * sizeof *keys), *order = malloc(N * sizeof *order);
	uint64_t most = 0, zeros = 0;

	(void)state;
	assert_true(keys && order);
	srand(11);
	for (size_t i = 0; i < N; i++) {
		keys[i] = i % 3 == 1                ? 0
		          : i >= N / 2              ? LARGEST
		          : i % 5 == 0              ? UINT64_C(1) << 54
		                                     : (UINT64_C(1) << 55) +
		                                           ((uint64_t)rand() << 20 | (uint64_t)rand()) %
		                                               (LARGEST - (UINT64_C(1) << 55));
		most += keys[i] == LARGEST;
		zeros += keys[i] == 0;
		order[i] = i;
	}
	sort_keys = keys;
	qsort(order, N, sizeof *order, by_key_then_index);
	feed_piece = 512;
	assert_int_equal(select_with_sample(keys, order, N, NULL, 0, most - 1, N - zeros), 2);
	select_with_sample(keys, order, N, NULL, 0, most, N - zeros - 1);
	feed_piece = 60000;
	free(keys);
	free(order);
}

/* A boundary in the sample's run (a third of the keys one value, between
 * a third larger and a third smaller): after the first pass its index is
 * known to lie in one feed of it (fed 4096 keys at a time; or 512, the
 * feeds that follow each other recorded as one up to 4096: a record per
 * 4096 keys at most), which alone the second pass reads - the sort's
 * element. */
static size_t pass_piece = 4096;
static void feed_all(ckpt_topk *t, const uint64_t *keys, size_t n);
static int pass_of(ckpt_topk *t, const uint64_t *keys, size_t n);

static void looks_for_an_index_in_one_feed(void **state)
{
	enum { N = 1500000, R = 900000 };
	uint64_t *keys = malloc(N * sizeof *keys), *order = malloc(N * sizeof *order);
	ckpt_topk *t;
	ckpt_rank_cut lo, hi;
	uint64_t from, to;

	(void)state;
	assert_true(keys && order);
	srand(5);
	for (size_t i = 0; i < N; i++) {
		uint64_t other = (uint64_t)rand() << 20 | (uint64_t)rand();

		keys[i] = i % 3 == 0 ? (UINT64_C(1) << 52) + other
		          : i % 3 == 1 ? UINT64_C(1) << 51 : other % (UINT64_C(1) << 50);
		order[i] = i;
	}
	sort_keys = keys;
	qsort(order, N, sizeof *order, by_key_then_index);
	for (pass_piece = 4096; pass_piece >= 512; pass_piece /= 8) {
		assert_non_null(t = ckpt_topk_new(1, N, 0, R));
		ckpt_topk_sample(t, 0, keys, N / 16);
		ckpt_topk_guess(t);
		feed_all(t, keys, N);
		/* (records of the run's pieces bounded: not one per feed) */
		assert_true(t->b[1].nfeeds[0] <= N / 4096 + 1);
		assert_int_equal(ckpt_topk_end_pass(t), 0);
		assert_true(ckpt_topk_more(t));
		assert_true(ckpt_topk_range(t, 0, &from, &to));
		assert_false(ckpt_topk_range(t, 1, &from, &to));
		assert_true(from <= order[R] && order[R] < to && to - from <= 4096);
		for (uint64_t i = from; i < to; i += 1000)
			ckpt_topk_feed(t, 0, 0, keys + i, i, to - i < 1000 ? to - i : 1000);
		assert_int_equal(ckpt_topk_end_pass(t), 0);
		assert_false(ckpt_topk_more(t));
		ckpt_topk_cuts(t, 0, &lo, &hi);
		assert_true(hi.key == keys[order[R]] && hi.index == order[R]);
		ckpt_topk_free(t);
	}
	pass_piece = 4096;
	free(keys);
	free(order);
}

/* Keys [from, to) fed on lane 0, 1000 at a time. */
static void feed_span(ckpt_topk *t, const uint64_t *keys, uint64_t from, uint64_t to)
{
	for (uint64_t i = from; i < to; i += 1000)
		ckpt_topk_feed(t, 0, 0, keys + i, i, to - i < 1000 ? to - i : 1000);
}

/* A model's two boundaries, each in a run of its own (a quarter of the
 * keys one value, half another, smaller), share the first pass's
 * histogram and ends while each counts its own run: after it, each index
 * is known to lie in one feed of its run (fed 512 keys at a time), and a
 * second pass fed those two ranges alone finds both, as the sort has them
 * - also where the first range's read holds the start of the second's
 * (slabs hold both), met again when the second is read. */
static void shares_a_histogram_with_runs_apart(void **state)
{
	enum { N = 1500000, LO = 200000, HI = 800000 };
	uint64_t *keys = malloc(N * sizeof *keys), *order = malloc(N * sizeof *order);
	uint64_t from[2], to[2];
	ckpt_topk *t;
	ckpt_rank_cut lo, hi;

	(void)state;
	assert_true(keys && order);
	srand(13);
	for (size_t i = 0; i < N; i++) {
		uint64_t other = (uint64_t)rand() << 20 | (uint64_t)rand();

		keys[i] = i % 4 == 0   ? UINT64_C(1) << 53
		          : i % 4 != 3 ? UINT64_C(1) << 52
		                       : other % (UINT64_C(1) << 50);
		order[i] = i;
	}
	sort_keys = keys;
	qsort(order, N, sizeof *order, by_key_then_index);
	assert_non_null(t = ckpt_topk_new(1, N, LO, HI));
	ckpt_topk_sample(t, 0, keys, N / 16);
	ckpt_topk_guess(t);
	pass_piece = 512;
	assert_int_equal(pass_of(t, keys, N), 0);
	pass_piece = 4096;
	for (size_t r = 0; r < 2; r++) { /* (all first: a range read may end one) */
		assert_true(ckpt_topk_range(t, r, &from[r], &to[r]));
		assert_true(to[r] - from[r] <= 4096);
	}
	feed_span(t, keys, from[0], to[0]);
	feed_span(t, keys, from[1], order[HI]);
	feed_span(t, keys, from[1], to[1]);
	assert_int_equal(ckpt_topk_end_pass(t), 0);
	assert_false(ckpt_topk_more(t));
	ckpt_topk_cuts(t, 0, &lo, &hi);
	assert_true(lo.key == keys[order[LO]] && lo.index == order[LO]);
	assert_true(hi.key == keys[order[HI]] && hi.index == order[HI]);
	ckpt_topk_free(t);
	free(keys);
	free(order);
}

/* Guesses that miss their windows a little (a sample whose ranks lie 80000
 * off, beside windows of 132000), the histograms not fed beside: the next
 * pass also gathers beside each window where the keys' density in it puts
 * the boundary, and finds it there - two passes, not three; above the
 * windows and below them, against the sort. */
static void guesses_again_beside_a_near_miss(void **state)
{
	enum { N = 1500000, NS = 2000 };
	uint64_t *keys = malloc(N * sizeof *keys), *order = malloc(N * sizeof *order);
	uint64_t *sample = malloc(NS * sizeof *sample);

	(void)state;
	assert_true(keys && order && sample);
	srand(9);
	for (size_t i = 0; i < N; i++) {
		double d = (double)rand() / RAND_MAX * 4;

		memcpy(&keys[i], &d, sizeof d);
		order[i] = i;
	}
	sort_keys = keys;
	qsort(order, N, sizeof *order, by_key_then_index);
	for (long off = 80000; off >= -80000; off -= 160000) {
		for (long i = 0; i < NS; i++) {
			long r = i * 750 + off;

			sample[i] = keys[order[r < 0 ? 0 : r >= N ? N - 1 : r]];
		}
		assert_true(select_with_sample(keys, order, N, sample, NS, 300000, 600000) <= 2);
	}
	free(keys);
	free(order);
	free(sample);
}

/* Float32 values fed as such (keyed as fed): the same boundaries as
 * their keys', in every phase - a guess that holds the boundary, one
 * that misses, one whose window's keys overflow the room (a third of
 * them equal), histograms and candidates after it; the other boundary's
 * guess, tested with the same keys, unharmed by that overflow. */
static void selects_from_floats_as_from_their_keys(void **state)
{
	enum { N = 1500000 };
	uint64_t *keys = malloc(N * sizeof *keys), *order = malloc(N * sizeof *order);
	uint64_t *wrong = malloc(500 * sizeof *wrong);
	float *b = malloc(N * sizeof *b), *x = malloc(N * sizeof *x);

	(void)state;
	assert_true(keys && order && wrong && b && x);
	srand(12);
	for (size_t i = 0; i < N; i++) {
		b[i] = (float)rand() / (float)RAND_MAX * 8 - 4;
		x[i] = i % 3 == 0 ? b[i] + 0.5f : (float)rand() / (float)RAND_MAX * 8 - 4;
		keys[i] = ckpt_magnitude_key_f32(x[i], b[i]);
		assert_true(keys[i] == ckpt_magnitude_key(x[i], b[i]));
		order[i] = i;
	}
	sort_keys = keys;
	qsort(order, N, sizeof *order, by_key_then_index);
	feed_b = b;
	feed_x = x;
	select_with_sample(keys, order, N, NULL, 0, 1000, 300000);
	assert_int_equal(select_with_sample(keys, order, N, keys, N / 4, 1000, 300000), 1);
	select_with_sample(keys, order, N, keys, 500, 200000, 600000);
	for (size_t i = 0; i < 500; i++) /* (ranks 100000 below) */
		wrong[i] = keys[order[i * 2800 + 100000]];
	select_with_sample(keys, order, N, wrong, 500, 200000, 600000);
	for (size_t r = 0; r < N; r++) /* a boundary among the equal keys (the
	                                    * other's guess gathered beside it) */
		if (keys[order[r]] == keys[0]) {
			select_with_sample(keys, order, N, keys, N / 4, r + 5000, r + 5001);
			select_with_sample(keys, order, N, keys, N / 4, 1000, r + 5001);
			break;
		}
	feed_b = feed_x = NULL;
	free(keys);
	free(order);
	free(wrong);
	free(b);
	free(x);
}

/* The rank of the first key below `from` of a float key other than the
 * key's before it (the largest of its float key's). */
static size_t next_float_key(const uint64_t *keys, const uint64_t *order, size_t from)
{
	for (size_t r = from;; r++) {
		double a, b;

		memcpy(&a, &keys[order[r - 1]], sizeof a);
		memcpy(&b, &keys[order[r]], sizeof b);
		if ((float)a != (float)b)
			return r;
	}
}

/* Float32 values are tested by float keys, which round keys alike where
 * x - b has more bits than a float: x = 1 + i 2^-23 (i < 4) against b =
 * j 2^-40 (j < 1024) - a thousand keys for each float key, and more
 * elements of one than a window holds: boundaries with a window's least
 * or its largest key of their float key, or both; and keys past
 * the floats': NaNs of many payloads (more than the room: windows within
 * them), Inf, |x - b| above the largest float (3e38 - -3e38, float key
 * Inf) - the sort's elements, in one pass with a guess, narrowed or not. */
static void selects_floats_whose_keys_round_alike(void **state)
{
	enum { N = 1500000, BIG = 40, NANS = (N + 3) / 7 };
	uint64_t *keys = malloc(N * sizeof *keys), *order = malloc(N * sizeof *order);
	float *b = malloc(N * sizeof *b), *x = malloc(N * sizeof *x);
	size_t g, ranks[5][2];

	(void)state;
	assert_true(keys && order && b && x);
	srand(15);
	for (size_t i = 0; i < N; i++) {
		uint32_t nan = 0x7fc00000u | (uint32_t)(rand() % (1 << 22));

		b[i] = (float)(rand() % 1024) * 0x1p-40f;
		x[i] = 1 + (float)(rand() % 4) * 0x1p-23f;
		if (i % 7 == 3)
			memcpy(&x[i], &nan, sizeof nan);
		if (i % 1000 == 1 && i < 1000 * (size_t)BIG) {
			x[i] = i % 3000 == 1 ? 3e38f : i % 3000 == 1001 ? INFINITY : -INFINITY;
			b[i] = i % 3000 == 1 ? -3e38f : 2e38f;
		}
		keys[i] = ckpt_magnitude_key_f32(x[i], b[i]);
		order[i] = i;
	}
	sort_keys = keys;
	qsort(order, N, sizeof *order, by_key_then_index);
	g = next_float_key(keys, order, NANS + BIG + 10);
	memcpy(ranks, (size_t[5][2]){{5, NANS + 10}, {1000, NANS + 35}, {g + 20000, g + 160000},
	                             {g + 160000, g + 160001}, {NANS + 20, 900000}},
	       sizeof ranks);
	feed_b = b;
	feed_x = x;
	for (narrowing = 0; narrowing < 2; narrowing++)
		for (size_t r = 0; r < 5; r++)
			assert_int_equal(select_with_sample(keys, order, N, keys, N / 4, ranks[r][0],
			                                    ranks[r][1]),
			                 1);
	narrowing = 1;
	feed_b = feed_x = NULL;
	free(keys);
	free(order);
	free(b);
	free(x);
}

/* The selection between passes: c[k] the k-th by key (larger first), by
 * index among equal keys (lower first), and those before it all ranked
 * before it (the windows narrowed select within them); the k-th alone
 * (the boundaries' candidates), and several ranks with c left as it was
 * (the sample's guesses) - for keys spread widely, keys mostly equal,
 * and a few. */
static void selects_a_rank_and_those_before_it(void **state)
{
	enum { N = 20000 };
	struct candidate *c = malloc(N * sizeof *c);
	uint64_t *keys = malloc(N * sizeof *keys), *order = malloc(N * sizeof *order);

	(void)state;
	assert_true(c && keys && order);
	srand(14);
	for (int kind = 0; kind < 3; kind++) {
		size_t n = kind == 2 ? 13 : N;

		for (size_t i = 0; i < n; i++) {
			uint64_t r = (uint64_t)rand() << 31 ^ (uint64_t)rand();

			keys[i] = kind == 1 && i % 10 ? 77 : r >> (kind ? 50 : 1);
			order[i] = i;
		}
		sort_keys = keys;
		qsort(order, n, sizeof *order, by_key_then_index);
		for (size_t k = 0; k < n; k += kind == 2 ? 1 : 997) {
			for (size_t i = 0; i < n; i++) /* (indices unordered) */
				c[i] = (struct candidate){keys[(i * 7919) % n], (i * 7919) % n};
			ckpt_topk_select_rank(c, n, k);
			assert_true(c[k].index == order[k]);
			for (size_t i = 0; i < k; i++)
				assert_true(c[i].key > c[k].key ||
				            (c[i].key == c[k].key && c[i].index < c[k].index));
			for (size_t i = 0; i < n; i++)
				c[i] = (struct candidate){keys[(i * 7919) % n], (i * 7919) % n};
			assert_true(ckpt_topk_kth(c, n, k).index == order[k]);
		}
		for (size_t k = 0; k + 3 < n; k += kind == 2 ? 1 : 1231) {
			/* (ranks of one part, two equal, the last: c as it was) */
			size_t r[CKPT_TOPK_RANKS] = {k + 3, k, k, n - 1};
			struct candidate got[CKPT_TOPK_RANKS];

			for (size_t i = 0; i < n; i++)
				c[i] = (struct candidate){keys[(i * 7919) % n], (i * 7919) % n};
			assert_int_equal(ckpt_topk_ranks(c, n, r, CKPT_TOPK_RANKS, got), 0);
			for (int i = 0; i < CKPT_TOPK_RANKS; i++)
				assert_true(got[i].index == order[r[i]] && got[i].key == keys[order[r[i]]]);
			for (size_t i = 0; i < n; i++)
				assert_true(c[i].index == (i * 7919) % n);
		}
	}
	free(c);
	free(keys);
	free(order);
}

/* A guess's room is shared by the lanes: where the window's keys fit it,
 * the boundary is found in one pass, however unevenly the lanes met them
 * - here one lane nearly all of 187500 keys equal to the boundary's, more
 * than half the room (keys and float32 values fed). */
static void a_guess_room_is_shared_by_the_lanes(void **state)
{
	enum { N = 1500000 };
	uint64_t *keys = malloc(N * sizeof *keys), *order = malloc(N * sizeof *order);
	float *b = malloc(N * sizeof *b), *x = malloc(N * sizeof *x);
	size_t r = 0;

	(void)state;
	assert_true(keys && order && b && x);
	srand(13);
	for (size_t i = 0; i < N; i++) {
		b[i] = (float)(rand() % (1 << 23)) * 0x1p-20f - 4; /* (b + 0.5 exact) */
		x[i] = i % 8 == 0 ? b[i] + 0.5f : (float)rand() / (float)RAND_MAX * 8 - 4;
		keys[i] = ckpt_magnitude_key_f32(x[i], b[i]);
		order[i] = i;
	}
	sort_keys = keys;
	qsort(order, N, sizeof *order, by_key_then_index);
	while (keys[order[r]] != UINT64_C(0x3fe0000000000000))
		r++;
	uneven = 1;
	for (int f = 0; f < 2; f++) {
		feed_b = f ? b : NULL;
		feed_x = f ? x : NULL;
		assert_int_equal(select_with_sample(keys, order, N, keys, N / 4, 1000, r + 60000), 1);
	}
	uneven = 0;
	feed_b = feed_x = NULL;
	free(keys);
	free(order);
	free(b);
	free(x);
}

/* Keys all in one top digit (more than the room): the pass after it
 * histograms the next digit and gathers around where the group's counts
 * put the boundary by value - keys even within the group, found there (2
 * passes, not 3); keys crowded to one end of it (the guess misses), found
 * by the histogram, a pass later - the sort's elements either way. */
static void guesses_within_a_known_group(void **state)
{
	enum { N = 1500000 };
	uint64_t *keys = malloc(N * sizeof *keys), *order = malloc(N * sizeof *order);

	(void)state;
	assert_true(keys && order);
	srand(15);
	for (int crowded = 0; crowded < 2; crowded++) {
		for (size_t i = 0; i < N; i++) {
			double u = (double)rand() / ((double)RAND_MAX + 1);
			double d = 1 + 0.03 * (crowded ? u * u * u * u : u); /* ([1, 1 + 2^-5)) */

			memcpy(&keys[i], &d, sizeof d);
			order[i] = i;
		}
		sort_keys = keys;
		qsort(order, N, sizeof *order, by_key_then_index);
		if (!crowded)
			assert_int_equal(select_with_sample(keys, order, N, NULL, 0, 1000, 300000), 2);
		else
			assert_int_equal(select_with_sample(keys, order, N, NULL, 0, 1000, 1200000), 3);
	}
	free(keys);
	free(order);
}

/* Keys that change between passes (an input written meanwhile) are told
 * by the pass that meets them, never stored past the room the passes
 * before counted or looked for forever: more keys in a collected group,
 * another count of a histogrammed one, a key's index not met. */
static void feed_all(ckpt_topk *t, const uint64_t *keys, size_t n)
{
	for (size_t i = 0; i < n; i += pass_piece)
		ckpt_topk_feed(t, 0, 0, keys + i, i, n - i < pass_piece ? n - i : pass_piece);
}

static int pass_of(ckpt_topk *t, const uint64_t *keys, size_t n)
{
	feed_all(t, keys, n);
	return ckpt_topk_end_pass(t);
}

static void tells_keys_changed_between_passes(void **state)
{
	enum { N = 600000, R = 1000 };  /* (more than a boundary's room) */
	uint64_t *spread = malloc(N * sizeof *spread), *equal = malloc(N * sizeof *equal);
	uint64_t *dense = malloc(N * sizeof *dense), *mostly = malloc(N * sizeof *mostly);
	uint64_t *other = malloc(N * sizeof *other);
	ckpt_topk *t;

	(void)state;
	assert_true(spread && equal && dense && mostly && other);
	for (size_t i = 0; i < N; i++) {
		spread[i] = (uint64_t)i << 40;     /* (128 keys a top digit) */
		equal[i] = (uint64_t)(N - 1 - R) << 40;  /* (all in rank R's digit) */
		dense[i] = (UINT64_C(7) << 48) + i;      /* (all in one top digit) */
		mostly[i] = i < 10 ? (UINT64_C(9) << 48) + i : UINT64_C(7) << 48;
		other[i] = UINT64_C(5) << 40;
	}
	/* rank R's group of 128 collected, then met N times */
	assert_non_null(t = ckpt_topk_new(1, N, 0, R));
	assert_int_equal(pass_of(t, spread, N), 0);
	assert_true(ckpt_topk_more(t));
	assert_int_equal(pass_of(t, equal, N), CKPT_TOPK_CHANGED);
	ckpt_topk_free(t);
	/* a group of N keys histogrammed, then other keys */
	assert_non_null(t = ckpt_topk_new(1, N, 0, R));
	assert_int_equal(pass_of(t, dense, N), 0);
	assert_true(ckpt_topk_more(t));
	assert_int_equal(pass_of(t, other, N), CKPT_TOPK_CHANGED);
	ckpt_topk_free(t);
	/* the key known to its last bit (the least, of N - 10), its index
	 * looked for among others */
	assert_non_null(t = ckpt_topk_new(1, N, 0, R));
	assert_int_equal(pass_of(t, mostly, N), 0);
	assert_int_equal(ckpt_topk_lanes(t), 1);
	assert_int_equal(pass_of(t, other, N), CKPT_TOPK_CHANGED);
	ckpt_topk_free(t);
	free(spread);
	free(equal);
	free(dense);
	free(mostly);
	free(other);
}

static void draws_as_the_man_page_says(void **state)
{
	uint64_t key = ckpt_dare_key(42, "layer/w");

	(void)state;
	/* from tests/cli/methods/ref.py, written from ckpt-average(1) */
	assert_true(key == UINT64_C(0x1b6c5b0809336b84));
	assert_true(ckpt_dare_draw(key, 0, 0) == 0x1.ad0ad30edc390p-1);
	assert_true(ckpt_dare_draw(key, 1, 0) == 0x1.e92c4d0a7ccfbp-1);
	assert_true(ckpt_dare_draw(key, 0, 123456789) == 0x1.b714f2c9037d5p-1);
}

/* DARE keeps an element where its draw is below the density, in the block
 * step too: an element whose draw is the density is dropped, and kept
 * once the density is the next double above it (every other element as
 * its own draw says). */
static void keeps_draws_below_the_density_alone(void **state)
{
	enum { N = 300, AT = 100 };
	static float b[N], x[N], out[N];
	const void *in[2] = {b, x};
	double w[1] = {1};
	ckpt_dtype types[2] = {CKPT_F32, CKPT_F32};
	uint64_t key = ckpt_dare_key(42, "layer/w");

	(void)state;
	for (size_t i = 0; i < N; i++)
		x[i] = 1;
	for (int above = 0; above < 2; above++) {
		double d = ckpt_dare_draw(key, 0, AT), density = above ? nextafter(d, 1) : d;
		ckpt_method m = {.kind = CKPT_DARE_LINEAR, .nmodels = 1, .weights = w, .lambda = 1,
		                 .density = density, .divisor = 1};
		ckpt_mvar v = {.m = &m, .out = CKPT_F32, .types = types, .a = 1, .lambda = 1,
		               .dc = density, .nx = 1, .mask_key = key};

		assert_int_equal(ckpt_method_range(&v, in, out, 0, 0, N), 0);
		for (size_t i = 0; i < N; i++)
			assert_true(out[i] == (ckpt_dare_draw(key, 0, i) < density
			                           ? (float)(1 / density) : 0.0f));
		assert_true(out[AT] == (above ? (float)(1 / density) : 0.0f));
	}
}

/* The AVX2 row of DARE's mask (which this CPU may not take: it has
 * AVX-512) keeps what the draws say, from any start, for any length, the
 * density on a draw too. */
static void draws_rows_in_avx2_as_one_at_a_time(void **state)
{
#if CKPT_HAVE_FMA
	uint64_t key = ckpt_mix64(ckpt_dare_key(7, "w") + 1); /* (model 1's) */
	double keep[BLOCK], density[] = {0.5, 0.1, 0.9, 1, ckpt_dare_draw(ckpt_dare_key(7, "w"), 1, 1000)};
	uint64_t starts[] = {0, 1, 1000, (UINT64_C(1) << 40) + 3};

	(void)state;
	if (!__builtin_cpu_supports("avx2"))
		return;
	for (size_t d = 0; d < sizeof density / sizeof *density; d++)
		for (size_t j = 0; j < sizeof starts / sizeof *starts; j++)
			for (size_t m = BLOCK - 3; m <= BLOCK; m++) {
				uint64_t limit = (uint64_t)ceil(density[d] * 0x1p53);

				ckpt_dare_row_avx2(key, starts[j], m, limit, keep);
				for (size_t i = 0; i < m; i++) {
					uint64_t u = ckpt_mix64(key + (starts[j] + i + 1) *
					                                  UINT64_C(0x9e3779b97f4a7c15)) >> 11;

					assert_true(keep[i] == ((double)u * 0x1p-53 < density[d] ? 1 : 0));
				}
			}
#else
	(void)state;
#endif
}

static void windows_floor_exactly(void **state)
{
	ckpt_method m = {.kind = CKPT_TIES, .density = 0.3, .gamma = 0.01};
	uint64_t first, keep;

	(void)state;
	ckpt_method_window(&m, 10, &first, &keep); /* 0.3 * 10 is below 3 */
	assert_true(first == 0 && keep == 2);
	m.kind = CKPT_BREADCRUMBS;
	m.density = 0.5;
	m.gamma = 0.25;
	ckpt_method_window(&m, 8, &first, &keep);
	assert_true(first == 2 && keep == 4);
	m.gamma = 0.75; /* fewer large ones dropped, so that 4 remain */
	ckpt_method_window(&m, 8, &first, &keep);
	assert_true(first == 4 && keep == 4);
	m.density = 1;
	ckpt_method_window(&m, 8, &first, &keep);
	assert_true(first == 0 && keep == 8);
}

/* float32 task arithmetic at a tie: b + (x - b) / 2 exactly halfway. */
static void rounds_the_formula_once(void **state)
{
	float b[3] = {1.0f, 1.0f, 3.0f}, x[3] = {0x1.000002p0f, 0x1.000006p0f, 3.0f}, out[3];
	const void *in[2] = {b, x};
	double w = 1;
	ckpt_dtype types[2] = {CKPT_F32, CKPT_F32};
	ckpt_method m = {.kind = CKPT_TASK_ARITHMETIC, .nmodels = 1, .weights = &w,
	                 .lambda = 0.5, .density = 1, .normalize = 1, .divisor = 1};
	ckpt_mvar v = {.m = &m, .out = CKPT_F32, .types = types, .a = 1, .lambda = 0.5,
	               .dc = 1, .nx = 1};

	(void)state;
	assert_int_equal(ckpt_method_range(&v, in, out, 0, 0, 3), 0);
	assert_true(out[0] == 1.0f);           /* 1 + 2^-24: to even */
	assert_true(out[1] == 0x1.000004p0f);  /* 1 + 3 2^-24: to even, up */
	assert_true(out[2] == 3.0f && !signbit(out[2]));
	m.lambda = v.lambda = 1.0 / 3;         /* no ties: the window decides */
	assert_int_equal(ckpt_method_range(&v, in, out, 0, 0, 3), 0);
	assert_true(out[1] == (float)(1 + (0x1.000006p0 - 1) / 3));
}

/* SLERP's r = a x0 + lambda x1 (no exact constant: the bounded step) into
 * bfloat16 and float32, where it is exactly 0 (x1 = -x0, a = lambda; and
 * both 0) for a few elements of most blocks - their bounds round to zeros
 * of either sign: left to the exact step, the rest of the block stored -
 * and for all of one block (the general step), against the exact
 * result (+0 where it is 0). */
static void leaves_a_few_undecided_to_the_exact_step(void **state)
{
	enum { N = 4096 };
	static uint16_t h[2][N], hout[N];
	static float f[2][N], fout[N];
	const void *hin[2] = {h[0], h[1]}, *fin[2] = {f[0], f[1]};
	double w = 1;
	ckpt_dtype htypes[2] = {CKPT_BF16, CKPT_BF16}, ftypes[2] = {CKPT_F32, CKPT_F32};
	ckpt_method m = {.kind = CKPT_SLERP, .nmodels = 1, .weights = &w, .lambda = 1,
	                 .density = 1, .divisor = 1, .t = 0.5};
	ckpt_mvar v = {.m = &m, .out = CKPT_BF16, .types = htypes, .a = 0.6, .lambda = 0.6,
	               .dc = 1, .nx = 1};
	uint64_t z = 11;

	(void)state;
	for (size_t i = 0; i < N; i++)
		for (int k = 0; k < 2; k++) {
			z = z * 6364136223846793005u + 1442695040888963407u;
			h[k][i] = ckpt_double_to_bf16(ldexp((double)((int64_t)(z >> 33) - (1 << 30)),
			                                    -30 - (int)(i % 5)));
			h[k][i] = k && (i % 97 == 5 || (i >= 2048 && i < 2304)) ? h[0][i] ^ 0x8000
			                                                        : h[k][i];
			h[k][i] = i % 389 == 7 ? 0 : h[k][i];
			f[k][i] = (float)ckpt_bf16_to_double(h[k][i]);
		}
	assert_int_equal(ckpt_method_range(&v, hin, hout, 0, 0, N), 0);
	v.out = CKPT_F32;
	v.types = ftypes;
	assert_int_equal(ckpt_method_range(&v, fin, fout, 0, 0, N), 0);
	for (size_t i = 0; i < N; i++) {
		ckpt_big r, term, one;
		double odd;

		ckpt_big_set(&r, f[0][i]);
		ckpt_big_mul(&r, v.a);
		ckpt_big_set(&term, f[1][i]);
		ckpt_big_mul(&term, v.lambda);
		ckpt_big_add(&r, &term);
		ckpt_big_set(&one, 1);
		odd = ckpt_big_quotient(&r, &one, 1) + 0.0; /* (an exact 0: +0) */
		assert_int_equal(hout[i], ckpt_double_to_bf16(odd));
		assert_true(fout[i] == (float)odd && signbit(fout[i]) == signbit((float)odd));
	}
}

/* r = b + sum (x_k - b) / D for D = 3 and 1.5 (no power of two: the
 * exact step divides d r by d = 3), on float32 inputs of a coarse grid and
 * on ones whose result for D = 3 is exactly halfway between two float32
 * values, against the exact quotient. */
static void divides_by_odd_constants_exactly(void **state)
{
	enum { N = 4096, NX = 3 };
	static float in[NX + 1][N], out[N];
	const void *ptr[NX + 1];
	double w[NX] = {1, 1, 1}, dcs[2] = {3, 1.5};
	ckpt_dtype types[NX + 1] = {CKPT_F32, CKPT_F32, CKPT_F32, CKPT_F32};
	ckpt_method m = {.kind = CKPT_TASK_ARITHMETIC, .nmodels = NX, .weights = w,
	                 .lambda = 1, .density = 1, .divisor = 1};
	ckpt_mvar v = {.m = &m, .out = CKPT_F32, .types = types, .a = 1, .lambda = 1, .nx = NX};
	uint64_t z = 7;
	size_t ties = 0;

	(void)state;
	for (size_t k = 0; k <= NX; k++) {
		for (size_t i = 0; i < N; i++) { /* (2^24 odd steps of 2^-20, some scaled) */
			z = z * 6364136223846793005u + 1442695040888963407u;
			in[k][i] = ldexpf((float)((int64_t)(z >> 40) - (1 << 23)), i % 7 ? -20 : -40);
		}
		ptr[k] = in[k];
	}
	for (size_t i = 0; i < N; i += 2) { /* sum x_k = 3 m, m halfway: D = 3's ties */
		double m3 = 3 * (1 + (double)(2 * (i / 2 % 4096) + 1) * 0x1p-24);
		float x1 = 1 + (float)(i % 1000) * 0x1p-12f, x2 = (float)(m3 - 0.75 - x1);

		in[1][i] = x1;
		in[2][i] = x2;
		in[3][i] = (float)(m3 - x1 - x2);
		ties += in[3][i] == m3 - x1 - x2;
	}
	assert_true(ties > N / 4);
	for (int t = 0; t < 2; t++) {
		v.dc = dcs[t];
		assert_int_equal(ckpt_method_range(&v, ptr, out, 0, 0, N), 0);
		for (size_t i = 0; i < N; i++) {
			ckpt_big num, den, term;

			ckpt_big_set(&num, in[0][i]);
			ckpt_big_mul(&num, v.dc);
			for (size_t k = 1; k <= NX; k++) {
				ckpt_big_set(&term, in[k][i]);
				ckpt_big_add(&num, &term);
				ckpt_big_set(&term, in[0][i]);
				ckpt_big_sub(&num, &term);
			}
			ckpt_big_set(&den, v.dc);
			assert_true(out[i] == (float)ckpt_big_quotient(&num, &den, 1));
		}
	}
}

/* TIES' election where the weighted sum is exactly 0 elects +: only the
 * positive task vector agrees (float32 in and out, and float64). */
static void elects_plus_on_a_zero_sum(void **state)
{
	float b[2] = {1, 1}, x1[2] = {1.5f, 2}, x2[2] = {0.5f, 0}, out[2];
	double b64[2] = {1, 1}, y1[2] = {1.5, 2}, y2[2] = {0.5, 0}, out64[2], w[2] = {1, 1};
	const void *in[3] = {b, x1, x2}, *in64[3] = {b64, y1, y2};
	ckpt_dtype types[3] = {CKPT_F32, CKPT_F32, CKPT_F32};
	ckpt_dtype types64[3] = {CKPT_F64, CKPT_F64, CKPT_F64};
	ckpt_method m = {.kind = CKPT_DARE_TIES, .nmodels = 2, .weights = w, .lambda = 1,
	                 .density = 1, .normalize = 1, .divisor = 1};
	ckpt_mvar v = {.m = &m, .out = CKPT_F32, .types = types, .a = 1, .lambda = 1, .dc = 1,
	               .nx = 2};

	(void)state;
	assert_int_equal(ckpt_method_range(&v, in, out, 0, 0, 2), 0);
	assert_true(out[0] == 1.5f && out[1] == 2);
	v.out = CKPT_F64;
	v.types = types64;
	assert_int_equal(ckpt_method_range(&v, in64, out64, 0, 0, 2), 0);
	assert_true(out64[0] == 1.5 && out64[1] == 2);
}

/* TIES' election and mean for 1 to 6 models of unequal weights (the
 * float32 step has a loop per count up to 4 and one for more), by sum and
 * by count, and task arithmetic, against the exact result: inputs on a
 * grid of 2^-12, within the exact span, many task vectors 0. */
static void elects_for_any_number_of_models(void **state)
{
	enum { N = 1024, MOST = 6 };
	static float in[MOST + 1][N], out[N];
	const void *ptr[MOST + 1];
	double w[MOST] = {1, 0.5, 2, 0.25, 1.5, 0.75};
	ckpt_dtype types[MOST + 1];
	uint64_t z = 11;

	(void)state;
	for (size_t k = 0; k <= MOST; k++) {
		for (size_t i = 0; i < N; i++) {
			z = z * 6364136223846793005u + 1442695040888963407u;
			in[k][i] = k && z >> 62 == 0 ? in[0][i]
			                             : ldexpf((float)((int64_t)(z >> 50) - 8192), -12);
		}
		ptr[k] = in[k];
		types[k] = CKPT_F32;
	}
	for (size_t nx = 1; nx <= MOST; nx++)
		for (int way = 0; way < 3; way++) { /* elect by sum, by count; none */
			ckpt_method m = {.kind = way < 2 ? CKPT_DARE_TIES : CKPT_TASK_ARITHMETIC,
			                 .nmodels = nx, .weights = w, .lambda = 1, .density = 1,
			                 .sign_count = way == 1, .normalize = 1, .divisor = 1};
			ckpt_mvar v = {.m = &m, .out = CKPT_F32, .types = types, .a = 1, .lambda = 1,
			               .dc = 1, .nx = nx};

			assert_int_equal(ckpt_method_range(&v, ptr, out, 0, 0, N), 0);
			for (size_t i = 0; i < N; i++) {
				double b = in[0][i], e = 0, s = 0, sw = 0;
				ckpt_big num, den, term;

				for (size_t k = 0; k < nx; k++) {
					double t = in[k + 1][i] - b;

					e += way == 1 ? (double)((t > 0) - (t < 0)) : w[k] * t; /* (exact) */
				}
				for (size_t k = 0; k < nx; k++) {
					double t = in[k + 1][i] - b;

					if (way == 2 || (t != 0 && (t > 0) == (e >= 0))) {
						s += w[k] * t;
						sw += w[k];
					}
				}
				if (way == 2)
					sw = 1;
				if (sw == 0) {
					assert_true(out[i] == (float)b);
					continue;
				}
				ckpt_big_set(&num, b);
				ckpt_big_mul(&num, sw);
				ckpt_big_set(&term, s);
				ckpt_big_add(&num, &term);
				ckpt_big_set(&den, sw);
				assert_true(out[i] == (float)ckpt_big_quotient(&num, &den, 1));
			}
		}
}

/* r = (a D b + lambda S) / D exactly, rounded to odd: S the kept models'
 * weighted task vectors (where it elects, those agreeing with the sign of
 * their sum or count, + on 0), D dc (times the agreeing weights where
 * normalised; a b where none agree). */
static double formula_exactly(const ckpt_mvar *v, const double *in, const int *keep)
{
	const ckpt_method *m = v->m;
	int elects = ckpt_method_elects(m->kind), up;
	ckpt_big e, num, den, term, b;
	long votes = 0;

	ckpt_big_set(&e, 0);
	ckpt_big_set(&num, 0);
	ckpt_big_set(&den, 0);
	for (int pass = 0; pass < 2; pass++) {
		up = m->sign_count ? votes >= 0 : ckpt_big_sign(&e) >= 0;
		for (size_t k = 0; k < v->nx; k++) {
			double t = in[k + 1] - in[0]; /* (its sign exact) */
			int sign = ((m->weights[k] > 0) - (m->weights[k] < 0)) * ((t > 0) - (t < 0));

			if (!keep[k] || (pass && elects && (sign == 0 || (sign > 0) != up)))
				continue;
			ckpt_big_set(&term, in[k + 1]);
			ckpt_big_set(&b, in[0]);
			ckpt_big_sub(&term, &b);
			ckpt_big_mul(&term, m->weights[k]);
			ckpt_big_add(pass ? &num : &e, &term);
			votes += pass ? 0 : sign;
			ckpt_big_set(&term, m->weights[k]);
			if (pass)
				ckpt_big_add(&den, &term);
		}
	}
	if (!elects || !m->normalize || ckpt_big_sign(&den) == 0)
		ckpt_big_set(&den, 1);
	ckpt_big_mul(&den, v->dc);
	ckpt_big_mul(&num, v->lambda);
	b = den;
	ckpt_big_mul(&b, in[0]);
	ckpt_big_mul(&b, v->a);
	ckpt_big_add(&num, &b);
	return ckpt_big_quotient(&num, &den, 1) + 0.0;
}

/* TIES with weights of no power of two's multiples (0.3, 0.3, 0.4: no
 * element exact as such), where the two of one weight agree and the third
 * not: their mean, on a tie of the stored type for half of them (float32,
 * and bfloat16 in and out), beside elements where weights differ in the
 * agreeing set and where one model agrees alone; against the exact
 * result. */
static void decides_ties_of_agreeing_equal_weights(void **state)
{
	enum { N = 4096, NX = 3 };
	static double d[NX + 1][N];
	static float f[NX + 1][N], fout[N];
	static uint16_t h[NX + 1][N], hout[N];
	const void *fin[NX + 1], *hin[NX + 1];
	double w[NX] = {0.3, 0.3, 0.4};
	int kept[NX] = {1, 1, 1};
	ckpt_dtype ftypes[NX + 1], htypes[NX + 1];
	ckpt_method m = {.kind = CKPT_DARE_TIES, .nmodels = NX, .weights = w, .lambda = 1,
	                 .density = 1, .normalize = 1, .divisor = 1};
	ckpt_mvar v = {.m = &m, .types = ftypes, .a = 1, .lambda = 1, .dc = 1, .nx = NX};
	uint64_t z = 5;
	size_t ties = 0;

	(void)state;
	for (int bits = 23; bits >= 7; bits -= 16) { /* float32's places, bfloat16's */
		for (size_t i = 0; i < N; i++) {
			double r[NX + 1], pick;

			for (size_t k = 0; k <= NX; k++) { /* [1, 2) on the type's grid */
				z = z * 6364136223846793005u + 1442695040888963407u;
				r[k] = 1 + ldexp((double)(z >> (64 - bits)), -bits);
			}
			d[0][i] = r[0] / 2; /* the base in [0.5, 1): below every x */
			pick = (double)(i % 4);
			for (size_t k = 1; k <= NX; k++) /* the ones that disagree: below b */
				d[k][i] = r[k];
			if (pick == 0 || pick == 1)
				d[3][i] = d[0][i] - ldexp(1, -bits - 1);
			else if (pick == 2)
				d[2][i] = d[0][i] - ldexp(1, -bits - 1);
			else
				d[1][i] = d[2][i] = d[0][i] - ldexp(1, -bits - 1);
			ties += pick < 2 && bits == 23 && fmod(d[1][i] + d[2][i], ldexp(1, -22)) != 0;
		}
		for (size_t k = 0; k <= NX; k++) {
			for (size_t i = 0; i < N; i++) {
				f[k][i] = (float)d[k][i];
				h[k][i] = ckpt_double_to_bf16(d[k][i]);
				assert_true(f[k][i] == d[k][i]);
			}
			fin[k] = f[k];
			hin[k] = h[k];
			ftypes[k] = CKPT_F32;
			htypes[k] = CKPT_BF16;
		}
		v.out = CKPT_F32;
		v.types = ftypes;
		assert_int_equal(ckpt_method_range(&v, fin, fout, 0, 0, N), 0);
		v.out = CKPT_BF16;
		v.types = htypes;
		assert_int_equal(bits == 7 ? ckpt_method_range(&v, hin, hout, 0, 0, N) : 0, 0);
		for (size_t i = 0; i < N; i++) {
			double in[NX + 1], odd;

			for (size_t k = 0; k <= NX; k++)
				in[k] = d[k][i];
			odd = formula_exactly(&v, in, kept);
			assert_true(fout[i] == (float)odd);
			if (bits == 7)
				assert_int_equal(hout[i], ckpt_double_to_bf16(odd));
		}
	}
	assert_true(ties > N / 8);
}

/* Elections where no element is exact (weights 0.3, 0.3, 0.4 and others
 * of many bits: the float32 step's bounded election): 1 to 5 models, by
 * sum and by count, normalised and not (negative weights too), float32,
 * bfloat16 and float16 in and out, values spread over 2^40, ties and
 * zeros among the task vectors, a block with a NaN and one with an
 * infinity; against the exact result. */
static void bounds_elections_of_fine_weights(void **state)
{
	enum { N = 2048, MOST = 5 };
	static const ckpt_dtype types[] = {CKPT_F32, CKPT_BF16, CKPT_F16};
	static double d[MOST + 1][N];
	static unsigned char raw[MOST + 1][N * 4], got[N * 4], want[4];
	const void *in[MOST + 1];
	ckpt_dtype ty[MOST + 1];
	int kept[MOST] = {1, 1, 1, 1, 1};
	uint64_t z = 77;

	(void)state;
	for (int round = 0; round < 48; round++) {
		ckpt_dtype t = types[round % 3];
		size_t nx = 1 + (size_t)(round / 3) % MOST, es = ckpt_dtype_size(t);
		int count = round / 15 % 2, normalised = round % 4 != 3;
		double w[MOST] = {0.3, 0.3, 0.4, 0.7, 0.1};
		ckpt_method m = {.kind = CKPT_DARE_TIES, .nmodels = nx, .weights = w, .lambda = 1,
		                 .density = 1, .sign_count = count, .normalize = normalised,
		                 .divisor = 1};
		ckpt_mvar v = {.m = &m, .out = t, .types = ty, .a = 1, .lambda = 1, .dc = 1, .nx = nx};
		int spread = t == CKPT_F16 ? 8 : 40, bits = round % 2 ? 3 : t == CKPT_F32 ? 24 : 8;

		if (!normalised)
			w[1] = -0.3;
		for (size_t k = 0; k <= nx; k++) {
			for (size_t i = 0; i < N; i++) {
				z = z * 6364136223846793005u + 1442695040888963407u;
				d[k][i] = ldexp((double)((int64_t)(z >> (64 - bits)) - (1 << (bits - 1))),
				                (int)(z >> 20 & 1023) % spread - spread / 2);
				if (k && z >> 61 == 0)
					d[k][i] = d[0][i]; /* t = 0 */
			}
			if (k == 1 && round % 8 == 5)
				d[k][300] = NAN, d[k][900] = INFINITY;
			ckpt_from_double(t, d[k], raw[k], N);
			ckpt_to_double(t, raw[k], d[k], N);
			in[k] = raw[k];
			ty[k] = t;
		}
		assert_int_equal(ckpt_method_range(&v, in, got, 0, 0, N), 0);
		for (size_t i = 0; i < N; i++) {
			double x[MOST + 1], r;

			for (size_t k = 0; k <= nx; k++)
				x[k] = d[k][i];
			if (!isfinite(x[1])) { /* (the formula in double) */
				ckpt_to_double(t, got + i * es, &r, 1);
				assert_true(isnan(x[1]) ? isnan(r) : !isfinite(r));
				continue;
			}
			r = formula_exactly(&v, x, kept);
			ckpt_from_double(t, &r, want, 1);
			assert_memory_equal(got + i * es, want, es);
		}
	}
}

/* Whether element i, of magnitude key, ranks in the window [lo, hi):
 * method.h's rule, from its words. */
static int ranks_within(const ckpt_rank_cut *lo, const ckpt_rank_cut *hi, uint64_t key,
                        uint64_t i)
{
	int below_hi = hi->all || key > hi->key || (key == hi->key && i < hi->index);
	int below_lo = lo->all || key > lo->key || (key == lo->key && i < lo->index);

	return below_hi && !below_lo;
}

/* Magnitude windows, by TIES (elected by sum, by count) and breadcrumbs,
 * for 1 to 6 models, against the exact result: blocks where the windows
 * are keys alone (the float32 step tests them in its one loop), blocks
 * holding a cut's index (the keep rows), a block with a value of 2^100
 * (not within the exact span: bounded, or the general step), on a grid
 * coarse enough that keys equal to a cut's are many. */
static void keeps_the_magnitude_windows_in_every_step(void **state)
{
	enum { N = 1024, MOST = 6 };
	static float in[MOST + 1][N], out[N];
	const void *ptr[MOST + 1];
	double w[MOST] = {1, 0.5, 2, 0.25, 1.5, 0.75};
	ckpt_dtype types[MOST + 1];
	ckpt_rank_cut lo[MOST], hi[MOST];
	uint64_t z = 5;

	(void)state;
	for (size_t k = 0; k <= MOST; k++) {
		for (size_t i = 0; i < N; i++) {
			z = z * 6364136223846793005u + 1442695040888963407u;
			in[k][i] = k && z >> 62 == 0 ? in[0][i]
			                             : ldexpf((float)((int64_t)(z >> 58) - 32), -4);
			in[k][i] = i == 1000 ? 0x1p100f : in[k][i];
		}
		ptr[k] = in[k];
		types[k] = CKPT_F32;
	}
	for (size_t k = 0; k < MOST; k++) { /* (blocks 0 and 2 plain, 1 and 3 not) */
		lo[k] = (ckpt_rank_cut){ckpt_magnitude_key(0.75 + 0.0625 * (double)k, 0), 300, 0};
		hi[k] = (ckpt_rank_cut){ckpt_magnitude_key(0.125, 0), 900 + k, 0};
	}
	for (size_t nx = 1; nx <= MOST; nx++)
		for (int way = 0; way < 3; way++) { /* elect by sum, by count; none */
			ckpt_method m = {.kind = way < 2 ? CKPT_TIES : CKPT_BREADCRUMBS,
			                 .nmodels = nx, .weights = w, .lambda = 1, .density = 1,
			                 .sign_count = way == 1, .normalize = 1, .divisor = 1};
			ckpt_mvar v = {.m = &m, .out = CKPT_F32, .types = types, .a = 1, .lambda = 1,
			               .dc = 1, .nx = nx, .lo = lo, .hi = hi};

			assert_int_equal(ckpt_method_range(&v, ptr, out, 0, 0, N), 0);
			for (size_t i = 0; i < N; i++) {
				double b = in[0][i], e = 0, s = 0, sw = 0;
				int keep[MOST];
				ckpt_big num, den, term;

				for (size_t k = 0; k < nx; k++) {
					double t = in[k + 1][i] - b;
					uint64_t key = ckpt_magnitude_key(in[k + 1][i], b);

					keep[k] = ranks_within(&lo[k], &hi[k], key, i);
					e += !keep[k] ? 0 : way == 1 ? (double)((t > 0) - (t < 0)) : w[k] * t;
				}
				for (size_t k = 0; k < nx; k++) {
					double t = in[k + 1][i] - b;

					if (keep[k] && (way == 2 || (t != 0 && (t > 0) == (e >= 0)))) {
						s += w[k] * t;
						sw += w[k];
					}
				}
				sw = way == 2 ? 1 : sw;
				if (sw == 0) {
					assert_true(out[i] == (float)b);
					continue;
				}
				ckpt_big_set(&num, b);
				ckpt_big_mul(&num, sw);
				ckpt_big_set(&term, s);
				ckpt_big_add(&num, &term);
				ckpt_big_set(&den, sw);
				assert_true(out[i] == (float)ckpt_big_quotient(&num, &den, 1));
			}
		}
}

/* Plain double arithmetic's bound counts the terms' sizes, not their sum:
 * task vectors 2^40 - 2^-20 and -2^40 - 2^-20 (each rounded in double)
 * cancel to 0 there, and r = b + (1/3) S (lambda of many bits: no exact
 * step) is exactly 2^-20 / 3, not b = 2^-20 - for 2 models (the loop for
 * a few) and 5 (a model at a time: the other three equal to the base). */
static void bounds_cancelling_terms_by_their_sizes(void **state)
{
	enum { MOST = 5 };
	float b = 0x1p-20f, x[MOST] = {0x1p40f, -0x1p40f, 0x1p-20f, 0x1p-20f, 0x1p-20f}, out;
	const void *in[MOST + 1] = {&b, &x[0], &x[1], &x[2], &x[3], &x[4]};
	double w[MOST] = {1, 1, 1, 1, 1};
	ckpt_dtype types[MOST + 1] = {CKPT_F32, CKPT_F32, CKPT_F32, CKPT_F32, CKPT_F32, CKPT_F32};

	(void)state;
	for (size_t nx = 2; nx <= MOST; nx += MOST - 2) {
		ckpt_method m = {.kind = CKPT_TASK_ARITHMETIC, .nmodels = nx, .weights = w,
		                 .lambda = 1.0 / 3, .density = 1, .divisor = 1};
		ckpt_mvar v = {.m = &m, .out = CKPT_F32, .types = types, .a = 1,
		               .lambda = 1.0 / 3, .dc = 1, .nx = nx};

		assert_int_equal(ckpt_method_range(&v, in, &out, 0, 0, 1), 0);
		assert_true(out == (float)(0x1p-20 / 3));
	}
}

/* Whether model k keeps element i: its DARE draw, its magnitude window. */
static int keeps(const ckpt_mvar *v, size_t k, uint64_t i, double x, double b)
{
	if (ckpt_method_random(v->m->kind))
		return ckpt_dare_draw(v->mask_key, k, i) < v->m->density;
	if (ckpt_method_ranks(v->m->kind))
		return ranks_within(&v->lo[k], &v->hi[k], ckpt_magnitude_key(x, b), i);
	return 1;
}

enum { LANES_N = 8 * BLOCK, LANES_MOST = 4 };

/* Inputs for the float lanes, by block: values of a few bits (every
 * element within the bounds); five of 2^-20 (past the span: the exact
 * step takes them); forty of them (the block goes to the double steps);
 * values of 7 bits over 2^12; eight elements of values near the type's
 * largest; zeros of either sign; a NaN and an infinity; a few bits
 * again.  A quarter of the task vectors are 0. */
static void lanes_inputs(double d[][LANES_N], size_t nx, double largest, uint64_t z)
{
	for (size_t k = 0; k <= nx; k++)
		for (size_t i = 0; i < LANES_N; i++) {
			size_t blk = i / BLOCK, j = i % BLOCK;
			int sign;

			z = z * 6364136223846793005u + 1442695040888963407u;
			sign = z >> 63 ? -1 : 1;
			d[k][i] = sign * ldexp((double)(z >> 60 & 7), -3);
			if (blk == 4)
				d[k][i] = sign * ldexp((double)(z >> 57 & 127), -(int)((z >> 20) % 12));
			if (blk == 5 && j % 32 == 7)
				d[k][i] = sign * largest * (double)(4 + (z >> 62)) / 8;
			if (blk == 6)
				d[k][i] = (z >> 62 & 1) ? sign * 0.125 : sign * 0.0;
			if (k && (z >> 58) % 4 == 0)
				d[k][i] = d[0][i];
			if (k == 1 && ((blk == 2 && j % 50 == 3) || (blk == 3 && j % 6 == 1)))
				d[k][i] = 0x1p-20;
		}
	d[1][7 * BLOCK + 9] = NAN;
	d[nx][7 * BLOCK + 99] = INFINITY;
}

/* bfloat16 and float16 inputs take float32 lanes where every element is
 * exact in float (mfloat.c): every way of electing or none, keeps from
 * windows (plain ones and rows), from DARE's draws and none, 1 to 4
 * models, float32, bfloat16 and float16 out, against the exact result
 * rounded once; NaN and infinite inputs as the float32 inputs' step has
 * them.  The setup finds the lanes on for each, and the block step
 * decides a block within the bounds (1), leaves a few undecided (2, as
 * hard) and refuses more (0). */
static void computes_16_bit_floats_in_float_lanes(void **state)
{
	static const ckpt_dtype narrow[] = {CKPT_BF16, CKPT_F16};
	static const ckpt_dtype outs[] = {CKPT_F32, CKPT_BF16, CKPT_F16};
	static const ckpt_method_kind kinds[] = {CKPT_TASK_ARITHMETIC, CKPT_TIES, CKPT_TIES,
	                                         CKPT_BREADCRUMBS, CKPT_DARE_TIES,
	                                         CKPT_DARE_LINEAR};
	static double d[LANES_MOST + 1][LANES_N];
	static uint16_t h[LANES_MOST + 1][LANES_N];
	static float f[LANES_MOST + 1][LANES_N];
	static unsigned char got[LANES_N * 4], ref[LANES_N * 4], want[4];
	const void *hin[LANES_MOST + 1], *fin[LANES_MOST + 1];
	double w[LANES_MOST] = {1, 0.5, 2, 0.25};
	ckpt_dtype htypes[LANES_MOST + 1], ftypes[LANES_MOST + 1];
	ckpt_rank_cut lo[LANES_MOST], hi[LANES_MOST];
	struct mfloat fl;
	size_t total = 0;
	int round = 0;

	(void)state;
	for (size_t k = 0; k < LANES_MOST; k++) { /* (blocks 1 and 5 hold a cut) */
		lo[k] = (ckpt_rank_cut){ckpt_magnitude_key(1 + 0.125 * (double)k, 0), 300 + k, 0};
		hi[k] = (ckpt_rank_cut){ckpt_magnitude_key(0.25, 0), 5 * BLOCK + 7 + 32 * k, 0};
	}
	for (size_t ti = 0; ti < 2; ti++)
		for (size_t nx = 1; nx <= LANES_MOST; nx++) {
			ckpt_dtype t = narrow[ti];

			lanes_inputs(d, nx, t == CKPT_BF16 ? 0x1p127 : 0x1p15, 40 + nx + 10 * ti);
			for (size_t k = 0; k <= nx; k++) {
				ckpt_from_double(t, d[k], h[k], LANES_N);
				ckpt_to_double(t, h[k], d[k], LANES_N);
				for (size_t i = 0; i < LANES_N; i++)
					f[k][i] = (float)d[k][i];
				hin[k] = h[k];
				fin[k] = f[k];
				htypes[k] = t;
				ftypes[k] = CKPT_F32;
			}
			for (size_t mi = 0; mi < sizeof kinds / sizeof *kinds; mi++)
				for (size_t oi = 0; oi < 3; oi++, round++) {
					double density = ckpt_method_random(kinds[mi]) ? 0.5 : 1;
					ckpt_method m = {.kind = kinds[mi], .nmodels = nx, .weights = w,
					                 .lambda = round % 2 ? 0.75 : 1, .density = density,
					                 .sign_count = mi == 2, .normalize = round % 5 != 4,
					                 .divisor = 1};
					ckpt_mvar v = {.m = &m, .out = outs[oi], .types = htypes,
					               .mask_key = ckpt_dare_key(9, "w"), .lo = lo, .hi = hi,
					               .a = 1, .lambda = m.lambda, .dc = density, .nx = nx};
					size_t es = ckpt_dtype_size(v.out), bad = 0;

					ckpt_mfloat_setup(&v, &fl);
					assert_true(fl.on);
					size_t over = ckpt_method_range(&v, hin, got, 0, 0, LANES_N);

					v.types = ftypes;
					assert_int_equal(ckpt_method_range(&v, fin, ref, 0, 0, LANES_N), over);
					for (size_t i = 0; i < LANES_N; i++) {
						double x[LANES_MOST + 1], r;
						int keep[LANES_MOST], special = 0;

						for (size_t k = 0; k <= nx; k++) {
							x[k] = d[k][i];
							special |= !isfinite(x[k]);
						}
						if (special) {
							assert_memory_equal(got + i * es, ref + i * es, es);
							continue;
						}
						for (size_t k = 0; k < nx; k++)
							keep[k] = keeps(&v, k, i, x[k + 1], x[0]);
						r = formula_exactly(&v, x, keep);
						bad += ckpt_from_double(v.out, &r, want, 1);
						assert_memory_equal(got + i * es, want, es);
					}
					assert_true(bad <= over && over <= bad + 2); /* (and the specials') */
					total += bad;
				}
		}
	assert_true(total > 0); /* (task arithmetic past bfloat16's largest) */
}

/* DARE's keeps drawn in the fused loops (where the CPU can) are the
 * rows' (drawn first, as elsewhere): DARE-linear and DARE-TIES by sum and
 * by count, 1 to 5 models (5: past the fused loops), float32 and bfloat16,
 * densities 0.5 (exact blocks) and 0.3 (none: the bounded steps, which
 * take the rows), blocks within the span, past it and a few past it (the
 * exact step, taking the rows), from a start that is no block's; the
 * same bits either way, the exact result rounded once.  A draw on the
 * limit is dropped (keeps_draws_below_the_density_alone()'s, whose
 * densities make no block exact). */
static void draws_in_the_loops_as_in_the_rows(void **state)
{
	static const ckpt_dtype types[] = {CKPT_F32, CKPT_BF16};
	static const ckpt_method_kind kinds[] = {CKPT_DARE_LINEAR, CKPT_DARE_TIES,
	                                         CKPT_DARE_TIES};
	static const double densities[] = {0.5, 0.3};
	enum { NX = LANES_MOST + 1, START = 1000003 };
	static double d[NX + 1][LANES_N];
	static unsigned char in[NX + 1][LANES_N * 4], got[LANES_N * 4], rows[LANES_N * 4];
	const void *pin[NX + 1];
	double w[NX] = {1, 0.5, 2, 0.25, 1};
	ckpt_dtype tv[NX + 1];
	unsigned char want[4];
	uint64_t z = ckpt_mix64(ckpt_dare_key(5, "w")) + (START + 1) * UINT64_C(0x9e3779b97f4a7c15);

	(void)state;
	for (uint64_t i = 0; i < 100; i++) { /* (a draw on the limit is dropped) */
		uint64_t u = (uint64_t)ldexp(ckpt_dare_draw(ckpt_dare_key(5, "w"), 0, START + i), 53);

		assert_true(draw_keep(z, i, u) == 0 && draw_keep(z, i, u + 1) == 1);
	}
	for (size_t ti = 0; ti < 2; ti++)
		for (size_t nx = 1; nx <= NX; nx++) {
			ckpt_dtype t = types[ti];
			size_t es = ckpt_dtype_size(t);

			lanes_inputs(d, nx < LANES_MOST ? nx : LANES_MOST, 0x1p127, 70 + nx + 10 * ti);
			for (size_t i = 0; nx == NX && i < LANES_N; i++)
				d[NX][i] = d[1][(i * 7) % LANES_N];
			for (size_t k = 0; k <= nx; k++) {
				ckpt_from_double(t, d[k], in[k], LANES_N);
				ckpt_to_double(t, in[k], d[k], LANES_N);
				pin[k] = in[k];
				tv[k] = t;
			}
			for (size_t mi = 0; mi < sizeof kinds / sizeof *kinds; mi++)
				for (size_t di = 0; di < 2; di++) {
					ckpt_method m = {.kind = kinds[mi], .nmodels = nx, .weights = w,
					                 .lambda = 1, .density = densities[di],
					                 .sign_count = mi == 2, .normalize = 1,
					                 .divisor = 1};
					ckpt_mvar v = {.m = &m, .out = t, .types = tv,
					               .mask_key = ckpt_dare_key(5, "w"), .a = 1,
					               .lambda = 1, .dc = m.density, .nx = nx};
					size_t over;

					ckpt_mblock_draw_in_loops(0);
					over = ckpt_method_range(&v, pin, rows, START, 0, LANES_N);
					ckpt_mblock_draw_in_loops(1);
					assert_int_equal(ckpt_method_range(&v, pin, got, START, 0, LANES_N),
					                 over);
					assert_memory_equal(got, rows, LANES_N * es);
					for (size_t i = 0; i < LANES_N; i++) {
						double x[NX + 1], r;
						int keep[NX], special = 0;

						for (size_t k = 0; k <= nx; k++) {
							x[k] = d[k][i];
							special |= !isfinite(x[k]);
						}
						if (special)
							continue;
						for (size_t k = 0; k < nx; k++)
							keep[k] = keeps(&v, k, START + i, x[k + 1], x[0]);
						r = formula_exactly(&v, x, keep);
						ckpt_from_double(t, &r, want, 1);
						assert_memory_equal(got + i * es, want, es);
					}
				}
		}
}

/* The float lanes' bounds, on one block of task arithmetic (bfloat16 in
 * and out): every element within them, the block stored (1); an element
 * span fields below the base's is within, one further not, nor a
 * subnormal: those undecided (hard, 2); FEW_UNDECIDED + 1 of them, the
 * block refused (0); a D of 14 odd bits for bfloat16 out and not for
 * float16 (d < 2^(24 - p_o)).  And TIES of a weight 2^-30, where the least input
 * field is lmin = p - E - 23 = 15 (G = 2^-149): an input of 8 bits at that
 * field is within (its product by the weight a float), one a field below
 * is not; the results exact either way. */
static void bounds_the_float_lanes_as_documented(void **state)
{
	static float b[BLOCK], x[BLOCK];
	static uint16_t out[BLOCK], h[2][BLOCK];
	const float *in[2] = {b, x};
	double w = 1;
	ckpt_dtype types[2] = {CKPT_BF16, CKPT_BF16};
	ckpt_method m = {.kind = CKPT_TASK_ARITHMETIC, .nmodels = 1, .weights = &w, .lambda = 1,
	                 .density = 1, .normalize = 1, .divisor = 1};
	ckpt_mvar v = {.m = &m, .out = CKPT_BF16, .types = types, .a = 1, .lambda = 1, .dc = 1,
	               .nx = 1};
	struct scratch *s = calloc(1, sizeof *s);
	size_t bad = 0;
	int span;

	(void)state;
	assert_non_null(s);
	for (size_t i = 0; i < BLOCK; i++) {
		s->ones[i] = 1;
		b[i] = 1 + (float)(i % 8) / 8;
		x[i] = (float)(i % 5) / 4 - 0.5f;
	}
	ckpt_mfloat_setup(&v, &s->fl);
	assert_true(s->fl.on && s->fl.lmin == 1);
	span = s->fl.span;
	assert_int_equal(span, 22 - 10); /* (C = M 2^8, M = |a| D + 2 |lambda| W = 3) */
	assert_int_equal(ckpt_mfloat(&v, s, in, out, BLOCK, 0, NULL, NULL, &bad), 1);
	for (size_t i = 0; i < BLOCK; i++)
		assert_int_equal(out[i], ckpt_double_to_bf16(x[i]));
	x[10] = ldexpf(1, -span);
	x[20] = ldexpf(1, -span - 1);
	x[30] = 0x1p-130f;
	assert_int_equal(ckpt_mfloat(&v, s, in, out, BLOCK, 0, NULL, NULL, &bad), 2);
	for (size_t i = 0; i < BLOCK; i++) {
		assert_true(s->hard[i] == (i == 20 || i == 30));
		assert_int_equal(out[i], s->hard[i] != 0 ? 0 : ckpt_double_to_bf16(x[i]));
	}
	for (size_t i = 0; i < FEW_UNDECIDED + 1; i++)
		x[40 + i] = ldexpf(1, -span - 1);
	assert_int_equal(ckpt_mfloat(&v, s, in, out, BLOCK, 0, NULL, NULL, &bad), 0);
	assert_int_equal(bad, 0);
	v.dc = 8193; /* (D odd, 2^13 < D < 2^14: the second rounding's bound) */
	ckpt_mfloat_setup(&v, &s->fl);
	assert_true(s->fl.on && s->fl.span == 0);
	v.out = CKPT_F16;
	ckpt_mfloat_setup(&v, &s->fl);
	assert_false(s->fl.on);
	v.dc = 1;

	w = 0x1p-30;
	m.kind = CKPT_TIES;
	v.out = CKPT_F32;
	ckpt_mfloat_setup(&v, &s->fl);
	assert_true(s->fl.on && s->fl.lmin == 15);
	for (size_t i = 0; i < BLOCK; i++) {
		b[i] = 0;
		x[i] = i % 2 ? 0x1.fep-112f : 0x1.fep-113f; /* (fields 15 and 14) */
	}
	assert_int_equal(ckpt_mfloat(&v, s, in, out, BLOCK, 0, NULL, NULL, &bad), 0);
	for (size_t i = 0; i < BLOCK; i++)
		assert_true(s->fmiss[i] == (i % 2 == 0));
	for (size_t i = 0; i < BLOCK; i++) {
		h[0][i] = ckpt_double_to_bf16(b[i]);
		h[1][i] = ckpt_double_to_bf16(x[i]);
	}
	{
		const void *hin[2] = {h[0], h[1]};
		float r[BLOCK];
		ckpt_rank_cut lo = {UINT64_C(0x7ff0000000000000), 0, 0}, hi = {0, 0, 1};

		v.lo = &lo;
		v.hi = &hi;
		assert_int_equal(ckpt_method_range(&v, hin, r, 0, 0, BLOCK), 0);
		for (size_t i = 0; i < BLOCK; i++)
			assert_true(r[i] == x[i]);
	}
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rounds_quotients_once),
		cmocka_unit_test(sums_products_exactly),
		cmocka_unit_test(xsum_is_order_free),
		cmocka_unit_test(bounded_dots_round_as_exact_ones),
		cmocka_unit_test(pair_dots_bound_as_one_pair_at_a_time),
		cmocka_unit_test(selects_ranks_as_a_sort_does),
		cmocka_unit_test(selects_large_variables_with_or_without_a_guess),
		cmocka_unit_test(narrows_without_histograms_where_the_sample_agrees),
		cmocka_unit_test(selects_from_floats_as_from_their_keys),
		cmocka_unit_test(selects_floats_whose_keys_round_alike),
		cmocka_unit_test(selects_a_rank_and_those_before_it),
		cmocka_unit_test(a_guess_room_is_shared_by_the_lanes),
		cmocka_unit_test(guesses_within_a_known_group),
		cmocka_unit_test(tells_keys_changed_between_passes),
		cmocka_unit_test(finds_a_boundary_among_equal_keys_at_once),
		cmocka_unit_test(counts_the_ends_over_many_feeds),
		cmocka_unit_test(shares_a_histogram_with_runs_apart),
		cmocka_unit_test(guesses_again_beside_a_near_miss),
		cmocka_unit_test(looks_for_an_index_in_one_feed),
		cmocka_unit_test(draws_as_the_man_page_says),
		cmocka_unit_test(keeps_draws_below_the_density_alone),
		cmocka_unit_test(draws_rows_in_avx2_as_one_at_a_time),
		cmocka_unit_test(windows_floor_exactly),
		cmocka_unit_test(rounds_the_formula_once),
		cmocka_unit_test(leaves_a_few_undecided_to_the_exact_step),
		cmocka_unit_test(divides_by_odd_constants_exactly),
		cmocka_unit_test(elects_plus_on_a_zero_sum),
		cmocka_unit_test(elects_for_any_number_of_models),
		cmocka_unit_test(decides_ties_of_agreeing_equal_weights),
		cmocka_unit_test(bounds_elections_of_fine_weights),
		cmocka_unit_test(keeps_the_magnitude_windows_in_every_step),
		cmocka_unit_test(bounds_cancelling_terms_by_their_sizes),
		cmocka_unit_test(computes_16_bit_floats_in_float_lanes),
		cmocka_unit_test(bounds_the_float_lanes_as_documented),
		cmocka_unit_test(draws_in_the_loops_as_in_the_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
