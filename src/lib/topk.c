/* topk.c - radix select of the boundaries of magnitude windows. */
#include "topk.h"
#include "vec.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define DIGIT 16
#define CANDIDATE_BYTES (16u << 20) /* for the elements of every boundary */
#define LANES 2                     /* threads feeding a pass at once */
#define SAMPLE_BYTES (4u << 20)     /* for the keys that guide the first pass */

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
	/* a guess: the first pass also gathers the keys in [glo, ghi] and
	 * counts those above, for the boundary's rank `rank` */
	int guessing, overflow[LANES];
	int hist_too;           /* a likely miss: the histograms fed beside */
	size_t room;
	uint64_t glo, ghi, rank, above[LANES];
	/* hist_too's window: the keys whose top 64 - shift bits are base ..
	 * base + 2^DIGIT - 1 (the sample's wider window) counted by those bits
	 * (whist: NULL where there is none), the others in the top digit's
	 * histograms, those above the window also apart (wabove) */
	int shift;
	uint32_t *whist[LANES];
	uint64_t base, over_top, wabove[LANES];
};

struct ckpt_topk {
	size_t nb;
	size_t cap;         /* candidates per boundary */
	struct boundary *b; /* model k: b[2k] (lo), b[2k + 1] (hi) */
	uint64_t n;
	struct candidate *sample; /* model k's: per_model from k per_model */
	size_t per_model;
	size_t *nsample;
	atomic_int failed; /* (out of memory in a selection) */
};

static int new_histograms(struct boundary *b)
{
	for (int l = 0; l < LANES; l++)
		if (!(b->hist[l] = calloc((size_t)1 << DIGIT, sizeof *b->hist[l])))
			return -1;
	return 0;
}

static void free_window(struct boundary *b)
{
	for (int l = 0; l < LANES; l++) {
		free(b->whist[l]);
		b->whist[l] = NULL;
	}
}

static void free_lanes(struct boundary *b)
{
	for (int l = 0; l < LANES; l++) {
		free(b->hist[l]);
		free(b->cand[l]);
		b->hist[l] = NULL;
		b->cand[l] = NULL;
	}
	free_window(b);
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
	atomic_init(&t->failed, 0);
	t->nb = 2 * nmodels;
	t->n = n;
	for (size_t k = 0; k < nmodels; k++)
		if (start(&t->b[2 * k], n, lo) < 0 || start(&t->b[2 * k + 1], n, hi) < 0)
			return ckpt_topk_free(t), NULL;
	for (size_t i = 0; i < t->nb; i++) /* (the room shared by those still to find) */
		t->cap += t->b[i].phase != DONE;
	t->cap = CANDIDATE_BYTES / LANES / sizeof(struct candidate) / (t->cap ? t->cap : 1);
	for (size_t i = 0; n <= t->cap && i < t->nb; i++) /* small: its elements at once */
		if (t->b[i].phase == HISTOGRAM) {
			free_lanes(&t->b[i]);
			t->b[i].phase = COLLECT;
			for (int l = 0; l < LANES; l++)
				if (!(t->b[i].cand[l] = malloc((n + 1) * sizeof *t->b[i].cand[l])))
					return ckpt_topk_free(t), NULL;
		}
	return t;
}

void ckpt_topk_free(ckpt_topk *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nb; i++)
		free_lanes(&t->b[i]);
	free(t->b);
	free(t->sample);
	free(t->nsample);
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

/* (the count apart, in a loop that vectorises: keys are below 2^63, so
 * compared as signed integers, which AVX2 compares) */
CKPT_WIDE_VECTORS
static uint64_t count_above(const uint64_t *keys, size_t n, uint64_t key)
{
	uint64_t above = 0;

	if (key >> 63) /* (none is) */
		return 0;
	for (size_t i = 0; i < n; i++)
		above += (int64_t)keys[i] > (int64_t)key ? 1u : 0u;
	return above;
}

CKPT_WIDE_VECTORS
static void gather_guess(struct boundary *b, int lane, const uint64_t *keys, uint64_t start,
                         size_t n, size_t cap)
{
	size_t c = b->ncand[lane], i = 0;
	uint64_t lo = b->glo, span = b->ghi - b->glo;
	struct candidate *cand = b->cand[lane];

	b->above[lane] += count_above(keys, n, lo + span);
	/* 8 keys at a time while the room cannot run out: most groups have
	 * none in the window; in the others, no branch per key (each written
	 * where the next one in the window goes) */
	for (; i + 8 <= n && c + 8 <= cap; i += 8) {
		uint64_t any = 0;

		for (size_t j = 0; j < 8; j++)
			any |= keys[i + j] - lo <= span ? 1u : 0u;
		if (!any)
			continue;
		for (size_t j = 0; j < 8; j++) {
			cand[c] = (struct candidate){keys[i + j], start + i + j};
			c += keys[i + j] - lo <= span ? 1u : 0u;
		}
	}
	for (; i < n; i++) {
		if (keys[i] - lo > span) /* (outside [lo, lo + span]: most) */
			continue;
		if (c == cap) {
			b->overflow[lane] = 1;
			break;
		}
		cand[c++] = (struct candidate){keys[i], start + i};
	}
	b->ncand[lane] = c;
}

