/* mblockint.h - (internal to libckpt) what mblock.c (the formula over a
 * block: the driver, double-double, exactly) and mquick.c (its plain
 * double step) share: the block's working arrays and small helpers. */
#ifndef CKPT_MBLOCKINT_H
#define CKPT_MBLOCKINT_H

#include "method.h"
#include "methodint.h"
#include "vec.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define BLOCK 256

/* The models the float32 steps take element by element in one loop (the
 * loop over them unrolled); more, a model at a time.  (clang leaves those
 * loops scalar - it vectorises the loops over the models, whose sums it
 * may not reorder, and not the loop over the elements - and takes the
 * loops a model at a time instead.) */
enum { FUSED = 4 };
#ifdef __clang__
#define FUSED_LOOPS 0
#else
#define FUSED_LOOPS 1
#endif

/* Where the fused loops' keeps come from: the keep rows, the plain
 * windows (plain_windows()), or DARE's draws made in the loop
 * (draw_keep()). */
enum { KEEP_ROWS, KEEP_WINDOWS, KEEP_DRAWS };

/* The fused loops' variants (mquick.c's formula_f32(), mfloat.c's
 * formula()): one for each count of models n up to FUSED, way of
 * electing (e: elects, c: by count) and source of the keeps (w, one of
 * the above); FORMULA_VARIANTS(CASE) lists CASE(n, e, c, w) for each,
 * formula_variant() is the one for v. */
#define FORMULA_VARIANT(n, e, c, w) (9 * (n) + 3 * ((e) + (c)) + (w))
#define FORMULA_VARIANTS_OF_KEEPS(CASE, n, w)                                      \
	CASE(n, 0, 0, w) CASE(n, 1, 0, w) CASE(n, 1, 1, w)
#define FORMULA_VARIANTS_OF(CASE, n)                                               \
	FORMULA_VARIANTS_OF_KEEPS(CASE, n, KEEP_ROWS)                              \
	FORMULA_VARIANTS_OF_KEEPS(CASE, n, KEEP_WINDOWS)                           \
	FORMULA_VARIANTS_OF_KEEPS(CASE, n, KEEP_DRAWS)
#define FORMULA_VARIANTS(CASE)                                                     \
	FORMULA_VARIANTS_OF(CASE, 1) FORMULA_VARIANTS_OF(CASE, 2)                  \
	FORMULA_VARIANTS_OF(CASE, 3) FORMULA_VARIANTS_OF(CASE, 4)

static inline size_t formula_variant(const ckpt_mvar *v, int keeps)
{
	int elects = ckpt_method_elects(v->m->kind);

	return FORMULA_VARIANT(v->nx, (size_t)elects, (size_t)(elects && v->m->sign_count),
	                       (size_t)keeps);
}

/* DARE's keep of the element i past the one of counter z (a model's key
 * plus the element's index + 1 times CKPT_GOLDEN: ckpt_dare_draw()'s): 1 where
 * its draw u 2^-53 is below the density, i.e. u below limit = ceil(density
 * 2^53) */
static inline double draw_keep(uint64_t z, uint64_t i, uint64_t limit)
{
	return splitmix64(z + i * CKPT_GOLDEN) >> 11 < limit ? 1.0 : 0.0;
}

/* The float lanes' step (mfloat.c) for a variable: whether it applies
 * (on), its bounds on an element's inputs' exponent fields (the largest's
 * less the least nonzero one's at most span, the least at least lmin),
 * its coefficients as floats. */
struct mfloat {
	int on, span, lmin;
	float w[FUSED], a, lambda, dc;
};

