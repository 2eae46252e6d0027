/* ckpt-average - the mean, or any linear combination, of N checkpoints. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prog.h"
#include "average/average.h"
#include "average/work.h"

static const char synopsis[] = "[options] [--method M [--base BASE]] -o OUT INPUT...";

static struct options {
	const char *out, *weights_arg, *base;
	int force, quiet, verbose, partial, no_normalize, progress, keep_storage, dry_run;
	int method_set, given[4]; /* --lambda, --density/--gamma, --seed/--sign, -t */
	ckpt_method m;
	ckpt_dtype dtype;       /* CKPT_OTHER: keep each variable's type */
	ckpt_select sel;
} opt;

static void usage(void)
{
	printf("usage: %s %s\n"
	       "Average checkpoints: every variable becomes the mean (or a weighted\n"
	       "combination) of its values in the inputs; the output keeps the first\n"
	       "input's groups, attributes and storage.  An INPUT may be '-' or an archive\n"
	       "(tar, tar.gz, tar.zst, tar.xz, zip, .keras) whose checkpoint members are inputs.\n\n"
	       "  -o OUT             output checkpoint ('-' for stdout); may be an input\n"
	       "  -f, --force        replace OUT if it exists\n"
	       "  -w W1,W2,...       weights, one per input, normalised to sum to 1\n"
	       "  --no-normalize     use the weights as given (any linear combination)\n"
	       "  --partial          average each variable over the inputs that have it\n"
	       "  --dtype T          store averaged variables as T (f16 bf16 f32 f64 ...)\n"
	       "  --method M         a merge method: task-arithmetic, ties, dare-ties,\n"
	       "                     dare-linear, breadcrumbs, breadcrumbs-ties, slerp,\n"
	       "                     model-stock (default: the mean, linear)\n"
	       "  --base BASE        the model task vectors are taken against (INPUT - BASE)\n"
	       "  --lambda L         scale of the merged task vector (1)\n"
	       "  --density D        fraction kept: top by magnitude (ties, breadcrumbs), or\n"
	       "                     at random (dare-*) (1)\n"
	       "  --gamma G          breadcrumbs: fraction of the largest dropped (0.01)\n"
	       "  --seed N           dare-*: the random mask's seed (0)\n"
	       "  --sign sum|count   ties family: elect each sign by sum or by count (sum)\n"
	       "  -t T               slerp: where between the two inputs (0: the first)\n"
	       "  --dry-run          print what would be done with each variable; write nothing\n"
	       "  --only GLOB        average only matching variables; copy the others\n"
	       "                     from the first input (repeatable)\n"
	       "  --exclude GLOB     copy matching variables from the first input\n"
	       "  --keep-storage     keep lossy filters (scale-offset on floats, zfp, sz,\n"
	       "                     ...) on computed values; they are left out by default\n"
	       "  --progress         show progress even when stderr is not a terminal\n"
	       "  -q, --quiet        no warnings, no progress\n"
	       "  -v, --verbose      say what is done with each variable\n"
	       "  -h, --help         show this help and exit\n"
	       "  -V, --version      show the version and exit\n",
	       progname, synopsis);
}

enum { OPT_NONORM = 256, OPT_PARTIAL, OPT_DTYPE, OPT_ONLY, OPT_EXCLUDE, OPT_PROGRESS,
       OPT_KEEP_STORAGE, OPT_METHOD, OPT_BASE, OPT_LAMBDA, OPT_DENSITY, OPT_GAMMA, OPT_SEED,
       OPT_SIGN, OPT_DRY_RUN };

static const struct option longopts[] = {
	{"base", required_argument, NULL, OPT_BASE},
	{"density", required_argument, NULL, OPT_DENSITY},
	{"dry-run", no_argument, NULL, OPT_DRY_RUN},
	{"dtype", required_argument, NULL, OPT_DTYPE},
	{"exclude", required_argument, NULL, OPT_EXCLUDE},
	{"force", no_argument, NULL, 'f'},
	{"help", no_argument, NULL, 'h'},
	{"gamma", required_argument, NULL, OPT_GAMMA},
	{"keep-storage", no_argument, NULL, OPT_KEEP_STORAGE},
	{"lambda", required_argument, NULL, OPT_LAMBDA},
	{"method", required_argument, NULL, OPT_METHOD},
	{"no-normalize", no_argument, NULL, OPT_NONORM},
	{"only", required_argument, NULL, OPT_ONLY},
	{"output", required_argument, NULL, 'o'},
	{"partial", no_argument, NULL, OPT_PARTIAL},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"quiet", no_argument, NULL, 'q'},
	{"seed", required_argument, NULL, OPT_SEED},
	{"sign", required_argument, NULL, OPT_SIGN},
	{"verbose", no_argument, NULL, 'v'},
	{"version", no_argument, NULL, 'V'},
	{"weights", required_argument, NULL, 'w'},
	{NULL, 0, NULL, 0},
};

