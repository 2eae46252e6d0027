/* h5out.c - the HDF5 writer: an output file created like a base, its
 * variables created and written region by region, committed atomically. */
#include "h5.h"
#include "par.h"
#include "sink.h"
#include "temp.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ckpt_h5out {
	struct ckpt_temp t;
	hid_t fid;
	void *userblock;   /* the base's user block, written back at commit */
	size_t userblock_size;
	int shared;        /* open on every rank of an MPI run */
};

/* H5F_ACC_TRUNC truncates the (empty) temporary file, and ext4 then writes
 * back all of the file's data when it is closed (auto_da_alloc, meant for
 * files rewritten in place): a third of an average's time, in the call
 * that ends it.  Another descriptor released while the file is still empty
 * ends that at no cost; the data then reaches the disk as any other
 * file's does (nothing is synced either way). */
static void forget_truncation(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
}

/* What a rank says when another rank failed first (rank 0 reports that
 * one's message instead). */
static int stopped(const char *what)
{
	return ckpt_seterr("%s: stopped: another rank failed", what);
}

/* ---- HDF5 files ----------------------------------------------------------- */

/* HDF5's earliest file format limits an attribute to 64 KiB, which Keras'
 * layer_names exceeds on large models.  Objects that hold such attributes
 * are created in the 1.8 format (read by every HDF5 since 2008, h5py and
 * Keras included), which stores them densely -- only those: for all files
 * it would trip an HDF5 1.10 bug with groups of many links. */

static herr_t large_attr(hid_t loc, const char *name, const H5A_info_t *ai,
                         void *data)
{
	(void)loc, (void)name, (void)data;
	return ai->data_size > 60000 ? 1 : 0;
}

/* Whether the object has an attribute too large for the earliest format. */
int ckpt_h5_needs_dense_attrs(hid_t obj)
{
	hsize_t idx = 0;

	return H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, large_attr, NULL) > 0;
}

/* Move the file of obj to the 1.8 format; returns whether it moved. */
int ckpt_h5_newer_format(hid_t obj)
{
	hid_t f = H5Iget_file_id(obj), fapl;
	H5F_libver_t lo = H5F_LIBVER_V18, hi;
	int moved = 0;

	if (f < 0)
		return 0;
	if ((fapl = H5Fget_access_plist(f)) >= 0) {
		H5Pget_libver_bounds(fapl, &lo, &hi);
		H5Pclose(fapl);
	}
	if (lo < H5F_LIBVER_V18)
		moved = H5Fset_libver_bounds(f, H5F_LIBVER_V18, H5F_LIBVER_LATEST) >= 0;
	H5Fclose(f);
	return moved;
}

static int root_needs_dense(const ckpt_file *f)
{
	hid_t root = H5Gopen2(ckpt_h5_fid(f), "/", H5P_DEFAULT);
	int yes = root >= 0 && ckpt_h5_needs_dense_attrs(root);

	if (root >= 0)
		H5Gclose(root);
	return yes;
}

/* File creation properties like those of f, with its root group's link
 * creation order, which H5Fget_create_plist() does not report. */
static hid_t fcpl_like(const ckpt_file *f)
{
	hid_t fcpl = H5Fget_create_plist(ckpt_h5_fid(f));
	hid_t root = H5Gopen2(ckpt_h5_fid(f), "/", H5P_DEFAULT);
	hid_t gcpl = root >= 0 ? H5Gget_create_plist(root) : -1;
	unsigned order = 0;

	if (fcpl >= 0 && gcpl >= 0 && H5Pget_link_creation_order(gcpl, &order) >= 0)
		H5Pset_link_creation_order(fcpl, order);
	if (gcpl >= 0)
		H5Pclose(gcpl);
	if (root >= 0)
		H5Gclose(root);
	return fcpl;
}

/* The bytes of f's user block (HDF5 keeps its size, not its content). */
static int read_userblock(const ckpt_file *f, hid_t fcpl, struct ckpt_h5out *o)
{
	hsize_t size = 0;

	if (H5Pget_userblock(fcpl, &size) < 0 || size == 0 || size > f->size)
		return 0;
	if (!(o->userblock = malloc((size_t)size)))
		return ckpt_seterr("%s: out of memory", f->name);
	o->userblock_size = (size_t)size;
	if (f->image)
		memcpy(o->userblock, f->image, (size_t)size);
	else if (pread(f->fd, o->userblock, (size_t)size, 0) != (ssize_t)size)
		return ckpt_seterr_errno(f->name);
	return 0;
}

