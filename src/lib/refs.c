/* refs.c - references re-pointed and compared by path; variable-length
 * values compared by value.  One walk over a type's leaves serves both. */
#include "refs.h"
#include "wrap.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

/* A visit of n values of a type, leaf by leaf (and of a second buffer in
 * step with the first, when comparing). */
struct visit {
	int (*leaf)(struct visit *v, hid_t type, H5T_class_t cls, char *a, char *b);
	hid_t fa, fb;   /* the files a's and b's references belong to */
	hid_t dst;      /* re-pointing: the file references are made for */
	size_t lost;    /* re-pointing: references to objects dst lacks */
};

static int each(struct visit *v, hid_t type, char *a, char *b, size_t n);

static int each_member(struct visit *v, hid_t type, char *a, char *b)
{
	int nm = H5Tget_nmembers(type), rc = 1;

	for (int m = 0; m < nm && rc > 0; m++) {
		hid_t mt = H5Tget_member_type(type, (unsigned)m);
		size_t off = H5Tget_member_offset(type, (unsigned)m);

		rc = mt < 0 ? -1 : each(v, mt, a + off, b ? b + off : NULL, 1);
		if (mt >= 0)
			H5Tclose(mt);
	}
	return rc;
}

/* The elements of an array, or the sequence of a variable-length value. */
static int each_inner(struct visit *v, hid_t type, H5T_class_t cls, char *a, char *b)
{
	hid_t base = H5Tget_super(type);
	hsize_t dims[H5S_MAX_RANK];
	size_t n = 1;
	int rc;

	if (base < 0)
		return -1;
	if (cls == H5T_ARRAY) {
		int r = H5Tget_array_ndims(type);

		H5Tget_array_dims2(type, dims);
		for (int i = 0; i < r; i++)
			n *= (size_t)dims[i];
		rc = each(v, base, a, b, n);
	} else {
		const hvl_t *va = (const hvl_t *)a, *vb = (const hvl_t *)b;

		rc = vb && va->len != vb->len ? 0 :
		     each(v, base, va->p, vb ? vb->p : NULL, va->len);
	}
	H5Tclose(base);
	return rc;
}

static int each(struct visit *v, hid_t type, char *a, char *b, size_t n)
{
	H5T_class_t cls = H5Tget_class(type);
	size_t size = H5Tget_size(type);
	int rc = 1;

	for (size_t i = 0; i < n && rc > 0; i++) {
		char *pa = a + i * size, *pb = b ? b + i * size : NULL;

		if (cls == H5T_COMPOUND)
			rc = each_member(v, type, pa, pb);
		else if (cls == H5T_ARRAY || cls == H5T_VLEN)
			rc = each_inner(v, type, cls, pa, pb);
		else
			rc = v->leaf(v, type, cls, pa, pb);
	}
	return rc;
}

/* ---- one reference ------------------------------------------------------ */

static H5R_type_t ref_kind(hid_t type, size_t *size)
{
	int obj = H5Tequal(type, H5T_STD_REF_OBJ) > 0;

	*size = obj ? sizeof(hobj_ref_t) : sizeof(hdset_reg_ref_t);
	return obj ? H5R_OBJECT : H5R_DATASET_REGION;
}

static int is_null(const char *ref, size_t size)
{
	for (size_t i = 0; i < size; i++)
		if (ref[i])
			return 0;
	return 1;
}

/* The path a reference of file points to: 1, 0 for a null reference. */
static int ref_path(hid_t file, H5R_type_t kind, const char *ref, size_t size,
                    char *path, size_t cap)
{
	if (is_null(ref, size))
		return 0;
	if (H5Rget_name(file, kind, ref, path, cap) <= 0)
		return ckpt_seterr_h5("a reference cannot be resolved");
	return 1;
}

