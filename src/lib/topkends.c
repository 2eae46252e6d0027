/* topkends.c - a boundary among many equal keys (zeros, a frozen
 * tensor's or a fine-tune's; one value of a coarse type): a histogram
 * pass also counts its group's least and largest keys and a run of one
 * key the sample saw, feed by feed, and where the boundary is one of
 * them its key is known whole at the pass's end - and, in a run, the one
 * feed that holds its index. */
#include "topkint.h"
#include "vec.h"

#include <stdlib.h>
#include <string.h>

/* Lane l's feeds of lo's run into hi's (a histogram shared). */
static void copy_feeds(struct boundary *hi, const struct boundary *lo, int l)
{
	free(hi->feeds[l]);
	hi->feeds[l] = NULL;
	hi->nfeeds[l] = hi->capfeeds[l] = 0;
	hi->feeds_lost |= lo->feeds_lost;
	if (!lo->nfeeds[l])
		return;
	if (!(hi->feeds[l] = malloc(lo->nfeeds[l] * sizeof *hi->feeds[l]))) {
		hi->feeds_lost = 1;
		return;
	}
	memcpy(hi->feeds[l], lo->feeds[l], lo->nfeeds[l] * sizeof *hi->feeds[l]);
	hi->nfeeds[l] = hi->capfeeds[l] = lo->nfeeds[l];
}

/* The run's keys of a feed, recorded (without room, none is looked for
 * by its feed) - with the feed before where it ends at this one's start
 * and the two hold at most FEED_MOST elements: where the run's key is in
 * every feed (a coarse type's fine-tune, fed 512 keys at a time), a
 * record per feed would grow to megabytes for each boundary and lane. */
enum { FEED_MOST = 4096 };

static void note_feed(struct boundary *b, int lane, uint64_t start, size_t n, uint64_t count)
{
	struct run_feed *f = b->nfeeds[lane] ? &b->feeds[lane][b->nfeeds[lane] - 1] : NULL;

	if (f && f->start + f->n == start && f->n + n <= FEED_MOST) {
		f->n += n;
		f->count += count;
		return;
	}
	if (b->nfeeds[lane] == b->capfeeds[lane]) {
		size_t cap = b->capfeeds[lane] ? 2 * b->capfeeds[lane] : 256;

		if (!(f = realloc(b->feeds[lane], cap * sizeof *f))) {
			b->feeds_lost = 1;
			return;
		}
		b->feeds[lane] = f;
		b->capfeeds[lane] = cap;
	}
	b->feeds[lane][b->nfeeds[lane]++] = (struct run_feed){start, n, count};
}

void ckpt_topk_merge_ends(struct group_ends *e, const struct group_ends *f)
{
	e->nleast = f->least < e->least ? f->nleast : f->least == e->least ? e->nleast + f->nleast
	                                                                   : e->nleast;
	e->least = f->least < e->least ? f->least : e->least;
	e->nmost = f->most > e->most ? f->nmost : f->most == e->most ? e->nmost + f->nmost
	                                                             : e->nmost;
	e->most = f->most > e->most ? f->most : e->most;
	e->nrun += f->nrun;
	e->arun += f->arun;
}

/* The group's least and largest keys among keys[0..n) (prefix under
 * top) into e's, and how many have each: counted against e's so far in a
 * loop that vectorises (in one loop with the histogram's increments they
 * made a dependent chain through every key); the piece looked at again,
 * key by key, where it holds a new end - the first pieces, mostly. */
CKPT_WIDE_VECTORS
static void count_ends(const uint64_t *keys, size_t n, uint64_t top, uint64_t prefix,
                       struct group_ends *e)
{
	uint64_t least = e->least, most = e->most, nl = 0, nm = 0, out = 0;
	struct group_ends p;

	for (size_t i = 0; i < n; i++) {
		uint64_t key = keys[i], in = (key & top) == prefix;

		out += in & ((key < least) | (key > most));
		nl += in & (key == least);
		nm += in & (key == most);
	}
	if (!out) {
		e->nleast += nl;
		e->nmost += nm;
		return;
	}
	p = (struct group_ends){UINT64_MAX, 0, 0, 0, 0, 0};

	for (size_t i = 0; i < n; i++) {
		uint64_t key = keys[i];

		if ((key & top) != prefix)
			continue;
		p.nleast = key < p.least ? 0 : p.nleast;
		p.least = key < p.least ? key : p.least;
		p.nleast += key == p.least;
		p.nmost = key > p.most ? 0 : p.nmost;
		p.most = key > p.most ? key : p.most;
		p.nmost += key == p.most;
	}
	ckpt_topk_merge_ends(e, &p);
}

