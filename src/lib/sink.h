/* sink.h - writing an output file safely.
 *
 * Every output is written to a temporary file beside the target and moved
 * into place only when complete; on error, on exit before the commit, or on
 * a signal that terminates (SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT,
 * SIGUSR1/2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ - those still at
 * their default action: ignored ones and the caller's own handlers stay),
 * the temporary is removed and the target left untouched.  An existing
 * target is replaced only when asked (force), and atomically: never a
 * mixture of two writers.
 *
 * A sink is such a file of plain bytes (flat vectors, manifests, bundles);
 * "-" writes straight to standard output: a stream needs no temporary.
 * Checkpoints are written through out.h, on the same mechanism. */
#ifndef CKPT_SINK_H
#define CKPT_SINK_H

#include <stddef.h>

typedef struct ckpt_sink ckpt_sink;

/* Start writing target.  binary, when not NULL, names what is written, and
 * standard output is then refused when it is a terminal. */
ckpt_sink *ckpt_sink_open(const char *target, int force, const char *binary);
/* The same, with standard output held whole: "-" is written to a
 * temporary in TMPDIR, copied out at the commit (all of it, or nothing). */
ckpt_sink *ckpt_sink_open_whole(const char *target, int force, const char *binary);
int ckpt_sink_fd(const ckpt_sink *s);
const char *ckpt_sink_name(const ckpt_sink *s); /* target, or "(stdout)" */
int ckpt_sink_write(ckpt_sink *s, const void *buf, size_t n);

/* Close and move into place; frees s.  On failure the target is untouched. */
int ckpt_sink_commit(ckpt_sink *s);

/* Remove the temporary; frees s.  NULL is allowed. */
void ckpt_sink_abort(ckpt_sink *s);

/* Remove every temporary not yet committed (async-signal-safe).  Runs at
 * exit; a program that stops at once with _exit() calls it first. */
void ckpt_out_cleanup(void);

/* Under MPI, ranks but the first write into the first rank's temporary:
 * noted here, removed by ckpt_out_cleanup_shared() when the run is
 * aborted (the first rank may be stuck and then killed). */
void ckpt_out_note_shared(const char *tmp);
void ckpt_out_cleanup_shared(void);

#endif
