/* slab.c - reading a variable in bounded slabs: the plan, the cursor,
 * buffers, bytes read at their offset; the format's backend reads the
 * rest (HDF5: h5slab.c). */
#include "slab.h"
#include "err.h"
#include "backend.h"
#include "format.h"
#include "wrap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* HDF5 1.10 keeps several KiB of bookkeeping for every chunk one read
 * touches (6 GB for a read across a million one-value chunks): a slab
 * spans at most this many chunks. */
#define SLAB_MAX_CHUNKS 1024

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/* Chunks of the block of dimensions after k (saturating past the limit). */
static uint64_t inner_chunks(int rank, const uint64_t *dims, const uint64_t *chunk, int k)
{
	uint64_t n = 1;

	for (int d = k + 1; d < rank; d++) {
		n *= chunk[d] ? ceil_div(dims[d], chunk[d]) : 1;
		if (n > SLAB_MAX_CHUNKS)
			return SLAB_MAX_CHUNKS + 1;
	}
	return n;
}

/* Narrow a slab (rows along dimension *k, whole dimensions after it) until
 * it spans at most SLAB_MAX_CHUNKS chunks: fewer rows, or a deeper split. */
static void fewer_chunks(int rank, const uint64_t *dims, const uint64_t *chunk, int *k,
                         uint64_t *rows)
{
	for (;;) {
		uint64_t inner = inner_chunks(rank, dims, chunk, *k);
		uint64_t c = chunk[*k] ? chunk[*k] : 1;

		if (inner <= SLAB_MAX_CHUNKS) {
			uint64_t most = SLAB_MAX_CHUNKS / inner * c; /* whole chunks */

			if (*rows > most)
				*rows = most;
			return;
		}
		if (*k == rank - 1)
			return;
		++*k; /* the block after k spans too many chunks: split deeper */
		*rows = dims[*k];
	}
}

void ckpt_slab_plan(int rank, const uint64_t *dims, const uint64_t *chunk,
                    uint64_t max_elems, int *split, uint64_t *step)
{
	uint64_t inner = 1, rows;
	int k = rank - 1;

	if (max_elems == 0)
		max_elems = 1;
	if (rank <= 0) {
		*split = 0;
		*step = 1;
		return;
	}
	/* The outermost dimension k whose trailing block still fits: then a
	 * slab of `rows` indices along k is contiguous in C order. */
	while (k > 0 && dims[k] <= max_elems / inner) {
		inner *= dims[k];
		k--;
	}
	rows = max_elems / inner;
	if (rows > dims[k])
		rows = dims[k];
	if (rows == 0)
		rows = 1;
	/* Whole chunks per slab, so that no chunk is decompressed twice. */
	if (chunk && chunk[k] && rows > chunk[k])
		rows -= rows % chunk[k];
	if (chunk)
		fewer_chunks(rank, dims, chunk, &k, &rows);
	*split = k;
	*step = rows;
}



static void free_bufs(ckpt_slab *s)
{
	free(s->mem[0]);
	free(s->mem[1]);
	s->mem[0] = s->mem[1] = NULL;
}

/* Read the bytes of the slab just selected: at its offset in the file
 * (one copy, as cat makes: cheaper than mapping each slab's pages; a whole
 * file mapped would be cheaper still, but resident memory would count it
 * and a file truncated meanwhile would be a SIGBUS, not an error), or
 * pointed at in an image. */
static int read_in_place(ckpt_slab *s, size_t n)
{
	uint64_t off = s->addr + (s->start + s->count) * s->elsize;
	size_t len = n * s->elsize;
	ptrdiff_t got;

	if (s->file->image) {
		s->buf = (const char *)s->file->image + off;
		return 0;
	}
	if ((got = ckpt_pread_full(s->file->fd, s->mem[s->cur], len, off)) < 0)
		return ckpt_seterr_errno(s->file->name);
	if ((size_t)got < len)
		return ckpt_seterr("%s: the file shrank while being read (changed by another "
		                   "program?)", s->file->name);
	s->buf = s->mem[s->cur];
	return 0;
}

