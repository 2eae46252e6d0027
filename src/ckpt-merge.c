/* ckpt-merge - set named variables of a checkpoint from others; shards. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "prog.h"

static const char synopsis[] = "[options] -o OUT BASE SOURCE... | --split K -o PATTERN "
                               "INPUT | --join -o OUT SHARD...";

static struct options {
	const char *out;
	int force, quiet, verbose, cast, strict, add, dry_run, join, keep_storage;
	size_t split;           /* 0: not splitting */
	ckpt_shard_by by;
	ckpt_select sel;
} opt;

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
	       "  --split K          write INPUT as K shards, PATTERN with a %%d\n"
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
				usage_error(synopsis, "--by: '%s' is not round-robin or size", optarg);
			break;
		case OPT_CAST: opt.cast = 1; break;
		case OPT_EXCLUDE: ckpt_select_exclude(&opt.sel, optarg); break;
		case OPT_JOIN: opt.join = 1; break;
		case OPT_KEEP_STORAGE: opt.keep_storage = 1; break;
		case OPT_ONLY: ckpt_select_only(&opt.sel, optarg); break;
		case OPT_RENAME:
			if (ckpt_select_rename(&opt.sel, optarg) < 0)
				usage_error(synopsis, "%s", ckpt_errmsg());
			break;
		case OPT_SPLIT:
			opt.split = (size_t)parse_count("--split", optarg, 1, 256);
			break;
		case OPT_STRICT: opt.strict = 1; break;
		case OPT_STRIP: opt.sel.strip_prefix = optarg; break;
		default: common_option(c, synopsis, usage, argv);
		}
	}
	modes = (opt.split > 0) + opt.join;
	if (modes > 1)
		usage_error(synopsis, "--split and --join are separate jobs");
	if (!opt.out && !opt.dry_run)
		usage_error(synopsis, "no output given (-o OUT)");
	if (opt.strict && opt.add)
		usage_error(synopsis, "--strict and --add contradict each other");
	if (modes && (opt.sel.nonly || opt.sel.nexclude || opt.sel.nrename || opt.cast ||
	              opt.strict || opt.add || opt.sel.strip_prefix || opt.sel.add_prefix))
		usage_error(synopsis, "--split and --join take no name options");
	if (opt.split && optind + 1 != argc)
		usage_error(synopsis, "--split takes one INPUT");
	if (opt.split && opt.out && !one_number(opt.out))
		usage_error(synopsis, "-o PATTERN needs exactly one %%d (and %%%% for a %%)");
	if (opt.join && optind >= argc)
		usage_error(synopsis, "no SHARD given");
	if (!modes && argc - optind < 2)
		usage_error(synopsis, "needs BASE and at least one SOURCE");
}

/* ---- merging: the plan ---------------------------------------------------- */

struct pick {
	size_t src;             /* index into in[], SIZE_MAX: none */
	const ckpt_var *v;      /* the SOURCE's variable */
	char *name;             /* added: its name in the output */
};

struct plan {
	ckpt_file *base;
	ckpt_file **src;
	size_t nsrc;
	struct pick *from;      /* per variable of base */
	struct pick *added;
	size_t nadded, replaced, ignored;
};

/* The mapped name of each variable of f, NULL for those not selected; two
 * selected names mapped onto one, or one inside another, is an error. */
static char **mapped_names(const ckpt_file *f)
{
	char **m = calloc(f->nvars + 1, sizeof *m);
	const char **sel = malloc((f->nvars + 1) * sizeof *sel);
	size_t *at = malloc((f->nvars + 1) * sizeof *at), n = 0, x, y;
	int kind;

	if (!m || !sel || !at)
		die("out of memory");
	for (size_t i = 0; i < f->nvars; i++) {
		if (!(m[i] = ckpt_select_map(&opt.sel, f->vars[i].name)))
			die("out of memory");
		if (!ckpt_select_match(&opt.sel, m[i])) {
			free(m[i]);
			m[i] = NULL;
		} else {
			at[n] = i;
			sel[n++] = m[i];
		}
	}
	if ((kind = ckpt_names_clash(sel, n, &x, &y)) < 0)
		die_lib();
	if (kind == CKPT_NAMES_TWICE)
		die("%s: the name options map '%s' and '%s' onto one name, '%s'",
		    f->name, f->vars[at[x]].name, f->vars[at[y]].name, sel[x]);
	if (kind == CKPT_NAMES_NESTED)
		die("%s: after the name options, '%s' (from '%s') lies inside variable "
		    "'%s' (from '%s'), which cannot also be a group", f->name, sel[y],
		    f->vars[at[y]].name, sel[x], f->vars[at[x]].name);
	free(sel);
	free(at);
	return m;
}

