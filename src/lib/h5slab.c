/* h5slab.c - the HDF5 backend's slab reader: a variable's dataset opened
 * with its memory type and chunk cache, read by hyperslab (or found usable
 * in place), and the region writes the writer shares. */
#include "h5.h"
#include "err.h"
#include "refs.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A variable of 8 GiB or more whose values the file does not hold (no
 * chunk written, or a ratio no compressor reaches) is refused: reading it
 * would be hours of fill values, and such files are made to hurt readers. */
#define CLAIM_MIN ((uint64_t)1 << 33)
#define CLAIM_RATIO ((uint64_t)1 << 16)

/* Where Debian has a working plugin of a registered filter (checked
 * against the packages' files, Debian 12: libhdf5 looks in its own plugin
 * directory, where hdf5-plugin-lzf's fails to load - undefined symbol
 * lzf_decompress; bitshuffle's Python package has LZF and bitshuffle
 * plugins that load, in a directory of its own). */
#define BITSHUFFLE_PLUGINS "Debian's bitshuffle, then HDF5_PLUGIN_PATH=" \
	"/usr/lib/python3/dist-packages/bitshuffle/plugin"

static const struct {
	int id;
	const char *hint;
} plugins[] = {
	{307, "Debian's hdf5-filter-plugin"},                 /* bzip2 */
	{32000, BITSHUFFLE_PLUGINS},                          /* lzf (h5py) */
	{32001, "Debian's hdf5-filter-plugin-blosc-serial"},  /* blosc */
	{32004, "Debian's hdf5-filter-plugin"},               /* lz4 */
	{32008, BITSHUFFLE_PLUGINS},                          /* bitshuffle */
	{32013, "Debian's hdf5-filter-plugin-zfp-serial"},    /* zfp */
};

static const char *plugin_hint(int id)
{
	for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++)
		if (plugins[i].id == id)
			return plugins[i].hint;
	return NULL;
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
		const char *hint = plugin_hint((int)id);

		if (id >= 0 && H5Zfilter_avail(id) <= 0) {
			rc = ckpt_seterr("%s: variable '%s': compressed with HDF5 filter "
			                 "%d%s%s%s, which HDF5 could not load (its plugin "
			                 "is needed: %s)", f->name, v->name, (int)id,
			                 *name ? " (" : "", name, *name ? ")" : "",
			                 hint ? hint : "see the filter's entry in HDF5's "
			                 "registered filter list; HDF5_PLUGIN_PATH names "
			                 "where it is");
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
	if ((addr = H5Dget_offset(ckpt_h5_slab(s)->dset)) == HADDR_UNDEF ||
	    addr % ckpt_dtype_size(s->var->dtype) != 0 ||
	    H5Dget_storage_size(ckpt_h5_slab(s)->dset) != s->var->nbytes ||
	    addr > f->size || s->var->nbytes > f->size - addr)
		return;
	if ((ft = H5Dget_type(ckpt_h5_slab(s)->dset)) < 0)
		return;
	same = H5Tequal(ft, ckpt_h5_slab(s)->mtype) > 0;
	H5Tclose(ft);
	if (same) {
		s->in_place = 1;
		s->addr = addr;
	}
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
	if ((c->chunked = chunk_of(dset, v->rank, chunk) != NULL))
		memcpy(c->chunk, chunk, sizeof chunk);
	ckpt_slab_plan(v->rank, v->dims, c->chunked ? c->chunk : NULL, max_bytes / (elsize ? elsize : 1),
	               &c->split, &c->step);
	return 0;
}

static int claims_too_much(const ckpt_slab *s)
{
	uint64_t stored = H5Dget_storage_size(ckpt_h5_slab(s)->dset), n = s->var->nbytes;

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
                         const void *buf, hid_t dxpl)
{
	hid_t fs = H5Dget_space(dset), ms;
	hsize_t n = r ? r->n : 0;
	herr_t rc;

	if (fs < 0)
		return ckpt_seterr_h5("cannot write");
	if (r)
		ckpt_h5_select(fs, r);
	else /* this rank's part of a collective write: nothing */
		H5Sselect_none(fs);
	ms = H5Screate_simple(1, &n, NULL);
	if (!r)
		H5Sselect_none(ms);
	rc = H5Dwrite(dset, memtype, ms, fs, dxpl, buf);
	if (rc < 0)
		ckpt_seterr_h5("write error");
	H5Sclose(ms);
	H5Sclose(fs);
	return rc < 0 ? -1 : 0;
}