static int alloc_buf(ckpt_slab *s)
{
	const ckpt_var *v = s->var;
	size_t cap = 1;

	for (int i = s->at.split + 1; i < v->rank; i++)
		cap *= (size_t)v->dims[i];
	cap *= (size_t)s->at.step;
	s->cap = cap;
	free_bufs(s);
	s->buf = NULL;
	if (s->in_place && s->file->image)
		return 0;
	/* zeroed where a format reads into them: a compound's padding, which
	 * it leaves, is compared as bytes; read at an offset, every byte is
	 * written */
	if (s->in_place) {
		s->mem[0] = malloc(cap * s->elsize);
		s->mem[1] = malloc(cap * s->elsize);
	} else {
		s->mem[0] = calloc(cap, s->elsize);
		s->mem[1] = calloc(cap, s->elsize);
	}
	if (!s->mem[0] || !s->mem[1]) {
		ckpt_seterr("%s: variable '%s': out of memory", s->file->name, v->name);
		ckpt_slab_close(s);
		return -1;
	}
	return 0;
}



int ckpt_cursor_next(ckpt_cursor *c, ckpt_region *r)
{
	const ckpt_var *v = c->var;
	int i;

	if (c->done)
		return 0;
	r->rank = v->rank > 0 ? v->rank : 0;
	r->n = 1;
	for (i = 0; i < v->rank; i++) {
		r->start[i] = c->pos[i];
		if (i < c->split)
			r->count[i] = 1;
		else if (i == c->split)
			r->count[i] = v->dims[i] - c->pos[i] < c->step ?
			              v->dims[i] - c->pos[i] : c->step;
		else
			r->count[i] = v->dims[i];
		r->n *= (size_t)r->count[i];
	}
	/* advance like an odometer */
	if (v->rank <= 0) {
		c->done = 1;
		return 1;
	}
	i = c->split;
	c->pos[i] += c->step;
	while (c->pos[i] >= v->dims[i]) {
		c->pos[i] = 0;
		if (--i < 0) {
			c->done = 1;
			break;
		}
		c->pos[i]++;
	}
	return 1;
}



/* The format reading the slab's file (its calls take a slab without state
 * of theirs as nothing to do). */
static const struct ckpt_format *fmt_of(const ckpt_slab *s)
{
	return s->file ? ckpt_file_fmt(s->file) : NULL;
}

static void release(ckpt_slab *s, int i)
{
	const struct ckpt_format *fmt = fmt_of(s);

	if (s->mcount[i] && fmt && fmt->slab_release)
		fmt->slab_release(s, s->mem[i], s->mcount[i]);
}

int ckpt_slab_open(ckpt_slab *s, const ckpt_file *f, const ckpt_var *v,
                   size_t max_bytes)
{
	memset(s, 0, sizeof *s);
	ckpt_part_of(f, v, &s->file, &s->var); /* a sharded set: the shard's */
	if (v->nelems == 0) {
		s->at.done = 1;
		return 0;
	}
	if (fmt_of(s)->slab_open(s, max_bytes) < 0) {
		ckpt_slab_close(s);
		return -1;
	}
	return alloc_buf(s);
}

int ckpt_slab_follow(ckpt_slab *s, const ckpt_slab *leader)
{
	if (s->at.done)
		return 0;
	s->at.split = leader->at.split;
	s->at.step = leader->at.step;
	return alloc_buf(s);
}



int ckpt_slab_next(ckpt_slab *s)
{
	size_t n;

	if (s->at.done)
		return 0;
	s->cur ^= 1;
	release(s, s->cur); /* the slab before the previous one */
	s->mcount[s->cur] = 0;
	ckpt_cursor_next(&s->at, &s->last);
	n = s->last.n;
	if (s->in_place) {
		if (read_in_place(s, n) < 0)
			return -1;
	} else {
		s->buf = s->mem[s->cur];
		if (fmt_of(s)->slab_read(s, s->mem[s->cur], &s->last) < 0)
			return -1;
		s->mcount[s->cur] = n;
	}
	s->start = s->start + s->count;
	s->count = n;
	s->index++;
	return 1;
}

void ckpt_slab_close(ckpt_slab *s)
{
	const struct ckpt_format *fmt = fmt_of(s);

	for (int i = 0; i < 2; i++)
		release(s, i); /* (needs the format's state: first) */
	if (fmt && fmt->slab_close)
		fmt->slab_close(s);
	free_bufs(s);
	memset(s, 0, sizeof *s);
}

