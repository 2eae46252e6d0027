/* h5file.c - the HDF5 backend's reading side: recognising an HDF5 file,
 * listing its variables in the toolkit's order, describing their storage
 * (opening it: h5open.c). */
#include "h5.h"
#include "wrap.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const unsigned char hdf5_magic[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

/* "ustar" at 257: a tar archive.  Its first member's data start at 512, so
 * an HDF5 file stored first would pass for one with a 512-byte user block. */
static int is_tar(const unsigned char *head, size_t n)
{
	return n >= 262 && memcmp(head + 257, "ustar", 5) == 0;
}

/* The superblock is at 0 or after a user block of 512 * 2^k bytes. */
int ckpt_image_is_hdf5(const void *image, size_t size)
{
	const unsigned char *p = image;

	if (size >= 8 && memcmp(p, hdf5_magic, 8) == 0)
		return 1;
	if (is_tar(p, size))
		return 0;
	for (size_t off = 512; off + 8 <= size; off *= 2)
		if (memcmp(p + off, hdf5_magic, 8) == 0)
			return 1;
	return 0;
}

int ckpt_fd_is_hdf5(int fd, uint64_t size)
{
	unsigned char head[512], sig[8];
	ssize_t n = pread(fd, head, sizeof head, 0);

	if (n >= 8 && memcmp(head, hdf5_magic, 8) == 0)
		return 1;
	if (n < 8 || is_tar(head, (size_t)n))
		return 0;
	for (uint64_t off = 512; off + 8 <= size; off *= 2)
		if (pread(fd, sig, 8, (off_t)off) == 8 && memcmp(sig, hdf5_magic, 8) == 0)
			return 1;
	return 0;
}

/* ---- listing ------------------------------------------------------------ */

/* An object with several hard links, by address: met again, it is a
 * further name (a second link to a group may form a cycle, to a dataset
 * would list it twice). */
struct seen {
	haddr_t addr;
	char *path;     /* its first name; NULL: the slot is free */
	int var;        /* its variable, or -1 */
};

struct walk {
	ckpt_file *f;
	size_t cap, objcap;
	struct seen *seen; /* open addressing, a power of two slots */
	size_t nseen, seencap;
};

static const char *class_name(hid_t type)
{
	switch (H5Tget_class(type)) {
	case H5T_STRING:
		return H5Tis_variable_str(type) > 0 ? "vlen-string" : "string";
	case H5T_COMPOUND: return "compound";
	case H5T_ARRAY: return "array";
	case H5T_ENUM: return "enum";
	case H5T_OPAQUE: return "opaque";
	case H5T_REFERENCE: return "reference";
	case H5T_VLEN: return "vlen";
	case H5T_BITFIELD: return "bitfield";
	case H5T_TIME: return "time";
	case H5T_FLOAT: return "float";
	case H5T_INTEGER: return "int";
	default: return "unknown";
	}
}

/* The dtype name, or a kind for what is not numeric: "compound",
 * "float128" (a float format the toolkit does not compute with),
 * "int32(20-bit)" (an integer in fewer bits than it occupies), ... */
static void describe_type(hid_t type, ckpt_dtype dt, char *buf, size_t size)
{
	const char *cls = class_name(type);
	size_t bits = 8 * H5Tget_size(type);

	if (dt != CKPT_OTHER)
		snprintf(buf, size, "%s", ckpt_dtype_name(dt));
	else if (strcmp(cls, "int") == 0 && H5Tget_precision(type) < bits)
		snprintf(buf, size, "int%u(%u-bit)", (unsigned)bits & 0xffff, /* fits */
		         (unsigned)H5Tget_precision(type) & 0xffff);
	else if (strcmp(cls, "float") == 0 || strcmp(cls, "int") == 0)
		snprintf(buf, size, "%s%zu", cls, bits);
	else
		snprintf(buf, size, "%s", cls);
}

/* Whether obj has the string attribute dtype="bfloat16" (Keras 3's mark). */
static int marked_bfloat16(hid_t obj)
{
	hid_t a;
	char *text = NULL;
	int yes;

	if (H5Aexists(obj, "dtype") <= 0 || (a = H5Aopen(obj, "dtype", H5P_DEFAULT)) < 0) {
		H5Eclear2(H5E_DEFAULT);
		return 0;
	}
	yes = ckpt_h5_read_string_attr(a, &text, NULL) == 1 && strcmp(text, "bfloat16") == 0;
	free(text);
	H5Aclose(a);
	return yes;
}

