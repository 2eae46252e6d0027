/* pieces.h - ckpt-average's measuring passes (method.c): every input of
 * a variable read slab by slab, each slab taken a piece at a time on two
 * threads; the magnitude windows (method.c) and the dot products
 * (dots.c) are measured with them. */
#ifndef CKPT_AVERAGE_PIECES_H
#define CKPT_AVERAGE_PIECES_H

#include <stdint.h>

#include "average/average.h"

/* Values converted and keyed at a time in the first passes. */
#define PIECE 4096

/* The elements a pass reads: the slabs that hold [from, to) (to 0: to the
 * end); a pass reads each of its spans in turn, in slabs of `per` elements
 * (0: AVG_SLAB_BYTES). */
struct span {
	uint64_t from, to;
};

struct spans {
	const struct span *at;
	size_t n, per;
};

static const struct span whole = {0, 0};

/* One pass over the variable (or the slabs of spans of it), each piece of
 * every input to fn, in flat order on one thread; or (split) on two, each
 * with its ctx (ctx[0], ctx[1]), taking the next piece of a slab as it is
 * free.  A piece: n elements from the variable's element start, each
 * input's in its type (in, types) and, where the pass asks for them, as
 * doubles (x); in the span being read. */
struct piece {
	const void **in;
	const ckpt_dtype *types;
	const double **x;
	uint64_t start;
	size_t n;
	const struct span *span;
};

typedef void piece_fn(void *ctx, const struct piece *p);

/* (slab_fn: after each slab's pieces, with the elements done, where given) */
typedef void slab_fn(void *arg, uint64_t done);

void each_piece(struct job *j, const ckpt_var *v0, piece_fn *fn, void **ctx, int split,
                struct spans sp, int doubles, slab_fn *after, void *arg);

#endif
