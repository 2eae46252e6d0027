/* flat.h - a checkpoint's numeric variables as one flat vector (get_flat /
 * set_flat) and its layout, the manifest.
 *
 * The flat vector is the values of the selected numeric variables, in the
 * toolkit's variable order, each in C order, all of one element type, little-
 * or big-endian.  The manifest is TSV: a header line, then one line per
 * variable (name, stored dtype, shape, offset, count); bundle.h carries
 * both in one file.  The formats are documented in ckpt-flat(5). */
#ifndef CKPT_FLAT_H
#define CKPT_FLAT_H

#include <stddef.h>
#include <stdint.h>

#include "file.h"
#include "select.h"

#define CKPT_FLAT_VERSION 1

typedef struct ckpt_flat_entry {
	char *name;
	ckpt_dtype dtype;   /* as stored in the checkpoint */
	int rank;           /* -1: null dataspace */
	uint64_t dims[CKPT_MAX_RANK];
	uint64_t offset;    /* in values, within the flat vector */
	uint64_t count;     /* values */
	const ckpt_var *var; /* made from a file: the variable */
} ckpt_flat_entry;

typedef struct ckpt_flat {
	ckpt_dtype dtype;   /* of the values in the flat vector */
	int big_endian;
	uint64_t count;     /* values in all */
	ckpt_flat_entry *e;
	size_t n;
} ckpt_flat;

void ckpt_flat_init(ckpt_flat *m);
void ckpt_flat_free(ckpt_flat *m);

/* The layout of f's numeric variables that sel selects (sel may be NULL),
 * in order, under their names as sel maps them.  m->dtype is set to their common dtype, CKPT_OTHER when they
 * have several (or there are none). */
int ckpt_flat_of_file(ckpt_flat *m, const ckpt_file *f, const ckpt_select *sel);

/* The bytes of the flat vector: count times the size of dtype. */
uint64_t ckpt_flat_bytes(const ckpt_flat *m);

/* Whether the two layouts list the same variables with the same shapes;
 * if not, the message says where they part (a and b name the two). */
int ckpt_flat_same_layout(const ckpt_flat *a, const char *an, const ckpt_flat *b,
                          const char *bn);

/* The manifest as text (malloc'd, NUL-terminated; *len without the NUL). */
char *ckpt_flat_format(const ckpt_flat *m, size_t *len);

/* Parse a manifest; what names it in messages ("m.tsv: line 3: ..."). */
int ckpt_flat_parse(ckpt_flat *m, const char *text, size_t len, const char *what);

/* Names in a manifest: tab, newline, carriage return, backslash and other
 * control bytes escaped (\t \n \r \\ \xHH); other bytes as they are.
 * ckpt_flat_unescape() returns NULL (with a message) for a bad escape. */
char *ckpt_flat_escape(const char *name);
/* Whether name is its own escape (nothing to escape). */
int ckpt_flat_plain(const char *name);
char *ckpt_flat_unescape(const char *text, size_t len);

#endif
