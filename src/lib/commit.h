/* commit.h - (internal to libckpt) several files committed as one: the
 * shards of a set and the map that names them (a Keras .weights.json, a
 * Hugging Face .safetensors.index.json).
 *
 * The protocol (ckpt(7), "Sets are one commit"): a reader that opens the
 * map sees the whole old set or the whole new one, whatever fails and
 * whenever the program is killed.
 *
 *  1. Every shard is finished in a temporary beside its name and put on
 *     the disk (fsync).
 *  2. A shard whose name the old map does not use is moved to its name; one
 *     the old map uses keeps its temporary name for now.
 *  3. The map, naming those files, is written to a temporary, put on the
 *     disk and renamed over the old map: the commit.  Before it, a failure
 *     removes every new file: the old set is as it was.
 *  4. Shards still under temporary names get their own names (a hard link
 *     over the old shard, which nothing names any more) and a second map,
 *     naming them, is renamed into place; their temporary names go.
 *  5. Files the old map named and the new one does not are removed, those
 *     with this output's shard names only (a set that shares its shards
 *     with another map keeps them).
 *
 * Catchable signals are held during 2-5, and commits of sets in one
 * directory are serialised by a lock on it.  A kill (SIGKILL, power loss)
 * leaves at most files that no map names: shards under their own names,
 * which the next run on that output replaces, and temporaries .NAME.XXXXXX,
 * as a killed write of any output does. */
#ifndef CKPT_COMMIT_H
#define CKPT_COMMIT_H

#include <stddef.h>

#include "temp.h"

struct ckpt_set_commit {
	struct ckpt_temp *map;     /* the map's temporary (opened, empty) */
	struct ckpt_temp **shards; /* each shard's temporary, finished */
	size_t n;
	/* Write the map naming the shards files[0..n-1] (names beside it). */
	int (*write_map)(void *user, int fd, const char *what, char *const *files);
	/* Whether a file beside the map has a name this output gives shards. */
	int (*own_name)(void *user, const char *file);
	void *user;
};

/* Commit the set; every temporary is released (removed, or kept in the
 * set) either way.  On failure the old set is untouched. */
int ckpt_set_commit(const struct ckpt_set_commit *c);

/* The names a set's map names (its "weight_map" values: strings, or lists
 * of strings), each once, NULL-terminated; NULL when path is no such map
 * (absent, unreadable, or another kind of file). */
char **ckpt_set_map_files(const char *path);

void ckpt_strv_free(char **v);

#endif
