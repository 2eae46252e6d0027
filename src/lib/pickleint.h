/* pickleint.h - (internal to the unpickler) what pickle.c, the machine,
 * and pickletorch.c, torch's globals, share. */
#ifndef CKPT_PICKLEINT_H
#define CKPT_PICKLEINT_H

#include "pickle.h"

struct ckpt_pk_doc {
	ckpt_pk **all;
	size_t n, cap;
};

/* A new value of d, zeroed but for its kind; NULL when out of memory. */
ckpt_pk *ckpt_pk_new(ckpt_pk_doc *d, ckpt_pk_kind kind);

/* item appended to c's items: 0, or -1 when out of memory. */
int ckpt_pk_add(ckpt_pk *c, ckpt_pk *item);

/* Item i of the TUPLE t, or NULL (t none, or shorter). */
ckpt_pk *ckpt_pk_arg(const ckpt_pk *t, size_t i);

/* What fn(*args) makes, without calling anything: data for the globals
 * ckpt interprets, the call itself for the others; NULL when out of
 * memory or for arguments fn does not take. */
ckpt_pk *ckpt_pk_call(ckpt_pk_doc *d, ckpt_pk *fn, ckpt_pk *args);

#endif
