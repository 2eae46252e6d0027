/* libFuzzer: manifests (ckpt-flat(5)).  Anything parses or fails with one
 * line; what parses formats back to text that parses to the same layout. */
#include <stdlib.h>
#include <string.h>

#include "lib/ckpt.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	ckpt_flat m, again;
	size_t len;
	char *text;

	if (ckpt_flat_parse(&m, (const char *)data, size, "fuzz") < 0) {
		if (strchr(ckpt_errmsg(), '\n'))
			abort();
		return 0;
	}
	text = ckpt_flat_format(&m, &len);
	if (!text || ckpt_flat_parse(&again, text, len, "again") < 0 ||
	    ckpt_flat_same_layout(&m, "a", &again, "b") < 0 || again.count != m.count ||
	    again.dtype != m.dtype || again.big_endian != m.big_endian)
		abort();
	for (size_t i = 0; i < m.n; i++)
		if (m.e[i].dtype != again.e[i].dtype || m.e[i].offset != again.e[i].offset)
			abort();
	free(text);
	ckpt_flat_free(&m);
	ckpt_flat_free(&again);
	return 0;
}
