/* average.h - what ckpt-average's parts share: the job, each rank's share
 * of a variable under MPI, and the merge methods' driver. */
#ifndef CKPT_AVERAGE_H
#define CKPT_AVERAGE_H

#include <stddef.h>

#include "lib/ckpt.h"
#include "lib/method.h"

/* Slab bytes per input: slabs read by copying stay in cache (the copy out
 * of the page cache is what costs); slabs read in place are not copied.
 * 512 KiB, measured (4 x 1 GiB float32, 5 alternating runs, medians; an
 * AMD EPYC with 512 KiB of L2 per core): the linear average of three
 * 1.46 s wall (2.37 s CPU) at 1 MiB, 1.13 s (1.91 s) here, 1.29 s at
 * 256 KiB against 1.45 s; TIES 3.26 s at 1 MiB, 3.00 s here; earlier, on
 * another machine, 1.08 s at 2 MiB against 0.89 s at 1 MiB.  The writes
 * of the output, at the slab's size, cost less too. */
#define AVG_SLAB_BYTES (1u << 19)

/* Under MPI variables are done in batches: opened together (collectively),
 * computed by the ranks independently, closed together.  Alone, one at a
 * time: an open variable holds HDF5's chunk cache. */
#define BATCH 256

struct job {
	ckpt_file **in;         /* with a merge method: the base (or SLERP's
	                         * first model) first, then the models */
	size_t nin;
	const double *weights;
	const ckpt_method *method; /* NULL: the mean or a linear combination */
	int verbose;            /* say how a variable was measured */
};

/* Which slabs of a variable this rank computes: [first, end) of the first
 * input's slabs; rounds, how many writes each rank makes when writes are
 * collective (the most slabs any rank has); the ranks that compute some
 * of them, rank0 .. rank0 + nranks - 1.  One rank: all of them. */
struct share {
	size_t first, end, rounds, rank0, nranks;
};

/* Every rank's plan for a batch of nv variables (the same on all). */
void plan_batch(struct job *j, const ckpt_var *const *v, ckpt_outvar *const *ov,
                size_t nv, struct share *sh);

/* Write what is left of a collective variable's rounds: nothing. */
void write_rest(ckpt_outvar *ov, size_t written, size_t rounds);

/* What finding a variable's magnitude windows took, for -v: passes over
 * all its slabs, passes over some stretches alone and how many
 * stretches, the sample's size (0: none). */
struct windows_said {
	uint64_t passes, ranged, spans, sampled;
};

/* A variable's magnitude windows where the batch found them (cuts: the
 * models' lo cuts, then their hi ones; else NULL), and where what finding
 * them here took is kept for the batch's end (said; NULL: nowhere). */
struct var_windows {
	const ckpt_rank_cut *cuts;
	struct windows_said *said;
};

/* A merge method on this rank's share of variable v0 (of the first
 * input), into type `to`, with its dot products where the batch measured
 * them (dots_batch(); else NULL) and its windows w; returns how many
 * values were out of its range. */
size_t method_var(struct job *j, ckpt_outvar *ov, const ckpt_var *v0, ckpt_dtype to,
                  const struct share *sh, const double *dots, struct var_windows w);

/* The types of variable v0 in each input. */
void method_types(const struct job *j, const ckpt_var *v0, ckpt_dtype *types);

/* The dot products a variable takes (SLERP: 3; model stock: one a pair of
 * models, i <= j). */
size_t dots_count(const struct job *j);

/* Under MPI, with SLERP or model stock, the dot products of the batch's
 * variables (those the batch computes; malloc'd, dots_count(j) a
 * variable): each rank sums over its share sh[i] and the ranks' exact sums
 * are added, so that none reads a tensor whole for them (collective).
 * Else NULL. */
double *dots_batch(struct job *j, const ckpt_var *const *v, ckpt_outvar *const *ov, size_t n,
                   const struct share *sh);

/* Whether more than one rank computes a part of the variable (sh, its
 * share of the batch's plan): one written collectively, or one whose
 * slabs two neighbours' runs share. */
int windows_shared(const ckpt_outvar *ov, const struct share *sh);

/* Under MPI, with a method that keeps magnitude windows, the batch's
 * windows: the cuts of its shared variables (windows_shared()), the i-th
 * from cuts + 2 nx i, each variable's found by one rank alone over the
 * whole tensor (the largest variable first, each by the rank with the
 * fewest elements to read so far: of all ranks for one written
 * collectively, of those that compute it for one neighbours share) and
 * exchanged in one sum over the ranks (collective), where each rank that
 * computes a part found them before; and room for what finding the
 * others' takes the rank that computes them.  Else all NULL. */
struct batch_windows {
	ckpt_rank_cut *cuts;
	struct windows_said *said;
};

void windows_batch(struct job *j, const ckpt_var *const *v, ckpt_outvar *const *ov,
                   const struct share *sh, size_t n, struct batch_windows *bw);
/* Variable i's part of them (for method_var()). */
struct var_windows windows_of(const struct job *j, const struct batch_windows *bw,
                              const ckpt_outvar *ov, const struct share *sh, size_t i);
/* At the batch's end, with -v (collective): rank 0 says the windows of
 * the variables another rank computed alone, as the serial program says
 * them; then the batch's windows freed. */
void windows_done(struct job *j, const ckpt_var *const *v, ckpt_outvar *const *ov,
                  const struct share *sh, size_t n, struct batch_windows *bw);

/* SLERP's or model stock's coefficients of v0 into mv, from its dot
 * products (measured: dots_batch()'s; NULL: measured here, whole). */
void dots_measure(struct job *j, const ckpt_var *v0, ckpt_mvar *mv, const double *measured);

/* What method_var will do with v0, on one line of stdout (--dry-run). */
void method_plan(const struct job *j, const ckpt_var *v0);

#endif
