/* ckpt-flatten - a checkpoint's numeric variables as one flat vector. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "prog.h"

static const char synopsis[] = "[options] INPUT";

static struct options {
	const char *out, *manifest, *compress;
	int force, quiet, verbose, progress, big_endian, bundle, size;
	ckpt_dtype dtype;       /* CKPT_OTHER: the variables' common type */
	ckpt_select sel;
} opt = {.out = "-"};

static void usage(void)
{
	printf("usage: %s %s\n"
	       "Write the values of a checkpoint's numeric variables, in order, each in C\n"
	       "order, as one flat vector: a raw stream of one element type, or a bundle\n"
	       "(tar: manifest, data, checksum) that ckpt-unflatten turns back into a\n"
	       "checkpoint.  INPUT may be '-'.  Formats: ckpt-flat(5).\n\n"
	       "  -o OUT             write to OUT instead of standard output\n"
	       "  -f, --force        replace OUT (and the manifest) if they exist\n"
	       "  --dtype T          convert every value to T (f16 bf16 f32 f64 i8..u64\n"
	       "                     bool); needed when the variables' types differ\n"
	       "  --big-endian       write big-endian values (default little-endian)\n"
	       "  --manifest FILE    also write the layout as TSV to FILE\n"
	       "  --bundle           write a tar bundle instead of a raw stream\n"
	       "  --compress C       compress the bundle: gzip zstd xz bzip2 lz4 none\n"
	       "                     (default: by OUT's suffix, .tar.gz .tar.zst ...)\n"
	       "  --size             print the number of values only (get_flat_size)\n"
	       "  --only GLOB        flatten only matching variables (repeatable)\n"
	       "  --exclude GLOB     leave matching variables out (repeatable)\n"
	       "  --strip-prefix P   remove prefix P from the names in the manifest\n"
	       "  --add-prefix P     prepend P to the names in the manifest\n"
	       "  --progress         show progress even when stderr is not a terminal\n"
	       "  -q, --quiet        no warnings, no progress\n"
	       "  -v, --verbose      say what is written\n"
	       "  -h, --help         show this help and exit\n"
	       "  -V, --version      show the version and exit\n",
	       progname, synopsis);
}

enum {
	OPT_ADD = 256, OPT_BIG, OPT_BUNDLE, OPT_COMPRESS, OPT_DTYPE, OPT_EXCLUDE,
	OPT_MANIFEST, OPT_ONLY, OPT_PROGRESS, OPT_SIZE, OPT_STRIP,
};

