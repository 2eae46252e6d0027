/* out.c - an output checkpoint: one HDF5 file, or - when its name asks for
 * it and its base has it - the container its base came in: a .keras
 * archive around the new weights, or a Keras sharded set with the base's
 * assignment of variables to shards.  Every file is written to a
 * temporary and the whole committed together (sink.h). */
#include "h5.h"
#include "temp.h"
#include "wrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ckpt_out {
	ckpt_container_kind kind;
	struct ckpt_h5out **part;  /* the HDF5 files: one, or a shard each */
	size_t nparts;
	const ckpt_file *like;
	char **names;              /* a sharded set: its shard files */
	struct ckpt_temp t;        /* containers: the archive or the map */
};

/* ---- the HDF5 file that holds a name ------------------------------------ */

static size_t part_for(const ckpt_out *o, const char *name)
{
	const ckpt_file *pf;
	const ckpt_var *v, *pv;

	if (o->nparts < 2 || !name || !(v = ckpt_find(o->like, name)))
		return name && o->nparts > 1 ? o->nparts - 1 : 0; /* new ones: the last */
	return ckpt_part_of(o->like, v, &pf, &pv);
}

hid_t ckpt_h5_out_fid(const ckpt_out *o, const char *name)
{
	return ckpt_h5out_fid(o->part[part_for(o, name)]);
}

const char *ckpt_h5_out_name(const ckpt_out *o, const char *name)
{
	return ckpt_h5out_name(o->part[part_for(o, name)]);
}

/* ---- opening ---------------------------------------------------------------- */

static void out_free(ckpt_out *o)
{
	for (size_t k = 0; k < o->nparts; k++)
		ckpt_h5out_abort(o->part[k]);
	free(o->part);
	for (size_t k = 0; o->names && o->names[k]; k++)
		free(o->names[k]);
	free(o->names);
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
	                       : "a .weights.json output needs a sharded Keras base (a .weights.json) "
	                         "to take the shards' layout from";

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
	/* one file from a sharded set: made like its first shard */
	const ckpt_file *like = base ? base[0] : o->like;

	if (o->kind != CKPT_KERAS_SHARDS)
		n = 1;
	if (!(o->part = calloc(n, sizeof *o->part)) ||
	    (o->kind == CKPT_KERAS_SHARDS && !(o->names = ckpt_keras_shard_names(target, n))))
		return ckpt_seterr("%s: out of memory", target);
	for (size_t k = 0; k < n; k++) {
		if (o->kind == CKPT_KERAS_SHARDS)
			o->part[k] = ckpt_h5out_open(o->names[k], force, 0, base[k]);
		else /* an archive's weights, or "-": through a temporary */
			o->part[k] = ckpt_h5out_open(target, force, 1, like);
		if (!o->part[k])
			return -1;
		o->nparts++;
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

/* ---- committing ------------------------------------------------------------ */

/* Bytes of values in the finished shards, as Keras counts total_size. */
static int count_bytes(const ckpt_out *o, uint64_t *total)
{
	*total = 0;
	for (size_t k = 0; k < o->nparts; k++) {
		ckpt_file *f = ckpt_open(ckpt_h5out_temp(o->part[k]));

		if (!f)
			return -1;
		for (size_t i = 0; i < f->nvars; i++)
			*total += f->vars[i].nbytes;
		ckpt_close(f);
	}
	return 0;
}

static int write_map(ckpt_out *o)
{
	uint64_t total;
	char *text;
	int rc;

	if (count_bytes(o, &total) < 0 ||
	    !(text = ckpt_keras_shards_json(o->like->container, o->names, total)))
		return -1;
	rc = ckpt_write_all(o->t.fd, text, strlen(text), ckpt_temp_name(&o->t));
	free(text);
	return rc;
}

/* The shards into place, then the map: a reader that follows the map never
 * finds a shard missing.  If one cannot be moved, those already in place
 * are removed again. */
static int commit_set(ckpt_out *o)
{
	size_t k;
	int rc = 0;

	for (k = 0; k < o->nparts && rc == 0; k++)
		rc = ckpt_h5out_finish(o->part[k]);
	if (rc == 0)
		rc = write_map(o);
	for (k = 0; k < o->nparts && rc == 0; k++) {
		rc = ckpt_h5out_commit(o->part[k]);
		o->part[k] = NULL;
	}
	if (rc == 0)
		rc = ckpt_temp_commit(&o->t);
	if (rc < 0)
		while (k-- > 0)
			if (!o->part[k])
				unlink(o->names[k]);
	return rc;
}

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
		rc = commit_set(o);
		break;
	default:
		rc = ckpt_h5out_commit(o->part[0]);
		o->part[0] = NULL;
	}
	out_free(o);
	return rc;
}

void ckpt_out_abort(ckpt_out *o)
{
	if (o)
		out_free(o);
}

/* ---- copying from a checkpoint ------------------------------------------ */

/* A sharded base: the callback sees the union's variables. */
struct in_part {
	const ckpt_file *set;
	const size_t *union_index;
	const ckpt_file *part;
	ckpt_copy_fn decide;
	void *user;
};

static ckpt_copy_action decide_in_part(const ckpt_var *v, ckpt_copy_spec *spec, void *user)
{
	const struct in_part *p = user;

	return p->decide(&p->set->vars[p->union_index[v - p->part->vars]], spec, p->user);
}

int ckpt_copy_structure(const ckpt_file *src, ckpt_out *o, ckpt_copy_fn decide, void *user)
{
	size_t n;
	ckpt_file *const *parts = ckpt_parts(src, &n);
	int rc = 0;

	if (!parts)
		return ckpt_h5_copy_structure(src, ckpt_h5_out_fid(o, NULL), decide, user);
	/* shard k into the output's shard k, or all into one file */
	for (size_t k = 0; k < n && rc == 0; k++) {
		struct in_part p = {src, src->container->wrapping->union_index[k], parts[k],
		                    decide, user};

		rc = ckpt_h5_copy_structure(parts[k], ckpt_h5out_fid(o->part[o->nparts > 1 ? k : 0]),
		                            decide_in_part, &p);
	}
	return rc;
}

int ckpt_copy_var(const ckpt_file *src, const ckpt_var *v, ckpt_out *o, const char *dst_name)
{
	const ckpt_file *pf;
	const ckpt_var *pv;

	ckpt_part_of(src, v, &pf, &pv);
	return ckpt_h5_copy_var(pf, pv, ckpt_h5_out_fid(o, dst_name), dst_name);
}
