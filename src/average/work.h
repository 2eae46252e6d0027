/* work.h - ckpt-average's slabs combined on two cores: a worker thread
 * takes pieces of a slab while the main thread, the only one to call HDF5,
 * reads the next slab and writes the previous one, then takes pieces too. */
#ifndef CKPT_AVERAGE_WORK_H
#define CKPT_AVERAGE_WORK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "lib/ckpt.h"
#include "lib/method.h"

/* A slab being combined. */
struct work {
	const ckpt_combine *c;
	const ckpt_combine *natural; /* with a lossy --dtype: the mean in the
	                              * inputs' type too, into scratch */
	const ckpt_mvar *method;     /* a merge method's variable instead of c */
	const void **ptrs;
	void *out, *scratch;
	uint64_t start;      /* of the slab in the variable */
	size_t n, worker_bad;
	atomic_size_t next;  /* first value no thread has taken yet */
	ckpt_region region;
	pthread_t thread;
	int threaded;        /* a worker thread runs on it */
	int pending;         /* combined or being combined, not yet written */
	atomic_int oom;      /* a merge method's block found no memory */
};

/* Hand the slab of n values in w to a worker thread (or to none: see
 * work.c); combine what is left and wait for the worker, returning how
 * many values were out of range. */
void work_start(struct work *w, size_t n);
size_t work_complete(struct work *w);

#endif
