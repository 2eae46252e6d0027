/* work.h - ckpt-average's slabs on two cores: a worker thread takes
 * pieces of a slab while the main thread, the only one to call HDF5,
 * reads the next slab (and writes the previous one), then takes pieces
 * too - for the combining passes (struct work) and the merge methods'
 * measuring passes alike (struct pieces). */
#ifndef CKPT_AVERAGE_WORK_H
#define CKPT_AVERAGE_WORK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "lib/ckpt.h"
#include "lib/method.h"

/* A slab's n values taken `piece` at a time by this thread and a worker,
 * each calling fn with its own ctx (this one's ctx[0], the worker's
 * ctx[1]) for the values off .. off + len. */
typedef void pieces_fn(void *ctx, size_t off, size_t len);

struct pieces {
	pieces_fn *fn;
	void *ctx[2];
	size_t n, piece;
	atomic_size_t next;  /* first value no thread has taken yet */
	int threaded;        /* the worker thread runs on them */
	atomic_int busy;     /* (the worker's: not yet done with them) */
	struct reading *then; /* what the worker reads once no piece is left */
};

/* The next slab of n readers, read by the main thread and by the worker
 * once it has taken the last piece of the slab before (which otherwise
 * waited for the main thread's reads: 1.7 cores busy in TIES' passes, 1.5
 * in the mean's), a reader at a time.  The worker reads only where every
 * reader reads in place with pread: HDF5 stays on the main thread. */
struct reading {
	ckpt_slab *s;
	size_t n;
	int *rc;               /* each reader's ckpt_slab_next() */
	int parallel;
	size_t todo;           /* readers to read this round (0 or n) */
	atomic_size_t next;    /* the next reader no thread has taken */
	atomic_int failed;
	char msg[1024];        /* the first failure's (the thread's own) */
};

void reading_open(struct reading *rd, ckpt_slab *s, size_t n);
void reading_close(struct reading *rd);
/* Read the next slabs (more) or not: by this thread at reading_take(),
 * and by the worker of the pieces started next with rd. */
void reading_start(struct reading *rd, int more);
/* This thread's share; then, after the worker is joined (pieces_finish()
 * or work_slabs()), the readers' ckpt_slab_next(): 1, or 0 at the end
 * (or when nothing was read).  A failed read dies with its message. */
void reading_take(struct reading *rd);
int reading_done(struct reading *rd);
/* The three for this thread alone. */
int reading_all(struct reading *rd, int more);

/* Hand the n values to the worker thread (one for the whole run, started
 * the first time): not where they are one piece or less (its wakeup would
 * cost more than the piece: thousands of small variables would pay it)
 * or no thread starts.  Once no piece is left the worker helps read rd's
 * next slabs (rd may be NULL). */
void pieces_start(struct pieces *p, size_t n, struct reading *rd);
/* Take what is left here - but, where help is 0 and a worker runs, leave
 * them all to it, taken in order - and wait for the worker. */
void pieces_finish(struct pieces *p, int help);

/* A slab being combined. */
struct work {
	const ckpt_combine *c;
	const ckpt_combine *natural; /* with a lossy --dtype: the mean in the
	                              * inputs' type too, into scratch */
	const ckpt_mvar *method;     /* a merge method's variable instead of c */
	const void **ptrs;
	void *out, *scratch;
	uint64_t start;      /* of the slab in the variable */
	struct pieces p;
	struct work_half {   /* each thread's: how many values were out of range */
		struct work *w;
		size_t bad;
	} half[2];
	ckpt_region region;
	int pending;         /* combined or being combined, not yet written */
	atomic_int oom;      /* a merge method's block found no memory */
};

/* A variable's slabs combined: `left` slabs of the n readers s from where
 * they are, each by both threads in w[0] or w[1] (set up but for the
 * slab's pointers, region and start) while the one before is written to
 * ov and the next read; done(arg, w), where given, after each is combined.
 * vsize: a value's bytes, for the progress shown. */
struct slab_run {
	ckpt_slab *s;
	size_t n, left, vsize;
	ckpt_outvar *ov;
	void (*done)(void *arg, const struct work *w);
	void *arg;
	size_t written;      /* slabs written */
	size_t bad;          /* values out of the stored type's range */
};

void work_slabs(struct work w[2], struct slab_run *run);

#endif
