/* topk.c - radix select of the boundaries of magnitude windows. */
#include "topk.h"

#include <stdlib.h>
#include <string.h>

#define DIGIT 16
#define CANDIDATE_BYTES (16u << 20) /* for the elements of every boundary */
#define LANES 2                     /* threads feeding a pass at once */

enum phase { HISTOGRAM, COLLECT, INDEX, DONE };

struct candidate {
	uint64_t key, index;
};

/* One boundary: the element at rank `rank`, among the keys whose top
 * `known` bits are `prefix`; within them, `rem` rank above it. */
struct boundary {
	enum phase phase;
	int known;
	uint64_t prefix, rem, seen;
	uint64_t *hist[LANES];
	struct candidate *cand[LANES];
	size_t ncand[LANES];
	ckpt_rank_cut cut;
};

struct ckpt_topk {
	size_t nb;
	size_t cap;         /* candidates per boundary */
	struct boundary *b; /* model k: b[2k] (lo), b[2k + 1] (hi) */
};

static int new_histograms(struct boundary *b)
{
	for (int l = 0; l < LANES; l++)
		if (!(b->hist[l] = calloc((size_t)1 << DIGIT, sizeof *b->hist[l])))
			return -1;
	return 0;
}

static void free_lanes(struct boundary *b)
{
	for (int l = 0; l < LANES; l++) {
		free(b->hist[l]);
		free(b->cand[l]);
		b->hist[l] = NULL;
		b->cand[l] = NULL;
	}
}

static int start(struct boundary *b, uint64_t n, uint64_t rank)
{
	memset(b, 0, sizeof *b);
	if (rank == 0) { /* nothing ranks above (keys are below 2^63) */
		b->cut = (ckpt_rank_cut){INT64_MAX, 0, 0};
		b->phase = DONE;
	} else if (rank >= n) {
		b->cut.all = 1;
		b->phase = DONE;
	} else {
		b->phase = HISTOGRAM;
		b->known = 1; /* bit 63 of a magnitude is 0 */
		b->rem = rank;
		return new_histograms(b);
	}
	return 0;
}

ckpt_topk *ckpt_topk_new(size_t nmodels, uint64_t n, uint64_t lo, uint64_t hi)
{
	ckpt_topk *t = calloc(1, sizeof *t);

	if (!t || !(t->b = calloc(2 * nmodels + 1, sizeof *t->b)))
		return free(t), NULL;
	t->nb = 2 * nmodels;
	t->cap = CANDIDATE_BYTES / LANES / sizeof(struct candidate) / (t->nb ? t->nb : 1);
	for (size_t k = 0; k < nmodels; k++)
		if (start(&t->b[2 * k], n, lo) < 0 || start(&t->b[2 * k + 1], n, hi) < 0)
			return ckpt_topk_free(t), NULL;
	return t;
}

void ckpt_topk_free(ckpt_topk *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nb; i++)
		free_lanes(&t->b[i]);
	free(t->b);
	free(t);
}

int ckpt_topk_more(const ckpt_topk *t)
{
	for (size_t i = 0; i < t->nb; i++)
		if (t->b[i].phase != DONE)
			return 1;
	return 0;
}

static int width(const struct boundary *b)
{
	return 64 - b->known < DIGIT ? 64 - b->known : DIGIT;
}

static void feed_one(struct boundary *b, int lane, const uint64_t *keys, uint64_t start,
                     size_t n)
{
	int known = b->known, w = b->phase == HISTOGRAM ? width(b) : 0;
	uint64_t top = known >= 64 ? ~UINT64_C(0) : ~(~UINT64_C(0) >> known);

	switch (b->phase) {
	case HISTOGRAM:
		for (size_t i = 0; i < n; i++)
			if ((keys[i] & top) == b->prefix)
				b->hist[lane][keys[i] >> (64 - known - w) & ((UINT64_C(1) << w) - 1)]++;
		break;
	case COLLECT:
		for (size_t i = 0; i < n; i++)
			if ((keys[i] & top) == b->prefix)
				b->cand[lane][b->ncand[lane]++] = (struct candidate){keys[i], start + i};
		break;
	case INDEX: /* the key is known: the rem-th equal one in flat order */
		for (size_t i = 0; i < n; i++)
			if (keys[i] == b->prefix && b->seen++ == b->rem) {
				b->cut = (ckpt_rank_cut){b->prefix, start + i, 0};
				b->phase = DONE;
				break;
			}
		break;
	case DONE:
		break;
	}
}

