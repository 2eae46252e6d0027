/* slab.c - bounded-size hyperslab iteration over a variable. */
#include "slab.h"
#include "err.h"
#include "refs.h"
#include "h5.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_POPULATE
#define MAP_POPULATE 0
#endif

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

/* A filter HDF5 cannot apply fails deep inside H5Dread with a message about
 * plugin directories; say plainly which filter is missing instead.  Only
 * after a failed read: H5Zfilter_avail() does not load plugins (1.10), so it
 * answers "no" for filters that would load on demand. */
static int check_filters(const ckpt_file *f, const ckpt_var *v, hid_t dset)
{
	hid_t dcpl = H5Dget_create_plist(dset);
	int n = dcpl < 0 ? 0 : H5Pget_nfilters(dcpl), rc = 0;

	for (int i = 0; i < n; i++) {
		char name[64] = "";
		unsigned flags, cd[16];
		size_t ncd = 16;
		H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd,
		                                 sizeof name, name, NULL);

		if (id >= 0 && H5Zfilter_avail(id) <= 0) {
			rc = ckpt_seterr("%s: variable '%s': compressed with HDF5 filter "
			                   "%d%s%s%s, which HDF5 could not load (its "
			                   "plugin is needed, e.g. Debian's hdf5-plugin-lzf "
			                   "or hdf5-filter-plugin)", f->name, v->name, (int)id,
			                   *name ? " (" : "", name, *name ? ")" : "");
			break;
		}
	}
	if (dcpl >= 0)
		H5Pclose(dcpl);
	return rc;
}

/* Whether the variable's bytes can be used in place: contiguous and
 * allocated, unfiltered, stored exactly as in memory, within the file, and
 * aligned for their type (HDF5 does not align data; C requires it). */
static void check_in_place(ckpt_slab *s, hid_t dcpl)
{
	const ckpt_file *f = s->file;
	haddr_t addr;
	hid_t ft;
	int same;

	if (s->var->dtype == CKPT_OTHER || (f->fd < 0 && !f->image) ||
	    H5Pget_layout(dcpl) != H5D_CONTIGUOUS || H5Pget_nfilters(dcpl) != 0 ||
	    H5Pget_external_count(dcpl) != 0)
		return;
	if ((addr = H5Dget_offset(s->backend->dset)) == HADDR_UNDEF ||
	    addr % ckpt_dtype_size(s->var->dtype) != 0 ||
	    H5Dget_storage_size(s->backend->dset) != s->var->nbytes ||
	    addr > f->size || s->var->nbytes > f->size - addr)
		return;
	if ((ft = H5Dget_type(s->backend->dset)) < 0)
		return;
	same = H5Tequal(ft, s->backend->mtype) > 0;
	H5Tclose(ft);
	if (same) {
		s->in_place = 1;
		s->addr = addr;
	}
}

/* The mappings in use, for ckpt_mapped_file(): two per slab reader. */
#define MAX_MAPS 256
static struct {
	_Atomic(const char *) base;
	size_t len;
	const char *name;
} maps[MAX_MAPS];

static void maps_add(const void *base, size_t len, const char *name)
{
	for (int i = 0; i < MAX_MAPS; i++) {
		const char *none = NULL;

		if (atomic_compare_exchange_strong(&maps[i].base, &none, (const char *)1)) {
			maps[i].len = len;
			maps[i].name = name;
			atomic_store(&maps[i].base, (const char *)base);
			return;
		}
	}
}

static void maps_remove(const void *base)
{
	for (int i = 0; i < MAX_MAPS; i++)
		if (atomic_load(&maps[i].base) == base) {
			atomic_store(&maps[i].base, NULL);
			return;
		}
}

const char *ckpt_mapped_file(const void *addr)
{
	const char *a = addr;

	for (int i = 0; i < MAX_MAPS; i++) {
		const char *base = atomic_load(&maps[i].base);

		if (base && base != (const char *)1 && a >= base && a < base + maps[i].len)
			return maps[i].name;
	}
	return NULL;
}

static void unmap(ckpt_slab *s, int which)
{
	if (s->map[which]) {
		maps_remove(s->map[which]);
		munmap(s->map[which], s->maplen[which]);
	}
	s->map[which] = NULL;
}

