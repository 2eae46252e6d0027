/* shards.c - ckpt-merge --split and --join: a checkpoint as K shards, and
 * back. */
#include "merge/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct merge_options *opt;

/* ---- shards ------------------------------------------------------------- */

struct split_job {
	const size_t *owner;
	size_t shard;
	const ckpt_file *in;
};

static ckpt_copy_action mine(const ckpt_var *v, ckpt_copy_spec *spec, void *user)
{
	const struct split_job *j = user;

	(void)spec;
	return j->owner[v - j->in->vars] == j->shard ? CKPT_COPY_WHOLE : CKPT_COPY_SKIP;
}

static ckpt_copy_action whole(const ckpt_var *v, ckpt_copy_spec *spec, void *user)
{
	(void)v, (void)spec, (void)user;
	return CKPT_COPY_WHOLE;
}

/* A Hugging Face set, or a TensorFlow bundle with K data shards. */
int split_names_set(const char *out)
{
	static const char *const suffixes[] = {".safetensors.index.json", ".bin.index.json",
	                                       ".index"};
	size_t n = strlen(out);

	for (size_t i = 0; i < 3; i++)
		if (n > strlen(suffixes[i]) && strcmp(out + n - strlen(suffixes[i]), suffixes[i]) == 0)
			return 1;
	return 0;
}

/* Into a Hugging Face set (the shards and their map) or a TensorFlow
 * bundle (its data shards and index), committed together; read back as
 * one checkpoint, so it needs no --join. */
static void split_into_set(const ckpt_file *in, size_t k, const size_t *owner)
{
	ckpt_out *o;

	if (opt->dry_run) {
		for (size_t i = 0; i < in->nvars; i++) {
			char *name = ckpt_out_shard_name(opt->out, owner[i], k);

			if (!name)
				die("out of memory");
			printf("%s\t%s\n", in->vars[i].name, name);
			free(name);
		}
		return;
	}
	if (!(o = ckpt_out_open_split(opt->out, opt->force, in, k, owner)) ||
	    ckpt_copy_structure(in, o, whole, NULL) < 0 || ckpt_out_commit(o) < 0)
		die_lib();
}

/* Into K files named by the pattern, each recording the split. */
static void split_into_files(const ckpt_file *in, size_t k, const size_t *owner)
{
	ckpt_out **o = calloc(k, sizeof *o);

	if (!o)
		die("out of memory");
	for (size_t s = 0; s < k; s++) {
		struct split_job j = {owner, s, in};
		char name[4096], *text;

		snprintf(name, sizeof name, opt->out, (int)s);
		if (opt->dry_run) {
			for (size_t i = 0; i < in->nvars; i++)
				if (owner[i] == s)
					printf("%s\t%s\n", in->vars[i].name, name);
			continue;
		}
		if (!(o[s] = ckpt_out_open(name, opt->force, in)) ||
		    ckpt_copy_structure(in, o[s], mine, &j) < 0 ||
		    !(text = ckpt_shard_format(in, owner, s, k, opt->by)) ||
		    ckpt_shard_write_attr(o[s], text) < 0)
			die_lib();
		free(text);
	}
	for (size_t s = 0; s < k && !opt->dry_run; s++)
		if (ckpt_out_commit(o[s]) < 0)
			die_lib();
	free(o);
}

int split_mode(const struct merge_options *options, int argc, char **argv)
{
	ckpt_file **in = NULL;
	size_t nin = 0, k = options->split, *owner;

	(void)argc;
	opt = options;
	if (ckpt_open_inputs(argv[0], &in, &nin) < 0)
		die_lib();
	if (nin != 1)
		die("%s: holds %zu checkpoints; --split takes one", argv[0], nin);
	if (!(owner = calloc(in[0]->nvars + 1, sizeof *owner)))
		die("out of memory");
	if (ckpt_shard_assign(in[0], k, opt->by, owner) < 0)
		die_lib();
	if (split_names_set(opt->out))
		split_into_set(in[0], k, owner);
	else
		split_into_files(in[0], k, owner);
	if (!opt->quiet && !opt->dry_run)
		warn("%s: %zu variables in %zu shards", in[0]->name, in[0]->nvars, k);
	free(owner);
	ckpt_close_inputs(in, nin);
	return EXIT_OK;
}

int join_mode(const struct merge_options *options, int argc, char **argv)
{
	ckpt_file **sh = NULL;
	size_t n = 0;
	ckpt_shard_info *info;
	ckpt_out *o;

	opt = options;
	for (int i = 0; i < argc; i++)
		if (ckpt_open_inputs(argv[i], &sh, &n) < 0)
			die_lib();
	if (!(info = calloc(n, sizeof *info)))
		die("out of memory");
	for (size_t i = 0; i < n; i++)
		if (ckpt_shard_read(sh[i], &info[i]) < 0)
			die_lib();
	if (ckpt_shard_check(sh, info, n) < 0)
		die_lib();
	if (opt->dry_run) {
		for (size_t i = 0; i < info[0].nvars; i++)
			printf("%s\t%s\n", info[0].names[i], sh[info[0].owner[i]]->name);
	} else {
		if (!(o = ckpt_out_open(opt->out, opt->force, sh[0])) ||
		    ckpt_shard_join(sh, &info[0], o) < 0 || ckpt_out_commit(o) < 0)
			die_lib();
	}
	if (!opt->quiet && !opt->dry_run)
		warn("%s: %zu variables from %zu shards", opt->out, info[0].nvars, n);
	for (size_t i = 0; i < n; i++)
		ckpt_shard_free(&info[i]);
	free(info);
	ckpt_close_inputs(sh, n);
	return EXIT_OK;
}

