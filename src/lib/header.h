/* header.h - (internal to libckpt) the first line of ckpt's own text
 * formats, the manifest (ckpt-flat(5)) and the shard attribute:
 *
 *   #ckpt-KIND<TAB>VERSION<TAB>key=value<TAB>key=value...
 *
 * Fields that are not key=value, and keys a reader does not know, are
 * skipped: later versions may add some. */
#ifndef CKPT_HEADER_H
#define CKPT_HEADER_H

#include <stddef.h>
#include <stdint.h>

#define CKPT_HEADER_MAX_FIELDS 16

typedef struct ckpt_header {
	uint64_t version;
	size_t nfields;
	struct {
		const char *key, *val;  /* into the line, not terminated */
		size_t klen, vlen;
	} field[CKPT_HEADER_MAX_FIELDS];
} ckpt_header;

enum { CKPT_HEADER_OK, CKPT_HEADER_OTHER, CKPT_HEADER_BAD_VERSION };

/* Parse len bytes at line as the header of format kind ("flat", "shard"):
 * CKPT_HEADER_OK; CKPT_HEADER_OTHER when it does not start with
 * "#ckpt-KIND<TAB>"; CKPT_HEADER_BAD_VERSION when VERSION is not a whole
 * number.  The first CKPT_HEADER_MAX_FIELDS key=value fields are kept. */
int ckpt_header_parse(const char *line, size_t len, const char *kind, ckpt_header *h);

/* The value of key (its length in *vlen; the last, if it is there twice),
 * or NULL. */
const char *ckpt_header_get(const ckpt_header *h, const char *key, size_t *vlen);

#endif
