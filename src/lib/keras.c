/* keras.c - Keras 3's containers: the .keras archive (a zip of
 * metadata.json, config.json, model.weights.h5 and maybe assets/) and the
 * sharded set (NAME.weights.json naming NAME_00000.weights.h5, ..., as
 * keras/src/saving/saving_lib.py's ShardedH5IOStore writes them). */
#include "wrap.h"
#include "temp.h"
#include "backend.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <jansson.h>

/* ---- .keras archives ----------------------------------------------------- */

int ckpt_keras_archive_is(const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], "config.json") == 0 || strcmp(names[i], "metadata.json") == 0)
			return 1;
	return 0;
}

/* The weights member: the file's bytes, with the time of writing. */
static int write_weights(struct archive *a, struct archive_entry *e, const char *weights,
                         const char *name)
{
	static char buf[1 << 16];
	int fd = open(weights, O_RDONLY), rc = 0;
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = ckpt_seterr("%s: %s: %s", name, weights, strerror(errno));
		goto out;
	}
	archive_entry_set_size(e, st.st_size);
	archive_entry_set_mtime(e, time(NULL), 0);
	if (archive_write_header(a, e) != ARCHIVE_OK) {
		rc = -1;
		goto out;
	}
	while (rc == 0 && (n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = ckpt_seterr("%s: %s: %s", name, weights, strerror(errno));
		else if (archive_write_data(a, buf, (size_t)n) != n)
			rc = -1;
	}
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

/* A member's bytes from memory, in pieces: libarchive writes at most
 * INT_MAX bytes a call (a 2 GiB asset was cut short). */
static int write_member(struct archive *a, const struct ckpt_member *m)
{
	struct archive_entry *e = archive_entry_clone(m->entry);
	const char *p = m->data;
	size_t left = m->size;
	int rc = 0;

	if (!e)
		return -1;
	archive_entry_set_size(e, (la_int64_t)m->size);
	if (archive_write_header(a, e) != ARCHIVE_OK)
		rc = -1;
	while (rc == 0 && left > 0) {
		size_t n = left < (1u << 20) ? left : 1u << 20;

		if (archive_write_data(a, p, n) != (la_ssize_t)n)
			rc = -1;
		p += n, left -= n;
	}
	archive_entry_free(e);
	return rc;
}

/* Members are stored (not compressed), as Keras writes them: h5py's data
 * is read in place from a stored member, and compressed weights save
 * little. */
int ckpt_keras_archive_write(const struct ckpt_wrapping *w, const char *weights, int fd,
                             const char *name)
{
	struct archive *a = archive_write_new();
	int rc = 0;

	if (!a)
		return ckpt_seterr("%s: out of memory", name);
	if (archive_write_set_format_zip(a) != ARCHIVE_OK ||
	    archive_write_zip_set_compression_store(a) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open_fd(a, fd) != ARCHIVE_OK)
		rc = -1;
	for (size_t i = 0; i < w->nmembers && rc == 0; i++) {
		if (i != w->weights) {
			rc = write_member(a, &w->members[i]);
		} else {
			struct archive_entry *e = archive_entry_clone(w->members[i].entry);

			rc = e ? write_weights(a, e, weights, name) : -1;
			archive_entry_free(e);
		}
		if (rc == 0 && archive_write_finish_entry(a) != ARCHIVE_OK)
			rc = -1;
	}
	if (rc == 0 && archive_write_close(a) != ARCHIVE_OK)
		rc = -1;
	if (rc < 0 && !*ckpt_errmsg())
		ckpt_seterr("%s: write error: %s", name,
		            archive_error_string(a) ? archive_error_string(a) : strerror(errno));
	else if (rc < 0 && archive_error_string(a))
		ckpt_seterr("%s: write error: %s", name, archive_error_string(a));
	archive_write_free(a);
	return rc;
}

/* ---- sharded sets: reading ------------------------------------------------ */

int ckpt_looks_like_json(const void *text, size_t len)
{
	const unsigned char *p = text;

	while (len > 0 && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++, len--;
	return len > 0 && *p == '{';
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_shard(const char *path, const char *key, const char *s, ckpt_container *c)
{
	size_t k;

	if (!s)
		return ckpt_seterr("%s: weight_map: \"%s\" is not mapped to a file name (or a "
		                   "list of them)", path, key);
	if (!*s || strchr(s, '/') || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return ckpt_seterr("%s: weight_map: \"%s\" is not a file beside the map", path, s);
	for (k = 0; k < c->nshards && strcmp(c->shards[k], s) != 0; k++)
		;
	if (k < c->nshards)
		return 0;
	if (!(c->shards = realloc(c->shards, (c->nshards + 1) * sizeof *c->shards)) ||
	    !(c->shards[c->nshards] = strdup(s)))
		return ckpt_seterr("%s: out of memory", path);
	c->nshards++;
	return 0;
}

/* The map's shard files, each once, in name order (Keras numbers them in
 * the order it writes them): plain names of files beside the JSON, as
 * Keras writes and reads them.  A value is a file name, or (Keras 3.11 on,
 * for a layer whose variables straddle shards) a list of them. */
static int list_shards(const char *path, json_t *map, ckpt_container *c)
{
	const char *key;
	json_t *val, *item;
	size_t i;

	json_object_foreach(map, key, val) {
		if (json_is_array(val) && json_array_size(val) == 0)
			return add_shard(path, key, NULL, c);
		if (!json_is_array(val) && add_shard(path, key, json_string_value(val), c) < 0)
			return -1;
		json_array_foreach(json_is_array(val) ? val : NULL, i, item)
			if (add_shard(path, key, json_string_value(item), c) < 0)
				return -1;
	}
	if (c->nshards == 0)
		return ckpt_seterr("%s: weight_map names no shard", path);
	qsort(c->shards, c->nshards, sizeof *c->shards, cmp_str);
	return 0;
}

static int open_shards(const char *path, ckpt_container *c)
{
	struct ckpt_wrapping *w = c->wrapping;
	char *dir = ckpt_path_dir(path);

	if (!dir || !(w->part = calloc(c->nshards, sizeof *w->part))) {
		free(dir);
		return ckpt_seterr("%s: out of memory", path);
	}
	for (size_t k = 0; k < c->nshards; k++) {
		char *p = ckpt_path_join(dir, c->shards[k]);

		if (!p || !(w->part[k] = ckpt_open(p))) {
			if (p)
				ckpt_seterr("%s: shard %s", path, ckpt_errmsg());
			else
				ckpt_seterr("%s: out of memory", path);
			free(p);
			free(dir);
			return -1;
		}
		w->nparts++;
		free(p);
	}
	free(dir);
	return 0;
}

/* Keras' order: the map's groups in the map's order (the order Keras saved
 * them in), each group's variables shard by shard, and within a shard in
 * the toolkit's order.  A safetensors set's: shard by shard, each in its
 * data's order. */
struct place {
	size_t group, part, index;
};

static int cmp_place(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

struct group {
	const char *path; /* without the leading '/' */
	size_t rank;
};

static int cmp_group(const void *a, const void *b)
{
	return strcmp(((const struct group *)a)->path, ((const struct group *)b)->path);
}

/* The rank in the map of the group that holds variable name; n if none. */
static size_t group_rank(const struct group *g, size_t n, const char *name)
{
	const char *slash = strrchr(name, '/');
	char *parent = slash ? strndup(name, (size_t)(slash - name)) : strdup("");
	struct group key = {parent, 0}, *hit;

	hit = parent ? bsearch(&key, g, n, sizeof *g, cmp_group) : NULL;
	free(parent);
	return hit ? hit->rank : n;
}

static struct place *keras_order(json_t *map, const struct ckpt_wrapping *w, size_t nvars,
                                 int by_group)
{
	size_t n = json_object_size(map), i = 0, at = 0;
	struct group *g = calloc(n + 1, sizeof *g);
	struct place *pl = malloc((nvars + 1) * sizeof *pl);
	const char *key;
	json_t *val;

	if (!g || !pl) {
		free(g);
		free(pl);
		return NULL;
	}
	json_object_foreach(map, key, val) { /* (safetensors sets: no groups) */
		g[i].path = key[0] == '/' ? key + 1 : key;
		g[i].rank = i;
		i++;
	}
	if (!by_group)
		n = 0;
	qsort(g, n, sizeof *g, cmp_group);
	for (size_t p = 0; p < w->nparts; p++)
		for (size_t v = 0; v < w->part[p]->nvars; v++)
			pl[at++] = (struct place){group_rank(g, n, w->part[p]->vars[v].name), p, v};
	qsort(pl, nvars, sizeof *pl, cmp_place);
	free(g);
	return pl;
}

static int copy_var(ckpt_file *f, ckpt_var *dst, const ckpt_var *src)
{
	*dst = *src;
	return (dst->name = ckpt_file_strdup(f, src->name)) ? ckpt_file_set_dims(f, dst, src->rank,
	                                                                      src->dims) : -1;
}

/* The union of the shards' variables, in Keras' order. */
static int unite(ckpt_file *f, json_t *map)
{
	struct ckpt_wrapping *w = f->container->wrapping;
	size_t n = 0;
	struct place *pl;

	for (size_t p = 0; p < w->nparts; p++)
		n += w->part[p]->nvars;
	f->vars = calloc(n + 1, sizeof *f->vars);
	w->var_part = calloc(n + 1, sizeof *w->var_part);
	w->var_index = calloc(n + 1, sizeof *w->var_index);
	w->union_index = calloc(w->nparts, sizeof *w->union_index);
	if (!f->vars || !w->var_part || !w->var_index || !w->union_index ||
	    !(pl = keras_order(map, w, n, f->container->kind == CKPT_KERAS_SHARDS)))
		return ckpt_seterr("%s: out of memory", f->name);
	for (size_t p = 0; p < w->nparts; p++) {
		f->size += w->part[p]->size;
		if (!(w->union_index[p] = calloc(w->part[p]->nvars + 1, sizeof **w->union_index))) {
			free(pl);
			return ckpt_seterr("%s: out of memory", f->name);
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (copy_var(f, &f->vars[i], &w->part[pl[i].part]->vars[pl[i].index]) < 0) {
			free(pl);
			return -1;
		}
		f->nvars++;
		w->var_part[i] = pl[i].part;
		w->var_index[i] = pl[i].index;
		w->union_index[pl[i].part][pl[i].index] = i;
	}
	free(pl);
	return 0;
}

/* Two shards holding the same variable: which one is meant? */
static int check_unique(const ckpt_file *f)
{
	const struct ckpt_wrapping *w = f->container->wrapping;
	size_t i = ckpt_file_twice(f);
	const ckpt_var *a = i ? f->by_name[i - 1] : NULL, *b = i ? f->by_name[i] : NULL;

	if (!i)
		return 0;
	return ckpt_seterr("%s: variable '%s' is in two shards: %s and %s", f->name, a->name,
	                   f->container->shards[w->var_part[a - f->vars]],
	                   f->container->shards[w->var_part[b - f->vars]]);
}

/* Keras' shards are HDF5 files, Hugging Face's safetensors: the shards
 * say which set this is. */
static int set_kind(ckpt_container *c)
{
	const struct ckpt_wrapping *w = c->wrapping;
	const struct ckpt_format *fmt = ckpt_file_fmt(w->part[0]);

	for (size_t k = 1; k < w->nparts; k++)
		if (ckpt_file_fmt(w->part[k]) != fmt)
			return ckpt_seterr("%s: shards of two formats: %s and %s", c->path,
			                   c->shards[0], c->shards[k]);
	c->kind = fmt == &ckpt_format_safetensors ? CKPT_SAFETENSORS_SHARDS
	          : fmt == &ckpt_format_torch     ? CKPT_TORCH_SHARDS
	                                          : CKPT_KERAS_SHARDS;
	return 0;
}

/* A safetensors map names every tensor and the shard that holds it. */
static int check_map(const ckpt_file *f, json_t *map)
{
	const ckpt_container *c = f->container;
	const char *key;
	json_t *val;

	for (size_t i = 0; i < f->nvars; i++) {
		const char *want = c->shards[c->wrapping->var_part[i]];
		const char *got = json_string_value(json_object_get(map, f->vars[i].name));

		if (!got)
			return ckpt_seterr("%s: weight_map does not name tensor '%s' of shard %s",
			                   c->path, f->vars[i].name, want);
		if (strcmp(got, want) != 0)
			return ckpt_seterr("%s: weight_map puts tensor '%s' in %s, but %s holds it",
			                   c->path, f->vars[i].name, got, want);
	}
	json_object_foreach(map, key, val)
		if (!ckpt_find(f, key))
			return ckpt_seterr("%s: weight_map: tensor '%s' is not in %s", c->path, key,
			                   json_string_value(val));
	return 0;
}

static json_t *load_map(const char *path, const void *text, size_t len, json_t **map)
{
	json_error_t err;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);

	if (!root) {
		ckpt_seterr("%s: not valid JSON: %s (line %d)", path, err.text, err.line);
		return NULL;
	}
	*map = json_is_object(root) ? json_object_get(root, "weight_map") : NULL;
	if (!json_is_object(*map)) {
		ckpt_seterr("%s: not a shard map (no \"weight_map\" object)", path);
		json_decref(root);
		return NULL;
	}
	return root;
}

ckpt_file *ckpt_keras_shards_open(const char *path, const void *text, size_t len)
{
	ckpt_file *f = ckpt_file_new(path);
	ckpt_container *c;
	json_t *map = NULL;

	if (!f)
		return NULL;
	if (!(c = f->container = calloc(1, sizeof *c)) || !(c->path = strdup(path)) ||
	    !(c->wrapping = calloc(1, sizeof *c->wrapping))) {
		ckpt_seterr("%s: out of memory", path);
		goto fail;
	}
	if (!(c->wrapping->json = load_map(path, text, len, &map)) ||
	    list_shards(path, map, c) < 0 || open_shards(path, c) < 0 || set_kind(c) < 0 ||
	    unite(f, map) < 0)
		goto fail;
	if (ckpt_file_index(f) < 0)
		return NULL;
	if (check_unique(f) == 0 && (c->kind == CKPT_KERAS_SHARDS || check_map(f, map) == 0))
		return f;
fail:
	ckpt_close(f);
	return NULL;
}

/* ---- sharded sets: writing ------------------------------------------------ */

#define JSON_SUFFIX ".weights.json"

char **ckpt_keras_shard_names(const char *target, size_t n)
{
	size_t stem = strlen(target) - strlen(JSON_SUFFIX);
	char **names = calloc(n + 1, sizeof *names);

	for (size_t k = 0; names && k < n; k++) {
		if (!(names[k] = malloc(stem + 32))) {
			while (k-- > 0)
				free(names[k]);
			free(names);
			return NULL;
		}
		sprintf(names[k], "%.*s_%05zu.weights.h5", (int)stem, target, k);
	}
	return names;
}

/* A file name of the base's map as the output's shard in its place. */
static int rename_shard(json_t *name, const ckpt_container *base, char *const *names)
{
	size_t k = 0;

	while (k < base->nshards && strcmp(base->shards[k], json_string_value(name)) != 0)
		k++;
	return k == base->nshards ? -1 : json_string_set(name, ckpt_path_base(names[k]));
}

/* Each value of the map (a file name, or a list of them for a layer that
 * straddles shards) names the output's shards in the places the base's
 * shards of those names had. */
static int rename_shards(json_t *map, const ckpt_container *base, char *const *names)
{
	const char *key;
	json_t *val, *item;
	size_t i;

	json_object_foreach(map, key, val) {
		if (!json_is_array(val) && rename_shard(val, base, names) < 0)
			return -1;
		json_array_foreach(json_is_array(val) ? val : NULL, i, item)
			if (rename_shard(item, base, names) < 0)
				return -1;
	}
	return 0;
}

char *ckpt_keras_shards_json(const ckpt_container *base, char *const *names,
                             uint64_t total_size)
{
	json_t *doc = json_deep_copy(base->wrapping->json), *meta;
	char *text = NULL;

	if (doc) {
		if (!json_is_object(meta = json_object_get(doc, "metadata"))) {
			meta = json_object();
			json_object_set_new(doc, "metadata", meta);
		}
		if (json_object_set_new(meta, "total_size", json_integer((json_int_t)total_size)) == 0 &&
		    rename_shards(json_object_get(doc, "weight_map"), base, names) == 0)
			text = json_dumps(doc, JSON_INDENT(4) | JSON_PRESERVE_ORDER);
		json_decref(doc);
	}
	if (!text)
		ckpt_seterr("out of memory");
	return text;
}