/* The merge method's options; 0 if c is none of them. */
static int method_option(int c)
{
	switch (c) {
	case OPT_METHOD:
		if (strcmp(optarg, "linear") != 0 && ckpt_method_parse(optarg, &opt.m.kind) < 0)
			usage_error("--method: unknown method '%s' (task-arithmetic, ties, dare-ties, "
			            "dare-linear, breadcrumbs, breadcrumbs-ties, slerp, model-stock)",
			            optarg);
		opt.method_set = strcmp(optarg, "linear") != 0;
		break;
	case OPT_BASE: opt.base = optarg; break;
	case OPT_LAMBDA: opt.m.lambda = parse_real("--lambda", optarg); opt.given[0] = 1; break;
	case OPT_DENSITY: opt.m.density = parse_real("--density", optarg); opt.given[1] = 1; break;
	case OPT_GAMMA: opt.m.gamma = parse_real("--gamma", optarg); opt.given[1] = 1; break;
	case OPT_SEED: opt.m.seed = parse_count("--seed", optarg, 0, UINT64_MAX); opt.given[2] = 1; break;
	case 't': opt.m.t = parse_real("-t", optarg); opt.given[3] = 1; break;
	case OPT_SIGN:
		if (strcmp(optarg, "sum") != 0 && strcmp(optarg, "count") != 0)
			usage_error("--sign: '%s' is neither sum nor count", optarg);
		opt.m.sign_count = strcmp(optarg, "count") == 0;
		opt.given[2] = 1;
		break;
	case OPT_DRY_RUN: opt.dry_run = 1; break;
	default: return 0;
	}
	return 1;
}

/* The method's options agree with it (once the options are read). */
static void check_method(void)
{
	ckpt_method_kind k = opt.m.kind;
	const char *name = ckpt_method_name(k);

	if (!opt.method_set) {
		if (opt.base || opt.given[0] || opt.given[1] || opt.given[2] || opt.given[3])
			usage_error("--base, --lambda, --density, --gamma, --seed, --sign and -t "
			            "go with --method");
		return;
	}
	if (ckpt_method_uses_base(k) && !opt.base)
		usage_error("--method %s needs --base BASE (the model the task vectors are "
		            "taken against)", name);
	if (k == CKPT_SLERP && opt.base)
		usage_error("--method slerp interpolates between its two INPUTs; it takes no --base");
	if (k != CKPT_SLERP && opt.given[3])
		usage_error("-t goes with --method slerp");
	if ((k == CKPT_SLERP || k == CKPT_MODEL_STOCK) && (opt.weights_arg || opt.given[0]))
		usage_error("--method %s takes no -w and no --lambda (its coefficients come from "
		            "the tensors)", name);
	if (!ckpt_method_ranks(k) && !ckpt_method_random(k) && opt.given[1])
		usage_error("--density and --gamma go with ties, dare-*, breadcrumbs*");
	if (!(opt.m.density > 0 && opt.m.density <= 1))
		usage_error("--density: %g is not in (0, 1]", opt.m.density);
	if (!(opt.m.gamma >= 0 && opt.m.gamma < 1))
		usage_error("--gamma: %g is not in [0, 1)", opt.m.gamma);
	if (opt.partial)
		usage_error("--partial goes with the mean, not with --method %s", name);
	if (opt.dtype != CKPT_OTHER && !ckpt_dtype_is_float(opt.dtype))
		usage_error("--dtype: a merge method stores floats, not %s",
		            ckpt_dtype_name(opt.dtype));
}

