/* h5copy.c - a checkpoint's structure recreated in an HDF5 output: groups,
 * attributes, links, committed types, variables whole or empty with the
 * source's storage. */
#include "h5.h"
#include "refs.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

/* ---- copying structure --------------------------------------------------- */

struct attr_copy {
	hid_t dst;
	const char *what;
	const char *skip; /* an attribute not to copy, or NULL */
	int failed;
};

/* The type an attribute of type t is made with in dst: a committed type
 * of the source is the output's type of the same path, or, where that is
 * not made yet (attributes of the root come first), a transient copy -
 * never the source file's, which HDF5 would refer to by its address in
 * the wrong file. */
static hid_t attr_type_like(hid_t t, hid_t dst)
{
	char path[1024];
	hid_t named;

	if (H5Tcommitted(t) <= 0)
		return H5Tcopy(t);
	if (H5Iget_name(t, path, sizeof path) > 0 && H5Oexists_by_name(dst, path, H5P_DEFAULT) > 0 &&
	    (named = H5Topen2(dst, path, H5P_DEFAULT)) >= 0)
		return named;
	H5Eclear2(H5E_DEFAULT);
	return H5Tcopy(t);
}

static herr_t copy_one_attr(hid_t loc, const char *name, const H5A_info_t *ai,
                            void *data)
{
	struct attr_copy *c = data;
	hid_t a = -1, t = -1, ft = -1, sp = -1, b = -1;
	hssize_t n;
	void *buf = NULL;
	int ok = 0;

	(void)ai;
	/* (one present already: the same group in an earlier shard of a set) */
	if ((c->skip && strcmp(name, c->skip) == 0) || H5Aexists(c->dst, name) > 0)
		return 0;
	if ((a = H5Aopen(loc, name, H5P_DEFAULT)) < 0 || (t = H5Aget_type(a)) < 0 ||
	    (sp = H5Aget_space(a)) < 0 || (n = H5Sget_simple_extent_npoints(sp)) < 0)
		goto out;
	/* Read and write in the attribute's own type: exact bytes for fixed
	 * types; HDF5 allocates (and we reclaim) variable-length strings. */
	if (!(buf = calloc((size_t)n ? (size_t)n : 1, H5Tget_size(t))))
		goto out;
	if (H5Aread(a, t, buf) < 0)
		goto out;
	if ((ft = attr_type_like(t, c->dst)) < 0)
		goto out;
	b = H5Acreate2(c->dst, name, ft, sp, H5P_DEFAULT, H5P_DEFAULT);
	if (b < 0 && ckpt_h5_newer_format(c->dst))
		b = H5Acreate2(c->dst, name, ft, sp, H5P_DEFAULT, H5P_DEFAULT);
	if (b < 0 || H5Awrite(b, t, buf) < 0) {
		H5Dvlen_reclaim(t, sp, H5P_DEFAULT, buf);
		goto out;
	}
	H5Dvlen_reclaim(t, sp, H5P_DEFAULT, buf);
	ok = 1;
out:
	if (!ok) {
		ckpt_seterr_h5("%s: attribute '%s': cannot copy", c->what, name);
		c->failed = 1;
	}
	free(buf);
	if (b >= 0)
		H5Aclose(b);
	if (sp >= 0)
		H5Sclose(sp);
	if (ft >= 0)
		H5Tclose(ft);
	if (t >= 0)
		H5Tclose(t);
	if (a >= 0)
		H5Aclose(a);
	return ok ? 0 : -1;
}

static int copy_attrs_but(hid_t src, hid_t dst, const char *what, const char *skip)
{
	struct attr_copy c = {dst, what, skip, 0};
	hsize_t idx = 0;

	/* creation order where tracked, else name order (as HDF5 lists them) */
	if (H5Aiterate2(src, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, copy_one_attr, &c) >= 0)
		return 0;
	if (c.failed)
		return -1;
	idx = 0;
	if (H5Aiterate2(src, H5_INDEX_NAME, H5_ITER_INC, &idx, copy_one_attr, &c) < 0) {
		if (!c.failed)
			ckpt_seterr_h5("%s: cannot list attributes", what);
		return -1;
	}
	return 0;
}

