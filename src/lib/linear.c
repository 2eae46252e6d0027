/* linear.c - the reference linear model, in float32. */
#include "linear.h"
#include "par.h"
#include "combine.h"
#include "err.h"
#include "file.h"
#include "out.h"
#include "rng.h"
#include "slab.h"
#include "backend.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ckpt_linear_init(ckpt_linear *m, size_t features, size_t outputs, uint32_t seed)
{
	ckpt_rng r;

	m->features = features;
	m->outputs = outputs;
	m->w = malloc(features * outputs * sizeof *m->w);
	m->b = calloc(outputs, sizeof *m->b);
	if (!m->w || !m->b) {
		ckpt_linear_free(m);
		return ckpt_seterr("out of memory for the model");
	}
	ckpt_rng_seed(&r, seed);
	for (size_t i = 0; i < features * outputs; i++)
		m->w[i] = (float)ckpt_rng_uniform(&r, -1, 1);
	return 0;
}

int ckpt_linear_copy(ckpt_linear *dst, const ckpt_linear *src)
{
	size_t nw = src->features * src->outputs;

	dst->features = src->features;
	dst->outputs = src->outputs;
	dst->w = malloc(nw * sizeof *dst->w);
	dst->b = malloc(src->outputs * sizeof *dst->b);
	if (!dst->w || !dst->b) {
		ckpt_linear_free(dst);
		return ckpt_seterr("out of memory for the model");
	}
	memcpy(dst->w, src->w, nw * sizeof *dst->w);
	memcpy(dst->b, src->b, src->outputs * sizeof *dst->b);
	return 0;
}

void ckpt_linear_free(ckpt_linear *m)
{
	free(m->w);
	free(m->b);
	m->w = m->b = NULL;
}

int ckpt_batch_make(ckpt_batch *b, uint32_t seed, size_t n, size_t features,
                    size_t outputs)
{
	ckpt_rng r;

	b->n = n;
	b->features = features;
	b->outputs = outputs;
	b->x = malloc(n * features * sizeof *b->x);
	b->y = malloc(n * outputs * sizeof *b->y);
	if (!b->x || !b->y) {
		ckpt_batch_free(b);
		return ckpt_seterr("out of memory for the data");
	}
	ckpt_rng_seed(&r, seed);
	for (size_t i = 0; i < n * features; i++)
		b->x[i] = (float)ckpt_rng_double(&r);
	for (size_t j = 0; j < n; j++) {
		float t = 0;

		for (size_t k = 0; k < features; k++)
			t += b->x[j * features + k] * 0.1f;
		for (size_t o = 0; o < outputs; o++)
			b->y[j * outputs + o] = t + 0.3f;
	}
	return 0;
}

void ckpt_batch_free(ckpt_batch *b)
{
	free(b->x);
	free(b->y);
	b->x = b->y = NULL;
}

/* The residual (W x_j + b - y_j)[o], in float32. */
static float residual(const ckpt_linear *m, const ckpt_batch *b, size_t j, size_t o)
{
	const float *x = b->x + j * m->features, *w = m->w + o * m->features;
	float p = 0;

	for (size_t k = 0; k < m->features; k++)
		p += w[k] * x[k];
	return (p + m->b[o]) - b->y[j * m->outputs + o];
}

float ckpt_linear_loss(const ckpt_linear *m, const ckpt_batch *b)
{
	float s = 0;

	for (size_t j = 0; j < b->n; j++)
		for (size_t o = 0; o < m->outputs; o++) {
			float r = residual(m, b, j, o);
			s += r * r;
		}
	return s / (float)(b->n * m->outputs);
}

float ckpt_linear_grad(const ckpt_linear *m, const ckpt_batch *b, ckpt_linear *g)
{
	size_t nw = m->features * m->outputs;
	float count = (float)(b->n * m->outputs), loss = 0;

	memset(g->w, 0, nw * sizeof *g->w);
	memset(g->b, 0, m->outputs * sizeof *g->b);
	for (size_t j = 0; j < b->n; j++)
		for (size_t o = 0; o < m->outputs; o++) {
			float r = residual(m, b, j, o);
			const float *x = b->x + j * m->features;

			loss += r * r;
			for (size_t k = 0; k < m->features; k++)
				g->w[o * m->features + k] += r * x[k];
			g->b[o] += r;
		}
	/* d/dw mean(r^2) = 2 * mean(r * x) */
	for (size_t i = 0; i < nw; i++)
		g->w[i] = 2.0f * (g->w[i] / count);
	for (size_t o = 0; o < m->outputs; o++)
		g->b[o] = 2.0f * (g->b[o] / count);
	return loss / count;
}

