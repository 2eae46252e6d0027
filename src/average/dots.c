/* dots.c - ckpt-average's dot products (SLERP, model stock), each rounded
 * exactly: in a pass over a variable's slabs in double-double with a bound
 * (the same result whatever the split where the bound decides the
 * rounding: nearly always), else exactly; under MPI each rank sums its
 * share of the slabs and the ranks' exact sums are added.  And the
 * coefficients they give. */
#include <math.h>
#include <stdlib.h>

#include "prog.h"
#include "average/average.h"
#include "average/pieces.h"
#include "lib/par.h"
#include "lib/xsum.h"

/* Model stock: tau_i.tau_j, i <= j (tau_i exactly: th + tl, tl mostly 0);
 * SLERP: the same of x0 and x1 (x0.x0, x0.x1, x1.x1). */
struct dots {
	size_t nmodels;
	int slerp;
	ckpt_xsum *s;
	double *th, *tl; /* PIECE per model */
	double *bound;   /* NULL: exactly; else what each sum may be off by */
	int *exact;      /* per model: its piece's tl all 0 */
	float *f;        /* PIECE per input, where the pairs are taken at
	                  * once (pairs_at_once()): widened */
};

/* d's sum p += a . b, exactly or with its bound */
static void dot(struct dots *d, size_t p, const double *a, const double *b, size_t n)
{
	if (d->bound)
		ckpt_xsum_dot_bounded(&d->s[p], &d->bound[p], a, b, n);
	else
		ckpt_xsum_dot(&d->s[p], a, b, n);
}

/* The pairs at once, from the inputs widened to float (with a bound;
 * xsum.h says where it can): 1 where done. */
static int pair_dots(struct dots *d, const struct piece *pc)
{
	const float *f[4];

	for (size_t k = 0; k <= d->nmodels; k++)
		if (!(f[k] = ckpt_as_float(pc->types[k], pc->in[k], d->f + k * PIECE, pc->n)))
			return 0;
	if (d->slerp) /* (x0 and x1, no base) */
		return ckpt_xsum_pair_dots_f32(d->s, d->bound, NULL, f, 2, pc->n);
	return ckpt_xsum_pair_dots_f32(d->s, d->bound, f[0], f + 1, d->nmodels, pc->n);
}

/* Whether a variable's pairs are taken at once: inputs float holds, and
 * a CPU and model count ckpt_xsum_pair_dots_f32() takes. */
static int pairs_at_once(size_t nin, const ckpt_dtype *types, int slerp)
{
	for (size_t k = 0; k < nin; k++)
		if (!ckpt_dtype_holds(CKPT_F32, types[k]))
			return 0;
	return ckpt_xsum_pair_dots_can(slerp ? 2 : nin - 1);
}

static void dot_piece(void *ctx, const struct piece *pc)
{
	struct dots *d = ctx;
	const double *const *x = pc->x; /* (SLERP's: model stock's come from the inputs) */
	size_t nm = d->nmodels, n = pc->n;

	if (d->bound && d->f && pair_dots(d, pc))
		return;
	if (d->slerp) {
		dot(d, 0, x[0], x[0], n);
		dot(d, 1, x[0], x[1], n);
		dot(d, 2, x[1], x[1], n);
		return;
	}
	for (size_t a = 0; a < nm; a++)
		d->exact[a] = ckpt_task_vector(pc->types[0], pc->in[0], pc->types[a + 1],
		                               pc->in[a + 1], d->th + a * PIECE, d->tl + a * PIECE, n);
	for (size_t a = 0, p = 0; a < nm; a++)
		for (size_t b = a; b < nm; b++, p++) {
			const double *ah = d->th + a * PIECE, *al = d->tl + a * PIECE;
			const double *bh = d->th + b * PIECE, *bl = d->tl + b * PIECE;

			dot(d, p, ah, bh, n);
			if (d->exact[a] && d->exact[b])
				continue;
			dot(d, p, ah, bl, n);
			dot(d, p, al, bh, n);
			dot(d, p, al, bl, n);
		}
}

/* SLERP's coefficients from the tensor's dot products, as mergekit's
 * slerp(): normalised vectors (a norm of at most 1e-8 left as it is),
 * linear where |cos| > 0.9995; NaN (a NaN or Inf in the tensor) makes
 * them NaN. */
static void slerp_coefficients(double t, double dot, double n0, double n1, double *s0,
                               double *s1)
{
	double u0 = sqrt(n0), u1 = sqrt(n1), c, theta, st;

	u0 = u0 > 1e-8 ? u0 : 1;
	u1 = u1 > 1e-8 ? u1 : 1;
	c = dot / (u0 * u1);
	if (fabs(c) > 0.9995) {
		*s0 = 1 - t;
		*s1 = t;
		return;
	}
	theta = acos(c);
	st = sin(theta);
	*s0 = sin(theta - theta * t) / st;
	*s1 = sin(theta * t) / st;
}

