/* libFuzzer: a Keras shard map (NAME.weights.json) beside two real shards.
 * Anything opens or fails with one line; what opens is the union of the
 * shards it names, each variable once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/ckpt.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static char dir[] = "/tmp/ckpt-fuzz-shardmap.XXXXXX";

/* m_00000.weights.h5 holds layers/d/vars/0, m_00001.weights.h5 the rest. */
static void make_shard(const char *name, const char *const *vars, size_t n)
{
	char path[128];
	uint64_t dims[1] = {3};
	ckpt_out *o;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(o = ckpt_out_open(path, 1, NULL)))
		abort();
	for (size_t i = 0; i < n; i++)
		if (ckpt_out_create_var(o, vars[i], CKPT_F32, 1, dims) < 0)
			abort();
	if (ckpt_out_commit(o) < 0)
		abort();
}

static void cleanup(void)
{
	static const char *const files[] = {"m_00000.weights.h5", "m_00001.weights.h5",
	                                    "m.weights.json"};
	char path[128];

	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void setup(void)
{
	static const char *const s0[] = {"layers/d/vars/0"};
	static const char *const s1[] = {"layers/d/vars/1", "optimizer/vars/0"};

	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
	make_shard("m_00000.weights.h5", s0, 1);
	make_shard("m_00001.weights.h5", s1, 2);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static int ready;
	char path[128];
	FILE *fp;
	ckpt_file **f = NULL;
	size_t n = 0;

	if (!ready++)
		setup();
	snprintf(path, sizeof path, "%s/m.weights.json", dir);
	if (!(fp = fopen(path, "wb")) || fwrite(data, 1, size, fp) != size || fclose(fp))
		abort();
	if (ckpt_open_inputs(path, &f, &n) == 0) {
		const ckpt_file *u = f[0];

		if (n != 1 || !u->container || u->container->kind != CKPT_KERAS_SHARDS ||
		    u->nvars > 3)
			abort();
		for (size_t i = 1; i < u->nvars; i++)
			if (strcmp(u->by_name[i - 1]->name, u->by_name[i]->name) == 0)
				abort();
		ckpt_close_inputs(f, n);
	} else if (strchr(ckpt_errmsg(), '\n')) {
		abort();
	}
	return 0;
}
