/* method.c - ckpt-average's merge methods, one variable at a time: the
 * whole-tensor quantities first (magnitude windows by radix select; dot
 * products exactly, dots.c), each in streamed passes over every input's
 * slabs, then the formula over this rank's share, slab by slab. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prog.h"
#include "average/average.h"
#include "average/pieces.h"
#include "average/work.h"
#include "lib/par.h"
#include "lib/topk.h"

struct readers {
	size_t n;
	ckpt_slab *s;
	ckpt_dtype *types;
};

static void open_all(struct job *j, const ckpt_var *v0, struct readers *r, size_t slab_bytes)
{
	r->n = j->nin;
	if (!(r->s = calloc(j->nin, sizeof *r->s)) || !(r->types = calloc(j->nin, sizeof *r->types)))
		die("out of memory");
	for (size_t k = 0; k < j->nin; k++) {
		const ckpt_var *v = k ? ckpt_find(j->in[k], v0->name) : v0;

		if (ckpt_slab_open(&r->s[k], j->in[k], v, slab_bytes) < 0 ||
		    (k && ckpt_slab_follow(&r->s[k], &r->s[0]) < 0))
			die_lib();
		r->types[k] = v->dtype;
	}
}

static void close_all(struct readers *r)
{
	for (size_t k = 0; k < r->n; k++)
		ckpt_slab_close(&r->s[k]);
	free(r->s);
	free(r->types);
}


/* The slab being taken piece by piece (work.h): its buffers stay valid
 * while the next slab is read. */
struct cur_slab {
	const struct readers *r;
	const void **in;
	uint64_t start;
	int doubles;
	const struct span *span;
};

/* What one thread takes pieces with. */
struct taker {
	piece_fn *fn;
	void *ctx;
	const struct cur_slab *s;
	double *buf;
	const double **x;
	const void **at; /* the inputs at the piece */
};

static void take_piece(void *arg, size_t off, size_t n)
{
	struct taker *h = arg;
	const struct cur_slab *s = h->s;
	const struct readers *r = s->r;
	struct piece p = {h->at, r->types, s->doubles ? h->x : NULL, s->start + off, n, s->span};

	for (size_t k = 0; k < r->n; k++) {
		h->at[k] = (const char *)s->in[k] + off * ckpt_dtype_size(r->types[k]);
		if (s->doubles)
			ckpt_to_double(r->types[k], h->at[k], h->buf + k * PIECE, n);
	}
	h->fn(h->ctx, &p);
}

static void new_taker(struct taker *h, piece_fn *fn, void *ctx, const struct cur_slab *s,
                      size_t nin)
{
	*h = (struct taker){fn, ctx, s, s->doubles ? malloc(nin * PIECE * sizeof *h->buf) : NULL,
	                    calloc(nin, sizeof *h->x), calloc(nin, sizeof *h->at)};
	if ((s->doubles && !h->buf) || !h->x || !h->at)
		die("out of memory");
	for (size_t k = 0; s->doubles && k < nin; k++)
		h->x[k] = h->buf + k * PIECE;
}

static void free_taker(struct taker *h)
{
	free(h->buf);
	free(h->x);
	free(h->at);
}

/* Seek every input to the slab that holds element `from` (seeks, no
 * reads). */
static void seek_all(struct readers *r, uint64_t from)
{
	size_t slab = ckpt_slab_seek_element(&r->s[0], from);

	for (size_t i = 1; i < r->n; i++)
		ckpt_slab_seek(&r->s[i], slab);
}

void each_piece(struct job *j, const ckpt_var *v0, piece_fn *fn, void **ctx, int split,
                struct spans sp, int doubles, slab_fn *after, void *arg)
{
	struct readers r;
	struct cur_slab s = {&r, NULL, 0, doubles, NULL};
	struct taker h[2]; /* h[1] the worker's */
	struct pieces p = {.fn = take_piece, .ctx = {&h[0], &h[1]}, .piece = PIECE};
	struct reading rd;
	int more;

	open_all(j, v0, &r, sp.per ? sp.per * ckpt_dtype_size(v0->dtype) : AVG_SLAB_BYTES);
	reading_open(&rd, r.s, r.n);
	if (!(s.in = calloc(j->nin, sizeof *s.in)))
		die("out of memory");
	new_taker(&h[0], fn, ctx[0], &s, j->nin);
	new_taker(&h[1], fn, ctx[split ? 1 : 0], &s, j->nin);
	for (s.span = sp.at; s.span < sp.at + sp.n; s.span++) {
		seek_all(&r, s.span->from);
		for (more = reading_all(&rd, 1); more;) {
			for (size_t k = 0; k < j->nin; k++)
				s.in[k] = r.s[k].buf;
			s.start = r.s[0].start;
			reading_start(&rd, !s.span->to || s.start + r.s[0].count < s.span->to);
			pieces_start(&p, r.s[0].count, &rd);
			reading_take(&rd);
			pieces_finish(&p, split);
			more = reading_done(&rd);
			if (after)
				after(arg, s.start + p.n);
		}
	}
	reading_close(&rd);
	close_all(&r);
	free(s.in);
	free_taker(&h[0]);
	free_taker(&h[1]);
}

