/* ckpt-unflatten - a flat vector back into a checkpoint (set_flat). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prog.h"

static const char synopsis[] = "[options] -o OUT [FLAT]";

static struct options {
	const char *out, *template, *manifest, *flat;
	int force, quiet, verbose, progress, big_endian, keep_storage;
	ckpt_dtype dtype;       /* CKPT_OTHER: from the manifest or template */
	ckpt_select sel;
} opt = {.flat = "-"};

static void usage(void)
{
	printf("usage: %s %s\n"
	       "Turn a flat vector (from ckpt-flatten, or any program writing the values\n"
	       "in order) back into a checkpoint.  FLAT (default: standard input) is a\n"
	       "bundle, recognised by its content, or a raw stream, whose layout comes\n"
	       "from --template or --manifest.  Its length must match exactly.\n\n"
	       "  -o OUT             output checkpoint ('-' for stdout)\n"
	       "  -f, --force        replace OUT if it exists\n"
	       "  --template CKPT    OUT is CKPT with its numeric variables set, in order,\n"
	       "                     from FLAT; groups, attributes, dtypes, storage kept\n"
	       "  --manifest FILE    OUT has the variables FILE lists (ckpt-flat(5));\n"
	       "                     FLAT is then read as a raw stream\n"
	       "  --dtype T          the type of the values in a raw FLAT (default: the\n"
	       "                     manifest's, or the template's variables' own)\n"
	       "  --big-endian       a raw FLAT holds big-endian values\n"
	       "  --keep-storage     keep the template's lossy filters (scale-offset on\n"
	       "                     floats, zfp, sz, ...); they are left out by default\n"
	       "  --only GLOB        with --template: set only matching variables\n"
	       "  --exclude GLOB     with --template: keep matching variables as they are\n"
	       "  --progress         show progress even when stderr is not a terminal\n"
	       "  -q, --quiet        no warnings, no progress\n"
	       "  -v, --verbose      say what is written\n"
	       "  -h, --help         show this help and exit\n"
	       "  -V, --version      show the version and exit\n",
	       progname, synopsis);
}

enum { OPT_BIG = 256, OPT_DTYPE, OPT_EXCLUDE, OPT_KEEP_STORAGE, OPT_MANIFEST, OPT_ONLY, OPT_PROGRESS,
       OPT_TEMPLATE };

static const struct option longopts[] = {
	{"big-endian", no_argument, NULL, OPT_BIG},
	{"dtype", required_argument, NULL, OPT_DTYPE},
	{"exclude", required_argument, NULL, OPT_EXCLUDE},
	{"force", no_argument, NULL, 'f'},
	{"help", no_argument, NULL, 'h'},
	{"keep-storage", no_argument, NULL, OPT_KEEP_STORAGE},
	{"manifest", required_argument, NULL, OPT_MANIFEST},
	{"only", required_argument, NULL, OPT_ONLY},
	{"output", required_argument, NULL, 'o'},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"quiet", no_argument, NULL, 'q'},
	{"template", required_argument, NULL, OPT_TEMPLATE},
	{"verbose", no_argument, NULL, 'v'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static void parse_options(int argc, char **argv)
{
	int c;

	ckpt_select_init(&opt.sel);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":fho:qvV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': opt.out = optarg; break;
		case 'f': opt.force = 1; break;
		case 'q': opt.quiet = 1; ckpt_set_warn(NULL); break;
		case 'v': opt.verbose = 1; break;
		case OPT_BIG: opt.big_endian = 1; break;
		case OPT_DTYPE:
			if (ckpt_dtype_parse(optarg, &opt.dtype) < 0)
				usage_error("--dtype: %s", ckpt_errmsg());
			break;
		case OPT_EXCLUDE: ckpt_select_exclude(&opt.sel, optarg); break;
		case OPT_KEEP_STORAGE: opt.keep_storage = 1; break;
		case OPT_MANIFEST: opt.manifest = optarg; break;
		case OPT_ONLY: ckpt_select_only(&opt.sel, optarg); break;
		case OPT_PROGRESS: opt.progress = 1; break;
		case OPT_TEMPLATE: opt.template = optarg; break;
		default: common_option(c, usage, argv);
		}
	}
	if (!opt.out)
		usage_error("no output given (-o OUT)");
	if (optind < argc)
		opt.flat = argv[optind++];
	if (optind < argc)
		usage_error("one FLAT input only ('%s' is a second)", argv[optind]);
	if ((opt.sel.nonly || opt.sel.nexclude) && !opt.template)
		usage_error("--only and --exclude go with --template");
	if (opt.template && strcmp(opt.template, "-") == 0 && strcmp(opt.flat, "-") == 0)
		usage_error("the template and FLAT cannot both be standard input");
	if (opt.manifest && strcmp(opt.manifest, "-") == 0 && strcmp(opt.flat, "-") == 0)
		usage_error("the manifest and FLAT cannot both be standard input");
}

