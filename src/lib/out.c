/* out.c - an output checkpoint: one HDF5 file, or - when its name asks for
 * it and its base has it - the container its base came in: a .keras
 * archive around the new weights, or a Keras sharded set with the base's
 * assignment of variables to shards.  Every file is written to a
 * temporary and the whole committed together (sink.h). */
#include "commit.h"
#include "h5.h"
#include "par.h"
#include "st.h"
#include "temp.h"
#include "wrap.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ckpt_out {
	ckpt_container_kind kind;
	struct ckpt_stout **st;    /* safetensors files: one, or a shard each; */
	size_t nst;
	struct ckpt_h5out **part;  /* the HDF5 files: one, or a shard each */
	size_t nparts;
	const ckpt_file *like;
	uint64_t root_attrs_left;  /* safetensors from HDF5: not strings */
	uint64_t total;            /* a Keras set: bytes of values */
	const size_t *owner;       /* a new set: each variable's shard, */
	size_t nshards;            /* of this many */
	char **names;              /* a sharded set: its shard files */
	char *stem;                /* and their names' common start */
	struct ckpt_temp t;        /* containers: the archive or the map */
};

/* ---- the HDF5 file that holds a name ------------------------------------ */

static size_t part_for(const ckpt_out *o, const char *name)
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
static struct ckpt_stout *st_for(const ckpt_out *o, const char *name)
{
	return o->st[part_for(o, name)];
}

/* The output's name for messages: a set's map, or its one file. */
static const char *out_name(const ckpt_out *o)
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
	return o->nparts ? ckpt_h5out_fid(o->part[part_for(o, name)]) : -1;
}

