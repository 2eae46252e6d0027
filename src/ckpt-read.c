/* ckpt-read - list the variables of checkpoints, their values, statistics. */
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "prog.h"

static const char synopsis[] = "[options] FILE...";

enum format { TABLE, TSV, JSON };

static struct options {
	int names, values, stats, quiet, verbose, progress;
	uint64_t head; /* values per variable; UINT64_MAX: all */
	enum format format;
	ckpt_select sel;
} opt;

static void usage(void)
{
	printf("usage: %s %s\n"
	       "List the variables of checkpoints (HDF5, safetensors): name, dtype, shape,\n"
	       "elements, bytes.\n"
	       "FILE may be '-' for standard input, or a .keras archive.\n\n"
	       "  --names            one variable name per line\n"
	       "  --values           print values (C order, a line per last-dimension row)\n"
	       "  --head N           at most N values per variable (implies --values)\n"
	       "  --stats            add min, max, mean, std, L2 norm, NaN/Inf/zero counts\n"
	       "  --json             one JSON document\n"
	       "  --tsv              tab-separated, with a header line\n"
	       "  --only GLOB        only variables matching GLOB (repeatable)\n"
	       "  --exclude GLOB     leave out variables matching GLOB (repeatable)\n"
	       "  --strip-prefix P   show names with prefix P removed\n"
	       "  --add-prefix P     show names with prefix P added\n"
	       "  --progress         show progress even when stderr is not a terminal\n"
	       "  -q, --quiet        no column header and no totals line; no progress\n"
	       "  -v, --verbose      also show each variable's storage layout (and a\n"
	       "                     PyTorch file's values that are no tensors)\n"
	       "  -h, --help         show this help and exit\n"
	       "  -V, --version      show the version and exit\n",
	       progname, synopsis);
}

/* ---- one variable ------------------------------------------------------- */

/* What only --stats and -v show: a million variables need not carry it */
struct row_text {
	ckpt_summary sum;  /* with --stats, numeric variables */
	char st[8][CKPT_FMT_MAX]; /* sum as text */
	char storage[96];  /* with -v */
};

static struct row_text no_text;

struct row {
	const ckpt_var *var;
	char *name;        /* mapped */
	char *shown;       /* mapped, control bytes escaped: for text output */
	struct row_text *text; /* with --stats or -v; else a shared empty one
	                    * (a million variables listed cost no statistics) */
	const ckpt_obj *alias; /* the first further name (hard link), or NULL */
	int scanned;       /* statistics already taken (under MPI) */
};

/* The further names of a variable with several hard links follow one
 * another among f's objects; the next after o, or NULL. */
static const ckpt_obj *next_alias(const ckpt_file *f, const ckpt_obj *o)
{
	size_t var = (size_t)o->target_var;

	for (o++; o < f->objs + f->nobjs; o++)
		if (o->kind == CKPT_OBJ_HARDLINK && o->target_var == (int)var)
			return o;
	return NULL;
}

/* Each row's first further name: one pass over the objects. */
static void find_aliases(const ckpt_file *f, struct row *rows, size_t n)
{
	struct row **of = calloc(f->nvars + 1, sizeof *of);

	if (!of)
		die("out of memory");
	for (size_t i = 0; i < n; i++)
		of[rows[i].var - f->vars] = &rows[i];
	for (size_t i = f->nobjs; i-- > 0;) {
		const ckpt_obj *o = &f->objs[i];

		if (o->kind == CKPT_OBJ_HARDLINK && o->target_var >= 0 &&
		    of[o->target_var])
			of[o->target_var]->alias = o;
	}
	free(of);
}

/* "NAME -> VARIABLE" for each further name of the listed variables. */
static void print_aliases(const ckpt_file *f, const struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (const ckpt_obj *o = rows[i].alias; o; o = next_alias(f, o)) {
			char *a = ckpt_flat_escape(o->path);

			if (!a)
				die("out of memory");
			printf("%s -> %s\n", a, rows[i].shown);
			free(a);
		}
}

/* "NAME = VALUE" for each value that is no variable (a PyTorch file's
 * epoch), selected and mapped as variables are. */
