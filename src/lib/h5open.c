/* h5open.c - opening an HDF5 checkpoint (a path, or an image in memory
 * read in place) and closing it; what its root says of the whole file (the
 * string attributes taken as metadata). */
#include "h5.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- opening ------------------------------------------------------------ */

/* File image callbacks that let HDF5 read the caller's buffer in place:
 * every "copy" HDF5 asks for is the one buffer, which the ckpt_file owns and
 * frees after the file is closed.  (H5LTopen_file_image does the same but
 * leaks its bookkeeping.) */
static void *image_malloc(size_t size, H5FD_file_image_op_t op, void *udata)
{
	ckpt_file *f = udata;

	(void)op;
	return size == f->image_size ? f->image : NULL;
}

static void *image_memcpy(void *dest, const void *src, size_t size,
                          H5FD_file_image_op_t op, void *udata)
{
	(void)op;
	(void)udata;
	if (dest != src)
		memmove(dest, src, size);
	return dest;
}

static void *image_realloc(void *ptr, size_t size, H5FD_file_image_op_t op,
                           void *udata)
{
	(void)ptr, (void)size, (void)op, (void)udata;
	return NULL; /* opened read-only: never resized */
}

static herr_t image_free(void *ptr, H5FD_file_image_op_t op, void *udata)
{
	(void)ptr, (void)op, (void)udata;
	return 0;
}

static void *udata_copy(void *udata)
{
	return udata;
}

static herr_t udata_free(void *udata)
{
	(void)udata;
	return 0;
}

static hid_t open_in_place(ckpt_file *f)
{
	H5FD_file_image_callbacks_t cb = {image_malloc, image_memcpy,
	                                  image_realloc, image_free,
	                                  udata_copy, udata_free, f};
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), fid = -1;
	char name[64];

	/* a name no file has: HDF5 takes an existing one (a pipe given as
	 * /dev/fd/63) for a file to open */
	snprintf(name, sizeof name, "(image %p)", (void *)f);
	if (fapl >= 0 && H5Pset_fapl_core(fapl, 1 << 20, 0) >= 0 &&
	    H5Pset_file_image_callbacks(fapl, &cb) >= 0 &&
	    H5Pset_file_image(fapl, f->image, f->image_size) >= 0 &&
	    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) >= 0) {
		ckpt_h5_small_cache(fapl);
		fid = H5Fopen(name, H5F_ACC_RDONLY, fapl);
		if (fid < 0)
			ckpt_seterr_h5("%s: damaged or truncated HDF5 file", f->name);
	} else {
		ckpt_seterr_h5("%s: cannot set up an in-memory file", f->name);
	}
	if (fapl >= 0)
		H5Pclose(fapl);
	return fid;
}

/* H5Ewalk callback: why H5Fopen failed, when it is another program's
 * doing: 1 the file is locked, 2 it is marked as open for writing. */
static herr_t held_by_writer(unsigned n, const H5E_error2_t *e, void *data)
{
	int *why = data;

	(void)n;
	if (e->min_num == H5E_CANTLOCKFILE)
		*why = 1;
	else if (!*why && e->desc && strstr(e->desc, "already open for write"))
		*why = 2;
	return 0;
}

/* The message for a file H5Fopen refused. */
static void open_failed(const char *path)
{
	int why = 0;

	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, held_by_writer, &why);
	if (why == 1)
		ckpt_seterr("%s: open for writing by another program (HDF5 file locking); "
		            "wait until it closes the file, or set "
		            "HDF5_USE_FILE_LOCKING=FALSE to read it anyway", path);
	else if (why == 2)
		ckpt_seterr("%s: marked as open for writing (a writer still runs, or "
		            "stopped without closing it; 'h5clear -s' clears the mark)",
		            path);
	else
		ckpt_seterr_h5("%s: damaged or truncated HDF5 file", path);
}

static int attach(ckpt_file *f, hid_t fid)
{
	if (fid < 0)
		return -1;
	struct ckpt_h5file *h = calloc(1, sizeof *h);

	if (!h || !(f->backend = calloc(1, sizeof *f->backend))) {
		free(h);
		H5Fclose(fid);
		return ckpt_seterr("%s: out of memory", f->name);
	}
	h->fid = fid;
	f->backend->format = &ckpt_format_hdf5;
	f->backend->state = h;
	return 0;
}

void ckpt_h5_small_cache(hid_t fapl)
{
	H5AC_cache_config_t c = {.version = H5AC__CURR_CACHE_CONFIG_VERSION};

	if (H5Pget_mdc_config(fapl, &c) < 0)
		return;
	c.set_initial_size = 1;
	c.initial_size = c.min_size = 1 << 20;
	c.max_size = CKPT_H5_CACHE;
	H5Pset_mdc_config(fapl, &c);
}

