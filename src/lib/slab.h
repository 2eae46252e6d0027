/* slab.h - reading a variable in bounded pieces.
 *
 * A slab is a run of consecutive elements in C order, one region of the
 * variable read at once (in HDF5, one hyperslab), so no program ever holds
 * a whole variable: peak memory is the slab size, whatever the
 * checkpoint's size.
 *
 * Where the bytes in the file are already the values in memory (contiguous
 * storage, no filters, the native layout), a slab is not copied: buf points
 * into a mapping of just that slab's bytes (or into an in-memory image).
 * buf is for reading only, and stays valid for one more ckpt_slab_next()
 * (two slabs are in flight), so that slabs can be worked on in a pipeline. */
#ifndef CKPT_SLAB_H
#define CKPT_SLAB_H

#include <stddef.h>
#include <stdint.h>

#include "file.h"

/* Default slab size: large enough that HDF5's per-call cost vanishes, small
 * enough that several inputs side by side stay in cache (and far below
 * 64 MiB): 1 MiB - ckpt-flatten of 1 GiB 0.57 s at 4 MiB, 0.37 s here. */
#define CKPT_SLAB_BYTES (1u << 20)

/* Where a slab lies in its variable: a hyperslab of n values. */
typedef struct ckpt_region {
	int rank;
	uint64_t start[CKPT_MAX_RANK], count[CKPT_MAX_RANK];
	size_t n;
} ckpt_region;

/* The slabs of a variable, without reading them: for writing a variable
 * slab by slab, and underneath every reader. */
typedef struct ckpt_cursor {
	const ckpt_var *var;
	int split;          /* the dimension slabs advance along */
	uint64_t step;      /* extent of a slab along dimension split */
	uint64_t pos[CKPT_MAX_RANK]; /* start of the next slab */
	int done;
	int chunked;        /* the storage's chunk dimensions, when chunked */
	uint64_t chunk[CKPT_MAX_RANK];
} ckpt_cursor;

/* The next slab's region: 1, or 0 at the end. */
int ckpt_cursor_next(ckpt_cursor *c, ckpt_region *r);

typedef struct ckpt_slab {
	/* valid after ckpt_slab_next() returned 1 */
	const void *buf;    /* values in the memory layout of the dtype */
	uint64_t start;     /* C-order index of buf[0] within the variable */
	size_t count;       /* values in buf */

	/* private */
	const ckpt_file *file;
	const ckpt_var *var;
	void *backend;      /* the format's open variable (HDF5: struct
	                     * ckpt_slab_backend) */
	size_t cap;         /* elements buf holds */
	ckpt_cursor at;     /* the slabs */
	ckpt_region last;   /* the slab read last */
	size_t elsize;
	void *mem[2];       /* buffers slabs are read into (not from an image) */
	size_t mcount[2];   /* values in each */
	uint64_t addr;      /* in place: where the variable's bytes start */
	int cur;            /* which of the two the current slab uses */
	size_t index;       /* the next slab's i */
	int in_place;
} ckpt_slab;

/* Prepare to read variable v of f in slabs of at most max_bytes (at least
 * one element).  Numeric values are read as v->dtype in memory; others in
 * the format's native form of their type (for HDF5, variable-length
 * strings as char *, released by the next read or by close). */
int ckpt_slab_open(ckpt_slab *s, const ckpt_file *f, const ckpt_var *v,
                   size_t max_bytes);

/* Read the next slab: 1 when one was read, 0 at the end, -1 on error. */
int ckpt_slab_next(ckpt_slab *s);

void ckpt_slab_close(ckpt_slab *s);

/* Cut the same slabs as leader, a reader of a variable of the same shape in
 * another file (whose chunking may differ), so that slabs line up. */
int ckpt_slab_follow(ckpt_slab *s, const ckpt_slab *leader);

/* Sharing a variable among the ranks of a parallel run (par.h): how many
 * slabs s reads, and when edges is not NULL, for each slab whether whole
 * chunks of the variable's storage end where it starts, so that a rank
 * may begin there without writing into a chunk another rank writes. */
size_t ckpt_slab_count(const ckpt_slab *s, unsigned char *edges);

/* Make slab i (from 0) the next one ckpt_slab_next() reads (before the
 * first read, or after any: every format reads a slab by its place). */
void ckpt_slab_seek(ckpt_slab *s, size_t i);

/* The same for the slab that holds element `element` (from 0, in C
 * order); returns that slab's i. */
size_t ckpt_slab_seek_element(ckpt_slab *s, uint64_t element);

/* The region of the slab s read last. */
void ckpt_slab_region(const ckpt_slab *s, ckpt_region *r);

/* Whether the last slabs of a and b hold the same values: bytes for fixed
 * types, text for variable-length strings.  -1 (with a message) for other
 * variable-length types, which cannot be compared. */
int ckpt_slab_same(const ckpt_slab *a, const ckpt_slab *b);

#define CKPT_NOT_COMPARABLE (-2)

/* Whether variable a of fa and variable b of fb (of the same shape) hold
 * the same values, read slab by slab: 1 yes, 0 no, -1 on a read error,
 * CKPT_NOT_COMPARABLE for data ckpt_slab_same() cannot compare; both with
 * a message. */
int ckpt_vars_same(const ckpt_file *fa, const ckpt_var *a, const ckpt_file *fb,
                   const ckpt_var *b);

/* Slab geometry, exposed for tests: the dimension to advance along and the
 * extent along it, for a budget of max_elems elements per slab; chunk may
 * be NULL (contiguous storage). */
void ckpt_slab_plan(int rank, const uint64_t *dims, const uint64_t *chunk,
                    uint64_t max_elems, int *split, uint64_t *step);

#endif