static void print_other_values(const ckpt_file *f)
{
	for (size_t i = 0; i < f->nobjs; i++) {
		const ckpt_obj *o = &f->objs[i];
		char *mapped, *shown;

		if (o->kind != CKPT_OBJ_VALUE)
			continue;
		if (!(mapped = ckpt_select_map(&opt.sel, o->path)))
			die("out of memory");
		if (ckpt_select_match(&opt.sel, mapped)) {
			if (!(shown = ckpt_flat_escape(mapped)))
				die("out of memory");
			printf("%s = %s\n", shown, o->target);
			free(shown);
		}
		free(mapped);
	}
}

/* Text mode: values of the slab, a line per row of the last dimension. */
static void print_values_text(const ckpt_var *v, const ckpt_slab *s, size_t n)
{
	uint64_t rowlen = v->rank > 0 ? v->dims[v->rank - 1] : 1;
	char buf[CKPT_FMT_MAX];

	for (size_t i = 0; i < n; i++) {
		uint64_t idx = s->start + i;

		fputs(ckpt_fmt_elem(v->dtype, s->buf, i, buf), stdout);
		putchar((rowlen && (idx + 1) % rowlen == 0) ? '\n' : ' ');
	}
}

static void print_values_json(const ckpt_var *v, const ckpt_slab *s, size_t n)
{
	char buf[CKPT_FMT_MAX];

	for (size_t i = 0; i < n; i++) {
		if (s->start + i)
			putchar(',');
		print_json_number(stdout, ckpt_fmt_elem(v->dtype, s->buf, i, buf));
	}
}

static void print_values_tsv(const char *file, const char *name,
                             const ckpt_var *v, const ckpt_slab *s, size_t n)
{
	char buf[CKPT_FMT_MAX];

	for (size_t i = 0; i < n; i++)
		printf("%s\t%s\t%" PRIu64 "\t%s\n", file, name, s->start + i,
		       ckpt_fmt_elem(v->dtype, s->buf, i, buf));
}

static void stat_texts(struct row *r);

/* One streaming pass over a numeric variable: statistics and/or values. */
static void scan(const ckpt_file *f, struct row *r)
{
	const ckpt_var *v = r->var;
	ckpt_stats st;
	ckpt_slab s;
	uint64_t shown = 0;
	int rc;

	ckpt_stats_init(&st);
	if (ckpt_slab_open(&s, f, v, CKPT_SLAB_BYTES) < 0)
		die_lib();
	while ((rc = ckpt_slab_next(&s)) > 0) {
		if (opt.values && shown < opt.head) {
			size_t n = opt.head - shown < s.count ? (size_t)(opt.head - shown)
			                                      : s.count;
			if (opt.format == JSON)
				print_values_json(v, &s, n);
			else if (opt.format == TSV)
				print_values_tsv(f->name, r->shown, v, &s, n);
			else
				print_values_text(v, &s, n);
			shown += n;
		}
		if (opt.stats)
			ckpt_stats_add_typed(&st, v->dtype, s.buf, s.count);
		else if (shown >= opt.head)
			break;
		progress_add(s.count * ckpt_dtype_size(v->dtype));
	}
	if (rc < 0)
		die_lib();
	if (opt.values && opt.format == TABLE && shown < v->nelems)
		printf("%s...\n", shown && v->rank > 0 &&
		       shown % v->dims[v->rank - 1] ? "\n" : "");
	ckpt_slab_close(&s);
	if (opt.stats) {
		ckpt_stats_summary(&st, &r->text->sum);
		stat_texts(r);
	}
}

/* ---- output formats ----------------------------------------------------- */

static const char *stat_fields[] = {"min", "max", "mean", "std", "l2",
                                    "nan", "inf", "zeros"};

static void stat_texts(struct row *r)
{
	const ckpt_summary *m = &r->text->sum;
	char (*out)[CKPT_FMT_MAX] = r->text->st;

	if (r->var->dtype == CKPT_OTHER) {
		for (int i = 0; i < 8; i++)
			strcpy(out[i], "-");
		return;
	}
	if (m->integer == 1 && m->count) {
		snprintf(out[0], CKPT_FMT_MAX, "%" PRId64, m->imin);
		snprintf(out[1], CKPT_FMT_MAX, "%" PRId64, m->imax);
	} else if (m->integer == 2 && m->count) {
		snprintf(out[0], CKPT_FMT_MAX, "%" PRIu64, m->umin);
		snprintf(out[1], CKPT_FMT_MAX, "%" PRIu64, m->umax);
	} else {
		ckpt_fmt_double(m->min, r->var->dtype, out[0]);
		ckpt_fmt_double(m->max, r->var->dtype, out[1]);
	}
	ckpt_fmt_double(m->mean, CKPT_F64, out[2]);
	ckpt_fmt_double(m->std, CKPT_F64, out[3]);
	ckpt_fmt_double(m->l2, CKPT_F64, out[4]);
	snprintf(out[5], CKPT_FMT_MAX, "%" PRIu64, m->nan);
	snprintf(out[6], CKPT_FMT_MAX, "%" PRIu64, m->inf);
	snprintf(out[7], CKPT_FMT_MAX, "%" PRIu64, m->zeros);
}

