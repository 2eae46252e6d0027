/* wrap.h - (internal to libckpt) what the containers of container.h hold
 * behind ckpt_container.wrapping, and the Keras containers (keras.c):
 * reading a .keras archive's members and a sharded set, writing them
 * again around new weights. */
#ifndef CKPT_WRAP_H
#define CKPT_WRAP_H

#include <stddef.h>
#include <stdint.h>

#include "container.h"
#include "file.h"

struct archive_entry;

/* A member of an archive, kept to be written again. */
struct ckpt_member {
	struct archive_entry *entry; /* its header (name, mode, times) */
	void *data;                  /* its bytes; NULL for the weights */
	size_t size;
};

struct ckpt_wrapping {
	/* a Keras archive: every member in order, weights the checkpoint's */
	struct ckpt_member *members;
	size_t nmembers, weights;
	/* a sharded set: the shards opened; for each variable of the union
	 * the shard that holds it and its index there, and back */
	ckpt_file **part;
	size_t nparts;
	size_t *var_part, *var_index;
	size_t **union_index;
	void *json;                  /* the set's JSON document (json_t) */
};

/* The file and variable that hold v of f - a shard's, when f is a sharded
 * set - and the index of that file among f's parts (0 for one file). */
size_t ckpt_part_of(const ckpt_file *f, const ckpt_var *v, const ckpt_file **pf,
                    const ckpt_var **pv);

/* f's parts when f is a sharded set (NULL otherwise), and their number. */
ckpt_file *const *ckpt_parts(const ckpt_file *f, size_t *n);

/* Whether s ends in suffix after at least one more byte. */
int ckpt_name_ends(const char *s, const char *suffix);

/* ---- file.c: a checkpoint built by a container ------------------------- */

/* A checkpoint named name with no file behind it yet. */
ckpt_file *ckpt_file_new(const char *name);

/* The first name of f's given twice (f indexed): its place in by_name,
 * whose previous entry has it too; 0 when every name is one variable's. */
size_t ckpt_file_twice(const ckpt_file *f);

/* Index f's variables by name once they are all there (0, or -1 with a
 * message; f is closed then). */
int ckpt_file_index(ckpt_file *f);

/* ---- keras.c -------------------------------------------------------------- */

/* Whether members (names, in archive order) make a Keras 3 archive:
 * config.json or metadata.json at the top. */
int ckpt_keras_archive_is(const char *const *names, size_t n);

/* The member of a Keras archive that holds the weights. */
#define CKPT_KERAS_WEIGHTS "model.weights.h5"

/* Write a Keras archive into fd (named name in messages): w's members in
 * order, the weights member's bytes from the file at weights. */
int ckpt_keras_archive_write(const struct ckpt_wrapping *w, const char *weights, int fd,
                             const char *name);

/* Whether text (len bytes) looks like JSON: '{' first after white space. */
int ckpt_looks_like_json(const void *text, size_t len);

/* Open the sharded set a NAME.weights.json at path lists, text being the
 * file's len bytes: one checkpoint, the union of the shards. */
ckpt_file *ckpt_keras_shards_open(const char *path, const void *text, size_t len);

/* The shard file names of a set written to target (NAME.weights.json:
 * NAME_00000.weights.h5, ... in target's directory), n of them. */
char **ckpt_keras_shard_names(const char *target, size_t n);

/* The JSON of a set like base, its shards named names (paths: the JSON
 * names them by their last component), total_size bytes of values.
 * malloc'd text, or NULL with a message. */
char *ckpt_keras_shards_json(const ckpt_container *base, char *const *names,
                             uint64_t total_size);

void ckpt_wrapping_free(struct ckpt_wrapping *w);

#endif
