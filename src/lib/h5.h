/* h5.h - (internal to libckpt) the HDF5 backend: what the library's HDF5
 * modules share behind the format-neutral headers.  Never installed; no
 * program includes it.
 *
 * HDF5 handles live here, in the private state behind the public opaque
 * pointers: a checkpoint's open file (ckpt_file.backend), a slab reader's
 * dataset (ckpt_slab.backend), the output being written (ckpt_out). */
#ifndef CKPT_H5_H
#define CKPT_H5_H

#include <hdf5.h>

#include "backend.h"
#include "dtype.h"
#include "err.h"
#include "file.h"
#include "format.h"
#include "out.h"
#include "slab.h"

/* ---- open objects behind the public handles -------------------------- */

struct ckpt_slab_backend {
	hid_t dset, fspace, mtype;
};

/* An HDF5 variable's slab's own part. */
static inline struct ckpt_slab_backend *ckpt_h5_slab(const ckpt_slab *s)
{
	return s->backend;
}

/* An open HDF5 checkpoint: its file, and its largest group's local heap
 * (bytes), which the metadata cache is sized by. */
struct ckpt_h5file {
	hid_t fid;
	uint64_t heap;
};

static inline struct ckpt_h5file *ckpt_h5_state(const ckpt_file *f)
{
	return ckpt_file_fmt(f) == &ckpt_format_hdf5 ? f->backend->state : NULL;
}

static inline hid_t ckpt_h5_fid(const ckpt_file *f)
{
	return ckpt_h5_state(f) ? ckpt_h5_state(f)->fid : -1;
}

/* HDF5's metadata cache for each file at most this many bytes (counted
 * as stored: its default, 32 MiB, holds object headers that take ten
 * times as much decoded, 1.3 KB for each of a million small variables)
 * besides the largest entry used over and over, a group's local heap of
 * names (left out, every lookup would read it again): fapl's, then fid's
 * for a heap of entry bytes. */
#ifndef CKPT_H5_CACHE
#define CKPT_H5_CACHE (1 << 20)
#endif
void ckpt_h5_small_cache(hid_t fapl);
void ckpt_h5_fit_cache(hid_t fid, uint64_t entry);

/* The reading side, under file.c: open a path or f's image (0, or -1
 * with a message) and close (h5open.c); list f's variables and objects in
 * the toolkit's order (h5file.c). */
int ckpt_h5_open_path(ckpt_file *f, const char *path);
int ckpt_h5_open_image(ckpt_file *f);
int ckpt_h5_list(ckpt_file *f);
void ckpt_h5_close(ckpt_file *f);
char *ckpt_h5_storage(const ckpt_file *f, const ckpt_var *v, char *out, size_t size);

/* (h5open.c) fn(name, text) for each of the root group's string attributes, in
 * creation order where tracked; returns how many other attributes the
 * root has, -1 on failure (also when fn fails). */
int ckpt_h5_root_text(const ckpt_file *f, const char *key, char **text);
int ckpt_h5_root_number(const ckpt_file *f, const char *key, ckpt_dtype t, void *value);
/* The memory type of such a number (t: CKPT_I64 or CKPT_F64). */
static inline hid_t ckpt_h5_number_type(ckpt_dtype t)
{
	return t == CKPT_I64 ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE;
}
int64_t ckpt_h5_root_strings(const ckpt_file *f, ckpt_string_fn fn, void *user);

/* The order of a flat file's variables (h5order.c): written as a root
 * attribute where HDF5's walk would meet them in another; the variables
 * of f (listed and indexed: file.c re-sorts its index) put back in it. */
#define CKPT_ORDER_ATTR "ckpt_order"
int ckpt_h5_write_order(hid_t fid, const char *const *names, size_t n);
int ckpt_h5_apply_order(ckpt_file *f);

/* ---- writing (h5out.c), under out.c ------------------------------------ */

/* One HDF5 file being written: a temporary beside target (or in TMPDIR
 * for standard output, via_tmpdir), created like the file like. */
struct ckpt_h5out;
struct ckpt_h5out *ckpt_h5out_open(const char *target, int force, int via_tmpdir,
                                   const ckpt_file *like);
