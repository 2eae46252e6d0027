/* temp.h - (internal to libckpt) the temporary file every output is written
 * to, beside its target, and moved into place when complete (sink.h and
 * out.h are built on it). */
#ifndef CKPT_TEMP_H
#define CKPT_TEMP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* A temporary file on its way to a target: what every output (ckpt_out,
 * ckpt_sink) is written through. */
struct ckpt_temp {
	char *target;   /* NULL for standard output */
	char *tmp;      /* the temporary file being written, or NULL */
	int stream;     /* target is a device or FIFO: written, not replaced */
	int force;
	int sync;       /* on the disk (fsync) before it is moved into place */
	int fd;         /* open on tmp (or 1), or -1 */
	int slot;       /* index in the signal handler's list */
};

/* Check target and create the temporary: beside the target, or for
 * standard output in TMPDIR (via_tmpdir) or none at all (fd 1).  what,
 * when not NULL, names what is written: standard output is then refused
 * when it is a terminal. */
int ckpt_temp_open(struct ckpt_temp *t, const char *target, int force, int via_tmpdir,
                   const char *what);

/* Close the temporary and put it in place; it is gone afterwards either
 * way. */
int ckpt_temp_commit(struct ckpt_temp *t);

/* Close the finished temporary and keep it under its own name: the path
 * is returned (malloc'd; it is no longer removed on exit or signals) and t
 * released.  NULL on a write error, the temporary then removed. */
char *ckpt_temp_keep(struct ckpt_temp *t);

/* fsync fd, or the file at path when fd < 0; errno set on failure. */
int ckpt_sync_path(int fd, const char *path);

/* Hold the signals that would remove temporaries (the set sink.h lists)
 * until ckpt_temp_release_signals(): a commit of several files is not cut
 * in the middle by them. */
void ckpt_temp_hold_signals(sigset_t *old);
void ckpt_temp_release_signals(const sigset_t *old);

/* Paths: the last component; the directory with its slash ("" for the
 * current one, malloc'd); dir and file joined (malloc'd).  NULL when out
 * of memory. */
const char *ckpt_path_base(const char *path);
char *ckpt_path_dir(const char *path);
char *ckpt_path_join(const char *dir, const char *file);

/* Remove the temporary (if any) and free t's strings. */
void ckpt_temp_release(struct ckpt_temp *t);

/* The target as messages name it: its path, or "(stdout)". */
const char *ckpt_temp_name(const struct ckpt_temp *t);

/* All n bytes, retrying after signals; what names the file in messages. */
int ckpt_write_all(int fd, const void *buf, size_t n, const char *what);
/* The same at offset off. */
int ckpt_pwrite_all(int fd, const void *buf, size_t n, uint64_t off, const char *what);

#endif