struct widths {
	int name, type, shape, elems, bytes, st[8];
};

static void measure(const struct row *rows, size_t n, struct widths *w)
{
	char shape[512];

	*w = (struct widths){4, 5, 5, 8, 5, {3, 3, 4, 3, 2, 3, 3, 5}};
	for (size_t i = 0; i < n; i++) {
		const ckpt_var *v = rows[i].var;
		int l;

		for (int k = 0; k < 8 && opt.stats; k++)
			if ((l = (int)strlen(rows[i].text->st[k])) > w->st[k])
				w->st[k] = l;
		if ((l = (int)strlen(rows[i].shown)) > w->name)
			w->name = l;
		if ((l = (int)strlen(v->type)) > w->type)
			w->type = l;
		if ((l = (int)strlen(ckpt_shape_str(v, shape, sizeof shape))) > w->shape)
			w->shape = l;
		if ((l = snprintf(NULL, 0, "%" PRIu64, v->nelems)) > w->elems)
			w->elems = l;
		if ((l = snprintf(NULL, 0, "%" PRIu64, v->nbytes)) > w->bytes)
			w->bytes = l;
	}
}

static void table_header(const struct widths *w)
{
	printf("%-*s  %-*s  %-*s  %*s  %*s", w->name, "NAME", w->type, "DTYPE",
	       w->shape, "SHAPE", w->elems, "ELEMENTS", w->bytes, "BYTES");
	for (int k = 0; k < 8 && opt.stats; k++) {
		char up[8];

		for (int c = 0; (up[c] = (char)toupper(stat_fields[k][c])); c++)
			;
		printf(k < 5 ? "  %-*s" : "  %*s", w->st[k], up);
	}
	if (opt.verbose)
		printf("  STORAGE");
	putchar('\n');
}

static void table_row(const struct row *r, const struct widths *w)
{
	char shape[512];
	const ckpt_var *v = r->var;

	printf("%-*s  %-*s  %-*s  %*" PRIu64 "  %*" PRIu64, w->name, r->shown,
	       w->type, v->type, w->shape, ckpt_shape_str(v, shape, sizeof shape),
	       w->elems, v->nelems, w->bytes, v->nbytes);
	for (int k = 0; k < 8 && opt.stats; k++)
		printf(k < 5 ? "  %-*s" : "  %*s", w->st[k], r->text->st[k]);
	if (opt.verbose)
		printf("  %s", r->text->storage);
	putchar('\n');
}

static void tsv_header(void)
{
	printf("file\tname\tdtype\tshape\telements\tbytes");
	if (opt.stats)
		for (int i = 0; i < 8; i++)
			printf("\t%s", stat_fields[i]);
	if (opt.verbose)
		printf("\tstorage");
	putchar('\n');
}

static void tsv_row(const ckpt_file *f, const struct row *r)
{
	char shape[512];
	const ckpt_var *v = r->var;

	printf("%s\t%s\t%s\t%s\t%" PRIu64 "\t%" PRIu64, f->name, r->shown, v->type,
	       ckpt_shape_str(v, shape, sizeof shape), v->nelems, v->nbytes);
	for (int i = 0; i < 8 && opt.stats; i++)
		printf("\t%s", r->text->st[i]);
	if (opt.verbose)
		printf("\t%s", r->text->storage);
	putchar('\n');
}

static void json_var_open(const struct row *r, size_t i)
{
	const ckpt_var *v = r->var;

	printf("%s\n    {\"name\": ", i ? "," : "");
	print_json_string(stdout, r->name);
	printf(", \"dtype\": ");
	print_json_string(stdout, v->type);
	printf(", \"numeric\": %s, \"shape\": ", v->dtype != CKPT_OTHER ? "true" : "false");
	if (v->rank < 0) {
		printf("null");
	} else {
		putchar('[');
		for (int d = 0; d < v->rank; d++)
			printf("%s%" PRIu64, d ? ", " : "", v->dims[d]);
		putchar(']');
	}
	printf(", \"elements\": %" PRIu64 ", \"bytes\": %" PRIu64, v->nelems, v->nbytes);
	if (opt.verbose) {
		printf(", \"storage\": ");
		print_json_string(stdout, r->text->storage);
	}
}

