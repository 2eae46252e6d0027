/* merge.h - ckpt-merge's three jobs, each in its own file (as bsdtar's
 * modes): merge.c sets variables of BASE from SOURCEs (planned by plan.c),
 * shards.c splits a checkpoint into shards and joins them.  main() in
 * src/ckpt-merge.c parses the options and dispatches. */
#ifndef CKPT_MERGE_H
#define CKPT_MERGE_H

#include "prog.h"

struct merge_options {
	const char *out;
	int force, quiet, verbose, cast, strict, add, dry_run, join, keep_storage;
	size_t split;           /* 0: not splitting */
	ckpt_shard_by by;
	ckpt_select sel;
};

/* Each job takes its operands (argv[0..argc-1], options removed) and
 * returns the exit status; trouble stops the program through die(). */
int merge_mode(const struct merge_options *o, int argc, char **argv);
int split_mode(const struct merge_options *o, int argc, char **argv);
/* Whether --split's -o names a Hugging Face set (NAME.safetensors.index.json)
 * rather than a pattern of files. */
int split_names_set(const char *out);
int join_mode(const struct merge_options *o, int argc, char **argv);

/* ---- the plan of a merge (plan.c): no printing, no exiting ------------- */

/* Where one variable of the output comes from. */
struct pick {
	size_t src;             /* index into the SOURCEs */
	const ckpt_var *v;      /* the SOURCE's variable; NULL: BASE's own */
	char *name;             /* added variables: its name in the output */
};

struct merge_plan {
	const ckpt_file *base;
	ckpt_file *const *src;
	size_t nsrc;
	struct pick *from;      /* per variable of BASE */
	struct pick *added;     /* variables BASE lacks (--add), in order */
	size_t nadded, replaced, ignored;
};

/* The rules a plan follows: the name options, and --cast, --strict, --add. */
struct merge_rules {
	const ckpt_select *sel;
	int cast, strict, add;
};

/* Plan the merge of src (nsrc SOURCEs, the last one winning) into base:
 * each BASE variable a SOURCE has under its mapped name is replaced (shapes
 * must agree; dtypes too, or --cast), the others kept; SOURCE variables
 * BASE lacks are refused (--strict), added after BASE's (--add; a name
 * added by several SOURCEs once, the last one's, in the first one's place)
 * or ignored and counted.  0, or -1 with a message naming the file and
 * variables; a plan that changes nothing is not an error here. */
int merge_plan_make(struct merge_plan *p, const struct merge_rules *r,
                    const ckpt_file *base, ckpt_file *const *src, size_t nsrc);
void merge_plan_free(struct merge_plan *p);

#endif