static const struct option longopts[] = {
	{"add-prefix", required_argument, NULL, OPT_ADD},
	{"big-endian", no_argument, NULL, OPT_BIG},
	{"bundle", no_argument, NULL, OPT_BUNDLE},
	{"compress", required_argument, NULL, OPT_COMPRESS},
	{"dtype", required_argument, NULL, OPT_DTYPE},
	{"exclude", required_argument, NULL, OPT_EXCLUDE},
	{"force", no_argument, NULL, 'f'},
	{"help", no_argument, NULL, 'h'},
	{"manifest", required_argument, NULL, OPT_MANIFEST},
	{"only", required_argument, NULL, OPT_ONLY},
	{"output", required_argument, NULL, 'o'},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"quiet", no_argument, NULL, 'q'},
	{"size", no_argument, NULL, OPT_SIZE},
	{"strip-prefix", required_argument, NULL, OPT_STRIP},
	{"verbose", no_argument, NULL, 'v'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static const char *const compressions[] = {"gzip", "zstd", "xz", "bzip2", "lz4", "none"};

/* The same name, or two names of one existing file. */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return strcmp(a, b) == 0 || (stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	                             sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

static void parse_options(int argc, char **argv)
{
	int c, have_out = 0;

	ckpt_select_init(&opt.sel);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":fho:qvV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': opt.out = optarg; have_out = 1; break;
		case 'f': opt.force = 1; break;
		case 'q': opt.quiet = 1; ckpt_set_warn(NULL); break;
		case 'v': opt.verbose = 1; break;
		case OPT_ADD: opt.sel.add_prefix = optarg; break;
		case OPT_BIG: opt.big_endian = 1; break;
		case OPT_BUNDLE: opt.bundle = 1; break;
		case OPT_COMPRESS: opt.compress = optarg; break;
		case OPT_DTYPE:
			if (ckpt_dtype_parse(optarg, &opt.dtype) < 0)
				usage_error("--dtype: %s", ckpt_errmsg());
			break;
		case OPT_EXCLUDE: ckpt_select_exclude(&opt.sel, optarg); break;
		case OPT_MANIFEST: opt.manifest = optarg; break;
		case OPT_ONLY: ckpt_select_only(&opt.sel, optarg); break;
		case OPT_PROGRESS: opt.progress = 1; break;
		case OPT_SIZE: opt.size = 1; break;
		case OPT_STRIP: opt.sel.strip_prefix = optarg; break;
		default: common_option(c, usage, argv);
		}
	}
	if (optind >= argc)
		usage_error("no INPUT given");
	if (optind + 1 < argc)
		usage_error("one INPUT only ('%s' is a second)", argv[optind + 1]);
	if (opt.size && (have_out || opt.bundle || opt.manifest))
		usage_error("--size prints a number; it takes no -o, --bundle "
		            "or --manifest");
	if (opt.compress && !opt.bundle)
		usage_error("--compress goes with --bundle");
	if (opt.manifest && opt.bundle)
		usage_error("a bundle holds its manifest; --manifest goes with "
		            "a raw stream");
	if (opt.manifest && strcmp(opt.manifest, "-") == 0 && strcmp(opt.out, "-") == 0)
		usage_error("--manifest - and the values cannot both go to "
		            "standard output");
	if (opt.manifest && strcmp(opt.manifest, "-") != 0 && same_file(opt.manifest, opt.out))
		usage_error("--manifest and -o name the same file");
	if (opt.compress) {
		size_t i = 0;

		while (i < sizeof compressions / sizeof *compressions &&
		       strcmp(opt.compress, compressions[i]) != 0)
			i++;
		if (i == sizeof compressions / sizeof *compressions)
			usage_error("--compress: unknown compression '%s' (gzip, "
			            "zstd, xz, bzip2, lz4 or none)", opt.compress);
	}
}

/* ---- writing ------------------------------------------------------------ */

struct dest {
	ckpt_sink *sink;
	ckpt_bundle *bundle;
};

static void emit(struct dest *d, const void *buf, size_t n)
{
	if ((d->bundle ? ckpt_bundle_write(d->bundle, buf, n)
	               : ckpt_sink_write(d->sink, buf, n)) < 0)
		die_lib();
}

/* One variable's values, slab by slab: as they are read when they already
 * are what the flat vector holds, converted otherwise. */
static void flatten_var(const ckpt_file *f, const ckpt_flat_entry *e,
                        const ckpt_flat *m, struct dest *d)
{
	int swap = m->big_endian != ckpt_host_big_endian();
	size_t size = ckpt_dtype_size(m->dtype), bad = 0;
	int counted = 0;
	void *buf = NULL;
	ckpt_slab s;
	int rc;

	if (ckpt_slab_open(&s, f, e->var, CKPT_SLAB_BYTES) < 0)
		die_lib();
	if ((e->dtype != m->dtype || swap) && !(buf = malloc(s.cap * size + 1)))
		die("out of memory");
	while ((rc = ckpt_slab_next(&s)) > 0) {
		const void *out = s.buf;

		if (buf) {
			bad += ckpt_convert(e->dtype, s.buf, m->dtype, buf, s.count);
			note_changed(e->var->name, s.start, e->dtype, s.buf, m->dtype, buf,
			             s.count, &counted);
			if (swap)
				ckpt_swap_bytes(buf, s.count, size);
			out = buf;
		}
		emit(d, out, s.count * size);
		progress_add(s.count * ckpt_dtype_size(e->dtype));
	}
	if (rc < 0)
		die_lib();
	if (!opt.quiet)
		warn_out_of_range(e->var->name, bad, m->dtype);
	ckpt_slab_close(&s);
	free(buf);
}

