/* outint.h - (internal to libckpt) the parts of an output (out.h) that
 * its three files share: out.c (opening, variables, commit), outset.c
 * (sets of shards: names, commit) and outcopy.c (a checkpoint's structure
 * copied in). */
#ifndef CKPT_OUTINT_H
#define CKPT_OUTINT_H

#include "out.h"
#include "temp.h"

#include <stdint.h>

/* Hugging Face's shard names: NAME.safetensors.index.json lists
 * NAME-00001-of-0000n.safetensors, ... */
#define CKPT_ST_INDEX_SUFFIX ".safetensors.index.json"
/* and NAME.bin.index.json lists NAME-00001-of-0000n.bin, ... */
#define CKPT_TORCH_INDEX_SUFFIX ".bin.index.json"

struct ckpt_out {
	ckpt_container_kind kind;
	const struct ckpt_format *fmt; /* its files' format */
	void **files;              /* the files it writes: one, or a shard each */
	size_t nfiles;
	const ckpt_file *like;
	uint64_t root_attrs_left;  /* text metadata from HDF5: not strings; all
	                            * of a file's for a format without texts */
	size_t texts_left;         /* texts given that the format has no place for, */
	char *text_left;           /* the first of them */
	uint64_t total;            /* a Keras or PyTorch set: bytes of values */
	void *shard_of;            /* a PyTorch set: its tensors' shards (a JSON
	                            * object of name -> index), read from them */
	const size_t *owner;       /* a new set: each variable's shard, */
	size_t nshards;            /* of this many */
	char **names;              /* a sharded set: its shard files */
	char *stem;                /* and their names' common start */
	struct ckpt_temp t;        /* containers: the archive or the map */
};

/* The file of the output that holds name (NULL: the first) and its name
 * for messages; the output's name for messages. */
void *ckpt_out_file_for(const ckpt_out *o, const char *name);
const char *ckpt_out_file_name(const ckpt_out *o, const char *name);
const char *ckpt_out_name(const ckpt_out *o);

/* A set's map given as target (its temporary opened, links followed):
 * the path its shards are named after; sets o->stem.  malloc'd. */
char *ckpt_out_set_path(ckpt_out *o, const char *target, const char *suffix);

/* The n shard names of a Hugging Face set written to target, NULL-ended. */
char **ckpt_out_st_shard_names(const char *target, size_t n);

/* Finish the shards and commit them with the map (commit.h). */
int ckpt_out_commit_set(ckpt_out *o);

/* The union of the metadata of a set of safetensors shards and its map,
 * each key once (the first value), handed to put. */
int ckpt_out_set_metadata(const ckpt_out *o, const ckpt_file *set,
                          int (*put)(const char *key, const char *value, size_t len, void *user),
                          void *user);

#endif