static void parse_options(int argc, char **argv)
{
	int c;

	ckpt_select_init(&opt.sel);
	opt.m = (ckpt_method){.lambda = 1, .density = 1, .gamma = 0.01};
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":fho:qt:vVw:", longopts, NULL)) != -1) {
		if (method_option(c))
			continue;
		switch (c) {
		case 'o': opt.out = optarg; break;
		case 'f': opt.force = 1; break;
		case 'q': opt.quiet = 1; ckpt_set_warn(NULL); break;
		case 'v': opt.verbose = 1; break;
		case 'w': opt.weights_arg = optarg; break;
		case OPT_NONORM: opt.no_normalize = 1; break;
		case OPT_PARTIAL: opt.partial = 1; break;
		case OPT_PROGRESS: opt.progress = 1; break;
		case OPT_KEEP_STORAGE: opt.keep_storage = 1; break;
		case OPT_DTYPE:
			if (ckpt_dtype_parse(optarg, &opt.dtype) < 0)
				usage_error("--dtype: %s", ckpt_errmsg());
			break;
		case OPT_ONLY: ckpt_select_only(&opt.sel, optarg); break;
		case OPT_EXCLUDE: ckpt_select_exclude(&opt.sel, optarg); break;
		default: common_option(c, usage, argv);
		}
	}
	if (!opt.out && !opt.dry_run)
		usage_error("no output given (-o OUT)");
	if (optind >= argc)
		usage_error("no INPUT given");
	if (opt.no_normalize && !opt.weights_arg && !opt.method_set)
		usage_error("--no-normalize goes with -w");
	check_method();
}

/* ---- weights ------------------------------------------------------------ */

/* The weights, one per input; NULL for the plain mean (also when all are
 * equal and normalised: then the mean is computed as sum / N, exactly). */
static double *parse_weights(size_t n)
{
	double *w = calloc(n, sizeof *w), sum = 0;
	char *copy, *tok, *next;
	size_t k = 0;
	int equal = 1;

	if (!opt.weights_arg)
		return free(w), NULL;
	if (!w || !(copy = strdup(opt.weights_arg)))
		die("out of memory");
	/* every comma separates two weights: an empty one is a mistake */
	for (tok = copy; tok; tok = next) {
		double v;

		if ((next = strchr(tok, ',')))
			*next++ = 0;
		if (!*tok)
			usage_error("-w: weight %zu is empty", k + 1);
		v = parse_real("-w", tok);
		if (k < n)
			w[k] = v;
		k++;
	}
	free(copy);
	if (k != n)
		usage_error("-w: %zu weight%s for %zu input%s", k, k == 1 ? "" : "s", n,
		    n == 1 ? "" : "s");
	for (k = 0; k < n; k++) {
		sum += w[k];
		equal &= w[k] == w[0];
	}
	if (opt.no_normalize)
		return w;
	if (sum == 0 || !isfinite(sum))
		usage_error("-w: the weights sum to %g; they cannot be normalised "
		    "(--no-normalize uses them as given)", sum);
	if (equal)
		return free(w), NULL;
	for (k = 0; k < n; k++)
		w[k] /= sum;
	return w;
}

/* ---- the plan ----------------------------------------------------------- */

/* A merge method's models' weights: as given (--no-normalize), else
 * normalised; equal normalised ones are 1 each with the sum divided by
 * their number (m.divisor), so that a mean of task vectors is exact. */
static void setup_method(struct job *j)
{
	size_t n = j->nin - 1;
	double *w = opt.weights_arg ? parse_weights(n) : NULL;
	ckpt_method_kind k = opt.m.kind;

	if (k == CKPT_SLERP && j->nin != 2)
		die("--method slerp interpolates between two INPUTs, not %zu", j->nin);
	if (k == CKPT_MODEL_STOCK && n < 2)
		die("--method model-stock needs at least two models besides --base, not %zu", n);
	if (n == 0)
		die("--method %s needs a model besides --base", ckpt_method_name(k));
	opt.m.nmodels = n;
	opt.m.normalize = !opt.no_normalize;
	opt.m.divisor = 1;
	if (!w) {
		if (!(w = malloc(n * sizeof *w)))
			die("out of memory");
		for (size_t i = 0; i < n; i++)
			w[i] = 1;
		if (!opt.no_normalize && k != CKPT_SLERP && k != CKPT_MODEL_STOCK)
			opt.m.divisor = (double)n;
	}
	opt.m.weights = w;
	j->weights = w;
	j->method = &opt.m;
}

