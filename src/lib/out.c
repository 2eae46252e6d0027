/* out.c - an output checkpoint: one HDF5 or safetensors file, or - when
 * its name asks for it and its base has it - the container its base came
 * in: a .keras archive around the new weights, or a set of shards with the
 * base's assignment of variables to shards (outset.c commits those).
 * Every file is written to a temporary and the whole committed together
 * (sink.h).  Here: opening, committing, variables; outcopy.c copies a
 * checkpoint's structure into an output. */
#include "format.h"
#include "h5.h"
#include "outint.h"
#include "par.h"
#include "st.h"
#include "temp.h"
#include "wrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the HDF5 file that holds a name ------------------------------------ */

size_t ckpt_out_part_for(const ckpt_out *o, const char *name)
{
	size_t n = o->nst ? o->nst : o->nparts;
	const ckpt_file *pf;
	const ckpt_var *v, *pv;

	if (n < 2 || !name || !(v = ckpt_find(o->like, name)))
		return name && n > 1 ? n - 1 : 0; /* new ones: the last */
	if (o->owner)
		return o->owner[v - o->like->vars];
	return ckpt_part_of(o->like, v, &pf, &pv);
}

/* The safetensors file that holds a name (the first for NULL). */
struct ckpt_stout *ckpt_out_st_for(const ckpt_out *o, const char *name)
{
	return o->st[ckpt_out_part_for(o, name)];
}

/* File k of the output, and the one that holds a name, as its format's
 * table takes them. */
static void *file_at(const ckpt_out *o, size_t k)
{
	return o->nst ? (void *)o->st[k] : (void *)o->part[k];
}

static void *file_for(const ckpt_out *o, const char *name)
{
	return file_at(o, ckpt_out_part_for(o, name));
}

/* The output's name for messages: a set's map, or its one file. */
const char *ckpt_out_name(const ckpt_out *o)
{
	return o->kind != CKPT_BARE && o->t.fd >= 0 ? ckpt_temp_name(&o->t)
	                                            : o->fmt->out_name(file_for(o, NULL));
}

hid_t ckpt_h5_out_fid(const ckpt_out *o, const char *name)
{
	return o->nparts ? ckpt_h5out_fid(o->part[ckpt_out_part_for(o, name)]) : -1;
}

const char *ckpt_h5_out_name(const ckpt_out *o, const char *name)
{
	return o->fmt->out_name(file_for(o, name));
}

/* ---- opening ---------------------------------------------------------------- */

static void out_free(ckpt_out *o)
{
	for (size_t k = 0; k < o->nst; k++)
		ckpt_stout_abort(o->st[k]);
	free(o->st);
	for (size_t k = 0; k < o->nparts; k++)
		ckpt_h5out_abort(o->part[k]);
	free(o->part);
	for (size_t k = 0; o->names && o->names[k]; k++)
		free(o->names[k]);
	free(o->names);
	free(o->stem);
	ckpt_temp_release(&o->t);
	free(o);
}

/* A container needs a base of the same kind: its other members, or its
 * shards' layout, are not the program's to invent. */
static int check_base(const ckpt_out *o, const char *target)
{
	const ckpt_file *b = o->like;
	const char *need = o->kind == CKPT_KERAS_ARCHIVE
	                       ? "a .keras output needs a .keras base to take the model's config from"
	                   : o->kind == CKPT_KERAS_SHARDS
	                       ? "a .weights.json output needs a sharded Keras base (a .weights.json) "
	                         "to take the shards' layout from"
	                       : "a .safetensors.index.json output needs a sharded safetensors base "
	                         "(a .safetensors.index.json) to take the shards' layout from";

	if (o->kind == CKPT_BARE || (b && b->container && b->container->kind == o->kind))
		return 0;
	if (!b)
		return ckpt_seterr("%s: %s", target, need);
	return ckpt_seterr("%s: %s (%s is not one)", target, need, b->name);
}

