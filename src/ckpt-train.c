/* ckpt-train - the built-in reference linear model; writes checkpoints. */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "prog.h"

static const char synopsis[] = "[options] -o FILE";

static struct options {
	const char *out, *init, *apply, *prefix;
	int force, quiet, verbose, gradients, random_prefix, sync_grads;
	uint64_t iterations, steps, workers, local_steps, batch, seed, data_seed;
	uint64_t features, outputs, print_every;
	int have_iterations, have_steps, have_features, have_outputs;
	double lr;
} opt = {
	.iterations = 201, .workers = 1, .local_steps = 1, .batch = 100,
	.features = 1, .outputs = 1, .print_every = 20, .lr = 0.5,
};

static void usage(void)
{
	printf("usage: %s %s\n"
	       "Train the reference linear model y = W x + b on y = 0.1 x + 0.3 by gradient\n"
	       "descent (float32, data as numpy draws it) and write it as a checkpoint.\n\n"
	       "  -o FILE               output checkpoint ('-' for stdout)\n"
	       "  -f, --force           replace FILE if it exists\n"
	       "  --iterations N        training iterations (default 201)\n"
	       "  --workers N           data-parallel workers; worker i uses batch i (default 1)\n"
	       "  --sync params|grads   average the workers' weights (default) or gradients\n"
	       "  --local-steps K       steps each worker takes per iteration (params; default 1)\n"
	       "  --batch N             points per batch (default 100)\n"
	       "  --lr X                learning rate (default 0.5)\n"
	       "  --seed S              seed of the initial weights (default 0)\n"
	       "  --data-seed I         first batch number (default 0)\n"
	       "  --features N          inputs per point: W is [M,N] (default 1)\n"
	       "  --outputs M           outputs per point (default 1)\n"
	       "  --init FILE           start from this checkpoint (with or without a prefix)\n"
	       "  --steps K             one worker, K steps from --init (0: write the start)\n"
	       "  --gradients           write the gradient at the start instead of training\n"
	       "  --apply FILE          apply this gradient once, with --lr\n"
	       "  --prefix P            name the variables P/w and P/b\n"
	       "  --random-prefix       name them under a random hexadecimal prefix\n"
	       "  --print-every N       report every N iterations on stderr (default 20, 0: never)\n"
	       "  -q, --quiet           no reports\n"
	       "  -v, --verbose         report every iteration\n"
	       "  -h, --help            show this help and exit\n"
	       "  -V, --version         show the version and exit\n",
	       progname, synopsis);
}

enum { OPT_ITER = 256, OPT_WORKERS, OPT_SYNC, OPT_LOCAL, OPT_BATCH, OPT_LR,
       OPT_SEED, OPT_DATASEED, OPT_FEATURES, OPT_OUTPUTS, OPT_INIT, OPT_STEPS,
       OPT_GRADS, OPT_APPLY, OPT_PREFIX, OPT_RANDPREFIX, OPT_PRINT };

static const struct option longopts[] = {
	{"apply", required_argument, NULL, OPT_APPLY},
	{"batch", required_argument, NULL, OPT_BATCH},
	{"data-seed", required_argument, NULL, OPT_DATASEED},
	{"features", required_argument, NULL, OPT_FEATURES},
	{"force", no_argument, NULL, 'f'},
	{"gradients", no_argument, NULL, OPT_GRADS},
	{"help", no_argument, NULL, 'h'},
	{"init", required_argument, NULL, OPT_INIT},
	{"iterations", required_argument, NULL, OPT_ITER},
	{"local-steps", required_argument, NULL, OPT_LOCAL},
	{"lr", required_argument, NULL, OPT_LR},
	{"outputs", required_argument, NULL, OPT_OUTPUTS},
	{"prefix", required_argument, NULL, OPT_PREFIX},
	{"print-every", required_argument, NULL, OPT_PRINT},
	{"quiet", no_argument, NULL, 'q'},
	{"random-prefix", no_argument, NULL, OPT_RANDPREFIX},
	{"seed", required_argument, NULL, OPT_SEED},
	{"steps", required_argument, NULL, OPT_STEPS},
	{"sync", required_argument, NULL, OPT_SYNC},
	{"verbose", no_argument, NULL, 'v'},
	{"version", no_argument, NULL, 'V'},
	{"workers", required_argument, NULL, OPT_WORKERS},
	{NULL, 0, NULL, 0},
};

#define BIG ((uint64_t)1 << 40)

/* Under mpirun -n P (make mpi) the workers are the ranks, worker i on rank
 * i; the one-step modes run on one rank. */