/* Point buf at the bytes of the slab just selected. */
static int read_in_place(ckpt_slab *s, size_t n)
{
	uint64_t off = s->addr + (s->start + s->count) * s->elsize;
	size_t len = n * s->elsize, delta;
	static long page;

	if (s->file->image) {
		s->buf = (const char *)s->file->image + off;
		return 0;
	}
	if (!page)
		page = sysconf(_SC_PAGESIZE);
	unmap(s, s->cur); /* the slab before the previous one */
	delta = (size_t)(off % (uint64_t)page);
	s->map[s->cur] = mmap(NULL, len + delta, PROT_READ, MAP_SHARED | MAP_POPULATE,
	                      s->file->fd, (off_t)(off - delta));
	if (s->map[s->cur] == MAP_FAILED) {
		s->map[s->cur] = NULL;
		return ckpt_seterr_errno(s->file->name);
	}
	s->maplen[s->cur] = len + delta;
	maps_add(s->map[s->cur], len + delta, s->file->name);
	s->buf = (const char *)s->map[s->cur] + delta;
	return 0;
}

int ckpt_keras_bfloat16(hid_t dset, ckpt_dtype t)
{
	hid_t ft = t == CKPT_BF16 ? H5Dget_type(dset) : -1;
	int yes = ft >= 0 && H5Tget_class(ft) == H5T_OPAQUE;

	if (ft >= 0)
		H5Tclose(ft);
	return yes;
}

hid_t ckpt_values_memtype(hid_t dset, ckpt_dtype t)
{
	if (!ckpt_keras_bfloat16(dset, t))
		return ckpt_dtype_memtype(t);
	if (!ckpt_host_big_endian())
		return H5Dget_type(dset);
	ckpt_seterr("bfloat16 stored as opaque bytes (Keras 3) cannot be read on a "
	            "big-endian host");
	return -1;
}

/* Numbers as the toolkit's memory types; anything else in HDF5's native
 * form of its type. */
static hid_t memtype_of(hid_t dset, ckpt_dtype t)
{
	hid_t ft, mt;

	if (t != CKPT_OTHER)
		return ckpt_values_memtype(dset, t);
	if ((ft = H5Dget_type(dset)) < 0)
		return -1;
	mt = H5Tget_native_type(ft, H5T_DIR_ASCEND);
	H5Tclose(ft);
	return mt;
}

static int alloc_buf(ckpt_slab *s)
{
	const ckpt_var *v = s->var;
	size_t cap = 1;

	for (int i = s->at.split + 1; i < v->rank; i++)
		cap *= (size_t)v->dims[i];
	cap *= (size_t)s->at.step;
	s->cap = cap;
	free(s->mem[0]);
	free(s->mem[1]);
	s->buf = s->mem[0] = s->mem[1] = NULL;
	if (s->in_place)
		return 0;
	s->mem[0] = calloc(cap, s->elsize);
	s->mem[1] = calloc(cap, s->elsize);
	if (!s->mem[0] || !s->mem[1]) {
		ckpt_seterr("%s: variable '%s': out of memory", s->file->name, v->name);
		ckpt_slab_close(s);
		return -1;
	}
	return 0;
}

/* The dataset's chunk dimensions into chunk; NULL when not chunked. */
static const uint64_t *chunk_of(hid_t dset, int rank, uint64_t *chunk)
{
	hsize_t h[CKPT_MAX_RANK];
	hid_t dcpl = H5Dget_create_plist(dset);
	int chunked = dcpl >= 0 && rank > 0 && H5Pget_layout(dcpl) == H5D_CHUNKED &&
	              H5Pget_chunk(dcpl, rank, h) == rank;

	if (dcpl >= 0)
		H5Pclose(dcpl);
	for (int i = 0; chunked && i < rank; i++)
		chunk[i] = h[i];
	return chunked ? chunk : NULL;
}

