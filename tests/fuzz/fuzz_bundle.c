/* libFuzzer: reading a flat input, bundle or raw, as ckpt-unflatten does:
 * open (sniffing, the manifest), read the values, check the end.  Nothing
 * may crash or leak, whatever the bytes. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/ckpt.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static char path[64];

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static unsigned char buf[1 << 16];
	ckpt_flat_in *in;
	uint64_t extra;
	int fd;

	if (!*path) {
		snprintf(path, sizeof path, "/tmp/ckpt-fuzz-bundle.%d", (int)getpid());
		ckpt_init();
	}
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	close(fd);
	if ((in = ckpt_flat_in_open(path, 0))) {
		const ckpt_flat *m = ckpt_flat_in_manifest(in);
		uint64_t want = m ? ckpt_flat_bytes(m) : 1000, got = 0;
		int64_t r = 1;

		while (got < want && r > 0) {
			size_t n = want - got < sizeof buf ? (size_t)(want - got) : sizeof buf;

			if ((r = ckpt_flat_in_read(in, buf, n)) > 0)
				got += (uint64_t)r;
		}
		if (r >= 0)
			ckpt_flat_in_end(in, &extra);
		ckpt_flat_in_close(in);
	}
	if (strchr(ckpt_errmsg(), '\n'))
		abort();
	return 0;
}
