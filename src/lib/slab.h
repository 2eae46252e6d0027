/* slab.h - reading a variable in bounded pieces.
 *
 * A slab is a run of consecutive elements in C order, read with one
 * hyperslab selection, so no program ever holds a whole variable: peak
 * memory is the slab size, whatever the checkpoint's size. */
#ifndef CKPT_SLAB_H
#define CKPT_SLAB_H

#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "file.h"

/* Default slab size: large enough that HDF5's per-call cost vanishes, small
 * enough that several inputs side by side stay far below 64 MiB. */
#define CKPT_SLAB_BYTES (4u << 20)

typedef struct ckpt_slab {
	/* valid after ckpt_slab_next() returned 1 */
	void *buf;          /* values in the memory layout of the dtype */
	uint64_t start;     /* C-order index of buf[0] within the variable */
	size_t count;       /* values in buf */

	/* private */
	const ckpt_file *file;
	const ckpt_var *var;
	hid_t dset, fspace, mtype;
	size_t cap;         /* elements buf holds */
	int split;          /* the dimension slabs advance along */
	uint64_t step;      /* extent of a slab along dimension split */
	uint64_t pos[CKPT_MAX_RANK]; /* start of the next slab */
	int done;
} ckpt_slab;

/* Prepare to read numeric variable v of f in slabs of at most max_bytes
 * (at least one element).  Values are read as v->dtype in memory. */
int ckpt_slab_open(ckpt_slab *s, const ckpt_file *f, const ckpt_var *v,
                   size_t max_bytes);

/* Read the next slab: 1 when one was read, 0 at the end, -1 on error. */
int ckpt_slab_next(ckpt_slab *s);

void ckpt_slab_close(ckpt_slab *s);

/* Slab geometry, exposed for tests: the dimension to advance along and the
 * extent along it, for a budget of max_elems elements per slab; chunk may
 * be NULL (contiguous storage). */
void ckpt_slab_plan(int rank, const uint64_t *dims, const uint64_t *chunk,
                    uint64_t max_elems, int *split, uint64_t *step);

#endif
