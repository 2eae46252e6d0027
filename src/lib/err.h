/* err.h - error reporting of libckpt.
 *
 * The library never prints and never exits: a failing function returns -1
 * (or NULL) and leaves one line of text, retrievable with ckpt_errmsg(),
 * that names the file and variable involved.  Only programs print it. */
#ifndef CKPT_ERR_H
#define CKPT_ERR_H

#include <stddef.h>

/* printf-style checking where the compiler offers it; plain C11 elsewhere. */
#if defined(__GNUC__)
#define CKPT_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CKPT_PRINTF(fmt, args)
#endif

/* Call once before any other ckpt_ function: switches the format
 * libraries' own error printing off (HDF5's), unless the environment has
 * CKPT_DEBUG=1. */
void ckpt_init(void);

/* The message of the last failure in this thread ("" if none). */
const char *ckpt_errmsg(void);

/* Set the message; always returns -1 so that `return ckpt_seterr(...)` reads
 * naturally. */
int ckpt_seterr(const char *fmt, ...) CKPT_PRINTF(1, 2);

/* Set the message from errno: "what: strerror(errno)". */
int ckpt_seterr_errno(const char *what);

/* Warnings: what the library did that a user should hear of without it
 * failing (a lossy filter left out, a reference that points nowhere).  The
 * library hands each, as one line, to the function set here; with none set
 * (the default) they are dropped. */
typedef void (*ckpt_warn_fn)(const char *msg);
void ckpt_set_warn(ckpt_warn_fn fn);
void ckpt_warnf(const char *fmt, ...) CKPT_PRINTF(1, 2);

/* s with control bytes written as \n, \t, \xHH, so that a message stays
 * one line; at most size-1 bytes.  Async-signal-safe. */
char *ckpt_escape_line(const char *s, char *buf, size_t size);

#endif
