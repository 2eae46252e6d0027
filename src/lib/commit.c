/* commit.c - a set of files committed as one (commit.h tells the
 * protocol). */
#define _DEFAULT_SOURCE /* flock() */
#include "commit.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

void ckpt_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static int strv_has(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

static int strv_add(char ***v, size_t *n, const char *s)
{
	char **grown;

	if (strv_has(*v, s))
		return 0;
	if (!(grown = realloc(*v, (*n + 2) * sizeof **v)))
		return -1;
	*v = grown;
	if (!(grown[*n] = strdup(s)))
		return -1;
	grown[++*n] = NULL;
	return 0;
}

char **ckpt_set_map_files(const char *path)
{
	json_t *doc = json_load_file(path, 0, NULL), *map, *val, *item;
	const char *key;
	char **files = calloc(1, sizeof *files);
	size_t n = 0, i;
	int ok = files && json_is_object(map = json_object_get(doc, "weight_map"));

	json_object_foreach(ok ? map : NULL, key, val) {
		if (json_is_string(val))
			ok = strv_add(&files, &n, json_string_value(val)) == 0;
		json_array_foreach(json_is_array(val) ? val : NULL, i, item)
			if (ok && json_is_string(item))
				ok = strv_add(&files, &n, json_string_value(item)) == 0;
		if (!ok)
			break;
	}
	json_decref(doc);
	if (!ok) {
		ckpt_strv_free(files);
		return NULL;
	}
	return files;
}

/* The state of one commit. */
struct run {
	const struct ckpt_set_commit *c;
	char *map;       /* the map's path (the map's temporary is gone after
	                  * the commit) */
	char *dir;       /* the map's directory, "" or ending in '/' */
	int dirfd;
	char **old;      /* what the old map names */
	char **names;    /* the shards' own names (basenames) */
	char **files;    /* what the map names now (basenames) */
	char **placed;   /* shards moved to their own names before the commit */
	char **kept;     /* shards whose names the old map uses: temporaries */
};

static void sync_dir(const struct run *r)
{
	if (r->dirfd >= 0)
		fsync(r->dirfd);
}

/* Write the map naming r->files through t and rename it into place. */
static int commit_map(const struct run *r, struct ckpt_temp *t)
{
	t->sync = 1;
	if (r->c->write_map(r->c->user, t->fd, ckpt_temp_name(t), r->files) < 0) {
		ckpt_temp_release(t);
		return -1;
	}
	if (ckpt_temp_commit(t) < 0)
		return -1;
	sync_dir(r);
	return 0;
}

/* Step 2: each shard to its name, or kept under its temporary one. */
static int place_shards(struct run *r)
{
	for (size_t k = 0; k < r->c->n; k++) {
		struct ckpt_temp *t = r->c->shards[k];

		t->sync = 1;
		if (strv_has(r->old, r->names[k])) {
			if (!(r->kept[k] = ckpt_temp_keep(t)))
				return -1;
			r->files[k] = strdup(ckpt_path_base(r->kept[k]));
		} else {
			if (!(r->placed[k] = strdup(t->target)))
				return ckpt_seterr("%s: out of memory", t->target);
			if (ckpt_temp_commit(t) < 0) {
				free(r->placed[k]);
				r->placed[k] = NULL;
				return -1;
			}
			r->files[k] = strdup(r->names[k]);
		}
		if (!r->files[k])
			return ckpt_seterr("out of memory");
	}
	return 0;
}

/* A failure before the commit: every new file goes, the old set stays. */
static void undo(struct run *r)
{
	for (size_t k = 0; k < r->c->n; k++) {
		if (r->placed && r->placed[k])
			unlink(r->placed[k]);
		if (r->kept && r->kept[k])
			unlink(r->kept[k]);
		ckpt_temp_release(r->c->shards[k]);
	}
}

/* Step 4, for shard k kept under a temporary name: a hard link under its
 * own name, over the old shard of that name (no map names it now). */
static int link_own_name(const struct run *r, size_t k)
{
	char *target = ckpt_path_join(r->dir, r->names[k]);
	int rc = -1;

	if (target && (unlink(target) == 0 || errno == ENOENT))
		rc = link(r->kept[k], target);
	if (rc < 0)
		ckpt_seterr("%s: %s", target ? target : r->names[k], strerror(errno));
	free(target);
	return rc;
}

/* Step 4: the kept shards under their own names, named by a second map.
 * A failure leaves the committed set as it is, under the temporary names,
 * with a warning. */
static void rename_kept(struct run *r)
{
	struct ckpt_temp t;
	char **temp_files = r->files;
	size_t k, first = r->c->n;
	int rc = 0;

	for (k = 0; k < r->c->n && rc == 0; k++)
		if (r->kept[k]) {
			first = first < k ? first : k;
			rc = link_own_name(r, k);
		}
	if (first == r->c->n)
		return;
	r->files = r->names;
	if (rc == 0 && (rc = ckpt_temp_open(&t, r->map, 1, 0, NULL)) == 0)
		rc = commit_map(r, &t);
	r->files = temp_files;
	for (k = 0; k < r->c->n; k++) {
		char *other = r->kept[k] ? ckpt_path_join(r->dir, rc == 0 ? ckpt_path_base(r->kept[k])
		                                                : r->names[k]) : NULL;

		if (other) /* the name the committed map does not use */
			unlink(other);
		free(other);
		if (r->kept[k] && rc == 0) {
			free(r->files[k]);
			r->files[k] = strdup(r->names[k]);
		}
	}
	if (rc < 0)
		ckpt_warnf("%s: written, but shards keep temporary names (%s, ...): %s", r->map,
		           ckpt_path_base(r->kept[first]), ckpt_errmsg());
}

/* Whether path is another name of a file the map names now. */
static int names_a_shard(const struct run *r, const char *path)
{
	struct stat st, sh;
	int same = 0;

	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink < 2)
		return 0;
	for (size_t k = 0; k < r->c->n && !same; k++) {
		char *shard = ckpt_path_join(r->dir, r->files[k]);

		same = shard && stat(shard, &sh) == 0 && sh.st_dev == st.st_dev &&
		       sh.st_ino == st.st_ino;
		free(shard);
	}
	return same;
}

