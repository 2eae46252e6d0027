/* topkguess.c - the guesses that may save the radix select's passes: a
 * sample of the keys predicts each boundary's key; the first pass gathers
 * the keys around it (and counts those above), and where the boundary
 * lies among them it is found with no other pass. */
#include "methodint.h"
#include "topkint.h"
#include "vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The keys that guide the first pass: 4 MiB, or where more are needed up
 * to 8 MiB (the sample is gone before the candidates' room is taken: the
 * peak of memory grows by what the room would not have filled). */
#define SAMPLE_BYTES (4u << 20)
#define SAMPLE_MOST (CANDIDATE_BYTES / 2)

/* A lane's next chunk of the room shared by the lanes (-1: it is full). */
enum { CHUNK = 1024 };

static int new_chunk(struct boundary *b, int lane, size_t *c, size_t *end)
{
	size_t at = atomic_fetch_add(&b->used, CHUNK), all = LANES * b->room;

	if (at >= all) {
		b->overflow[lane] = 1;
		return -1;
	}
	*c = at;
	*end = all - at < CHUNK ? all : at + CHUNK;
	return 0;
}

/* One key into the lane's chunk, c .. end (-1: the room is full). */
static inline int put(struct boundary *b, int lane, size_t *c, size_t *end, struct candidate k)
{
	if (*c == *end && new_chunk(b, lane, c, end) < 0)
		return -1;
	b->cand[0][(*c)++] = k;
	return 0;
}

/* A model's nw (1 or 2) gathering boundaries at once, from a run of keys
 * or of float32 values keyed as they are tested: each key tested against
 * every window and counted above them, the tests of 64 keys a window
 * gathered into the bits of a word, in a loop that vectorises; then the
 * few keys in a window found as the set bits of the words (not tested one
 * by one: the branches missed cost more than the rest of the gathering;
 * not as a byte per key: packing bytes took more than the tests).
 *
 * Float32 values are tested by float keys, |x - b| in float: twice the
 * lanes of the double keys'.  An element's float key is its key rounded
 * to float - where x - b is a double that is its rounding once; where it
 * is not (|b| below 2^-29 |x|, or the reverse), both round to x, far from
 * a float's halfway point - so float keys are in the keys' order, equal
 * ones aside: the window's float edges (float_edge()) hold every key of
 * the window, a key above the float top is above the window, and the few
 * at an edge that are not the window's (keys that round alike) are told
 * by their key when gathered. */
enum { RUN = 512, WORDS = RUN / 64 };

struct window {
	uint64_t lo, span;
	int64_t top; /* (keys are below 2^63: a top past it counts none above) */
	uint32_t flo, fspan; /* (the float keys' window) */
	int32_t ftop;
};

/* Where the keys come from: keys, or (keys NULL) |x - b| of floats. */
struct source {
	const uint64_t *keys;
	const float *b, *x;
};

static inline uint64_t key_at(const uint64_t *keys, const float *b, const float *x, size_t i,
                              int keyed)
{
	return keyed ? keys[i] : ckpt_magnitude_key_f32(x[i], b[i]);
}

static inline uint32_t float_key(float x, float b)
{
	float t = fabsf(x - b);
	uint32_t k;

	memcpy(&k, &t, sizeof k);
	return k;
}

/* The float key of key k (a window's edge: any integer below 2^63), in
 * the keys' order; those of Inf and NaN (an edge's, any) past every
 * float's: at least Inf's for the window's least, the largest for its
 * top. */
static uint32_t float_edge(uint64_t k, int top)
{
	double d;
	float f;
	uint32_t u;

	if (k >= UINT64_C(0x7ff0000000000000))
		return top ? 0x7fffffffu : 0x7f800000u;
	memcpy(&d, &k, sizeof d);
	f = (float)d;
	memcpy(&u, &f, sizeof u);
	return u;
}

