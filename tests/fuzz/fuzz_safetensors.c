/* libFuzzer: a safetensors file (header and data) opened from memory.
 * Anything opens or fails with one line; what opens lists tensors whose
 * bytes lie inside the data, one after another, and reads to the end. */
#include <stdlib.h>
#include <string.h>

#include "lib/ckpt.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void read_all(const ckpt_file *f)
{
	uint64_t total = 0;

	for (size_t i = 0; i < f->nvars; i++) {
		const ckpt_var *v = &f->vars[i];
		ckpt_slab s;
		uint64_t seen = 0;
		int rc;

		if (v->nbytes != v->nelems * v->elsize || v->nbytes > f->size)
			abort();
		total += v->nbytes;
		if (ckpt_slab_open(&s, f, v, 1 << 16) < 0)
			abort();
		while ((rc = ckpt_slab_next(&s)) > 0)
			seen += s.count;
		if (rc < 0 || seen != v->nelems)
			abort();
		ckpt_slab_close(&s);
	}
	if (total > f->size)
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	void *copy = malloc(size ? size : 1);
	ckpt_file *f;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if ((f = ckpt_open_image("fuzz.safetensors", copy, size))) {
		read_all(f);
		ckpt_close(f);
	} else if (strchr(ckpt_errmsg(), '\n')) {
		abort();
	}
	return 0;
}