static int averaged(const ckpt_var *v)
{
	if (opt.method_set && !ckpt_dtype_is_float(v->dtype))
		return 0; /* integers and bools: copied from the base */
	return v->dtype != CKPT_OTHER && ckpt_select_match(&opt.sel, v->name);
}

static size_t ninputs;

/* The mean of one input is the input: copied as it is (bit for bit, a
 * conversion's fast path), unless it is to be stored as another type or
 * scaled by a weight that is not normalized. */
static int computed(const ckpt_var *v)
{
	return averaged(v) && !(ninputs == 1 && !opt.no_normalize &&
	                        (opt.dtype == CKPT_OTHER || opt.dtype == v->dtype));
}

/* Check that every input has the first input's selected variables with the
 * same shapes and dtypes, and no other selected ones; with --partial, say
 * what is missing.  Variables left out by --only/--exclude come from the
 * first input and need not match. */
static void check_inputs(ckpt_file **in, size_t n)
{
	const ckpt_file *a = in[0];
	char sa[256], sb[256];

	for (size_t k = 1; k < n; k++) {
		const ckpt_file *b = in[k];

		for (size_t i = 0; i < a->nvars; i++) {
			const ckpt_var *va = &a->vars[i], *vb = ckpt_find(b, va->name);

			if (!ckpt_select_match(&opt.sel, va->name))
				continue;
			if (!vb) {
				if (!opt.partial)
					die("%s: lacks variable '%s' that %s has (--partial "
					    "averages over the inputs that have it)",
					    b->name, va->name, a->name);
				if (!opt.quiet)
					warn("%s: lacks variable '%s': averaged over the other "
					     "inputs", b->name, va->name);
				continue;
			}
			if (!ckpt_same_shape(va, vb))
				die("%s: variable '%s' has shape %s, %s has %s", b->name,
				    va->name, ckpt_shape_str(vb, sb, sizeof sb), a->name,
				    ckpt_shape_str(va, sa, sizeof sa));
			if (strcmp(va->type, vb->type) != 0 &&
			    !(ckpt_dtype_is_float(va->dtype) && ckpt_dtype_is_float(vb->dtype)))
				die("%s: variable '%s' is %s, %s has %s (floats of different "
				    "types average; other types must match)", b->name,
				    va->name, vb->type, a->name, va->type);
		}
		for (size_t i = 0; i < b->nvars; i++) {
			if (ckpt_find(a, b->vars[i].name) ||
			    !ckpt_select_match(&opt.sel, b->vars[i].name))
				continue;
			if (!opt.partial)
				die("%s: has variable '%s' that %s lacks", b->name,
				    b->vars[i].name, a->name);
			if (!opt.quiet)
				warn("%s: variable '%s' is not in %s, the first input: "
				     "left out", b->name, b->vars[i].name, a->name);
		}
	}
}

static ckpt_copy_action decide(const ckpt_var *v, ckpt_copy_spec *spec, void *user)
{
	(void)user;
	if (!computed(v))
		return CKPT_COPY_WHOLE;
	spec->dtype = opt.dtype;
	spec->keep_storage = opt.keep_storage;
	return CKPT_COPY_EMPTY;
}

/* ---- one variable ------------------------------------------------------- */

/* Open slab readers on every input that has the variable, cutting the same
 * slabs; returns how many.  types[i] is reader i's dtype (floats of
 * several types average together); *mixed says whether they differ. */
static size_t open_readers(struct job *j, const ckpt_var *v0, ckpt_slab *s,
                           size_t *which, ckpt_dtype *types, int *mixed)
{
	size_t m = 0;

	*mixed = 0;
	for (size_t k = 0; k < j->nin; k++) {
		const ckpt_var *v = k ? ckpt_find(j->in[k], v0->name) : v0;

		if (!v)
			continue;
		if (ckpt_slab_open(&s[m], j->in[k], v, AVG_SLAB_BYTES) < 0 ||
		    (m && ckpt_slab_follow(&s[m], &s[0]) < 0))
			die_lib();
		*mixed |= v->dtype != v0->dtype;
		types[m] = v->dtype;
		which[m++] = k;
	}
	return m;
}