/* Up to 64 keys from i: bit j of in[w] where key i + j is in window w. */
static inline void test_word(const uint64_t *restrict keys, size_t i, size_t m,
                             const struct window *w, int nw, uint64_t *above, uint64_t *in)
{
	uint64_t a0 = 0, a1 = 0, in0 = 0, in1 = 0;

	for (size_t j = 0; j < m; j++) {
		uint64_t key = keys[i + j];

		in0 |= (uint64_t)(key - w[0].lo <= w[0].span) << j;
		a0 += (int64_t)key > w[0].top ? 1u : 0u;
		if (nw > 1) {
			in1 |= (uint64_t)(key - w[1].lo <= w[1].span) << j;
			a1 += (int64_t)key > w[1].top ? 1u : 0u;
		}
	}
	in[0] = in0;
	in[WORDS] = in1;
	above[0] += a0;
	above[1] += a1;
}

/* (test_word() of float keys, 32 of them at most: 32-bit lanes
 * throughout) */
static inline void test_half_f32(const float *restrict b, const float *restrict x, size_t m,
                                 const struct window *w, int nw, uint32_t *above,
                                 uint32_t *in)
{
	uint32_t a0 = 0, a1 = 0, in0 = 0, in1 = 0;

	for (size_t j = 0; j < m; j++) {
		uint32_t key = float_key(x[j], b[j]);

		in0 |= (uint32_t)(key - w[0].flo <= w[0].fspan) << j;
		a0 += (int32_t)key > w[0].ftop ? 1u : 0u;
		if (nw > 1) {
			in1 |= (uint32_t)(key - w[1].flo <= w[1].fspan) << j;
			a1 += (int32_t)key > w[1].ftop ? 1u : 0u;
		}
	}
	in[0] = in0;
	in[1] = in1;
	above[0] += a0;
	above[1] += a1;
}

static inline void test_word_f32(const float *restrict b, const float *restrict x, size_t i,
                                 size_t m, const struct window *w, int nw, uint64_t *above,
                                 uint64_t *in)
{
	uint32_t lo[2], hi[2] = {0, 0}, a[2] = {0, 0};

	test_half_f32(b + i, x + i, m < 32 ? m : 32, w, nw, a, lo);
	if (m > 32)
		test_half_f32(b + i + 32, x + i + 32, m - 32, w, nw, a, hi);
	in[0] = (uint64_t)hi[0] << 32 | lo[0];
	in[WORDS] = (uint64_t)hi[1] << 32 | lo[1];
	above[0] += a[0];
	above[1] += a[1];
}

static inline void test_windows(const uint64_t *restrict keys, const float *restrict b,
                                const float *restrict x, size_t m, const struct window *w,
                                int nw, int keyed, uint64_t *above, uint64_t *in)
{
	size_t i = 0;

	for (; i < m; i += 64) {
		size_t n = m - i < 64 ? m - i : 64;

		if (keyed)
			test_word(keys, i, n, w, nw, above, in + i / 64);
		else
			test_word_f32(b, x, i, n, w, nw, above, in + i / 64);
	}
}

/* (each case its own loop: the count of windows and the source constant) */
CKPT_WIDE_VECTORS
static void test_run(const struct source *src, size_t off, size_t m, const struct window *w,
                     int nw, uint64_t *above, uint64_t *in)
{
	const uint64_t *k = src->keys ? src->keys + off : NULL;
	const float *b = src->keys ? NULL : src->b + off, *x = src->keys ? NULL : src->x + off;

	if (k && nw > 1)
		test_windows(k, b, x, m, w, 2, 1, above, in);
	else if (k)
		test_windows(k, b, x, m, w, 1, 1, above, in);
	else if (nw > 1)
		test_windows(k, b, x, m, w, 2, 0, above, in);
	else
		test_windows(k, b, x, m, w, 1, 0, above, in);
}

/* Where a boundary's gathered keys go: its lane's chunk of the room. */
struct gathering {
	struct boundary *bd;
	size_t c, end;
	int full;
};