static void write_manifest(ckpt_sink *sink, const ckpt_flat *m)
{
	size_t len;
	char *text = ckpt_flat_format(m, &len);

	if (!text || ckpt_sink_write(sink, text, len) < 0)
		die_lib();
	free(text);
}

/* The flat vector's type: --dtype, or the one all variables share. */
static ckpt_dtype flat_dtype(const ckpt_file *f, const ckpt_flat *m)
{
	const char *a, *b = NULL;

	if (opt.dtype != CKPT_OTHER)
		return opt.dtype;
	if (m->dtype != CKPT_OTHER)
		return m->dtype;
	a = ckpt_dtype_name(m->e[0].dtype);
	for (size_t i = 1; i < m->n && !b; i++)
		if (m->e[i].dtype != m->e[0].dtype)
			b = ckpt_dtype_name(m->e[i].dtype);
	die("%s: the variables are of several types (%s, %s, ...); choose the "
	    "flat vector's with --dtype", f->name, a, b);
}

/* Write the flat vector (and its manifest) of the variables m lists. */
static void flatten(const ckpt_file *f, ckpt_flat *m)
{
	struct dest d = {0};
	ckpt_sink *msink = NULL;
	uint64_t total = 0;

	m->dtype = flat_dtype(f, m);
	m->big_endian = opt.big_endian;
	if (!(d.sink = ckpt_sink_open(opt.out, opt.force, opt.bundle ? "a bundle" :
	                              "a flat vector")))
		die_lib();
	if (opt.manifest && !(msink = ckpt_sink_open(opt.manifest, opt.force, NULL)))
		die_lib();
	if (opt.bundle && !(d.bundle = ckpt_bundle_create(d.sink, opt.compress ?
	                    opt.compress : ckpt_bundle_compression(opt.out), m)))
		die_lib();
	for (size_t i = 0; i < m->n; i++)
		total += m->e[i].var->nbytes;
	progress_start(opt.quiet ? -1 : opt.progress, total, "flattening");
	for (size_t i = 0; i < m->n; i++)
		flatten_var(f, &m->e[i], m, &d);
	progress_end();
	if (d.bundle && ckpt_bundle_finish(d.bundle) < 0)
		die_lib();
	if (msink) {
		write_manifest(msink, m);
		if (ckpt_sink_commit(msink) < 0)
			die_lib();
	}
	if (ckpt_sink_commit(d.sink) < 0)
		die_lib();
	if (!opt.quiet)
		warn_changed();
	if (opt.verbose)
		warn("%zu variable%s, %" PRIu64 " %s values (%" PRIu64 " bytes)", m->n,
		     m->n == 1 ? "" : "s", m->count, ckpt_dtype_name(m->dtype),
		     ckpt_flat_bytes(m));
}

/* ---- main --------------------------------------------------------------- */

int main(int argc, char **argv)
{
	ckpt_file **in = NULL;
	size_t nin = 0;
	ckpt_flat m;

	prog_init(argv[0], synopsis);
	parse_options(argc, argv);
	if (ckpt_open_inputs(argv[optind], &in, &nin) < 0)
		die_lib();
	if (nin != 1)
		die("%s: holds %zu checkpoints; ckpt-flatten takes one", argv[optind], nin);
	if (ckpt_flat_of_file(&m, in[0], &opt.sel) < 0)
		die_lib();
	if (m.n == 0)
		die("%s: no numeric variable%s to flatten", in[0]->name,
		    opt.sel.nonly || opt.sel.nexclude ? " selected" : "");
	if (opt.size)
		printf("%" PRIu64 "\n", m.count);
	else
		flatten(in[0], &m);
	ckpt_flat_free(&m);
	ckpt_close_inputs(in, nin);
	ckpt_select_free(&opt.sel);
	return finish(EXIT_OK);
}