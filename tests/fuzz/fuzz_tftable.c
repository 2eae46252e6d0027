/* libFuzzer: TensorFlow's table (a bundle's .index) and the protocol
 * buffer fields of its values.  Anything walks or fails with one line;
 * every key and value handed out lies inside the input.  Seeds: the four
 * bundles of ../shared/testdata/real/tf (tensorflow/serving, Apache-2.0). */
#include <stdlib.h>
#include <string.h>

#include "lib/ckpt.h"
#include "lib/pb.h"
#include "lib/tftable.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int fields(const char *key, size_t klen, const unsigned char *val, size_t vlen,
                  void *user)
{
	const unsigned char *p = val;
	struct ckpt_pb_field f;

	(void)user;
	if (strlen(key) > klen)
		abort();
	while (ckpt_pb_next(&p, val + vlen, &f) > 0)
		if (f.wire == 2 && (f.bytes < val || f.bytes + f.len > val + vlen))
			abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* a copy of exactly size bytes: ASan sees a read past the end */
	unsigned char *copy = malloc(size ? size : 1);

	memcpy(copy, data, size);
	if (ckpt_tftable_each("fuzz", copy, size, fields, NULL) < 0 &&
	    strchr(ckpt_errmsg(), '\n'))
		abort();
	free(copy);
	return 0;
}