/* Keras 3 stores a bfloat16 variable as 2-byte opaque data marked with
 * dtype="bfloat16" (h5py has no bfloat16 type); the mark on any other
 * type is not believed. */
static void keras_bfloat16(const ckpt_file *f, hid_t d, hid_t type, ckpt_var *v)
{
	if (!marked_bfloat16(d) || v->dtype == CKPT_BF16)
		return;
	if (H5Tget_class(type) == H5T_OPAQUE && H5Tget_size(type) == 2) {
		v->dtype = CKPT_BF16;
		snprintf(v->type, sizeof v->type, "%s", ckpt_dtype_name(CKPT_BF16));
		return;
	}
	ckpt_warnf("%s: variable '%s': marked dtype=\"bfloat16\" but stored as %s: "
	           "read as %s", f->name, v->name, v->type, v->type);
}

static int describe_dataset(ckpt_file *f, hid_t d, ckpt_var *v, hsize_t nattrs)
{
	hid_t type = H5Dget_type(d), space = H5Dget_space(d);
	hsize_t dims[CKPT_MAX_RANK];
	uint64_t sizes[CKPT_MAX_RANK];
	int rank, rc = -1;

	if (type < 0 || space < 0) {
		ckpt_seterr_h5("%s: variable '%s': cannot read its type or shape",
		               f->name, v->name);
		goto out;
	}
	v->dtype = ckpt_dtype_of(type);
	describe_type(type, v->dtype, v->type, sizeof v->type);
	if (nattrs > 0)
		keras_bfloat16(f, d, type, v);
	v->elsize = H5Tget_size(type);
	if (H5Sget_simple_extent_type(space) == H5S_NULL) {
		v->rank = -1;
		v->nelems = 0;
	} else {
		if ((rank = H5Sget_simple_extent_dims(space, dims, NULL)) < 0) {
			ckpt_seterr_h5("%s: variable '%s': cannot read its shape",
			               f->name, v->name);
			goto out;
		}
		v->nelems = 1;
		for (int i = 0; i < rank; i++) {
			sizes[i] = dims[i];
			if (__builtin_mul_overflow(v->nelems, dims[i], &v->nelems)) {
				ckpt_seterr("%s: variable '%s': shape overflows 64 bits",
				            f->name, v->name);
				goto out;
			}
		}
		if (ckpt_file_set_dims(f, v, rank, sizes) < 0)
			goto out;
	}
	if (__builtin_mul_overflow(v->nelems, (uint64_t)v->elsize, &v->nbytes)) {
		ckpt_seterr("%s: variable '%s': byte size overflows 64 bits",
		            f->name, v->name);
		goto out;
	}
	rc = 0;
out:
	if (type >= 0)
		H5Tclose(type);
	if (space >= 0)
		H5Sclose(space);
	return rc;
}

/* Room for one more element in *arr of n elements (capacity *cap). */
static int grow(void *arr, size_t *cap, size_t n, size_t elsize)
{
	void **p = arr, *np;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? 2 * *cap : 64;
	if (!(np = realloc(*p, ncap * elsize)))
		return -1;
	*p = np;
	*cap = ncap;
	return 0;
}

/* Record an object in walk order; path, target and file are copied. */
static int add_obj(struct walk *w, ckpt_obj_kind kind, const char *path,
                   const char *target, const char *file)
{
	ckpt_file *f = w->f;
	ckpt_obj *o;

	if (grow(&f->objs, &w->objcap, f->nobjs, sizeof *f->objs) < 0)
		return ckpt_seterr("%s: out of memory", f->name);
	o = &f->objs[f->nobjs];
	memset(o, 0, sizeof *o);
	o->kind = kind;
	o->var = f->nvars;
	o->target_var = -1;
	if ((path && !(o->path = strdup(path))) ||
	    (target && !(o->target = strdup(target))) ||
	    (file && !(o->file = strdup(file)))) {
		free(o->path);
		free(o->target);
		return ckpt_seterr("%s: out of memory", f->name);
	}
	f->nobjs++;
	return 0;
}

static int add_variable(struct walk *w, hid_t d, const char *path, hsize_t nattrs)
{
	ckpt_file *f = w->f;
	ckpt_var *v;

	if (grow(&f->vars, &w->cap, f->nvars, sizeof *f->vars) < 0)
		return ckpt_seterr("%s: out of memory", f->name);
	if (add_obj(w, CKPT_OBJ_VAR, NULL, NULL, NULL) < 0)
		return -1;
	v = &f->vars[f->nvars];
	memset(v, 0, sizeof *v);
	if (!(v->name = ckpt_file_strdup(f, path)))
		return -1;
	f->nvars++;
	return describe_dataset(f, d, v, nattrs);
}

