/* out.c - an output checkpoint: one HDF5 or safetensors file, or - when
 * its name asks for it and its base has it - the container its base came
 * in: a .keras archive around the new weights, or a set of shards with the
 * base's assignment of variables to shards (outset.c commits those).
 * Every file is written to a temporary and the whole committed together
 * (sink.h).  Here: opening, committing, variables; outcopy.c copies a
 * checkpoint's structure into an output. */
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

/* The output's name for messages: a set's map, or its one file. */
const char *ckpt_out_name(const ckpt_out *o)
{
	return o->kind != CKPT_BARE && o->t.fd >= 0 ? ckpt_temp_name(&o->t)
	       : o->nst ? ckpt_stout_name(o->st[0]) : ckpt_h5out_name(o->part[0]);
}

int ckpt_h5_out_shared(const ckpt_out *o)
{
	return o->nparts == 1 && ckpt_h5out_shared(o->part[0]);
}

hid_t ckpt_h5_out_fid(const ckpt_out *o, const char *name)
{
	return o->nparts ? ckpt_h5out_fid(o->part[ckpt_out_part_for(o, name)]) : -1;
}

const char *ckpt_h5_out_name(const ckpt_out *o, const char *name)
{
	return o->nst ? ckpt_stout_name(ckpt_out_st_for(o, name))
	              : ckpt_h5out_name(o->part[ckpt_out_part_for(o, name)]);
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
		if (check_base(o, target) < 0 || open_st(o, target, force) < 0) {
			out_free(o);
			return NULL;
		}
		return o;
	}
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

	if (o->nst && o->kind != CKPT_SAFETENSORS_SHARDS) {
		rc = ckpt_stout_commit(o->st[0]);
		o->st[0] = NULL;
		out_free(o);
		return rc;
	}
	switch (o->kind) {
	case CKPT_KERAS_ARCHIVE:
		rc = commit_archive(o);
		break;
	case CKPT_KERAS_SHARDS:
	case CKPT_SAFETENSORS_SHARDS:
		rc = ckpt_out_commit_set(o);
		break;
	default:
		rc = ckpt_h5out_commit(o->part[0]);
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
	return o->nst ? 0 : ckpt_h5_out_make_groups(o, path); /* safetensors: flat names */
}

int ckpt_out_create_var(ckpt_out *o, const char *name, ckpt_dtype t, int rank,
                        const uint64_t *dims)
{
	ckpt_var v = {.dims = dims};

	if (!o->nst)
		return ckpt_h5_out_create_var(o, name, t, rank, dims);
	v.dtype = t;
	v.rank = rank;
	v.nelems = 1;
	for (int i = 0; i < rank; i++)
		v.nelems *= dims[i];
	v.elsize = ckpt_dtype_size(t);
	v.nbytes = v.nelems * v.elsize;
	snprintf(v.type, sizeof v.type, "%s", ckpt_dtype_name(t));
	return ckpt_stout_declare(ckpt_out_st_for(o, name), name, &v, t, NULL, NULL);
}

struct ckpt_outvar {
	struct ckpt_h5var *h5;
	struct ckpt_stvar *st;
};

static ckpt_outvar *outvar_new(struct ckpt_h5var *h5, struct ckpt_stvar *st)
{
	ckpt_outvar *w;

	if (!h5 && !st)
		return NULL;
	if (!(w = malloc(sizeof *w))) {
		ckpt_h5var_close(h5);
		ckpt_stvar_close(st);
		ckpt_seterr("out of memory");
		return NULL;
	}
	w->h5 = h5;
	w->st = st;
	return w;
}

int ckpt_out_set_text(ckpt_out *o, const char *key, const char *text)
{
	return ckpt_out_set_bytes(o, key, text, strlen(text));
}

int ckpt_out_set_bytes(ckpt_out *o, const char *key, const char *text, size_t len)
{
	for (size_t k = 0; k < o->nst; k++)
		if (ckpt_stout_set_meta_n(o->st[k], key, text, len) < 0)
			return -1;
	if (o->nst)
		return 0;
	return ckpt_h5_write_string_attr(ckpt_h5_out_fid(o, NULL), key, text, len) < 0
	       ? ckpt_seterr("%s: %s", ckpt_h5_out_name(o, NULL), ckpt_errmsg()) : 0;
}

void ckpt_out_unset_text(ckpt_out *o, const char *key)
{
	for (size_t k = 0; k < o->nst; k++)
		ckpt_stout_unset_meta(o->st[k], key);
	if (o->nst)
		return;
	if (H5Aexists_by_name(ckpt_h5_out_fid(o, NULL), "/", key, H5P_DEFAULT) > 0)
		H5Adelete_by_name(ckpt_h5_out_fid(o, NULL), "/", key, H5P_DEFAULT);
	H5Eclear2(H5E_DEFAULT);
}

ckpt_outvar *ckpt_outvar_open(ckpt_out *o, const char *name, ckpt_dtype t)
{
	return o->nst ? outvar_new(NULL, ckpt_stvar_open(ckpt_out_st_for(o, name), name, t))
	             : outvar_new(ckpt_h5var_open(o, name, t), NULL);
}

ckpt_outvar *ckpt_outvar_open_like(ckpt_out *o, const char *name, const ckpt_slab *s)
{
	return o->nst ? outvar_new(NULL, ckpt_stvar_open(ckpt_out_st_for(o, name), name, s->var->dtype))
	             : outvar_new(ckpt_h5var_open_like(o, name, s), NULL);
}

void ckpt_outvar_cursor(const ckpt_outvar *w, ckpt_cursor *c, const ckpt_var *v,
                        size_t elsize, size_t max_bytes)
{
	if (w->h5) {
		ckpt_h5var_cursor(w->h5, c, v, elsize, max_bytes);
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
	return w->h5 && ckpt_h5var_collective(w->h5);
}

int ckpt_outvar_shareable(const ckpt_outvar *w)
{
	return !w->h5 || ckpt_h5var_shareable(w->h5);
}

int ckpt_outvar_write(ckpt_outvar *w, const ckpt_region *r, const void *buf)
{
	return w->h5 ? ckpt_h5var_write(w->h5, r, buf) : ckpt_stvar_write(w->st, r, buf);
}

void ckpt_outvar_close(ckpt_outvar *w)
{
	if (!w)
		return;
	ckpt_h5var_close(w->h5);
	ckpt_stvar_close(w->st);
	free(w);
}