static void gather(struct boundary **bd, int nw, int lane, const struct source *src,
                   uint64_t start, size_t n)
{
	struct window w[2];
	struct gathering g[2];
	uint64_t above[2] = {0, 0}, in[2 * WORDS];
	int live = nw;

	for (int k = 0; k < nw; k++) {
		w[k].lo = bd[k]->glo;
		w[k].span = bd[k]->ghi - bd[k]->glo;
		w[k].top = (w[k].lo + w[k].span) >> 63 ? INT64_MAX : (int64_t)(w[k].lo + w[k].span);
		w[k].flo = float_edge(w[k].lo, 0);
		w[k].ftop = (int32_t)float_edge((uint64_t)w[k].top, 1);
		w[k].fspan = (uint32_t)w[k].ftop - w[k].flo;
		g[k] = (struct gathering){bd[k], bd[k]->ncand[lane], bd[k]->cend[lane], 0};
	}
	for (size_t off = 0; live && off < n; off += RUN) {
		size_t m = n - off < RUN ? n - off : RUN;

		test_run(src, off, m, w, nw, above, in);
		for (int k = 0; k < nw; k++) {
			struct gathering *gk = &g[k];

			for (size_t i = 0; i < (m + 63) / 64; i++)
				for (uint64_t bits = in[k * WORDS + i]; bits && !gk->full;
				     bits &= bits - 1) {
					size_t j = off + 64 * i + (size_t)__builtin_ctzll(bits);
					uint64_t key = key_at(src->keys, src->b, src->x, j,
					                      src->keys != NULL);

					if (key - w[k].lo > w[k].span) { /* (a float key's edge) */
						above[k] += (int64_t)key > w[k].top;
						continue;
					}
					if (put(gk->bd, lane, &gk->c, &gk->end,
					        (struct candidate){key, start + j}) < 0) {
						gk->full = 1; /* (its guess is dropped) */
						live--;
					}
				}
		}
	}
	for (int k = 0; k < nw; k++) {
		g[k].bd->above[lane] += above[k];
		g[k].bd->ncand[lane] = g[k].c;
		g[k].bd->cend[lane] = g[k].end;
	}
}

void ckpt_topk_gather(struct boundary **bd, int nw, int lane, const uint64_t *keys,
                      uint64_t start, size_t n)
{
	gather(bd, nw, lane, &(struct source){keys, NULL, NULL}, start, n);
}

void ckpt_topk_gather_f32(struct boundary **bd, int nw, int lane, const float *b,
                          const float *x, uint64_t start, size_t n)
{
	gather(bd, nw, lane, &(struct source){NULL, b, x}, start, n);
}

/* The keys the lanes gathered, moved to the start of the shared room: the
 * rest of each lane's last chunk left out. */
static size_t gathered(struct boundary *b)
{
	size_t all = LANES * b->room, used = atomic_load(&b->used), n = 0;

	used = used < all ? used : all;
	for (size_t i = 0; i < used; i++) {
		int rest = 0;

		for (int l = 0; l < LANES; l++)
			rest |= i >= b->ncand[l] && i < b->cend[l];
		if (!rest)
			b->cand[0][n++] = b->cand[0][i];
	}
	return n;
}

/* Where the first pass's gathered keys hold the boundary, it is found
 * among them, without another pass. */
static void guess_beside(struct boundary *b, uint64_t above, size_t n);

void ckpt_topk_guessed(struct boundary *b)
{
	uint64_t above = 0;
	size_t n = 0;
	int over = 0;
	struct candidate c;

	b->guessing = 0;
	for (int l = 0; l < LANES; l++) {
		above += b->above[l];
		over |= b->overflow[l];
	}
	if (!over)
		n = gathered(b);
	if (over || b->rank < above || b->rank - above >= n) {
		for (int l = 0; l < LANES; l++) {
			free(b->cand[l]);
			b->cand[l] = NULL;
			b->ncand[l] = 0;
		}
		if (!b->hist_too) { /* (the next pass is the histograms') */
			b->ends = 1;
			if (!over)
				guess_beside(b, above, n);
		}
		return;
	}
	c = ckpt_topk_kth(b->cand[0], n, b->rank - above);
	b->cut = (ckpt_rank_cut){c.key, c.index, 0};
	ckpt_topk_free_lanes(b);
	b->phase = DONE;
}

