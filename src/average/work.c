/* work.c - a slab's pieces taken by a worker thread and the main thread. */
#include "average/work.h"

#include <stdint.h>

static void take(struct pieces *p, void *ctx)
{
	size_t off;

	while ((off = atomic_fetch_add(&p->next, p->piece)) < p->n)
		p->fn(ctx, off, p->n - off < p->piece ? p->n - off : p->piece);
}

static void *worker(void *arg)
{
	struct pieces *p = arg;

	take(p, p->ctx[1]);
	return NULL;
}

void pieces_start(struct pieces *p, size_t n)
{
	p->n = n;
	atomic_store(&p->next, 0);
	p->threaded = n > p->piece && pthread_create(&p->thread, NULL, worker, p) == 0;
}

void pieces_finish(struct pieces *p, int help)
{
	if (help || !p->threaded)
		take(p, p->ctx[0]);
	if (p->threaded)
		pthread_join(p->thread, NULL);
	p->threaded = 0;
}

#define PIECE (1u << 14) /* values a thread takes at a time */

static void combine_piece(void *ctx, size_t off, size_t n)
{
	struct work_half *h = ctx;
	struct work *w = h->w;

	if (w->method) {
		size_t r = ckpt_method_range(w->method, w->ptrs, w->out, w->start, off, n);

		if (r == SIZE_MAX)
			atomic_store(&w->oom, 1);
		h->bad += r == SIZE_MAX ? 0 : r;
	} else
		h->bad += ckpt_combine_range(w->c, w->ptrs, w->out, off, n);
	if (w->natural)
		ckpt_combine_range(w->natural, w->ptrs, w->scratch, off, n);
}

void work_start(struct work *w, size_t n)
{
	for (int i = 0; i < 2; i++) {
		w->half[i] = (struct work_half){w, 0};
		w->p.ctx[i] = &w->half[i];
	}
	w->p.fn = combine_piece;
	w->p.piece = PIECE;
	pieces_start(&w->p, n);
	w->pending = 1;
}

size_t work_complete(struct work *w)
{
	pieces_finish(&w->p, 1);
	return w->half[0].bad + w->half[1].bad;
}