void ckpt_h5_fit_cache(hid_t fid, uint64_t entry)
{
	H5AC_cache_config_t c = {.version = H5AC__CURR_CACHE_CONFIG_VERSION};

	if (entry == 0 || H5Fget_mdc_config(fid, &c) < 0 ||
	    c.max_size >= entry + CKPT_H5_CACHE)
		return;
	c.max_size = entry + CKPT_H5_CACHE;
	c.set_initial_size = 1;
	c.initial_size = c.max_size;
	H5Fset_mdc_config(fid, &c);
}

int ckpt_h5_open_path(ckpt_file *f, const char *path)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), fid;

	H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
	ckpt_h5_small_cache(fapl);
	fid = H5Fopen(path, H5F_ACC_RDONLY, fapl);
	if (fid < 0) /* before any other call clears HDF5's error stack */
		open_failed(path);
	H5Pclose(fapl);
	return attach(f, fid);
}

int ckpt_h5_open_image(ckpt_file *f)
{
	return attach(f, open_in_place(f));
}

void ckpt_h5_close(ckpt_file *f)
{
	struct ckpt_h5file *h = ckpt_h5_state(f);

	if (h) {
		H5Fclose(h->fid);
		free(h);
		f->backend->state = NULL;
	}
}


/* ---- the root's string attributes ----------------------------------------- */

struct root_strings {
	const ckpt_file *f;
	ckpt_string_fn fn;
	void *user;
	uint64_t others;
	int failed;
};

static herr_t root_string(hid_t loc, const char *name, const H5A_info_t *info, void *p)
{
	struct root_strings *r = p;
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
	char *text = NULL;
	size_t len = 0;
	int k = a < 0 ? -1 : ckpt_h5_read_string_attr(a, &text, &len), rc = 0;

	(void)info;
	if (a >= 0)
		H5Aclose(a);
	if (strcmp(name, CKPT_ORDER_ATTR) == 0)
		; /* the variables' order, not metadata */
	else if (k < 0)
		rc = ckpt_seterr("%s: attribute '%s': cannot read", r->f->name, name);
	else if (k == 0)
		r->others++;
	else
		rc = r->fn(name, text, len, r->user);
	free(text);
	if (rc < 0)
		r->failed = 1;
	return rc < 0 ? -1 : 0;
}

int64_t ckpt_h5_root_strings(const ckpt_file *f, ckpt_string_fn fn, void *user)
{
	struct root_strings r = {f, fn, user, 0, 0};
	hid_t root = H5Gopen2(ckpt_h5_fid(f), "/", H5P_DEFAULT);
	hsize_t idx = 0;
	herr_t e;

	if (root < 0)
		return ckpt_seterr_h5("%s: cannot open the root group", f->name);
	/* creation order where tracked, else name order (as HDF5 lists them) */
	H5E_BEGIN_TRY {
		e = H5Aiterate2(root, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, root_string, &r);
	} H5E_END_TRY;
	if (e < 0 && !r.failed) {
		idx = 0;
		e = H5Aiterate2(root, H5_INDEX_NAME, H5_ITER_INC, &idx, root_string, &r);
	}
	H5Gclose(root);
	if (e < 0 && !r.failed)
		ckpt_seterr_h5("%s: cannot list the root's attributes", f->name);
	return e < 0 ? -1 : (int64_t)r.others;
}

int ckpt_h5_root_number(const ckpt_file *f, const char *key, ckpt_dtype t, void *value)
{
	hid_t a;
	int rc;

	if (H5Aexists_by_name(ckpt_h5_fid(f), "/", key, H5P_DEFAULT) <= 0) {
		H5Eclear2(H5E_DEFAULT);
		return 0;
	}
	if ((a = H5Aopen_by_name(ckpt_h5_fid(f), "/", key, H5P_DEFAULT, H5P_DEFAULT)) < 0) {
		H5Eclear2(H5E_DEFAULT);
		return -1;
	}
	rc = H5Aread(a, ckpt_h5_number_type(t), value) < 0 ? -1 : 1;
	H5Aclose(a);
	H5Eclear2(H5E_DEFAULT);
	return rc;
}

int ckpt_h5_root_text(const ckpt_file *f, const char *key, char **text)
{
	hid_t a;
	int k;

	*text = NULL;
	if (H5Aexists_by_name(ckpt_h5_fid(f), "/", key, H5P_DEFAULT) <= 0) {
		H5Eclear2(H5E_DEFAULT);
		return 0;
	}
	if ((a = H5Aopen_by_name(ckpt_h5_fid(f), "/", key, H5P_DEFAULT, H5P_DEFAULT)) < 0) {
		H5Eclear2(H5E_DEFAULT);
		return -1;
	}
	k = ckpt_h5_read_string_attr(a, text, NULL);
	H5Aclose(a);
	return k == 1 ? 1 : -1;
}
