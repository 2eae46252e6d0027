/* topk.h - the element at a given rank of a variable's magnitudes, found
 * exactly in a few streamed passes (radix select over the keys' bit
 * patterns, not a sort): a histogram of the next 16 bits of the keys in
 * the part still undecided, and once that part is small (or the key is
 * known to its last bit) its elements themselves.  Ranks count larger keys
 * first, equal keys by lower flat index. */
#ifndef CKPT_TOPK_H
#define CKPT_TOPK_H

#include <stddef.h>
#include <stdint.h>

#include "method.h"

typedef struct ckpt_topk ckpt_topk;

/* Boundaries at ranks lo and hi (hi >= lo) in each of nmodels sets of n
 * keys; NULL when out of memory. */
ckpt_topk *ckpt_topk_new(size_t nmodels, uint64_t n, uint64_t lo, uint64_t hi);
void ckpt_topk_free(ckpt_topk *t);

/* Before the first pass, optionally: some of model k's keys (the
 * variable's first ones), then ckpt_topk_guess(): where they predict a
 * boundary's key, the first pass also gathers the keys around it, and when
 * it lies among them no other pass is needed.  (Only speed depends on the
 * sample.)  How many keys of each model it takes (0: no sample wanted). */
size_t ckpt_topk_wants_sample(const ckpt_topk *t); /* (a large variable) */
void ckpt_topk_sample(ckpt_topk *t, size_t k, const uint64_t *keys, size_t n);
void ckpt_topk_guess(ckpt_topk *t);

/* Whether another pass over the keys is needed. */
int ckpt_topk_more(const ckpt_topk *t);
/* Where the next pass needs only some elements (every boundary left is
 * a known key's index, each known to lie in a range): range i (from 0),
 * [*from, *to), as 1; 0 past the last - and for i = 0 where the pass is
 * a whole one.  The elements of every range are fed in flat order, on one
 * lane (the boundaries each look at their own range). */
int ckpt_topk_range(const ckpt_topk *t, size_t i, uint64_t *from, uint64_t *to);
/* How many threads may feed this pass at once, each its own lane (from
 * 0): 2, or 1 where a boundary's key is known and its index is looked for
 * in flat order. */
int ckpt_topk_lanes(const ckpt_topk *t);
/* Keys of model k for the elements [start, start + n): within a pass each
 * element once, in flat order within each lane. */
void ckpt_topk_feed(ckpt_topk *t, int lane, size_t k, const uint64_t *keys, uint64_t start,
                    size_t n);
/* The same for the keys of float32 values x against b (method.h's
 * ckpt_magnitude_key_f32()), computed as they are fed: where a guess only
 * gathers, nothing stored but the keys in its window. */
void ckpt_topk_feed_f32(ckpt_topk *t, int lane, size_t k, const float *b, const float *x,
                        uint64_t start, size_t n);
/* Within a pass, between its slabs, optionally (no lane feeding): the
 * first `seen` elements of every model fed.  A guess whose miss was
 * likely gathers widely; once the elements seen tell more than its sample
 * did, it narrows its window to where they put the boundary, so that it
 * may still be found in this pass.  (Only speed depends on it.) */
void ckpt_topk_narrow(ckpt_topk *t, uint64_t seen);
/* After a pass: decide what the histograms and elements tell.  -1: out
 * of memory; CKPT_TOPK_CHANGED: the pass met other keys than the passes
 * before counted (the values changed between passes: nothing is found). */
#define CKPT_TOPK_CHANGED (-2)
int ckpt_topk_end_pass(ckpt_topk *t);
/* Model k's boundaries, once ckpt_topk_more() is 0. */
void ckpt_topk_cuts(const ckpt_topk *t, size_t k, ckpt_rank_cut *lo, ckpt_rank_cut *hi);

#endif
