/* out.c - an output checkpoint: one file of a format (HDF5, safetensors, a
 * TensorFlow bundle's pair), or - when
 * its name asks for it and its base has it - the container its base came
 * in: a .keras archive around the new weights, or a set of shards with the
 * base's assignment of variables to shards (outset.c commits those).
 * Every file is written to a temporary and the whole committed together
 * (sink.h).  Here: opening, committing, variables; outcopy.c copies a
 * checkpoint's structure into an output. */
#include "err.h"
#include "format.h"
#include "outint.h"
#include "par.h"
#include "temp.h"
#include "wrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the file that holds a name --------------------------------------- */

static size_t part_for(const ckpt_out *o, const char *name)
{
	const ckpt_file *pf;
	const ckpt_var *v, *pv;

	if (o->nfiles < 2 || !name || !(v = ckpt_find(o->like, name)))
		return name && o->nfiles > 1 ? o->nfiles - 1 : 0; /* new ones: the last */
	if (o->owner)
		return o->owner[v - o->like->vars];
	return ckpt_part_of(o->like, v, &pf, &pv);
}

void *ckpt_out_file_for(const ckpt_out *o, const char *name)
{
	return o->files[part_for(o, name)];
}

void *ckpt_out_file_of(const ckpt_out *o, const struct ckpt_format *fmt, const char *name)
{
	return o->fmt == fmt && o->nfiles ? ckpt_out_file_for(o, name) : NULL;
}

const char *ckpt_out_file_name(const ckpt_out *o, const char *name)
{
	return o->fmt->out_name(ckpt_out_file_for(o, name));
}

/* The output's name for messages: a set's map, or its one file. */
const char *ckpt_out_name(const ckpt_out *o)
{
	return o->kind != CKPT_BARE && o->t.fd >= 0 ? ckpt_temp_name(&o->t)
	                                            : ckpt_out_file_name(o, NULL);
}

/* ---- opening ---------------------------------------------------------------- */

static void out_free(ckpt_out *o)
{
	for (size_t k = 0; k < o->nfiles; k++)
		if (o->files[k])
			o->fmt->out_abort(o->files[k]);
	free(o->files);
	for (size_t k = 0; o->names && o->names[k]; k++)
		free(o->names[k]);
	free(o->names);
	free(o->stem);
	free(o->text_left);
	ckpt_temp_release(&o->t);
	free(o);
}

static ckpt_out *out_new(const char *target, ckpt_container_kind kind, const ckpt_file *like)
{
	ckpt_out *o = calloc(1, sizeof *o);

	if (!o) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	o->t.fd = o->t.slot = -1;
	o->like = like;
	o->kind = kind;
	/* a container's files are of the format it holds */
	o->fmt = kind == CKPT_SAFETENSORS_SHARDS ? &ckpt_format_safetensors
	         : kind == CKPT_TORCH_SHARDS     ? &ckpt_format_torch
	         : kind != CKPT_BARE            ? &ckpt_format_hdf5
	                                        : ckpt_format_for_output(target, like);
	return o;
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
	                   : o->kind == CKPT_TORCH_SHARDS
	                       ? "a .bin.index.json output needs a sharded PyTorch base (a "
	                         ".bin.index.json) to take the shards' layout from"
	                       : "a .safetensors.index.json output needs a sharded safetensors base "
	                         "(a .safetensors.index.json) to take the shards' layout from";

	if (o->kind == CKPT_BARE || (b && b->container && b->container->kind == o->kind))
		return 0;
	if (!b)
		return ckpt_seterr("%s: %s", target, need);
	return ckpt_seterr("%s: %s (%s is not one)", target, need, b->name);
}

/* The base's texts go along into file k of a format that copies no
 * structure (where they would come with it): a file's (an HDF5 base's root
 * string attributes, a safetensors base's __metadata__; of a set, shard
 * k's), or the union of a Hugging Face set's for one file. */
struct text_into {
	const struct ckpt_format *fmt;
	void *file;
};

static int put_text_into(const char *key, const char *value, size_t len, void *user)
{
	struct text_into *t = user;

	return t->fmt->out_set_text(t->file, key, value, len);
}

static int count_text(const char *key, const char *value, size_t len, void *user)
{
	(void)key, (void)value, (void)len;
	++*(uint64_t *)user;
	return 0;
}