void ckpt_linear_apply(ckpt_linear *m, const ckpt_linear *g, float lr)
{
	for (size_t i = 0; i < m->features * m->outputs; i++)
		m->w[i] -= lr * g->w[i];
	for (size_t o = 0; o < m->outputs; o++)
		m->b[o] -= lr * g->b[o];
}

/* shared = mean of the workers' models, through the averaging core. */
static void average_into(ckpt_linear *shared, const ckpt_linear *ws, size_t n,
                         const void **pw, const void **pb)
{
	ckpt_combine c;

	ckpt_combine_init(&c, CKPT_F32, CKPT_F32, n, NULL);
	for (size_t i = 0; i < n; i++) {
		pw[i] = ws[i].w;
		pb[i] = ws[i].b;
	}
	ckpt_combine_slabs(&c, pw, shared->w, shared->features * shared->outputs);
	ckpt_combine_slabs(&c, pb, shared->b, shared->outputs);
}

/* Under MPI rank i is worker i: every rank gets every worker's result
 * (weights or gradient, and loss), in worker order, so that all combine
 * them as one process does.  Floats travel as doubles, exactly. */
static int share_workers(ckpt_linear *ws, float *losses, size_t n)
{
	size_t nw = ws[0].features * ws[0].outputs, k = 1 + nw + ws[0].outputs;
	size_t r = (size_t)ckpt_par_rank();
	double *mine = malloc(k * sizeof *mine), *all = malloc(n * k * sizeof *all);
	int rc = -1;

	if (!mine || !all) {
		ckpt_seterr("out of memory for %zu workers", n);
		goto out;
	}
	mine[0] = losses[r];
	for (size_t x = 0; x < nw; x++)
		mine[1 + x] = ws[r].w[x];
	for (size_t x = 0; x < ws[0].outputs; x++)
		mine[1 + nw + x] = ws[r].b[x];
	if (ckpt_par_gather(mine, k, all) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const double *a = all + i * k;

		losses[i] = (float)a[0];
		for (size_t x = 0; x < nw; x++)
			ws[i].w[x] = (float)a[1 + x];
		for (size_t x = 0; x < ws[0].outputs; x++)
			ws[i].b[x] = (float)a[1 + nw + x];
	}
	rc = 0;
out:
	free(mine);
	free(all);
	return rc;
}

