/* par.c - the ranks of a parallel run: MPI when built with CKPT_MPI,
 * one rank of one otherwise. */
#include "par.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CKPT_MPI
#include <limits.h>
#include <mpi.h>

static int on, myrank, nranks = 1, stopped;

int ckpt_par_init(int *argc, char ***argv)
{
	int started = 0;

	MPI_Initialized(&started);
	/* Open MPI: ROMIO for MPI-IO unless the user chose.  OMPIO prints its
	 * own lines on a write error, and its collective writes leave ranks
	 * waiting for each other on a full disk. */
	if (!started)
		setenv("OMPI_MCA_io", "^ompio", 0);
	if (!started && MPI_Init(argc, argv) != MPI_SUCCESS)
		return ckpt_seterr("MPI could not start");
	/* errors are ours to report, as return codes */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	on = 1;
	return 0;
}

int ckpt_par_on(void) { return on; }
int ckpt_par_rank(void) { return myrank; }
int ckpt_par_size(void) { return nranks; }
int ckpt_par_stopped(void) { return stopped; }

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The agreement: the minimum of ok over the ranks, waited for at most
 * seconds (< 0: for ever).  Always nonblocking, so that a rank that waits
 * with a deadline and one that does not take part in the same collective
 * (MPI matches collectives of one kind only).  -1 when the time ran out
 * (the request is left: the run ends then). */
static int agree(int ok, double seconds)
{
	const struct timespec ms = {0, 1000000};
	double end = now() + seconds;
	int all = ok ? 1 : 0, done = 0;
	MPI_Request req;

	if (MPI_Iallreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &req) !=
	    MPI_SUCCESS)
		all = 0, done = 1;
	else if (seconds < 0) {
		if (MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			all = 0;
		done = 1;
	}
	while (!done && MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done &&
	       now() < end)
		nanosleep(&ms, NULL);
	if (!done)
		return -1;
	if (!all)
		stopped = 1;
	return all;
}

int ckpt_par_all_ok(int ok)
{
	if (!on)
		return ok;
	if (stopped) /* the others are on their way to the report */
		return 0;
	return agree(ok, -1);
}

int ckpt_par_fail_within(double seconds)
{
	if (!on || stopped)
		return 0;
	stopped = 1;
	return agree(0, seconds) < 0 ? -1 : 0;
}

void ckpt_par_abort(int status)
{
	if (on)
		MPI_Abort(MPI_COMM_WORLD, status);
}

/* What a rank tells rank 0 when the run stops: whether it failed on its
 * own, then its message. */
#define REPORT 1024

void ckpt_par_first_failure(const char *mine, int own, char *buf, size_t size)
{
	char *all = NULL, me[REPORT] = {0};

	if (size)
		snprintf(buf, size, "%s", mine ? mine : "");
	if (!on)
		return;
	me[0] = own ? '1' : '0';
	snprintf(me + 1, sizeof me - 1, "%s", mine ? mine : "");
	if (myrank == 0 && !(all = malloc((size_t)nranks * REPORT)))
		return;
	if (MPI_Gather(me, REPORT, MPI_CHAR, all, REPORT, MPI_CHAR, 0, MPI_COMM_WORLD) ==
	    MPI_SUCCESS && myrank == 0)
		for (int r = 0; r < nranks; r++)
			if (all[(size_t)r * REPORT] == '1') {
				snprintf(buf, size, "%s", all + (size_t)r * REPORT + 1);
				break;
			}
	free(all);
}

/* Every collective call is preceded by an agreement, so that no rank waits
 * in it for one that has failed. */
static int guard(void)
{
	return ckpt_par_all_ok(1) ? 0 : ckpt_seterr("stopped: another rank failed");
}