CKPT_WIDE_VECTORS
void ckpt_topk_count_run(struct boundary *b, int lane, const uint64_t *keys, uint64_t start,
                         size_t n, uint64_t top)
{
	uint64_t nr = 0, ar = 0, run = b->run, prefix = b->prefix;

	if (run == UINT64_MAX) /* (none) */
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t key = keys[i], in = (key & top) == prefix;

		nr += in & (key == run);
		ar += in & (key > run);
	}
	b->e[lane].nrun += nr;
	b->e[lane].arun += ar;
	if (nr)
		note_feed(b, lane, start, n, nr);
}

void ckpt_topk_count_ends(struct boundary *b, int lane, const uint64_t *keys, uint64_t start,
                          size_t n, uint64_t top)
{
	count_ends(keys, n, top, b->prefix, &b->e[lane]);
	ckpt_topk_count_run(b, lane, keys, start, n, top);
}

void ckpt_topk_share_ends(struct boundary *hi, const struct boundary *lo, int l)
{
	struct group_ends own = hi->e[l];

	hi->e[l] = lo->e[l];
	if (hi->run == lo->run) {
		copy_feeds(hi, lo, l);
	} else { /* (its own run's counts) */
		hi->e[l].nrun = own.nrun;
		hi->e[l].arun = own.arun;
	}
}

/* The boundary's key is known whole: key, with skip of its group above
 * it (a run of equal keys, ranked by index: its rank among them next). */
static void known_whole(struct boundary *b, uint64_t key, uint64_t skip)
{
	b->rem -= skip;
	b->prefix = key;
	b->known = 64;
}

/* Every key of the variable is one (its first group: a frozen tensor's
 * zeros): the boundary is the element at its rank. */
static int all_one(struct boundary *b)
{
	b->cut = (ckpt_rank_cut){b->e[0].most, b->rem, 0};
	ckpt_topk_free_lanes(b);
	b->phase = DONE;
	return 0;
}

/* The boundary is the group's largest key or its least. */
static int at_an_end(struct boundary *b, size_t cap)
{
	const struct group_ends *e = &b->e[0];

	if (b->rem < e->nmost) {
		known_whole(b, e->most, 0);
		return ckpt_topk_next_phase(b, e->nmost, cap);
	}
	known_whole(b, e->least, b->counted - e->nleast);
	return ckpt_topk_next_phase(b, e->nleast, cap);
}

static int by_start(const void *pa, const void *pb)
{
	const struct run_feed *a = pa, *b = pb;

	return (a->start > b->start) - (a->start < b->start);
}

/* The feed that holds the rem-th of the run's keys in flat order: its
 * elements alone are looked at for the index, the rem-th among them. */
static void in_one_feed(struct boundary *b, struct run_feed *f, size_t n)
{
	uint64_t rem = b->rem;

	qsort(f, n, sizeof *f, by_start);
	for (size_t i = 0; i < n; rem -= f[i++].count)
		if (rem < f[i].count) {
			b->rem = rem;
			b->from = f[i].start;
			b->to = f[i].start + f[i].n;
			return;
		}
}

/* The boundary is among the group's keys equal to the run's: with the
 * lanes' feeds (taken before the phase's change frees them) its index is
 * looked for in one feed, however many the run's keys. */
static int in_the_run(struct boundary *b, size_t cap)
{
	struct run_feed *f = NULL;
	size_t n = 0;
	uint64_t all = b->e[0].nrun;

	for (int l = 0; l < LANES; l++)
		n += b->nfeeds[l];
	known_whole(b, b->run, b->e[0].arun);
	if (b->feeds_lost || !(f = malloc((n + 1) * sizeof *f)))
		return ckpt_topk_next_phase(b, all, cap);
	n = 0;
	for (int l = 0; l < LANES; n += b->nfeeds[l++])
		if (b->nfeeds[l])
			memcpy(f + n, b->feeds[l], b->nfeeds[l] * sizeof *f);
	ckpt_topk_free_lanes(b);
	b->counted = all;
	b->phase = INDEX;
	in_one_feed(b, f, n);
	free(f);
	return 0;
}

int ckpt_topk_among_equal(struct boundary *b, size_t cap, int *rc)
{
	const struct group_ends *e = &b->e[0];

	/* (the run before the ends: its feeds are known) */
	if (b->known == 1 && e->least == e->most)
		*rc = all_one(b);
	else if (b->rem >= e->arun && b->rem - e->arun < e->nrun)
		*rc = in_the_run(b, cap);
	else if (b->rem < e->nmost || b->rem >= b->counted - e->nleast)
		*rc = at_an_end(b, cap);
	else
		return 0;
	return 1;
}
