/* work.c - a slab combined by a worker thread and the main thread. */
#include "average/work.h"

#include <stdint.h>

#define PIECE (1u << 14) /* values a thread takes at a time */

static size_t take_pieces(struct work *w)
{
	size_t bad = 0, off;

	while ((off = atomic_fetch_add(&w->next, PIECE)) < w->n) {
		size_t n = w->n - off < PIECE ? w->n - off : PIECE;

		if (w->method) {
			size_t r = ckpt_method_range(w->method, w->ptrs, w->out, w->start, off, n);

			if (r == SIZE_MAX)
				atomic_store(&w->oom, 1);
			bad += r == SIZE_MAX ? 0 : r;
		} else
			bad += ckpt_combine_range(w->c, w->ptrs, w->out, off, n);
		if (w->natural)
			ckpt_combine_range(w->natural, w->ptrs, w->scratch, off, n);
	}
	return bad;
}

static void *combine_work(void *arg)
{
	struct work *w = arg;

	w->worker_bad = take_pieces(w);
	return NULL;
}

/* Hand the slab in w to a worker thread; a slab of one piece or less is not
 * worth a thread (its start costs more than the piece: thousands of small
 * variables would pay it each), and work_complete() combines it all, as it does
 * when no thread can start. */
void work_start(struct work *w, size_t n)
{
	w->n = n;
	w->worker_bad = 0;
	atomic_store(&w->next, 0);
	w->threaded = n > PIECE && pthread_create(&w->thread, NULL, combine_work, w) == 0;
	w->pending = 1;
}

/* Combine what is left of the slab in w, wait for its worker; returns how
 * many values were out of range. */
size_t work_complete(struct work *w)
{
	size_t bad = take_pieces(w);

	if (w->threaded)
		pthread_join(w->thread, NULL);
	w->threaded = 0;
	return bad + w->worker_bad;
}