static int open_parts(ckpt_out *o, const char *target, int force)
{
	size_t n = 1;
	ckpt_file *const *base = o->like ? ckpt_parts(o->like, &n) : NULL;
	/* one file from a sharded set: made like its first shard; like a file
	 * of another format: a new file, listing its variables in their order */
	const ckpt_file *like = base ? base[0] : o->like;

	if (like && ckpt_file_format(like) != CKPT_FORMAT_HDF5)
		like = NULL;

	if (o->kind != CKPT_KERAS_SHARDS)
		n = 1;
	if (!(o->part = calloc(n, sizeof *o->part)))
		return ckpt_seterr("%s: out of memory", target);
	if (o->kind == CKPT_KERAS_SHARDS) {
		char *path = ckpt_out_set_path(o, target, ".weights.json");

		o->names = path ? ckpt_keras_shard_names(path, n) : NULL;
		free(path);
		if (!o->names)
			return ckpt_seterr("%s: out of memory", target);
	}
	for (size_t k = 0; k < n; k++) {
		if (o->kind == CKPT_KERAS_SHARDS)
			o->part[k] = ckpt_h5out_open(o->names[k], force, 0,
			                             ckpt_file_format(base[k]) == CKPT_FORMAT_HDF5 ?
			                             base[k] : NULL);
		else /* an archive's weights, or "-": through a temporary */
			o->part[k] = ckpt_h5out_open(target, force, 1, like);
		if (!o->part[k])
			return -1;
		o->nparts++;
	}
	return 0;
}

/* The output's format: safetensors when its name says so; for names that
 * say nothing (also "-"), the base's. */
static int wants_safetensors(const char *target, const ckpt_file *like)
{
	static const char *const hdf5_names[] = {".h5", ".hdf5", ".he5", ".nc", ".keras"};

	if (ckpt_name_ends(target, ".safetensors"))
		return 1;
	for (size_t i = 0; i < sizeof hdf5_names / sizeof *hdf5_names; i++)
		if (ckpt_name_ends(target, hdf5_names[i]))
			return 0;
	size_t n;
	ckpt_file *const *parts = like ? ckpt_parts(like, &n) : NULL;

	return like && ckpt_file_format(parts ? parts[0] : like) == CKPT_FORMAT_SAFETENSORS;
}

/* The base's metadata goes along into safetensors file k: a safetensors
 * base's __metadata__ (a set's: shard k's), an HDF5 base's root string
 * attributes. */
static int set_meta(const char *key, const char *value, size_t len, void *st)
{
	return ckpt_stout_set_meta_n(st, key, value, len);
}

static int keep_metadata(ckpt_out *o, size_t k)
{
	size_t n = 0;
	ckpt_file *const *parts = o->like ? ckpt_parts(o->like, &n) : NULL;
	const ckpt_file *like = parts ? parts[k < n ? k : n - 1] : o->like;
	const char *const *kv;
	int64_t others;

	if (!like)
		return 0;
	if (parts && o->kind != CKPT_SAFETENSORS_SHARDS &&
	    ckpt_file_format(like) == CKPT_FORMAT_SAFETENSORS)
		return ckpt_out_set_metadata(o, o->like, set_meta, o->st[k]);
	if (ckpt_file_format(like) == CKPT_FORMAT_HDF5) {
		if ((others = ckpt_h5_root_strings(like, set_meta, o->st[k])) < 0)
			return -1;
		o->root_attrs_left = (uint64_t)others;
		return 0;
	}
	kv = ckpt_st_metadata(like, &n);
	for (size_t i = 0; kv && i < n; i++)
		if (ckpt_stout_set_meta_n(o->st[k], kv[2 * i], kv[2 * i + 1],
		                          ckpt_st_metadata_len(like, i)) < 0)
			return -1;
	return 0;
}

/* One safetensors file, or a set mirroring a safetensors set's shards. */
static int open_st(ckpt_out *o, const char *target, int force)
{
	size_t n = 1;

	if (o->kind == CKPT_SAFETENSORS_SHARDS) {
		char *path;

		if (o->owner)
			n = o->nshards;
		else
			ckpt_parts(o->like, &n);
		if (ckpt_temp_open(&o->t, target, force, 0, NULL) < 0)
			return -1;
		path = ckpt_out_set_path(o, target, CKPT_ST_INDEX_SUFFIX);
		o->names = path ? ckpt_out_st_shard_names(path, n) : NULL;
		free(path);
		if (!o->names)
			return ckpt_seterr("%s: out of memory", target);
	}
	if (!(o->st = calloc(n, sizeof *o->st)))
		return ckpt_seterr("%s: out of memory", target);
	for (size_t k = 0; k < n; k++) {
		if (!(o->st[k] = ckpt_stout_open(o->names ? o->names[k] : target, force)))
			return -1;
		o->nst++;
		if (keep_metadata(o, k) < 0)
			return -1;
	}
	return 0;
}