static void json_var_close(const ckpt_file *f, const struct row *r)
{
	if (r->alias) {
		printf(", \"other_names\": [");
		for (const ckpt_obj *o = r->alias; o; o = next_alias(f, o)) {
			print_json_string(stdout, o->path);
			if (next_alias(f, o))
				printf(", ");
		}
		putchar(']');
	}
	if (opt.stats && r->var->dtype != CKPT_OTHER) {
		printf(", \"stats\": {");
		for (int i = 0; i < 8; i++) {
			printf("%s\"%s\": ", i ? ", " : "", stat_fields[i]);
			print_json_number(stdout, r->text->st[i]);
		}
		putchar('}');
	}
	putchar('}');
}

/* What the checkpoint came in: the archive (and member), or the shard map
 * (and its shards). */
static void print_container(const ckpt_container *c)
{
	if (ckpt_container_is_set(c->kind)) {
		printf("%zu %s shard%s listed in %s:", c->nshards,
		       c->kind == CKPT_KERAS_SHARDS  ? "Keras"
		       : c->kind == CKPT_TORCH_SHARDS ? "PyTorch"
		                                      : "safetensors",
		       c->nshards == 1 ? "" : "s", c->path);
		for (size_t i = 0; i < c->nshards; i++)
			printf(" %s", c->shards[i]);
		putchar('\n');
	} else {
		printf("member %s of the %s %s\n", c->member,
		       c->kind == CKPT_KERAS_ARCHIVE ? "Keras archive" : "archive", c->path);
	}
}

static void json_container(const ckpt_container *c)
{
	printf(", \"container\": {\"kind\": ");
	print_json_string(stdout, ckpt_container_kind_name(c->kind));
	printf(", \"path\": ");
	print_json_string(stdout, c->path);
	if (ckpt_container_is_set(c->kind)) {
		printf(", \"shards\": [");
		for (size_t i = 0; i < c->nshards; i++) {
			printf("%s", i ? ", " : "");
			print_json_string(stdout, c->shards[i]);
		}
		putchar(']');
	} else {
		printf(", \"member\": ");
		print_json_string(stdout, c->member);
	}
	putchar('}');
}

/* ---- one file ----------------------------------------------------------- */

static size_t select_rows(const ckpt_file *f, struct row **out)
{
	struct row *rows = calloc(f->nvars + 1, sizeof *rows);
	char **names = ckpt_select_names(&opt.sel, f, 0);
	size_t n = 0;

	if (!rows)
		die("out of memory");
	if (!names)
		die_lib();
	for (size_t i = 0; i < f->nvars; i++) {
		if (!names[i])
			continue;
		rows[n].var = &f->vars[i];
		rows[n].name = names[i]; /* the row's now */
		rows[n].text = &no_text;
		if ((opt.stats || opt.verbose) && !(rows[n].text = calloc(1, sizeof *rows[n].text)))
			die("out of memory");
		rows[n].shown = ckpt_flat_plain(names[i]) ? names[i] : ckpt_flat_escape(names[i]);
		if (!rows[n].shown)
			die("out of memory");
		if (opt.verbose)
			if (!ckpt_var_storage(f, &f->vars[i], rows[n].text->storage,
			                      sizeof rows[n].text->storage))
				snprintf(rows[n].text->storage, sizeof rows[n].text->storage, "?");
		n++;
	}
	free(names);
	*out = rows;
	return n;
}

static int needs_scan(const ckpt_var *v)
{
	return v->dtype != CKPT_OTHER && (opt.stats || opt.values);
}

/* Under MPI, --stats without --values: each rank takes the statistics of
 * a run of the variables (each variable whole, so the numbers are the
 * serial program's), and rank 0 gathers them in order to print. */
