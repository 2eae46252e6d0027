/* torch.h - (internal to libckpt) PyTorch's torch.save files, what the
 * format's modules share: the pickled structure (pickle.h) walked into
 * named tensors (torchwalk.c), the storages they view, and the file's
 * parts (torch.c: the zip format and the legacy one). */
#ifndef CKPT_TORCH_H
#define CKPT_TORCH_H

#include <stddef.h>
#include <stdint.h>

#include "file.h"
#include "pickle.h"
#include "slab.h"

/* A storage: a run of elements of one type, somewhere in a file. */
struct ckpt_torch_storage {
	const char *key;    /* its persistent id's key */
	ckpt_dtype dtype;   /* CKPT_OTHER: kind names it */
	const char *kind;   /* "complex64", "qint8", ... */
	size_t elsize;
	uint64_t numel;
	int fd;             /* where its bytes are: the file's, or a temporary's */
	int own_fd;         /* fd is a temporary (an inflated member) */
	uint64_t offset;    /* of its first byte in fd (or the image) */
	size_t first_var;   /* the first variable that views it, + 1 (0: none) */
};

/* Where a variable's elements are in its storage. */
struct ckpt_torch_view {
	size_t storage;
	uint64_t offset;    /* in elements */
	uint64_t stride[CKPT_MAX_RANK];
	int contiguous;
	size_t next_var;    /* the next variable on the same storage, + 1 */
};

struct ckpt_torch {
	ckpt_pk_doc *doc;
	ckpt_pk *root;
	struct ckpt_torch_storage *st;
	size_t nst, stcap;
	size_t *slot;       /* a hash of the storages by key (0: empty, else index + 1) */
	size_t nslot;
	struct ckpt_torch_view *at; /* per variable */
	size_t cap;
	int legacy;
};

/* The storage of the persistent id s (a CKPT_PK_STORAGE): its index, made
 * when new; -1 with a message naming f. */
ptrdiff_t ckpt_torch_storage_of(ckpt_file *f, struct ckpt_torch *t, const ckpt_pk *s);

/* The storage of key, or NULL. */
struct ckpt_torch_storage *ckpt_torch_find(struct ckpt_torch *t, const char *key);

/* Walk t->root into f's variables, named by their paths (levels joined by
 * '/'); a tensor that views a storage as another did is that variable's
 * further name (a hard link among f's objects), a value that is no tensor
 * an object of its own (CKPT_OBJ_VALUE).  0 or -1 with a message. */
int ckpt_torch_walk(ckpt_file *f, struct ckpt_torch *t);

/* The name of the variable a pickle that is one tensor holds. */
#define CKPT_TORCH_ROOT "tensor"

/* The writer (tout.c): the format table's operations. */
void *ckpt_tout_open(const char *target, int force, const ckpt_file *like);
const char *ckpt_tout_name(const void *w);
int ckpt_tout_declare(void *w, const char *name, ckpt_dtype t, int rank, const uint64_t *dims);
int ckpt_tout_declare_from(void *w, const char *name, const ckpt_var *like, ckpt_dtype t,
                           const ckpt_file *src, const ckpt_var *sv);
int ckpt_tout_storable(const ckpt_file *src, const ckpt_var *v);
int ckpt_tout_commit(void *w);
int ckpt_tout_finish(void *w);
struct ckpt_temp *ckpt_tout_tempfile(void *w);
void ckpt_tout_abort(void *w);
void *ckpt_tvar_open(void *w, const char *name, ckpt_dtype t, const ckpt_slab *like);
int ckpt_tvar_write(void *var, const ckpt_region *r, const void *buf);
void ckpt_tvar_close(void *var);

#endif
