/* out.h - writing a checkpoint: an output created like a base checkpoint
 * (its structure copied), variables created and written region by region,
 * and the whole committed atomically (as sink.h describes: a temporary
 * beside the target, moved into place when complete; "-" goes to standard
 * output, never a terminal, through a temporary file so that memory stays
 * bounded).
 *
 * The output's format is the base's (HDF5 today); the program never sees
 * it. */
#ifndef CKPT_OUT_H
#define CKPT_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "file.h"
#include "sink.h"
#include "slab.h"

typedef struct ckpt_out ckpt_out;

/* Start writing target.  like, when not NULL, gives the file's properties
 * (the root group's creation-order tracking, user block, ...); a file made
 * without one lists its variables in the order they are made. */
ckpt_out *ckpt_out_open(const char *target, int force, const ckpt_file *like);

/* A new set of k safetensors shards for in's variables, variable i in
 * shard owner[i] (0 <= owner[i] < k): target names its map,
 * NAME.safetensors.index.json, and the shards are
 * NAME-00001-of-0000k.safetensors, ... as Hugging Face names them. */
ckpt_out *ckpt_out_open_split(const char *target, int force, const ckpt_file *in, size_t k,
                              const size_t *owner);

/* The file name of shard s (from 0) of k of such a set (malloc'd). */
char *ckpt_out_shard_name(const char *target, size_t s, size_t k);

/* Close the file and move it into place (or copy it to standard output).
 * Frees o; on failure the target is untouched. */
int ckpt_out_commit(ckpt_out *o);

/* Close and remove the temporary; frees o.  NULL is allowed. */
void ckpt_out_abort(ckpt_out *o);

/* An MPI run (par.h): the output rank 0 opened and made the structure of
 * (o there, NULL on the other ranks), opened by every rank to write its
 * share of the values; returns the output on every rank, NULL on every
 * rank when it fails on any.  Collective, as ckpt_outvar_open(),
 * ckpt_outvar_close() and ckpt_out_commit() are from then on.  Under MPI
 * an output is an HDF5 file: ckpt_out_open() refuses other formats, "-"
 * and containers.  Without MPI it returns o. */
ckpt_out *ckpt_out_share(ckpt_out *o);

/* ---- variables ------------------------------------------------------------ */

/* Create the groups above path that do not exist yet, in order, each
 * listing its members in the order they are made. */
int ckpt_out_make_groups(ckpt_out *o, const char *path);

/* A new variable: name (groups above it made as needed), element type t
 * stored as h5py and Keras read it, rank dimensions (rank 0 a scalar, -1 a
 * null dataspace), contiguous storage; values to be written. */
int ckpt_out_create_var(ckpt_out *o, const char *name, ckpt_dtype t, int rank,
                        const uint64_t *dims);

/* A piece of text about the whole checkpoint, under key: a root string
 * attribute in HDF5, an entry of safetensors' __metadata__ (set before
 * the first values are written). */
int ckpt_out_set_text(ckpt_out *o, const char *key, const char *text);
/* Whether o's format keeps texts at all (a PyTorch file, a TensorFlow
 * bundle do not: texts given are left out with one warning). */
int ckpt_out_holds_texts(const ckpt_out *o);
/* The same for len bytes that may hold NUL (a fixed-length string in
 * HDF5, which keeps them). */
int ckpt_out_set_bytes(ckpt_out *o, const char *key, const char *text, size_t len);
/* A number under key (t: CKPT_I64 or CKPT_F64): typed where the format's
 * metadata have types (an HDF5 root attribute), else as its text. */
int ckpt_out_set_number(ckpt_out *o, const char *key, ckpt_dtype t, const void *value);

/* Remove the text under key, if there is one. */
void ckpt_out_unset_text(ckpt_out *o, const char *key);

/* A variable of the output open for writing its values. */
typedef struct ckpt_outvar ckpt_outvar;

/* Open the output's variable name (as created) for values of dtype t in
 * memory; a bfloat16 the output stores as Keras 3 does takes the same
 * 16-bit patterns.  NULL with a message naming the output and variable. */
ckpt_outvar *ckpt_outvar_open(ckpt_out *o, const char *name, ckpt_dtype t);

/* The same, for values as the reader s holds them (any type, numeric or
 * not: strings, compounds, ... of the same kind as the variable's). */
ckpt_outvar *ckpt_outvar_open_like(ckpt_out *o, const char *name, const ckpt_slab *s);

/* The regions to write the variable in (its shape is v's): slabs of at most
 * max_bytes at elsize bytes a value, whole chunks of its storage at a time. */
void ckpt_outvar_cursor(const ckpt_outvar *w, ckpt_cursor *c, const ckpt_var *v,
                        size_t elsize, size_t max_bytes);

/* Write r->n values from buf into region r.  In a shared output (MPI)
 * writes are collective where ckpt_outvar_collective() says so: every rank
 * then writes as many times, r NULL where it has nothing to write. */
int ckpt_outvar_write(ckpt_outvar *w, const ckpt_region *r, const void *buf);
int ckpt_outvar_collective(const ckpt_outvar *w);

/* Whether the ranks of an MPI run may write shares of the variable: not
 * when its values live in the file's metadata (HDF5's compact storage);
 * such a variable is written by one rank before the output is shared. */
int ckpt_outvar_shareable(const ckpt_outvar *w);

/* Finish writing; frees w.  NULL is allowed. */
void ckpt_outvar_close(ckpt_outvar *w);

/* ---- copying from a checkpoint ------------------------------------------ */

/* What to do with a variable when copying a checkpoint's structure. */
typedef enum {
	CKPT_COPY_WHOLE,  /* dataset as it is: data, attributes, storage */
	CKPT_COPY_EMPTY,  /* same shape, storage and attributes; data to come */
	CKPT_COPY_SKIP,   /* leave it out */
} ckpt_copy_action;

/* How a variable created empty is stored: dtype, the element type (as the
 * source: CKPT_OTHER); keep_storage, whether the values to come, which the
 * caller computes, keep lossy filters of the source (scale-offset on
 * floats, zfp, sz, ...).  By default those are left out, with a warning:
 * they would quantize the values.  Lossless filters are always kept. */
typedef struct ckpt_copy_spec {
	ckpt_dtype dtype;
	int keep_storage;
} ckpt_copy_spec;

/* Asked once per variable; may fill in spec (CKPT_COPY_EMPTY only). */
typedef ckpt_copy_action (*ckpt_copy_fn)(const ckpt_var *v, ckpt_copy_spec *spec,
                                         void *user);

/* Whatever the action, no output refers to an input's storage: a variable
 * stored in external files or as a virtual dataset is written into the
 * output with its values (contiguous storage). */

/* Recreate src's structure in o, in src's order: root attributes, groups
 * (empty ones too) with their properties and attributes, links, and each
 * variable as decide() says.  Variables created empty have the source
 * variable's name, and are filled by the caller afterwards. */
int ckpt_copy_structure(const ckpt_file *src, ckpt_out *o, ckpt_copy_fn decide,
                        void *user);

/* Copy variable v of src whole into o under the name dst_name (groups
 * above it must exist). */
int ckpt_copy_var(const ckpt_file *src, const ckpt_var *v, ckpt_out *o,
                  const char *dst_name);

/* When variable v of src holds references (to objects or regions): its
 * values written into the output's variable dst_name (same shape),
 * re-pointed to the output's objects of the same paths, and 1; otherwise
 * 0, nothing done.  -1 on error. */
int ckpt_copy_ref_values(const ckpt_file *src, const ckpt_var *v, ckpt_out *o,
                         const char *dst_name);

#endif