static void scan_shared(const ckpt_file *f, struct row *rows, size_t n)
{
	uint64_t *weight = calloc(n + 1, sizeof *weight);
	size_t lo, hi, *lens = calloc((size_t)ckpt_par_size(), sizeof *lens);
	ckpt_summary *mine;
	char *all; /* rank 0: every row's summary, in order */

	if (!weight || !lens || !(mine = calloc(n + 1, sizeof *mine)))
		die("out of memory");
	for (size_t i = 0; i < n; i++)
		weight[i] = needs_scan(rows[i].var) ? rows[i].var->nbytes : 0;
	rank_share(weight, n, &lo, &hi);
	for (size_t i = lo; i < hi; i++)
		if (needs_scan(rows[i].var)) {
			scan(f, &rows[i]);
			mine[i - lo] = rows[i].text->sum;
		}
	if (ckpt_par_gather_bytes(mine, (hi - lo) * sizeof *mine, &all, lens) < 0)
		die_lib();
	for (size_t i = 0; i < n; i++) {
		rows[i].scanned = 1;
		if (all && needs_scan(rows[i].var)) {
			memcpy(&rows[i].text->sum, all + i * sizeof *mine, sizeof *mine);
			stat_texts(&rows[i]);
		}
	}
	free(all);
	free(mine);
	free(lens);
	free(weight);
}

/* Scan row r unless that is done. */
static void scan_row(const ckpt_file *f, struct row *r)
{
	if (!r->scanned)
		scan(f, r);
}

static void list_file(const ckpt_file *f, size_t nfiles, size_t index)
{
	struct row *rows;
	size_t n = select_rows(f, &rows);
	uint64_t params = 0, bytes = 0, total = 0;

	find_aliases(f, rows, n);
	struct widths w;
	char shape[512];

	for (size_t i = 0; i < n; i++) {
		if (rows[i].var->dtype != CKPT_OTHER)
			params += rows[i].var->nelems;
		bytes += rows[i].var->nbytes;
		if (needs_scan(rows[i].var))
			total += rows[i].var->nbytes;
	}
	progress_start(opt.quiet ? -1 : opt.progress, total, "reading");
	if (ckpt_par_on() && opt.stats && !opt.values)
		scan_shared(f, rows, n);
	if (opt.names) {
		if (nfiles > 1)
			printf("%s==> %s <==\n", index ? "\n" : "", f->name);
		for (size_t i = 0; i < n; i++)
			printf("%s\n", rows[i].shown);
	} else if (opt.format == JSON) {
		printf("%s\n  {\"file\": ", index ? "," : "");
		print_json_string(stdout, f->name);
		printf(", \"variables\": [");
		for (size_t i = 0; i < n; i++) {
			json_var_open(&rows[i], i);
			if (needs_scan(rows[i].var)) {
				if (opt.values)
					printf(", \"values\": [");
				scan_row(f, &rows[i]);
				if (opt.values)
					putchar(']');
			}
			json_var_close(f, &rows[i]);
		}
		printf("\n  ]");
		if (f->container)
			json_container(f->container);
		printf(", \"totals\": {\"variables\": %zu, \"parameters\": %" PRIu64
		       ", \"bytes\": %" PRIu64 "}}", n, params, bytes);
	} else if (opt.format == TSV && opt.values) {
		if (index == 0)
			printf("file\tname\tindex\tvalue\n");
		for (size_t i = 0; i < n; i++)
			if (needs_scan(rows[i].var))
				scan(f, &rows[i]);
	} else if (opt.format == TSV) {
		if (index == 0)
			tsv_header();
		for (size_t i = 0; i < n; i++) {
			if (needs_scan(rows[i].var))
				scan_row(f, &rows[i]);
			tsv_row(f, &rows[i]);
		}
	} else {
		if (nfiles > 1)
			printf("%s==> %s <==\n", index ? "\n" : "", f->name);
		for (size_t i = 0; i < n && !opt.values; i++)
			if (needs_scan(rows[i].var))
				scan_row(f, &rows[i]);
		measure(rows, n, &w);
		if (!opt.quiet && !opt.values)
			table_header(&w);
		for (size_t i = 0; i < n; i++) {
			const ckpt_var *v = rows[i].var;

			if (!opt.values) {
				table_row(&rows[i], &w);
				continue;
			}
			printf("%s %s %s\n", rows[i].shown, v->type,
			       ckpt_shape_str(v, shape, sizeof shape));
			if (v->dtype == CKPT_OTHER)
				printf("(%s: values not shown)\n", v->type);
			else
				scan(f, &rows[i]);
			if (opt.stats && v->dtype != CKPT_OTHER) {
				printf("#");
				for (int k = 0; k < 8; k++)
					printf(" %s=%s", stat_fields[k], rows[i].text->st[k]);
				putchar('\n');
			}
		}
		if (!opt.values)
			print_aliases(f, rows, n);
		if (!opt.values && opt.verbose)
			print_other_values(f);
		if (!opt.quiet && f->container)
			print_container(f->container);
		if (!opt.quiet)
			printf("%s%zu variable%s, %" PRIu64 " parameters, %" PRIu64 " bytes\n",
			       opt.values ? "\n" : "", n, n == 1 ? "" : "s", params, bytes);
	}
	progress_end();
	for (size_t i = 0; i < n; i++) {
		if (rows[i].shown != rows[i].name)
			free(rows[i].shown);
		free(rows[i].name);
		if (rows[i].text != &no_text)
			free(rows[i].text);
	}
	free(rows);
}

