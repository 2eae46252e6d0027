/* backend.h - (internal to libckpt) what ckpt_file.backend holds: the
 * checkpoint's format (its table, format.h) and the format's own state,
 * which only the format's module looks into (HDF5: h5.h; safetensors:
 * st.c). */
#ifndef CKPT_BACKEND_H
#define CKPT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "file.h"
#include "format.h"

struct ckpt_backend {
	const struct ckpt_format *format;
	void *state;            /* the format's own (HDF5: struct ckpt_h5file) */
};

/* Storage that lives until ckpt_close, in blocks (a million small
 * variables cost no million allocations): v's rank and a copy of its
 * sizes; a copy of a name.  0 / the copy, or -1 / NULL with a message. */
int ckpt_file_set_dims(ckpt_file *f, ckpt_var *v, int rank, const uint64_t *dims);
char *ckpt_file_strdup(ckpt_file *f, const char *s);

/* The text f keeps under key (an HDF5 root string attribute, a safetensors
 * __metadata__ entry): 1 with *text malloc'd, 0 when there is none, -1
 * when there is something else. */
int ckpt_file_text(const ckpt_file *f, const char *key, char **text);

/* A number f keeps under key (t: CKPT_I64 or CKPT_F64), typed or as text:
 * 1 with *value set, 0 when there is none or it is no number, -1. */
int ckpt_file_number(const ckpt_file *f, const char *key, ckpt_dtype t, void *value);

/* n bytes of fd at off into buf, through short reads: n, fewer when the
 * file ends first, or -1 with errno set (no message). */
ptrdiff_t ckpt_pread_full(int fd, void *buf, size_t n, uint64_t off);

#endif
