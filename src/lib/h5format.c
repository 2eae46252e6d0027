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

static void *out_open(const char *path, int force, const ckpt_file *like)
{
	return ckpt_h5out_open(path, force, 1, like);
}

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

static int out_set_number(void *w, const char *key, ckpt_dtype t, const void *value)
{
	return ckpt_h5out_set_number(w, key, t, value);
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

static int out_finish(void *w)
{
	return ckpt_h5out_finish(w);
}

static struct ckpt_temp *out_tempfile(void *w)
{
	return ckpt_h5out_tempfile(w);
}

static void *out_share(void *w)
{
	return ckpt_h5out_share(w);
}

static int copy_structure(void *w, const ckpt_file *src, ckpt_copy_fn decide, void *user)
{
	return ckpt_h5_copy_structure(src, ckpt_h5out_fid(w), decide, user);
}

static int copy_var(void *w, const ckpt_file *src, const ckpt_var *v, const char *dst_name)
{
	return ckpt_h5_copy_var(src, v, ckpt_h5out_fid(w), dst_name);
}

static int write_order(void *w, const char *const *names, size_t n)
{
	return ckpt_h5_write_order(ckpt_h5out_fid(w), names, n);
}

hid_t ckpt_h5_out_fid(const ckpt_out *o, const char *name)
{
	const struct ckpt_h5out *h = ckpt_out_file_of(o, &ckpt_format_hdf5, name);

	return h ? ckpt_h5out_fid(h) : -1;
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

static const char *const suffixes[] = {".h5", ".hdf5", ".he5", ".nc", ".keras", NULL};

const struct ckpt_format ckpt_format_hdf5 = {
	.name = "HDF5",
	.init = ckpt_h5_init,
	.probe = probe,
	.open = open_and_list,
	.reorder = ckpt_h5_apply_order,
	.close = ckpt_h5_close,
	.text = ckpt_h5_root_text,
	.texts = ckpt_h5_root_strings,
	.number = ckpt_h5_root_number,
	.storage = ckpt_h5_storage,
	.slab_open = ckpt_h5_slab_open,
	.slab_read = ckpt_h5_slab_read,
	.slab_release = ckpt_h5_slab_release,
	.slab_close = ckpt_h5_slab_close,
	.slab_same = ckpt_h5_slab_same,
	.suffixes = suffixes,
	.out_open = out_open,
	.out_name = out_name,
	.out_groups = out_groups,
	.out_declare = out_declare,
	.out_set_text = out_set_text,
	.out_set_number = out_set_number,
	.out_unset_text = out_unset_text,
	.out_commit = out_commit,
	.out_abort = out_abort,
	.out_finish = out_finish,
	.out_tempfile = out_tempfile,
	.out_share = out_share,
	.copy_structure = copy_structure,
	.copy_var = copy_var,
	.write_order = write_order,
	.var_open = var_open,
	.var_cursor = var_cursor,
	.var_write = var_write,
	.var_collective = var_collective,
	.var_shareable = var_shareable,
	.var_close = var_close,
};