hid_t ckpt_h5out_fid(const struct ckpt_h5out *h);
const char *ckpt_h5out_name(const struct ckpt_h5out *h); /* the target, for messages */
const char *ckpt_h5out_temp(const struct ckpt_h5out *h); /* the temporary's path */
struct ckpt_temp *ckpt_h5out_tempfile(struct ckpt_h5out *h); /* finished: to commit */
/* Close the HDF5 file: the temporary is complete, not yet in place. */
int ckpt_h5out_finish(struct ckpt_h5out *h);
/* Finish and move into place; frees h (on failure too). */
int ckpt_h5out_commit(struct ckpt_h5out *h);
/* Close and remove the temporary; frees h.  NULL is allowed. */
void ckpt_h5out_abort(struct ckpt_h5out *h);
/* Every rank of an MPI run: the file rank 0 made (h there, NULL on the
 * others) reopened through MPI-IO on all, to write values into; from then
 * on finish and commit are collective (rank 0 moves it into place).  NULL
 * on every rank when it fails on any. */
struct ckpt_h5out *ckpt_h5out_share(struct ckpt_h5out *h);
int ckpt_h5out_shared(const struct ckpt_h5out *h);

/* The writer's side of out.h for one HDF5 file (the format's table,
 * format.h, says what each does). */
int ckpt_h5out_groups(struct ckpt_h5out *o, const char *path);
int ckpt_h5out_declare(struct ckpt_h5out *o, const char *name, ckpt_dtype t, int rank,
                       const uint64_t *dims);
int ckpt_h5out_set_text(struct ckpt_h5out *o, const char *key, const char *text, size_t len);
void ckpt_h5out_unset_text(struct ckpt_h5out *o, const char *key);
int ckpt_h5out_set_number(struct ckpt_h5out *o, const char *key, ckpt_dtype t,
                          const void *value);
struct ckpt_h5var;
struct ckpt_h5var *ckpt_h5var_open(struct ckpt_h5out *o, const char *name, ckpt_dtype t,
                                   const ckpt_slab *like);
void ckpt_h5var_cursor(const struct ckpt_h5var *w, ckpt_cursor *c, const ckpt_var *v,
                       size_t elsize, size_t max_bytes);
int ckpt_h5var_write(struct ckpt_h5var *w, const ckpt_region *r, const void *buf);
/* Whether writes must be collective (a shared file, a filtered variable). */
int ckpt_h5var_collective(const struct ckpt_h5var *w);
/* Whether its values are raw data, not in the object header (compact). */
int ckpt_h5var_shareable(const struct ckpt_h5var *w);
void ckpt_h5var_close(struct ckpt_h5var *w);

/* A root attribute name, a variable-length UTF-8 string. */
int ckpt_h5_write_string_attr(hid_t fid, const char *name, const char *text, size_t len);

/* The HDF5 file of output o that holds (or is to hold) the object called
 * name - of several when o is a sharded set; NULL: the first - or -1 when
 * o is not HDF5 (h5format.c). */
hid_t ckpt_h5_out_fid(const ckpt_out *o, const char *name);

/* ---- element types ------------------------------------------------------ */

/* The toolkit type of an HDF5 file datatype, CKPT_OTHER if none fits. */
ckpt_dtype ckpt_dtype_of(hid_t h5type);

/* Whether HDF5 files can hold values of t (the float8 formats: no). */
int ckpt_h5_has_type(ckpt_dtype t);

/* The text of attribute a when it is one string: 1 with *text malloc'd, 0
 * when it is not one string, -1 when it cannot be read. */
int ckpt_h5_read_string_attr(hid_t a, char **text, size_t *len);

/* A new HDF5 datatype (close it with H5Tclose) for values of t in memory:
 * native byte order; float16 and bfloat16 as their 16-bit patterns. */
hid_t ckpt_dtype_memtype(ckpt_dtype t);

/* A new HDF5 datatype for storing t in a file: little-endian, bool as
 * h5py's enum, so that h5py and Keras read what the toolkit writes. */
hid_t ckpt_dtype_filetype(ckpt_dtype t);

/* Whether dset holds its values of dtype t as Keras 3 stores bfloat16:
 * 2-byte opaque data (marked dtype="bfloat16", see file.h). */
