/* ckpt-diff - compare two checkpoints; exit 0 same, 1 different, 2 trouble. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "prog.h"

static const char synopsis[] = "[options] A B";

static struct options {
	int quiet, stats, json, progress;
	uint64_t list;          /* -n: differing elements listed per variable */
	ckpt_tol tol;
	ckpt_select sel;
} opt;

static void usage(void)
{
	printf("usage: %s %s\n"
	       "Compare the variables of two checkpoints (either may be '-').  Exit status\n"
	       "0 when nothing differs, 1 when something does, 2 on trouble.\n\n"
	       "  --atol X           equal when |a - b| <= atol + rtol * |b|\n"
	       "  --rtol Y           (combined as in numpy.isclose)\n"
	       "  --ulps N           also equal within N units in the last place\n"
	       "  --bitwise          compare stored bytes, not values\n"
	       "  -n N               list the first N differing elements of each variable\n"
	       "  --stats            also list equal variables; add cosine similarity and\n"
	       "                     relative L2 distance\n"
	       "  --json             one JSON document\n"
	       "  --only GLOB        compare only matching variables (repeatable)\n"
	       "  --exclude GLOB     leave out matching variables (repeatable)\n"
	       "  --strip-prefix P   remove prefix P from the names of both sides\n"
	       "  --add-prefix P     add prefix P to the names of both sides\n"
	       "  --progress         show progress even when stderr is not a terminal\n"
	       "  -q, --quiet        print nothing; only the exit status\n"
	       "  -h, --help         show this help and exit\n"
	       "  -V, --version      show the version and exit\n",
	       progname, synopsis);
}

enum { OPT_ATOL = 256, OPT_RTOL, OPT_ULPS, OPT_BITWISE, OPT_STATS, OPT_JSON,
       OPT_ONLY, OPT_EXCLUDE, OPT_STRIP, OPT_ADD, OPT_PROGRESS };

static const struct option longopts[] = {
	{"add-prefix", required_argument, NULL, OPT_ADD},
	{"atol", required_argument, NULL, OPT_ATOL},
	{"bitwise", no_argument, NULL, OPT_BITWISE},
	{"exclude", required_argument, NULL, OPT_EXCLUDE},
	{"help", no_argument, NULL, 'h'},
	{"json", no_argument, NULL, OPT_JSON},
	{"only", required_argument, NULL, OPT_ONLY},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"quiet", no_argument, NULL, 'q'},
	{"rtol", required_argument, NULL, OPT_RTOL},
	{"stats", no_argument, NULL, OPT_STATS},
	{"strip-prefix", required_argument, NULL, OPT_STRIP},
	{"ulps", required_argument, NULL, OPT_ULPS},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static double parse_tolerance(const char *o, const char *s)
{
	double v = parse_real(o, s);

	if (v < 0)
		usage_error("%s: %s is negative", o, s);
	return v;
}

static void parse_options(int argc, char **argv)
{
	int c;

	ckpt_select_init(&opt.sel);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hn:qV", longopts, NULL)) != -1) {
		switch (c) {
		case 'q': opt.quiet = 1; ckpt_set_warn(NULL); break;
		case 'n': opt.list = parse_count("-n", optarg, 0, UINT64_MAX); break;
		case OPT_ATOL: opt.tol.atol = parse_tolerance("--atol", optarg); break;
		case OPT_RTOL: opt.tol.rtol = parse_tolerance("--rtol", optarg); break;
		case OPT_ULPS:
			opt.tol.ulps = parse_count("--ulps", optarg, 0, UINT64_MAX);
			opt.tol.use_ulps = 1;
			break;
		case OPT_BITWISE: opt.tol.bitwise = 1; break;
		case OPT_STATS: opt.stats = 1; break;
		case OPT_PROGRESS: opt.progress = 1; break;
		case OPT_JSON: opt.json = 1; break;
		case OPT_ONLY: ckpt_select_only(&opt.sel, optarg); break;
		case OPT_EXCLUDE: ckpt_select_exclude(&opt.sel, optarg); break;
		case OPT_STRIP: opt.sel.strip_prefix = optarg; break;
		case OPT_ADD: opt.sel.add_prefix = optarg; break;
		default: common_option(c, usage, argv);
		}
	}
	if (argc - optind != 2)
		usage_error(argc - optind < 2 ? "two checkpoints are needed"
		                                        : "more than two checkpoints given");
	if (strcmp(argv[optind], "-") == 0 && strcmp(argv[optind + 1], "-") == 0)
		usage_error("only one side can be standard input");
	if (opt.tol.bitwise && (opt.tol.atol || opt.tol.rtol || opt.tol.use_ulps))
		usage_error("--bitwise goes without tolerances");
}