int ckpt_h5_cursor_open(ckpt_cursor *c, hid_t dset, const ckpt_var *v, size_t elsize,
                        size_t max_bytes)
{
	uint64_t chunk[CKPT_MAX_RANK];

	memset(c, 0, sizeof *c);
	c->var = v;
	if ((c->done = v->nelems == 0))
		return 0; /* nothing to plan: a dimension may be 0 */
	ckpt_slab_plan(v->rank, v->dims, chunk_of(dset, v->rank, chunk),
	               max_bytes / (elsize ? elsize : 1), &c->split, &c->step);
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

/* A variable of 8 GiB or more whose values the file does not hold (no
 * chunk written, or a ratio no compressor reaches) is refused: reading it
 * would be hours of fill values, and such files are made to hurt readers. */
#define CLAIM_MIN ((uint64_t)1 << 33)
#define CLAIM_RATIO ((uint64_t)1 << 16)

static int claims_too_much(const ckpt_slab *s)
{
	uint64_t stored = H5Dget_storage_size(s->backend->dset), n = s->var->nbytes;

	if (n < CLAIM_MIN || (stored && n / stored <= CLAIM_RATIO))
		return 0;
	if (!stored)
		return ckpt_seterr("%s: variable '%s': claims %" PRIu64 " bytes of values; "
		                   "the file holds none of them", s->file->name,
		                   s->var->name, n);
	return ckpt_seterr("%s: variable '%s': claims %" PRIu64 " bytes of values; the "
	                   "file holds only %" PRIu64 " bytes of them", s->file->name,
	                   s->var->name, n, stored);
}

int ckpt_slab_open(ckpt_slab *s, const ckpt_file *f, const ckpt_var *v,
                   size_t max_bytes)
{
	hid_t dcpl, dapl;

	memset(s, 0, sizeof *s);
	s->file = f;
	s->var = v;
	if (v->nelems == 0) {
		s->at.done = 1;
		return 0;
	}
	if (!(s->backend = malloc(sizeof *s->backend)))
		return ckpt_seterr("%s: variable '%s': out of memory", f->name, v->name);
	s->backend->dset = s->backend->fspace = s->backend->mtype = -1;
	dapl = H5Pcreate(H5P_DATASET_ACCESS);
	/* A chunk cache that holds a slab's worth of chunks. */
	H5Pset_chunk_cache(dapl, 1021, max_bytes + (1u << 20), 1.0);
	s->backend->dset = H5Dopen2(ckpt_h5_fid(f), v->name, dapl);
	H5Pclose(dapl);
	if (s->backend->dset < 0 || (s->backend->fspace = H5Dget_space(s->backend->dset)) < 0 ||
	    (s->backend->mtype = memtype_of(s->backend->dset, v->dtype)) < 0) {
		ckpt_seterr_h5("%s: variable '%s': cannot open", f->name, v->name);
		ckpt_slab_close(s);
		return -1;
	}
	s->elsize = H5Tget_size(s->backend->mtype);
	if (claims_too_much(s) < 0) {
		ckpt_slab_close(s);
		return -1;
	}
	if ((dcpl = H5Dget_create_plist(s->backend->dset)) >= 0) {
		check_in_place(s, dcpl);
		H5Pclose(dcpl);
	}
	ckpt_h5_cursor_open(&s->at, s->backend->dset, v, s->elsize, max_bytes);
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

/* Variable-length data HDF5 allocated when it read into buffer which. */
static void release_vlen(ckpt_slab *s, int which)
{
	hsize_t n = s->mcount[which];
	hid_t ms;

	/* variable-length strings are class STRING, not VLEN, for HDF5 */
	if (!s->mem[which] || !n || s->var->dtype != CKPT_OTHER || !s->backend ||
	    (H5Tdetect_class(s->backend->mtype, H5T_VLEN) <= 0 &&
	     H5Tdetect_class(s->backend->mtype, H5T_STRING) <= 0))
		return;
	ms = H5Screate_simple(1, &n, NULL);
	H5Dvlen_reclaim(s->backend->mtype, ms, H5P_DEFAULT, s->mem[which]);
	H5Sclose(ms);
	memset(s->mem[which], 0, n * s->elsize);
	s->mcount[which] = 0;
}

/* Select the next slab in the file space; returns its count. */
static size_t select_slab(ckpt_slab *s)
{
	ckpt_cursor_next(&s->at, &s->last);
	ckpt_h5_select(s->backend->fspace, &s->last);
	return s->last.n;
}

int ckpt_slab_next(ckpt_slab *s)
{
	hsize_t n;
	hid_t mspace;
	herr_t rc;

	if (s->at.done)
		return 0;
	s->cur ^= 1;
	release_vlen(s, s->cur); /* the slab before the previous one */
	n = select_slab(s);
	if (s->in_place) {
		if (read_in_place(s, (size_t)n) < 0)
			return -1;
		s->start = s->start + s->count;
		s->count = (size_t)n;
		return 1;
	}
	mspace = H5Screate_simple(1, &n, NULL);
	rc = H5Dread(s->backend->dset, s->backend->mtype, mspace, s->backend->fspace, H5P_DEFAULT, s->mem[s->cur]);
	s->buf = s->mem[s->cur];
	s->mcount[s->cur] = rc < 0 ? 0 : (size_t)n;
	if (rc < 0) { /* before H5Sclose clears HDF5's error stack */
		ckpt_seterr_h5("%s: variable '%s': read error", s->file->name,
		               s->var->name);
		check_filters(s->file, s->var, s->backend->dset);
	}
	H5Sclose(mspace);
	if (rc < 0)
		return -1;
	s->start = s->start + s->count;
	s->count = (size_t)n;
	return 1;
}

void ckpt_slab_close(ckpt_slab *s)
{
	release_vlen(s, 0); /* needs the memory type: first */
	release_vlen(s, 1);
	unmap(s, 0);
	unmap(s, 1);
	if (s->backend && s->backend->dset >= 0)
		H5Dclose(s->backend->dset);
	if (s->backend && s->backend->fspace >= 0)
		H5Sclose(s->backend->fspace);
	if (s->backend && s->backend->mtype >= 0)
		H5Tclose(s->backend->mtype);
	free(s->backend);
	free(s->mem[0]);
	free(s->mem[1]);
	memset(s, 0, sizeof *s);
}

void ckpt_slab_region(const ckpt_slab *s, ckpt_region *r)
{
	*r = s->last;
}

int ckpt_h5_select(hid_t space, const ckpt_region *r)
{
	hsize_t start[CKPT_MAX_RANK], count[CKPT_MAX_RANK];

	if (r->rank <= 0)
		return H5Sselect_all(space) < 0 ? -1 : 0;
	for (int i = 0; i < r->rank; i++) {
		start[i] = r->start[i];
		count[i] = r->count[i];
	}
	return H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ?
	       -1 : 0;
}

int ckpt_h5_region_write(const ckpt_region *r, hid_t dset, hid_t memtype,
                         const void *buf)
{
	hid_t fs = H5Dget_space(dset), ms;
	hsize_t n = r->n;
	herr_t rc;

	if (fs < 0)
		return ckpt_seterr_h5("cannot write");
	ckpt_h5_select(fs, r);
	ms = H5Screate_simple(1, &n, NULL);
	rc = H5Dwrite(dset, memtype, ms, fs, H5P_DEFAULT, buf);
	if (rc < 0)
		ckpt_seterr_h5("write error");
	H5Sclose(ms);
	H5Sclose(fs);
	return rc < 0 ? -1 : 0;
}

int ckpt_slab_same(const ckpt_slab *a, const ckpt_slab *b)
{
	if (a->count != b->count || a->elsize != b->elsize)
		return 0;
	if (ckpt_type_has_refs(a->backend->mtype) || H5Tis_variable_str(a->backend->mtype) > 0 ||
	    H5Tdetect_class(a->backend->mtype, H5T_STRING) > 0) {
		int same = ckpt_values_same(a->backend->mtype, a->buf, ckpt_h5_fid(a->file), b->buf,
		                            ckpt_h5_fid(b->file), a->count);

		if (same < 0)
			ckpt_seterr("%s: variable '%s': %s", a->file->name, a->var->name,
			            ckpt_errmsg());
		return same;
	}
	return memcmp(a->buf, b->buf, a->count * a->elsize) == 0;
}

int ckpt_vars_same(const ckpt_file *fa, const ckpt_var *a, const ckpt_file *fb,
                   const ckpt_var *b)
{
	ckpt_slab sa, sb;
	int ra = 0, rb = 0, same = 1;

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