const char *ckpt_h5_out_name(const ckpt_out *o, const char *name)
{
	return o->nst ? ckpt_stout_name(st_for(o, name))
	              : ckpt_h5out_name(o->part[part_for(o, name)]);
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

/* A set's map given as target, after ckpt_temp_open() followed a link
 * to it: the path its shards are named after - beside the map itself,
 * named after it where its name has suffix, else after the link. */
static char *set_path(ckpt_out *o, const char *target, const char *suffix)
{
	const char *real = o->t.target ? o->t.target : target;
	const char *slash = strrchr(real, '/'), *given = strrchr(target, '/');
	size_t dir = slash ? (size_t)(slash - real) + 1 : 0, n, stem;
	char *path;

	given = given ? given + 1 : target;
	if (ckpt_name_ends(real, suffix))
		given = real + dir;
	n = dir + strlen(given) + 1;
	stem = strlen(given) - (ckpt_name_ends(given, suffix) ? strlen(suffix) : 0);
	if (!(path = malloc(n)) || !(o->stem = malloc(stem + 1))) {
		free(path);
		ckpt_seterr("%s: out of memory", target);
		return NULL;
	}
	snprintf(path, n, "%.*s%s", (int)dir, real, given);
	snprintf(o->stem, stem + 1, "%s", given);
	return path;
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
		char *path = set_path(o, target, ".weights.json");

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
static int set_meta(const char *key, const char *value, void *st)
{
	return ckpt_stout_set_meta(st, key, value);
}

/* One file from a set of safetensors shards keeps the union of the
 * shards' __metadata__ and the map's "metadata" (total_size aside, values
 * that are not text as their JSON): the first value of a key wins, a
 * conflict is warned of once. */
static int set_metadata(const ckpt_out *o, const ckpt_file *set,
                        int (*put)(const char *key, const char *value, void *user), void *user)
{
	size_t n, nkv;
	ckpt_file *const *parts = ckpt_parts(set, &n);
	json_t *seen = json_object(), *meta, *val;
	const char *key, *clash = NULL;
	size_t clashes = 0;
	int rc = seen ? 0 : ckpt_seterr("out of memory");

	for (size_t k = 0; k <= n && rc == 0; k++) {
		json_t *kvs = json_object();
		const char *const *kv = k < n ? ckpt_st_metadata(parts[k], &nkv) : NULL;

		for (size_t i = 0; kv && kvs && i < nkv; i++)
			json_object_set_new(kvs, kv[2 * i], json_string(kv[2 * i + 1]));
		meta = k == n ? json_object_get(set->container->wrapping->json, "metadata") : kvs;
		json_object_foreach(json_is_object(meta) ? meta : NULL, key, val) {
			char *text = json_is_string(val) ? strdup(json_string_value(val))
			             : json_dumps(val, JSON_COMPACT | JSON_ENCODE_ANY);
			json_t *had = json_object_get(seen, key);

			if (k == n && strcmp(key, "total_size") == 0) {
				free(text);
				continue;
			}
			if (!text)
				rc = ckpt_seterr("out of memory");
			else if (had && strcmp(json_string_value(had), text) != 0 && !clashes++)
				clash = key;
			else if (!had && (json_object_set_new(seen, key, json_string(text)) < 0 ||
			                  put(key, text, user) < 0))
				rc = -1;
			free(text);
			if (rc < 0)
				break;
		}
		if (clashes == 1 && clash) {
			ckpt_warnf("%s: metadata '%s' differs between the files of %s: the first "
			           "value kept", out_name(o), clash, set->name);
			clash = NULL;
		}
		json_decref(kvs);
	}
	json_decref(seen);
	return rc;
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
		return set_metadata(o, o->like, set_meta, o->st[k]);
	if (ckpt_file_format(like) == CKPT_FORMAT_HDF5) {
		if ((others = ckpt_h5_root_strings(like, set_meta, o->st[k])) < 0)
			return -1;
		o->root_attrs_left = (uint64_t)others;
		return 0;
	}
	kv = ckpt_st_metadata(like, &n);
	for (size_t i = 0; kv && i < n; i++)
		if (ckpt_stout_set_meta(o->st[k], kv[2 * i], kv[2 * i + 1]) < 0)
			return -1;
	return 0;
}

/* Hugging Face's shard names: NAME.safetensors.index.json lists
 * NAME-00001-of-0000n.safetensors, ... */
#define ST_INDEX_SUFFIX ".safetensors.index.json"

char *ckpt_out_shard_name(const char *target, size_t s, size_t k)
{
	size_t stem = strlen(target), size;
	char *name;

	if (ckpt_name_ends(target, ST_INDEX_SUFFIX))
		stem -= strlen(ST_INDEX_SUFFIX);
	if ((name = malloc(size = stem + 64)))
		snprintf(name, size, "%.*s-%05zu-of-%05zu.safetensors", (int)stem, target, s + 1, k);
	return name;
}

static char **st_shard_names(const char *target, size_t n)
{
	char **names = calloc(n + 1, sizeof *names);

	for (size_t k = 0; names && k < n; k++) {
		if (!(names[k] = ckpt_out_shard_name(target, k, n))) {
			for (size_t j = 0; j < k; j++)
				free(names[j]);
			free(names);
			return NULL;
		}
	}
	return names;
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
		path = set_path(o, target, ST_INDEX_SUFFIX);
		o->names = path ? st_shard_names(path, n) : NULL;
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

	if (!ckpt_name_ends(target, ST_INDEX_SUFFIX)) {
		ckpt_seterr("%s: a new set of shards is named NAME%s", target, ST_INDEX_SUFFIX);
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

static int shard_finish(ckpt_out *o, size_t k)
{
	return o->nst ? ckpt_stout_finish(o->st[k]) : ckpt_h5out_finish(o->part[k]);
}

static struct ckpt_temp *shard_temp(ckpt_out *o, size_t k)
{
	return o->nst ? ckpt_stout_tempfile(o->st[k]) : ckpt_h5out_tempfile(o->part[k]);
}

static int write_st_index(ckpt_out *o, int fd, const char *what, char *const *files);

/* The set's map, naming its shards files[k]. */
static int write_set_map(void *user, int fd, const char *what, char *const *files)
{
	ckpt_out *o = user;
	char *text;
	int rc;

	if (o->nst)
		return write_st_index(o, fd, what, files);
	if (!(text = ckpt_keras_shards_json(o->like->container, files, o->total)))
		return -1;
	rc = ckpt_write_all(fd, text, strlen(text), what);
	free(text);
	return rc;
}

/* The names this output gives shards, for any count of them, also as the
 * temporaries .NAME.XXXXXX: NAME-0000k-of-0000n.safetensors (Hugging
 * Face), NAME_0000k.weights.h5 (Keras). */
static int own_shard_name(void *user, const char *file)
{
	const ckpt_out *o = user;
	const char *tail = o->nst ? "-[0-9][0-9][0-9][0-9][0-9]-of-[0-9][0-9][0-9][0-9][0-9]"
	                            ".safetensors"
	                          : "_[0-9][0-9][0-9][0-9][0-9].weights.h5";
	size_t n = strlen(file), stem = strlen(o->stem);
	char name[4096];

	if (file[0] == '.' && n > 8 && file[n - 7] == '.') /* a temporary */
		snprintf(name, sizeof name, "%.*s", (int)(n - 8), file + 1);
	else
		snprintf(name, sizeof name, "%s", file);
	return strncmp(name, o->stem, stem) == 0 && fnmatch(tail, name + stem, 0) == 0;
}

/* A set of shards and its map, one commit (commit.h). */
static int commit_set(ckpt_out *o)
{
	size_t n = o->nst ? o->nst : o->nparts;
	struct ckpt_temp **temps = calloc(n + 1, sizeof *temps);
	struct ckpt_set_commit c = {&o->t, temps, n, write_set_map, own_shard_name, o};
	int rc = temps ? 0 : ckpt_seterr("%s: out of memory", ckpt_temp_name(&o->t));

	for (size_t k = 0; k < n && rc == 0; k++) {
		rc = shard_finish(o, k);
		temps[k] = shard_temp(o, k);
	}
	if (rc == 0 && !o->nst)
		rc = count_bytes(o, &o->total);
	rc = rc == 0 ? ckpt_set_commit(&c) : -1;
	free(temps);
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

/* A Hugging Face set's map. */
static int write_st_index(ckpt_out *o, int fd, const char *what, char *const *files)
{
	const json_t *base = o->owner ? NULL : o->like->container->wrapping->json;
	json_t *root = base ? json_deep_copy(base) : json_object(), *map = json_object(), *meta;
	uint64_t total = 0;
	char *text = NULL;
	int rc = -1;

	for (size_t k = 0; root && map && k < o->nst; k++) {
		const char *file = files[k], *t;

		total += ckpt_stout_bytes(o->st[k]);
		for (size_t i = 0; (t = ckpt_stout_tensor(o->st[k], i)); i++)
			if (json_object_set_new(map, t, json_string(file)) < 0)
				goto out;
	}
	if (!root || !map || json_object_set(root, "weight_map", map) < 0)
		goto out;
	if (!json_is_object(meta = json_object_get(root, "metadata")))
		json_object_set_new(root, "metadata", meta = json_object());
	if (!meta || json_object_set_new(meta, "total_size", json_integer((json_int_t)total)) < 0)
		goto out;
	/* as transformers writes it: json.dumps(index, indent=2, sort_keys=True) + "\n" */
	if ((text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS)))
		rc = ckpt_write_all(fd, text, strlen(text), what) < 0 ||
		     ckpt_write_all(fd, "\n", 1, what) < 0 ? -1 : 0;
out:
	if (rc < 0 && !text)
		ckpt_seterr("%s: out of memory", what);
	free(text);
	json_decref(map);
	json_decref(root);
	return rc;
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
		rc = commit_set(o);
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
	ckpt_var v = {0};

	if (!o->nst)
		return ckpt_h5_out_create_var(o, name, t, rank, dims);
	v.dtype = t;
	v.rank = rank;
	v.nelems = 1;
	for (int i = 0; i < rank; i++)
		v.nelems *= (v.dims[i] = dims[i]);
	v.elsize = ckpt_dtype_size(t);
	v.nbytes = v.nelems * v.elsize;
	snprintf(v.type, sizeof v.type, "%s", ckpt_dtype_name(t));
	return ckpt_stout_declare(st_for(o, name), name, &v, t, NULL, NULL);
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
	for (size_t k = 0; k < o->nst; k++)
		if (ckpt_stout_set_meta(o->st[k], key, text) < 0)
			return -1;
	if (o->nst)
		return 0;
	return ckpt_h5_write_string_attr(ckpt_h5_out_fid(o, NULL), key, text) < 0
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
	return o->nst ? outvar_new(NULL, ckpt_stvar_open(st_for(o, name), name, t))
	             : outvar_new(ckpt_h5var_open(o, name, t), NULL);
}

ckpt_outvar *ckpt_outvar_open_like(ckpt_out *o, const char *name, const ckpt_slab *s)
{
	return o->nst ? outvar_new(NULL, ckpt_stvar_open(st_for(o, name), name, s->var->dtype))
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

/* ---- copying from a checkpoint ------------------------------------------ */

/* What a safetensors output cannot hold, said once: variables of types it
 * has no name for, attributes (but the root's strings, its metadata), and
 * links and named datatypes.  Groups need nothing: the names keep them. */
struct left_out {
	size_t vars, attrs, links;
	const char *var, *attr, *link; /* the first of each */
};

static void count_left_out(const ckpt_file *src, const ckpt_out *o, struct left_out *l)
{
	l->attrs = o->root_attrs_left;
	l->attr = l->attrs ? "/" : NULL;
	for (size_t i = 0; i < src->nobjs; i++) {
		const ckpt_obj *ob = &src->objs[i];
		const char *path = ob->kind == CKPT_OBJ_VAR ? src->vars[ob->var].name : ob->path;

		if (ob->nattrs && !l->attrs)
			l->attr = path;
		l->attrs += ob->nattrs;
		if (ob->kind != CKPT_OBJ_GROUP && ob->kind != CKPT_OBJ_VAR && !l->links++)
			l->link = path;
	}
}

static void say_left_out(char *buf, size_t size, size_t n, const char *what,
                         const char *of, const char *first)
{
	size_t at = strlen(buf);

	if (n)
		snprintf(buf + at, size - at, "%s%zu %s%s (%s'%s'%s)", at ? ", " : "", n, what,
		         n == 1 ? "" : "s", of, first, n > 1 ? ", ..." : "");
}

static void warn_left_out(const ckpt_file *src, const ckpt_out *o, struct left_out *l)
{
	char list[1024] = "";

	count_left_out(src, o, l);
	say_left_out(list, sizeof list, l->vars, "non-numeric variable", "", l->var);
	say_left_out(list, sizeof list, l->attrs, "attribute", "on ", l->attr);
	say_left_out(list, sizeof list, l->links, "link", "", l->link);
	if (list[0])
		ckpt_warnf("%s: left out what safetensors cannot hold: %s",
		           out_name(o), list);
}

/* Into safetensors: the variables in src's order, declared, those copied
 * whole read when the layout is fixed. */
static int copy_into_st(const ckpt_file *src, ckpt_out *o, ckpt_copy_fn decide, void *user)
{
	struct left_out left = {0};
	int rc = 0;

	for (size_t i = 0; i < src->nvars && rc == 0; i++) {
		const ckpt_var *v = &src->vars[i];
		ckpt_copy_spec spec = {CKPT_OTHER, 0};
		ckpt_copy_action act = decide(v, &spec, user);
		ckpt_dtype t = act == CKPT_COPY_EMPTY && spec.dtype != CKPT_OTHER ? spec.dtype
		                                                                 : v->dtype;

		if (act == CKPT_COPY_SKIP)
			continue;
		if (t == v->dtype && !ckpt_st_storable(v)) {
			if (!left.vars++)
				left.var = v->name;
			continue;
		}
		rc = ckpt_stout_declare(st_for(o, v->name), v->name, v, t,
		                        act == CKPT_COPY_WHOLE ? src : NULL,
		                        act == CKPT_COPY_WHOLE ? v : NULL);
	}
	if (rc == 0)
		warn_left_out(src, o, &left);
	return rc;
}

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

/* Values of variable v of src (a file of another format) into the output's
 * variable dst_name, slab by slab. */
static int copy_values(const ckpt_file *src, const ckpt_var *v, ckpt_out *o,
                       const char *dst_name)
{
	ckpt_slab s;
	ckpt_outvar *w;
	ckpt_region r;
	int rc;

	if (!(w = ckpt_outvar_open(o, dst_name, v->dtype)))
		return -1;
	if (ckpt_slab_open(&s, src, v, CKPT_SLAB_BYTES) < 0) {
		ckpt_outvar_close(w);
		return -1;
	}
	while ((rc = ckpt_slab_next(&s)) > 0) {
		ckpt_slab_region(&s, &r);
		if ((rc = ckpt_outvar_write(w, &r, s.buf)) < 0)
			break;
	}
	ckpt_slab_close(&s);
	ckpt_outvar_close(w);
	return rc;
}

/* A variable of a file of another format, created in the output. */
static int create_from(const ckpt_file *src, const ckpt_var *v, ckpt_dtype t, ckpt_out *o,
                       const char *dst_name)
{
	if (t == CKPT_OTHER)
		return ckpt_seterr("%s: variable '%s': %s values cannot be stored in %s",
		                   src->name, v->name, v->type, ckpt_h5_out_name(o, dst_name));
	return ckpt_out_create_var(o, dst_name, t, v->rank, v->dims);
}

/* The metadata of a safetensors file: the root's string attributes. */
static int copy_metadata(const ckpt_file *src, ckpt_out *o)
{
	size_t n;
	const char *const *kv = ckpt_st_metadata(src, &n);

	for (size_t i = 0; i < n; i++)
		if (ckpt_out_set_text(o, kv[2 * i], kv[2 * i + 1]) < 0)
			return -1;
	return 0;
}

/* From a format without groups or attributes: the metadata (once in a
 * file), the variables in order. */
static int copy_flat(const ckpt_file *src, ckpt_out *o, ckpt_copy_fn decide, void *user,
                     int with_metadata)
{
	int rc = with_metadata ? copy_metadata(src, o) : 0;

	for (size_t i = 0; i < src->nvars && rc == 0; i++) {
		const ckpt_var *v = &src->vars[i];
		ckpt_copy_spec spec = {CKPT_OTHER, 0};
		ckpt_copy_action act = decide(v, &spec, user);

		if (act == CKPT_COPY_SKIP)
			continue;
		rc = create_from(src, v, act == CKPT_COPY_EMPTY && spec.dtype != CKPT_OTHER ?
		                 spec.dtype : v->dtype, o, v->name);
		if (rc == 0 && act == CKPT_COPY_WHOLE)
			rc = copy_values(src, v, o, v->name);
	}
	return rc;
}

static int put_text(const char *key, const char *value, void *o)
{
	return ckpt_out_set_text(o, key, value);
}

int ckpt_copy_structure(const ckpt_file *src, ckpt_out *o, ckpt_copy_fn decide, void *user)
{
	size_t n;
	ckpt_file *const *parts = ckpt_parts(src, &n);
	int rc = 0;

	if (o->nst)
		return copy_into_st(src, o, decide, user);
	if (!parts && ckpt_file_format(src) != CKPT_FORMAT_HDF5)
		return copy_flat(src, o, decide, user, 1);
	if (!parts)
		return ckpt_h5_copy_structure(src, ckpt_h5_out_fid(o, NULL), decide, user);
	if (o->nparts == 1 && ckpt_file_format(parts[0]) == CKPT_FORMAT_SAFETENSORS)
		rc = set_metadata(o, src, put_text, o);
	/* shard k into the output's shard k, or all into one file */
	for (size_t k = 0; k < n && rc == 0; k++) {
		struct in_part p = {src, src->container->wrapping->union_index[k], parts[k],
		                    decide, user};

		hid_t dst = ckpt_h5out_fid(o->part[o->nparts > 1 ? k : 0]);

		rc = ckpt_file_format(parts[k]) == CKPT_FORMAT_HDF5
		         ? ckpt_h5_copy_structure(parts[k], dst, decide_in_part, &p)
		         : copy_flat(parts[k], o, decide_in_part, &p, o->nparts > 1);
	}
	return rc;
}

int ckpt_copy_var(const ckpt_file *src, const ckpt_var *v, ckpt_out *o, const char *dst_name)
{
	const ckpt_file *pf;
	const ckpt_var *pv;

	if (o->nst)
		return ckpt_stout_declare(st_for(o, dst_name), dst_name, v, v->dtype, src, v);
	ckpt_part_of(src, v, &pf, &pv);
	if (ckpt_file_format(pf) != CKPT_FORMAT_HDF5)
		return create_from(pf, pv, pv->dtype, o, dst_name) < 0 ? -1
		                                                     : copy_values(pf, pv, o, dst_name);
	return ckpt_h5_copy_var(pf, pv, ckpt_h5_out_fid(o, dst_name), dst_name);
}
