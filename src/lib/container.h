/* container.h - checkpoints that come wrapped: a member of a tar or zip
 * archive, the weights of a Keras 3 .keras archive, or a Keras sharded set
 * (NAME.weights.json with its NAME_00000.weights.h5, ... shards), which is
 * one checkpoint: the union of its shards.
 *
 * A checkpoint keeps what wrapped it (ckpt_file.container), so that an
 * output can be wrapped the same way: an output named *.keras whose base
 * is a .keras archive is a .keras archive with the base's other members,
 * and one named *.weights.json whose base is a sharded set is a sharded
 * set with the base's assignment of variables to shards (out.h). */
#ifndef CKPT_CONTAINER_H
#define CKPT_CONTAINER_H

#include <stddef.h>

typedef enum {
	CKPT_BARE = -1,      /* no container: the file itself */
	CKPT_ARCHIVE_MEMBER, /* a checkpoint among the members of an archive */
	CKPT_KERAS_ARCHIVE,  /* model.weights.h5 of a Keras 3 .keras archive */
	CKPT_KERAS_SHARDS,   /* the shards a Keras NAME.weights.json lists */
	CKPT_SAFETENSORS_SHARDS, /* the shards a Hugging Face
	                      * NAME.safetensors.index.json lists */
	CKPT_TORCH_SHARDS,   /* the PyTorch shards a Hugging Face
	                      * NAME.bin.index.json lists */
} ckpt_container_kind;

typedef struct ckpt_container {
	ckpt_container_kind kind;
	char *path;          /* the archive, or the .weights.json */
	char *member;        /* archives: the checkpoint's member */
	char **shards;       /* sets of shards: their file names, in order */
	size_t nshards;
	struct ckpt_wrapping *wrapping; /* what writing the same container needs */
} ckpt_container;

/* The kind in words, for people and JSON: "archive member", "keras
 * archive", "keras shards", "safetensors shards". */
const char *ckpt_container_kind_name(ckpt_container_kind k);

/* The container an output named path is to be: CKPT_KERAS_ARCHIVE for
 * "*.keras", CKPT_KERAS_SHARDS for "*.weights.json", the Hugging Face sets
 * for "*.safetensors.index.json" and "*.bin.index.json", else CKPT_BARE. */
ckpt_container_kind ckpt_container_for_output(const char *path);

/* Whether k is a set of shards (one checkpoint in several files); a
 * Hugging Face set (an index.json with a weight_map, of safetensors or
 * PyTorch shards). */
int ckpt_container_is_set(ckpt_container_kind k);
int ckpt_container_is_hf(ckpt_container_kind k);

/* Free c and what it holds.  NULL is allowed. */
void ckpt_container_free(ckpt_container *c);

#endif
