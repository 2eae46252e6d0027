/* libFuzzer: a PyTorch file (the input) opened from memory, as a zip or
 * the legacy format: its directory, its pickles (the restricted
 * unpickler), the walk that names the tensors.  Anything opens or fails
 * with one line; what opens lists tensors inside their storages, whose
 * slabs (strided ones gathered) read to the end.  Seeds: small files
 * torch.save wrote (tests/cli/torch/mktorch.py: dtypes, views, nested,
 * params; zip and legacy). */
#include <stdlib.h>
#include <string.h>

#include "lib/ckpt.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void read_all(const ckpt_file *f)
{
	for (size_t i = 0; i < f->nvars; i++) {
		const ckpt_var *v = &f->vars[i];
		ckpt_slab s;
		int rc;

		if (v->nbytes != v->nelems * v->elsize)
			abort();
		if (ckpt_slab_open(&s, f, v, 1 << 12) < 0) {
			if (strchr(ckpt_errmsg(), '\n'))
				abort();
			continue;
		}
		while ((rc = ckpt_slab_next(&s)) > 0)
			;
		if (rc < 0 && strchr(ckpt_errmsg(), '\n'))
			abort();
		ckpt_slab_close(&s);
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	unsigned char *image = malloc(size ? size : 1);
	ckpt_file *f;

	if (!image)
		return 0;
	memcpy(image, data, size);
	if (!(f = ckpt_open_image("fuzz.pt", image, size))) {
		if (strchr(ckpt_errmsg(), '\n'))
			abort();
		return 0;
	}
	read_all(f);
	ckpt_close(f);
	return 0;
}