/* ---- main ----------------------------------------------------------------- */

enum { OPT_NAMES = 256, OPT_VALUES, OPT_HEAD, OPT_STATS, OPT_JSON, OPT_TSV,
       OPT_ONLY, OPT_EXCLUDE, OPT_STRIP, OPT_ADD, OPT_PROGRESS };

static const struct option longopts[] = {
	{"add-prefix", required_argument, NULL, OPT_ADD},
	{"exclude", required_argument, NULL, OPT_EXCLUDE},
	{"head", required_argument, NULL, OPT_HEAD},
	{"help", no_argument, NULL, 'h'},
	{"json", no_argument, NULL, OPT_JSON},
	{"names", no_argument, NULL, OPT_NAMES},
	{"only", required_argument, NULL, OPT_ONLY},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"quiet", no_argument, NULL, 'q'},
	{"stats", no_argument, NULL, OPT_STATS},
	{"strip-prefix", required_argument, NULL, OPT_STRIP},
	{"tsv", no_argument, NULL, OPT_TSV},
	{"values", no_argument, NULL, OPT_VALUES},
	{"verbose", no_argument, NULL, 'v'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static void parse_options(int argc, char **argv)
{
	int c;

	opt.head = UINT64_MAX;
	ckpt_select_init(&opt.sel);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hqvV", longopts, NULL)) != -1) {
		switch (c) {
		case 'q': opt.quiet = 1; ckpt_set_warn(NULL); break;
		case 'v': opt.verbose = 1; break;
		case OPT_NAMES: opt.names = 1; break;
		case OPT_VALUES: opt.values = 1; break;
		case OPT_HEAD:
			opt.head = parse_count("--head", optarg, 0, UINT64_MAX);
			opt.values = 1;
			break;
		case OPT_STATS: opt.stats = 1; break;
		case OPT_PROGRESS: opt.progress = 1; break;
		case OPT_JSON: opt.format = JSON; break;
		case OPT_TSV: opt.format = TSV; break;
		case OPT_ONLY: ckpt_select_only(&opt.sel, optarg); break;
		case OPT_EXCLUDE: ckpt_select_exclude(&opt.sel, optarg); break;
		case OPT_STRIP: opt.sel.strip_prefix = optarg; break;
		case OPT_ADD: opt.sel.add_prefix = optarg; break;
		default: common_option(c, usage, argv);
		}
	}
	if (optind >= argc)
		usage_error("no FILE given");
	if (opt.names && (opt.values || opt.stats || opt.format != TABLE))
		usage_error("--names goes alone, without --values, --stats, "
		            "--json or --tsv");
}

int main(int argc, char **argv)
{
	size_t nfiles = 0;

	prog_init(argv[0], synopsis);
	parse_options(argc, argv);
	/* all inputs first: an archive may hold several checkpoints */
	if (opt.format == JSON && !opt.names) {
		hold_stdout(); /* a document whole, or nothing */
		printf("{\"files\": [");
	}
	for (int i = optind; i < argc; i++) {
		ckpt_file **files = NULL;
		size_t n = 0;

		if (ckpt_open_inputs(argv[i], &files, &n) < 0)
			die_lib();
		for (size_t k = 0; k < n; k++, nfiles++)
			list_file(files[k], argc - optind > 1 || n > 1 ? 2 : 1, nfiles);
		ckpt_close_inputs(files, n);
	}
	if (opt.format == JSON && !opt.names) {
		printf("\n]}\n");
		release_stdout();
	}
	ckpt_select_free(&opt.sel);
	return finish(EXIT_OK);
}
