/* par.h - the ranks of a parallel run.
 *
 * The programs built by `make mpi` run as P ranks under mpirun and share
 * the work; in the serial build there is one rank of one and every call
 * here is free.  MPI stays behind this header: programs see ranks,
 * agreements and sums, never a communicator.
 *
 * Failure on one rank must stop every rank without leaving any waiting in
 * a collective call.  Hence the rule the library and the programs keep:
 * every collective step (an output opened or closed, a variable opened, a
 * write that filters make collective) is preceded by an agreement,
 * ckpt_par_all_ok(), and a rank that fails goes to the next agreement with
 * ok = 0 instead of going on. */
#ifndef CKPT_PAR_H
#define CKPT_PAR_H

#include <stddef.h>
#include <stdint.h>

/* Start MPI when built with it (MPI_Init); -1 with a message when it
 * fails.  Harmless in the serial build. */
int ckpt_par_init(int *argc, char ***argv);

/* Whether this is an MPI run (built with MPI and started). */
int ckpt_par_on(void);
int ckpt_par_rank(void);
int ckpt_par_size(void);

/* Whether ok is true on every rank; collective.  Once an agreement has
 * failed, ckpt_par_stopped() stays true on every rank. */
int ckpt_par_all_ok(int ok);
int ckpt_par_stopped(void);

/* A rank that failed on its own agrees on it with the others, as
 * ckpt_par_all_ok(0) does, but waits at most seconds: a rank still inside
 * a collective call of HDF5 or MPI-IO that went on without an error (as
 * a full disk can leave one in ROMIO's collective writes) never comes.
 * -1 when the others did not come in time; the run must then end with
 * ckpt_par_abort(). */
int ckpt_par_fail_within(double seconds);

/* End every rank of the run now, with status (MPI_Abort). */
void ckpt_par_abort(int status);

/* After a failed agreement, every rank calls this once with its message
 * (NULL or "" when it has none) and whether its failure is its own (not
 * just the agreement's answer); collective.  Rank 0 gets into buf the
 * message of the lowest rank that failed on its own. */
void ckpt_par_first_failure(const char *mine, int own, char *buf, size_t size);

/* n bytes at buf from rank 0 to every rank; collective. */
int ckpt_par_bcast(void *buf, size_t n);

/* Sums of n counters over the ranks, on every rank; collective.  Integer
 * sums do not depend on the order they are taken in. */
int ckpt_par_sum_u64(uint64_t *v, size_t n);

/* n doubles from every rank, gathered on every rank in rank order into
 * all (P * n values); collective.  For results that must be combined in a
 * fixed order, never MPI's. */
int ckpt_par_gather(const double *mine, size_t n, double *all);

/* The n bytes at mine from every rank, concatenated in rank order on rank
 * 0 (*all, malloc'd; lens[q] bytes from rank q, lens of ckpt_par_size()
 * entries); *all is NULL on the other ranks.  Collective. */
int ckpt_par_gather_bytes(const void *mine, size_t n, char **all, size_t *lens);

/* End MPI (MPI_Finalize); nothing collective may follow. */
void ckpt_par_end(void);

/* End a run that failed, the ranks having agreed on it: they meet once
 * more, then leave without MPI_Finalize (which runs HDF5's shutdown, and
 * that crashes on an output whose close failed, as on a full disk). */
void ckpt_par_leave(void);

#endif