/* A block's working arrays; x, th, tl and keep hold one row per model. */
struct scratch {
	double b[BLOCK], shi[BLOCK], slo[BLOCK], smag[BLOCK], big[BLOCK], least[BLOCK];
	double whi[BLOCK], wlo[BLOCK], wmag[BLOCK], wbig[BLOCK], wleast[BLOCK];
	double res[BLOCK], rlo[BLOCK], rhi[BLOCK], dh[BLOCK], dl[BLOCK];
	double exact[BLOCK], dexact[BLOCK], pow2[BLOCK], hard[BLOCK], slack[BLOCK];
	double ones[BLOCK];     /* the keep row of a model no mask or window trims */
	double ush[BLOCK], ucount[BLOCK], wmin[BLOCK], wmax[BLOCK], uexact[BLOCK];
	double exact_c;         /* ckpt_mquick_exact_constant() */
	double equal_c;         /* ckpt_mquick_equal_constant() */
	int quick, f32;         /* ckpt_mquick_applies(), ckpt_mquick_f32_applies() */
	int melect;             /* ckpt_melect_applies() */
	struct mfloat fl;       /* ckpt_mfloat_setup() */
	float fres[BLOCK];      /* its results, and 1 where an element is not */
	float fmiss[BLOCK];     /* exact in float */
	uint64_t idx[BLOCK];    /* each element's flat index */
	size_t at[BLOCK];       /* a pending element's place in the range's out */
	double pb[BLOCK];       /* the pending elements' base values (x: in px) */
	uint64_t pidx[BLOCK];
	size_t npend;
	unsigned char special[BLOCK];
	unsigned char lo_out[BLOCK * 8], hi_out[BLOCK * 8];
	double *x, *th, *tl;
	double *keep;           /* 1 or 0: the model is in A */
	double *px, *pkeep;     /* the pending elements' rows */
	unsigned char *keep1;
	double *x1;
	float *frow;            /* f32 == 2: the block's inputs widened */
	int draws;              /* DARE's draws made in the fused loops */
	int drawn;              /* the block's keep rows drawn */
	uint64_t dz[FUSED];     /* each model's counter at the block's start */
	uint64_t dlimit;        /* DARE: ceil(density 2^53) */
};

/* The fused loops' keeps for a block: the plain windows where windowed,
 * else DARE's draws where the loops make them, else the rows. */
static inline int block_keeps(const struct scratch *s, int windowed)
{
	return windowed ? KEEP_WINDOWS : s->draws ? KEEP_DRAWS : KEEP_ROWS;
}

/* Model k's keep flags in the block: its mask's or window's, or ones. */
static inline const double *keep_row(const struct scratch *s, size_t k, int masked)
{
	return masked ? s->keep + k * BLOCK : s->ones;
}

/* Track a term's size: the largest, and the least nonzero. */
static inline void track(double t, double *big, double *least)
{
	double a = fabs(t);

	*big = a > *big ? a : *big;
	*least = a < *least ? (a != 0 ? a : *least) : *least;
}

/* A sum of at most n terms, each a multiple of the least one's last place,
 * is exact in a pair of doubles when the largest is within 2^50 / n of it.
 * (Flags are doubles, 0 or 1, and conditions selections, not branches:
 * the loops vectorise.) */
static inline double span_exact(double big, double least, double n)
{
	double r = big * n <= least * 0x1p50 ? 1.0 : 0.0;

	r = least >= 0x1p-900 ? r : 0.0;
	r = big < 0x1p990 ? r : 0.0;
	return big == 0 ? 1.0 : r;
}

static inline int all_zero(const double *v, size_t n)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t b;

		memcpy(&b, &v[i], sizeof b);
		acc |= b;
	}
	return (acc << 1) == 0;
}

static inline double sign_d(double x)
{
	return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
}

/* Whether a model of weight sign sw and task vector t agrees with the
 * elected sign r: sw sign(t) = r, i.e. t sw r > 0 (t = 0 never agrees;
 * the products are exact, or NaN where t is infinite and sw 0). */
static inline int agrees(double t, double sw, double r)
{
	return t * (sw * r) > 0;
}

/* Ranks above a boundary: keys are below 2^63, compared as signed
 * integers (which AVX2 compares, not unsigned ones). */
static inline double below(int64_t ckey, int64_t cindex, double all, int64_t key,
                           int64_t index)
{
	double r = key == ckey ? (index < cindex ? 1.0 : 0.0) : 0.0;

	r = key > ckey ? 1.0 : r;
	return all != 0 ? 1.0 : r;
}