/* ---- magnitude windows ---------------------------------------------------- */

struct keying {
	ckpt_topk *t;
	int lane;
	size_t nmodels;
	uint64_t sampled; /* elements */
	uint64_t keys[PIECE];
	float fb[PIECE], fx[PIECE]; /* (inputs of other types float holds, widened) */
};

static void key_piece(void *ctx, const struct piece *p)
{
	struct keying *k = ctx;
	const float *fb = ckpt_as_float(p->types[0], p->in[0], k->fb, p->n), *fx;

	for (size_t m = 0; m < k->nmodels; m++) {
		/* (floats: keyed as fed, most of them not stored) */
		if (fb && (fx = ckpt_as_float(p->types[m + 1], p->in[m + 1], k->fx, p->n)) != NULL) {
			ckpt_topk_feed_f32(k->t, k->lane, m, fb, fx, p->start, p->n);
			continue;
		}
		ckpt_magnitude_keys(p->types[0], p->in[0], p->types[m + 1], p->in[m + 1], k->keys,
		                    p->n);
		ckpt_topk_feed(k->t, k->lane, m, k->keys, p->start, p->n);
	}
}

/* The keys of the piece's elements in its span, into the sample. */
static void sample_piece(void *ctx, const struct piece *p)
{
	struct keying *k = ctx;
	uint64_t a = p->start > p->span->from ? p->start : p->span->from;
	uint64_t e = p->start + p->n < p->span->to ? p->start + p->n : p->span->to;
	size_t off = (size_t)(a - p->start), n = (size_t)(e - a);

	if (a >= e)
		return;
	k->sampled += n;
	for (size_t m = 0; m < k->nmodels; m++) {
		ckpt_magnitude_keys(p->types[0],
		                    (const char *)p->in[0] + off * ckpt_dtype_size(p->types[0]),
		                    p->types[m + 1],
		                    (const char *)p->in[m + 1] + off * ckpt_dtype_size(p->types[m + 1]),
		                    k->keys, n);
		ckpt_topk_sample(k->t, m, k->keys, n);
	}
}

static void narrow(void *t, uint64_t done)
{
	ckpt_topk_narrow(t, done);
}

/* The sample that guides the first pass: want elements in SAMPLE_PARTS
 * stretches spread evenly over the variable (its start alone may be unlike
 * the rest: an embedding's first rows, say), on one thread. */
enum { SAMPLE_PARTS = 32 };

static void sample(struct job *j, const ckpt_var *v0, struct keying *k, uint64_t want)
{
	void *ctx[2] = {k, k};
	struct span part[SAMPLE_PARTS];

	for (uint64_t p = 0; p < SAMPLE_PARTS; p++) {
		part[p].from = v0->nelems / SAMPLE_PARTS * p;
		part[p].to = part[p].from + want * (p + 1) / SAMPLE_PARTS - want * p / SAMPLE_PARTS;
	}
	k->sampled = 0;
	each_piece(j, v0, sample_piece, ctx, 0,
	           (struct spans){part, SAMPLE_PARTS, (want + SAMPLE_PARTS - 1) / SAMPLE_PARTS}, 0,
	           NULL, NULL);
}

static void say_windows(const struct job *j, const ckpt_var *v0, const struct windows_said *w)
{
	char after[64] = "", partial[64] = "";

	if (w->sampled)
		snprintf(after, sizeof after, " (after a sample of %llu elements)",
		         (unsigned long long)w->sampled);
	if (w->ranged) /* (a pass over the slabs of some stretches alone) */
		snprintf(partial, sizeof partial, " and %llu over %llu stretch%s alone",
		         (unsigned long long)w->ranged, (unsigned long long)w->spans,
		         w->spans == 1 ? "" : "es");
	if (j->verbose)
		warn("%s: magnitude windows found in %llu pass%s%s%s", v0->name,
		     (unsigned long long)w->passes, w->passes == 1 ? "" : "es", partial, after);
}

/* The passes over the variable: each slab's halves on two threads, two
 * lanes of the selection, but where it looks for an index in flat order
 * (or in a range alone). */