/* hist_too's histograms: a key in the window by its bits below the
 * window's prefix, any other by the top digit (the first histogram pass's) */
static void feed_window(struct boundary *b, int lane, const uint64_t *keys, size_t n)
{
	uint64_t base = b->base, *hist = b->hist[lane];
	uint32_t *whist = b->whist[lane];
	int shift = b->shift;

	b->wabove[lane] += count_above(keys, n, b->over_top);
	for (size_t i = 0; i < n; i++) { /* (no branch: one store each) */
		uint64_t d = (keys[i] >> shift) - base;
		unsigned in = d < (UINT64_C(1) << DIGIT);

		whist[in ? d : 0] += in;
		hist[keys[i] >> (63 - DIGIT)] += !in;
	}
}

static void feed_one(struct boundary *b, int lane, const uint64_t *keys, uint64_t start,
                     size_t n)
{
	int known = b->known, w = b->phase == HISTOGRAM ? width(b) : 0;
	uint64_t top = known >= 64 ? ~UINT64_C(0) : ~(~UINT64_C(0) >> known);

	switch (b->phase) {
	case HISTOGRAM: /* (while guessing, no histogram: mostly it is not needed) */
		if (b->guessing) {
			if (!b->overflow[lane])
				gather_guess(b, lane, keys, start, n, b->room);
			if (!b->hist_too)
				break;
			if (b->whist[lane]) {
				feed_window(b, lane, keys, n);
				break;
			}
		}
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

/* Reorder c[0..n) so that c[k] is the one by_rank() puts k-th (Hoare's
 * selection: no sort needed for one rank). */
static void select_rank(struct candidate *c, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		struct candidate pivot = c[lo + (hi - lo) / 2], x;
		size_t i = lo, j = hi;

		while (i <= j) {
			while (by_rank(&c[i], &pivot) < 0)
				i++;
			while (by_rank(&c[j], &pivot) > 0)
				j--;
			if (i <= j) {
				x = c[i], c[i] = c[j], c[j] = x;
				i++;
				if (j-- == 0)
					break;
			}
		}
		if (k <= j && j != (size_t)-1)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
}

/* Where the first pass's gathered keys hold the boundary, it is found
 * among them, without another pass. */
static void guessed(struct boundary *b)
{
	uint64_t above = 0;
	int over = 0;

	b->guessing = 0;
	for (int l = 0; l < LANES; l++) {
		above += b->above[l];
		over |= b->overflow[l];
	}
	if (over || b->rank < above || b->rank - above >= b->ncand[0]) {
		for (int l = 0; l < LANES; l++) {
			free(b->cand[l]);
			b->cand[l] = NULL;
			b->ncand[l] = 0;
		}
		return;
	}
	select_rank(b->cand[0], b->ncand[0], b->rank - above);
	b->cut = (ckpt_rank_cut){b->cand[0][b->rank - above].key,
	                         b->cand[0][b->rank - above].index, 0};
	free_lanes(b);
	b->phase = DONE;
}

/* A digit found (known, prefix, rem: count keys have it): the next pass
 * collects them where the room holds them (each lane may meet all), else
 * histograms the next digit; at 64 bits it looks for the index. */
static int next_phase(struct boundary *b, uint64_t count, size_t cap)
{
	free_lanes(b);
	if (b->known >= 64) {
		b->phase = INDEX;
		return 0;
	}
	if (count > cap)
		return new_histograms(b);
	b->phase = COLLECT;
	for (int l = 0; l < LANES; l++)
		if (!(b->cand[l] = malloc((count + 1) * sizeof *b->cand[l])))
			return -1;
	return 0;
}

/* A missed guess's window: where it holds the boundary, its digit is
 * known (the keys' top 64 - shift bits: 1 returned); else its counts go
 * into the top digit's histogram (each window digit within one of its
 * digits), which ends the pass as without a window (0). */
static int window_digit(struct boundary *b, size_t cap)
{
	uint64_t above = 0, rem, count = 0, d = UINT64_C(1) << DIGIT;
	uint32_t *w = b->whist[0];

	for (int l = 0; l < LANES; l++) {
		above += b->wabove[l];
		for (size_t i = 0; l && i < (size_t)1 << DIGIT; i++)
			w[i] += b->whist[l][i];
	}
	rem = b->rank - above;
	if (b->rank >= above)
		while (d-- > 0) {
			if (rem < w[d]) {
				count = w[d];
				break;
			}
			rem -= w[d];
		}
	if (count == 0) { /* (outside the window) */
		for (d = 0; d < UINT64_C(1) << DIGIT; d++) /* (where keys are: below 2^63) */
			if (w[d])
				b->hist[0][((b->base + d) << b->shift) >> (63 - DIGIT)] += w[d];
		free_window(b);
		return 0;
	}
	b->known = 64 - b->shift;
	b->prefix = (b->base + d) << b->shift;
	b->rem = rem;
	return next_phase(b, count, cap) < 0 ? -1 : 1;
}

static int end_one(struct boundary *b, size_t cap)
{
	int w;
	uint64_t count = 0, d;

	if ((b->phase == HISTOGRAM || b->phase == COLLECT) && merge_lanes(b) < 0)
		return -1;
	if (b->phase == HISTOGRAM && b->guessing) {
		int hist = b->hist_too, r;

		guessed(b); /* (else the histograms' passes start from the next) */
		if (!hist || b->phase == DONE)
			return 0;
		/* (missed: the histograms fed beside end this pass) */
		if (b->whist[0] && (r = window_digit(b, cap)) != 0)
			return r < 0 ? -1 : 0;
	}
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
		if (next_phase(b, count, cap) < 0)
			return -1;
		break;
	case COLLECT:
		select_rank(b->cand[0], b->ncand[0], b->rem);
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

/* Tasks 0..n-1 by fn, on this thread and one more: the selections between
 * passes, which the readers wait for. */
struct spread {
	void (*fn)(ckpt_topk *t, size_t i);
	ckpt_topk *t;
	size_t n;
	atomic_size_t next;
};

static void *spread_run(void *arg)
{
	struct spread *sp = arg;
	size_t i;

	while ((i = atomic_fetch_add(&sp->next, 1)) < sp->n)
		sp->fn(sp->t, i);
	return NULL;
}

static void spread(void (*fn)(ckpt_topk *t, size_t i), ckpt_topk *t, size_t n, int two)
{
	struct spread sp = {fn, t, n, 0};
	pthread_t th;

	two = two && n > 1 && pthread_create(&th, NULL, spread_run, &sp) == 0;
	spread_run(&sp);
	if (two)
		pthread_join(th, NULL);
}

/* Whether the selections ahead are worth a thread's start: a large
 * variable's (a small one's take less). */
static int large(const ckpt_topk *t)
{
	return t->n >= 4 * (uint64_t)t->cap;
}

static void end_task(ckpt_topk *t, size_t i)
{
	if (end_one(&t->b[i], t->cap) < 0)
		t->failed = 1;
}

int ckpt_topk_end_pass(ckpt_topk *t)
{
	spread(end_task, t, t->nb, large(t));
	return t->failed ? -1 : 0;
}

void ckpt_topk_cuts(const ckpt_topk *t, size_t k, ckpt_rank_cut *lo, ckpt_rank_cut *hi)
{
	*lo = t->b[2 * k].cut;
	*hi = t->b[2 * k + 1].cut;
}

static size_t per_model(const ckpt_topk *t)
{
	size_t nm = t->nb / 2, n = SAMPLE_BYTES / sizeof *t->sample / (nm ? nm : 1);

	return n < ((size_t)1 << 19) ? n : (size_t)1 << 19;
}

size_t ckpt_topk_wants_sample(const ckpt_topk *t)
{
	return t->n >= 2 * (uint64_t)t->cap && ckpt_topk_more(t) ? per_model(t) : 0;
}

void ckpt_topk_sample(ckpt_topk *t, size_t k, const uint64_t *keys, size_t n)
{
	size_t nm = t->nb / 2, have;

	t->per_model = per_model(t);
	if (!t->sample && (t->sample = malloc(nm * t->per_model * sizeof *t->sample)) != NULL &&
	    !(t->nsample = calloc(nm, sizeof *t->nsample))) {
		free(t->sample);
		t->sample = NULL;
	}
	if (!t->sample)
		return; /* (no guess: only slower) */
	have = t->nsample[k];
	n = n < t->per_model - have ? n : t->per_model - have;
	for (size_t i = 0; i < n; i++) /* (selected as candidates are) */
		t->sample[k * t->per_model + have + i] = (struct candidate){keys[i], have + i};
	t->nsample[k] = have + n;
}

/* A window of keys around where the sample s puts rank `rank` of n: as
 * wide as half the candidates' room allows, the sample's ranks p - h ..
 * p + h.  (Only for large variables: a smaller one's passes cost less
 * than the sample's selection.)  Where that is within 3 standard
 * deviations of the sample's rank (sqrt(q (1 - q) ns), q = p / ns) a
 * miss is likely: the pass feeds the histograms too, so that a miss costs
 * no pass. */
/* The key of the sample's rank r into *key (none beyond the sample: *key
 * unchanged); returns how many rank before it (the rest of the sample). */
static size_t sample_key(struct candidate *s, size_t ns, double r, uint64_t *key)
{
	if (r < 0 || r >= (double)ns)
		return ns;
	select_rank(s, ns, (size_t)r);
	*key = s[(size_t)r].key;
	return (size_t)r;
}

/* Digits of the keys in [lo, hi]: the least shift that puts them within
 * 2^DIGIT values of key >> shift; none where a digit would be wider than
 * the top digit's (then the top digit's histograms alone, as without a
 * window), its counts could pass 32 bits, or no memory is left. */
static void window_histogram(struct boundary *b, uint64_t lo, uint64_t hi, uint64_t n)
{
	int shift = 0;

	while (shift < 63 && (hi >> shift) - (lo >> shift) >= (UINT64_C(1) << DIGIT) - 1)
		shift++;
	if (shift > 63 - DIGIT || n > UINT32_MAX)
		return;
	for (int l = 0; l < LANES; l++)
		b->whist[l] = calloc((size_t)1 << DIGIT, sizeof *b->whist[l]);
	for (int l = 0; l < LANES; l++)
		if (!b->whist[l]) {
			free_window(b);
			return;
		}
	b->shift = shift;
	b->base = lo >> shift;
	/* (keys are below 2^63: a top past it counts none above) */
	b->over_top = b->base + (UINT64_C(1) << DIGIT) > (UINT64_MAX >> shift)
	                  ? UINT64_MAX
	                  : ((b->base + (UINT64_C(1) << DIGIT)) << shift) - 1;
}

static void guess_one(struct boundary *b, struct candidate *s, size_t ns, uint64_t n,
                      size_t cap)
{
	double p = (double)b->rem * (double)ns / (double)n, h = (double)cap * ns / 4.0 / (double)n;
	double q = p / (double)(ns ? ns : 1), sd = sqrt(q * (1 - q) * (double)ns);
	uint64_t wlo = 0, whi = UINT64_MAX >> 1;

	if (b->phase != HISTOGRAM || b->known != 1 || ns == 0 || h < 16 || n < 2 * (uint64_t)cap)
		return;
	b->hist_too = h < sd * 3;
	b->rank = b->rem;
	b->ghi = UINT64_MAX;
	b->glo = 0;
	/* (each lower rank then among those ranked before the one above it) */
	if (b->hist_too)
		ns = sample_key(s, ns, p + 6 * sd + 1, &wlo);
	ns = sample_key(s, ns, p + h + 1, &b->glo);
	ns = sample_key(s, ns, p - h, &b->ghi);
	if (b->hist_too) {
		sample_key(s, ns, p - 6 * sd, &whi);
		window_histogram(b, wlo, whi, n);
	}
	b->room = cap / 2;
	b->guessing = 1;
}

/* Room for a guess's keys: lane 0's for every lane's (merged into it at the
 * pass's end: no copy grows). */
static void guess_room(struct boundary *b)
{
	for (int l = 0; b->guessing && l < LANES; l++)
		b->cand[l] = malloc(((l ? 1 : LANES) * b->room + 1) * sizeof *b->cand[l]);
	for (int l = 0; b->guessing && l < LANES; l++)
		b->guessing &= b->cand[l] != NULL;
	for (int l = 0; !b->guessing && l < LANES; l++) {
		free(b->cand[l]);
		b->cand[l] = NULL;
	}
}

static void guess_task(ckpt_topk *t, size_t k)
{
	struct candidate *s = t->sample + k * t->per_model;

	guess_one(&t->b[2 * k], s, t->nsample[k], t->n, t->cap);
	guess_one(&t->b[2 * k + 1], s, t->nsample[k], t->n, t->cap);
}

void ckpt_topk_guess(ckpt_topk *t)
{
	if (t->sample)
		spread(guess_task, t, t->nb / 2, large(t));
	free(t->sample);
	free(t->nsample);
	t->sample = NULL;
	t->nsample = NULL;
	for (size_t i = 0; i < t->nb; i++) /* (once the sample's memory is back) */
		guess_room(&t->b[i]);
}
