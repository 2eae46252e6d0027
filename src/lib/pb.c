/* pb.c - reading and writing protocol buffers' wire format. */
#include "pb.h"

#include <string.h>

int ckpt_pb_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 70; shift += 7) {
		unsigned char b;

		if (*p >= end)
			return -1;
		b = *(*p)++;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

uint64_t ckpt_pb_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int ckpt_pb_next(const unsigned char **p, const unsigned char *end, struct ckpt_pb_field *f)
{
	uint64_t tag, len;

	if (*p >= end)
		return 0;
	if (ckpt_pb_varint(p, end, &tag) < 0 || tag >> 3 == 0 || tag >> 3 > UINT32_MAX)
		return -1;
	memset(f, 0, sizeof *f);
	f->number = (uint32_t)(tag >> 3);
	f->wire = (int)(tag & 7);
	switch (f->wire) {
	case 0:
		return ckpt_pb_varint(p, end, &f->value) < 0 ? -1 : 1;
	case 1:
	case 5: {
		int n = f->wire == 1 ? 8 : 4;

		if (end - *p < n)
			return -1;
		f->value = ckpt_pb_le(*p, n);
		*p += n;
		return 1;
	}
	case 2:
		if (ckpt_pb_varint(p, end, &len) < 0 || len > (uint64_t)(end - *p))
			return -1;
		f->bytes = *p;
		f->len = (size_t)len;
		*p += len;
		return 1;
	default:
		return -1;
	}
}

/* ---- writing ---------------------------------------------------------------- */

void ckpt_pb_put_varint(struct ckpt_bytes *o, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		b[n++] = (unsigned char)(v | 0x80);
	b[n++] = (unsigned char)v;
	ckpt_bytes_put(o, b, n);
}

void ckpt_pb_put_uint(struct ckpt_bytes *o, uint32_t number, uint64_t v)
{
	ckpt_pb_put_varint(o, (uint64_t)number << 3);
	ckpt_pb_put_varint(o, v);
}

void ckpt_pb_put_fixed32(struct ckpt_bytes *o, uint32_t number, uint32_t v)
{
	ckpt_pb_put_varint(o, (uint64_t)number << 3 | 5);
	ckpt_bytes_put_le(o, v, 4);
}

void ckpt_pb_put_bytes(struct ckpt_bytes *o, uint32_t number, const void *bytes, size_t n)
{
	ckpt_pb_put_varint(o, (uint64_t)number << 3 | 2);
	ckpt_pb_put_varint(o, n);
	ckpt_bytes_put(o, bytes, n);
}
