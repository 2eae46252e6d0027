/* outset.c - an output that is a set of shards (a Keras .weights.json, a
 * Hugging Face .safetensors.index.json): the shards' names, and the whole
 * committed as one (commit.h). */
#include "commit.h"
#include "err.h"
#include "format.h"
#include "outint.h"
#include "st.h"
#include "wrap.h"

#include <fnmatch.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ------------------------------------------------------------------ */

/* A set's map given as target, after ckpt_temp_open() followed a link
 * to it: the path its shards are named after - beside the map itself,
 * named after it where its name has suffix, else after the link. */
char *ckpt_out_set_path(ckpt_out *o, const char *target, const char *suffix)
{
	const char *real = o->t.target ? o->t.target : target;
	const char *name = ckpt_path_base(ckpt_name_ends(real, suffix) ? real : target);
	size_t stem = strlen(name) - (ckpt_name_ends(name, suffix) ? strlen(suffix) : 0);
	char *dir = ckpt_path_dir(real), *path = dir ? ckpt_path_join(dir, name) : NULL;

	free(dir);
	if (!path || !(o->stem = strndup(name, stem))) {
		free(path);
		ckpt_seterr("%s: out of memory", target);
		return NULL;
	}
	return path;
}

char *ckpt_out_shard_name(const char *target, size_t s, size_t k)
{
	const struct ckpt_format *fmt = ckpt_format_for_output(target, NULL);
	size_t stem = strlen(target), size;
	char *name;

	if (fmt->split_name)
		return fmt->split_name(target, s, k);
	int torch = ckpt_name_ends(target, CKPT_TORCH_INDEX_SUFFIX);

	if (ckpt_name_ends(target, CKPT_ST_INDEX_SUFFIX))
		stem -= strlen(CKPT_ST_INDEX_SUFFIX);
	if (torch)
		stem -= strlen(CKPT_TORCH_INDEX_SUFFIX);
	if ((name = malloc(size = stem + 64)))
		snprintf(name, size, "%.*s-%05zu-of-%05zu.%s", (int)stem, target, s + 1, k,
		         torch ? "bin" : "safetensors");
	return name;
}

char **ckpt_out_st_shard_names(const char *target, size_t n)
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

/* ---- committing ------------------------------------------------------------ */

/* Bytes of values in the finished shards, as Keras counts total_size. */
static int count_bytes(const ckpt_out *o, uint64_t *total)
{
	*total = 0;
	for (size_t k = 0; k < o->nfiles; k++) {
		ckpt_file *f = ckpt_open(o->fmt->out_tempfile(o->files[k])->tmp);

		if (!f)
			return -1;
		for (size_t i = 0; i < f->nvars; i++)
			*total += f->vars[i].nbytes;
		ckpt_close(f);
	}
	return 0;
}

static int write_st_index(ckpt_out *o, int fd, const char *what, char *const *files);
static int read_torch_shards(ckpt_out *o, struct ckpt_temp *const *temps);

/* The set's map, naming its shards files[k]. */
static int write_set_map(void *user, int fd, const char *what, char *const *files)
{
	ckpt_out *o = user;
	char *text;
	int rc;

	if (ckpt_container_is_hf(o->kind))
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
	const char *tail = o->kind == CKPT_SAFETENSORS_SHARDS
	                       ? "-[0-9][0-9][0-9][0-9][0-9]-of-[0-9][0-9][0-9][0-9][0-9].safetensors"
	                   : o->kind == CKPT_TORCH_SHARDS
	                       ? "-[0-9][0-9][0-9][0-9][0-9]-of-[0-9][0-9][0-9][0-9][0-9].bin"
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
int ckpt_out_commit_set(ckpt_out *o)
{
	size_t n = o->nfiles;
	struct ckpt_temp **temps = calloc(n + 1, sizeof *temps);
	struct ckpt_set_commit c = {&o->t, temps, n, write_set_map, own_shard_name, o};
	int rc = temps ? 0 : ckpt_seterr("%s: out of memory", ckpt_temp_name(&o->t));

	for (size_t k = 0; k < n && rc == 0; k++) {
		rc = o->fmt->out_finish(o->files[k]);
		temps[k] = o->fmt->out_tempfile(o->files[k]);
	}
	if (rc == 0 && o->kind == CKPT_KERAS_SHARDS)
		rc = count_bytes(o, &o->total);
	if (rc == 0 && o->kind == CKPT_TORCH_SHARDS)
		rc = read_torch_shards(o, temps);
	rc = rc == 0 ? ckpt_set_commit(&c) : -1;
	json_decref(o->shard_of);
	o->shard_of = NULL;
	free(temps);
	return rc;
}

/* A Hugging Face set's map. */
/* The tensors of the finished PyTorch shards (and tied tensors' further
 * names, as transformers maps them), and their bytes: read from them
 * before they are put in place. */
static int read_torch_shards(ckpt_out *o, struct ckpt_temp *const *temps)
{
	json_t *m = json_object();
	int rc = m ? 0 : ckpt_seterr("out of memory");

	o->shard_of = m;
	for (size_t k = 0; k < o->nfiles && rc == 0; k++) {
		ckpt_file *f = ckpt_open(temps[k]->tmp);

		if (!f)
			return -1;
		for (size_t i = 0; i < f->nvars && rc == 0; i++) {
			o->total += f->vars[i].nbytes;
			rc = json_object_set_new(m, f->vars[i].name, json_integer((json_int_t)k));
		}
		for (size_t i = 0; i < f->nobjs && rc == 0; i++)
			if (f->objs[i].kind == CKPT_OBJ_HARDLINK)
				rc = json_object_set_new(m, f->objs[i].path,
				                         json_integer((json_int_t)k));
		ckpt_close(f);
	}
	return rc < 0 ? ckpt_seterr("out of memory") : 0;
}

/* Shard k's tensors into the map (under file); safetensors' bytes into
 * total (PyTorch's are counted). */
static int map_shard(const ckpt_out *o, size_t k, const char *file, json_t *map,
                     uint64_t *total)
{
	const char *t;
	json_t *v;

	if (o->kind == CKPT_SAFETENSORS_SHARDS) {
		*total += ckpt_stout_bytes(o->files[k]);
		for (size_t i = 0; (t = ckpt_stout_tensor(o->files[k], i)); i++)
			if (json_object_set_new(map, t, json_string(file)) < 0)
				return -1;
		return 0;
	}
	json_object_foreach((json_t *)o->shard_of, t, v)
		if (json_integer_value(v) == (json_int_t)k &&
		    json_object_set_new(map, t, json_string(file)) < 0)
			return -1;
	return 0;
}

static int write_st_index(ckpt_out *o, int fd, const char *what, char *const *files)
{
	const json_t *base = o->owner ? NULL : o->like->container->wrapping->json;
	json_t *root = base ? json_deep_copy(base) : json_object(), *map = json_object(), *meta;
	uint64_t total = o->kind == CKPT_TORCH_SHARDS ? o->total : 0;
	char *text = NULL;
	int rc = -1;

	for (size_t k = 0; root && map && k < o->nfiles; k++)
		if (map_shard(o, k, files[k], map, &total) < 0)
			goto out;
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

