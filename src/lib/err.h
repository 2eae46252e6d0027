/* err.h - error reporting of libckpt.
 *
 * The library never prints and never exits: a failing function returns -1
 * (or NULL) and leaves one line of text, retrievable with ckpt_errmsg(),
 * that names the file and variable involved.  Only programs print it. */
#ifndef CKPT_ERR_H
#define CKPT_ERR_H

#include <stddef.h>

/* Call once before any other ckpt_ function: switches HDF5's own error
 * printing off, unless the environment has CKPT_DEBUG=1. */
void ckpt_init(void);

/* The message of the last failure in this thread ("" if none). */
const char *ckpt_errmsg(void);

/* Set the message; always returns -1 so that `return ckpt_seterr(...)` reads
 * naturally. */
int ckpt_seterr(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* As ckpt_seterr(), with ": " and the innermost message of HDF5's error
 * stack appended when there is one. */
int ckpt_seterr_h5(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* Set the message from errno: "what: strerror(errno)". */
int ckpt_seterr_errno(const char *what);

/* Warnings: what the library did that a user should hear of without it
 * failing (a lossy filter left out, a reference that points nowhere).  The
 * library hands each, as one line, to the function set here; with none set
 * (the default) they are dropped. */
typedef void (*ckpt_warn_fn)(const char *msg);
void ckpt_set_warn(ckpt_warn_fn fn);
void ckpt_warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* s with control bytes written as \n, \t, \xHH, so that a message stays
 * one line; at most size-1 bytes.  Async-signal-safe (the SIGBUS handler
 * uses it). */
char *ckpt_escape_line(const char *s, char *buf, size_t size);

#endif