static void parallel_workers(void)
{
	uint64_t p = (uint64_t)ckpt_par_size();

	if (p == 1)
		return;
	if (opt.have_steps || opt.gradients || opt.apply)
		usage_error("--steps, --gradients and --apply run on one rank, not under "
		            "mpirun -n %llu", (unsigned long long)p);
	if (opt.workers != 1 && opt.workers != p)
		usage_error("--workers %llu: under MPI the workers are the %llu ranks",
		            (unsigned long long)opt.workers, (unsigned long long)p);
	opt.workers = p;
}

static void parse_options(int argc, char **argv)
{
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":fho:qvV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': opt.out = optarg; break;
		case 'f': opt.force = 1; break;
		case 'q': opt.quiet = 1; ckpt_set_warn(NULL); break;
		case 'v': opt.verbose = 1; break;
		case OPT_ITER:
			opt.iterations = parse_count("--iterations", optarg, 1, BIG);
			opt.have_iterations = 1;
			break;
		case OPT_WORKERS: opt.workers = parse_count("--workers", optarg, 1, 1 << 20); break;
		case OPT_LOCAL: opt.local_steps = parse_count("--local-steps", optarg, 1, BIG); break;
		case OPT_BATCH: opt.batch = parse_count("--batch", optarg, 1, 1 << 26); break;
		case OPT_SEED: opt.seed = parse_count("--seed", optarg, 0, UINT32_MAX); break;
		case OPT_DATASEED: opt.data_seed = parse_count("--data-seed", optarg, 0, UINT32_MAX); break;
		case OPT_FEATURES:
			opt.features = parse_count("--features", optarg, 1, 1 << 24);
			opt.have_features = 1;
			break;
		case OPT_OUTPUTS:
			opt.outputs = parse_count("--outputs", optarg, 1, 1 << 24);
			opt.have_outputs = 1;
			break;
		case OPT_PRINT: opt.print_every = parse_count("--print-every", optarg, 0, BIG); break;
		case OPT_LR: opt.lr = parse_real("--lr", optarg); break;
		case OPT_STEPS:
			opt.steps = parse_count("--steps", optarg, 0, BIG);
			opt.have_steps = 1;
			break;
		case OPT_SYNC:
			if (strcmp(optarg, "params") && strcmp(optarg, "grads"))
				usage_error("--sync: '%s' is neither 'params' nor 'grads'", optarg);
			opt.sync_grads = strcmp(optarg, "grads") == 0;
			break;
		case OPT_INIT: opt.init = optarg; break;
		case OPT_APPLY: opt.apply = optarg; break;
		case OPT_GRADS: opt.gradients = 1; break;
		case OPT_PREFIX: opt.prefix = optarg; break;
		case OPT_RANDPREFIX: opt.random_prefix = 1; break;
		default: common_option(c, usage, argv);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!opt.out)
		usage_error("no output given (-o FILE)");
	if (opt.have_steps && (opt.have_iterations || opt.workers > 1))
		usage_error("--steps trains one worker; it goes without "
		            "--iterations and --workers");
	if (opt.gradients + !!opt.apply + opt.have_steps > 1)
		usage_error("--gradients, --apply and --steps exclude each other");
	if ((opt.gradients || opt.apply) && opt.workers > 1)
		usage_error("--gradients and --apply are for one worker");
	if (opt.prefix && opt.random_prefix)
		usage_error("--prefix and --random-prefix exclude each other");
	if (opt.prefix && (!*opt.prefix || strchr(opt.prefix, '/') == opt.prefix))
		usage_error("--prefix: '%s' is not a usable name", opt.prefix);
	if (opt.verbose)
		opt.print_every = 1;
	if (opt.quiet || ckpt_par_rank() != 0) /* under MPI rank 0 reports */
		opt.print_every = 0;
	parallel_workers();
}

/* ---- reporting ----------------------------------------------------------- */

static void show(const char *what, const ckpt_linear *m, float loss)
{
	char w[CKPT_FMT_MAX], b[CKPT_FMT_MAX], l[CKPT_FMT_MAX];
	int scalar = m->features == 1 && m->outputs == 1;

	ckpt_fmt_double(m->w[0], CKPT_F32, w);
	ckpt_fmt_double(m->b[0], CKPT_F32, b);
	ckpt_fmt_double(loss, CKPT_F32, l);
	fprintf(stderr, "%s: w%s=%s b%s=%s loss=%s\n", what, scalar ? "" : "[0]", w,
	        scalar ? "" : "[0]", b, l);
}

static void report(size_t it, const ckpt_linear *m, float loss, void *user)
{
	uint64_t start = *(uint64_t *)user;
	char what[64];

	if (!opt.print_every || it % opt.print_every)
		return;
	snprintf(what, sizeof what, "iteration %llu", (unsigned long long)(start + it));
	show(what, m, loss);
}

/* ---- the runs ------------------------------------------------------------ */

