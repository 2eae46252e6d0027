/* format.h - (internal to libckpt) a file format as a table of what it
 * does, the way libarchive registers its readers and writers: recognise
 * itself from a file's first bytes, open it and list its variables, read
 * them in slabs; write a file like a base, copy from a file of its own
 * kind without reading values.  The generic code (file.c, slab.c, out.c,
 * outcopy.c) reaches a format only through its table; formats.c lists the
 * formats.  A format's own state hangs on ckpt_file.backend. */
#ifndef CKPT_FORMAT_H
#define CKPT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "file.h"
#include "out.h"
#include "slab.h"

struct ckpt_temp;

/* A text a file keeps (key, value of len bytes) handed to a callback. */
typedef int (*ckpt_string_fn)(const char *name, const char *text, size_t len, void *user);

/* What recognising looks at: the first n bytes, and the whole, an open
 * file (fd) or an image in memory, of size bytes; for the formats ckpt
 * only names, also the last 8 bytes and the file's name where known. */
struct ckpt_probe {
	const unsigned char *head;
	size_t n;
	int fd;
	const void *image;
	uint64_t size;
	const unsigned char *tail;
	const char *name;
};

/* A format ckpt knows but does not read has a name and a probe only; its
 * name says what a file of it is ("a TensorFlow Lite model"). */
struct ckpt_format {
	const char *name;
	void (*init)(void); /* once, from ckpt_init() (NULL: nothing) */
	int (*probe)(const struct ckpt_probe *p);
	/* A checkpoint of the format named by what is no file of it (a
	 * prefix, a directory): its file's path into out (size bytes): 1, 0
	 * when path names none, -1 with a message.  NULL: never. */
	int (*locate)(const char *path, char *out, size_t size);
	/* Open f (f->fd set, from path; or f->image, path NULL) and list its
	 * variables: 0, or -1 with a message naming the file. */
	int (*open)(ckpt_file *f, const char *path);
	/* Once f is indexed by name: the variables in the order the file
	 * records (NULL: the listing's order is the file's). */
	int (*reorder)(ckpt_file *f);
	void (*close)(ckpt_file *f);
	/* The text f keeps under key: 1 with *text malloc'd, 0 none, -1. */
	int (*text)(const ckpt_file *f, const char *key, char **text);
	/* A number under key (t: CKPT_I64 or CKPT_F64), for a format whose
	 * metadata have types (HDF5: a root attribute): 1 with *value set,
	 * 0 none, -1.  NULL: numbers are kept as text. */
	int (*number)(const ckpt_file *f, const char *key, ckpt_dtype t, void *value);
	/* Every text f keeps handed to put: the number of the root's other
	 * attributes (what a format of texts cannot hold), or -1. */
	int64_t (*texts)(const ckpt_file *f, ckpt_string_fn put, void *user);
	/* How v is stored, in words (ckpt_var_storage()). */
	char *(*storage)(const ckpt_file *f, const ckpt_var *v, char *out, size_t size);
	/* Slabs (slab.c): plan s's, read one region; NULL release, close and
	 * same when the format holds nothing per slab and compares bytes. */
	int (*slab_open)(ckpt_slab *s, size_t max_bytes);
	int (*slab_read)(ckpt_slab *s, void *buf, const ckpt_region *r);
	void (*slab_release)(ckpt_slab *s, void *buf, size_t n);
	void (*slab_close)(ckpt_slab *s);
	int (*slab_same)(const ckpt_slab *a, const ckpt_slab *b);
	/* Whether non-numeric variables a of fa and b of fb (both of this
	 * format) hold the same, for what slabs do not read (a bundle's
	 * string lists, variants): 1, 0, -1.  NULL: through slabs. */
	int (*blobs_same)(const ckpt_file *fa, const ckpt_var *a, const ckpt_file *fb,
	                  const ckpt_var *b);

