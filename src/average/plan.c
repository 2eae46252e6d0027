/* plan.c - ckpt-average's variables shared among the ranks of an MPI run. */
#include <stdlib.h>
#include <string.h>

#include "prog.h"
#include "average/average.h"

/* The slabs (units) of a batch's variables on this rank's plan: each
 * variable's first unit, how many it has, and for each unit whether a rank
 * may start there (whole chunks end there) and its bytes. */
struct units {
	size_t n, *base, *count;
	unsigned char *edge;
	double *weight;
};

static void count_units(struct job *j, const ckpt_var *const *v, size_t nv, struct units *u)
{
	memset(u, 0, sizeof *u);
	if (!(u->base = calloc(nv + 1, sizeof *u->base)) ||
	    !(u->count = calloc(nv + 1, sizeof *u->count)))
		die("out of memory");
	for (size_t i = 0; i < nv; i++) {
		ckpt_slab s;
		size_t n;

		if (ckpt_slab_open(&s, j->in[0], v[i], AVG_SLAB_BYTES) < 0)
			die_lib();
		n = u->count[i] = ckpt_slab_count(&s, NULL);
		u->base[i] = u->n;
		if (!(u->edge = realloc(u->edge, u->n + n + 1)) ||
		    !(u->weight = realloc(u->weight, (u->n + n + 1) * sizeof *u->weight)))
			die("out of memory");
		ckpt_slab_count(&s, u->edge + u->n);
		ckpt_slab_close(&s);
		for (size_t k = 0; k < n; k++)
			u->weight[u->n++] = (double)v[i]->nbytes / (double)n;
	}
}

static void free_units(struct units *u)
{
	free(u->base);
	free(u->count);
	free(u->edge);
	free(u->weight);
}

/* Cut units [lo, hi) into one run per rank, each starting at an edge:
 * rank q gets [cut[q], cut[q+1]). */
static void cut_units(const struct units *u, size_t lo, size_t hi, size_t p, size_t *cut)
{
	cut_runs(u->weight + lo, u->edge + lo, hi - lo, p, cut);
	for (size_t q = 0; q <= p; q++)
		cut[q] += lo;
}

/* This rank's part of units [lo, hi) of variable i, from the runs cut,
 * and which ranks have one. */
static void take(const struct units *u, size_t i, const size_t *cut, size_t p,
                 struct share *sh)
{
	size_t lo = u->base[i], hi = lo + u->count[i], r = (size_t)ckpt_par_rank();

	memset(sh, 0, sizeof *sh);
	for (size_t q = 0; q < p; q++) {
		size_t a = cut[q] > lo ? cut[q] : lo, b = cut[q + 1] < hi ? cut[q + 1] : hi;
		size_t n = b > a ? b - a : 0;

		if (n > sh->rounds)
			sh->rounds = n;
		if (n && !sh->nranks++) /* (the runs follow each other: the ranks too) */
			sh->rank0 = q;
		if (q == r && n) {
			sh->first = a - lo;
			sh->end = b - lo;
		}
	}
}

/* Every rank's plan for a batch (the same on all): a variable written
 * collectively is cut among the ranks by itself, since every rank takes
 * part in its writes anyway; the others are cut as one run of slabs.  One
 * rank: all of every variable. */
void plan_batch(struct job *j, const ckpt_var *const *v, ckpt_outvar *const *ov,
                       size_t nv, struct share *sh)
{
	size_t p = (size_t)ckpt_par_size(), *cut = calloc(p + 1, sizeof *cut), *all;
	struct units u;

	if (!ckpt_par_on()) {
		for (size_t i = 0; i < nv; i++)
			sh[i] = (struct share){0, SIZE_MAX, 0, 0, 1};
		free(cut);
		return;
	}
	if (!cut || !(all = calloc(p + 1, sizeof *all)))
		die("out of memory");
	count_units(j, v, nv, &u);
	cut_units(&u, 0, u.n, p, all);
	for (size_t i = 0; i < nv; i++) {
		if (ckpt_outvar_collective(ov[i]))
			cut_units(&u, u.base[i], u.base[i] + u.count[i], p, cut);
		take(&u, i, ckpt_outvar_collective(ov[i]) ? cut : all, p, &sh[i]);
	}
	free_units(&u);
	free(cut);
	free(all);
}


void write_rest(ckpt_outvar *ov, size_t written, size_t rounds)
{
	if (!ckpt_outvar_collective(ov))
		return;
	for (; written < rounds; written++)
		if (ckpt_outvar_write(ov, NULL, NULL) < 0)
			die_lib();
}