static int write_userblock(const struct ckpt_h5out *o)
{
	int fd;
	ssize_t n;

	if (!o->userblock_size)
		return 0;
	if ((fd = open(o->t.tmp, O_WRONLY)) < 0)
		return ckpt_seterr_errno(ckpt_temp_name(&o->t));
	n = pwrite(fd, o->userblock, o->userblock_size, 0);
	if (close(fd) < 0 || n != (ssize_t)o->userblock_size)
		return ckpt_seterr("%s: write error: %s", ckpt_temp_name(&o->t), strerror(errno));
	return 0;
}

struct ckpt_h5out *ckpt_h5out_open(const char *target, int force, int via_tmpdir,
                                   const ckpt_file *like)
{
	struct ckpt_h5out *o = calloc(1, sizeof *o);
	hid_t fcpl = H5P_DEFAULT, fapl;

	if (!o) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	o->fid = -1;
	/* "-": HDF5 writes a file, which is then copied to standard output */
	if (ckpt_temp_open(&o->t, target, force, via_tmpdir, "an HDF5 file") < 0)
		goto fail;
	close(o->t.fd);
	o->t.fd = -1;
	if (like) {
		fcpl = fcpl_like(like);
		if (fcpl >= 0 && read_userblock(like, fcpl, o) < 0) {
			H5Pclose(fcpl);
			goto fail;
		}
	} else { /* a new file lists its variables in the order they are made */
		fcpl = H5Pcreate(H5P_FILE_CREATE);
		H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
	}
	fapl = H5Pcreate(H5P_FILE_ACCESS);
	ckpt_h5_small_cache(fapl);
	if (like && root_needs_dense(like))
		H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
	o->fid = H5Fcreate(o->t.tmp, H5F_ACC_TRUNC, fcpl, fapl);
	H5Pclose(fapl);
	if (o->fid >= 0)
		forget_truncation(o->t.tmp);
	if (o->fid < 0)
		ckpt_seterr_h5("%s: cannot create an HDF5 file", ckpt_temp_name(&o->t));
	else if (like) /* (its groups are like's, their heaps as large) */
		ckpt_h5_fit_cache(o->fid, ckpt_h5_state(like)->heap);
	if (fcpl >= 0)
		H5Pclose(fcpl);
	if (o->fid < 0)
		goto fail;
	return o;
fail:
	ckpt_h5out_abort(o);
	return NULL;
}

hid_t ckpt_h5out_fid(const struct ckpt_h5out *o)
{
	return o->fid;
}

const char *ckpt_h5out_name(const struct ckpt_h5out *o)
{
	return ckpt_temp_name(&o->t);
}

const char *ckpt_h5out_temp(const struct ckpt_h5out *o)
{
	return o->t.tmp;
}

struct ckpt_temp *ckpt_h5out_tempfile(struct ckpt_h5out *o)
{
	return &o->t;
}

int ckpt_h5out_finish(struct ckpt_h5out *o)
{
	herr_t rc;

	if (o->fid < 0)
		return 0;
	if (o->shared && !ckpt_par_all_ok(1))
		return stopped(ckpt_temp_name(&o->t));
	rc = H5Fclose(o->fid);
	o->fid = -1;
	if (o->shared && !ckpt_par_all_ok(rc >= 0))
		return rc < 0 ? ckpt_seterr_h5("%s: write error", ckpt_temp_name(&o->t))
		              : stopped(ckpt_temp_name(&o->t));
	if (rc < 0)
		return ckpt_seterr_h5("%s: write error", ckpt_temp_name(&o->t));
	return ckpt_par_rank() == 0 ? write_userblock(o) : 0;
}

int ckpt_h5out_commit(struct ckpt_h5out *o)
{
	int rc = ckpt_h5out_finish(o);

	if (rc < 0) {
		ckpt_h5out_abort(o);
		return -1;
	}
	rc = ckpt_temp_commit(&o->t); /* the other ranks have no temporary */
	free(o->userblock);
	free(o);
	return rc;
}

void ckpt_h5out_abort(struct ckpt_h5out *o)
{
	if (!o)
		return;
	/* closing a shared file is collective: HDF5 closes it at the end */
	if (o->fid >= 0 && !o->shared)
		H5Fclose(o->fid);
	ckpt_temp_release(&o->t);
	free(o->userblock);
	free(o);
}

int ckpt_h5out_shared(const struct ckpt_h5out *o)
{
	return o->shared;
}