/* ---- the layout --------------------------------------------------------- */

struct job {
	ckpt_flat_in *in;
	ckpt_file *template;
	ckpt_flat layout;       /* the variables to write, in order */
	const char *needs;      /* "the template", ... : for messages */
	ckpt_dtype dtype;       /* of the values in FLAT */
	int big_endian;
	uint64_t read;          /* bytes of FLAT read so far */
};

static void read_manifest_file(ckpt_flat *m, const char *path)
{
	int from_stdin = strcmp(path, "-") == 0, fd = from_stdin ? 0 : open(path, O_RDONLY);
	void *text = NULL;
	size_t len;

	if (fd < 0 || ckpt_read_stream(fd, &text, &len) < 0)
		die("%s: %s", from_stdin ? "(stdin)" : path, strerror(errno));
	if (!from_stdin)
		close(fd);
	if (ckpt_flat_parse(m, text, len, from_stdin ? "(stdin)" : path) < 0)
		die_lib();
	free(text);
}

/* What FLAT holds and where each value goes: the template's selected
 * variables, checked against a manifest where there is one; or the
 * manifest's (the bundle's) variables. */
static void plan(struct job *j)
{
	const ckpt_flat *bm = ckpt_flat_in_manifest(j->in);
	ckpt_flat given;
	const char *gname = opt.manifest;

	ckpt_flat_init(&given);
	if (bm && (opt.dtype != CKPT_OTHER || opt.big_endian))
		die("%s: a bundle says what it holds; --dtype and --big-endian are for "
		    "raw input", ckpt_flat_in_name(j->in));
	if (opt.manifest)
		read_manifest_file(&given, opt.manifest);
	else if (bm)
		gname = "the bundle's manifest";
	if (!bm && !opt.manifest && !opt.template)
		die("%s: not a bundle; a raw flat vector needs --template or --manifest",
		    ckpt_flat_in_name(j->in));
	j->dtype = bm ? bm->dtype : given.dtype;
	j->big_endian = bm ? bm->big_endian : given.big_endian;
	if (opt.template) {
		ckpt_file **t = NULL;
		size_t nt = 0;

		/* an archive too (a .keras file), as every input option takes */
		if (ckpt_open_inputs(opt.template, &t, &nt) < 0)
			die_lib();
		if (nt != 1)
			die("%s: holds %zu checkpoints; a template is one", opt.template, nt);
		j->template = t[0];
		free(t);
		if (ckpt_flat_of_file(&j->layout, j->template, &opt.sel) < 0)
			die_lib();
		if (j->layout.n == 0)
			die("%s: no numeric variable%s to set", j->template->name,
			    opt.sel.nonly || opt.sel.nexclude ? " selected" : "");
		if ((bm || opt.manifest) &&
		    ckpt_flat_same_layout(&j->layout, j->template->name, bm ? bm : &given,
		                          gname) < 0)
			die_lib();
		if (!bm && !opt.manifest)
			j->dtype = j->layout.dtype; /* CKPT_OTHER when they differ */
		j->needs = "the template";
		ckpt_flat_free(&given);
	} else if (bm) {
		j->layout = *bm;
		j->needs = "the bundle's manifest";
	} else {
		j->layout = given;
		j->needs = "the manifest";
	}
	if (opt.dtype != CKPT_OTHER)
		j->dtype = opt.dtype;
	if (opt.big_endian)
		j->big_endian = 1;
	if (j->dtype == CKPT_OTHER)
		die("%s: the variables are of several types; say which FLAT holds with "
		    "--dtype", j->template->name);
	j->layout.dtype = j->dtype;
}

/* Stop with both counts: "flat input has 1000 values; the template needs 1002". */
_Noreturn static void wrong_length(const struct job *j, uint64_t bytes)
{
	size_t size = ckpt_dtype_size(j->dtype);

	if (bytes % size)
		die("%s: flat input has %" PRIu64 " bytes, not a whole number of %s "
		    "values; %s needs %" PRIu64 " values", ckpt_flat_in_name(j->in), bytes,
		    ckpt_dtype_name(j->dtype), j->needs, j->layout.count);
	die("%s: flat input has %" PRIu64 " values; %s needs %" PRIu64,
	    ckpt_flat_in_name(j->in), bytes / size, j->needs, j->layout.count);
}

/* ---- the output ----------------------------------------------------------- */