/* A region's selection as bytes, to compare two of them. */
static void *region_bytes(hid_t file, const char *ref, size_t *len)
{
	hid_t sp = H5Rget_region(file, H5R_DATASET_REGION, ref);
	void *buf = NULL;

	*len = 0;
	if (sp >= 0 && H5Sencode(sp, NULL, len) >= 0 && (buf = malloc(*len + 1)) &&
	    H5Sencode(sp, buf, len) < 0) {
		free(buf);
		buf = NULL;
	}
	if (sp >= 0)
		H5Sclose(sp);
	return buf;
}

static int same_region(hid_t fa, const char *a, hid_t fb, const char *b)
{
	size_t la, lb;
	void *x = region_bytes(fa, a, &la), *y = region_bytes(fb, b, &lb);
	int same = x && y ? la == lb && memcmp(x, y, la) == 0 : -1;

	free(x);
	free(y);
	return same < 0 ? ckpt_seterr_h5("a region reference cannot be resolved") : same;
}

static int same_leaf(struct visit *v, hid_t type, H5T_class_t cls, char *a, char *b)
{
	if (cls == H5T_REFERENCE) {
		char pa[4096], pb[4096];
		size_t size;
		H5R_type_t kind = ref_kind(type, &size);
		int ra = ref_path(v->fa, kind, a, size, pa, sizeof pa);
		int rb = ref_path(v->fb, kind, b, size, pb, sizeof pb);

		if (ra < 0 || rb < 0)
			return -1;
		if (ra != rb || (ra && strcmp(pa, pb) != 0))
			return 0;
		return ra && kind == H5R_DATASET_REGION ? same_region(v->fa, a, v->fb, b) : 1;
	}
	if (cls == H5T_STRING && H5Tis_variable_str(type) > 0) {
		const char *sa = *(char **)a, *sb = *(char **)b;

		return sa && sb ? strcmp(sa, sb) == 0 : sa == sb;
	}
	return memcmp(a, b, H5Tget_size(type)) == 0;
}

int ckpt_values_same(hid_t type, const void *a, hid_t fa, const void *b, hid_t fb,
                     size_t n)
{
	struct visit v = {same_leaf, fa, fb, -1, 0};

	return each(&v, type, (char *)a, (char *)b, n);
}

int ckpt_type_has_refs(hid_t type)
{
	return H5Tdetect_class(type, H5T_REFERENCE) > 0 ||
	       (H5Tdetect_class(type, H5T_VLEN) > 0 && H5Tis_variable_str(type) <= 0);
}

/* ---- re-pointing -------------------------------------------------------- */

/* A reference of v->fa, in place, made to point to the same path in
 * v->dst; null when dst lacks the object. */
static int repoint_leaf(struct visit *v, hid_t type, H5T_class_t cls, char *a, char *b)
{
	char path[4096];
	size_t size;
	H5R_type_t kind;
	hid_t sp = -1;
	int r, rc = 1;

	(void)b;
	if (cls != H5T_REFERENCE)
		return 1;
	kind = ref_kind(type, &size);
	if ((r = ref_path(v->fa, kind, a, size, path, sizeof path)) <= 0)
		return r < 0 ? -1 : 1;
	if (H5Oexists_by_name(v->dst, path, H5P_DEFAULT) <= 0) {
		H5Eclear2(H5E_DEFAULT);
		memset(a, 0, size);
		v->lost++;
		return 1;
	}
	if (kind == H5R_DATASET_REGION &&
	    (sp = H5Rget_region(v->fa, H5R_DATASET_REGION, a)) < 0)
		return ckpt_seterr_h5("a region reference cannot be resolved");
	if (H5Rcreate(a, v->dst, path, kind, sp) < 0)
		rc = ckpt_seterr_h5("'%s': cannot make a reference to it", path);
	if (sp >= 0)
		H5Sclose(sp);
	return rc;
}

/* Read, re-point and write one attribute or dataset: read(obj, memtype,
 * buf) and write(dst_obj, memtype, buf) are HDF5's. */
