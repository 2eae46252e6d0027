/* st.h - (internal to libckpt) the safetensors backend: an 8-byte
 * little-endian header length N, N bytes of JSON naming each tensor's
 * dtype, shape and data_offsets (relative to the end of the header), and
 * the data, little-endian, C order, contiguous, without gaps or overlaps.
 * Variables are the tensors in the order of their data; names are the
 * keys as they are. */
#ifndef CKPT_ST_H
#define CKPT_ST_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "file.h"
#include "slab.h"

/* The largest header the format allows. */
#define CKPT_ST_MAX_HEADER 100000000u

/* Whether head (the first n bytes of a file) starts like safetensors: a
 * header length, then '{'.  Whether the length fits is checked on
 * opening, with a message. */
int ckpt_st_looks_like(const void *head, size_t n);

/* Parse and check f's header (f->fd or f->image is set), list its
 * variables; 0, or -1 with a message naming the file. */
int ckpt_st_open(ckpt_file *f);
void ckpt_st_close(ckpt_file *f);

/* The header's __metadata__ (string to string), in its order: n pairs,
 * NULL when there is none. */
const char *const *ckpt_st_metadata(const ckpt_file *f, size_t *n);
/* The length of value i (it may hold NUL bytes). */
size_t ckpt_st_metadata_len(const ckpt_file *f, size_t i);

/* Where v's bytes start in f. */
uint64_t ckpt_st_offset(const ckpt_file *f, const ckpt_var *v);

/* The slab reader's side (slab.c): plan s's slabs, read one region. */
int ckpt_st_slab_open(ckpt_slab *s, size_t max_bytes);
int ckpt_st_slab_read(ckpt_slab *s, void *buf, const ckpt_region *r);

/* ---- writing (stout.c), under out.c ---------------------------------------- */

/* A safetensors file being written: a temporary beside target (in TMPDIR
 * for standard output), committed atomically. */
struct ckpt_stout;
struct ckpt_stout *ckpt_stout_open(const char *target, int force);
const char *ckpt_stout_name(const struct ckpt_stout *o);
int ckpt_stout_set_meta(struct ckpt_stout *o, const char *key, const char *value);
int ckpt_stout_set_meta_n(struct ckpt_stout *o, const char *key, const char *value,
                          size_t len);
void ckpt_stout_unset_meta(struct ckpt_stout *o, const char *key);

/* Whether safetensors has a type for v's values. */
int ckpt_st_storable(const ckpt_file *src, const ckpt_var *v);

/* A variable called name, shaped like like, stored as t; copied whole from
 * variable sv of src when src is not NULL (then t is like's type).  All
 * are declared before the first values are written. */
int ckpt_stout_declare(struct ckpt_stout *o, const char *name, const ckpt_var *like,
                       ckpt_dtype t, const ckpt_file *src, const ckpt_var *sv);

/* A new variable: name, type, shape. */
int ckpt_stout_declare_new(struct ckpt_stout *o, const char *name, ckpt_dtype t, int rank,
                           const uint64_t *dims);

/* Write the header and the copies (if not done yet), the file complete
 * but not in place yet. */
int ckpt_stout_finish(struct ckpt_stout *o);

/* The bytes of its values; the name of its i-th tensor (NULL past the
 * last), in order. */
uint64_t ckpt_stout_bytes(const struct ckpt_stout *o);
const char *ckpt_stout_tensor(const struct ckpt_stout *o, size_t i);

/* Finish and move into place; frees o. */
int ckpt_stout_commit(struct ckpt_stout *o);
/* The finished file's temporary, for a commit of several (commit.h). */
struct ckpt_temp *ckpt_stout_tempfile(struct ckpt_stout *o);
void ckpt_stout_abort(struct ckpt_stout *o);

/* Writing one variable's values, given as mem (CKPT_OTHER: as stored). */
struct ckpt_stvar;
struct ckpt_stvar *ckpt_stvar_open(struct ckpt_stout *o, const char *name, ckpt_dtype mem);
const ckpt_var *ckpt_stvar_var(const struct ckpt_stvar *w);
int ckpt_stvar_write(struct ckpt_stvar *w, const ckpt_region *r, const void *buf);
void ckpt_stvar_close(struct ckpt_stvar *w);

#endif