/* Whether the elements before p in C order are whole chunks: p starts a
 * chunk, and the chunk before it along the last dimension where p is not
 * 0 is not cut across the dimensions before (they are chunked by 1). */
static int chunk_edge(const ckpt_region *p, const uint64_t *chunk)
{
	int k = p->rank - 1;

	while (k >= 0 && p->start[k] == 0)
		k--;
	if (!chunk || k < 0)
		return 1;
	if (p->start[k] % chunk[k])
		return 0;
	for (int d = 0; d < k; d++)
		if (chunk[d] != 1)
			return 0;
	return 1;
}

/* s's slabs from the first, without reading them. */
static void rewind_cursor(const ckpt_slab *s, ckpt_cursor *c)
{
	*c = s->at;
	memset(c->pos, 0, sizeof c->pos);
	c->done = s->var->nelems == 0;
}

size_t ckpt_slab_count(const ckpt_slab *s, unsigned char *edges)
{
	ckpt_cursor c;
	ckpt_region r;
	size_t n = 0;

	rewind_cursor(s, &c);
	for (; ckpt_cursor_next(&c, &r); n++)
		if (edges)
			edges[n] = (unsigned char)chunk_edge(&r, c.chunked ? c.chunk : NULL);
	return n;
}

/* s's cursor to slab `slab` (SIZE_MAX: none), or before it to the slab
 * that holds element `until`: from where it is when that is not past them
 * (a pass's spans are read in order: walking each from the first slab was
 * quadratic in the slabs), else from the first; returns the slab's i. */
static size_t walk(ckpt_slab *s, size_t slab, uint64_t until)
{
	ckpt_cursor next;
	ckpt_region r;
	uint64_t pos = s->start + s->count;

	if (s->index > slab || pos > until) {
		rewind_cursor(s, &s->at);
		s->index = 0;
		pos = 0;
	}
	s->start = pos;
	s->count = 0;
	for (next = s->at; s->index < slab && ckpt_cursor_next(&next, &r) && s->start + r.n <= until;
	     s->at = next, s->index++)
		s->start += r.n;
	return s->index;
}

void ckpt_slab_seek(ckpt_slab *s, size_t i)
{
	walk(s, i, UINT64_MAX);
}

size_t ckpt_slab_seek_element(ckpt_slab *s, uint64_t element)
{
	return walk(s, SIZE_MAX, element);
}

void ckpt_slab_region(const ckpt_slab *s, ckpt_region *r)
{
	*r = s->last;
}



int ckpt_slab_same(const ckpt_slab *a, const ckpt_slab *b)
{
	const struct ckpt_format *fmt = fmt_of(a);
	int same;

	if (a->count != b->count || a->elsize != b->elsize)
		return 0;
	if (fmt && fmt == fmt_of(b) && fmt->slab_same &&
	    (same = fmt->slab_same(a, b)) != CKPT_SAME_BYTES)
		return same;
	return memcmp(a->buf, b->buf, a->count * a->elsize) == 0;
}

int ckpt_vars_same(const ckpt_file *fa, const ckpt_var *a, const ckpt_file *fb,
                   const ckpt_var *b)
{
	const struct ckpt_format *fmt = ckpt_file_fmt(fa);
	ckpt_slab sa, sb;
	int ra = 0, rb = 0, same = 1;

	if (a->dtype == CKPT_OTHER && fmt && fmt == ckpt_file_fmt(fb) && fmt->blobs_same)
		return fmt->blobs_same(fa, a, fb, b);
	if (ckpt_slab_open(&sa, fa, a, CKPT_SLAB_BYTES) < 0)
		return -1;
	if (ckpt_slab_open(&sb, fb, b, CKPT_SLAB_BYTES) < 0 ||
	    ckpt_slab_follow(&sb, &sa) < 0) {
		ckpt_slab_close(&sa);
		return -1;
	}
	while (same > 0 && (ra = ckpt_slab_next(&sa)) > 0 && (rb = ckpt_slab_next(&sb)) > 0)
		same = ckpt_slab_same(&sa, &sb);
	ckpt_slab_close(&sa);
	ckpt_slab_close(&sb);
	if (ra < 0 || rb < 0)
		return -1;
	return same < 0 ? CKPT_NOT_COMPARABLE : same;
}