struct holder {
	hid_t src, dst, type, space;
	int is_attr;
};

static int repoint_holder(const struct holder *h, struct visit *v)
{
	hid_t mt = H5Tget_native_type(h->type, H5T_DIR_ASCEND);
	hssize_t n = H5Sget_simple_extent_npoints(h->space);
	size_t size = mt >= 0 ? H5Tget_size(mt) : 0;
	char *buf = mt >= 0 && n >= 0 ? calloc((size_t)n + 1, size) : NULL;
	int rc = -1;

	if (buf && (h->is_attr ? H5Aread(h->src, mt, buf) : H5Dread(h->src, mt, H5S_ALL,
	                                                        H5S_ALL, H5P_DEFAULT, buf)) >= 0) {
		rc = each(v, mt, buf, NULL, (size_t)n);
		if (rc > 0 && (h->is_attr ? H5Awrite(h->dst, mt, buf) :
		               H5Dwrite(h->dst, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf)) < 0)
			rc = ckpt_seterr_h5("cannot write");
		H5Dvlen_reclaim(mt, h->space, H5P_DEFAULT, buf);
	} else if (mt >= 0) {
		ckpt_seterr_h5("cannot read");
	}
	free(buf);
	if (mt >= 0)
		H5Tclose(mt);
	return rc < 0 ? -1 : 0;
}

static void warn_lost(const ckpt_file *src, const char *what, struct visit *v)
{
	if (v->lost)
		ckpt_warnf("%s: %s: %zu reference%s to objects not in the output: left "
		           "null", src->name, what, v->lost, v->lost == 1 ? "" : "s");
	v->lost = 0;
}

static int repoint_attr(const ckpt_file *src, hid_t so, hid_t dobj, const char *path,
                        hsize_t idx, struct visit *v)
{
	hid_t a = H5Aopen_by_idx(so, ".", H5_INDEX_NAME, H5_ITER_INC, idx, H5P_DEFAULT,
	                         H5P_DEFAULT);
	hid_t t = a >= 0 ? H5Aget_type(a) : -1, sp = -1, b = -1;
	char name[1024] = "", what[1200];
	int rc = a < 0 || t < 0 ? -1 : 0;

	if (rc == 0 && H5Tdetect_class(t, H5T_REFERENCE) > 0) {
		H5Aget_name(a, sizeof name, name);
		snprintf(what, sizeof what, "'%s' attribute '%s'", *path ? path : "/", name);
		if ((sp = H5Aget_space(a)) < 0 || (b = H5Aopen(dobj, name, H5P_DEFAULT)) < 0)
			rc = -1;
		else
			rc = repoint_holder(&(struct holder){a, b, t, sp, 1}, v);
		if (rc < 0)
			ckpt_seterr("%s: %s: %s", src->name, what, ckpt_errmsg());
		warn_lost(src, what, v);
	} else if (rc < 0) {
		ckpt_seterr_h5("%s: '%s': cannot read an attribute", src->name, path);
	}
	if (b >= 0)
		H5Aclose(b);
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	if (a >= 0)
		H5Aclose(a);
	return rc;
}

/* The references in the attributes of object path, and in its values when
 * it is a dataset of a type that holds some. */
static int repoint_object(const ckpt_file *src, const char *path, int dataset,
                          struct visit *v)
{
	const char *p = *path ? path : "/";
	hid_t so = -1, d = -1, t = -1, sp = -1;
	H5O_info_t oi;
	int rc = 0;

