/* work.c - a slab's pieces taken by a worker thread and the main thread;
 * the next slab read by both. */
#include "average/work.h"
#include "prog.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void take(struct pieces *p, void *ctx)
{
	size_t off;

	while ((off = atomic_fetch_add(&p->next, p->piece)) < p->n)
		p->fn(ctx, off, p->n - off < p->piece ? p->n - off : p->piece);
}

/* One worker thread for the whole run, handed each slab's pieces in
 * turn: a thread started per slab cost 30-35 us on the virtual machines
 * this runs on, with 2048 slabs a GiB of the inputs. */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	_Atomic(struct pieces *) job; /* handed over, not yet taken up */
	int up;
	long spin_ns;
} crew = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL,
          0, 0};
static pthread_once_t crew_once = PTHREAD_ONCE_INIT;

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Whether ready(arg) within crew.spin_ns of looking, else 0 (then the
 * caller sleeps): the threads' waits here - for the other's share of a
 * slab's reads, mostly - take tens of microseconds, and a sleeping
 * thread's wakeup on a virtual machine as long again. */
static int soon(int (*ready)(void *), void *arg)
{
	struct timespec t0, t;

	if (crew.spin_ns == 0)
		return ready(arg);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		for (int i = 0; i < 16; i++)
			if (ready(arg))
				return 1;
			else
				relax();
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > crew.spin_ns)
			return 0;
	}
}

static int posted(void *arg)
{
	(void)arg;
	return atomic_load(&crew.job) != NULL;
}

static int finished(void *arg)
{
	return !atomic_load(&((struct pieces *)arg)->busy);
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		struct pieces *p;

		soon(posted, NULL);
		pthread_mutex_lock(&crew.mu);
		while (!atomic_load(&crew.job))
			pthread_cond_wait(&crew.go, &crew.mu);
		p = atomic_exchange(&crew.job, NULL);
		pthread_mutex_unlock(&crew.mu);
		take(p, p->ctx[1]);
		if (p->then)
			reading_take(p->then);
		pthread_mutex_lock(&crew.mu);
		atomic_store(&p->busy, 0);
		pthread_cond_signal(&crew.done);
		pthread_mutex_unlock(&crew.mu);
	}
	return NULL;
}

/* The worker, and how long a wait spins: 100 us where each rank's two
 * threads have a CPU of their own, else not at all (a spinning thread
 * would hold a CPU the thread it waits for may need). */
static void crew_start(void)
{
	const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE"); /* (ranks on this node) */
	long ranks = local && atol(local) > 0 ? atol(local) : ckpt_par_size();
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t t;

	crew.spin_ns = 2 * ranks <= cpus ? 100000 : 0;
	crew.up = pthread_create(&t, NULL, worker, NULL) == 0 && pthread_detach(t) == 0;
}

void pieces_start(struct pieces *p, size_t n, struct reading *rd)
{
	p->then = rd && rd->parallel && rd->todo ? rd : NULL;
	p->n = n;
	atomic_store(&p->next, 0);
	p->threaded = n > p->piece && (pthread_once(&crew_once, crew_start), crew.up);
	if (!p->threaded)
		return;
	pthread_mutex_lock(&crew.mu);
	atomic_store(&p->busy, 1);
	atomic_store(&crew.job, p);
	pthread_cond_signal(&crew.go);
	pthread_mutex_unlock(&crew.mu);
}

void pieces_finish(struct pieces *p, int help)
{
	if (help || !p->threaded)
		take(p, p->ctx[0]);
	if (p->threaded && !soon(finished, p)) {
		pthread_mutex_lock(&crew.mu);
		while (atomic_load(&p->busy))
			pthread_cond_wait(&crew.done, &crew.mu);
		pthread_mutex_unlock(&crew.mu);
	}
	p->threaded = 0;
}

void reading_open(struct reading *rd, ckpt_slab *s, size_t n)
{
	*rd = (struct reading){.s = s, .n = n, .rc = calloc(n ? n : 1, sizeof *rd->rc),
	                       .parallel = 1};
	if (!rd->rc)
		die("out of memory");
	for (size_t k = 0; k < n; k++)
		rd->parallel &= s[k].in_place;
}

void reading_close(struct reading *rd)
{
	free(rd->rc);
	rd->rc = NULL;
}

void reading_start(struct reading *rd, int more)
{
	rd->todo = more ? rd->n : 0;
	atomic_store(&rd->next, 0);
}

void reading_take(struct reading *rd)
{
	size_t k;

	while ((k = atomic_fetch_add(&rd->next, 1)) < rd->todo)
		if ((rd->rc[k] = ckpt_slab_next(&rd->s[k])) < 0 &&
		    !atomic_exchange(&rd->failed, 1))
			snprintf(rd->msg, sizeof rd->msg, "%s", ckpt_errmsg());
}

int reading_done(struct reading *rd)
{
	if (atomic_load(&rd->failed))
		die("%s", rd->msg);
	return rd->todo ? rd->rc[0] : 0;
}

int reading_all(struct reading *rd, int more)
{
	reading_start(rd, more);
	reading_take(rd);
	return reading_done(rd);
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

/* Start combining the slab of n values in w (the worker reading rd's
 * next slabs once it has taken its pieces). */
static void work_start(struct work *w, size_t n, struct reading *rd)
{
	for (int i = 0; i < 2; i++) {
		w->half[i] = (struct work_half){w, 0};
		w->p.ctx[i] = &w->half[i];
	}
	w->p.fn = combine_piece;
	w->p.piece = PIECE;
	pieces_start(&w->p, n, rd);
	w->pending = 1;
}

/* Combine what is left and wait for the worker: how many values were out
 * of range. */
static size_t work_complete(struct work *w)
{
	pieces_finish(&w->p, 1);
	if (atomic_load(&w->oom))
		die("out of memory");
	return w->half[0].bad + w->half[1].bad;
}

void work_slabs(struct work w[2], struct slab_run *run)
{
	struct reading rd;
	size_t left = run->left;
	int k = 0, rc;

	reading_open(&rd, run->s, run->n);
	/* slab i combined by both threads while slab i - 1 is written and
	 * slab i + 1 read */
	for (rc = reading_all(&rd, left > 0);; k ^= 1) {
		reading_start(&rd, rc && left > 1);
		if (rc) {
			for (size_t i = 0; i < run->n; i++)
				w[k].ptrs[i] = run->s[i].buf;
			left--;
			ckpt_slab_region(&run->s[0], &w[k].region);
			w[k].start = run->s[0].start;
			/* (before the worker starts: once it has taken its pieces it
			 * reads the next slabs into s) */
			progress_add(run->s[0].count * run->vsize * run->n);
			work_start(&w[k], run->s[0].count, &rd);
		}
		if (w[k ^ 1].pending) {
			if (ckpt_outvar_write(run->ov, &w[k ^ 1].region, w[k ^ 1].out) < 0)
				die_lib();
			w[k ^ 1].pending = 0;
			run->written++;
		}
		reading_take(&rd);
		if (!rc)
			break;
		run->bad += work_complete(&w[k]);
		if (run->done)
			run->done(run->arg, &w[k]);
		rc = reading_done(&rd);
	}
	reading_close(&rd);
}