/* Model stock's t from the mean pairwise cosine of the task vectors. */
static double stock_t(size_t n, const double *dots)
{
	double sum = 0, *sq = calloc(n, sizeof *sq);
	size_t pairs = 0;

	if (!sq)
		die("out of memory");
	for (size_t a = 0, p = 0; a < n; a++)
		for (size_t b = a; b < n; b++, p++)
			if (a == b)
				sq[a] = sqrt(dots[p]);
	for (size_t a = 0, p = 0; a < n; a++)
		for (size_t b = a; b < n; b++, p++) {
			double prod = sq[a] * sq[b], c;

			if (a == b)
				continue;
			c = dots[p] / (prod > 1e-6 ? prod : 1e-6);
			sum += c < -1 ? -1 : c > 1 ? 1 : c;
			pairs++;
		}
	free(sq);
	sum /= (double)pairs;
	return (double)n * sum / (1 + (double)(n - 1) * sum);
}

/* One pass of the dot products over the slabs of span, each into s[p]
 * (the two threads' exact sums added) and, not exactly, what it may be
 * off by into bound[p] (else bound NULL). */
static void dot_pass(struct job *j, const ckpt_var *v0, const ckpt_dtype *types, int slerp,
                     size_t np, struct span span, ckpt_xsum *s, double *bound)
{
	struct dots d[2];
	void *ctx[2] = {&d[0], &d[1]};
	size_t nx = j->nin - 1;
	int pairs = pairs_at_once(nx + 1, types, slerp);

	for (int t = 0; t < 2; t++) {
		d[t] = (struct dots){nx, slerp, calloc(np, sizeof *d[t].s),
		                     calloc(nx * PIECE, sizeof *d[t].th),
		                     calloc(nx * PIECE, sizeof *d[t].tl),
		                     bound ? calloc(np, sizeof(double)) : NULL, calloc(nx, sizeof(int)),
		                     pairs ? malloc((nx + 1) * PIECE * sizeof(float)) : NULL};
		if (!d[t].s || !d[t].th || !d[t].tl || (bound && !d[t].bound) || !d[t].exact ||
		    (pairs && !d[t].f))
			die("out of memory");
	}
	/* (SLERP's inputs as doubles where they are not paired) */
	each_piece(j, v0, dot_piece, ctx, 1, (struct spans){&span, 1, 0},
	           slerp && (!bound || !pairs), NULL, NULL);
	for (size_t p = 0; p < np; p++) { /* each half's sum exact: the same whatever the split */
		ckpt_xsum_merge(&d[0].s[p], &d[1].s[p]);
		s[p] = d[0].s[p];
		if (bound)
			bound[p] = d[0].bound[p] + d[1].bound[p];
	}
	for (int t = 0; t < 2; t++) {
		free(d[t].s);
		free(d[t].th);
		free(d[t].tl);
		free(d[t].bound);
		free(d[t].exact);
		free(d[t].f);
	}
}

/* The sums rounded into val, within their bounds (where bound decides each:
 * 1; else 0) or exactly (bound NULL). */
static int round_sums(ckpt_xsum *s, const double *bound, size_t np, double *val)
{
	int decided = 1;

	for (size_t p = 0; p < np; p++)
		if (bound)
			decided &= ckpt_xsum_round_bounded(&s[p], bound[p], &val[p]);
		else
			val[p] = ckpt_xsum_round(&s[p]);
	return decided;
}

static void say(const struct job *j, const ckpt_var *v0, int decided)
{
	if (j->verbose)
		warn("%s: dot products measured in %s", v0->name,
		     decided ? "1 pass" : "2 passes (the second exactly)");
}

size_t dots_count(const struct job *j)
{
	size_t nx = j->nin - 1;

	return j->method->kind == CKPT_SLERP ? 3 : nx * (nx + 1) / 2;
}

/* The elements of this rank's share of v0: the first input's slabs
 * first .. end (not empty; end SIZE_MAX: all of them). */
static struct span share_span(struct job *j, const ckpt_var *v0, const struct share *sh)
{
	ckpt_slab s;
	struct span sp;

	if (sh->first == 0 && sh->end == SIZE_MAX)
		return whole;
	if (ckpt_slab_open(&s, j->in[0], v0, AVG_SLAB_BYTES) < 0)
		die_lib();
	ckpt_slab_seek(&s, sh->first);
	sp.from = s.start;
	ckpt_slab_seek(&s, sh->end);
	sp.to = s.start;
	ckpt_slab_close(&s);
	return sp;
}