	if (H5Oexists_by_name(v->dst, p, H5P_DEFAULT) <= 0) {
		H5Eclear2(H5E_DEFAULT);
		return 0; /* left out of this output */
	}
	if ((so = H5Oopen(ckpt_h5_fid(src), p, H5P_DEFAULT)) < 0 ||
	    H5Oget_info2(so, &oi, H5O_INFO_NUM_ATTRS) < 0 ||
	    (d = H5Oopen(v->dst, p, H5P_DEFAULT)) < 0)
		rc = ckpt_seterr_h5("%s: '%s': cannot open", src->name, p);
	for (hsize_t i = 0; rc == 0 && i < oi.num_attrs; i++)
		rc = repoint_attr(src, so, d, p, i, v);
	if (rc == 0 && dataset && (t = H5Dget_type(so)) >= 0 &&
	    H5Tdetect_class(t, H5T_REFERENCE) > 0) {
		if ((sp = H5Dget_space(so)) < 0 ||
		    repoint_holder(&(struct holder){so, d, t, sp, 0}, v) < 0)
			rc = ckpt_seterr("%s: variable '%s': %s", src->name, path, ckpt_errmsg());
		warn_lost(src, path, v);
	}
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	if (d >= 0)
		H5Oclose(d);
	if (so >= 0)
		H5Oclose(so);
	return rc;
}

static int copy_ref_values(const ckpt_file *src, const ckpt_var *v, hid_t dst,
                           const char *dst_name)
{
	struct visit vis = {repoint_leaf, ckpt_h5_fid(src), -1, dst, 0};
	hid_t so = -1, d = -1, t = -1, sp = -1;
	int rc = 0;

	if (v->dtype != CKPT_OTHER)
		return 0;
	if ((so = H5Dopen2(ckpt_h5_fid(src), v->name, H5P_DEFAULT)) < 0 || (t = H5Dget_type(so)) < 0)
		rc = ckpt_seterr_h5("%s: variable '%s': cannot open", src->name, v->name);
	else if (H5Tdetect_class(t, H5T_REFERENCE) > 0) {
		if ((sp = H5Dget_space(so)) < 0 || (d = H5Dopen2(dst, dst_name, H5P_DEFAULT)) < 0 ||
		    repoint_holder(&(struct holder){so, d, t, sp, 0}, &vis) < 0)
			rc = ckpt_seterr("%s: variable '%s': %s", src->name, v->name,
			                 ckpt_errmsg());
		else
			rc = 1;
		warn_lost(src, v->name, &vis);
	}
	if (d >= 0)
		H5Dclose(d);
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	if (so >= 0)
		H5Dclose(so);
	return rc;
}

int ckpt_copy_ref_values(const ckpt_file *set, const ckpt_var *var, ckpt_out *o,
                         const char *dst_name)
{
	const ckpt_file *src;
	const ckpt_var *v;

	ckpt_part_of(set, var, &src, &v);
	if (ckpt_h5_fid(src) < 0 || ckpt_h5_out_fid(o, dst_name) < 0)
		return 0; /* only HDF5 has references */
	return copy_ref_values(src, v, ckpt_h5_out_fid(o, dst_name), dst_name);
}

int ckpt_h5_copy_refs(const ckpt_file *src, hid_t dst)
{
	struct visit v = {repoint_leaf, ckpt_h5_fid(src), -1, dst, 0};
	int rc = repoint_object(src, "", 0, &v);

	/* only what can hold references is looked up (by path, which costs
	 * the path's depth): objects with attributes, reference variables */
	for (size_t i = 0; i < src->nobjs && rc == 0; i++) {
		const ckpt_obj *o = &src->objs[i];

		if (o->kind == CKPT_OBJ_GROUP && o->nattrs)
			rc = repoint_object(src, o->path, 0, &v);
		else if (o->kind == CKPT_OBJ_VAR &&
		         (o->nattrs || strcmp(src->vars[o->var].type, "reference") == 0 ||
		          strcmp(src->vars[o->var].type, "compound") == 0 ||
		          strcmp(src->vars[o->var].type, "vlen") == 0 ||
		          strcmp(src->vars[o->var].type, "array") == 0))
			rc = repoint_object(src, src->vars[o->var].name,
			                    src->vars[o->var].dtype == CKPT_OTHER, &v);
	}
	return rc;
}