/* A run killed between the two maps of step 4 leaves temporaries that are
 * hard links of the shards the map names now: they go.  (Temporaries of
 * a run killed earlier are files of their own, maybe a running writer's:
 * they stay, as for any output.) */
static void remove_stale_links(const struct run *r)
{
	DIR *d = opendir(*r->dir ? r->dir : ".");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *path;

		if (e->d_name[0] != '.' || !r->c->own_name(r->c->user, e->d_name) ||
		    !(path = ckpt_path_join(r->dir, e->d_name)))
			continue;
		if (names_a_shard(r, path))
			unlink(path);
		free(path);
	}
	if (d)
		closedir(d);
}

/* Step 5: what only the old map named goes, when it has this output's
 * shard names and is a plain file beside the map. */
static void remove_old(const struct run *r)
{
	for (size_t i = 0; r->old && r->old[i]; i++) {
		const char *f = r->old[i];
		struct stat st;
		char *path;

		if (strchr(f, '/') || strv_has(r->files, f) || strv_has(r->names, f) ||
		    !r->c->own_name(r->c->user, f) || !(path = ckpt_path_join(r->dir, f)))
			continue;
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			unlink(path);
		free(path);
	}
	remove_stale_links(r);
	sync_dir(r);
}

static void run_free(struct run *r)
{
	size_t n = r->c->n;

	for (size_t k = 0; k < n; k++) {
		if (r->names)
			free(r->names[k]);
		if (r->placed)
			free(r->placed[k]);
		if (r->kept)
			free(r->kept[k]);
	}
	free(r->names);
	free(r->placed);
	free(r->kept);
	ckpt_strv_free(r->files);
	ckpt_strv_free(r->old);
	free(r->dir);
	free(r->map);
	if (r->dirfd >= 0)
		close(r->dirfd); /* and the lock with it */
}

static int run_init(struct run *r, const struct ckpt_set_commit *c)
{
	const char *map = c->map->target;
	size_t n = c->n;

	memset(r, 0, sizeof *r);
	r->c = c;
	r->dirfd = -1;
	if (!map)
		return ckpt_seterr("a set cannot go to standard output");
	if (!(r->map = strdup(map)) || !(r->dir = ckpt_path_dir(map)) || !(r->names = calloc(n + 1, sizeof *r->names)) ||
	    !(r->files = calloc(n + 1, sizeof *r->files)) ||
	    !(r->placed = calloc(n + 1, sizeof *r->placed)) ||
	    !(r->kept = calloc(n + 1, sizeof *r->kept)))
		return ckpt_seterr("%s: out of memory", map);
	for (size_t k = 0; k < n; k++)
		if (!(r->names[k] = strdup(ckpt_path_base(c->shards[k]->target))))
			return ckpt_seterr("%s: out of memory", map);
	/* one commit of a set at a time in a directory: the old map read
	 * under the lock is the one replaced */
	if ((r->dirfd = open(*r->dir ? r->dir : ".", O_RDONLY | O_DIRECTORY)) >= 0)
		flock(r->dirfd, LOCK_EX);
	r->old = ckpt_set_map_files(map);
	return 0;
}

int ckpt_set_commit(const struct ckpt_set_commit *c)
{
	struct run r;
	sigset_t held;
	int rc;

	ckpt_temp_hold_signals(&held);
	rc = run_init(&r, c);
	if (rc == 0)
		rc = place_shards(&r);
	if (rc == 0)
		rc = commit_map(&r, c->map); /* the commit point */
	else
		ckpt_temp_release(c->map);
	if (rc < 0) {
		undo(&r);
	} else {
		rename_kept(&r);
		remove_old(&r);
	}
	run_free(&r);
	ckpt_temp_release_signals(&held);
	return rc;
}