int ckpt_h5_slab_open(ckpt_slab *s, size_t max_bytes)
{
	const ckpt_file *f = s->file;
	const ckpt_var *v = s->var;
	struct ckpt_slab_backend *b = malloc(sizeof *b);
	hid_t dcpl, dapl;

	if (!(s->backend = b))
		return ckpt_seterr("%s: variable '%s': out of memory", f->name, v->name);
	b->fspace = b->mtype = -1;
	dapl = H5Pcreate(H5P_DATASET_ACCESS);
	/* A chunk cache that holds a slab's worth of chunks. */
	H5Pset_chunk_cache(dapl, 1021, max_bytes + (1u << 20), 1.0);
	b->dset = H5Dopen2(ckpt_h5_fid(f), v->name, dapl);
	H5Pclose(dapl);
	if (b->dset < 0 || (b->fspace = H5Dget_space(b->dset)) < 0 ||
	    (b->mtype = memtype_of(b->dset, v->dtype)) < 0)
		return ckpt_seterr_h5("%s: variable '%s': cannot open", f->name, v->name);
	s->elsize = H5Tget_size(b->mtype);
	if (claims_too_much(s) < 0)
		return -1;
	if ((dcpl = H5Dget_create_plist(b->dset)) >= 0) {
		check_in_place(s, dcpl);
		H5Pclose(dcpl);
	}
	return ckpt_h5_cursor_open(&s->at, b->dset, v, s->elsize, max_bytes);
}

int ckpt_h5_slab_read(ckpt_slab *s, void *buf, const ckpt_region *r)
{
	hsize_t n = r->n;
	hid_t mspace;
	herr_t rc;

	ckpt_h5_select(ckpt_h5_slab(s)->fspace, r);
	mspace = H5Screate_simple(1, &n, NULL);
	rc = H5Dread(ckpt_h5_slab(s)->dset, ckpt_h5_slab(s)->mtype, mspace, ckpt_h5_slab(s)->fspace,
	             H5P_DEFAULT, buf);
	if (rc < 0) { /* before H5Sclose clears HDF5's error stack */
		ckpt_seterr_h5("%s: variable '%s': read error", s->file->name, s->var->name);
		check_filters(s->file, s->var, ckpt_h5_slab(s)->dset);
	}
	H5Sclose(mspace);
	return rc < 0 ? -1 : 0;
}

/* Variable-length data HDF5 allocated when it read n values into buf. */
void ckpt_h5_slab_release(ckpt_slab *s, void *buf, size_t n)
{
	hsize_t count = n;
	hid_t ms;

	/* variable-length strings are class STRING, not VLEN, for HDF5 */
	if (!buf || !n || s->var->dtype != CKPT_OTHER || !s->backend ||
	    (H5Tdetect_class(ckpt_h5_slab(s)->mtype, H5T_VLEN) <= 0 &&
	     H5Tdetect_class(ckpt_h5_slab(s)->mtype, H5T_STRING) <= 0))
		return;
	ms = H5Screate_simple(1, &count, NULL);
	H5Dvlen_reclaim(ckpt_h5_slab(s)->mtype, ms, H5P_DEFAULT, buf);
	H5Sclose(ms);
	memset(buf, 0, n * s->elsize);
}

void ckpt_h5_slab_close(ckpt_slab *s)
{
	struct ckpt_slab_backend *b = s->backend;

	if (!b)
		return;
	if (b->dset >= 0)
		H5Dclose(b->dset);
	if (b->fspace >= 0)
		H5Sclose(b->fspace);
	if (b->mtype >= 0)
		H5Tclose(b->mtype);
	free(b);
	s->backend = NULL;
}

int ckpt_h5_slab_same(const ckpt_slab *a, const ckpt_slab *b)
{
	hid_t t = ckpt_h5_slab(a)->mtype;
	int same;

	if (!ckpt_type_has_refs(t) && H5Tis_variable_str(t) <= 0 &&
	    H5Tdetect_class(t, H5T_STRING) <= 0)
		return CKPT_SAME_BYTES;
	same = ckpt_values_same(t, a->buf, ckpt_h5_fid(a->file), b->buf, ckpt_h5_fid(b->file),
	                        a->count);
	if (same < 0)
		ckpt_seterr("%s: variable '%s': %s", a->file->name, a->var->name, ckpt_errmsg());
	return same;
}