static void find_windows(struct job *j, const ckpt_var *v0, size_t nx, ckpt_rank_cut *lo,
                         ckpt_rank_cut *hi, struct windows_said *said)
{
	uint64_t first, keep;
	size_t want;
	int passes;
	struct keying *k = malloc(2 * sizeof *k);
	struct span *range = malloc(2 * nx * sizeof *range);
	ckpt_topk *t;
	void *ctx[2] = {&k[0], &k[1]};

	*said = (struct windows_said){0, 0, 0, 0};
	ckpt_method_window(j->method, v0->nelems, &first, &keep);
	if (!k || !range || !(t = ckpt_topk_new(nx, v0->nelems, first, first + keep)))
		die("out of memory");
	for (int l = 0; l < 2; l++) {
		k[l].t = t;
		k[l].lane = l;
		k[l].nmodels = nx;
	}
	/* the first keys tell where to look (a guess: a pass may be saved) */
	if ((want = ckpt_topk_wants_sample(t)) != 0) {
		sample(j, v0, &k[0], want);
		said->sampled = k[0].sampled;
		ckpt_topk_guess(t);
	}
	for (passes = 0; ckpt_topk_more(t); passes++) {
		size_t nr = 0;
		int rc;

		/* (the ranges first: a range read may end a boundary, and with it
		 * the ranges' count) */
		while (nr < 2 * nx && ckpt_topk_range(t, nr, &range[nr].from, &range[nr].to))
			nr++;
		said->ranged += nr != 0;
		said->spans += nr;
		if (nr) /* (in flat order, on lane 0) */
			each_piece(j, v0, key_piece, ctx, 0, (struct spans){range, nr, 0}, 0, NULL, NULL);
		else
			each_piece(j, v0, key_piece, ctx, ckpt_topk_lanes(t) > 1,
			           (struct spans){&whole, 1, 0}, 0, narrow, t);
		if ((rc = ckpt_topk_end_pass(t)) == CKPT_TOPK_CHANGED)
			die("%s: values changed between two passes over them (is a program writing "
			    "an input?)", v0->name);
		if (rc < 0)
			die("out of memory");
	}
	said->passes = (uint64_t)passes - said->ranged;
	for (size_t m = 0; m < nx; m++)
		ckpt_topk_cuts(t, m, &lo[m], &hi[m]);
	ckpt_topk_free(t);
	free(k);
	free(range);
}


/* ---- a variable --------------------------------------------------------- */

void method_types(const struct job *j, const ckpt_var *v0, ckpt_dtype *types)
{
	for (size_t k = 0; k < j->nin; k++)
		types[k] = k ? ckpt_find(j->in[k], v0->name)->dtype : v0->dtype;
}

static void plan_var(struct job *j, const ckpt_var *v0, ckpt_dtype to, ckpt_mvar *mv,
                     ckpt_dtype *types)
{
	const ckpt_method *m = j->method;

	memset(mv, 0, sizeof *mv);
	mv->m = m;
	mv->var = v0;
	mv->out = to;
	mv->types = types;
	mv->nx = j->nin - 1;
	mv->a = 1;
	mv->lambda = m->lambda;
	mv->dc = (ckpt_method_random(m->kind) ? m->density : 1) *
	         (ckpt_method_elects(m->kind) && m->normalize ? 1 : m->divisor);
	mv->mask_key = ckpt_dare_key(m->seed, v0->name);
	method_types(j, v0, types);
}

/* Compute this rank's slabs (work.c). */
static size_t apply(struct job *j, ckpt_outvar *ov, const ckpt_mvar *mv, ckpt_dtype to,
                    const struct share *sh, size_t *written)
{
	struct readers r;
	struct work w[2] = {{0}};
	struct slab_run run;

	open_all(j, mv->var, &r, AVG_SLAB_BYTES);
	for (int i = 0; i < 2; i++) {
		w[i].method = mv;
		w[i].ptrs = calloc(r.n, sizeof *w[i].ptrs);
		w[i].out = malloc(r.s[0].cap * ckpt_dtype_size(to) + 1);
		if (!w[i].ptrs || !w[i].out)
			die("out of memory");
	}
	for (size_t i = 0; i < r.n; i++)
		ckpt_slab_seek(&r.s[i], sh->first);
	run = (struct slab_run){r.s, r.n, sh->end - sh->first, ckpt_dtype_size(mv->var->dtype), ov,
	                        NULL, NULL, 0, 0};
	work_slabs(w, &run);
	*written += run.written;
	close_all(&r);
	for (int i = 0; i < 2; i++) {
		free(w[i].ptrs);
		free(w[i].out);
	}
	return run.bad;
}

