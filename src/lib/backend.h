/* backend.h - (internal to libckpt) what ckpt_file.backend holds: the
 * checkpoint's format (its table, format.h) and the format's own handles
 * (HDF5: h5.h; safetensors: st.h). */
#ifndef CKPT_BACKEND_H
#define CKPT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "file.h"
#include "format.h"

struct ckpt_st;

struct ckpt_backend {
	const struct ckpt_format *format;
	int64_t fid;            /* HDF5: the open file (an hid_t) */
	uint64_t heap;          /* HDF5: its largest group's local heap, bytes */
	struct ckpt_st *st;     /* safetensors: the header, parsed */
};

static inline enum ckpt_format_id ckpt_file_format(const ckpt_file *f)
{
	return f->backend && f->backend->format ? f->backend->format->id : CKPT_FORMAT_NONE;
}

/* Storage that lives until ckpt_close, in blocks (a million small
 * variables cost no million allocations): v's rank and a copy of its
 * sizes; a copy of a name.  0 / the copy, or -1 / NULL with a message. */
int ckpt_file_set_dims(ckpt_file *f, ckpt_var *v, int rank, const uint64_t *dims);
char *ckpt_file_strdup(ckpt_file *f, const char *s);

/* The text f keeps under key (an HDF5 root string attribute, a safetensors
 * __metadata__ entry): 1 with *text malloc'd, 0 when there is none, -1
 * when there is something else. */
int ckpt_file_text(const ckpt_file *f, const char *key, char **text);

#endif