/* 1 where the element of key and index at is in the window [lo, hi) */
static inline double in_window(const ckpt_rank_cut *lo, const ckpt_rank_cut *hi, int64_t key,
                               int64_t at)
{
	return below((int64_t)hi->key, (int64_t)hi->index, hi->all, key, at) *
	       (1 - below((int64_t)lo->key, (int64_t)lo->index, lo->all, key, at));
}

/* Where no element of the block [start, start + m) has a cut's index, the
 * cut is a key alone: an element ranks above it when its key is above *g
 * (the cut's key, or one less where the block's indices are all below its
 * index; -1 for a cut past the last element).  Keys are at least 0, so no
 * g overflows. */
static inline int plain_cut(const ckpt_rank_cut *c, uint64_t start, size_t m, int64_t *g)
{
	if (c->all)
		*g = -1;
	else if (c->index >= start + m)
		*g = (int64_t)c->key - 1;
	else if (c->index <= start)
		*g = (int64_t)c->key;
	else
		return 0;
	return 1;
}

/* 1 where key is in the window: above ghi's key, not above glo's */
static inline double in_plain_window(int64_t glo, int64_t ghi, int64_t key)
{
	return key > ghi && key <= glo ? 1.0 : 0.0;
}

/* Where every model's window is the keys' alone in the block (plain_cut()),
 * their bounds (glo, ghi): the one-loop formula tests each element's key
 * as it computes its task vector, and no keep rows are filled. */
static inline int plain_windows(const ckpt_mvar *v, uint64_t start, size_t m, int64_t *glo,
                         int64_t *ghi)
{
	for (size_t k = 0; k < v->nx; k++)
		if (!plain_cut(&v->lo[k], start, m, &glo[k]) || !plain_cut(&v->hi[k], start, m, &ghi[k]))
			return 0;
	return 1;
}

/* 1 where the task vector t (x - b rounded, as its key) is in the plain
 * window (glo, ghi] */
static inline double keep_t(int64_t glo, int64_t ghi, double t)
{
	double a = fabs(t);
	int64_t key;

	memcpy(&key, &a, sizeof key);
	return in_plain_window(glo, ghi, key);
}

/* r = (a D b + lambda S) / D (D du, S sum) and its bounds into lo, hi: where
 * exact, r itself (an exact 0 made +0); else within E = n 2^-50 (|a b| +
 * |lambda| smag / |dz|) of it (dz: D where the sums are plain).  *hard set
 * where E or r is out of range (NaN and Inf too).  (ckpt_mquick()'s end
 * and the bounded election's.) */
static inline void quotient_bounds(double a, double lambda, double b, double du, double sum,
                                   double dz, double smag, double n, double exact,
                                   double *lo, double *hi, double *hard)
{
	double r = (a * du * b + lambda * sum) / du;
	double e = n * 0x1p-50 * (fabs(a * b) + fabs(lambda) * smag / fabs(dz)) + 0x1p-1060;

	e = exact != 0 ? 0 : e;
	r = exact != 0 ? r + 0.0 : r;
	*lo = r - e;
	*hi = r + e;
	*hard = e <= 0x1p1000 ? *hard : 1.0;
	*hard = fabs(r) <= 0x1.fffffffffffffp1023 ? *hard : 1.0;
}

#if CKPT_HAVE_FMA
/* DARE's keep row for one model's key (ckpt_mix64(mask_key + model)), m
 * elements from start: 1 where the draw's u is below limit = ceil(density
 * 2^53), in AVX2 (mblock.c takes it where the CPU has AVX2 but not
 * AVX-512's 64-bit products; the tests, wherever it has AVX2). */
void ckpt_dare_row_avx2(uint64_t key, uint64_t start, size_t m, uint64_t limit, double *keep);
#endif

/* Where the fused loops draw DARE's keeps (draws): the keep rows of the
 * block of m elements from start drawn, once, for a step that takes them
 * from the rows. */