int ckpt_copy_attrs(hid_t src, hid_t dst, const char *what)
{
	return copy_attrs_but(src, dst, what, NULL);
}

/* The group the copy is in, open in the source and the output: a group met
 * next below it is reached by its last name, not by its whole path, which
 * HDF5 walks from the root each time (groups n deep cost n^2 otherwise). */
struct cursor {
	char *path;
	hid_t src, dst;
};

static void cursor_close(struct cursor *c)
{
	if (c->src >= 0)
		H5Gclose(c->src);
	if (c->dst >= 0)
		H5Gclose(c->dst);
	free(c->path);
	c->path = NULL;
	c->src = c->dst = -1;
}

/* Where path can be reached from: the cursor's groups and path's last name
 * when the cursor holds path's parent, else the files' roots and path. */
static const char *reach(const struct cursor *c, const ckpt_file *src, hid_t dst,
                         const char *path, hid_t *sloc, hid_t *dloc)
{
	const char *slash = strrchr(path, '/');
	size_t plen = c && c->path ? strlen(c->path) : 0;

	*sloc = ckpt_h5_fid(src);
	*dloc = dst;
	if (!c || !c->path || !slash || (size_t)(slash - path) != plen ||
	    strncmp(path, c->path, plen) != 0)
		return path;
	*sloc = c->src;
	*dloc = c->dst;
	return slash + 1;
}

static int copy_group(const ckpt_file *src, hid_t dst, const char *path,
                      struct cursor *cur)
{
	hid_t sloc, dloc, gcpl = -1, sg, dg = -1;
	const char *name = reach(cur, src, dst, path, &sloc, &dloc);
	int rc = -1;