/* The weights of the inputs that have the variable (renormalised). */
static const double *subset_weights(const struct job *j, const size_t *which,
                                    size_t m, double *buf)
{
	double sum = 0;

	if (!j->weights)
		return NULL;
	for (size_t i = 0; i < m; i++)
		sum += buf[i] = j->weights[which[i]];
	if (m < j->nin && !opt.no_normalize)
		for (size_t i = 0; i < m; i++)
			buf[i] /= sum;
	return buf;
}

/* Where the slabs of a variable are counted that --dtype changed. */
struct changes {
	const ckpt_var *v0;
	uint64_t *changed;
};

/* Values of the slab in w that --dtype changed (work_slabs()' done): that
 * the stored type does not hold as the mean in the inputs' type is. */
static void changed_by_dtype(void *arg, const struct work *w)
{
	struct changes *c = arg;

	if (w->natural)
		*c->changed += count_changed(c->v0->name, w->start, w->natural->out, w->scratch,
		                             w->c->out, w->out, w->p.n);
}

/* Average this rank's share of variable v0 (a merge method's dot
 * products and windows: dots, where measured, and win); returns how many
 * values were out of the range of the type stored, and in *changed how
 * many --dtype changed. */
static size_t average_var(struct job *j, ckpt_outvar *ov, const ckpt_var *v0,
                          const struct share *sh, uint64_t *changed, const double *dots,
                          struct var_windows win)
{
	ckpt_slab *s = calloc(j->nin, sizeof *s);
	size_t *which = calloc(j->nin, sizeof *which), m, bad = 0;
	ckpt_dtype *types = calloc(j->nin, sizeof *types);
	int mixed = 0;
	double *wbuf = calloc(j->nin, sizeof *wbuf);
	ckpt_dtype to = opt.dtype != CKPT_OTHER ? opt.dtype : v0->dtype;
	struct work w[2] = {{0}};
	struct changes cc = {v0, changed};
	struct slab_run run;
	ckpt_combine c, natural;
	int lossy = !ckpt_dtype_holds(to, v0->dtype);

	if (!s || !which || !wbuf || !types)
		die("out of memory");
	if (j->method) {
		free(s);
		free(which);
		free(types);
		free(wbuf);
		return method_var(j, ov, v0, to, sh, dots, win);
	}
	if (sh->end == sh->first) {
		write_rest(ov, 0, sh->rounds);
		goto done;
	}
	m = open_readers(j, v0, s, which, types, &mixed);
	for (size_t i = 0; i < m; i++)
		ckpt_slab_seek(&s[i], sh->first);
	ckpt_combine_init(&c, v0->dtype, to, m, subset_weights(j, which, m, wbuf));
	if (mixed)
		c.types = types;
	natural = c;
	natural.out = v0->dtype;
	for (int i = 0; i < 2; i++) {
		w[i].c = &c;
		w[i].natural = lossy ? &natural : NULL;
		w[i].ptrs = calloc(m, sizeof *w[i].ptrs);
		w[i].out = malloc(s[0].cap * ckpt_dtype_size(to) + 1);
		w[i].scratch = lossy ? malloc(s[0].cap * ckpt_dtype_size(v0->dtype) + 1) : NULL;
		if (!w[i].ptrs || !w[i].out || (lossy && !w[i].scratch))
			die("out of memory");
	}
	run = (struct slab_run){s, m, sh->end - sh->first, ckpt_dtype_size(v0->dtype), ov,
	                        changed_by_dtype, &cc, 0, 0};
	work_slabs(w, &run);
	bad = run.bad;
	write_rest(ov, run.written, sh->rounds);
	for (size_t i = 0; i < m; i++)
		ckpt_slab_close(&s[i]);
	for (int i = 0; i < 2; i++) {
		free(w[i].ptrs);
		free(w[i].out);
		free(w[i].scratch);
	}
done:
	free(s);
	free(which);
	free(types);
	free(wbuf);
	return bad;
}

/* A variable that is not averaged is copied from the first input; when it
 * is selected but not numeric, it must be the same in every input. */