static int keep_texts(ckpt_out *o, size_t k)
{
	size_t n = 0;
	ckpt_file *const *parts = o->like ? ckpt_parts(o->like, &n) : NULL;
	const ckpt_file *like = parts ? parts[k < n ? k : n - 1] : o->like;
	struct text_into into = {o->fmt, o->files[k]};
	/* a format without texts: all left out, counted */
	ckpt_string_fn put = o->fmt->out_set_text ? put_text_into : count_text;
	void *user = o->fmt->out_set_text ? (void *)&into : &o->root_attrs_left;
	int64_t others;

	if (!like || o->fmt->copy_structure)
		return 0;
	if (parts && o->kind != CKPT_SAFETENSORS_SHARDS &&
	    o->like->container->kind == CKPT_SAFETENSORS_SHARDS)
		return ckpt_out_set_metadata(o, o->like, put, user);
	if ((others = ckpt_file_fmt(like)->texts(like, put, user)) < 0)
		return -1;
	o->root_attrs_left += (uint64_t)others;
	return 0;
}

/* A set's map given as target: its temporary, and the names of n shards. */
static int name_shards(ckpt_out *o, const char *target, size_t n)
{
	int hf = ckpt_container_is_hf(o->kind);
	char *path = ckpt_out_set_path(o, target, o->kind == CKPT_SAFETENSORS_SHARDS
	                                              ? CKPT_ST_INDEX_SUFFIX
	                                          : hf ? CKPT_TORCH_INDEX_SUFFIX : ".weights.json");

	o->names = !path ? NULL : hf ? ckpt_out_st_shard_names(path, n)
	                             : ckpt_keras_shard_names(path, n);
	free(path);
	return o->names ? 0 : ckpt_seterr("%s: out of memory", target);
}

/* The output's files: one, or a shard each as the base's (or owner's)
 * set has them.  A file is made like the base's file of its format (one
 * file from a set: its first shard), else new, listing its variables in
 * the order they come. */
static int open_files(ckpt_out *o, const char *target, int force)
{
	size_t nbase = 1, n = 1;
	ckpt_file *const *base = o->like ? ckpt_parts(o->like, &nbase) : NULL;
	int set = ckpt_container_is_set(o->kind);

	if (o->kind != CKPT_BARE &&
	    ckpt_temp_open(&o->t, target, force, 0,
	                   o->kind == CKPT_KERAS_ARCHIVE ? "a .keras archive" : NULL) < 0)
		return -1;
	if (set)
		n = o->owner ? o->nshards : nbase;
	if (set && name_shards(o, target, n) < 0)
		return -1;
	if (!(o->files = calloc(n, sizeof *o->files)))
		return ckpt_seterr("%s: out of memory", target);
	for (size_t k = 0; k < n; k++) {
		const ckpt_file *like = base ? base[k < nbase ? k : 0] : o->like;

		if (like && ckpt_file_fmt(like) != o->fmt)
			like = NULL;
		if (!(o->files[k] = o->fmt->out_open(set ? o->names[k] : target, force, like)))
			return -1;
		o->nfiles++;
		if (keep_texts(o, k) < 0)
			return -1;
	}
	return 0;
}

ckpt_out *ckpt_out_open(const char *target, int force, const ckpt_file *like)
{
	ckpt_out *o = out_new(target, ckpt_container_for_output(target), like);

	if (o && ckpt_par_on() &&
	    (o->kind != CKPT_BARE || strcmp(target, "-") == 0 || !o->fmt->out_share)) {
		ckpt_seterr("%s: under MPI the output is an HDF5 file (not standard output, "
		            "safetensors, a TensorFlow bundle, a PyTorch file or a Keras "
		            "container)", target);
		out_free(o);
		return NULL;
	}
	if (o && (check_base(o, target) < 0 || open_files(o, target, force) < 0)) {
		out_free(o);
		return NULL;
	}
	return o;
}

ckpt_out *ckpt_out_open_split(const char *target, int force, const ckpt_file *in, size_t k,
                              const size_t *owner)
{
	ckpt_out *o;
	const struct ckpt_format *fmt = ckpt_format_for_output(target, NULL);

	if (fmt->out_split) { /* one file, its parts its own */
		if ((o = out_new(target, CKPT_BARE, in)) &&
		    (open_files(o, target, force) < 0 ||
		     fmt->out_split(o->files[0], k, in, owner) < 0)) {
			out_free(o);
			return NULL;
		}
		return o;
	}
	if (!ckpt_container_is_hf(ckpt_container_for_output(target))) {
		ckpt_seterr("%s: a new set of shards is named NAME%s or NAME%s", target,
		            CKPT_ST_INDEX_SUFFIX, CKPT_TORCH_INDEX_SUFFIX);
		return NULL;
	}
	if (!(o = out_new(target, ckpt_container_for_output(target), in)))
		return NULL;
	o->owner = owner;
	o->nshards = k;
	if (open_files(o, target, force) < 0) {
		out_free(o);
		return NULL;
	}
	return o;
}

/* ---- committing ------------------------------------------------------------ */