ckpt_out *ckpt_out_open(const char *target, int force, const ckpt_file *like)
{
	ckpt_out *o = calloc(1, sizeof *o);

	if (!o) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	o->t.fd = o->t.slot = -1;
	o->like = like;
	o->kind = ckpt_container_for_output(target);
	if (ckpt_par_on() && (o->kind != CKPT_BARE || strcmp(target, "-") == 0 ||
	                      wants_safetensors(target, like))) {
		ckpt_seterr("%s: under MPI the output is an HDF5 file (not standard output, "
		            "safetensors or a Keras container)", target);
		free(o);
		return NULL;
	}
	if ((o->kind == CKPT_BARE && wants_safetensors(target, like)) ||
	    o->kind == CKPT_SAFETENSORS_SHARDS) {
		o->fmt = &ckpt_format_safetensors;
		if (check_base(o, target) < 0 || open_st(o, target, force) < 0) {
			out_free(o);
			return NULL;
		}
		return o;
	}
	o->fmt = &ckpt_format_hdf5;
	if (check_base(o, target) < 0 ||
	    (o->kind != CKPT_BARE &&
	     ckpt_temp_open(&o->t, target, force, 0,
	                    o->kind == CKPT_KERAS_ARCHIVE ? "a .keras archive" : NULL) < 0) ||
	    open_parts(o, target, force) < 0) {
		out_free(o);
		return NULL;
	}
	return o;
}

ckpt_out *ckpt_out_open_split(const char *target, int force, const ckpt_file *in, size_t k,
                              const size_t *owner)
{
	ckpt_out *o;

	if (!ckpt_name_ends(target, CKPT_ST_INDEX_SUFFIX)) {
		ckpt_seterr("%s: a new set of shards is named NAME%s", target, CKPT_ST_INDEX_SUFFIX);
		return NULL;
	}
	if (!(o = calloc(1, sizeof *o))) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	o->t.fd = o->t.slot = -1;
	o->like = in;
	o->kind = CKPT_SAFETENSORS_SHARDS;
	o->fmt = &ckpt_format_safetensors;
	o->owner = owner;
	o->nshards = k;
	if (open_st(o, target, force) < 0) {
		out_free(o);
		return NULL;
	}
	return o;
}

/* ---- committing ------------------------------------------------------------ */

static int commit_archive(ckpt_out *o)
{
	int rc = ckpt_h5out_finish(o->part[0]);

	if (rc == 0)
		rc = ckpt_keras_archive_write(o->like->container->wrapping,
		                              ckpt_h5out_temp(o->part[0]), o->t.fd,
		                              ckpt_temp_name(&o->t));
	return rc == 0 ? ckpt_temp_commit(&o->t) : -1;
}

int ckpt_out_commit(ckpt_out *o)
{
	int rc;

	switch (o->kind) {
	case CKPT_KERAS_ARCHIVE:
		rc = commit_archive(o);
		break;
	case CKPT_KERAS_SHARDS:
	case CKPT_SAFETENSORS_SHARDS:
		rc = ckpt_out_commit_set(o);
		break;
	default: /* one file: its format's commit frees it */
		rc = o->fmt->out_commit(file_for(o, NULL));
		if (o->nst)
			o->st[0] = NULL;
		else
			o->part[0] = NULL;
	}
	out_free(o);
	return rc;
}

