/* bytes.c - bytes written into a growing buffer. */
#include "bytes.h"

#include <stdlib.h>
#include <string.h>

void ckpt_bytes_put(struct ckpt_bytes *o, const void *bytes, size_t n)
{
	if (o->failed || n == 0)
		return;
	if (n > o->cap - o->n) {
		size_t cap = o->cap ? o->cap : 256;
		unsigned char *p;

		while (cap - o->n < n)
			cap *= 2;
		if (!(p = realloc(o->p, cap))) {
			o->failed = 1;
			return;
		}
		o->p = p, o->cap = cap;
	}
	memcpy(o->p + o->n, bytes, n);
	o->n += n;
}

void ckpt_bytes_put_le(struct ckpt_bytes *o, uint64_t v, int n)
{
	unsigned char b[8];

	for (int i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	ckpt_bytes_put(o, b, (size_t)n);
}

void ckpt_bytes_free(struct ckpt_bytes *o)
{
	free(o->p);
	*o = (struct ckpt_bytes){0};
}