size_t method_var(struct job *j, ckpt_outvar *ov, const ckpt_var *v0, ckpt_dtype to,
                  const struct share *sh, const double *dots, struct var_windows w)
{
	ckpt_mvar mv;
	ckpt_dtype *types = calloc(j->nin, sizeof *types);
	size_t bad = 0, written = 0;

	if (!types)
		die("out of memory");
	plan_var(j, v0, to, &mv, types);
	mv.lo = calloc(mv.nx + 1, sizeof *mv.lo);
	mv.hi = calloc(mv.nx + 1, sizeof *mv.hi);
	if (!mv.lo || !mv.hi)
		die("out of memory");
	/* every rank with a share finds the windows over the whole tensor (the
	 * same on all) where the batch has not found them (cuts), and the dot
	 * products where it has not measured them (dots); a rank without a
	 * share neither needs them nor takes part */
	if (sh->end > sh->first) {
		if (ckpt_method_ranks(j->method->kind) && w.cuts) {
			memcpy(mv.lo, w.cuts, mv.nx * sizeof *w.cuts);
			memcpy(mv.hi, w.cuts + mv.nx, mv.nx * sizeof *w.cuts);
		} else if (ckpt_method_ranks(j->method->kind)) {
			struct windows_said said;

			find_windows(j, v0, mv.nx, mv.lo, mv.hi, &said);
			say_windows(j, v0, &said); /* (rank 0's at once, the others' at the
			                            * batch's end: windows_done()) */
			if (w.said)
				*w.said = said;
		}
		if (ckpt_method_dots(j->method->kind))
			dots_measure(j, v0, &mv, dots);
		bad = apply(j, ov, &mv, to, sh, &written);
	}
	write_rest(ov, written, sh->rounds);
	free(mv.lo);
	free(mv.hi);
	free(types);
	return bad;
}

int windows_shared(const ckpt_outvar *ov, const struct share *sh)
{
	return ckpt_outvar_shareable(ov) && (ckpt_outvar_collective(ov) || sh->nranks > 1);
}

/* (a cut as three counters, and what was said, for the sum over the
 * ranks) */
enum { CUT_WORDS = 3, SAID_WORDS = 4 };

static void pack_windows(const ckpt_rank_cut *cuts, size_t n, const struct windows_said *said,
                         uint64_t *w)
{
	for (size_t k = 0; k < n; k++, w += CUT_WORDS) {
		w[0] = cuts[k].key;
		w[1] = cuts[k].index;
		w[2] = (uint64_t)cuts[k].all;
	}
	w[0] = said->passes, w[1] = said->ranged, w[2] = said->spans, w[3] = said->sampled;
}

static void unpack_windows(const uint64_t *w, size_t n, ckpt_rank_cut *cuts,
                           struct windows_said *said)
{
	for (size_t k = 0; k < n; k++, w += CUT_WORDS)
		cuts[k] = (ckpt_rank_cut){w[0], w[1], (int)w[2]};
	*said = (struct windows_said){w[0], w[1], w[2], w[3]};
}

/* A shared variable of the batch: its size and place. */
struct sized {
	uint64_t n;
	size_t i;
};

/* (the largest first; equal ones in order) */
static int by_size(const void *pa, const void *pb)
{
	const struct sized *a = pa, *b = pb;

	return a->n != b->n ? (a->n < b->n) - (a->n > b->n) : (a->i > b->i) - (a->i < b->i);
}

/* Which rank finds the windows of each of the batch's shared variables
 * (finder[i]; SIZE_MAX for the others): the largest first, each to the
 * rank with the fewest elements to read so far (the lowest of those) - of
 * all for one written collectively, of those that compute it for one
 * shared by neighbours, whose reads it spares - so that one large tensor
 * - an embedding - does not leave a rank half of the rest too; the same
 * on every rank. */
static void assign_finders(const ckpt_var *const *v, ckpt_outvar *const *ov,
                           const struct share *sh, size_t n, size_t size, size_t *finder)
{
	struct sized *order = malloc((n + 1) * sizeof *order);
	uint64_t *load = calloc(size, sizeof *load);
	size_t m = 0;

	if (!order || !load)
		die("out of memory");
	for (size_t i = 0; i < n; i++) {
		finder[i] = SIZE_MAX;
		if (windows_shared(ov[i], &sh[i]))
			order[m++] = (struct sized){v[i]->nelems, i};
	}
	qsort(order, m, sizeof *order, by_size);
	for (size_t k = 0; k < m; k++) {
		const struct share *s = &sh[order[k].i];
		int all = ckpt_outvar_collective(ov[order[k].i]);
		size_t from = all ? 0 : s->rank0, to = all ? size : s->rank0 + s->nranks, least = from;

		for (size_t r = from + 1; r < to; r++)
			least = load[r] < load[least] ? r : least;
		finder[order[k].i] = least;
		load[least] += order[k].n;
	}
	free(order);
	free(load);
}