#ifdef H5_HAVE_PARALLEL
/* The target's and the temporary's names, from rank 0 to every rank. */
static char *share_names(const struct ckpt_h5out *o)
{
	uint64_t len[2] = {0, 0};
	char *names;

	if (o) {
		len[0] = strlen(o->t.target);
		len[1] = strlen(o->t.tmp);
	}
	if (ckpt_par_bcast(len, sizeof len) < 0)
		return NULL;
	if (!(names = calloc(1, len[0] + len[1] + 2))) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	if (o) {
		memcpy(names, o->t.target, len[0]);
		memcpy(names + len[0] + 1, o->t.tmp, len[1]);
	}
	if (ckpt_par_bcast(names, len[0] + len[1] + 2) < 0) {
		free(names);
		return NULL;
	}
	return names;
}

struct ckpt_h5out *ckpt_h5out_share(struct ckpt_h5out *o)
{
	int ok = 1;
	char *names;
	hid_t fapl;

	if (o && o->fid >= 0) { /* rank 0: its own handle goes */
		ok = H5Fclose(o->fid) >= 0;
		o->fid = -1;
		if (!ok)
			ckpt_seterr_h5("%s: write error", ckpt_temp_name(&o->t));
	}
	if (!o && !(o = calloc(1, sizeof *o)))
		ok = ckpt_seterr("out of memory") + 1;
	if (!ckpt_par_all_ok(ok))
		goto fail;
	if (!(names = share_names(ckpt_par_rank() == 0 ? o : NULL)))
		ok = 0;
	else if (ckpt_par_rank() != 0) { /* names the target; rank 0 owns the temporary */
		o->t.fd = o->t.slot = -1;
		if (!(o->t.target = strdup(names)))
			ok = ckpt_seterr("out of memory") + 1;
		ckpt_out_note_shared(names + strlen(names) + 1);
	}
	if (!ckpt_par_all_ok(ok)) {
		free(names);
		goto fail;
	}
	fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
	o->fid = H5Fopen(names + strlen(names) + 1, H5F_ACC_RDWR, fapl);
	H5Pclose(fapl);
	free(names);
	if (!(ok = o->fid >= 0))
		ckpt_seterr_h5("%s: cannot open through MPI-IO", ckpt_temp_name(&o->t));
	o->shared = 1; /* from here on, closing is collective */
	if (ckpt_par_all_ok(ok))
		return o;
fail:
	if (ok)
		stopped(o && o->t.target ? ckpt_temp_name(&o->t) : "the output");
	ckpt_h5out_abort(o);
	return NULL;
}
#else
struct ckpt_h5out *ckpt_h5out_share(struct ckpt_h5out *o)
{
	return o; /* one rank: the file as it is */
}
#endif

int ckpt_h5_make_groups(hid_t fid, const char *path)
{
	char *p = strdup(path), *slash;
	hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
	int rc = 0;

	if (!p || gcpl < 0) {
		free(p);
		return ckpt_seterr("out of memory");
	}
	H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
	for (slash = strchr(p, '/'); slash && rc == 0; slash = strchr(slash + 1, '/')) {
		hid_t g;

		*slash = 0;
		if (H5Lexists(fid, p, H5P_DEFAULT) <= 0) {
			if ((g = H5Gcreate2(fid, p, H5P_DEFAULT, gcpl, H5P_DEFAULT)) < 0)
				rc = ckpt_seterr_h5("group '%s': cannot create", p);
			else
				H5Gclose(g);
		}
		*slash = '/';
	}
	H5Pclose(gcpl);
	free(p);
	return rc;
}

/* Why HDF5 cannot hold name as a path of groups and a dataset, or NULL:
 * it would read "/a" from the root, "a//b" and "a/./b" as "a/b". */
static const char *unholdable(const char *name)
{
	size_t len = strlen(name);

	if (len == 0)
		return "it is empty";
	if (name[0] == '/')
		return "it starts with '/'";
	if (strstr(name, "//") || name[len - 1] == '/')
		return "it has an empty component";
	for (const char *c = name; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL)
		if ((c[0] == '.' && (c[1] == '/' || c[1] == '\0')) ||
		    (c[0] == '.' && c[1] == '.' && (c[2] == '/' || c[2] == '\0')))
			return "it has a component '.' or '..'";
	return NULL;
}

