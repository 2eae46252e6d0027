/* decl.h - (internal to libckpt) the variables a file of a flat format
 * (safetensors, TensorFlow bundles) declares before it writes values: in
 * the order declared, found by name, each with its own shape and where
 * its bytes begin; copied whole from an input, or written. */
#ifndef CKPT_DECL_H
#define CKPT_DECL_H

#include <stddef.h>
#include <stdint.h>

#include "file.h"

struct ckpt_decl {
	char *name;
	ckpt_var v;               /* dtype, type, shape, sizes */
	uint64_t *dims;           /* v's (its own copy) */
	uint64_t begin;           /* where its bytes begin, once the layout is fixed */
	const ckpt_file *src;     /* copied whole from here, or NULL */
	const ckpt_var *sv;
};

struct ckpt_decls {
	struct ckpt_decl *d;
	size_t n, cap;
	size_t *slot, nslots;     /* names to declarations: index + 1, 0 free */
};

/* like stored as t: its description for a check before it is declared
 * (the shape still like's). */
ckpt_var ckpt_decl_as(const ckpt_var *like, ckpt_dtype t);

/* A new variable's description: type, shape (dims kept by the caller). */
ckpt_var ckpt_decl_new_var(ckpt_dtype t, int rank, const uint64_t *dims);

/* Declare name as v (ckpt_decl_as), copied whole from sv of src when src
 * is not NULL: the declaration (the last of l), or NULL with a message
 * naming what when name is declared already or memory runs out. */
struct ckpt_decl *ckpt_decl_add(struct ckpt_decls *l, const char *what, const char *name,
                                const ckpt_var *v, const ckpt_file *src, const ckpt_var *sv);

struct ckpt_decl *ckpt_decl_find(const struct ckpt_decls *l, const char *name);
void ckpt_decl_free(struct ckpt_decls *l);

/* A copied declaration's bytes as its input holds them, slab by slab to
 * put (at: the bytes' place from d's first byte). */
typedef int (*ckpt_decl_put_fn)(void *user, const void *buf, size_t n, uint64_t at);
int ckpt_decl_copy(const struct ckpt_decl *d, ckpt_decl_put_fn put, void *user);

/* n values of v given as mem at buf, as the file stores them (v's type,
 * little-endian): buf itself, or converted into *conv (*cap bytes, grown);
 * NULL when out of memory. */
const void *ckpt_decl_stored(const ckpt_var *v, ckpt_dtype mem, const void *buf, size_t n,
                             void **conv, size_t *cap);

#endif
