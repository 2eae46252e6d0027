/* topk.c - radix select of the boundaries of magnitude windows. */
#include "topk.h"

#include <stdlib.h>
#include <string.h>

#define DIGIT 16
#define CANDIDATE_BYTES (16u << 20) /* for the elements of every boundary */

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
	uint64_t *hist;
	struct candidate *cand;
	size_t ncand;
	ckpt_rank_cut cut;
};

struct ckpt_topk {
	size_t nb;
	size_t cap;         /* candidates per boundary */
	struct boundary *b; /* model k: b[2k] (lo), b[2k + 1] (hi) */
};

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
		if (!(b->hist = calloc((size_t)1 << DIGIT, sizeof *b->hist)))
			return -1;
	}
	return 0;
}

ckpt_topk *ckpt_topk_new(size_t nmodels, uint64_t n, uint64_t lo, uint64_t hi)
{
	ckpt_topk *t = calloc(1, sizeof *t);

	if (!t || !(t->b = calloc(2 * nmodels + 1, sizeof *t->b)))
		return free(t), NULL;
	t->nb = 2 * nmodels;
	t->cap = CANDIDATE_BYTES / sizeof(struct candidate) / (t->nb ? t->nb : 1);
	for (size_t k = 0; k < nmodels; k++)
		if (start(&t->b[2 * k], n, lo) < 0 || start(&t->b[2 * k + 1], n, hi) < 0)
			return ckpt_topk_free(t), NULL;
	return t;
}

void ckpt_topk_free(ckpt_topk *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nb; i++) {
		free(t->b[i].hist);
		free(t->b[i].cand);
	}
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

static void feed_one(struct boundary *b, const uint64_t *keys, uint64_t start, size_t n)
{
	int known = b->known, w = b->phase == HISTOGRAM ? width(b) : 0;
	uint64_t top = known >= 64 ? ~UINT64_C(0) : ~(~UINT64_C(0) >> known);

	switch (b->phase) {
	case HISTOGRAM:
		for (size_t i = 0; i < n; i++)
			if ((keys[i] & top) == b->prefix)
				b->hist[keys[i] >> (64 - known - w) & ((UINT64_C(1) << w) - 1)]++;
		break;
	case COLLECT:
		for (size_t i = 0; i < n; i++)
			if ((keys[i] & top) == b->prefix)
				b->cand[b->ncand++] = (struct candidate){keys[i], start + i};
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

void ckpt_topk_feed(ckpt_topk *t, size_t k, const uint64_t *keys, uint64_t start, size_t n)
{
	feed_one(&t->b[2 * k], keys, start, n);
	feed_one(&t->b[2 * k + 1], keys, start, n);
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

	switch (b->phase) {
	case HISTOGRAM:
		w = width(b);
		for (d = (UINT64_C(1) << w); d-- > 0;) {
			if (b->rem < b->hist[d]) {
				count = b->hist[d];
				break;
			}
			b->rem -= b->hist[d];
		}
		b->prefix |= d << (64 - b->known - w);
		b->known += w;
		free(b->hist);
		b->hist = NULL;
		if (b->known >= 64) {
			b->phase = INDEX;
		} else if (count <= cap) {
			b->phase = COLLECT;
			if (!(b->cand = malloc((count + 1) * sizeof *b->cand)))
				return -1;
		} else if (!(b->hist = calloc((size_t)1 << DIGIT, sizeof *b->hist))) {
			return -1;
		}
		break;
	case COLLECT:
		qsort(b->cand, b->ncand, sizeof *b->cand, by_rank);
		b->cut = (ckpt_rank_cut){b->cand[b->rem].key, b->cand[b->rem].index, 0};
		free(b->cand);
		b->cand = NULL;
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