int ckpt_keras_bfloat16(hid_t dset, ckpt_dtype t);

/* The memory type (to be closed) for values of dtype t read from or
 * written to dset: the toolkit's, or, where dset holds bfloat16 as Keras 3
 * stores it (2-byte opaque), dset's own type - the bytes as they are,
 * little-endian as numpy writes them on every host Keras runs on (a
 * big-endian host is refused). */
hid_t ckpt_values_memtype(hid_t dset, ckpt_dtype t);

/* ---- slabs -------------------------------------------------------------- */

/* Slabs of at most max_bytes (at least one value of elsize bytes) of
 * variable v, whole chunks of dataset dset at a time where it is chunked. */
int ckpt_h5_cursor_open(ckpt_cursor *c, hid_t dset, const ckpt_var *v, size_t elsize,
                        size_t max_bytes);

/* The slab reader's HDF5 side (h5slab.c), under slab.c: open s->var's
 * dataset (memory type, s->elsize, s->in_place and s->addr when the bytes
 * in the file can be used as they are, the plan in s->at); read region r
 * into buf; release what HDF5 allocated for n values read into buf
 * (variable-length data); close.  Errors: -1 with a message. */
int ckpt_h5_slab_open(ckpt_slab *s, size_t max_bytes);
int ckpt_h5_slab_read(ckpt_slab *s, void *buf, const ckpt_region *r);
void ckpt_h5_slab_release(ckpt_slab *s, void *buf, size_t n);
void ckpt_h5_slab_close(ckpt_slab *s);

/* Whether the last slabs of a and b hold the same values where their
 * bytes cannot tell (references, variable-length data): 1, 0, -1 with a
 * message; CKPT_SAME_BYTES where comparing the bytes is right. */
int ckpt_h5_slab_same(const ckpt_slab *a, const ckpt_slab *b);

/* Select region r (all of a scalar) in the dataspace space. */
int ckpt_h5_select(hid_t space, const ckpt_region *r);

/* Write buf (r->n values of memtype) to region r of dset, with transfer
 * properties dxpl; r NULL writes nothing (a rank's empty part of a
 * collective write). */
int ckpt_h5_region_write(const ckpt_region *r, hid_t dset, hid_t memtype,
                         const void *buf, hid_t dxpl);

/* ---- structure ---------------------------------------------------------- */

/* Copy attributes of src_obj onto dst_obj (both open objects). */
int ckpt_copy_attrs(hid_t src_obj, hid_t dst_obj, const char *what);

/* ckpt_copy_structure() and ckpt_copy_var() into the HDF5 file dst.  Groups
 * and attributes that dst has already are kept (shards of a set written as
 * one file have groups in common). */
int ckpt_h5_copy_structure(const ckpt_file *src, hid_t dst, ckpt_copy_fn decide,
                           void *user);
int ckpt_h5_copy_var(const ckpt_file *src, const ckpt_var *v, hid_t dst,
                     const char *dst_name);

/* The two steps of ckpt_copy_structure(), for copies that take objects
 * from several files (shard.c): the root group's attributes, and one
 * object of src's walk (a group empty, with its properties and
 * attributes). */
int ckpt_h5_copy_root_attrs(const ckpt_file *src, hid_t dst);
int ckpt_h5_copy_obj(const ckpt_file *src, const ckpt_obj *o, hid_t dst,
                     ckpt_copy_fn decide, void *user);

/* Create the groups above path that do not exist yet, in order, each
 * listing its members in the order they are made. */
int ckpt_h5_make_groups(hid_t fid, const char *path);

/* Whether obj has an attribute too large for HDF5's earliest file format
 * (64 KiB: Keras' layer_names on large models); and moving the file of obj
 * to the 1.8 format, which stores such attributes densely (returns whether
 * it moved). */
int ckpt_h5_needs_dense_attrs(hid_t obj);
int ckpt_h5_newer_format(hid_t obj);

/* As ckpt_seterr(), with the innermost message of HDF5's error stack
 * appended in parentheses when there is one. */
int ckpt_seterr_h5(const char *fmt, ...) CKPT_PRINTF(1, 2);
/* HDF5's printing of its error stack off, unless CKPT_DEBUG is set (h5err.c). */
void ckpt_h5_init(void);

#endif
