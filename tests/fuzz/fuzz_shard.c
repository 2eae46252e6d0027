/* libFuzzer: the ckpt_shard attribute.  Anything parses or fails with one
 * line; what parses is consistent. */
#include <stdlib.h>
#include <string.h>

#include "lib/ckpt.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size + 1);
	ckpt_shard_info info;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0; /* an HDF5 string attribute ends at its NUL */
	if (ckpt_shard_parse(text, &info, "fuzz") == 0) {
		if (info.count == 0 || info.index >= info.count)
			abort();
		for (size_t i = 0; i < info.nvars; i++)
			if (info.owner[i] >= info.count || !info.names[i])
				abort();
		ckpt_shard_free(&info);
	} else if (strchr(ckpt_errmsg(), '\n')) {
		abort();
	}
	free(text);
	return 0;
}