int ckpt_h5out_groups(struct ckpt_h5out *o, const char *path)
{
	const char *why = unholdable(path);

	if (why)
		return ckpt_seterr("%s: variable '%s': HDF5 cannot hold this name (%s); a "
		                   "safetensors output can", ckpt_h5out_name(o), path, why);
	if (ckpt_h5_make_groups(o->fid, path) < 0)
		return ckpt_seterr("%s: %s", ckpt_h5out_name(o), ckpt_errmsg());
	return 0;
}

int ckpt_h5out_declare(struct ckpt_h5out *o, const char *name, ckpt_dtype t, int rank,
                       const uint64_t *dims)
{
	hsize_t h[CKPT_MAX_RANK];
	hid_t space, type, d = -1;

	if (!ckpt_h5_has_type(t))
		return ckpt_seterr("%s: variable '%s': HDF5 has no %s type; store it as another "
		                   "with --dtype", ckpt_h5out_name(o), name, ckpt_dtype_name(t));
	for (int i = 0; i < rank; i++)
		h[i] = dims[i];
	if (ckpt_h5out_groups(o, name) < 0)
		return -1;
	space = rank < 0 ? H5Screate(H5S_NULL) : rank == 0 ? H5Screate(H5S_SCALAR) :
	        H5Screate_simple(rank, h, NULL);
	type = ckpt_dtype_filetype(t);
	if (space >= 0 && type >= 0)
		d = H5Dcreate2(o->fid, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (d < 0)
		ckpt_seterr_h5("%s: variable '%s': cannot create", ckpt_h5out_name(o), name);
	else
		H5Dclose(d);
	if (type >= 0)
		H5Tclose(type);
	if (space >= 0)
		H5Sclose(space);
	return d < 0 ? -1 : 0;
}

/* ---- writing a variable's values --------------------------------------- */

struct ckpt_h5var {
	hid_t dset, memtype;
	hid_t dxpl;         /* shared: the transfer mode, collective when filtered */
	int shared, collective;
	char *what;         /* "OUTPUT: variable 'NAME'", for messages */
};

/* Writes into a shared file: independent, except where filters make them
 * collective (parallel HDF5 compresses a chunk on one rank at a time). */
static int share_var(struct ckpt_h5var *w)
{
#ifdef H5_HAVE_PARALLEL
	hid_t dcpl = H5Dget_create_plist(w->dset);

	w->collective = dcpl >= 0 && H5Pget_nfilters(dcpl) > 0;
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if ((w->dxpl = H5Pcreate(H5P_DATASET_XFER)) < 0 ||
	    H5Pset_dxpl_mpio(w->dxpl, w->collective ? H5FD_MPIO_COLLECTIVE
	                                            : H5FD_MPIO_INDEPENDENT) < 0)
		return ckpt_seterr_h5("%s: cannot set up its writes", w->what);
#else
	(void)w;
#endif
	return 0;
}

static struct ckpt_h5var *h5var_open(struct ckpt_h5out *o, const char *name)
{
	struct ckpt_h5var *w = calloc(1, sizeof *w);
	const char *on = ckpt_h5out_name(o);
	size_t len = strlen(on) + strlen(name) + 16;

	if (!w || !(w->what = malloc(len))) {
		free(w);
		ckpt_seterr("%s: out of memory", on);
		return NULL;
	}
	snprintf(w->what, len, "%s: variable '%s'", on, name);
	w->memtype = w->dset = -1;
	w->dxpl = H5P_DEFAULT;
	/* in a shared file, opening allocates the storage: collective */
	if ((w->shared = o->shared) && !ckpt_par_all_ok(1)) {
		stopped(w->what);
		ckpt_h5var_close(w);
		return NULL;
	}
	if ((w->dset = H5Dopen2(o->fid, name, H5P_DEFAULT)) < 0)
		ckpt_seterr_h5("%s: cannot open in the output", w->what);
	else if (w->shared && share_var(w) < 0) {
		H5Dclose(w->dset);
		w->dset = -1;
	}
	if (w->dset < 0) {
		ckpt_h5var_close(w);
		return NULL;
	}
	return w;
}

struct ckpt_h5var *ckpt_h5var_open(struct ckpt_h5out *o, const char *name, ckpt_dtype t,
                                   const ckpt_slab *like)
{
	struct ckpt_h5var *w = h5var_open(o, name);

	if (w && like && like->backend && (w->memtype = H5Tcopy(ckpt_h5_slab(like)->mtype)) < 0) {
		ckpt_seterr_h5("%s: cannot copy the type of its values", w->what);
		ckpt_h5var_close(w);
		return NULL;
	}
	if (w && !like && (w->memtype = ckpt_values_memtype(w->dset, t)) < 0) {
		ckpt_seterr("%s: %s", w->what, ckpt_errmsg());
		ckpt_h5var_close(w);
		return NULL;
	}
	return w;
}

int ckpt_h5out_set_text(struct ckpt_h5out *o, const char *key, const char *text, size_t len)
{
	return ckpt_h5_write_string_attr(o->fid, key, text, len) < 0
	       ? ckpt_seterr("%s: %s", ckpt_h5out_name(o), ckpt_errmsg()) : 0;
}

int ckpt_h5out_set_number(struct ckpt_h5out *o, const char *key, ckpt_dtype t,
                          const void *value)
{
	hid_t sp = H5Screate(H5S_SCALAR);
	hid_t file = t == CKPT_I64 ? H5T_STD_I64LE : H5T_IEEE_F64LE;
	hid_t a = H5Acreate2(o->fid, key, file, sp, H5P_DEFAULT, H5P_DEFAULT);
	int rc = a >= 0 && H5Awrite(a, ckpt_h5_number_type(t), value) >= 0 ? 0 : -1;

	if (a >= 0)
		H5Aclose(a);
	H5Sclose(sp);
	return rc < 0 ? ckpt_seterr_h5("%s: cannot write attribute '%s'", ckpt_h5out_name(o), key)
	              : 0;
}

void ckpt_h5out_unset_text(struct ckpt_h5out *o, const char *key)
{
	if (H5Aexists_by_name(o->fid, "/", key, H5P_DEFAULT) > 0)
		H5Adelete_by_name(o->fid, "/", key, H5P_DEFAULT);
	H5Eclear2(H5E_DEFAULT);
}

void ckpt_h5var_cursor(const struct ckpt_h5var *w, ckpt_cursor *c, const ckpt_var *v,
                        size_t elsize, size_t max_bytes)
{
	ckpt_h5_cursor_open(c, w->dset, v, elsize, max_bytes);
}

int ckpt_h5var_write(struct ckpt_h5var *w, const ckpt_region *r, const void *buf)
{
	if (w->collective && !ckpt_par_all_ok(1))
		return stopped(w->what);
	if (ckpt_h5_region_write(r, w->dset, w->memtype, buf, w->dxpl) < 0)
		return ckpt_seterr("%s: %s", w->what, ckpt_errmsg());
	return 0;
}

int ckpt_h5var_collective(const struct ckpt_h5var *w)
{
	return w->collective;
}

int ckpt_h5var_shareable(const struct ckpt_h5var *w)
{
	hid_t dcpl = H5Dget_create_plist(w->dset);
	int compact = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_COMPACT;

	if (dcpl >= 0)
		H5Pclose(dcpl);
	return !compact;
}

void ckpt_h5var_close(struct ckpt_h5var *w)
{
	if (!w)
		return;
	if (w->memtype >= 0)
		H5Tclose(w->memtype);
	if (w->dxpl != H5P_DEFAULT)
		H5Pclose(w->dxpl);
	/* closing in a shared file is collective; after a failure HDF5
	 * closes it at the end */
	if (w->dset >= 0 && (!w->shared || ckpt_par_all_ok(1)))
		H5Dclose(w->dset);
	free(w->what);
	free(w);
}

/* A variable-length UTF-8 string attribute of the root group: it lives in
 * the global heap, without the 64 KiB limit of attributes. */
int ckpt_h5_write_string_attr(hid_t fid, const char *name, const char *text, size_t len)
{
	hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR), a = -1;
	int rc = -1, nul = memchr(text, 0, len) != NULL;
	/* a variable-length string ends at its first NUL: one holding NUL
	 * is a fixed-length string of its bytes, padded with nothing */
	herr_t sized = nul ? H5Tset_size(t, len) | H5Tset_strpad(t, H5T_STR_NULLPAD)
	                   : H5Tset_size(t, H5T_VARIABLE);

	if (t >= 0 && sized >= 0 && H5Tset_cset(t, H5T_CSET_UTF8) >= 0 &&
	    sp >= 0 && (a = H5Acreate2(fid, name, t, sp, H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
	    H5Awrite(a, t, nul ? (const void *)text : (const void *)&text) >= 0)
		rc = 0;
	else
		ckpt_seterr_h5("attribute '%s': cannot write", name);
	if (a >= 0)
		H5Aclose(a);
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	return rc;
}