/* ---- the sides ------------------------------------------------------------ */

struct side {
	ckpt_file *f;
	char **names;           /* mapped names, by variable (NULL: not selected) */
	const ckpt_var **sorted;/* selected variables by mapped name */
	const char **sorted_names;
	size_t nsel;
	int *matched;
};

static ckpt_file *open_one(const char *path)
{
	ckpt_file **files = NULL;
	size_t n = 0;
	ckpt_file *f;

	if (ckpt_open_inputs(path, &files, &n) < 0)
		die_lib();
	if (n != 1)
		die("%s: holds %zu checkpoints; compare one with one", path, n);
	f = files[0];
	free(files);
	return f;
}

/* A selected variable by its mapped name, for sorting. */
struct mapped {
	const char *name;
	size_t i;
};

static int by_mapped(const void *x, const void *y)
{
	return strcmp(((const struct mapped *)x)->name, ((const struct mapped *)y)->name);
}

static void prepare(struct side *s, const char *path)
{
	struct mapped *idx;

	s->f = open_one(path);
	if (!(s->names = ckpt_select_names(&opt.sel, s->f, 0)))
		die_lib();
	s->matched = calloc(s->f->nvars + 1, sizeof *s->matched);
	idx = calloc(s->f->nvars + 1, sizeof *idx);
	if (!s->matched || !idx)
		die("out of memory");
	for (size_t i = 0; i < s->f->nvars; i++)
		if (s->names[i])
			idx[s->nsel++] = (struct mapped){s->names[i], i};
	qsort(idx, s->nsel, sizeof *idx, by_mapped);
	s->sorted = calloc(s->nsel + 1, sizeof *s->sorted);
	s->sorted_names = calloc(s->nsel + 1, sizeof *s->sorted_names);
	for (size_t k = 0; k < s->nsel; k++) {
		s->sorted[k] = &s->f->vars[idx[k].i];
		s->sorted_names[k] = idx[k].name;
	}
	free(idx);
}

static void release(struct side *s)
{
	ckpt_select_names_free(s->names, s->f->nvars);
	free(s->matched);
	free(s->sorted);
	free(s->sorted_names);
	ckpt_close(s->f);
}

