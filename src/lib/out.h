/* out.h - writing a checkpoint safely, and copying another's structure.
 *
 * The output is written to a temporary file beside the target and moved
 * into place only when complete; on error, on exit before the commit, or on
 * a signal that terminates (SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT,
 * SIGUSR1/2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ - those still at
 * their default action: ignored ones and the caller's own handlers stay),
 * the temporary is removed and the target left untouched.  An existing
 * target is replaced only when asked (force), and atomically: never a
 * mixture of two writers.  "-" writes to standard output (never a
 * terminal), through a temporary file so that memory stays bounded. */
#ifndef CKPT_OUT_H
#define CKPT_OUT_H

#include <stddef.h>

#include <hdf5.h>

#include "file.h"

typedef struct ckpt_out ckpt_out;

/* Start writing target.  like, when not NULL, gives the file creation
 * properties (the root group's creation-order tracking, ...); a file made
 * without one tracks creation order. */
ckpt_out *ckpt_out_open(const char *target, int force, const ckpt_file *like);

/* The HDF5 file being written. */
hid_t ckpt_out_fid(const ckpt_out *o);

/* Create the groups above path that do not exist yet, in order, each
 * listing its members in the order they are made. */
int ckpt_out_make_groups(hid_t fid, const char *path);

/* Close the file and move it into place (or copy it to standard output).
 * Frees o; on failure the target is untouched. */
int ckpt_out_commit(ckpt_out *o);

/* Close and remove the temporary; frees o.  NULL is allowed. */
void ckpt_out_abort(ckpt_out *o);

/* Remove every temporary not yet committed (async-signal-safe).  Runs at
 * exit; a program that stops at once with _exit() calls it first. */
void ckpt_out_cleanup(void);

/* Any other file (flat vectors, manifests, bundles) is written the same
 * way, except that "-" writes straight to standard output: a stream needs
 * no temporary.  binary, when not NULL, names what is written, and
 * standard output is then refused when it is a terminal. */
typedef struct ckpt_sink ckpt_sink;

ckpt_sink *ckpt_sink_open(const char *target, int force, const char *binary);
int ckpt_sink_fd(const ckpt_sink *s);
const char *ckpt_sink_name(const ckpt_sink *s); /* target, or "(stdout)" */
int ckpt_sink_write(ckpt_sink *s, const void *buf, size_t n);
/* Close and move into place; frees s.  On failure the target is untouched. */
int ckpt_sink_commit(ckpt_sink *s);
/* Remove the temporary; frees s.  NULL is allowed. */
void ckpt_sink_abort(ckpt_sink *s);

/* Copy attributes of src_obj onto dst_obj (both open objects). */
int ckpt_copy_attrs(hid_t src_obj, hid_t dst_obj, const char *what);

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

/* Copy variable v of src whole into dst under the name dst_name (groups
 * above it must exist). */
int ckpt_copy_var(const ckpt_file *src, const ckpt_var *v, hid_t dst,
                  const char *dst_name);

/* Recreate src's structure in dst, in src's order: root attributes, groups
 * (empty ones too) with their properties and attributes, soft links, and
 * each variable as decide() says.  Datasets created empty have the source
 * dataset's name, and are filled by the caller afterwards. */
int ckpt_copy_structure(const ckpt_file *src, hid_t dst, ckpt_copy_fn decide,
                        void *user);

/* The two steps of ckpt_copy_structure(), for copies that take objects
 * from several files: the root group's attributes, and one object of
 * src's walk (a group empty, with its properties and attributes). */
int ckpt_copy_root_attrs(const ckpt_file *src, hid_t dst);
int ckpt_copy_obj(const ckpt_file *src, const ckpt_obj *o, hid_t dst,
                  ckpt_copy_fn decide, void *user);

#endif
