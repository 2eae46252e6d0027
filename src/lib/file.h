/* file.h - opening a checkpoint and listing its variables.
 *
 * A checkpoint is an HDF5 file (the first format; the format backends
 * stay behind these headers); every dataset at any depth is a variable,
 * named by its path without the leading '/'.  Variables are listed depth
 * first, each group in creation order where the file tracks it and in name
 * order otherwise (what h5ls -r shows).  Soft and external links are not
 * followed, and an object reached by several hard links is listed under
 * the first name met (its other names are kept as links), so nothing is
 * listed twice and cycles of groups end. */
#ifndef CKPT_FILE_H
#define CKPT_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "container.h"
#include "dtype.h"

#define CKPT_MAX_RANK 32

typedef struct ckpt_var {
	char *name;         /* path without the leading '/' (the file's storage) */
	const uint64_t *dims; /* rank sizes; NULL for a scalar or a null space.
	                     * Out of line: a million scalars cost no shapes */
	uint64_t nelems;    /* product of dims; 1 for a scalar */
	uint64_t nbytes;    /* nelems times the stored element size */
	size_t elsize;      /* stored element size in bytes */
	ckpt_dtype dtype;   /* CKPT_OTHER when not numeric */
	int rank;           /* -1 for a null dataspace (no elements at all) */
	char type[24];      /* dtype name, or the kind: "string", "compound"... */
} ckpt_var;

/* Everything the walk met, in order: what a copy of the file's structure
 * needs besides the variables (groups, also empty ones, committed
 * datatypes, soft and external links, and the further names of objects
 * with several hard links). */
typedef enum {
	CKPT_OBJ_GROUP, CKPT_OBJ_VAR, CKPT_OBJ_SOFTLINK, CKPT_OBJ_DATATYPE,
	CKPT_OBJ_HARDLINK, CKPT_OBJ_EXTLINK,
	CKPT_OBJ_VALUE      /* a value that is no tensor (a PyTorch file's epoch) */
} ckpt_obj_kind;

typedef struct ckpt_obj {
	ckpt_obj_kind kind;
	int target_var;     /* hard links: the variable's index, or -1 */
	size_t var;         /* CKPT_OBJ_VAR: index into vars */
	char *path;         /* groups and links: path without the leading '/' */
	char *target;       /* soft links: the path they point to; hard links:
	                     * the object's first name (without '/'); external
	                     * links: the path in the other file; values: what
	                     * they hold, as Python shows it */
	char *file;         /* external links: the other file */
	uint64_t nattrs;    /* groups, variables, datatypes: attributes */
} ckpt_obj;

typedef struct ckpt_file {
	char *name;         /* as given, "(stdin)" for "-": used in messages */
	struct ckpt_backend *backend; /* the format's open file (opaque) */
	void *image;        /* the file's bytes when opened from memory */
	size_t image_size;
	int fd;             /* opened from a path: for reading in place (slab.h) */
	uint64_t size;      /* bytes in the file or image */
	ckpt_var *vars;
	size_t nvars;
	const ckpt_var **by_name; /* vars sorted by name, for lookups */
	ckpt_obj *objs;     /* groups, variables and soft links in walk order */
	size_t nobjs;
	ckpt_container *container; /* what it came wrapped in; NULL: a file */
	struct ckpt_arena *arena; /* the variables' names and shapes */
} ckpt_file;

/* Open path ("-" reads standard input into memory) read-only and list its
 * variables.  NULL on failure, with a message naming the file. */
ckpt_file *ckpt_open(const char *path);

/* Open an HDF5 file image held in memory; the checkpoint takes ownership of
 * image (released with free() by ckpt_close). */
ckpt_file *ckpt_open_image(const char *name, void *image, size_t size);

void ckpt_close(ckpt_file *f);

/* Forget f's walk (groups, links, the order of all objects): for an input
 * whose variables alone are read from now on (ckpt-average's second and
 * later inputs), a million small variables cost 48 bytes each less. */
void ckpt_forget_structure(ckpt_file *f);

/* The variable called name, or NULL. */
const ckpt_var *ckpt_find(const ckpt_file *f, const char *name);

/* Numeric variables only: total elements and bytes. */
uint64_t ckpt_total_params(const ckpt_file *f);

/* "[3,4]", "[]" for a scalar, "null" for a null dataspace. */
char *ckpt_shape_str(const ckpt_var *v, char *buf, size_t size);

/* How variable v of f is stored, in words for people: "contiguous",
 * "compact", "chunked [64,64] gzip(4) shuffle", ...; into buf (size bytes),
 * which is returned; NULL with a message when f cannot tell. */
char *ckpt_var_storage(const ckpt_file *f, const ckpt_var *v, char *buf, size_t size);

/* Whether a and b have the same rank and dimensions. */
int ckpt_same_shape(const ckpt_var *a, const ckpt_var *b);

/* Whether an image in memory, or an open file of size bytes, is HDF5: the
 * signature at 0 or after a user block, and no tar archive. */
int ckpt_image_is_hdf5(const void *image, size_t size);
int ckpt_fd_is_hdf5(int fd, uint64_t size);

/* Everything read_some(from, buf, n) gives (bytes read, 0 at the end, -1
 * on an error, which it reports) in one malloc'd buffer: 0, -1 after a
 * read error, -2 when out of memory.  What every read-it-all (standard
 * input, archive members) goes through. */
int ckpt_read_all(ptrdiff_t (*read_some)(void *from, void *buf, size_t n), void *from,
                  void **buf, size_t *size);

/* Read all of a stream into memory (for "-"); returns 0 or -1 with errno. */
int ckpt_read_stream(int fd, void **buf, size_t *size);

#endif