static int commit_archive(ckpt_out *o)
{
	int rc = o->fmt->out_finish(o->files[0]);

	if (rc == 0)
		rc = ckpt_keras_archive_write(o->like->container->wrapping,
		                              o->fmt->out_tempfile(o->files[0])->tmp, o->t.fd,
		                              ckpt_temp_name(&o->t));
	return rc == 0 ? ckpt_temp_commit(&o->t) : -1;
}

/* The texts a program gave that the output's format has no place for:
 * counted, and named in one warning at the commit. */
static int leave_text_out(ckpt_out *o, const char *key)
{
	if (!o->text_left && !(o->text_left = strdup(key)))
		return ckpt_seterr("out of memory");
	o->texts_left++;
	return 0;
}

static void warn_texts_left(const ckpt_out *o)
{
	if (o->texts_left)
		ckpt_warnf("%s: left out what %s cannot hold: %zu text%s (%s%s%s%s)", ckpt_out_name(o),
		           o->fmt->name, o->texts_left, o->texts_left == 1 ? "" : "s",
		           o->text_left ? "'" : "", o->text_left ? o->text_left : "",
		           o->text_left ? "'" : "", o->texts_left > 1 ? ", ..." : "");
}

int ckpt_out_commit(ckpt_out *o)
{
	int rc;

	warn_texts_left(o);

	switch (o->kind) {
	case CKPT_KERAS_ARCHIVE:
		rc = commit_archive(o);
		break;
	case CKPT_KERAS_SHARDS:
	case CKPT_SAFETENSORS_SHARDS:
	case CKPT_TORCH_SHARDS:
		rc = ckpt_out_commit_set(o);
		break;
	default: /* one file: its format's commit frees it */
		rc = o->fmt->out_commit(o->files[0]);
		o->files[0] = NULL;
	}
	out_free(o);
	return rc;
}

ckpt_out *ckpt_out_share(ckpt_out *o)
{
	void *w;

	if (!ckpt_par_on())
		return o;
	if (!o && !(o = out_new(NULL, CKPT_BARE, NULL))) {
		ckpt_par_all_ok(0);
		return NULL;
	}
	if (!o->files && !(o->files = calloc(1, sizeof *o->files))) {
		ckpt_seterr("out of memory");
		ckpt_par_all_ok(0);
		out_free(o);
		return NULL;
	}
	w = o->fmt->out_share(o->nfiles ? o->files[0] : NULL);
	if (!(o->files[0] = w)) {
		o->nfiles = 0;
		out_free(o);
		return NULL;
	}
	o->nfiles = 1;
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
	return o->fmt->out_groups ? o->fmt->out_groups(ckpt_out_file_for(o, path), path) : 0;
}

int ckpt_out_create_var(ckpt_out *o, const char *name, ckpt_dtype t, int rank,
                        const uint64_t *dims)
{
	return o->fmt->out_declare(ckpt_out_file_for(o, name), name, t, rank, dims);
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
	return ckpt_container_is_hf(o->kind) ? o->nfiles : 1;
}

int ckpt_out_holds_texts(const ckpt_out *o)
{
	return o->fmt->out_set_text != NULL;
}

int ckpt_out_set_bytes(ckpt_out *o, const char *key, const char *text, size_t len)
{
	if (!o->fmt->out_set_text)
		return leave_text_out(o, key);
	for (size_t k = 0; k < text_files(o); k++)
		if (o->fmt->out_set_text(o->files[k], key, text, len) < 0)
			return -1;
	return 0;
}

int ckpt_out_set_number(ckpt_out *o, const char *key, ckpt_dtype t, const void *value)
{
	char text[32];

	if (o->fmt->out_set_number)
		return o->fmt->out_set_number(o->files[0], key, t, value);
	if (t == CKPT_I64)
		snprintf(text, sizeof text, "%lld", *(const long long *)value);
	else
		snprintf(text, sizeof text, "%.17g", *(const double *)value);
	return ckpt_out_set_text(o, key, text);
}

void ckpt_out_unset_text(ckpt_out *o, const char *key)
{
	if (!o->fmt->out_set_text) {
		if (o->text_left && strcmp(o->text_left, key) == 0) {
			o->texts_left--;
			free(o->text_left);
			o->text_left = NULL;
		}
		return;
	}
	for (size_t k = 0; k < text_files(o); k++)
		o->fmt->out_unset_text(o->files[k], key);
}

ckpt_outvar *ckpt_outvar_open(ckpt_out *o, const char *name, ckpt_dtype t)
{
	return outvar_new(o->fmt, o->fmt->var_open(ckpt_out_file_for(o, name), name, t, NULL));
}

ckpt_outvar *ckpt_outvar_open_like(ckpt_out *o, const char *name, const ckpt_slab *s)
{
	return outvar_new(o->fmt, o->fmt->var_open(ckpt_out_file_for(o, name), name, s->var->dtype, s));
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