/* Added variables must fit beside BASE's: not inside one of them, nor
 * around them. */
static void check_added(const struct plan *p)
{
	size_t nb = p->base->nvars, x, y;
	const char **names = malloc((nb + p->nadded + 1) * sizeof *names);
	int kind;

	if (!names)
		die("out of memory");
	for (size_t i = 0; i < nb; i++)
		names[i] = p->base->vars[i].name;
	for (size_t i = 0; i < p->nadded; i++)
		names[nb + i] = p->added[i].name;
	if ((kind = ckpt_names_clash(names, nb + p->nadded, &x, &y)) < 0)
		die_lib();
	if (kind == CKPT_NAMES_NESTED && y >= nb) {
		const struct pick *pk = &p->added[y - nb];
		const ckpt_file *of = x < nb ? p->base : p->src[p->added[x - nb].src];

		die("%s: variable '%s' cannot be added as '%s': inside variable '%s' "
		    "(of %s), which cannot also be a group", p->src[pk->src]->name,
		    pk->v->name, pk->name, names[x], of->name);
	}
	if (kind == CKPT_NAMES_NESTED) {
		const struct pick *pk = &p->added[x - nb];

		die("%s: variable '%s' cannot be added as '%s': variable '%s' of %s "
		    "lies inside it, and it cannot be a group", p->src[pk->src]->name,
		    pk->v->name, pk->name, names[y], p->base->name);
	}
	free(names);
}

static void check_fit(const struct plan *p, const ckpt_file *f, const ckpt_var *v,
                      const ckpt_var *b)
{
	char sa[256], sb[256];

	if (!ckpt_same_shape(v, b))
		die("%s: variable '%s' has shape %s, %s has %s", f->name, v->name,
		    ckpt_shape_str(v, sa, sizeof sa), p->base->name,
		    ckpt_shape_str(b, sb, sizeof sb));
	if (strcmp(v->type, b->type) == 0)
		return;
	if (v->dtype == CKPT_OTHER || b->dtype == CKPT_OTHER)
		die("%s: variable '%s' is %s, %s has %s, which cannot be converted",
		    f->name, v->name, v->type, p->base->name, b->type);
	if (!opt.cast)
		die("%s: variable '%s' is %s, %s has %s (--cast converts)", f->name,
		    v->name, v->type, p->base->name, b->type);
}

static void add_var(struct plan *p, size_t k, const ckpt_var *v, char *name)
{
	if (!(p->added = realloc(p->added, (p->nadded + 1) * sizeof *p->added)))
		die("out of memory");
	p->added[p->nadded++] = (struct pick){k, v, name};
}

static int by_name_then_place(const void *a, const void *b)
{
	const struct pick *const *x = a, *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);

	return c ? c : *x < *y ? -1 : *x > *y;
}

/* A name added by several SOURCEs: the last one wins, in the place of the
 * first. */
static void one_per_name(struct plan *p)
{
	struct pick **order = malloc((p->nadded + 1) * sizeof *order);
	size_t n = 0;

	if (!order)
		die("out of memory");
	for (size_t i = 0; i < p->nadded; i++)
		order[i] = &p->added[i];
	qsort(order, p->nadded, sizeof *order, by_name_then_place);
	for (size_t i = 0, j; i < p->nadded; i = j) {
		for (j = i + 1; j < p->nadded && strcmp(order[i]->name, order[j]->name) == 0; j++) {
			free(order[i]->name);
			order[i]->src = order[j]->src;
			order[i]->v = order[j]->v;
			order[i]->name = order[j]->name;
			order[j]->name = NULL; /* taken */
		}
	}
	for (size_t i = 0; i < p->nadded; i++)
		if (p->added[i].name)
			p->added[n++] = p->added[i];
	p->nadded = n;
	free(order);
}

