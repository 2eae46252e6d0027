/* method.h - merge methods beyond the mean (task arithmetic, TIES, DARE,
 * breadcrumbs, SLERP, model stock), element by element, each result the
 * exact value of its formula rounded once into the stored type.
 *
 * Every method is one formula per element,
 *
 *     r = sum_j a_j b + lambda S / D,   S = sum_{i in A} w_i (x_i - b),
 *     D = dc (elect ? sum_{i in A} w_i : 1)   (S / D = 0 where D = 0)
 *
 * with b the base (or SLERP's first model), x_i the models, A the models an
 * element keeps (DARE's random mask, a magnitude window, TIES' sign
 * election), and the constants a_j, lambda, dc from the method (and, for
 * SLERP and model stock, from the whole tensor's dot products, which the
 * caller measures first with ckpt_dot_*).  ckpt-average(1) states them. */
#ifndef CKPT_METHOD_H
#define CKPT_METHOD_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "file.h"

typedef enum ckpt_method_kind {
	CKPT_TASK_ARITHMETIC,
	CKPT_TIES,
	CKPT_DARE_TIES,
	CKPT_DARE_LINEAR,
	CKPT_BREADCRUMBS,
	CKPT_BREADCRUMBS_TIES,
	CKPT_SLERP,
	CKPT_MODEL_STOCK,
} ckpt_method_kind;

/* The method's name ("dare-ties") and back; -1 for an unknown name. */
const char *ckpt_method_name(ckpt_method_kind k);
int ckpt_method_parse(const char *s, ckpt_method_kind *k);

/* What a method needs. */
int ckpt_method_uses_base(ckpt_method_kind k);   /* task vectors against --base */
int ckpt_method_ranks(ckpt_method_kind k);       /* a magnitude window per model */
int ckpt_method_random(ckpt_method_kind k);      /* DARE's mask */
int ckpt_method_elects(ckpt_method_kind k);      /* TIES' sign election */
int ckpt_method_dots(ckpt_method_kind k);        /* dot products of the tensor */

/* The options of a run. */
typedef struct ckpt_method {
	ckpt_method_kind kind;
	size_t nmodels;
	const double *weights;  /* one per model, as used */
	double lambda, density, gamma, t;
	int sign_count;         /* TIES: elect by count, not by sum */
	int normalize;          /* TIES family: divide by the agreeing weights */
	double divisor;         /* S is divided by it besides (equal weights:
	                         * their number), unless normalize divides */
	uint64_t seed;
} ckpt_method;

/* A model's window of ranks: element e is kept when its rank among the
 * magnitudes |x - b| (rounded to double; larger first, equal ones by lower
 * flat index) is in [lo, hi).  A rank boundary is the (key, index) of the
 * element at that rank: rank(e) < boundary when key(e) > key, or key(e) ==
 * key and index(e) < index. */
typedef struct ckpt_rank_cut {
	uint64_t key, index;
	int all;                /* the boundary is past the last element */
} ckpt_rank_cut;

/* One variable's plan. */
typedef struct ckpt_mvar {
	const ckpt_method *m;
	const ckpt_var *var;    /* of the first input */
	ckpt_dtype out;
	const ckpt_dtype *types; /* the base's (or the first model's), then the models' */
	uint64_t mask_key;      /* DARE: from the seed and the name */
	ckpt_rank_cut *lo, *hi; /* per model, for the magnitude windows */
	double a, lambda, dc;   /* the base's coefficient, lambda, D's constant */
	size_t nx;              /* models in the formula (SLERP: 1) */
} ckpt_mvar;

/* The rank window of each model for n elements: [first, first + keep). */
void ckpt_method_window(const ckpt_method *m, uint64_t n, uint64_t *first, uint64_t *keep);

/* SplitMix64's finaliser, and DARE's draw for model i (from 0) at element
 * index: a double in [0, 1), kept when below the density. */
uint64_t ckpt_mix64(uint64_t z);
uint64_t ckpt_dare_key(uint64_t seed, const char *name);
double ckpt_dare_draw(uint64_t key, size_t model, uint64_t index);

/* The magnitude key of x - b: the bits of |RN(x - b)|; and of n values x
 * of type tx against b of type tb, into keys. */
uint64_t ckpt_magnitude_key(double x, double b);
void ckpt_magnitude_keys(ckpt_dtype tb, const void *b, ckpt_dtype tx, const void *x,
                         uint64_t *keys, size_t n);

/* x - b for n values x of type tx and b of type tb, exactly: th + tl (a
 * double and its error); returns 1 where every tl is 0. */
int ckpt_task_vector(ckpt_dtype tb, const void *b, ckpt_dtype tx, const void *x, double *th,
                     double *tl, size_t n);

/* Elements [off, off + n) of a slab whose element 0 is the variable's
 * element `start`: out[i] from in[0][i] (the base) and in[1..nx][i] (the
 * models), each in its type.  Threads may compute disjoint ranges of a
 * slab at once.  Returns how many results were out of the stored type's
 * range; SIZE_MAX when out of memory. */
size_t ckpt_method_range(const ckpt_mvar *v, const void *const *in, void *out,
                         uint64_t start, size_t off, size_t n);

#endif