static void check_same(struct job *j, const ckpt_var *v0)
{
	for (size_t k = 1; k < j->nin; k++) {
		const ckpt_var *v = ckpt_find(j->in[k], v0->name);
		int same = v ? ckpt_vars_same(j->in[0], v0, j->in[k], v) : 1;

		if (same == CKPT_NOT_COMPARABLE)
			die("%s (--exclude copies it from the first input)", ckpt_errmsg());
		if (same < 0)
			die_lib();
		if (!same)
			die("%s: variable '%s' (%s, not a numeric type ckpt computes "
			    "with) differs from %s's; it cannot be averaged (--exclude "
			    "copies it from the first input)",
			    j->in[k]->name, v0->name, v0->type, j->in[0]->name);
	}
}

/* ---- main ----------------------------------------------------------------- */

/* --dry-run: what each variable of the first input would become. */
static int dry_run(struct job *j)
{
	for (size_t i = 0; i < j->in[0]->nvars; i++) {
		const ckpt_var *v = &j->in[0]->vars[i];

		if (computed(v) && j->method)
			method_plan(j, v);
		else if (computed(v))
			printf("%s\t%s of %zu inputs\n", v->name, j->weights ? "weighted sum" : "mean",
			       j->nin);
		else
			printf("%s\tcopied from %s%s\n", v->name, j->in[0]->name,
			       !ckpt_select_match(&opt.sel, v->name) ? " (--only/--exclude)"
			       : v->dtype == CKPT_OTHER || opt.method_set ? " (not a float)" : "");
	}
	ckpt_close_inputs(j->in, j->nin);
	free((void *)j->weights);
	ckpt_select_free(&opt.sel);
	return finish(EXIT_OK);
}

/* How many inputs have variable v (of the first). */
static size_t having(const struct job *j, const ckpt_var *v)
{
	size_t m = 1;

	for (size_t k = 1; k < j->nin; k++)
		m += ckpt_find(j->in[k], v->name) != NULL;
	return m;
}

/* Average the computed variables of the batch that starts at variable
 * `from` of the first input; returns where the next batch starts.  Under
 * MPI the variables written collectively go first, in step on every rank,
 * then each rank computes its run of the others without waiting. */
static size_t average_batch(struct job *j, ckpt_out *o, size_t from, uint64_t *bad,
                            uint64_t *changed)
{
	const ckpt_var *vars = j->in[0]->vars, *v[BATCH];
	ckpt_outvar *ov[BATCH];
	struct share sh[BATCH];
	size_t n = 0, at[BATCH], to = from, most = ckpt_par_on() ? BATCH : 1;
	double *dots;
	struct batch_windows bw;

	for (; to < j->in[0]->nvars && n < most; to++) {
		if (!computed(&vars[to]))
			continue;
		v[n] = &vars[to];
		at[n] = to;
		if (!(ov[n++] = ckpt_outvar_open(o, vars[to].name, opt.dtype != CKPT_OTHER ?
		                                 opt.dtype : vars[to].dtype)))
			die_lib();
	}
	plan_batch(j, v, ov, n, sh);
	dots = dots_batch(j, v, ov, n, sh);
	windows_batch(j, v, ov, sh, n, &bw);
	for (int pass = 1; pass >= 0; pass--)
		for (size_t i = 0; i < n; i++) {
			if (ckpt_outvar_collective(ov[i]) != pass ||
			    (ckpt_par_on() && !ckpt_outvar_shareable(ov[i])))
				continue;
			if (opt.verbose) {
				size_t m = having(j, v[i]);

				warn("%s: averaging over %zu input%s", v[i]->name, m, m == 1 ? "" : "s");
			}
			bad[at[i]] = average_var(j, ov[i], v[i], &sh[i], &changed[at[i]],
			                         dots ? dots + i * dots_count(j) : NULL,
			                         windows_of(j, &bw, ov[i], &sh[i], i));
		}
	windows_done(j, v, ov, sh, n, &bw);
	for (size_t i = 0; i < n; i++)
		ckpt_outvar_close(ov[i]);
	free(dots);
	return to;
}

/* Under MPI, before the output is shared: the variables whose values live
 * in the file's metadata (compact storage), which only one rank may
 * write, computed whole by rank 0. */