void ckpt_mblock_keep_rows(const ckpt_mvar *v, struct scratch *s, uint64_t start, size_t m);
/* Whether they can on this CPU; on 0, for the tests, they do not (the
 * rows drawn first, as elsewhere) until called with 1. */
int ckpt_mblock_draw_in_loops(int on);

/* hard: also where the two bounds (lo_out, hi_out: es bytes each) rounded
 * apart */
void ckpt_mblock_undecided(struct scratch *s, size_t m, size_t es);

/* The plain-double step (mquick.c): whether it applies to v at all; where
 * it is exact (0: nowhere); the block into out,
 * hard where it cannot decide, returning how many values overflowed. */
int ckpt_mquick_applies(const ckpt_mvar *v);
double ckpt_mquick_exact_constant(const ckpt_mvar *v);
/* Where it is exact for agreeing models of one weight (0: nowhere else) */
double ckpt_mquick_equal_constant(const ckpt_mvar *v, double exact_c);
size_t ckpt_mquick(const ckpt_mvar *v, struct scratch *s, void *out, size_t m, int masked);
/* The terms of its exact constant c (none: returns 0): D's largest over
 * the power of two all its values are multiples of (dodd), the least
 * exponent E. */
struct ckpt_exact_terms {
	double c, dodd;
	int e;
};
int ckpt_mquick_exact_terms(const ckpt_mvar *v, struct ckpt_exact_terms *x);

/* Its float32 step (the inputs float32, or 16-bit floats widened to
 * float): whether it applies to v (0; 1: all float32; 2: through float
 * rows); the block's m elements (the variable's from start) from the
 * inputs (the base's, then the models') into out, of v's output type,
 * where the whole block is exact or bounded (else 0, nothing done), adding
 * the values that overflowed to *bad: 1.  Where its bounds leave at most
 * FEW_UNDECIDED elements undecided (an exact 0 among them: its bounds
 * round to zeros of either sign), the rest stored: 2, those elements
 * hard (their places 0, to be filled).  It applies the magnitude windows
 * itself (DARE's mask: the caller's keep rows). */
enum { FEW_UNDECIDED = 16 };
int ckpt_mquick_f32_applies(const ckpt_mvar *v, double exact_c);
int ckpt_mquick_f32(const ckpt_mvar *v, struct scratch *s, const float *const *in, void *out,
                    uint64_t start, size_t m, int masked, size_t *bad);

/* Its bounded step (mbounded.c), where the block is not exact and nothing
 * is elected: returns as ckpt_mquick_f32() does. */
int ckpt_mbounded_f32(const ckpt_mvar *v, struct scratch *s, const float *const *in, void *out,
                      size_t m, int masked, size_t *bad);

/* Its bounded step with an election (mbounded.c), where the block is not
 * exact: whether it applies to v (up to FUSED models, weights that keep
 * every term of a float input above 0); returns as ckpt_mquick_f32() does,
 * from the keep rows or (glo not NULL) the plain windows (plain_windows()),
 * leaving the rows as they are. */
int ckpt_melect_applies(const ckpt_mvar *v);
/* The float lanes' step (mfloat.c), where every input is a 16-bit float:
 * its setup for v; the block into out where every element is exact in
 * float (1), or all but FEW_UNDECIDED at most (2, those hard, as
 * ckpt_mquick_f32()'s; else 0, nothing stored), from the keep rows or
 * (glo not NULL) the plain windows. */
void ckpt_mfloat_setup(const ckpt_mvar *v, struct mfloat *f);
int ckpt_mfloat(const ckpt_mvar *v, struct scratch *s, const float *const *in, void *out,
                size_t m, int masked, const int64_t *glo, const int64_t *ghi, size_t *bad);
int ckpt_melect_f32(const ckpt_mvar *v, struct scratch *s, const float *const *in, void *out,
                    size_t m, int masked, const int64_t *glo, const int64_t *ghi, size_t *bad);

#endif