int ckpt_topk_lanes(const ckpt_topk *t)
{
	for (size_t i = 0; i < t->nb; i++)
		if (t->b[i].phase == INDEX)
			return 1;
	return LANES;
}

void ckpt_topk_feed(ckpt_topk *t, int lane, size_t k, const uint64_t *keys, uint64_t start,
                    size_t n)
{
	feed_one(&t->b[2 * k], lane, keys, start, n);
	feed_one(&t->b[2 * k + 1], lane, keys, start, n);
}

/* The lanes' histograms and candidates into lane 0's. */
static int merge_lanes(struct boundary *b)
{
	size_t n = b->ncand[0];

	for (int l = 1; l < LANES; l++) {
		for (size_t d = 0; b->hist[0] && d < (size_t)1 << DIGIT; d++)
			b->hist[0][d] += b->hist[l][d];
		if (!b->ncand[l])
			continue;
		n += b->ncand[l];
		if (!(b->cand[0] = realloc(b->cand[0], (n + 1) * sizeof *b->cand[0])))
			return -1;
		memcpy(b->cand[0] + b->ncand[0], b->cand[l], b->ncand[l] * sizeof *b->cand[0]);
		b->ncand[0] = n;
	}
	return 0;
}

/* larger keys first, equal ones by lower index */
static int by_rank(const void *pa, const void *pb)
{
	const struct candidate *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return (a->index > b->index) - (a->index < b->index);
}

static int end_one(struct boundary *b, size_t cap)
{
	int w;
	uint64_t count = 0, d;

	if ((b->phase == HISTOGRAM || b->phase == COLLECT) && merge_lanes(b) < 0)
		return -1;
	switch (b->phase) {
	case HISTOGRAM:
		w = width(b);
		for (d = (UINT64_C(1) << w); d-- > 0;) {
			if (b->rem < b->hist[0][d]) {
				count = b->hist[0][d];
				break;
			}
			b->rem -= b->hist[0][d];
		}
		b->prefix |= d << (64 - b->known - w);
		b->known += w;
		free_lanes(b);
		if (b->known >= 64) {
			b->phase = INDEX;
		} else if (count <= cap) {
			b->phase = COLLECT;
			/* (each lane may meet all of them) */
			for (int l = 0; l < LANES; l++)
				if (!(b->cand[l] = malloc((count + 1) * sizeof *b->cand[l])))
					return -1;
		} else if (new_histograms(b) < 0) {
			return -1;
		}
		break;
	case COLLECT:
		qsort(b->cand[0], b->ncand[0], sizeof *b->cand[0], by_rank);
		b->cut = (ckpt_rank_cut){b->cand[0][b->rem].key, b->cand[0][b->rem].index, 0};
		free_lanes(b);
		b->phase = DONE;
		break;
	case INDEX:
	case DONE:
		break;
	}
	return 0;
}

int ckpt_topk_end_pass(ckpt_topk *t)
{
	for (size_t i = 0; i < t->nb; i++)
		if (end_one(&t->b[i], t->cap) < 0)
			return -1;
	return 0;
}

void ckpt_topk_cuts(const ckpt_topk *t, size_t k, ckpt_rank_cut *lo, ckpt_rank_cut *hi)
{
	*lo = t->b[2 * k].cut;
	*hi = t->b[2 * k + 1].cut;
}