static void plan_source(struct plan *p, size_t k)
{
	const ckpt_file *f = p->src[k];
	char **m = mapped_names(f);

	for (size_t i = 0; i < f->nvars; i++) {
		const ckpt_var *v = &f->vars[i], *b;

		if (!m[i])
			continue;
		if ((b = ckpt_find(p->base, m[i]))) {
			check_fit(p, f, v, b);
			p->from[b - p->base->vars] = (struct pick){k, v, NULL};
			free(m[i]);
		} else if (opt.strict) {
			die("%s: variable '%s'%s%s%s is not in %s (--strict)", f->name, v->name,
			    strcmp(v->name, m[i]) ? " (as '" : "",
			    strcmp(v->name, m[i]) ? m[i] : "", strcmp(v->name, m[i]) ? "')" : "",
			    p->base->name);
		} else if (opt.add) {
			add_var(p, k, v, m[i]);
		} else {
			p->ignored++;
			free(m[i]);
		}
	}
	free(m);
}

/* ---- merging: when nothing matches, a hint ------------------------------ */

/* The first path component of name, with its '/'; "" if none. */
static size_t first_component(const char *name)
{
	const char *slash = strchr(name, '/');

	return slash ? (size_t)(slash - name) + 1 : 0;
}

/* name without "_<digits>" at the end of each component, in buf. */
static void without_suffixes(const char *name, char *buf, size_t size)
{
	size_t o = 0;

	for (const char *p = name; *p && o + 1 < size; p++) {
		if (*p == '_' && p[1] >= '0' && p[1] <= '9') {
			const char *q = p + 1;

			while (*q >= '0' && *q <= '9')
				q++;
			if (*q == '/' || *q == 0 || *q == ':') {
				p = q - 1;
				continue;
			}
		}
		buf[o++] = *p;
	}
	buf[o] = 0;
}

/* A hint for sources whose names miss base's: a prefix to strip or to
 * add, or a "_1"-style suffix to rename. */
static void find_hint(const ckpt_file *base, const ckpt_file *src, char *hint, size_t size)
{
	char a[512], b[512];

	*hint = 0;
	for (size_t i = 0; i < src->nvars; i++) {
		char *m = ckpt_select_map(&opt.sel, src->vars[i].name);
		size_t pl = m ? first_component(m) : 0;

		if (!m)
			continue;
		if (pl && ckpt_find(base, m + pl)) {
			snprintf(hint, size, "; try --strip-prefix '%.*s'", (int)pl, m);
			free(m);
			return;
		}
		for (size_t j = 0; j < base->nvars; j++) {
			const char *bn = base->vars[j].name;
			size_t bl = first_component(bn);

			if (bl && strcmp(bn + bl, m) == 0) {
				snprintf(hint, size, "; try --add-prefix '%.*s'", (int)bl, bn);
				free(m);
				return;
			}
			without_suffixes(m, a, sizeof a);
			without_suffixes(bn, b, sizeof b);
			if (strcmp(a, b) == 0) {
				size_t k = 0; /* the first component where they differ */

				for (size_t x = 0; m[x] && m[x] == bn[x]; x++)
					if (m[x] == '/')
						k = x + 1;
				const char *ms = strchr(m + k, '/'), *bs = strchr(bn + k, '/');
				if (ms && bs)
					snprintf(hint, size, "; try --rename '%.*s/*=%.*s/*'",
					         (int)(ms - m), m, (int)(bs - bn), bn);
				else
					snprintf(hint, size, "; try --rename '%s=%s'", m, bn);
				free(m);
				return;
			}
		}
		free(m);
	}
}

/* A few names of f, quoted, for a message. */
static void some_names(const ckpt_file *f, char *buf, size_t size)
{
	size_t o = 0;

	*buf = 0;
	for (size_t i = 0; i < f->nvars && i < 3 && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s'%s'", i ? ", " : "",
		                      f->vars[i].name);
	if (f->nvars > 3 && o < size)
		snprintf(buf + o, size - o, ", ...");
	if (f->nvars == 0)
		snprintf(buf, size, "no variables");
}

_Noreturn static void nothing_matches(const struct plan *p)
{
	char sn[400], bn[400], hint[600];

	some_names(p->src[0], sn, sizeof sn);
	some_names(p->base, bn, sizeof bn);
	find_hint(p->base, p->src[0], hint, sizeof hint);
	die("no variable of %s%s matches one of %s (%s has %s; %s has %s)%s",
	    p->src[0]->name, p->nsrc > 1 ? " or the other SOURCEs" : "", p->base->name,
	    p->src[0]->name, sn, p->base->name, bn, hint);
}

/* ---- merging: writing ---------------------------------------------------- */