void windows_batch(struct job *j, const ckpt_var *const *v, ckpt_outvar *const *ov,
                   const struct share *sh, size_t n, struct batch_windows *bw)
{
	size_t nx = j->nin - 1, words = CUT_WORDS * 2 * nx + SAID_WORDS, *finder;
	uint64_t *sum;
	ckpt_rank_cut *cuts;

	*bw = (struct batch_windows){NULL, NULL};
	if (!ckpt_par_on() || !j->method || !ckpt_method_ranks(j->method->kind))
		return;
	if (!(sum = calloc(n * words + 1, sizeof *sum)) ||
	    !(cuts = bw->cuts = calloc(n * 2 * nx + 1, sizeof *cuts)) ||
	    !(bw->said = calloc(n + 1, sizeof *bw->said)) ||
	    !(finder = malloc((n + 1) * sizeof *finder)))
		die("out of memory");
	assign_finders(v, ov, sh, n, (size_t)ckpt_par_size(), finder);
	for (size_t i = 0; i < n; i++) {
		struct windows_said said;

		if (finder[i] != (size_t)ckpt_par_rank())
			continue;
		find_windows(j, v[i], nx, cuts + 2 * nx * i, cuts + 2 * nx * i + nx, &said);
		pack_windows(cuts + 2 * nx * i, 2 * nx, &said, sum + words * i);
	}
	if (ckpt_par_sum_u64(sum, n * words) < 0)
		die_lib();
	for (size_t i = 0; i < n; i++) {
		struct windows_said said;

		if (!windows_shared(ov[i], &sh[i]))
			continue;
		unpack_windows(sum + words * i, 2 * nx, cuts + 2 * nx * i, &said);
		say_windows(j, v[i], &said);
	}
	free(sum);
	free(finder);
}

struct var_windows windows_of(const struct job *j, const struct batch_windows *bw,
                              const ckpt_outvar *ov, const struct share *sh, size_t i)
{
	const ckpt_rank_cut *cuts = bw->cuts ? bw->cuts + 2 * (j->nin - 1) * i : NULL;

	return (struct var_windows){windows_shared(ov, sh) ? cuts : NULL,
	                            bw->said ? &bw->said[i] : NULL};
}

/* (each variable's in one sum: only the rank that computes it alone has
 * nonzero counts; one no rank computes - empty - takes no pass) */
void windows_done(struct job *j, const ckpt_var *const *v, ckpt_outvar *const *ov,
                  const struct share *sh, size_t n, struct batch_windows *bw)
{
	uint64_t *sum = NULL;

	if (bw->said && j->verbose) {
		if (!(sum = calloc(n * SAID_WORDS + 1, sizeof *sum)))
			die("out of memory");
		for (size_t i = 0; i < n; i++)
			pack_windows(NULL, 0, &bw->said[i], sum + SAID_WORDS * i);
		if (ckpt_par_sum_u64(sum, n * SAID_WORDS) < 0)
			die_lib();
	}
	for (size_t i = 0; sum && i < n; i++) {
		struct windows_said said;

		if (!ckpt_outvar_shareable(ov[i]) || windows_shared(ov[i], &sh[i]) ||
		    (sh[i].nranks && sh[i].rank0 == 0))
			continue;
		unpack_windows(sum + SAID_WORDS * i, 0, NULL, &said);
		say_windows(j, v[i], &said);
	}
	free(sum);
	free(bw->cuts);
	free(bw->said);
}

void method_plan(const struct job *j, const ckpt_var *v0)
{
	const ckpt_method *m = j->method;
	uint64_t first, keep;

	printf("%s\t%s", v0->name, ckpt_method_name(m->kind));
	if (ckpt_method_ranks(m->kind)) {
		ckpt_method_window(m, v0->nelems, &first, &keep);
		printf("\tkeeps ranks %llu..%llu of %llu by |x - base| in each model",
		       (unsigned long long)first, (unsigned long long)(first + keep),
		       (unsigned long long)v0->nelems);
	}
	if (ckpt_method_random(m->kind))
		printf("\tkeeps each element with probability %.17g (seed %llu)", m->density,
		       (unsigned long long)m->seed);
	if (ckpt_method_dots(m->kind))
		printf("\tmeasures the tensor's dot products first");
	putchar('\n');
}
