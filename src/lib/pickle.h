/* pickle.h - (internal to libckpt) a restricted unpickler: Python's pickle
 * protocols 2-5 read into a tree of values without running anything.
 *
 * A pickle is a program for a stack machine whose REDUCE calls any Python
 * function it names; torch.load(weights_only=True) lets it call only the
 * functions that rebuild tensors and containers.  This reader goes further:
 * it calls nothing at all.  The opcodes that build data make values; the
 * globals torch.save writes (ckpt_pk_allowed) are recognised by name and
 * their calls recorded (a tensor rebuilt from a storage, an OrderedDict, a
 * torch.Size) or interpreted as data (_codecs.encode's bytes); any other
 * global is refused, naming it, before anything is done with it.  What
 * torch.save's persistent ids name (storages) become storage values. */
#ifndef CKPT_PICKLE_H
#define CKPT_PICKLE_H

#include <stddef.h>
#include <stdint.h>

#include "bytes.h"

typedef enum {
	CKPT_PK_NONE, CKPT_PK_BOOL, CKPT_PK_INT, CKPT_PK_BIGINT, CKPT_PK_FLOAT,
	CKPT_PK_STR, CKPT_PK_BYTES, CKPT_PK_TUPLE, CKPT_PK_LIST, CKPT_PK_DICT,
	CKPT_PK_SET, CKPT_PK_FROZENSET,
	CKPT_PK_GLOBAL,   /* an allowed global named, not called: "torch.float32" */
	CKPT_PK_CALL,     /* an allowed global's call kept as it is (torch.Size((2,3)),
	                   * torch.device("cpu")): fn and args */
	CKPT_PK_STORAGE,  /* a persistent id ('storage', type, key, location, numel) */
	CKPT_PK_TENSOR,   /* _rebuild_tensor(_v2) / _rebuild_parameter */
} ckpt_pk_kind;

typedef struct ckpt_pk ckpt_pk;

struct ckpt_pk {
	ckpt_pk_kind kind;
	int64_t i;            /* BOOL, INT; STORAGE: numel; TENSOR: storage offset */
	double d;             /* FLOAT */
	char *s;              /* STR (UTF-8), BYTES, BIGINT (two's complement,
	                       * little-endian), GLOBAL ("module.name"); STORAGE:
	                       * its key */
	size_t len;           /* of s */
	ckpt_pk **item;       /* TUPLE, LIST, SET: items; DICT: key, value, key, ...;
	                       * CALL: fn, args; STORAGE: type (a GLOBAL), location;
	                       * TENSOR: storage, size, stride (TUPLEs of INTs) */
	size_t n, cap;        /* items used (DICT: 2 per entry), allocated */
	ckpt_pk *attrs;       /* DICT made as an OrderedDict: its BUILD state
	                       * (a state dict's _metadata), or NULL */
	unsigned ordered : 1; /* DICT: an OrderedDict */
	unsigned param : 1;   /* TENSOR: an nn.Parameter */
	unsigned grad : 1;    /* TENSOR: requires_grad */
	unsigned walking : 1; /* for walks over the tree: cycles end */
	size_t tag;           /* for walks over the tree: what they noted */
	const char *refused;  /* TENSOR: what ckpt does not read ("a quantized
	                       * tensor"), named at its use */
};

/* The values of one or more pickles, freed together. */
typedef struct ckpt_pk_doc ckpt_pk_doc;

ckpt_pk_doc *ckpt_pk_doc_new(void);
void ckpt_pk_doc_free(ckpt_pk_doc *d);

/* Read one pickle from [p, p + n) into d: 0 with its value in *root and
 * the bytes it took (up to its STOP) in *used; CKPT_PK_SHORT when the
 * bytes end before STOP; -1 with a message that starts with name. */
#define CKPT_PK_SHORT (-3)
int ckpt_pk_load(ckpt_pk_doc *d, const char *name, const unsigned char *p, size_t n,
                 ckpt_pk **root, size_t *used);

/* Whether "module.name" is a global ckpt reads (what torch.save writes). */
int ckpt_pk_allowed(const char *global);

/* t as a sequence: t itself when a TUPLE or LIST, the tuple a
 * torch.Size(...) was made of, else NULL. */
const ckpt_pk *ckpt_pk_seq(const ckpt_pk *t);

/* ---- writing (pickleout.c): protocol 2, as Python's pickler writes it --------- */

/* A pickle being written (bytes.h: a failure to grow is checked once at
 * the end); memo: the next memo index. */
struct ckpt_pk_out {
	struct ckpt_bytes b;
	uint32_t memo;
};

void ckpt_pk_out_free(struct ckpt_pk_out *o);
void ckpt_pk_op(struct ckpt_pk_out *o, unsigned char op);
void ckpt_pk_put_int(struct ckpt_pk_out *o, int64_t v);
void ckpt_pk_put_bool(struct ckpt_pk_out *o, int v);
void ckpt_pk_put_str(struct ckpt_pk_out *o, const char *s, size_t n);
void ckpt_pk_put_global(struct ckpt_pk_out *o, const char *dotted);
/* A tuple of n ints. */
void ckpt_pk_put_ints(struct ckpt_pk_out *o, const uint64_t *v, int n);
/* BINPUT of the next memo index: that index. */
uint32_t ckpt_pk_put_memo(struct ckpt_pk_out *o);
void ckpt_pk_get_memo(struct ckpt_pk_out *o, uint32_t at);

/* Value v as it was read (pickle.h's tree), its tensors written by
 * tensor(user, o, v): 0, what tensor returned, or CKPT_PK_TOO_DEEP for
 * containers nested deeper than a checkpoint's (or holding themselves).  extra(user, o), when
 * not NULL, adds items to v's own items (v a DICT: key, value pairs
 * before its SETITEMS end). */
#define CKPT_PK_TOO_DEEP (-4)
typedef int (*ckpt_pk_tensor_fn)(void *user, struct ckpt_pk_out *o, const ckpt_pk *v);
int ckpt_pk_put_value(struct ckpt_pk_out *o, const ckpt_pk *v, ckpt_pk_tensor_fn tensor,
                      int (*extra)(void *user, struct ckpt_pk_out *o), void *user);

#endif