	if ((sg = H5Gopen2(sloc, name, H5P_DEFAULT)) >= 0 && ckpt_h5_needs_dense_attrs(sg))
		ckpt_h5_newer_format(dst);
	/* a group can be there already: shards of a set written as one file */
	if (sg >= 0 && H5Lexists(dloc, name, H5P_DEFAULT) > 0)
		dg = H5Gopen2(dloc, name, H5P_DEFAULT);
	else if (sg >= 0 && (gcpl = H5Gget_create_plist(sg)) >= 0)
		dg = H5Gcreate2(dloc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
	if (dg < 0)
		ckpt_seterr_h5("%s: group '%s': cannot copy", src->name, path);
	else
		rc = ckpt_copy_attrs(sg, dg, src->name);
	if (gcpl >= 0)
		H5Pclose(gcpl);
	if (rc == 0 && cur) {
		char *p = strdup(path);

		cursor_close(cur);
		if (p) { /* (without memory, the next group takes the long way) */
			cur->path = p;
			cur->src = sg;
			cur->dst = dg;
			return 0;
		}
	}
	if (dg >= 0)
		H5Gclose(dg);
	if (sg >= 0)
		H5Gclose(sg);
	return rc;
}

/* ---- storage of the output's datasets ---------------------------------- */

/* Filters that lose information, by their registered ids (scale-offset is
 * judged by its parameters). */
static const struct {
	H5Z_filter_t id;
	const char *name;
} lossy_filters[] = {
	{32013, "zfp"}, {32014, "fpzip"}, {32017, "sz"}, {32019, "jpeg"},
	{32024, "sz3"}, {32028, "sperr"},
};

/* Scale-offset drops decimal digits of floats, and bits of integers when
 * given fewer than they need (a factor of 0 lets HDF5 count them). */
static int scaleoffset_lossy(const unsigned *cd, size_t ncd, hid_t type)
{
	return H5Tget_class(type) != H5T_INTEGER || ncd < 2 || cd[0] != H5Z_SO_INT ||
	       cd[1] != 0;
}

/* The name of filter i of dcpl when it is lossy for values of type. */
static const char *lossy_filter(hid_t dcpl, unsigned i, hid_t type, H5Z_filter_t *id)
{
	unsigned flags, cd[32];
	size_t ncd = sizeof cd / sizeof *cd;
	char name[64];

	*id = H5Pget_filter2(dcpl, i, &flags, &ncd, cd, sizeof name, name, NULL);
	if (*id == H5Z_FILTER_SCALEOFFSET)
		return scaleoffset_lossy(cd, ncd, type) ? "scale-offset" : NULL;
	for (size_t k = 0; k < sizeof lossy_filters / sizeof *lossy_filters; k++)
		if (*id == lossy_filters[k].id)
			return lossy_filters[k].name;
	return NULL;
}

/* Leave the lossy filters out of dcpl, which is to store computed values
 * of type; each one dropped is a warning. */
static void drop_lossy_filters(hid_t dcpl, hid_t type, const char *file,
                               const char *var)
{
	for (int i = H5Pget_nfilters(dcpl) - 1; i >= 0; i--) {
		H5Z_filter_t id;
		const char *name = lossy_filter(dcpl, (unsigned)i, type, &id);

		if (name && H5Premove_filter(dcpl, id) >= 0)
			ckpt_warnf("%s: variable '%s': lossy %s filter left out of the "
			           "computed values (--keep-storage keeps it)", file, var, name);
	}
}

/* Whether dataset creation properties keep the values outside the file:
 * in external raw files or in other datasets (a virtual dataset). */
static int foreign_storage(hid_t dcpl)
{
	return H5Pget_layout(dcpl) == H5D_VIRTUAL || H5Pget_external_count(dcpl) > 0;
}

/* Creation properties for the values of a foreign-storage dataset held in
 * the file itself: contiguous, with the same fill value. */
static hid_t own_storage(hid_t dcpl, hid_t type)
{
	hid_t own = H5Pcreate(H5P_DATASET_CREATE);
	H5D_fill_value_t how;
	void *fill;

	if (own >= 0 && H5Pfill_value_defined(dcpl, &how) >= 0 &&
	    how == H5D_FILL_VALUE_USER_DEFINED &&
	    (fill = calloc(1, H5Tget_size(type)))) {
		if (H5Pget_fill_value(dcpl, type, fill) >= 0)
			H5Pset_fill_value(own, type, fill);
		free(fill);
	}
	return own;
}

/* The creation properties of dataset sd for its counterpart in the output,
 * whose values will be of type: never the input's storage; lossy filters
 * left out of computed values unless kept.  Sets *foreign when the values
 * must be copied by hand (H5Ocopy would keep the foreign storage). */
static hid_t output_dcpl(hid_t sd, hid_t type, const ckpt_copy_spec *computed,
                         const char *file, const char *var, int *foreign)
{
	hid_t dcpl = H5Dget_create_plist(sd), own;

	*foreign = dcpl >= 0 && foreign_storage(dcpl);
	if (*foreign) {
		own = own_storage(dcpl, type);
		H5Pclose(dcpl);
		dcpl = own;
	}
	if (dcpl >= 0 && computed && !computed->keep_storage)
		drop_lossy_filters(dcpl, type, file, var);
	return dcpl;
}

/* ---- copying variables -------------------------------------------------- */

/* The next chunk position of a grid of chunks: 0 at the end. */
static int next_chunk(int rank, const hsize_t *dims, const hsize_t *chunk, hsize_t *at)
{
	for (int d = rank - 1; d >= 0; d--) {
		if ((at[d] += chunk[d]) < dims[d])
			return 1;
		at[d] = 0;
	}
	return 0;
}

/* The stored chunks of sd into dd (same shape, chunking and filters), as
 * they are: nothing decoded, so also where a filter cannot be loaded. */
static int copy_chunks(hid_t sd, hid_t dd, hid_t dcpl, const ckpt_var *v)
{
	hsize_t dims[CKPT_MAX_RANK], chunk[CKPT_MAX_RANK], at[CKPT_MAX_RANK] = {0}, size;
	void *buf = NULL;
	size_t cap = 0;
	uint32_t mask;
	int rc = 0;

	if (H5Pget_chunk(dcpl, CKPT_MAX_RANK, chunk) != v->rank)
		return ckpt_seterr_h5("cannot read the chunking");
	for (int d = 0; d < v->rank; d++)
		dims[d] = v->dims[d];
	do {
		if (H5Dget_chunk_storage_size(sd, at, &size) < 0 || size == 0) {
			H5Eclear2(H5E_DEFAULT); /* never written: the fill value stands */
			continue;
		}
		if (size > cap) {
			void *nb = realloc(buf, (size_t)size);

			if (!nb) {
				rc = ckpt_seterr("out of memory");
				break;
			}
			buf = nb;
			cap = (size_t)size;
		}
		if (H5Dread_chunk(sd, H5P_DEFAULT, at, &mask, buf) < 0) {
			rc = ckpt_seterr_h5("cannot read a chunk");
			break;
		}
		if (H5Dwrite_chunk(dd, H5P_DEFAULT, mask, at, (size_t)size, buf) < 0) {
			rc = ckpt_seterr_h5("write error") - 1; /* the output's */
			break;
		}
	} while (next_chunk(v->rank, dims, chunk, at));
	free(buf);
	return rc;
}

/* Whether a dataset's stored bytes mean the same in another file: not
 * when they hold addresses (variable-length data, references). */
static int bytes_portable(hid_t d)
{
	hid_t t = H5Dget_type(d);
	int yes = t >= 0 && H5Tdetect_class(t, H5T_VLEN) <= 0 &&
	          H5Tdetect_class(t, H5T_REFERENCE) <= 0 && H5Tis_variable_str(t) <= 0;

	if (t >= 0)
		H5Tclose(t);
	return yes;
}

/* Variable v's values into dataset dd of the same shape: chunks as they
 * are stored when both are chunked alike (and the bytes hold no
 * addresses), else slab by slab. */
static int copy_values(const ckpt_file *src, const ckpt_var *v, hid_t dd)
{
	hid_t sd = H5Dopen2(ckpt_h5_fid(src), v->name, H5P_DEFAULT);
	hid_t sp = sd >= 0 ? H5Dget_create_plist(sd) : -1, dp = H5Dget_create_plist(dd);
	int chunked = sp >= 0 && dp >= 0 && H5Pget_layout(sp) == H5D_CHUNKED &&
	              H5Pget_layout(dp) == H5D_CHUNKED && v->nelems > 0 &&
	              bytes_portable(sd);
	ckpt_slab s;
	ckpt_region r;
	int rc = chunked ? copy_chunks(sd, dd, sp, v) : 0;

	if (dp >= 0)
		H5Pclose(dp);
	if (sp >= 0)
		H5Pclose(sp);
	if (sd >= 0)
		H5Dclose(sd);
	if (chunked || v->nelems == 0)
		return rc;
	if (ckpt_slab_open(&s, src, v, CKPT_SLAB_BYTES) < 0)
		return -1;
	while ((rc = ckpt_slab_next(&s)) > 0) {
		ckpt_slab_region(&s, &r);
		if (ckpt_h5_region_write(&r, dd, ckpt_h5_slab(&s)->mtype, s.buf, H5P_DEFAULT) < 0) {
			rc = -2; /* the output's */
			break;
		}
	}
	ckpt_slab_close(&s);
	return rc;
}

/* The element type of dataset sd for the output: a committed type is the
 * one of the same path in dst (copied there before, in walk order). */
static hid_t type_like(hid_t sd, hid_t dst)
{
	hid_t t = H5Dget_type(sd), named;
	char path[1024];

	if (t < 0 || H5Tcommitted(t) <= 0 || H5Iget_name(t, path, sizeof path) <= 0 ||
	    H5Oexists_by_name(dst, path, H5P_DEFAULT) <= 0 ||
	    (named = H5Topen2(dst, path, H5P_DEFAULT)) < 0) {
		H5Eclear2(H5E_DEFAULT);
		return t;
	}
	H5Tclose(t);
	return named;
}

/* Create dst_name in dst like variable v of src: shape, attributes and
 * storage as output_dcpl() says, element type dtype (CKPT_OTHER: as the
 * source's); its values are copied when copy is set, else left to come. */
static int create_like(const ckpt_file *src, const ckpt_var *v, hid_t dst,
                       const char *dst_name, const ckpt_copy_spec *computed, int copy)
{
	hid_t sd = H5Dopen2(ckpt_h5_fid(src), v->name, H5P_DEFAULT), dcpl = -1, sp = -1,
	      t = -1, dd = -1;
	ckpt_dtype dtype = computed ? computed->dtype : CKPT_OTHER;
	int rc = -1, foreign = 0, keras = sd >= 0 && ckpt_keras_bfloat16(sd, v->dtype);
	/* Keras' bfloat16 stays in Keras' form, so that Keras loads the
	 * result; stored as another type, it loses the mark */
	int same_type = dtype == CKPT_OTHER || (keras && dtype == CKPT_BF16);

	if (!same_type && !ckpt_h5_has_type(dtype)) {
		if (sd >= 0)
			H5Dclose(sd);
		return ckpt_seterr("%s: variable '%s': HDF5 has no %s type; store it as "
		                   "another with --dtype", src->name, v->name,
		                   ckpt_dtype_name(dtype));
	}
	if (sd >= 0 && ckpt_h5_needs_dense_attrs(sd))
		ckpt_h5_newer_format(dst);
	if (sd < 0 || (sp = H5Dget_space(sd)) < 0 ||
	    (t = same_type ? type_like(sd, dst) : ckpt_dtype_filetype(dtype)) < 0 ||
	    (dcpl = output_dcpl(sd, t, computed, src->name, v->name, &foreign)) < 0 ||
	    (dd = H5Dcreate2(dst, dst_name, t, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0)
		ckpt_seterr_h5("%s: variable '%s': cannot create it in the output",
		               src->name, v->name);
	else if ((rc = copy_attrs_but(sd, dd, src->name,
	                              keras && !same_type ? "dtype" : NULL)) == 0 &&
	         copy && (rc = copy_values(src, v, dd)) == -2)
		/* a write error is the output's: its writer names the file */
		ckpt_seterr("variable '%s': %s", dst_name, ckpt_errmsg());
	else if (rc < 0)
		ckpt_seterr("%s: variable '%s': %s", src->name, v->name, ckpt_errmsg());
	if (dd >= 0)
		H5Dclose(dd);
	if (t >= 0)
		H5Tclose(t);
	if (sp >= 0)
		H5Sclose(sp);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (sd >= 0)
		H5Dclose(sd);
	return rc;
}

/* A committed datatype: a copy of the type committed anew, then its
 * attributes by the toolkit's copier.  (HDF5 1.10's H5Ocopy of a type
 * leaves an object header that adding attributes then damages; its
 * attribute copy crashes on dense storage holding variable-length
 * strings.) */
static int copy_datatype(hid_t src, const char *name, hid_t dst, const char *dst_name)
{
	hid_t st = H5Topen2(src, name, H5P_DEFAULT), t = st >= 0 ? H5Tcopy(st) : -1, lcpl,
	      d = -1;
	int rc = -1;

	if ((lcpl = H5Pcreate(H5P_LINK_CREATE)) >= 0 && H5Pset_create_intermediate_group(lcpl, 1) >= 0 &&
	    t >= 0 && H5Tcommit2(dst, dst_name, t, lcpl, H5P_DEFAULT, H5P_DEFAULT) >= 0 &&
	    (d = H5Topen2(dst, dst_name, H5P_DEFAULT)) >= 0) {
		if (ckpt_h5_needs_dense_attrs(st))
			ckpt_h5_newer_format(dst);
		rc = ckpt_copy_attrs(st, d, name);
	}
	if (d >= 0)
		H5Tclose(d);
	if (lcpl >= 0)
		H5Pclose(lcpl);
	if (t >= 0)
		H5Tclose(t);
	if (st >= 0)
		H5Tclose(st);
	return rc;
}

/* Not with HDF5's object copy: in 1.10 it crashes when the disk fills
 * (and on dense attributes holding variable-length strings). */
static int copy_whole(const ckpt_file *src, const ckpt_var *v, hid_t dst,
                      const char *dst_name)
{
	return create_like(src, v, dst, dst_name, NULL, 1);
}

int ckpt_h5_copy_var(const ckpt_file *src, const ckpt_var *v, hid_t dst,
                     const char *dst_name)
{
	return copy_whole(src, v, dst, dst_name);
}

static int copy_var(const ckpt_file *src, const ckpt_var *v, hid_t dst,
                    ckpt_copy_fn decide, void *user)
{
	ckpt_copy_spec spec = {CKPT_OTHER, 0};

	switch (decide(v, &spec, user)) {
	case CKPT_COPY_SKIP:
		return 0;
	case CKPT_COPY_EMPTY:
		return create_like(src, v, dst, v->name, &spec, 0);
	default:
		return copy_whole(src, v, dst, v->name);
	}
}

int ckpt_h5_copy_root_attrs(const ckpt_file *src, hid_t dst)
{
	hid_t sroot = H5Gopen2(ckpt_h5_fid(src), "/", H5P_DEFAULT);
	hid_t droot = H5Gopen2(dst, "/", H5P_DEFAULT);
	int rc = sroot < 0 || droot < 0 ? -1 : ckpt_copy_attrs(sroot, droot, src->name);

	if (sroot >= 0)
		H5Gclose(sroot);
	if (droot >= 0)
		H5Gclose(droot);
	return rc;
}

/* A further name of an object already in dst; none when the object was
 * left out (a variable skipped, or held by another shard). */
static int copy_hardlink(const ckpt_file *src, const ckpt_obj *o, hid_t dst)
{
	if (H5Oexists_by_name(dst, o->target, H5P_DEFAULT) <= 0) {
		H5Eclear2(H5E_DEFAULT);
		return 0;
	}
	if (H5Lcreate_hard(dst, o->target, dst, o->path, H5P_DEFAULT, H5P_DEFAULT) < 0)
		return ckpt_seterr_h5("%s: link '%s': cannot copy", src->name, o->path);
	return 0;
}

static int copy_obj(const ckpt_file *src, const ckpt_obj *o, hid_t dst,
                    ckpt_copy_fn decide, void *user, struct cursor *cur)
{
	switch (o->kind) {
	case CKPT_OBJ_GROUP:
		return copy_group(src, dst, o->path, cur);
	case CKPT_OBJ_DATATYPE:
		if (copy_datatype(ckpt_h5_fid(src), o->path, dst, o->path) < 0)
			return ckpt_seterr_h5("%s: datatype '%s': cannot copy", src->name,
			                      o->path);
		return 0;
	case CKPT_OBJ_VAR:
		return copy_var(src, &src->vars[o->var], dst, decide, user);
	case CKPT_OBJ_SOFTLINK:
		if (H5Lcreate_soft(o->target, dst, o->path, H5P_DEFAULT, H5P_DEFAULT) < 0)
			return ckpt_seterr_h5("%s: link '%s': cannot copy", src->name, o->path);
		return 0;
	case CKPT_OBJ_EXTLINK:
		if (H5Lcreate_external(o->file, o->target, dst, o->path, H5P_DEFAULT,
		                       H5P_DEFAULT) < 0)
			return ckpt_seterr_h5("%s: link '%s': cannot copy", src->name, o->path);
		return 0;
	case CKPT_OBJ_HARDLINK:
		return copy_hardlink(src, o, dst);
	case CKPT_OBJ_VALUE: /* (no HDF5 file has them) */
		break;
	}
	return 0;
}

int ckpt_h5_copy_obj(const ckpt_file *src, const ckpt_obj *o, hid_t dst,
                     ckpt_copy_fn decide, void *user)
{
	return copy_obj(src, o, dst, decide, user, NULL);
}

int ckpt_h5_copy_structure(const ckpt_file *src, hid_t dst, ckpt_copy_fn decide,
                           void *user)
{
	struct cursor cur = {NULL, -1, -1};
	int rc = ckpt_h5_copy_root_attrs(src, dst);

	for (size_t i = 0; i < src->nobjs && rc == 0; i++)
		rc = copy_obj(src, &src->objs[i], dst, decide, user, &cur);
	cursor_close(&cur);
	return rc == 0 ? ckpt_h5_copy_refs(src, dst) : rc;
}