static ckpt_copy_action decide(const ckpt_var *v, ckpt_copy_spec *spec, void *user)
{
	spec->keep_storage = opt.keep_storage;
	return v->dtype != CKPT_OTHER && ckpt_select_match(user, v->name) ?
	       CKPT_COPY_EMPTY : CKPT_COPY_WHOLE;
}

/* Fill one variable from FLAT, slab by slab. */
static size_t fill_var(struct job *j, ckpt_out *o, const ckpt_flat_entry *e,
                       void *raw, void *conv)
{
	size_t fsize = ckpt_dtype_size(j->dtype), bad = 0, odd = 0;
	uint64_t done = 0; /* values so far */
	int swap = j->big_endian != ckpt_host_big_endian(), counted = 0;
	ckpt_var v = {.name = e->name, .dtype = e->dtype, .rank = e->rank,
	              .dims = e->dims, .nelems = e->count};
	ckpt_outvar *ov = ckpt_outvar_open(o, e->name, e->dtype);
	ckpt_cursor c;
	ckpt_region r;

	if (!ov)
		die_lib();
	ckpt_outvar_cursor(ov, &c, &v, 8, CKPT_SLAB_BYTES);
	while (ckpt_cursor_next(&c, &r)) {
		int64_t got = ckpt_flat_in_read(j->in, raw, r.n * fsize);
		const void *vals = raw;

		if (got < 0)
			die_lib();
		j->read += (uint64_t)got;
		if ((size_t)got < r.n * fsize)
			wrong_length(j, j->read);
		if (swap)
			ckpt_swap_bytes(raw, r.n, fsize);
		if (j->dtype == CKPT_BOOL)
			odd += ckpt_bool_normalize(raw, r.n);
		if (e->dtype != j->dtype) {
			bad += ckpt_convert(j->dtype, raw, e->dtype, conv, r.n);
			note_changed(e->name, done, j->dtype, raw, e->dtype, conv, r.n,
			             &counted);
			vals = conv;
		}
		if (ckpt_outvar_write(ov, &r, vals) < 0)
			die_lib();
		done += r.n;
		progress_add((uint64_t)got);
	}
	if (!opt.quiet)
		warn_out_of_range(e->name, bad, e->dtype);
	if (!opt.quiet && odd)
		warn("variable '%s': %zu bool byte%s neither 0 nor 1: stored as true", e->name,
		     odd, odd == 1 ? "" : "s");
	ckpt_outvar_close(ov);
	return bad;
}

/* ---- main --------------------------------------------------------------- */

int main(int argc, char **argv)
{
	struct job j = {0};
	uint64_t need, size, extra;
	ckpt_out *o;
	void *raw, *conv;

	prog_init(argv[0], synopsis);
	parse_options(argc, argv);
	if (!(j.in = ckpt_flat_in_open(opt.flat, opt.manifest != NULL)))
		die_lib();
	plan(&j);
	need = ckpt_flat_bytes(&j.layout);
	if ((size = ckpt_flat_in_size(j.in)) != UINT64_MAX && size != need)
		wrong_length(&j, size);
	if (!(o = ckpt_out_open(opt.out, opt.force, j.template)))
		die_lib();
	if (j.template && ckpt_copy_structure(j.template, o, decide, &opt.sel) < 0)
		die_lib();
	for (size_t i = 0; !j.template && i < j.layout.n; i++)
		if (ckpt_out_create_var(o, j.layout.e[i].name, j.layout.e[i].dtype,
		                        j.layout.e[i].rank, j.layout.e[i].dims) < 0)
			die_lib();
	/* 8 bytes a value: room for any dtype, raw or converted */
	if (!(raw = malloc(CKPT_SLAB_BYTES)) || !(conv = malloc(CKPT_SLAB_BYTES)))
		die("out of memory");
	progress_start(opt.quiet ? -1 : opt.progress, need, "unflattening");
	for (size_t i = 0; i < j.layout.n; i++)
		fill_var(&j, o, &j.layout.e[i], raw, conv);
	progress_end();
	if (ckpt_flat_in_end(j.in, &extra) < 0)
		die_lib();
	if (extra)
		wrong_length(&j, j.read + extra);
	if (ckpt_out_commit(o) < 0)
		die_lib();
	if (!opt.quiet)
		warn_changed();
	if (opt.verbose)
		warn("%zu variable%s set from %" PRIu64 " %s values", j.layout.n,
		     j.layout.n == 1 ? "" : "s", j.layout.count, ckpt_dtype_name(j.dtype));
	free(raw);
	free(conv);
	if (j.template || !ckpt_flat_in_manifest(j.in))
		ckpt_flat_free(&j.layout); /* not the bundle's own */
	ckpt_flat_in_close(j.in);
	ckpt_close(j.template);
	ckpt_select_free(&opt.sel);
	return finish(EXIT_OK);
}
