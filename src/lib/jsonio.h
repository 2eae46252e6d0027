/* jsonio.h - (internal to libckpt) a JSON text read piece by piece from
 * a stream, in memory bounded by its longest string: a safetensors header
 * of a million tensors is 80 MB of JSON, which a document tree (jansson's)
 * turns into a gigabyte.  (And written the same way.)  The caller walks the document with the calls
 * below, in its order; the syntax is checked as strictly as jansson
 * checks it (RFC 8259, UTF-8, no duplicate-free guarantee: keys are the
 * caller's business). */
#ifndef CKPT_JSONIO_H
#define CKPT_JSONIO_H

#include <stddef.h>
#include <stdint.h>

enum ckpt_jp_status { CKPT_JP_OK, CKPT_JP_SYNTAX, CKPT_JP_NOMEM, CKPT_JP_READ };

typedef struct ckpt_jp {
	/* The bytes: as ckpt_read_all's read_some (a read error it reports). */
	ptrdiff_t (*read)(void *from, void *buf, size_t n);
	void *from;
	size_t at, n;           /* where in buf, bytes in buf */
	uint64_t pos;           /* bytes before buf */
	int depth;
	char *str;              /* the last string or key read, NUL-terminated */
	size_t len, cap;        /* (it may hold NUL bytes: len counts them) */
	enum ckpt_jp_status status;
	char err[128];          /* CKPT_JP_SYNTAX: what, jansson's words */
	uint64_t err_pos;       /* and the byte it was met at */
	unsigned char buf[65536];
} ckpt_jp;

/* Every call returns 0, or -1 with p->status saying why; a call after a
 * failure fails again. */
void ckpt_jp_init(ckpt_jp *p, ptrdiff_t (*read)(void *, void *, size_t), void *from);
void ckpt_jp_free(ckpt_jp *p);

/* The next value's first byte ('{', '[', '"', '-', a digit, 't', 'f',
 * 'n'), or -1 at the end or on an error. */
int ckpt_jp_peek(ckpt_jp *p);

/* Walking an object ('{') or an array ('['): *first set to 1 before the
 * first call; each call gives 1 while an element follows (for an object,
 * read its key with ckpt_jp_key, then its value), 0 after the closing
 * bracket, -1 on an error. */
int ckpt_jp_next(ckpt_jp *p, int open, int *first);
int ckpt_jp_key(ckpt_jp *p);

/* A string into p->str / p->len; a number (*integer: no fraction or
 * exponent, then *value is it); any value, skipped. */
int ckpt_jp_string(ckpt_jp *p);
int ckpt_jp_number(ckpt_jp *p, int *integer, int64_t *value);
int ckpt_jp_skip(ckpt_jp *p);

/* Nothing but white space left. */
int ckpt_jp_end(ckpt_jp *p);

/* ---- writing ---------------------------------------------------------------- */

/* Whether text (n bytes) is UTF-8 as JSON strings must be. */
int ckpt_json_utf8(const void *text, size_t n);

/* s (n bytes of UTF-8, NUL bytes allowed) as a JSON string, escaped as
 * jansson escapes (the same bytes as json_dumps), given to out piece by
 * piece; 0, or out's -1. */
int ckpt_json_quote(const char *s, size_t n, int (*out)(void *, const char *, size_t),
                    void *to);

#endif
