/* libFuzzer: a TensorFlow bundle's .index (the input) beside a data shard
 * of 4 KiB, opened by its prefix.  Anything opens or fails with one line;
 * what opens lists tensors inside their shards, whose slabs read to the
 * end or fail (a CRC) with one line.  Seeds: the four bundles of
 * ../shared/testdata/real/tf (tensorflow/serving, Apache-2.0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/ckpt.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static char prefix[64];

static int write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	if (n && fwrite(p, 1, n, f) != n) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

static void read_all(const ckpt_file *f)
{
	for (size_t i = 0; i < f->nvars; i++) {
		const ckpt_var *v = &f->vars[i];
		ckpt_slab s;
		int rc;

		if (v->dtype != CKPT_OTHER && v->nbytes != v->nelems * v->elsize)
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
	static unsigned char shard[4096];
	char path[96];
	ckpt_file *f;

	if (!prefix[0]) {
		snprintf(prefix, sizeof prefix, "/tmp/fuzz-tf-%ld", (long)getpid());
		for (size_t i = 0; i < sizeof shard; i++)
			shard[i] = (unsigned char)(i * 7);
		snprintf(path, sizeof path, "%s.data-00000-of-00001", prefix);
		if (write_file(path, shard, sizeof shard) < 0)
			abort();
	}
	snprintf(path, sizeof path, "%s.index", prefix);
	if (write_file(path, data, size) < 0)
		abort();
	if ((f = ckpt_open(prefix))) {
		read_all(f);
		ckpt_close(f);
	} else if (strchr(ckpt_errmsg(), '\n')) {
		abort();
	}
	return 0;
}
