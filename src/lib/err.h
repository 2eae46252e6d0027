/* err.h - error reporting of libckpt.
 *
 * The library never prints and never exits: a failing function returns -1
 * (or NULL) and leaves one line of text, retrievable with ckpt_errmsg(),
 * that names the file and variable involved.  Only programs print it. */
#ifndef CKPT_ERR_H
#define CKPT_ERR_H

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

#endif