ckpt_out *ckpt_out_share(ckpt_out *o)
{
	struct ckpt_h5out *h;

	if (!ckpt_par_on())
		return o;
	if (!o && !(o = calloc(1, sizeof *o))) {
		ckpt_seterr("out of memory");
		ckpt_par_all_ok(0);
		return NULL;
	}
	if (!o->part && !(o->part = calloc(1, sizeof *o->part))) {
		ckpt_seterr("out of memory");
		ckpt_par_all_ok(0);
		out_free(o);
		return NULL;
	}
	o->t.fd = o->t.slot = -1;
	o->fmt = &ckpt_format_hdf5;
	h = ckpt_h5out_share(o->nparts ? o->part[0] : NULL);
	if (!(o->part[0] = h)) {
		o->nparts = 0;
		out_free(o);
		return NULL;
	}
	o->nparts = 1;
	return o;
}

void ckpt_out_abort(ckpt_out *o)
{
	if (o)
		out_free(o);
}

/* ---- variables ------------------------------------------------------------ */

int ckpt_out_make_groups(ckpt_out *o, const char *path)
{
	return o->fmt->out_groups ? o->fmt->out_groups(file_for(o, path), path) : 0;
}

int ckpt_out_create_var(ckpt_out *o, const char *name, ckpt_dtype t, int rank,
                        const uint64_t *dims)
{
	return o->fmt->out_declare(file_for(o, name), name, t, rank, dims);
}

struct ckpt_outvar {
	const struct ckpt_format *fmt;
	void *var;
};

static ckpt_outvar *outvar_new(const struct ckpt_format *fmt, void *var)
{
	ckpt_outvar *w;

	if (!var)
		return NULL;
	if (!(w = malloc(sizeof *w))) {
		fmt->var_close(var);
		ckpt_seterr("out of memory");
		return NULL;
	}
	w->fmt = fmt;
	w->var = var;
	return w;
}

int ckpt_out_set_text(ckpt_out *o, const char *key, const char *text)
{
	return ckpt_out_set_bytes(o, key, text, strlen(text));
}

/* Text goes into every shard of a Hugging Face set, the first file of
 * others. */
static size_t text_files(const ckpt_out *o)
{
	return o->nst ? o->nst : 1;
}

int ckpt_out_set_bytes(ckpt_out *o, const char *key, const char *text, size_t len)
{
	for (size_t k = 0; k < text_files(o); k++)
		if (o->fmt->out_set_text(file_at(o, k), key, text, len) < 0)
			return -1;
	return 0;
}

void ckpt_out_unset_text(ckpt_out *o, const char *key)
{
	for (size_t k = 0; k < text_files(o); k++)
		o->fmt->out_unset_text(file_at(o, k), key);
}

ckpt_outvar *ckpt_outvar_open(ckpt_out *o, const char *name, ckpt_dtype t)
{
	return outvar_new(o->fmt, o->fmt->var_open(file_for(o, name), name, t, NULL));
}

ckpt_outvar *ckpt_outvar_open_like(ckpt_out *o, const char *name, const ckpt_slab *s)
{
	return outvar_new(o->fmt, o->fmt->var_open(file_for(o, name), name, s->var->dtype, s));
}

void ckpt_outvar_cursor(const ckpt_outvar *w, ckpt_cursor *c, const ckpt_var *v,
                        size_t elsize, size_t max_bytes)
{
	if (w->fmt->var_cursor) {
		w->fmt->var_cursor(w->var, c, v, elsize, max_bytes);
		return;
	}
	memset(c, 0, sizeof *c); /* contiguous: slabs of whole rows */
	c->var = v;
	if (!(c->done = v->nelems == 0))
		ckpt_slab_plan(v->rank, v->dims, NULL, max_bytes / (elsize ? elsize : 1),
		               &c->split, &c->step);
}

int ckpt_outvar_collective(const ckpt_outvar *w)
{
	return w->fmt->var_collective && w->fmt->var_collective(w->var);
}

int ckpt_outvar_shareable(const ckpt_outvar *w)
{
	return !w->fmt->var_shareable || w->fmt->var_shareable(w->var);
}

int ckpt_outvar_write(ckpt_outvar *w, const ckpt_region *r, const void *buf)
{
	return w->fmt->var_write(w->var, r, buf);
}

void ckpt_outvar_close(ckpt_outvar *w)
{
	if (!w)
		return;
	w->fmt->var_close(w->var);
	free(w);
}