static ckpt_copy_action decide(const ckpt_var *v, ckpt_copy_spec *spec, void *user)
{
	const struct plan *p = user;

	spec->keep_storage = opt.keep_storage;
	return p->from[v - p->base->vars].v ? CKPT_COPY_EMPTY : CKPT_COPY_WHOLE;
}

/* Variable b of the output takes the values of the SOURCE's variable. */
static void fill_var(ckpt_out *o, const ckpt_var *b, const struct pick *pk, ckpt_file **src)
{
	const ckpt_var *v = pk->v;
	int convert = v->dtype != b->dtype;
	ckpt_outvar *ov;
	void *buf = NULL;
	size_t bad = 0;
	ckpt_region r;
	ckpt_slab s;
	int rc;

	if (!convert && (rc = ckpt_copy_ref_values(src[pk->src], v, o, b->name)) != 0) {
		if (rc < 0)
			die_lib();
		return;
	}
	if (ckpt_slab_open(&s, src[pk->src], v, CKPT_SLAB_BYTES) < 0)
		die_lib();
	/* numbers in the output's memory type: a bfloat16 as Keras stores it
	 * and one as an HDF5 float are the same bytes in memory */
	ov = b->dtype != CKPT_OTHER ? ckpt_outvar_open(o, b->name, b->dtype) :
	     ckpt_outvar_open_like(o, b->name, &s);
	if (!ov)
		die_lib();
	if (convert && !(buf = malloc(s.cap * ckpt_dtype_size(b->dtype) + 1)))
		die("out of memory");
	while ((rc = ckpt_slab_next(&s)) > 0) {
		ckpt_slab_region(&s, &r);
		if (convert)
			bad += ckpt_convert(v->dtype, s.buf, b->dtype, buf, s.count);
		if (ckpt_outvar_write(ov, &r, convert ? buf : s.buf) < 0)
			die_lib();
	}
	if (rc < 0)
		die_lib();
	if (!opt.quiet)
		warn_out_of_range(b->name, bad, b->dtype);
	ckpt_slab_close(&s);
	ckpt_outvar_close(ov);
	free(buf);
}

static void add_to_output(ckpt_out *o, const struct pick *pk, ckpt_file **src)
{
	if (ckpt_out_make_groups(o, pk->name) < 0)
		die_lib();
	if (ckpt_copy_var(src[pk->src], pk->v, o, pk->name) < 0)
		die("%s (adding it as '%s')", ckpt_errmsg(), pk->name);
}

static void print_plan(const struct plan *p)
{
	for (size_t i = 0; i < p->base->nvars; i++) {
		const struct pick *pk = &p->from[i];

		printf("%s\t%s", p->base->vars[i].name, pk->v ? "replaced" : "kept");
		if (pk->v)
			printf("\t%s\t%s", p->src[pk->src]->name, pk->v->name);
		printf("\n");
	}
	for (size_t i = 0; i < p->nadded; i++)
		printf("%s\tadded\t%s\t%s\n", p->added[i].name, p->src[p->added[i].src]->name,
		       p->added[i].v->name);
}

static int merge(int argc, char **argv)
{
	struct plan p = {0};
	ckpt_file **base = NULL;
	size_t nbase = 0;
	ckpt_out *o;

	if (ckpt_open_inputs(argv[optind], &base, &nbase) < 0)
		die_lib();
	if (nbase != 1)
		die("%s: holds %zu checkpoints; BASE must be one", argv[optind], nbase);
	p.base = base[0];
	for (int i = optind + 1; i < argc; i++)
		if (ckpt_open_inputs(argv[i], &p.src, &p.nsrc) < 0)
			die_lib();
	if (!(p.from = calloc(p.base->nvars + 1, sizeof *p.from)))
		die("out of memory");
	for (size_t k = 0; k < p.nsrc; k++)
		plan_source(&p, k);
	one_per_name(&p);
	check_added(&p);
	for (size_t i = 0; i < p.base->nvars; i++)
		p.replaced += p.from[i].v != NULL;
	if (p.replaced == 0 && p.nadded == 0)
		nothing_matches(&p);
	if (opt.dry_run || opt.verbose)
		print_plan(&p);
	if (!opt.dry_run) {
		if (!(o = ckpt_out_open(opt.out, opt.force, p.base)))
			die_lib();
		if (ckpt_copy_structure(p.base, o, decide, &p) < 0)
			die_lib();
		for (size_t i = 0; i < p.base->nvars; i++)
			if (p.from[i].v)
				fill_var(o, &p.base->vars[i], &p.from[i], p.src);
		for (size_t i = 0; i < p.nadded; i++)
			add_to_output(o, &p.added[i], p.src);
		if (ckpt_out_commit(o) < 0)
			die_lib();
	}
	if (!opt.quiet)
		warn("%s: %zu variable%s replaced, %zu kept; %zu ignored, %zu added%s",
		     opt.dry_run ? "(dry run)" : opt.out, p.replaced,
		     p.replaced == 1 ? "" : "s", p.base->nvars - p.replaced, p.ignored,
		     p.nadded, p.ignored && !opt.add ? " (--add adds them)" : "");
	for (size_t i = 0; i < p.nadded; i++)
		free(p.added[i].name);
	free(p.added);
	free(p.from);
	ckpt_close_inputs(p.src, p.nsrc);
	ckpt_close_inputs(base, nbase);
	return 0;
}

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

