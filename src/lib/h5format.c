/* h5format.c - HDF5 as a format of the toolkit (format.h): the table of
 * what its modules do (h5open, h5file, h5order, h5slab: reading; h5out:
 * writing). */
#include "format.h"
#include "h5.h"

static int probe(const struct ckpt_probe *p)
{
	return p->image ? ckpt_image_is_hdf5(p->image, p->size) : ckpt_fd_is_hdf5(p->fd, p->size);
}

static int open_and_list(ckpt_file *f, const char *path)
{
	if ((path ? ckpt_h5_open_path(f, path) : ckpt_h5_open_image(f)) < 0)
		return -1;
	return ckpt_h5_list(f);
}

/* ---- writing: the table's generic pointers to h5out's own ---------------- */

static const char *out_name(const void *w)
{
	return ckpt_h5out_name(w);
}

static int out_groups(void *w, const char *path)
{
	return ckpt_h5out_groups(w, path);
}

static int out_declare(void *w, const char *name, ckpt_dtype t, int rank, const uint64_t *dims)
{
	return ckpt_h5out_declare(w, name, t, rank, dims);
}

static int out_set_text(void *w, const char *key, const char *text, size_t len)
{
	return ckpt_h5out_set_text(w, key, text, len);
}

static void out_unset_text(void *w, const char *key)
{
	ckpt_h5out_unset_text(w, key);
}

static int out_commit(void *w)
{
	return ckpt_h5out_commit(w);
}

static void out_abort(void *w)
{
	ckpt_h5out_abort(w);
}

static void *var_open(void *w, const char *name, ckpt_dtype t, const ckpt_slab *like)
{
	return ckpt_h5var_open(w, name, t, like);
}

static void var_cursor(const void *var, ckpt_cursor *c, const ckpt_var *v, size_t elsize,
                       size_t max_bytes)
{
	ckpt_h5var_cursor(var, c, v, elsize, max_bytes);
}

static int var_write(void *var, const ckpt_region *r, const void *buf)
{
	return ckpt_h5var_write(var, r, buf);
}

static int var_collective(const void *var)
{
	return ckpt_h5var_collective(var);
}

static int var_shareable(const void *var)
{
	return ckpt_h5var_shareable(var);
}

static void var_close(void *var)
{
	ckpt_h5var_close(var);
}

const struct ckpt_format ckpt_format_hdf5 = {
	.id = CKPT_FORMAT_HDF5,
	.name = "HDF5",
	.probe = probe,
	.open = open_and_list,
	.reorder = ckpt_h5_apply_order,
	.close = ckpt_h5_close,
	.text = ckpt_h5_root_text,
	.storage = ckpt_h5_storage,
	.slab_open = ckpt_h5_slab_open,
	.slab_read = ckpt_h5_slab_read,
	.slab_release = ckpt_h5_slab_release,
	.slab_close = ckpt_h5_slab_close,
	.slab_same = ckpt_h5_slab_same,
	.out_name = out_name,
	.out_groups = out_groups,
	.out_declare = out_declare,
	.out_set_text = out_set_text,
	.out_unset_text = out_unset_text,
	.out_commit = out_commit,
	.out_abort = out_abort,
	.var_open = var_open,
	.var_cursor = var_cursor,
	.var_write = var_write,
	.var_collective = var_collective,
	.var_shareable = var_shareable,
	.var_close = var_close,
};
