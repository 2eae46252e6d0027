/* ckpt-merge - set named variables of a checkpoint from others; shards.
 * Options and dispatch; the jobs are in src/merge/. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"

static const char synopsis[] = "[options] -o OUT BASE SOURCE... | --split K -o PATTERN "
                               "INPUT | --join -o OUT SHARD...";

static struct merge_options opt;

static void usage(void)
{
	printf("usage: %s %s\n"
	       "Write BASE with each of its variables that a SOURCE also has replaced by\n"
	       "the SOURCE's values (the last SOURCE wins); groups, attributes, dtypes and\n"
	       "storage of BASE kept.  Or split a checkpoint into K shards, and join them.\n\n"
	       "  -o OUT             output checkpoint ('-' for stdout); may be BASE\n"
	       "  -f, --force        replace OUT if it exists\n"
	       "  --strip-prefix P   remove prefix P from SOURCE names\n"
	       "  --add-prefix P     prepend P to SOURCE names\n"
	       "  --rename FROM=TO   rename SOURCE names: exact, or one '*' on each side\n"
	       "                     (repeatable; after the prefixes)\n"
	       "  --only GLOB        take only matching variables (mapped names)\n"
	       "  --exclude GLOB     do not take matching variables\n"
	       "  --cast             convert values of another dtype to BASE's\n"
	       "  --keep-storage     keep lossy filters (scale-offset on floats, zfp, sz,\n"
	       "                     ...) on computed values; they are left out by default\n"
	       "  --strict           a SOURCE variable BASE lacks is an error\n"
	       "  --add              add SOURCE variables BASE lacks (with their groups)\n"
	       "  -n, --dry-run      print the plan (TSV), write nothing\n"
	       "  --split K          write INPUT as K shards, PATTERN with a %%d, as a\n"
	       "                     Hugging Face set: -o NAME.safetensors.index.json, or\n"
	       "                     a TensorFlow bundle of K data shards: -o PREFIX.index\n"
	       "  --by MODE          shard round-robin (default) or by size\n"
	       "  --join             reassemble the SHARDs\n"
	       "  -q, --quiet        no summary, no warnings\n"
	       "  -v, --verbose      say where each variable comes from\n"
	       "  -h, --help         show this help and exit\n"
	       "  -V, --version      show the version and exit\n",
	       progname, synopsis);
}

enum { OPT_ADD = 256, OPT_ADDPFX, OPT_BY, OPT_CAST, OPT_EXCLUDE, OPT_JOIN, OPT_KEEP_STORAGE,
       OPT_ONLY, OPT_RENAME, OPT_SPLIT, OPT_STRICT, OPT_STRIP };

static const struct option longopts[] = {
	{"add", no_argument, NULL, OPT_ADD},
	{"add-prefix", required_argument, NULL, OPT_ADDPFX},
	{"by", required_argument, NULL, OPT_BY},
	{"cast", no_argument, NULL, OPT_CAST},
	{"dry-run", no_argument, NULL, 'n'},
	{"exclude", required_argument, NULL, OPT_EXCLUDE},
	{"force", no_argument, NULL, 'f'},
	{"help", no_argument, NULL, 'h'},
	{"join", no_argument, NULL, OPT_JOIN},
	{"keep-storage", no_argument, NULL, OPT_KEEP_STORAGE},
	{"only", required_argument, NULL, OPT_ONLY},
	{"output", required_argument, NULL, 'o'},
	{"quiet", no_argument, NULL, 'q'},
	{"rename", required_argument, NULL, OPT_RENAME},
	{"split", required_argument, NULL, OPT_SPLIT},
	{"strict", no_argument, NULL, OPT_STRICT},
	{"strip-prefix", required_argument, NULL, OPT_STRIP},
	{"verbose", no_argument, NULL, 'v'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

/* A pattern with exactly one %d (and %% for a percent sign). */
static int one_number(const char *pattern)
{
	int n = 0;

	for (const char *p = pattern; *p; p++)
		if (*p == '%') {
			if (p[1] == 'd')
				n++;
			else if (p[1] != '%')
				return 0;
			p++;
		}
	return n == 1;
}

static void parse_options(int argc, char **argv)
{
	int c, modes;

	ckpt_select_init(&opt.sel);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":fhno:qvV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': opt.out = optarg; break;
		case 'f': opt.force = 1; break;
		case 'n': opt.dry_run = 1; break;
		case 'q': opt.quiet = 1; ckpt_set_warn(NULL); break;
		case 'v': opt.verbose = 1; break;
		case OPT_ADD: opt.add = 1; break;
		case OPT_ADDPFX: opt.sel.add_prefix = optarg; break;
		case OPT_BY:
			if (strcmp(optarg, "round-robin") == 0)
				opt.by = CKPT_BY_ROUND_ROBIN;
			else if (strcmp(optarg, "size") == 0)
				opt.by = CKPT_BY_SIZE;
			else
				usage_error("--by: '%s' is not round-robin or size", optarg);
			break;
		case OPT_CAST: opt.cast = 1; break;
		case OPT_EXCLUDE: ckpt_select_exclude(&opt.sel, optarg); break;
		case OPT_JOIN: opt.join = 1; break;
		case OPT_KEEP_STORAGE: opt.keep_storage = 1; break;
		case OPT_ONLY: ckpt_select_only(&opt.sel, optarg); break;
		case OPT_RENAME:
			if (ckpt_select_rename(&opt.sel, optarg) < 0)
				usage_error("%s", ckpt_errmsg());
			break;
		case OPT_SPLIT:
			opt.split = (size_t)parse_count("--split", optarg, 1, 256);
			break;
		case OPT_STRICT: opt.strict = 1; break;
		case OPT_STRIP: opt.sel.strip_prefix = optarg; break;
		default: common_option(c, usage, argv);
		}
	}
	modes = (opt.split > 0) + opt.join;
	if (modes > 1)
		usage_error("--split and --join are separate jobs");
	if (!opt.out && !opt.dry_run)
		usage_error("no output given (-o OUT)");
	if (opt.strict && opt.add)
		usage_error("--strict and --add contradict each other");
	if (modes && (opt.sel.nonly || opt.sel.nexclude || opt.sel.nrename || opt.cast ||
	              opt.strict || opt.add || opt.sel.strip_prefix || opt.sel.add_prefix))
		usage_error("--split and --join take no name options");
	if (opt.split && optind + 1 != argc)
		usage_error("--split takes one INPUT");
	if (opt.split && opt.out && !split_names_set(opt.out) && !one_number(opt.out))
		usage_error("-o PATTERN needs exactly one %%d (and %%%% for a %%), or is "
		            "NAME.safetensors.index.json or PREFIX.index");
	if (opt.join && optind >= argc)
		usage_error("no SHARD given");
	if (!modes && argc - optind < 2)
		usage_error("needs BASE and at least one SOURCE");
}

int main(int argc, char **argv)
{
	int status;

	prog_init(argv[0], synopsis);
	parse_options(argc, argv);
	argc -= optind;
	argv += optind;
	status = opt.split ? split_mode(&opt, argc, argv) : opt.join ?
	         join_mode(&opt, argc, argv) : merge_mode(&opt, argc, argv);
	ckpt_select_free(&opt.sel);
	return finish(status);
}