/* Sample keys per model: SAMPLE_BYTES' share, or as many as make the
 * window the room allows (guess_one()) as wide as 3 of the sample's
 * standard deviations of each boundary's rank - where SAMPLE_MOST allows. */
static size_t per_model(const ckpt_topk *t)
{
	size_t nm = t->nb / 2 ? t->nb / 2 : 1, n = SAMPLE_BYTES / sizeof *t->sample / nm;
	size_t most = SAMPLE_MOST / sizeof *t->sample / nm;

	for (size_t i = 0; i < t->nb; i++) {
		const struct boundary *b = &t->b[i];
		double q = (double)b->rem / (double)t->n, s, need;

		if (b->phase != HISTOGRAM)
			continue;
		/* (h = cap ns / 4n >= 3 sqrt(q (1 - q) ns), and a tenth more) */
		s = 12 * (double)t->n * sqrt(q * (1 - q)) / (double)t->cap;
		need = 1.1 * s * s;
		n = need <= (double)n ? n : need >= (double)most ? most : (size_t)need;
	}
	return n;
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

/* How many of the sample's keys are lo, and (another key) hi. */
static void sample_edges(const struct candidate *s, size_t ns, uint64_t lo, uint64_t hi,
                         size_t *nlo, size_t *nhi)
{
	*nlo = *nhi = 0;
	for (size_t i = 0; i < ns; i++) {
		*nlo += s[i].key == lo;
		*nhi += s[i].key == hi && hi != lo;
	}
}

/* A window of keys around where the sample s puts rank `rank` of n: as
 * wide as half the candidates' room allows, the sample's ranks p - h ..
 * p + h.  (Only for large variables: a smaller one's passes cost less
 * than the sample's selection.)  Where that is within 3 standard
 * deviations of the sample's rank (sqrt(q (1 - q) ns), q = p / ns) a
 * miss is likely: the window is 6 of them either side, narrowed as the
 * pass goes (guess_one()).  Here: the sample's ranks of the window's
 * edges, its least key's then its largest's (outside the sample: that
 * edge open), or 0 where b takes no guess. */
static int window_ranks(struct boundary *b, size_t ns, uint64_t n, size_t cap, double r[2])
{
	double p = (double)b->rem * (double)ns / (double)n, h = (double)cap * ns / 4.0 / (double)n;
	double q = p / (double)(ns ? ns : 1), sd = sqrt(q * (1 - q) * (double)ns);

	if (b->phase != HISTOGRAM || b->known != 1 || ns == 0 || h < 16 || n < 2 * (uint64_t)cap)
		return 0;
	b->narrows = h < sd * 3;
	b->hist_too = 0;
	b->rank = b->rem;
	b->ghi = UINT64_MAX;
	b->glo = 0;
	/* (gathered as widely where a miss is likely: narrowed as the pass goes) */
	r[0] = b->narrows ? p + 6 * sd + 1 : p + h + 1;
	r[1] = b->narrows ? p - 6 * sd : p - h;
	return 1;
}

/* Whether the sample's parts disagree on how many keys are above hi and
 * how many are at least lo (or the sample is too small to tell): the
 * sample taken in flat order (its index), in GROUPS parts; chi-square
 * over them, each against its degrees of freedom plus 4 standard
 * deviations (a variable alike throughout exceeds that about once in a
 * thousand).  (An open edge, UINT64_MAX or 0, says nothing.) */
enum { GROUPS = 16 };

static double chi_square(const double *all, const double *in, size_t ns)
{
	double q = 0, x2 = 0;

	for (int g = 0; g < GROUPS; g++)
		q += in[g];
	q /= (double)ns;
	for (int g = 0; q > 0 && q < 1 && g < GROUPS; g++) {
		double e = all[g] * q;

		x2 += all[g] ? (in[g] - e) * (in[g] - e) / (e * (1 - q)) : 0;
	}
	return x2;
}

static int parts_disagree(const struct candidate *s, size_t ns, uint64_t lo, uint64_t hi)
{
	double all[GROUPS] = {0}, above[GROUPS] = {0}, from[GROUPS] = {0};
	double bound = (GROUPS - 1) + 4 * sqrt(2.0 * (GROUPS - 1));

	if (ns < 64 * GROUPS)
		return 1;
	for (size_t i = 0; i < ns; i++) {
		size_t g = (size_t)(s[i].index * GROUPS / ns);

		g = g < GROUPS ? g : GROUPS - 1;
		all[g]++;
		above[g] += s[i].key > hi;
		from[g] += s[i].key >= lo;
	}
	return (hi != UINT64_MAX && chi_square(all, above, ns) > bound) ||
	       (lo != 0 && chi_square(all, from, ns) > bound);
}

static int by_value(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return (a > b) - (a < b);
}

/* The most sample keys of one key in the window [lo, hi], and that key
 * (UINT64_MAX: none there; without memory to count them, ns and none). */
static size_t largest_run(const struct candidate *s, size_t ns, uint64_t lo, uint64_t hi,
                          uint64_t *key)
{
	size_t m = 0, most = 0;
	uint64_t *in = malloc((ns + 1) * sizeof *in);

	*key = UINT64_MAX;
	if (!in)
		return ns; /* (as if one: the histograms fed beside) */
	for (size_t i = 0; i < ns; i++)
		if (s[i].key >= lo && s[i].key <= hi)
			in[m++] = s[i].key;
	qsort(in, m, sizeof *in, by_value);
	for (size_t i = 0, j; i < m; i = j) {
		for (j = i; j < m && in[j] == in[i]; j++)
			;
		if (j - i > most) {
			most = j - i;
			*key = in[i];
		}
	}
	free(in);
	return most;
}

/* The rest of b's guess, its window's edges set.  A run of equal keys at
 * an edge of the window - the boundary among them, zeros say, or one
 * value of a coarse type - may hold more than the room: the histograms
 * fed beside then find the key, and how many are it and above it, in this
 * pass.  A window narrowed as the pass goes has gathered keys for edges:
 * it fails where a run within it is too large to narrow around (with
 * the band narrow_one() keeps, more than the room, at 3 of the sample's
 * standard deviations) or where the variable's start is unlike the rest
 * (the narrowing takes the keys seen as a sample): the histograms are fed
 * beside only then: elsewhere a miss (rare) costs a pass, and feeding
 * them costs about that much in every guess. */
static void guess_one(struct boundary *b, const struct candidate *s, size_t ns, uint64_t n,
                      size_t cap)
{
	size_t lo, hi;

	if (b->narrows) {
		double run;

		lo = largest_run(s, ns, b->glo, b->ghi, &b->run);
		run = ((double)lo + 3 * sqrt((double)lo)) * (double)n / (double)ns;
		b->ends = run + (double)cap / 4 > (double)cap;
		b->run = b->ends ? b->run : UINT64_MAX;
		b->hist_too = b->ends || parts_disagree(s, ns, b->glo, b->ghi);
	} else {
		sample_edges(s, ns, b->glo, b->ghi, &lo, &hi);
		b->ends = (double)(lo + hi) * (double)n / (double)ns > (double)cap / 4;
		b->run = b->ends ? (lo >= hi ? b->glo : b->ghi) : UINT64_MAX;
		b->narrows = b->hist_too = b->ends; /* (the run may fill it: narrowed) */
	}
	b->room = cap / 2;
	b->guessing = 1;
}

/* Room for a guess's keys: one array, the lanes' chunks in it, none
 * taken yet (without it, the guess is dropped: only slower). */
static void guess_room(struct boundary *b)
{
	if (b->guessing && !(b->cand[0] = malloc((LANES * b->room + 1) * sizeof *b->cand[0])))
		b->guessing = 0;
	for (int l = 0; l < LANES; l++)
		b->ncand[l] = b->cend[l] = b->above[l] = b->overflow[l] = 0;
	atomic_init(&b->used, 0);
}

/* A guess that missed its window, the histograms not fed beside: the
 * next pass (a histogram's) also gathers half the room's worth of keys
 * around where the keys' density in that window puts the boundary, beside
 * it - a sample's error is mostly small.  Not where it lies further off
 * than 4 windows' worth of keys (the histograms find it, as without). */
static void guess_beside(struct boundary *b, uint64_t above, size_t n)
{
	double per = (double)n / ((double)(b->ghi - b->glo) + 1); /* keys a unit */
	double half = (double)(LANES * b->room) / 4 / per, at, lo, hi;
	uint64_t off = b->rank < above ? above - b->rank : b->rank - above - n + 1;

	if (n < 16 || off > 4 * (uint64_t)n)
		return;
	if (b->rank < above) { /* (the off-th key above the window) */
		at = (double)b->ghi + (double)off / per;
		lo = at - half > (double)b->ghi + 1 ? at - half : (double)b->ghi + 1;
		hi = at + half;
	} else {               /* (the off-th below it) */
		at = (double)b->glo - (double)off / per;
		lo = at - half;
		hi = at + half < (double)b->glo - 1 ? at + half : (double)b->glo - 1;
	}
	if (!(hi >= 0 && lo < 0x1p63 && lo <= hi))
		return;
	b->glo = lo <= 0 ? 0 : (uint64_t)lo;
	b->ghi = hi >= 0x1p63 ? INT64_MAX : (uint64_t)hi;
	b->narrows = b->hist_too = b->guessing = 1;
	b->stuck = 0;
	guess_room(b);
}

/* A likely-missed guess, between a pass's slabs (no lane feeding): once
 * its keys fill half the room, its window is narrowed to the gathered
 * keys around where the elements seen so far put the boundary - 5
 * standard deviations of that place (of q (1 - q) seen (1 - seen / n))
 * either side, at most an eighth of the room (it fills to half again
 * before the next) - those above it counted as above.  Where they put it
 * further outside the window than that, the guess is dropped (no more
 * keys gathered); where the window stays half full (equal keys), it is
 * not narrowed again.  Where the elements seen mislead (a tensor whose parts
 * differ), the boundary may fall outside the window: the histograms fed
 * beside (where the sample's parts disagree: guess_one()) find it, as they
 * would without; else the next pass is theirs. */
static void narrow_one(struct boundary *b, uint64_t seen, uint64_t n)
{
	size_t all = LANES * b->room, ng, w, a, z, kept = 0;
	uint64_t above = 0, moved = 0, hi = b->ghi, lo = b->glo;
	double f = (double)seen / (double)n, q = (double)b->rank / (double)n, r, sd;

	if (b->phase != HISTOGRAM || !b->guessing || !b->narrows || b->stuck || seen >= n ||
	    atomic_load(&b->used) < all / 2)
		return;
	for (int l = 0; l < LANES; l++) {
		if (b->overflow[l])
			return;
		above += b->above[l];
	}
	ng = gathered(b);
	r = (double)b->rank * f - (double)above; /* (its rank among them) */
	sd = sqrt(q * (1 - q) * (double)seen * (1 - f));
	w = 5 * sd + 16 < (double)all / 8 ? (size_t)(5 * sd) + 16 : all / 8;
	if (ng == 0 || r < -(double)w || r >= (double)(ng + w)) {
		for (int l = 0; l < LANES; l++)
			b->overflow[l] = 1;
		return;
	}
	a = r > (double)w ? (size_t)r - w : 0;
	z = r + (double)w < (double)ng ? (size_t)(r + (double)w) : ng - 1;
	z = z < a ? a : z;
	ckpt_topk_select_rank(b->cand[0], ng, a);
	hi = a ? b->cand[0][a].key : hi;
	ckpt_topk_select_rank(b->cand[0] + a, ng - a, z - a);
	lo = z < ng - 1 ? b->cand[0][z].key : lo;
	for (size_t i = 0; i < ng; i++) {
		uint64_t key = b->cand[0][i].key;

		moved += key > hi;
		if (key <= hi && key >= lo)
			b->cand[0][kept++] = b->cand[0][i];
	}
	b->above[0] += moved;
	b->ghi = hi;
	b->glo = lo;
	for (int l = 0; l < LANES; l++)
		b->ncand[l] = b->cend[l] = 0;
	atomic_store(&b->used, kept);
	b->stuck = kept >= all / 2; /* (equal keys: not tried again) */
}

void ckpt_topk_narrow(ckpt_topk *t, uint64_t seen)
{
	for (size_t i = 0; i < t->nb; i++)
		narrow_one(&t->b[i], seen, t->n);
}

/* A histogram pass after the first: the group of keys known so far (its
 * top `known` bits, count of them, the boundary rem-th from its top) is
 * narrow - within one binade, 2^-5 of it or less - so that ranks in it are
 * nearly linear in values, whatever the order the elements come in (the
 * whole variable's counts, not a sample of its start).  The pass also
 * gathers the keys around where that puts the boundary, half the room's
 * worth, so that it may end there (else the histogram decides, as
 * without; it is not narrowed). */
void ckpt_topk_guess_within(struct boundary *b, uint64_t count, size_t cap)
{
	int bits = 64 - b->known;
	double span = ldexp(1, bits), at = ((double)b->rem + 0.5) / (double)count;
	double half = (double)cap / 4 / (double)count, hi, lo;

	if (bits > 52 || count <= cap || cap < 16)
		return;
	hi = span * (1 - at + half); /* (offsets from the prefix) */
	lo = span * (1 - at - half);
	b->ghi = b->prefix + (hi >= span ? (uint64_t)span - 1 : (uint64_t)hi);
	b->glo = b->prefix + (lo <= 0 ? 0 : (uint64_t)lo);
	b->narrows = b->hist_too = b->guessing = b->stuck = 1;
	b->room = cap / 2;
	guess_room(b);
}

static void guess_task(ckpt_topk *t, size_t k)
{
	struct candidate *s = t->sample + k * t->per_model;
	size_t ns = t->nsample[k];
	struct boundary *b = &t->b[2 * k];
	double r[2][2];
	size_t want[CKPT_TOPK_RANKS], nw = 0, i = 0;
	struct candidate got[CKPT_TOPK_RANKS];
	int on[2];

	/* (the model's two boundaries' edges from one count of the sample) */
	for (int j = 0; j < 2; j++) {
		on[j] = window_ranks(&b[j], ns, t->n, t->cap, r[j]);
		for (int e = 0; on[j] && e < 2; e++)
			if (r[j][e] >= 0 && r[j][e] < (double)ns)
				want[nw++] = (size_t)r[j][e];
	}
	if (ckpt_topk_ranks(s, ns, want, nw, got) < 0)
		for (size_t w = 0; w < nw; w++) { /* (no room: the sample reordered) */
			ckpt_topk_select_rank(s, ns, want[w]);
			got[w] = s[want[w]];
		}
	for (int j = 0; j < 2; j++) {
		for (int e = 0; on[j] && e < 2; e++)
			if (r[j][e] >= 0 && r[j][e] < (double)ns)
				*(e ? &b[j].ghi : &b[j].glo) = got[i++].key;
		if (on[j])
			guess_one(&b[j], s, ns, t->n, t->cap);
	}
}

void ckpt_topk_guess(ckpt_topk *t)
{
	if (t->sample)
		ckpt_topk_spread(guess_task, t, t->nb / 2, ckpt_topk_large(t));
	free(t->sample);
	free(t->nsample);
	t->sample = NULL;
	t->nsample = NULL;
	for (size_t i = 0; i < t->nb; i++) /* (once the sample's memory is back) */
		guess_room(&t->b[i]);
}