static const ckpt_var *lookup(const struct side *s, const char *mapped)
{
	size_t lo = 0, hi = s->nsel;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(mapped, s->sorted_names[mid]);

		if (c == 0)
			return s->sorted[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* ---- reporting -------------------------------------------------------------- */

static size_t nreported;

static void json_sep(void)
{
	printf("%s\n    ", nreported++ ? "," : "");
}

static void index_text(const ckpt_var *v, uint64_t flat, char *out, size_t size)
{
	uint64_t idx[CKPT_MAX_RANK];
	size_t len;

	for (int d = v->rank - 1; d >= 0; d--) {
		idx[d] = v->dims[d] ? flat % v->dims[d] : 0;
		flat = v->dims[d] ? flat / v->dims[d] : 0;
	}
	len = (size_t)snprintf(out, size, "[");
	for (int d = 0; d < v->rank && len < size; d++)
		len += (size_t)snprintf(out + len, size - len, "%s%" PRIu64, d ? "," : "", idx[d]);
	if (len < size)
		snprintf(out + len, size - len, "]");
}

static void num(const char *key, double v)
{
	char b[CKPT_FMT_MAX];

	printf(", \"%s\": ", key);
	print_json_number(stdout, ckpt_fmt_double(v, CKPT_F64, b));
}

static void report_simple(const char *status, const char *name, const char *text)
{
	if (opt.quiet)
		return;
	if (opt.json) {
		json_sep();
		printf("{\"name\": ");
		print_json_string(stdout, name);
		printf(", \"status\": \"%s\"}", status);
	} else {
		printf("%s\n", text);
	}
}

/* ---- comparing one variable ------------------------------------------------- */

struct listing {
	const ckpt_var *va, *vb;
	const ckpt_slab *sa, *sb;
	uint64_t listed;
	int started;
};

static void list_element(uint64_t index, size_t i, void *user)
{
	struct listing *l = user;
	char at[256], a[CKPT_FMT_MAX], b[CKPT_FMT_MAX];

	if (opt.quiet || l->listed >= opt.list)
		return;
	index_text(l->va, index, at, sizeof at);
	ckpt_fmt_elem(l->va->dtype, l->sa->buf, i, a);
	ckpt_fmt_elem(l->vb->dtype, l->sb->buf, i, b);
	if (opt.json) {
		printf("%s{\"index\": ", l->listed ? ", " : "");
		print_json_string(stdout, at);
		printf(", \"a\": \"%s\", \"b\": \"%s\"}", a, b);
	} else {
		printf("  %s %s %s\n", at, a, b);
	}
	l->listed++;
}

/* The second half of a slab, compared by another thread. */
struct half {
	ckpt_cmp c;
	ckpt_dtype ta, tb;
	const void *a, *b;
	size_t n;
	uint64_t start;
};

static void *compare_half(void *arg)
{
	struct half *h = arg;

	ckpt_cmp_slab(&h->c, &opt.tol, h->ta, h->a, h->tb, h->b, h->n, h->start,
	              NULL, NULL);
	return NULL;
}

/* Compare one slab pair on both cores (in order, on one, when elements are
 * listed). */
static void compare_slab(ckpt_cmp *c, const ckpt_var *va, const ckpt_slab *sa,
                         const ckpt_var *vb, const ckpt_slab *sb,
                         struct listing *l)
{
	size_t n = sa->count, first = n / 2;
	struct half h;
	pthread_t t;

	if (opt.list || n < (1u << 16)) {
		ckpt_cmp_slab(c, &opt.tol, va->dtype, sa->buf, vb->dtype, sb->buf, n,
		              sa->start, opt.list ? list_element : NULL, l);
		return;
	}
	ckpt_cmp_init(&h.c, c->products);
	h.ta = va->dtype;
	h.tb = vb->dtype;
	h.a = (const char *)sa->buf + first * ckpt_dtype_size(va->dtype);
	h.b = (const char *)sb->buf + first * ckpt_dtype_size(vb->dtype);
	h.n = n - first;
	h.start = sa->start + first;
	if (pthread_create(&t, NULL, compare_half, &h) != 0) {
		ckpt_cmp_slab(c, &opt.tol, va->dtype, sa->buf, vb->dtype, sb->buf, n,
		              sa->start, NULL, NULL);
		return;
	}
	ckpt_cmp_slab(c, &opt.tol, va->dtype, sa->buf, vb->dtype, sb->buf, first,
	              sa->start, NULL, NULL);
	pthread_join(t, NULL);
	ckpt_cmp_merge(c, &h.c);
}

/* Streams both variables; returns 1 when they differ. */
static int compare_values(const ckpt_file *fa, const ckpt_var *va,
                          const ckpt_file *fb, const ckpt_var *vb,
                          const char *name, int dtype_differs)
{
	ckpt_slab sa, sb;
	ckpt_cmp c;
	struct listing l = {va, vb, &sa, &sb, 0, 0};
	char at[256], t[4][CKPT_FMT_MAX];
	int ra, rb, differs;

	ckpt_cmp_init(&c, opt.stats);
	if (ckpt_slab_open(&sa, fa, va, CKPT_SLAB_BYTES) < 0 ||
	    ckpt_slab_open(&sb, fb, vb, CKPT_SLAB_BYTES) < 0 ||
	    ckpt_slab_follow(&sb, &sa) < 0)
		die_lib();
	if (opt.json && !opt.quiet && opt.list) {
		json_sep();
		printf("{\"name\": ");
		print_json_string(stdout, name);
		printf(", \"elements_listed\": [");
		l.started = 1;
	}
	while ((ra = ckpt_slab_next(&sa)) > 0 && (rb = ckpt_slab_next(&sb)) > 0) {
		compare_slab(&c, va, &sa, vb, &sb, &l);
		progress_add(sa.count * ckpt_dtype_size(va->dtype));
	}
	if (ra < 0 || (ra > 0 && rb < 0))
		die_lib();
	ckpt_slab_close(&sa);
	ckpt_slab_close(&sb);
	differs = c.ndiff > 0 || dtype_differs;
	if (opt.quiet || (!differs && !opt.stats))
		goto out;
	index_text(va, c.max_abs_at, at, sizeof at);
	ckpt_fmt_double(c.max_abs, CKPT_F64, t[0]);
	ckpt_fmt_double(c.max_rel, CKPT_F64, t[1]);
	ckpt_fmt_double(ckpt_cmp_rms(&c), CKPT_F64, t[2]);
	if (opt.json) {
		if (l.started) {
			printf("], ");
		} else {
			json_sep();
			printf("{\"name\": ");
			print_json_string(stdout, name);
			printf(", ");
		}
		printf("\"status\": \"%s\", \"elements\": %" PRIu64 ", \"differ\": %" PRIu64,
		       c.ndiff ? "values" : dtype_differs ? "dtype" : "equal", c.count, c.ndiff);
		if (dtype_differs)
			printf(", \"dtype_a\": \"%s\", \"dtype_b\": \"%s\"", va->type, vb->type);
		if (c.ndiff) {
			num("max_abs_diff", c.max_abs);
			printf(", \"max_abs_diff_at\": \"%s\"", at);
			num("max_rel_diff", c.max_rel);
			num("rms_diff", ckpt_cmp_rms(&c));
		}
		if (opt.stats) {
			num("cosine", ckpt_cmp_cosine(&c));
			num("rel_l2", ckpt_cmp_rel_l2(&c));
		}
		putchar('}');
		goto out;
	}
	if (dtype_differs)
		printf("%s: dtype %s in %s, %s in %s\n", name, va->type, fa->name, vb->type,
		       fb->name);
	if (c.ndiff)
		printf("%s: %" PRIu64 " of %" PRIu64 " elements differ; max abs diff %s at %s,"
		       " max rel diff %s, rms diff %s", name, c.ndiff, c.count, t[0], at, t[1],
		       t[2]);
	else if (!dtype_differs || opt.stats)
		printf("%s: %s", name, dtype_differs ? "values equal" : "equal");
	if (opt.stats) {
		ckpt_fmt_double(ckpt_cmp_cosine(&c), CKPT_F64, t[0]);
		ckpt_fmt_double(ckpt_cmp_rel_l2(&c), CKPT_F64, t[1]);
		printf("%scosine %s, rel l2 %s", c.ndiff ? "; " : ": ", t[0], t[1]);
	}
	if (c.ndiff || !dtype_differs || opt.stats)
		putchar('\n');
out:
	return differs;
}

static int compare_var(struct side *a, size_t i, struct side *b)
{
	const ckpt_var *va = &a->f->vars[i], *vb = lookup(b, a->names[i]);
	const char *name = a->names[i];
	char text[1024], sa[256], sb[256];

	if (!vb) {
		snprintf(text, sizeof text, "only in %s: %s", a->f->name, name);
		report_simple("only_a", name, text);
		return 1;
	}
	b->matched[vb - b->f->vars] = 1;
	if (!ckpt_same_shape(va, vb)) {
		snprintf(text, sizeof text, "%s: shape %s in %s, %s in %s", name,
		         ckpt_shape_str(va, sa, sizeof sa), a->f->name,
		         ckpt_shape_str(vb, sb, sizeof sb), b->f->name);
		report_simple("shape", name, text);
		return 1;
	}
	if (va->dtype != CKPT_OTHER && vb->dtype != CKPT_OTHER)
		return compare_values(a->f, va, b->f, vb, name,
		                      strcmp(va->type, vb->type) != 0);
	if (strcmp(va->type, vb->type) != 0) {
		snprintf(text, sizeof text, "%s: dtype %s in %s, %s in %s", name, va->type,
		         a->f->name, vb->type, b->f->name);
		report_simple("dtype", name, text);
		return 1;
	}
	/* non-numeric: the same bytes, or for strings the same text */
	switch (ckpt_vars_same(a->f, va, b->f, vb)) {
	case -1:
		die_lib();
	case 0:
		snprintf(text, sizeof text, "%s: values (%s) differ", name, va->type);
		report_simple("values", name, text);
		return 1;
	case CKPT_NOT_COMPARABLE:
		snprintf(text, sizeof text, "%s: %s values cannot be compared", name,
		         va->type);
		report_simple("not_comparable", name, text);
		return 1;
	}
	if (opt.stats) {
		snprintf(text, sizeof text, "%s: equal", name);
		report_simple("equal", name, text);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct side a = {0}, b = {0};
	size_t compared, differ, only_a, only_b = 0, lo, hi;
	uint64_t total = 0, counts[4] = {0}, *weight;
	char text[1024];

	prog_init(argv[0], synopsis);
	parse_options(argc, argv);
	prepare(&a, argv[optind]);
	prepare(&b, argv[optind + 1]);
	if (opt.json && !opt.quiet) {
		printf("{\"a\": ");
		print_json_string(stdout, a.f->name);
		printf(", \"b\": ");
		print_json_string(stdout, b.f->name);
		printf(", \"variables\": [");
	}
	/* under MPI each rank compares a run of the variables; their reports
	 * come out in order, as one process writes them */
	if (!(weight = calloc(a.f->nvars + 1, sizeof *weight)))
		die("out of memory");
	for (size_t i = 0; i < a.f->nvars; i++) {
		const ckpt_var *vb = a.names[i] ? lookup(&b, a.names[i]) : NULL;

		if (vb)
			b.matched[vb - b.f->vars] = 1;
		if (a.names[i])
			weight[i] = a.f->vars[i].nbytes;
	}
	rank_share(weight, a.f->nvars, &lo, &hi);
	for (size_t i = lo; i < hi; i++)
		if (a.names[i] && a.f->vars[i].dtype != CKPT_OTHER)
			total += a.f->vars[i].nbytes;
	progress_start(opt.quiet ? -1 : opt.progress, total, "comparing");
	output_begin();
	for (size_t i = lo; i < hi; i++) {
		if (!a.names[i])
			continue;
		if (!lookup(&b, a.names[i]))
			counts[2]++;
		else
			counts[0]++;
		counts[1] += (uint64_t)compare_var(&a, i, &b);
	}
	counts[3] = nreported;
	output_end(opt.json ? "," : NULL);
	progress_end();
	if (ckpt_par_sum_u64(counts, 4) < 0)
		die_lib();
	compared = (size_t)counts[0];
	differ = (size_t)counts[1];
	only_a = (size_t)counts[2];
	nreported = (size_t)counts[3];
	for (size_t i = 0; i < b.f->nvars; i++) {
		if (!b.names[i] || b.matched[i])
			continue;
		snprintf(text, sizeof text, "only in %s: %s", b.f->name, b.names[i]);
		report_simple("only_b", b.names[i], text);
		only_b++;
		differ++;
	}
	if (opt.json && !opt.quiet)
		printf("\n  ], \"compared\": %zu, \"differ\": %zu, \"only_a\": %zu, "
		       "\"only_b\": %zu, \"same\": %s}\n", compared, differ - only_a - only_b,
		       only_a, only_b, differ ? "false" : "true");
	else if (!opt.quiet)
		printf("%zu variable%s compared, %zu differ; %zu only in %s, %zu only in %s\n",
		       compared, compared == 1 ? "" : "s", differ - only_a - only_b, only_a,
		       a.f->name, only_b, b.f->name);
	release(&a);
	release(&b);
	free(weight);
	ckpt_select_free(&opt.sel);
	return finish(differ ? EXIT_DIFFER : EXIT_OK);
}