int ckpt_par_bcast(void *buf, size_t n)
{
	if (on && guard() < 0)
		return -1;
	if (on && MPI_Bcast(buf, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return ckpt_seterr("MPI: broadcast failed");
	return 0;
}

int ckpt_par_sum_u64(uint64_t *v, size_t n)
{
	if (on && guard() < 0)
		return -1;
	if (on && n && MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_SUM,
	                             MPI_COMM_WORLD) != MPI_SUCCESS)
		return ckpt_seterr("MPI: sum over the ranks failed");
	return 0;
}

int ckpt_par_gather(const double *mine, size_t n, double *all)
{
	if (!on) {
		memcpy(all, mine, n * sizeof *all);
		return 0;
	}
	if (guard() < 0)
		return -1;
	if (MPI_Allgather(mine, (int)n, MPI_DOUBLE, all, (int)n, MPI_DOUBLE,
	                  MPI_COMM_WORLD) != MPI_SUCCESS)
		return ckpt_seterr("MPI: gathering results failed");
	return 0;
}

int ckpt_par_gather_bytes(const void *mine, size_t n, char **all, size_t *lens)
{
	uint64_t len = n, *each = NULL;
	int *counts = NULL, *displs = NULL, rc = -1;
	size_t total = 0;

	*all = NULL;
	if (guard() < 0)
		return -1;
	if (n > INT_MAX)
		return ckpt_seterr("MPI: %zu bytes are too many to send at once", n);
	if (myrank == 0 && (!(each = calloc((size_t)nranks, sizeof *each)) ||
	                    !(counts = calloc((size_t)nranks, sizeof *counts)) ||
	                    !(displs = calloc((size_t)nranks, sizeof *displs))))
		goto out;
	if (MPI_Gather(&len, 1, MPI_UINT64_T, each, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD) !=
	    MPI_SUCCESS)
		goto out;
	for (int q = 0; myrank == 0 && q < nranks; q++) {
		lens[q] = (size_t)each[q];
		counts[q] = (int)each[q];
		displs[q] = (int)total;
		total += (size_t)each[q];
	}
	if (myrank == 0 && (total > INT_MAX || !(*all = malloc(total + 1))))
		goto out;
	if (MPI_Gatherv(mine, (int)n, MPI_BYTE, *all, counts, displs, MPI_BYTE, 0,
	                MPI_COMM_WORLD) == MPI_SUCCESS)
		rc = 0;
out:
	if (rc < 0) {
		free(*all);
		*all = NULL;
		ckpt_seterr("MPI: gathering the ranks' output failed");
	}
	free(each);
	free(counts);
	free(displs);
	return rc;
}

void ckpt_par_end(void)
{
	if (on)
		MPI_Finalize();
	on = 0;
}

void ckpt_par_leave(void)
{
	if (on)
		MPI_Barrier(MPI_COMM_WORLD);
	on = 0;
}

#else /* one rank of one */

int ckpt_par_init(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

int ckpt_par_on(void) { return 0; }
int ckpt_par_rank(void) { return 0; }
int ckpt_par_size(void) { return 1; }
int ckpt_par_stopped(void) { return 0; }
int ckpt_par_all_ok(int ok) { return ok; }

void ckpt_par_first_failure(const char *mine, int own, char *buf, size_t size)
{
	(void)own;
	if (size)
		snprintf(buf, size, "%s", mine ? mine : "");
}

int ckpt_par_bcast(void *buf, size_t n)
{
	(void)buf, (void)n;
	return 0;
}

int ckpt_par_sum_u64(uint64_t *v, size_t n)
{
	(void)v, (void)n;
	return 0;
}

int ckpt_par_gather(const double *mine, size_t n, double *all)
{
	memcpy(all, mine, n * sizeof *all);
	return 0;
}

int ckpt_par_gather_bytes(const void *mine, size_t n, char **all, size_t *lens)
{
	if (!(*all = malloc(n + 1)))
		return ckpt_seterr("out of memory");
	memcpy(*all, mine, n);
	lens[0] = n;
	return 0;
}

void ckpt_par_end(void) {}
void ckpt_par_leave(void) {}
int ckpt_par_fail_within(double seconds) { (void)seconds; return 0; }
void ckpt_par_abort(int status) { (void)status; }

#endif