/* The sums of the variables v[i] with want[i] (np each), over this rank's
 * share sh[i] of each; across the ranks (collective), every rank's added. */
static void pass_vars(struct job *j, const ckpt_var *const *v, size_t n,
                      const struct share *sh, const int *want, int across, ckpt_xsum *s,
                      double *bound)
{
	size_t np = dots_count(j), total = n * np, P = (size_t)ckpt_par_size();
	int slerp = j->method->kind == CKPT_SLERP;
	ckpt_dtype *types = calloc(j->nin, sizeof *types);
	double *all = across && bound ? malloc((P * total + 1) * sizeof *all) : NULL;

	if (!types || (across && bound && !all))
		die("out of memory");
	for (size_t p = 0; p < total; p++)
		ckpt_xsum_init(&s[p]);
	for (size_t i = 0; i < n; i++)
		if (want[i] && sh[i].end > sh[i].first) {
			method_types(j, v[i], types);
			dot_pass(j, v[i], types, slerp, np, share_span(j, v[i], &sh[i]), s + i * np,
			         bound ? bound + i * np : NULL);
		}
	if (across && (ckpt_xsum_sum_ranks(s, total) < 0 ||
	               (bound && ckpt_par_gather(bound, total, all) < 0)))
		die_lib();
	for (size_t p = 0; all && p < total; p++) { /* (in rank order: alike on every rank) */
		bound[p] = 0;
		for (size_t q = 0; q < P; q++)
			bound[p] += all[q * total + p];
	}
	free(types);
	free(all);
}

/* The dot products of the variables v[i] with want[i] into val + i np,
 * each rounded once: a pass with bounds, and where they do not decide a
 * variable's, a pass more, exactly; over this rank's shares sh[i] and,
 * across, the ranks' sums added (collective: every rank decides alike,
 * from the same sums and bounds). */
static void measure_vars(struct job *j, const ckpt_var *const *v, size_t n,
                         const struct share *sh, const int *want, int across, double *val)
{
	size_t np = dots_count(j), total = n * np;
	ckpt_xsum *s = calloc(total + 1, sizeof *s);
	double *bound = calloc(total + 1, sizeof *bound);
	int *again = calloc(n + 1, sizeof *again), more = 0;

	if (!s || !bound || !again)
		die("out of memory");
	pass_vars(j, v, n, sh, want, across, s, bound);
	for (size_t i = 0; i < n; i++)
		more |= again[i] = want[i] && !round_sums(s + i * np, bound + i * np, np, val + i * np);
	if (more) {
		pass_vars(j, v, n, sh, again, across, s, NULL);
		for (size_t i = 0; i < n; i++)
			if (again[i])
				round_sums(s + i * np, NULL, np, val + i * np);
	}
	for (size_t i = 0; i < n; i++)
		if (want[i])
			say(j, v[i], !again[i]);
	free(s);
	free(bound);
	free(again);
}

double *dots_batch(struct job *j, const ckpt_var *const *v, ckpt_outvar *const *ov, size_t n,
                   const struct share *sh)
{
	int *want;
	double *val;

	if (!ckpt_par_on() || !j->method || !ckpt_method_dots(j->method->kind))
		return NULL;
	if (!(want = calloc(n + 1, sizeof *want)) ||
	    !(val = calloc(n * dots_count(j) + 1, sizeof *val)))
		die("out of memory");
	for (size_t i = 0; i < n; i++) /* (rank 0 computed the others before) */
		want[i] = ckpt_outvar_shareable(ov[i]);
	measure_vars(j, v, n, sh, want, 1, val);
	free(want);
	return val;
}

void dots_measure(struct job *j, const ckpt_var *v0, ckpt_mvar *mv, const double *measured)
{
	static const struct share all = {0, SIZE_MAX, 0, 0, 1};
	static const int one = 1;
	double *own = measured ? NULL : calloc(dots_count(j), sizeof *own);
	const double *val = measured ? measured : own;

	if (!val)
		die("out of memory");
	if (own) /* (the whole tensor, on this rank alone) */
		measure_vars(j, &v0, 1, &all, &one, 0, own);
	if (j->method->kind == CKPT_SLERP) {
		slerp_coefficients(j->method->t, val[1], val[0], val[2], &mv->a, &mv->lambda);
	} else {
		mv->lambda = stock_t(mv->nx, val);
		mv->dc = (double)mv->nx;
	}
	free(own);
}