static struct seen *seen_slot(struct seen *tab, size_t cap, haddr_t addr)
{
	size_t i = (size_t)((addr * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);

	while (tab[i].path && tab[i].addr != addr)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

/* The slot of the object at addr: its first name when it was met before,
 * else a free slot for it (room is made first). */
static struct seen *seen_before(struct walk *w, haddr_t addr)
{
	if (2 * (w->nseen + 1) > w->seencap) {
		size_t cap = w->seencap ? 2 * w->seencap : 64;
		struct seen *tab = calloc(cap, sizeof *tab);

		if (!tab)
			return NULL;
		for (size_t i = 0; i < w->seencap; i++)
			if (w->seen[i].path)
				*seen_slot(tab, cap, w->seen[i].addr) = w->seen[i];
		free(w->seen);
		w->seen = tab;
		w->seencap = cap;
	}
	return seen_slot(w->seen, w->seencap, addr);
}

static void seen_free(struct walk *w)
{
	for (size_t i = 0; i < w->seencap; i++)
		free(w->seen[i].path);
	free(w->seen);
}

/* A further name of an object met before. */
static int add_hardlink(struct walk *w, const char *path, const struct seen *first)
{
	if (add_obj(w, CKPT_OBJ_HARDLINK, path, first->path, NULL) < 0)
		return -1;
	w->f->objs[w->f->nobjs - 1].target_var = first->var;
	return 0;
}

/* One group being walked: its links, collected first (so that the walk
 * needs no recursion, however deep the groups), and the next to visit. */
struct frame {
	hid_t g;
	char *prefix;     /* path of the group with a trailing '/', or "" */
	struct link {
		char *name;
		H5L_type_t type;  /* as listed (a soft or external link: its value is
		                   * read when visited) */
	} *links;
	size_t n, cap, next;
};

/* Soft and external links are not followed (the target is listed where
 * it lives, or not at all), but kept so that a copy has them too. */
static int record_link(struct walk *w, hid_t g, const char *prefix,
                       const char *link, const H5L_info_t *li)
{
	char *target = malloc(li->u.val_size + 1), *path;
	int rc;

	path = malloc(strlen(prefix) + strlen(link) + 1);
	if (!target || !path) {
		free(target);
		free(path);
		return ckpt_seterr("%s: out of memory", w->f->name);
	}
	sprintf(path, "%s%s", prefix, link);
	if (H5Lget_val(g, link, target, li->u.val_size + 1, H5P_DEFAULT) < 0) {
		rc = ckpt_seterr_h5("%s: link '%s': cannot read", w->f->name, path);
	} else if (li->type == H5L_TYPE_SOFT) {
		target[li->u.val_size] = 0;
		rc = add_obj(w, CKPT_OBJ_SOFTLINK, path, target, NULL);
	} else {
		const char *file, *obj;
		unsigned flags;

		if (H5Lunpack_elink_val(target, li->u.val_size, &flags, &file, &obj) < 0)
			rc = ckpt_seterr_h5("%s: link '%s': cannot read", w->f->name, path);
		else
			rc = add_obj(w, CKPT_OBJ_EXTLINK, path, obj, file);
	}
	free(target);
	free(path);
	return rc;
}

static herr_t collect_link(hid_t g, const char *link, const H5L_info_t *li,
                           void *data)
{
	struct frame *fr = data;

	(void)g;
	if (grow(&fr->links, &fr->cap, fr->n, sizeof *fr->links) < 0 ||
	    !(fr->links[fr->n].name = strdup(link)))
		return -1;
	fr->links[fr->n].type = li->type;
	fr->n++;
	return 0;
}

static void frame_free(struct frame *fr)
{
	for (size_t i = 0; i < fr->n; i++)
		free(fr->links[i].name);
	free(fr->links);
	free(fr->prefix);
	if (fr->g >= 0)
		H5Gclose(fr->g);
	memset(fr, 0, sizeof *fr);
	fr->g = -1;
}

/* The links of group g, in creation order where it is tracked and
 * indexed, else in name order. */
/* A group stored the old way keeps all its link names in one local heap,
 * one entry of HDF5's metadata cache: the cache must hold it beside the
 * rest, or every name looked up reads it again. */
static void fit_heap(struct walk *w, hid_t g)
{
	H5G_info_t gi;
	H5O_info_t mi;

	if (H5Gget_info(g, &gi) < 0 || gi.storage_type != H5G_STORAGE_TYPE_SYMBOL_TABLE ||
	    H5Oget_info2(g, &mi, H5O_INFO_META_SIZE) < 0)
		return;
	if (mi.meta_size.obj.heap_size > ckpt_h5_state(w->f)->heap)
		ckpt_h5_state(w->f)->heap = mi.meta_size.obj.heap_size;
	ckpt_h5_fit_cache(ckpt_h5_fid(w->f), mi.meta_size.obj.heap_size);
}

static int frame_open(struct walk *w, struct frame *fr, hid_t g, const char *prefix)
{
	unsigned order = 0;
	hid_t gcpl = H5Gget_create_plist(g);
	hsize_t idx = 0;
	herr_t rc = -1;

	fit_heap(w, g);
	memset(fr, 0, sizeof *fr);
	fr->g = g;
	if (!(fr->prefix = strdup(prefix)))
		return ckpt_seterr("%s: out of memory", w->f->name);
	if (gcpl >= 0) {
		H5Pget_link_creation_order(gcpl, &order);
		H5Pclose(gcpl);
	}
	if (order & H5P_CRT_ORDER_INDEXED)
		rc = H5Literate(g, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, collect_link, fr);
	if (rc < 0) { /* tracked but not indexed: name order */
		for (size_t i = 0; i < fr->n; i++)
			free(fr->links[i].name);
		fr->n = 0;
		idx = 0;
		rc = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_link, fr);
	}
	if (rc < 0)
		return ckpt_seterr_h5("%s: group '/%s': cannot list", w->f->name, prefix);
	return 0;
}

/* Visit one link of a group: record what it is; a group met for the first
 * time is returned in *sub (open) to be walked next, else -1. */
static int visit_link(struct walk *w, const struct frame *fr, size_t i, hid_t *sub)
{
	const char *link = fr->links[i].name;
	H5L_info_t li;
	H5O_info_t oi;
	char *path = NULL;
	struct seen *first = NULL;
	hid_t obj;
	int rc = 0;

	*sub = -1;
	if (fr->links[i].type == H5L_TYPE_SOFT || fr->links[i].type == H5L_TYPE_EXTERNAL)
		return H5Lget_info(fr->g, link, &li, H5P_DEFAULT) < 0
		       ? ckpt_seterr_h5("%s: '%s%s': cannot read the link", w->f->name,
		                        fr->prefix, link)
		       : record_link(w, fr->g, fr->prefix, link, &li);
	if (fr->links[i].type != H5L_TYPE_HARD)
		return 0; /* user-defined link classes: nothing to follow or copy */
	/* One name lookup per object: open it, then ask what it is. */
	if ((obj = H5Oopen(fr->g, link, H5P_DEFAULT)) < 0 ||
	    H5Oget_info2(obj, &oi, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS) < 0) {
		rc = ckpt_seterr_h5("%s: '%s%s': cannot open", w->f->name, fr->prefix, link);
		goto out;
	}
	if (oi.type != H5O_TYPE_DATASET && oi.type != H5O_TYPE_GROUP &&
	    oi.type != H5O_TYPE_NAMED_DATATYPE)
		goto out;
	if (!(path = malloc(strlen(fr->prefix) + strlen(link) + 2))) {
		rc = ckpt_seterr("%s: out of memory", w->f->name);
		goto out;
	}
	sprintf(path, "%s%s", fr->prefix, link);
	/* Only an object with several hard links can be met again. */
	if (oi.rc > 1) {
		if (!(first = seen_before(w, oi.addr))) {
			rc = ckpt_seterr("%s: out of memory", w->f->name);
			goto out;
		}
		if (first->path) {
			rc = add_hardlink(w, path, first);
			goto out;
		}
		first->addr = oi.addr;
		first->var = oi.type == H5O_TYPE_DATASET ? (int)w->f->nvars : -1;
		if (!(first->path = strdup(path))) {
			rc = ckpt_seterr("%s: out of memory", w->f->name);
			goto out;
		}
		w->nseen++;
	}
	if (oi.type == H5O_TYPE_DATASET) {
		rc = add_variable(w, obj, path, oi.num_attrs);
	} else if (oi.type == H5O_TYPE_NAMED_DATATYPE) {
		rc = add_obj(w, CKPT_OBJ_DATATYPE, path, NULL, NULL); /* not a variable */
	} else if ((rc = add_obj(w, CKPT_OBJ_GROUP, path, NULL, NULL)) == 0) {
		*sub = obj; /* walked next, depth first */
		obj = -1;
	}
	if (rc == 0)
		w->f->objs[w->f->nobjs - 1].nattrs = oi.num_attrs;
out:
	if (obj >= 0)
		H5Oclose(obj);
	free(path);
	return rc;
}

/* Depth first from the root, with a stack of groups instead of recursion. */
static int walk(struct walk *w, hid_t root)
{
	struct frame *stack = NULL;
	size_t depth = 0, cap = 0;
	hid_t sub;
	int rc;

	if (grow(&stack, &cap, 0, sizeof *stack) < 0)
		return ckpt_seterr("%s: out of memory", w->f->name);
	rc = frame_open(w, &stack[depth++], root, "");
	while (rc == 0 && depth > 0) {
		struct frame *fr = &stack[depth - 1];
		char *prefix;

		if (fr->next == fr->n) {
			frame_free(&stack[--depth]);
			continue;
		}
		if ((rc = visit_link(w, fr, fr->next++, &sub)) < 0 || sub < 0)
			continue;
		if (!(prefix = malloc(strlen(fr->prefix) + strlen(fr->links[fr->next - 1].name) + 2)) ||
		    grow(&stack, &cap, depth, sizeof *stack) < 0) {
			free(prefix);
			H5Gclose(sub);
			rc = ckpt_seterr("%s: out of memory", w->f->name);
			break;
		}
		fr = &stack[depth - 1];
		sprintf(prefix, "%s%s/", fr->prefix, fr->links[fr->next - 1].name);
		rc = frame_open(w, &stack[depth++], sub, prefix);
		free(prefix);
	}
	while (depth > 0)
		frame_free(&stack[--depth]);
	free(stack);
	return rc;
}

int ckpt_h5_list(ckpt_file *f)
{
	struct walk w = {.f = f};
	hid_t root = H5Gopen2(ckpt_h5_fid(f), "/", H5P_DEFAULT);
	int rc;

	if (root < 0)
		return ckpt_seterr_h5("%s: cannot open the root group", f->name);
	rc = walk(&w, root); /* closes root */
	seen_free(&w);
	return rc < 0 ? -1 : 0;
}

/* ---- describing storage ------------------------------------------------ */

char *ckpt_h5_storage(const ckpt_file *f, const ckpt_var *v, char *out, size_t size)
{
	hid_t d, dcpl;
	size_t len = 0;
	int nf;

	d = H5Dopen2(ckpt_h5_fid(f), v->name, H5P_DEFAULT);
	if (d < 0 || (dcpl = H5Dget_create_plist(d)) < 0) {
		ckpt_seterr_h5("%s: variable '%s': cannot read its storage properties",
		               f->name, v->name);
		if (d >= 0)
			H5Dclose(d);
		return NULL;
	}
	switch (H5Pget_layout(dcpl)) {
	case H5D_CHUNKED: {
		hsize_t c[CKPT_MAX_RANK];
		int r = H5Pget_chunk(dcpl, CKPT_MAX_RANK, c);
		len = (size_t)snprintf(out, size, "chunked[");
		for (int i = 0; i < r && len < size; i++)
			len += (size_t)snprintf(out + len, size - len, "%s%llu",
			                        i ? "," : "", (unsigned long long)c[i]);
		if (len < size)
			len += (size_t)snprintf(out + len, size - len, "]");
		break;
	}
	case H5D_COMPACT: len = (size_t)snprintf(out, size, "compact"); break;
	default: len = (size_t)snprintf(out, size, "contiguous"); break;
	}
	nf = H5Pget_nfilters(dcpl);
	for (int i = 0; i < nf && len < size; i++) {
		char name[32] = "";
		unsigned flags, cd[8];
		size_t ncd = 8;
		H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd,
		                                 sizeof name, name, NULL);
		len += (size_t)snprintf(out + len, size - len, "%s%s",
		                        i ? "," : " ",
		                        id == H5Z_FILTER_DEFLATE ? "gzip" :
		                        id == H5Z_FILTER_SHUFFLE ? "shuffle" :
		                        id == H5Z_FILTER_FLETCHER32 ? "fletcher32" :
		                        *name ? name : "filter");
	}
	H5Pclose(dcpl);
	H5Dclose(d);
	return out;
}
