/* bytes.h - (internal to libckpt) bytes being written into memory, grown
 * as needed: a protobuf message, a pickle.  A failure to grow sticks
 * (failed) and is checked once at the end. */
#ifndef CKPT_BYTES_H
#define CKPT_BYTES_H

#include <stddef.h>
#include <stdint.h>

struct ckpt_bytes {
	unsigned char *p;
	size_t n, cap;
	int failed;
};

void ckpt_bytes_put(struct ckpt_bytes *o, const void *bytes, size_t n);
/* v in n little-endian bytes (n <= 8). */
void ckpt_bytes_put_le(struct ckpt_bytes *o, uint64_t v, int n);
void ckpt_bytes_free(struct ckpt_bytes *o);

#endif
