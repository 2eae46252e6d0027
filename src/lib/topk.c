/* topk.c - radix select of the boundaries of magnitude windows: the
 * histograms' passes, the candidates, the selection between passes. */
#include "topkint.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* A histogram pass's state (its histograms made as the lanes count). */
static void new_histograms(struct boundary *b)
{
	b->ends = 1;
	b->run = UINT64_MAX;
	b->feeds_lost = 0;
	for (int l = 0; l < LANES; l++) {
		b->e[l] = (struct group_ends){.least = UINT64_MAX};
		b->nomem[l] = 0;
	}
}

/* Lane l's histogram, made zero where there is none yet (NULL: no
 * memory). */
static uint64_t *histogram(struct boundary *b, int l)
{
	if (!b->hist[l] && !(b->hist[l] = calloc((size_t)1 << DIGIT, sizeof *b->hist[l])))
		b->nomem[l] = 1;
	return b->hist[l];
}

void ckpt_topk_free_lanes(struct boundary *b)
{
	for (int l = 0; l < LANES; l++) {
		free(b->hist[l]);
		free(b->cand[l]);
		free(b->feeds[l]);
		b->hist[l] = NULL;
		b->cand[l] = NULL;
		b->feeds[l] = NULL;
		b->nfeeds[l] = b->capfeeds[l] = 0;
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
		b->counted = n;
		b->rem = b->rank = rank;
		new_histograms(b);
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
			ckpt_topk_free_lanes(&t->b[i]);
			t->b[i].phase = COLLECT;
			t->b[i].counted = n;
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
		ckpt_topk_free_lanes(&t->b[i]);
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

/* Whether a model's two boundaries count the same histogram this pass
 * (of the same group of keys): then it is fed once, to lo's, and copied
 * to hi's at the pass's end, with the group's ends - and the run's counts
 * where both look at one run; hi counts its own run. */
static int same_histogram(const struct boundary *lo, const struct boundary *hi)
{
	return lo->phase == HISTOGRAM && hi->phase == HISTOGRAM && lo->known == hi->known &&
	       lo->prefix == hi->prefix && (!lo->guessing || lo->hist_too) &&
	       (!hi->guessing || hi->hist_too) && lo->ends == hi->ends;
}

/* What hi's feed counts: the histogram and the rest (OWN), nothing (lo's
 * copied), or its run alone (lo's histogram and ends copied). */
enum { SHARED, OWN, OWN_RUN };

static int hi_counts(const struct boundary *lo, const struct boundary *hi)
{
	if (!same_histogram(lo, hi))
		return OWN;
	return hi->ends && hi->run != lo->run && hi->run != UINT64_MAX ? OWN_RUN : SHARED;
}

/* The group's keys among keys[0..n) into the lane's histogram of the
 * digit after the known bits (w of them) and, where ends, its least and
 * largest keys and the run's counted, the run's in this feed recorded
 * (only where they may save a pass). */
static void count_digit(struct boundary *b, int lane, const uint64_t *keys, uint64_t start,
                        size_t n, uint64_t top, int w)
{
	uint64_t *hist = histogram(b, lane), mask = (UINT64_C(1) << w) - 1, prefix = b->prefix;
	int shift = 64 - b->known - w;

	for (size_t i = 0; hist && i < n; i++)
		if ((keys[i] & top) == prefix)
			hist[keys[i] >> shift & mask]++;
	if (b->ends)
		ckpt_topk_count_ends(b, lane, keys, start, n, top);
}

/* Where in a feed of n elements from start b's index is looked for. */
static size_t from_in(const struct boundary *b, uint64_t start, size_t n)
{
	return !b->to || b->from <= start ? 0 : b->from - start < n ? (size_t)(b->from - start) : n;
}

static size_t to_in(const struct boundary *b, uint64_t start, size_t n)
{
	return !b->to || b->to >= start + n ? n : b->to <= start ? 0 : (size_t)(b->to - start);
}

/* (counts: OWN, or for a model's hi, hi_counts()) */
static void feed_one(struct boundary *b, int lane, const uint64_t *keys, uint64_t start,
                     size_t n, int counts)
{
	int known = b->known, w = b->phase == HISTOGRAM ? width(b) : 0;
	uint64_t top = known >= 64 ? ~UINT64_C(0) : ~(~UINT64_C(0) >> known);

	switch (b->phase) {
	case HISTOGRAM: /* (while guessing, no histogram: mostly it is not needed;
	                 * the caller gathers: gather_keyed()) */
		if (b->guessing && !b->hist_too)
			break;
		if (counts == OWN)
			count_digit(b, lane, keys, start, n, top, w);
		else if (counts == OWN_RUN)
			ckpt_topk_count_run(b, lane, keys, start, n, top);
		break;
	case COLLECT:
		for (size_t i = 0; i < n; i++)
			if ((keys[i] & top) == b->prefix) {
				if (b->ncand[lane] == b->counted) {
					b->changed[lane] = 1;
					break;
				}
				b->cand[lane][b->ncand[lane]++] = (struct candidate){keys[i], start + i};
			}
		break;
	case INDEX: { /* the key is known: the rem-th equal one in flat order
		       * (of those from .. to, where they are known to hold it) */
		size_t i = from_in(b, start, n), end = to_in(b, start, n);

		for (; i < end; i++)
			if (keys[i] == b->prefix && b->seen++ == b->rem) {
				b->cut = (ckpt_rank_cut){b->prefix, start + i, 0};
				b->phase = DONE;
				break;
			}
		/* (those met are not met again: another range's slabs may hold
		 * some of this one's) */
		if (b->to && from_in(b, start, n) < end)
			b->from = start + end;
		break;
	}
	case DONE:
		break;
	}
}

int ckpt_topk_range(const ckpt_topk *t, size_t i, uint64_t *from, uint64_t *to)
{
	size_t k = 0;

	for (size_t j = 0; j < t->nb; j++)
		if (t->b[j].phase != DONE && (t->b[j].phase != INDEX || !t->b[j].to))
			return 0;
	for (size_t j = 0; j < t->nb; j++)
		if (t->b[j].phase == INDEX && k++ == i) {
			*from = t->b[j].from;
			*to = t->b[j].to;
			return 1;
		}
	return 0;
}

int ckpt_topk_lanes(const ckpt_topk *t)
{
	for (size_t i = 0; i < t->nb; i++)
		if (t->b[i].phase == INDEX)
			return 1;
	return LANES;
}

/* The keys of those of nb boundaries of a model that gather (a guess, its
 * room not full), for both at once. */
static void gather_keyed(struct boundary **b, int nb, int lane, const uint64_t *keys,
                         uint64_t start, size_t n)
{
	struct boundary *g[2];
	int ng = 0;

	for (int i = 0; i < nb; i++)
		if (b[i]->phase == HISTOGRAM && b[i]->guessing && !b[i]->overflow[lane])
			g[ng++] = b[i];
	if (ng)
		ckpt_topk_gather(g, ng, lane, keys, start, n);
}

void ckpt_topk_feed(ckpt_topk *t, int lane, size_t k, const uint64_t *keys, uint64_t start,
                    size_t n)
{
	int hi = hi_counts(&t->b[2 * k], &t->b[2 * k + 1]);
	struct boundary *b[2] = {&t->b[2 * k], &t->b[2 * k + 1]};

	gather_keyed(b, 2, lane, keys, start, n);
	feed_one(b[0], lane, keys, start, n, OWN);
	feed_one(b[1], lane, keys, start, n, hi);
}

/* (where a guess only gathers, keys are made as they are tested; for the
 * other boundaries, a run of them at a time) */
void ckpt_topk_feed_f32(ckpt_topk *t, int lane, size_t k, const float *b, const float *x,
                        uint64_t start, size_t n)
{
	enum { RUN = 512 };
	uint64_t keys[RUN];
	struct boundary *keyed[2], *gathering[2];
	int nk = 0, ng = 0, hi = hi_counts(&t->b[2 * k], &t->b[2 * k + 1]);

	for (int h = 0; h < 2; h++) {
		struct boundary *bd = &t->b[2 * k + h];
		int gathers = bd->phase == HISTOGRAM && bd->guessing && !bd->hist_too;

		if (gathers && !bd->overflow[lane])
			gathering[ng++] = bd;
		else if (!gathers && bd->phase != DONE)
			keyed[nk++] = bd;
	}
	if (ng)
		ckpt_topk_gather_f32(gathering, ng, lane, b, x, start, n);
	for (size_t off = 0; nk && off < n; off += RUN) {
		size_t m = n - off < RUN ? n - off : RUN;

		ckpt_magnitude_keys(CKPT_F32, b + off, CKPT_F32, x + off, keys, m);
		gather_keyed(keyed, nk, lane, keys, start + off, m);
		for (int i = 0; i < nk; i++) /* (keyed[1], where there is one: hi) */
			feed_one(keyed[i], lane, keys, start + off, m, i ? hi : OWN);
	}
}

/* The lanes' histograms and candidates into lane 0's. */
static int merge_lanes(struct boundary *b)
{
	size_t n = b->ncand[0];

	for (int l = 0; l < LANES; l++)
		if (b->nomem[l])
			return -1;
	/* (a lane that counted none has no histogram: lane 0 takes another's,
	 * or zeros where the pass counted one) */
	for (int l = 1; !b->hist[0] && l < LANES; l++) {
		b->hist[0] = b->hist[l];
		b->hist[l] = NULL;
	}
	if (b->phase == HISTOGRAM && (!b->guessing || b->hist_too) && !histogram(b, 0))
		return -1;
	for (int l = 1; l < LANES; l++) {
		for (size_t d = 0; b->hist[0] && b->hist[l] && d < (size_t)1 << DIGIT; d++)
			b->hist[0][d] += b->hist[l][d];
		ckpt_topk_merge_ends(&b->e[0], &b->e[l]);
		if (b->guessing || !b->ncand[l]) /* (a guess's are in one room) */
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

/* What ranks c: its key, or (among equal keys) its index, the lower first
 * - either way, the larger value first. */
static inline uint64_t rank_value(const struct candidate *c, int by_index)
{
	return by_index ? ~c->index : c->key;
}

static void swap(struct candidate *a, struct candidate *b)
{
	struct candidate x = *a;

	*a = *b;
	*b = x;
}

/* c[lo..hi) reordered so that those in part `part` of the values' range
 * (value - min >> shift) or above come first; returns where the others
 * start.  Without a branch on the part: to the branch predictor each
 * element's way is a coin toss. */
static size_t parts_first(struct candidate *c, size_t lo, size_t hi, int by_index, uint64_t min,
                          unsigned shift, unsigned part)
{
	size_t a = lo;

	for (size_t i = lo; i < hi; i++) {
		struct candidate x = c[i];
		size_t up = ((rank_value(&x, by_index) - min) >> shift) >= part;

		c[i] = c[a];
		c[a] = x;
		a += up;
	}
	return a;
}

/* The values' range of c[0..n) (by_index: the indices' order) in at most
 * 256 parts: the least value, the shift that maps a value to its part,
 * each part's count; 0 where the values are all one. */
static int parts(const struct candidate *c, size_t n, int by_index, uint64_t *min,
                 unsigned *shift, size_t count[256])
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = rank_value(&c[i], by_index);

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	if (lo == hi)
		return 0;
	for (*shift = 0; (hi - lo) >> *shift > 255; (*shift)++)
		;
	memset(count, 0, 256 * sizeof *count);
	for (size_t i = 0; i < n; i++)
		count[(rank_value(&c[i], by_index) - lo) >> *shift]++;
	*min = lo;
	return 1;
}

/* The part that holds rank k, the values' largest first; *above: how
 * many rank before that part. */
static unsigned part_of(const size_t count[256], size_t k, size_t *above)
{
	unsigned part = 255;

	for (*above = 0; *above + count[part] <= k; part--)
		*above += count[part];
	return part;
}

/* Reorder c[0..n) so that c[k] is the one by_rank() puts k-th and those
 * before it rank before it: a radix select - the values' range in 256
 * parts, those above the part of rank k put first, those below it last
 * (two partitions), then the same within that part (by index once its
 * keys are equal); a few elements sorted. */
void ckpt_topk_select_rank(struct candidate *c, size_t n, size_t k)
{
	size_t lo = 0, hi = n, count[256];
	int by_index = 0;

	while (hi - lo > 16) {
		uint64_t min;
		size_t z, above;
		unsigned part, shift;

		if (!parts(c + lo, hi - lo, by_index, &min, &shift, count)) {
			by_index = 1; /* (equal keys: by index; indices differ) */
			continue;
		}
		part = part_of(count, k - lo, &above);
		z = parts_first(c, lo, hi, by_index, min, shift, part);
		lo = parts_first(c, lo, z, by_index, min, shift, part + 1);
		hi = z;
	}
	for (size_t i = lo + 1; i < hi; i++) /* (a few: sorted) */
		for (size_t j = i; j > lo && by_rank(&c[j], &c[j - 1]) < 0; j--)
			swap(&c[j], &c[j - 1]);
}

/* The one ckpt_topk_select_rank() puts k-th, c[0..n) left in any order
 * (a boundary's candidates, freed next): as there, the values' range in
 * 256 parts, but the part of rank k alone moved to the front, those
 * above it counted - a pass that writes next to nothing where a level of
 * the select's partitions writes every candidate twice - until few are
 * left, then selected among them. */
struct candidate ckpt_topk_kth(struct candidate *c, size_t n, size_t k)
{
	int by_index = 0;

	while (n > 4096) {
		uint64_t min;
		size_t count[256], above, j = 0;
		unsigned part, shift;

		if (!parts(c, n, by_index, &min, &shift, count)) {
			if (by_index)
				break; /* (not met: indices differ) */
			by_index = 1; /* (equal keys: by index) */
			continue;
		}
		part = part_of(count, k, &above);
		for (size_t i = 0; i < n; i++) { /* (j <= i: nothing unread is written) */
			struct candidate x = c[i];

			c[j] = x;
			j += ((rank_value(&x, by_index) - min) >> shift) == part;
		}
		n = j;
		k -= above;
	}
	ckpt_topk_select_rank(c, n, k);
	return c[k];
}

int ckpt_topk_ranks(const struct candidate *c, size_t n, const size_t *r, size_t nr,
                    struct candidate *out)
{
	size_t count[256], at[256], above[CKPT_TOPK_RANKS], total = 0;
	unsigned part[CKPT_TOPK_RANKS], shift;
	unsigned char chosen[256] = {0};
	uint64_t min = 0;
	struct candidate *room;
	int split = parts(c, n, 0, &min, &shift, count);

	if (!split) { /* (one key: the order is the indices', all of them) */
		min = n ? c[0].key : 0;
		shift = 0;
		memset(count, 0, sizeof count);
		count[0] = n;
	}
	for (size_t i = 0; i < nr; i++) {
		part[i] = split ? part_of(count, r[i], &above[i]) : 0;
		above[i] = split ? above[i] : 0;
		chosen[part[i]] = 1;
	}
	for (unsigned p = 0; p < 256; p++)
		if (chosen[p]) {
			at[p] = total;
			total += count[p];
		}
	if (!(room = malloc((total ? total : 1) * sizeof *room)))
		return -1;
	for (unsigned p = 0; p < 256; p++)
		count[p] = chosen[p] ? at[p] : 0; /* (now where the next goes) */
	for (size_t i = 0; i < n; i++) {
		unsigned p = (unsigned)((c[i].key - min) >> shift);

		if (chosen[p])
			room[count[p]++] = c[i];
	}
	/* (select, not kth: two ranks may be of one part) */
	for (size_t i = 0; i < nr; i++) {
		struct candidate *in = room + at[part[i]];
		size_t k = r[i] - above[i];

		ckpt_topk_select_rank(in, count[part[i]] - at[part[i]], k);
		out[i] = in[k];
	}
	free(room);
	return 0;
}

/* A digit found (known, prefix, rem: count keys have it): the next pass
 * collects them where the room holds them (each lane may meet all), else
 * histograms the next digit, or at 64 bits (equal keys) looks for the
 * index. */
int ckpt_topk_next_phase(struct boundary *b, uint64_t count, size_t cap)
{
	ckpt_topk_free_lanes(b);
	b->counted = count;
	if (b->known >= 64 && count > cap) { /* (equal keys: by index) */
		b->phase = INDEX;
		return 0;
	}
	if (count > cap) {
		new_histograms(b);
		ckpt_topk_guess_within(b, count, cap);
		return 0;
	}
	b->phase = COLLECT;
	for (int l = 0; l < LANES; l++) {
		b->ncand[l] = 0;
		if (!(b->cand[l] = malloc((count + 1) * sizeof *b->cand[l])))
			return -1;
	}
	return 0;
}

/* Whether the pass just ended met as many keys of the group as the
 * passes before counted: where the values changed between passes (an
 * input written meanwhile), the digit, the keys collected or the index
 * looked for may not be there - told, not read past. */
static int as_counted(const struct boundary *b)
{
	uint64_t total = 0;

	for (int l = 0; l < LANES; l++)
		if (b->changed[l])
			return 0;
	switch (b->phase) {
	case HISTOGRAM:
		for (size_t d = 0; b->hist[0] && d < (size_t)1 << width(b); d++)
			total += b->hist[0][d];
		return total == b->counted;
	case COLLECT:
		return b->ncand[0] == b->counted;
	case INDEX: /* (a whole pass looked for it) */
		return 0;
	case DONE:
		break;
	}
	return 1;
}

static int end_one(struct boundary *b, size_t cap)
{
	int w, rc;
	uint64_t count = 0, d;
	struct candidate c;

	if ((b->phase == HISTOGRAM || b->phase == COLLECT) && merge_lanes(b) < 0)
		return -1;
	if (b->phase == HISTOGRAM && b->guessing) {
		int hist = b->hist_too;

		ckpt_topk_guessed(b); /* (else the histograms' passes start from the next) */
		if (!hist || b->phase == DONE)
			return 0;
		/* (missed: the histograms fed beside end this pass) */
	}
	if (!as_counted(b))
		return CKPT_TOPK_CHANGED;
	switch (b->phase) {
	case HISTOGRAM:
		if (b->ends && ckpt_topk_among_equal(b, cap, &rc))
			return rc;
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
		if (ckpt_topk_next_phase(b, count, cap) < 0)
			return -1;
		break;
	case COLLECT:
		c = ckpt_topk_kth(b->cand[0], b->ncand[0], b->rem);
		b->cut = (ckpt_rank_cut){c.key, c.index, 0};
		ckpt_topk_free_lanes(b);
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

void ckpt_topk_spread(void (*fn)(ckpt_topk *t, size_t i), ckpt_topk *t, size_t n, int two)
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
int ckpt_topk_large(const ckpt_topk *t)
{
	return t->n >= 4 * (uint64_t)t->cap;
}

static void end_task(ckpt_topk *t, size_t i)
{
	int rc = end_one(&t->b[i], t->cap);

	if (rc < 0)
		atomic_store(&t->failed, rc);
}

int ckpt_topk_end_pass(ckpt_topk *t)
{
	for (size_t k = 0; k < t->nb / 2; k++) {
		struct boundary *lo = &t->b[2 * k], *hi = &t->b[2 * k + 1];

		for (int l = 0; same_histogram(lo, hi) && l < LANES; l++) {
			if (lo->hist[l] && histogram(hi, l))
				memcpy(hi->hist[l], lo->hist[l],
				       ((size_t)1 << DIGIT) * sizeof *hi->hist[l]);
			ckpt_topk_share_ends(hi, lo, l);
		}
	}
	ckpt_topk_spread(end_task, t, t->nb, ckpt_topk_large(t));
	return atomic_load(&t->failed);
}

void ckpt_topk_cuts(const ckpt_topk *t, size_t k, ckpt_rank_cut *lo, ckpt_rank_cut *hi)
{
	*lo = t->b[2 * k].cut;
	*hi = t->b[2 * k + 1].cut;
}

