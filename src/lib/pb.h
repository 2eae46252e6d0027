/* pb.h - (internal to libckpt) protocol buffers' wire format, as far as
 * the few messages ckpt reads and writes need it (TensorFlow's bundle
 * header and entries): a field at a time, bounds checked; written into a
 * growing buffer (bytes.h). */
#ifndef CKPT_PB_H
#define CKPT_PB_H

#include <stddef.h>
#include <stdint.h>

#include "bytes.h"

struct ckpt_pb_field {
	uint32_t number;
	int wire;                    /* 0 varint, 1 64-bit, 2 bytes, 5 32-bit */
	uint64_t value;              /* wires 0, 1, 5 */
	const unsigned char *bytes;  /* wire 2: len bytes */
	size_t len;
};

/* The n-byte little-endian number at p (n <= 8): fixed32 and fixed64
 * fields, and the fixed-width numbers of the formats around them. */
uint64_t ckpt_pb_le(const unsigned char *p, int n);

/* A varint from [*p, end), *p moved past it: 0, or -1 when it runs past
 * end or beyond 10 bytes. */
int ckpt_pb_varint(const unsigned char **p, const unsigned char *end, uint64_t *v);

/* The next field of [*p, end) into *f: 1, 0 at the end, -1 for malformed
 * bytes (a truncated field, wire types 3, 4, 6, 7, field number 0). */
int ckpt_pb_next(const unsigned char **p, const unsigned char *end, struct ckpt_pb_field *f);

/* ---- writing ---------------------------------------------------------------- */

void ckpt_pb_put_varint(struct ckpt_bytes *o, uint64_t v);
/* Fields, as a proto3 writer makes them (the caller leaves out zeros):
 * a varint, a fixed32, bytes (an embedded message). */
void ckpt_pb_put_uint(struct ckpt_bytes *o, uint32_t number, uint64_t v);
void ckpt_pb_put_fixed32(struct ckpt_bytes *o, uint32_t number, uint32_t v);
void ckpt_pb_put_bytes(struct ckpt_bytes *o, uint32_t number, const void *bytes, size_t n);

#endif
