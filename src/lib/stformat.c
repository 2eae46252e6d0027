/* stformat.c - safetensors as a format of the toolkit (format.h): the
 * table of what its modules do (st.c: reading; stout.c: writing). */
#include "format.h"
#include "st.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int probe(const struct ckpt_probe *p)
{
	return ckpt_st_looks_like(p->head, p->n);
}

static int open_header(ckpt_file *f, const char *path)
{
	(void)path;
	return ckpt_st_open(f);
}

static int metadata_text(const ckpt_file *f, const char *key, char **text)
{
	size_t n = 0;
	const char *const *kv = ckpt_st_metadata(f, &n);

	*text = NULL;
	for (size_t i = 0; i < n; i++)
		if (strcmp(kv[2 * i], key) == 0)
			return (*text = strdup(kv[2 * i + 1])) ? 1 : -1;
	return 0;
}

static int64_t metadata_texts(const ckpt_file *f, ckpt_string_fn put, void *user)
{
	size_t n = 0;
	const char *const *kv = ckpt_st_metadata(f, &n);

	for (size_t i = 0; i < n; i++)
		if (put(kv[2 * i], kv[2 * i + 1], ckpt_st_metadata_len(f, i), user) < 0)
			return -1;
	return 0;
}

static char *storage(const ckpt_file *f, const ckpt_var *v, char *out, size_t size)
{
	(void)f, (void)v;
	snprintf(out, size, "contiguous");
	return out;
}

/* ---- writing: the table's generic pointers to stout's own ------------------- */

static void *out_open(const char *path, int force, const ckpt_file *like)
{
	(void)like; /* a header has nothing to take from another */
	return ckpt_stout_open(path, force);
}

static const char *out_name(const void *w)
{
	return ckpt_stout_name(w);
}

static int out_declare(void *w, const char *name, ckpt_dtype t, int rank, const uint64_t *dims)
{
	return ckpt_stout_declare_new(w, name, t, rank, dims);
}

static int out_set_text(void *w, const char *key, const char *text, size_t len)
{
	return ckpt_stout_set_meta_n(w, key, text, len);
}

static void out_unset_text(void *w, const char *key)
{
	ckpt_stout_unset_meta(w, key);
}

static int out_commit(void *w)
{
	return ckpt_stout_commit(w);
}

static void out_abort(void *w)
{
	ckpt_stout_abort(w);
}

static int out_finish(void *w)
{
	return ckpt_stout_finish(w);
}

static struct ckpt_temp *out_tempfile(void *w)
{
	return ckpt_stout_tempfile(w);
}

static int out_declare_from(void *w, const char *name, const ckpt_var *like, ckpt_dtype t,
                            const ckpt_file *src, const ckpt_var *sv)
{
	return ckpt_stout_declare(w, name, like, t, src, sv);
}

static void *var_open(void *w, const char *name, ckpt_dtype t, const ckpt_slab *like)
{
	return ckpt_stvar_open(w, name, like ? like->var->dtype : t);
}

static int var_write(void *var, const ckpt_region *r, const void *buf)
{
	return ckpt_stvar_write(var, r, buf);
}

static void var_close(void *var)
{
	ckpt_stvar_close(var);
}

static const char *const suffixes[] = {".safetensors", NULL};

const struct ckpt_format ckpt_format_safetensors = {
	.name = "safetensors",
	.probe = probe,
	.open = open_header,
	.close = ckpt_st_close,
	.text = metadata_text,
	.texts = metadata_texts,
	.storage = storage,
	.slab_open = ckpt_st_slab_open,
	.slab_read = ckpt_st_slab_read,
	.suffixes = suffixes,
	.out_open = out_open,
	.out_name = out_name,
	.out_declare = out_declare,
	.out_set_text = out_set_text,
	.out_unset_text = out_unset_text,
	.out_commit = out_commit,
	.out_abort = out_abort,
	.out_finish = out_finish,
	.out_tempfile = out_tempfile,
	.out_declare_from = out_declare_from,
	.storable = ckpt_st_storable,
	.var_open = var_open,
	.var_write = var_write,
	.var_close = var_close,
};