static void average_unshareable(struct job *j, ckpt_out *o, uint64_t *bad,
                                uint64_t *changed)
{
	const struct share whole = {0, SIZE_MAX, 0, 0, 1};

	for (size_t i = 0; i < j->in[0]->nvars; i++) {
		const ckpt_var *v = &j->in[0]->vars[i];
		ckpt_outvar *ov;

		if (!computed(v))
			continue;
		if (!(ov = ckpt_outvar_open(o, v->name, opt.dtype != CKPT_OTHER ? opt.dtype
		                                                               : v->dtype)))
			die_lib();
		if (!ckpt_outvar_shareable(ov))
			bad[i] = average_var(j, ov, v, &whole, &changed[i], NULL,
			                     (struct var_windows){NULL, NULL});
		ckpt_outvar_close(ov);
	}
}

int main(int argc, char **argv)
{
	struct job j = {0};
	ckpt_out *o = NULL;
	uint64_t total = 0, *bad, *changed, nchanged = 0, vchanged = 0;
	size_t navg = 0, nv;
	const ckpt_var *vars;

	prog_init(argv[0], synopsis);
	parse_options(argc, argv);
	j.verbose = opt.verbose;
	if (opt.base && (ckpt_open_inputs(opt.base, &j.in, &j.nin) < 0 || j.nin != 1))
		die(j.nin > 1 ? "%s: holds %zu checkpoints; --base is one" : "%s",
		    j.nin > 1 ? opt.base : ckpt_errmsg(), j.nin);
	for (int i = optind; i < argc; i++) {
		size_t had = j.nin;

		if (ckpt_open_inputs(argv[i], &j.in, &j.nin) < 0)
			die_lib();
		for (size_t k = had ? had : 1; k < j.nin; k++)
			ckpt_forget_structure(j.in[k]); /* the first input's is copied */
	}
	if (opt.method_set)
		setup_method(&j);
	else
		j.weights = parse_weights(j.nin);
	check_inputs(j.in, j.nin);
	if (opt.dry_run)
		return dry_run(&j);
	ninputs = j.nin;
	vars = j.in[0]->vars;
	for (size_t i = 0; i < j.in[0]->nvars; i++) {
		if (computed(&vars[i])) {
			total += vars[i].nbytes * j.nin;
			navg++;
		} else if (vars[i].dtype == CKPT_OTHER && ckpt_select_match(&opt.sel, vars[i].name)) {
			check_same(&j, &vars[i]);
		}
	}
	nv = j.in[0]->nvars;
	if (!(bad = calloc(nv + 1, sizeof *bad)) || !(changed = calloc(nv + 1, sizeof *changed)))
		die("out of memory");
	/* the structure, the copied variables and those the ranks cannot
	 * share: rank 0 alone (MPI) */
	if (ckpt_par_rank() == 0) {
		if (!(o = ckpt_out_open(opt.out, opt.force, j.in[0])))
			die_lib();
		if (ckpt_copy_structure(j.in[0], o, decide, NULL) < 0) {
			ckpt_out_abort(o);
			die_lib();
		}
		if (ckpt_par_on())
			average_unshareable(&j, o, bad, changed);
	}
	/* the computed values: every rank its share */
	if (!(o = ckpt_out_share(o)))
		die_lib();
	total /= (uint64_t)ckpt_par_size(); /* progress: rank 0's share, about */
	progress_start(opt.quiet ? -1 : opt.progress, total, "averaging");
	for (size_t i = 0; i < nv; i = average_batch(&j, o, i, bad, changed))
		;
	progress_end();
	if (ckpt_par_sum_u64(bad, nv) < 0 || ckpt_par_sum_u64(changed, nv) < 0)
		die_lib();
	for (size_t i = 0; i < nv && !opt.quiet; i++)
		warn_out_of_range(vars[i].name, (size_t)bad[i],
		                  opt.dtype != CKPT_OTHER ? opt.dtype : vars[i].dtype);
	for (size_t i = 0; i < nv; i++) {
		nchanged += changed[i];
		vchanged += changed[i] != 0;
	}
	set_changed(nchanged, vchanged);
	if (ckpt_out_commit(o) < 0)
		die_lib();
	if (!opt.quiet)
		warn_changed();
	if (opt.verbose)
		warn("%zu variable%s averaged over %zu inputs, %zu copied from %s", navg,
		     navg == 1 ? "" : "s", j.nin, j.in[0]->nvars - navg, j.in[0]->name);
	ckpt_close_inputs(j.in, j.nin);
	free((void *)j.weights);
	free(bad);
	free(changed);
	ckpt_select_free(&opt.sel);
	return finish(EXIT_OK);
}