	/* Writing one file w of the format (out.c; opening and committing a
	 * whole output stays there): its names flat (groups NULL) or in
	 * groups made first; variables declared, then their values written
	 * through var_*, cursor (NULL: whole rows) telling the slabs it takes
	 * best; collective (NULL: never) and shareable (NULL: always) for the
	 * ranks of an MPI run; text kept under a key. */
	const char *const *suffixes; /* the output names that ask for it */
	/* An output from a base of the format keeps the base's objects that
	 * are no variables (further names, values: a PyTorch file's). */
	int keeps_objects;
	/* A new file at path (standard output for "-"), made like the file
	 * like (of this format) or new when like is NULL. */
	void *(*out_open)(const char *path, int force, const ckpt_file *like);
	const char *(*out_name)(const void *w);
	int (*out_groups)(void *w, const char *path);
	int (*out_declare)(void *w, const char *name, ckpt_dtype t, int rank,
	                   const uint64_t *dims);
	int (*out_set_text)(void *w, const char *key, const char *text, size_t len);
	int (*out_set_number)(void *w, const char *key, ckpt_dtype t, const void *value);
	void (*out_unset_text)(void *w, const char *key);
	int (*out_commit)(void *w);
	void (*out_abort)(void *w);
	/* A shard of a set: finished, then committed with the others through
	 * its temporary (commit.h). */
	int (*out_finish)(void *w);
	struct ckpt_temp *(*out_tempfile)(void *w);
	/* Under MPI: the file rank 0 opened (NULL on the others), opened by
	 * every rank for writing together.  NULL: not written under MPI. */
	void *(*out_share)(void *w);
	/* A format that declares a variable with where its values come from
	 * (copied whole from variable sv of src when src is not NULL; t is
	 * like's type then); which variables it can hold, from src (NULL:
	 * all). */
	int (*out_declare_from)(void *w, const char *name, const ckpt_var *like, ckpt_dtype t,
	                        const ckpt_file *src, const ckpt_var *sv);
	int (*storable)(const ckpt_file *src, const ckpt_var *v);
	/* A file that spreads its values over k files of its own (a bundle's
	 * data shards): variable i of in (or one of its name) into file
	 * owner[i], those in does not have into the last; and the name of
	 * file s of k for an output named target.  NULL: a split is a set of
	 * files of the format. */
	int (*out_split)(void *w, size_t k, const ckpt_file *in, const size_t *owner);
	char *(*split_name)(const char *target, size_t s, size_t k);
	/* From a file src of the same format, without reading values (NULL:
	 * through values): its structure (groups, attributes, the variables
	 * decide keeps), one variable; and a flat file's order of variables.
	 * -2 is a failure to write (named after the output). */
	int (*copy_structure)(void *w, const ckpt_file *src, ckpt_copy_fn decide, void *user);
	int (*copy_var)(void *w, const ckpt_file *src, const ckpt_var *v, const char *dst_name);
	int (*write_order)(void *w, const char *const *names, size_t n);
	/* like: values given as that slab holds them; else as type t */
	void *(*var_open)(void *w, const char *name, ckpt_dtype t, const ckpt_slab *like);
	void (*var_cursor)(const void *var, ckpt_cursor *c, const ckpt_var *v, size_t elsize,
	                   size_t max_bytes);
	int (*var_write)(void *var, const ckpt_region *r, const void *buf);
	int (*var_collective)(const void *var);
	int (*var_shareable)(const void *var);
	void (*var_close)(void *var);
};

/* text and texts of a format that keeps no texts (a TensorFlow bundle,
 * whose object graph is a tensor; a PyTorch file, whose other values are
 * objects of their own). */
int ckpt_format_no_text(const ckpt_file *f, const char *key, char **text);
int64_t ckpt_format_no_texts(const ckpt_file *f, ckpt_string_fn put, void *user);

/* slab_same(): 1, 0, -1 with a message, or this: compare the bytes. */
#define CKPT_SAME_BYTES 2

extern const struct ckpt_format ckpt_format_hdf5, ckpt_format_safetensors, ckpt_format_tf,
	ckpt_format_torch;
/* foreign.c: named only */
extern const struct ckpt_format ckpt_format_npz, ckpt_format_pickle, ckpt_format_npy, ckpt_format_gguf,
	ckpt_format_tflite, ckpt_format_tf_index, ckpt_format_tf_data, ckpt_format_saved_model,
	ckpt_format_onnx;

/* Entry i of the table, NULL past the last. */
const struct ckpt_format *ckpt_format_at(size_t i);

/* The file of a format that path names without being it (locate): 1 with
 * its path in out, 0, -1 with a message. */
int ckpt_format_locate(const char *path, char *out, size_t size);

/* The format p is in, of those ckpt reads, or NULL; what p is, of those
 * it only names, or NULL. */
const struct ckpt_format *ckpt_format_of(const struct ckpt_probe *p);
const char *ckpt_format_unread(const struct ckpt_probe *p);

/* The name of p's zip's first member (from its local header: more bytes
 * read than p's head where the name needs them) into out, or NULL. */
const char *ckpt_probe_zip_first(const struct ckpt_probe *p, char *out, size_t cap);

/* A zip member name that only a torch.save zip has. */
int ckpt_torch_member(const char *member);

/* The format an output named target is written in: the one its name asks
 * for; for names that ask for none (also "-"), like's (a file, or a set's
 * first file), if it writes; else (also for no target) HDF5. */
const struct ckpt_format *ckpt_format_for_output(const char *target, const ckpt_file *like);

/* The file of output o that holds name (NULL: the first) when o is
 * written in fmt, else NULL: for a format's own helpers. */
void *ckpt_out_file_of(const ckpt_out *o, const struct ckpt_format *fmt, const char *name);

/* f's format, or NULL (a set or archive with no file of its own). */
const struct ckpt_format *ckpt_file_fmt(const ckpt_file *f);

#endif
