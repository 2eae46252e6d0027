/* topkint.h - (internal to libckpt) what topk.c (the radix select: its
 * histograms, candidates and passes), topkends.c (a boundary among many
 * equal keys) and topkguess.c (the guesses from a sample that may save
 * its passes) share: the boundaries' state and the steps each takes of
 * the others'. */
#ifndef CKPT_TOPKINT_H
#define CKPT_TOPKINT_H

#include "topk.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define DIGIT 16
#define CANDIDATE_BYTES (16u << 20) /* for the elements of every boundary */
#define LANES 2                     /* threads feeding a pass at once */

enum phase { HISTOGRAM, COLLECT, INDEX, DONE };

struct candidate {
	uint64_t key, index;
};

struct run_feed {
	uint64_t start, n, count;
};

/* A group's least and largest keys and how many have each; how many
 * have the run's key, and how many are above it. */
struct group_ends {
	uint64_t least, most, nleast, nmost, nrun, arun;
};

/* One boundary: the element at rank `rank`, among the keys whose top
 * `known` bits are `prefix`; within them, `rem` rank above it. */
struct boundary {
	enum phase phase;
	int known;
	uint64_t prefix, rem, seen;
	uint64_t *hist[LANES];  /* (made as a lane first counts one: most
	                         * boundaries - a guess's, a small variable's -
	                         * never do, and 512 KiB zeroed each cost) */
	int nomem[LANES];       /* a lane's histogram could not be made */
	struct candidate *cand[LANES];
	size_t ncand[LANES];
	ckpt_rank_cut cut;
	/* a guess: the first pass also gathers the keys in [glo, ghi] and
	 * counts those above, for the boundary's rank `rank` */
	int guessing, overflow[LANES];
	int narrows;            /* a likely miss: its wide window narrowed */
	int hist_too;           /* the histograms fed beside: a miss costs no
	                         * pass */
	int stuck;              /* its window narrowed no further */
	size_t room;            /* per lane: cand[0] holds LANES * room */
	/* (the lanes take chunks of cand[0] as they fill them, however unevenly
	 * a pass's pieces fall to them: ncand[l] .. cend[l] is what is left of
	 * lane l's; used, what the lanes have taken) */
	atomic_size_t used;
	size_t cend[LANES];
	uint64_t glo, ghi, rank, above[LANES];
	/* the keys of the group (prefix) as the pass before counted them
	 * (collecting: a lane's room); a pass that meets other than that -
	 * the values changed since - is told (ckpt_topk_end_pass()) */
	uint64_t counted;
	int changed[LANES];
	/* where ends (a histogram's passes, a guess's whose window meets a
	 * run of equal keys), each lane's count of the group's ends: where the
	 * boundary is one of them, its key is known whole (a boundary among
	 * many equal magnitudes: zeros, a constant) - and of the run, a key
	 * the guess's sample had many of at its window's edge (none:
	 * UINT64_MAX) */
	int ends;
	uint64_t run;
	struct group_ends e[LANES];
	/* and the run's keys feed by feed (a lane's: the elements' start, how
	 * many, how many of them the run's key), so that an index among them
	 * is looked for in the one feed that holds it: from .. to (to 0: all) */
	struct run_feed *feeds[LANES];
	size_t nfeeds[LANES], capfeeds[LANES];
	int feeds_lost;
	uint64_t from, to;
};

struct ckpt_topk {
	size_t nb;
	size_t cap;         /* candidates per boundary */
	struct boundary *b; /* model k: b[2k] (lo), b[2k + 1] (hi) */
	uint64_t n;
	struct candidate *sample; /* model k's: per_model from k per_model */
	size_t per_model;
	size_t *nsample;
	atomic_int failed; /* (out of memory in a selection: -1; CKPT_TOPK_CHANGED) */
};

/* ---- topk.c ---- */
void ckpt_topk_free_lanes(struct boundary *b);
/* Reorder c[0..n) so that c[k] is the k-th by rank. */
void ckpt_topk_select_rank(struct candidate *c, size_t n, size_t k);
/* The k-th by rank of c[0..n), which it leaves in any order. */
struct candidate ckpt_topk_kth(struct candidate *c, size_t n, size_t k);
/* The ones ranked r[0..nr) (each below n, nr at most CKPT_TOPK_RANKS) of
 * c[0..n), which it leaves as they are, into out (-1: out of memory). */
enum { CKPT_TOPK_RANKS = 4 };
int ckpt_topk_ranks(const struct candidate *c, size_t n, const size_t *r, size_t nr,
                    struct candidate *out);
/* After a digit is known: the boundary's next phase (-1: out of memory). */
int ckpt_topk_next_phase(struct boundary *b, uint64_t count, size_t cap);
/* Tasks 0..n-1 by fn, on this thread and (two) one more. */
void ckpt_topk_spread(void (*fn)(ckpt_topk *t, size_t i), ckpt_topk *t, size_t n, int two);
int ckpt_topk_large(const ckpt_topk *t);

/* ---- topkends.c ---- */
/* A histogram pass's keys[0..n) (the group's: prefix under top) counted
 * into the lane's ends and run (where ends), or into its run alone (a
 * model's hi, lo's histogram shared). */
void ckpt_topk_count_ends(struct boundary *b, int lane, const uint64_t *keys, uint64_t start,
                          size_t n, uint64_t top);
void ckpt_topk_count_run(struct boundary *b, int lane, const uint64_t *keys, uint64_t start,
                         size_t n, uint64_t top);
/* Other ends (another lane's, a piece's: f) into e. */
void ckpt_topk_merge_ends(struct group_ends *e, const struct group_ends *f);
/* Lane l's ends of lo into hi, whose histogram is lo's: its run's counts
 * and feeds its own where its run is another. */
void ckpt_topk_share_ends(struct boundary *hi, const struct boundary *lo, int l);
/* At a histogram pass's end (where ends): whether the boundary is among
 * equal keys - every key one, in the run, at an end - and so taken on
 * (its next phase set, *rc 0, or -1 out of memory). */
int ckpt_topk_among_equal(struct boundary *b, size_t cap, int *rc);

/* ---- topkguess.c ---- */
/* Guessing boundaries' pass: their windows' keys gathered, those above
 * them counted, for nw boundaries of one model at once (1 or 2), from
 * keys or from float32 values keyed as they are fed. */
void ckpt_topk_gather(struct boundary **b, int nw, int lane, const uint64_t *keys,
                      uint64_t start, size_t n);
void ckpt_topk_gather_f32(struct boundary **b, int nw, int lane, const float *base,
                          const float *x, uint64_t start, size_t n);
/* At the pass's end: the boundary found among the gathered keys, or the
 * guess dropped. */
void ckpt_topk_guessed(struct boundary *b);
/* A histogram pass's guess within the group known (count keys). */
void ckpt_topk_guess_within(struct boundary *b, uint64_t count, size_t cap);

#endif
