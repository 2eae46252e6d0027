/* format.h - (internal to libckpt) a file format as a table of what it
 * does, the way libarchive registers its readers: recognise itself from a
 * file's first bytes, open it and list its variables, read them in slabs.
 * The generic code (file.c, slab.c) reaches a format only through its
 * table; formats.c lists the formats.  A format's own state hangs on
 * ckpt_file.backend. */
#ifndef CKPT_FORMAT_H
#define CKPT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "file.h"
#include "slab.h"

enum ckpt_format_id { CKPT_FORMAT_NONE, CKPT_FORMAT_HDF5, CKPT_FORMAT_SAFETENSORS };

/* What recognising looks at: the first n bytes, and the whole, an open
 * file (fd) or an image in memory, of size bytes. */
struct ckpt_probe {
	const unsigned char *head;
	size_t n;
	int fd;
	const void *image;
	uint64_t size;
};

struct ckpt_format {
	enum ckpt_format_id id;
	const char *name;
	int (*probe)(const struct ckpt_probe *p);
	/* Open f (f->fd set, from path; or f->image, path NULL) and list its
	 * variables: 0, or -1 with a message naming the file. */
	int (*open)(ckpt_file *f, const char *path);
	/* Once f is indexed by name: the variables in the order the file
	 * records (NULL: the listing's order is the file's). */
	int (*reorder)(ckpt_file *f);
	void (*close)(ckpt_file *f);
	/* The text f keeps under key: 1 with *text malloc'd, 0 none, -1. */
	int (*text)(const ckpt_file *f, const char *key, char **text);
	/* How v is stored, in words (ckpt_var_storage()). */
	char *(*storage)(const ckpt_file *f, const ckpt_var *v, char *out, size_t size);
	/* Slabs (slab.c): plan s's, read one region; NULL release, close and
	 * same when the format holds nothing per slab and compares bytes. */
	int (*slab_open)(ckpt_slab *s, size_t max_bytes);
	int (*slab_read)(ckpt_slab *s, void *buf, const ckpt_region *r);
	void (*slab_release)(ckpt_slab *s, void *buf, size_t n);
	void (*slab_close)(ckpt_slab *s);
	int (*slab_same)(const ckpt_slab *a, const ckpt_slab *b);

	/* Writing one file w of the format (out.c; opening and committing a
	 * whole output stays there): its names flat (groups NULL) or in
	 * groups made first; variables declared, then their values written
	 * through var_*, cursor (NULL: whole rows) telling the slabs it takes
	 * best; collective (NULL: never) and shareable (NULL: always) for the
	 * ranks of an MPI run; text kept under a key. */
	const char *(*out_name)(const void *w);
	int (*out_groups)(void *w, const char *path);
	int (*out_declare)(void *w, const char *name, ckpt_dtype t, int rank,
	                   const uint64_t *dims);
	int (*out_set_text)(void *w, const char *key, const char *text, size_t len);
	void (*out_unset_text)(void *w, const char *key);
	int (*out_commit)(void *w);
	void (*out_abort)(void *w);
	/* like: values given as that slab holds them; else as type t */
	void *(*var_open)(void *w, const char *name, ckpt_dtype t, const ckpt_slab *like);
	void (*var_cursor)(const void *var, ckpt_cursor *c, const ckpt_var *v, size_t elsize,
	                   size_t max_bytes);
	int (*var_write)(void *var, const ckpt_region *r, const void *buf);
	int (*var_collective)(const void *var);
	int (*var_shareable)(const void *var);
	void (*var_close)(void *var);
};

/* slab_same(): 1, 0, -1 with a message, or this: compare the bytes. */
#define CKPT_SAME_BYTES 2

extern const struct ckpt_format ckpt_format_hdf5, ckpt_format_safetensors;

/* The format p is in, or NULL. */
const struct ckpt_format *ckpt_format_of(const struct ckpt_probe *p);

/* f's format, or NULL (a set or archive with no file of its own). */
const struct ckpt_format *ckpt_file_fmt(const ckpt_file *f);

#endif