float ckpt_linear_train(ckpt_linear *m, const ckpt_batch *batches,
                        const ckpt_train_opts *o)
{
	size_t nw = m->features * m->outputs, n = o->workers;
	ckpt_linear *ws = calloc(n, sizeof *ws), grad = {0};
	const void **pw = calloc(n, sizeof *pw), **pb = calloc(n, sizeof *pb);
	float loss = NAN, *losses = calloc(n, sizeof *losses);
	int ok = ws && pw && pb && losses && ckpt_linear_copy(&grad, m) == 0;
	/* under MPI, a rank per worker */
	int shared = ckpt_par_on() && (size_t)ckpt_par_size() == n;

	/* ws[i]: worker i's weights (sync params) or its gradient (grads) */
	for (size_t i = 0; ok && i < n; i++)
		ok = ckpt_linear_copy(&ws[i], m) == 0;
	if (!ok) {
		ckpt_seterr("out of memory for %zu workers", n);
		goto out;
	}
	for (size_t it = 0; it < o->iterations; it++) {
		float sum = 0;

		for (size_t i = 0; i < n; i++) {
			if (shared && i != (size_t)ckpt_par_rank())
				continue;
			if (o->sync_grads) {
				losses[i] = ckpt_linear_grad(m, &batches[i], &ws[i]);
				continue;
			}
			memcpy(ws[i].w, m->w, nw * sizeof *m->w);
			memcpy(ws[i].b, m->b, m->outputs * sizeof *m->b);
			for (size_t s = 0; s < o->local_steps; s++) {
				float l = ckpt_linear_grad(&ws[i], &batches[i], &grad);

				if (s == 0)
					losses[i] = l; /* at the shared weights */
				ckpt_linear_apply(&ws[i], &grad, o->lr);
			}
		}
		if (shared && share_workers(ws, losses, n) < 0) {
			loss = NAN;
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			sum += losses[i];
		if (o->sync_grads) {
			average_into(&grad, ws, n, pw, pb);
			ckpt_linear_apply(m, &grad, o->lr);
		} else {
			average_into(m, ws, n, pw, pb);
		}
		loss = sum / (float)n;
		if (o->report)
			o->report(it, m, loss, o->user);
	}
out:
	for (size_t i = 0; ws && i < n; i++)
		ckpt_linear_free(&ws[i]);
	free(ws);
	ckpt_linear_free(&grad);
	free(pw);
	free(pb);
	free(losses);
	return loss;
}

/* ---- checkpoints of the model ------------------------------------------- */

static char *join(const char *prefix, const char *name)
{
	char *s = malloc(strlen(prefix) + strlen(name) + 2);

	if (s)
		sprintf(s, "%s%s%s", prefix, *prefix ? "/" : "", name);
	return s;
}

/* The prefix of the model's variables in f, or NULL with a message. */
static char *find_prefix(const ckpt_file *f, const char *prefix)
{
	char *found = NULL, *w, *bn;
	int pairs = 0;

	if (prefix) {
		w = join(prefix, "w");
		bn = join(prefix, "b");
		if (w && bn && ckpt_find(f, w) && ckpt_find(f, bn))
			found = strdup(prefix);
		free(w);
		free(bn);
		if (!found)
			ckpt_seterr("%s: no model variables '%s/w' and '%s/b'", f->name,
			            prefix, prefix);
		return found;
	}
	if (ckpt_find(f, "w") && ckpt_find(f, "b"))
		return strdup("");
	for (size_t i = 0; i < f->nvars; i++) {
		const char *name = f->vars[i].name;
		size_t len = strlen(name);

		if (len > 2 && strcmp(name + len - 2, "/w") == 0) {
			char *p = strndup(name, len - 2);

			if (!p)
				break;
			bn = join(p, "b");
			if (bn && ckpt_find(f, bn)) {
				pairs++;
				free(found);
				found = p;
				p = NULL;
			}
			free(bn);
			free(p);
		}
	}
	if (pairs == 1)
		return found;
	free(found);
	if (pairs > 1)
		ckpt_seterr("%s: %d pairs of model variables (P/w, P/b); "
		            "choose one with --prefix", f->name, pairs);
	else
		ckpt_seterr("%s: no model variables w and b (nor P/w and P/b)", f->name);
	return NULL;
}

static int read_floats(const ckpt_file *f, const ckpt_var *v, float *out)
{
	ckpt_slab s;
	double *tmp;
	int rc;

	if (!ckpt_dtype_is_float(v->dtype))
		return ckpt_seterr("%s: variable '%s' is %s, not floating point",
		                   f->name, v->name, v->type);
	if (ckpt_slab_open(&s, f, v, CKPT_SLAB_BYTES) < 0)
		return -1;
	if (!(tmp = malloc(s.cap * sizeof *tmp))) {
		ckpt_slab_close(&s);
		return ckpt_seterr("out of memory");
	}
	while ((rc = ckpt_slab_next(&s)) > 0) {
		ckpt_to_double(v->dtype, s.buf, tmp, s.count);
		ckpt_from_double(CKPT_F32, tmp, out + s.start, s.count);
	}
	free(tmp);
	ckpt_slab_close(&s);
	return rc;
}

static uint64_t read_iterations(const ckpt_file *f)
{
	long long it = 0;

	return ckpt_file_number(f, "iterations", CKPT_I64, &it) == 1 && it > 0 ? (uint64_t)it : 0;
}

int ckpt_linear_load(ckpt_linear *m, const char *path, const char *prefix,
                     size_t features, size_t outputs, char **found,
                     uint64_t *iterations)
{
	ckpt_file *f = ckpt_open(path);
	const ckpt_var *w = NULL, *b = NULL;
	char *p = NULL, *wn = NULL, *bn = NULL, shape[64];
	int rc = -1;

	memset(m, 0, sizeof *m);
	if (!f || !(p = find_prefix(f, prefix)))
		goto out;
	wn = join(p, "w");
	bn = join(p, "b");
	w = ckpt_find(f, wn);
	b = ckpt_find(f, bn);
	/* w is [1] for the scalar model, [M,N] otherwise; b is [M] */
	if (w->rank == 1 && b->rank == 1 && w->dims[0] == 1 && b->dims[0] == 1) {
		m->features = m->outputs = 1;
	} else if (w->rank == 2 && b->rank == 1 && b->dims[0] == w->dims[0]) {
		m->outputs = w->dims[0];
		m->features = w->dims[1];
	} else {
		ckpt_seterr("%s: '%s' %s and '%s' %s are not the shapes of the "
		            "model ([M,N] and [M])", f->name, wn,
		            ckpt_shape_str(w, shape, sizeof shape), bn,
		            ckpt_shape_str(b, shape + 32, 32));
		goto out;
	}
	if ((features && features != m->features) || (outputs && outputs != m->outputs)) {
		ckpt_seterr("%s: '%s' has shape %s, the model needs [%zu,%zu]",
		            f->name, wn, ckpt_shape_str(w, shape, sizeof shape),
		            outputs ? outputs : m->outputs, features ? features : m->features);
		goto out;
	}
	m->w = malloc(m->features * m->outputs * sizeof *m->w);
	m->b = malloc(m->outputs * sizeof *m->b);
	if (!m->w || !m->b) {
		ckpt_seterr("out of memory for the model");
		goto out;
	}
	if (read_floats(f, w, m->w) < 0 || read_floats(f, b, m->b) < 0)
		goto out;
	if (iterations)
		*iterations = read_iterations(f);
	if (found) {
		*found = p;
		p = NULL;
	}
	rc = 0;
out:
	if (rc < 0)
		ckpt_linear_free(m);
	free(p);
	free(wn);
	free(bn);
	ckpt_close(f);
	return rc;
}

static int write_var(ckpt_out *o, const char *name, int rank, const uint64_t *dims,
                     const float *v)
{
	ckpt_region r = {.rank = rank, .n = 1};
	ckpt_outvar *w;
	int rc;

	for (int k = 0; k < rank; k++)
		r.count[k] = dims[k], r.n *= dims[k];
	if (!(w = ckpt_outvar_open(o, name, CKPT_F32)))
		return -1;
	rc = ckpt_outvar_write(w, &r, v);
	ckpt_outvar_close(w);
	return rc;
}

/* How the model was made: typed where the format's metadata have types. */
static int write_provenance(ckpt_out *o, uint64_t iterations, double loss,
                            const char *options)
{
	long long it = (long long)iterations;

	return ckpt_out_set_number(o, "iterations", CKPT_I64, &it) < 0 ||
	       ckpt_out_set_number(o, "loss", CKPT_F64, &loss) < 0 ||
	       ckpt_out_set_text(o, "options", options) < 0 ? -1 : 0;
}

int ckpt_linear_save(const ckpt_linear *m, const char *target, int force,
                     const char *prefix, uint64_t iterations, double loss,
                     const char *options)
{
	ckpt_out *o = ckpt_out_open(target, force, NULL);
	char *wn = join(prefix, "w"), *bn = join(prefix, "b");
	uint64_t wd[2] = {m->outputs, m->features}, bd = m->outputs, one = 1;
	int scalar = m->features == 1 && m->outputs == 1, rc = -1;

	if (!o || !wn || !bn)
		goto out;
	/* everything declared before the first values (safetensors' header) */
	rc = write_provenance(o, iterations, loss, options);
	rc = rc ? rc : ckpt_out_create_var(o, wn, CKPT_F32, scalar ? 1 : 2, scalar ? &one : wd);
	rc = rc ? rc : ckpt_out_create_var(o, bn, CKPT_F32, 1, &bd);
	rc = rc ? rc : write_var(o, wn, scalar ? 1 : 2, scalar ? &one : wd, m->w);
	rc = rc ? rc : write_var(o, bn, 1, &bd, m->b);
	if (rc == 0) {
		rc = ckpt_out_commit(o);
		o = NULL;
	}
out:
	if (o && rc < 0)
		ckpt_out_abort(o);
	free(wn);
	free(bn);
	return rc;
}
