/* shard.h - a checkpoint split into K shard files and joined again, as
 * parameter servers hold variables spread over several tasks.
 *
 * Each shard holds its share of the variables, all groups, and the root
 * attributes, plus a root attribute "ckpt_shard" (a string) recording which
 * shard it is and the original variable order with each variable's shard:
 *
 *   #ckpt-shard<TAB>1<TAB>index=I<TAB>count=K<TAB>by=round-robin
 *   name<TAB>shard          (one line per variable, in the original order)
 *
 * with names escaped as in manifests (flat.h).  Joining uses it to restore
 * the order and to check that the shards fit together. */
#ifndef CKPT_SHARD_H
#define CKPT_SHARD_H

#include <stddef.h>

#include "file.h"
#include "out.h"

#define CKPT_SHARD_ATTR "ckpt_shard"

typedef enum { CKPT_BY_ROUND_ROBIN, CKPT_BY_SIZE } ckpt_shard_by;

/* The shard of each variable of f: variable i to shard i mod k (as
 * TensorFlow's replica_device_setter places variables on parameter
 * servers), or each variable, largest first, to the shard with the fewest
 * bytes so far (ties to the lowest shard). */
int ckpt_shard_assign(const ckpt_file *f, size_t k, ckpt_shard_by by, size_t *owner);

/* The text of shard index's attribute (malloc'd). */
char *ckpt_shard_format(const ckpt_file *f, const size_t *owner, size_t index,
                        size_t k, ckpt_shard_by by);

/* Write text as the shard attribute of the output's root. */
int ckpt_shard_write_attr(ckpt_out *o, const char *text);

typedef struct ckpt_shard_info {
	size_t index, count;
	char **names;       /* the original variables, in order */
	size_t *owner;      /* the shard of each */
	size_t nvars;
	const char *body;   /* the text after the first line, in text */
	char *text;
} ckpt_shard_info;

/* Parse the text of a shard attribute; what names it in messages. */
int ckpt_shard_parse(const char *text, ckpt_shard_info *info, const char *what);

/* Read and parse the attribute of f; -1 with a message when f has none
 * or it is malformed. */
int ckpt_shard_read(const ckpt_file *f, ckpt_shard_info *info);
void ckpt_shard_free(ckpt_shard_info *info);

/* Check that shards (n of them, any order) are all shards of one
 * checkpoint, each once; and put them in index order. */
int ckpt_shard_check(ckpt_file **shards, ckpt_shard_info *info, size_t n);

/* Write the checkpoint the shards (in index order) were split from into
 * dst: root attributes but the shard's own, groups and variables in the
 * original order. */
int ckpt_shard_join(ckpt_file **shards, const ckpt_shard_info *info, ckpt_out *dst);

#endif