static int split(char **argv)
{
	ckpt_file **in = NULL;
	size_t nin = 0, k = opt.split, *owner;
	ckpt_out **o;

	if (ckpt_open_inputs(argv[optind], &in, &nin) < 0)
		die_lib();
	if (nin != 1)
		die("%s: holds %zu checkpoints; --split takes one", argv[optind], nin);
	if (!(owner = calloc(in[0]->nvars + 1, sizeof *owner)) || !(o = calloc(k, sizeof *o)))
		die("out of memory");
	if (ckpt_shard_assign(in[0], k, opt.by, owner) < 0)
		die_lib();
	for (size_t s = 0; s < k; s++) {
		struct split_job j = {owner, s, in[0]};
		char name[4096], *text;

		snprintf(name, sizeof name, opt.out, (int)s);
		if (opt.dry_run) {
			for (size_t i = 0; i < in[0]->nvars; i++)
				if (owner[i] == s)
					printf("%s\t%s\n", in[0]->vars[i].name, name);
			continue;
		}
		if (!(o[s] = ckpt_out_open(name, opt.force, in[0])) ||
		    ckpt_copy_structure(in[0], o[s], mine, &j) < 0 ||
		    !(text = ckpt_shard_format(in[0], owner, s, k, opt.by)) ||
		    ckpt_shard_write_attr(o[s], text) < 0)
			die_lib();
		free(text);
	}
	for (size_t s = 0; s < k && !opt.dry_run; s++)
		if (ckpt_out_commit(o[s]) < 0)
			die_lib();
	if (!opt.quiet && !opt.dry_run)
		warn("%s: %zu variables in %zu shards", in[0]->name, in[0]->nvars, k);
	free(o);
	free(owner);
	ckpt_close_inputs(in, nin);
	return 0;
}

static int join(int argc, char **argv)
{
	ckpt_file **sh = NULL;
	size_t n = 0;
	ckpt_shard_info *info;
	ckpt_out *o;

	for (int i = optind; i < argc; i++)
		if (ckpt_open_inputs(argv[i], &sh, &n) < 0)
			die_lib();
	if (!(info = calloc(n, sizeof *info)))
		die("out of memory");
	for (size_t i = 0; i < n; i++)
		if (ckpt_shard_read(sh[i], &info[i]) < 0)
			die_lib();
	if (ckpt_shard_check(sh, info, n) < 0)
		die_lib();
	if (opt.dry_run) {
		for (size_t i = 0; i < info[0].nvars; i++)
			printf("%s\t%s\n", info[0].names[i], sh[info[0].owner[i]]->name);
	} else {
		if (!(o = ckpt_out_open(opt.out, opt.force, sh[0])) ||
		    ckpt_shard_join(sh, &info[0], o) < 0 || ckpt_out_commit(o) < 0)
			die_lib();
	}
	if (!opt.quiet && !opt.dry_run)
		warn("%s: %zu variables from %zu shards", opt.out, info[0].nvars, n);
	for (size_t i = 0; i < n; i++)
		ckpt_shard_free(&info[i]);
	free(info);
	ckpt_close_inputs(sh, n);
	return 0;
}

int main(int argc, char **argv)
{
	int status;

	prog_init(argv[0]);
	parse_options(argc, argv);
	status = opt.split ? split(argv) : opt.join ? join(argc, argv) : merge(argc, argv);
	ckpt_select_free(&opt.sel);
	return finish(status);
}