static char *random_prefix(void)
{
	unsigned char r[4] = {0};
	char *p = malloc(16);
	int fd = open("/dev/urandom", O_RDONLY);

	if (fd < 0 || read(fd, r, sizeof r) != (ssize_t)sizeof r)
		die("/dev/urandom: cannot read a random prefix");
	close(fd);
	snprintf(p, 16, "%02x%02x%02x%02x", r[0], r[1], r[2], r[3]);
	return p;
}

static char *options_text(void)
{
	static char buf[1024];

	snprintf(buf, sizeof buf,
	         "model=linear workers=%llu sync=%s local_steps=%llu batch=%llu lr=%.9g "
	         "seed=%llu data_seed=%llu features=%llu outputs=%llu%s%s%s%s",
	         (unsigned long long)opt.workers, opt.sync_grads ? "grads" : "params",
	         (unsigned long long)opt.local_steps, (unsigned long long)opt.batch,
	         (double)(float)opt.lr, (unsigned long long)opt.seed,
	         (unsigned long long)opt.data_seed, (unsigned long long)opt.features,
	         (unsigned long long)opt.outputs, opt.init ? " init=" : "",
	         opt.init ? opt.init : "", opt.apply ? " apply=" : "",
	         opt.apply ? opt.apply : "");
	return buf;
}

static ckpt_batch *make_batches(size_t n, size_t features, size_t outputs)
{
	ckpt_batch *b = calloc(n + 1, sizeof *b);

	if (!b)
		die("out of memory");
	for (size_t i = 0; i <= n; i++) /* batch n: the held-out test data */
		if (ckpt_batch_make(&b[i], (uint32_t)(opt.data_seed + i), opt.batch,
		                    features, outputs) < 0)
			die_lib();
	return b;
}

int main(int argc, char **argv)
{
	ckpt_linear m, g;
	ckpt_batch *batches;
	char *found = NULL, *prefix;
	uint64_t start = 0, done;
	float loss;
	size_t workers;

	prog_init(argv[0], synopsis);
	parse_options(argc, argv);

	if (opt.init) {
		/* the shape comes from the file, except what was asked for */
		if (ckpt_linear_load(&m, opt.init, opt.prefix,
		                     opt.have_features ? opt.features : 0,
		                     opt.have_outputs ? opt.outputs : 0, &found, &start) < 0)
			die_lib();
	} else if (ckpt_linear_init(&m, opt.features, opt.outputs, (uint32_t)opt.seed) < 0) {
		die_lib();
	}
	prefix = opt.prefix ? strdup(opt.prefix) : opt.random_prefix ? random_prefix() :
	         found ? found : strdup("");
	workers = opt.have_steps || opt.gradients || opt.apply ? 1 : opt.workers;
	batches = make_batches(workers, m.features, m.outputs);

	if (opt.gradients || opt.apply) {
		if (opt.apply) {
			if (ckpt_linear_load(&g, opt.apply, NULL, m.features, m.outputs, NULL,
			                     NULL) < 0)
				die_lib();
			ckpt_linear_apply(&m, &g, (float)opt.lr);
			done = 1;
		} else {
			if (ckpt_linear_copy(&g, &m) < 0)
				die_lib();
			ckpt_linear_grad(&m, &batches[0], &g);
			done = 0;
		}
		loss = ckpt_linear_loss(&m, &batches[0]);
	} else {
		ckpt_train_opts to = {
			.workers = workers,
			.iterations = opt.have_steps ? opt.steps : opt.iterations,
			.local_steps = opt.local_steps,
			.sync_grads = opt.sync_grads,
			.lr = (float)opt.lr,
			.report = report,
			.user = &start,
		};
		loss = to.iterations ? ckpt_linear_train(&m, batches, &to)
		                     : ckpt_linear_loss(&m, &batches[0]);
		if (isnan(loss) && *ckpt_errmsg())
			die_lib();
		done = to.iterations;
		if (!opt.quiet && done && ckpt_par_rank() == 0) {
			char what[64];

			snprintf(what, sizeof what, "test loss on batch %llu",
			         (unsigned long long)(opt.data_seed + workers));
			fprintf(stderr, "%s: %s\n", what, ckpt_fmt_double(
			        ckpt_linear_loss(&m, &batches[workers]), CKPT_F32,
			        (char[CKPT_FMT_MAX]){0}));
		}
	}
	/* under MPI every rank holds the result; rank 0 writes it */
	if (ckpt_par_rank() == 0 &&
	    ckpt_linear_save(opt.gradients ? &g : &m, opt.out, opt.force, prefix,
	                     start + done, loss, options_text()) < 0)
		die_lib();
	if (opt.gradients || opt.apply)
		ckpt_linear_free(&g);
	for (size_t i = 0; i <= workers; i++)
		ckpt_batch_free(&batches[i]);
	free(batches);
	ckpt_linear_free(&m);
	free(prefix);
	return finish(EXIT_OK);
}
