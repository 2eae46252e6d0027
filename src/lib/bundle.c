/* bundle.c - writing a bundle: a tar archive (compressed or not) of the
 * manifest, the flat vector and its CRC-32. */
#include "bundle.h"
#include "err.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

uint32_t ckpt_crc32(uint32_t crc, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	for (size_t off = 0; off < n; off += 1u << 30)
		crc = (uint32_t)crc32(crc, p + off,
		                      (uInt)(n - off < (1u << 30) ? n - off : 1u << 30));
	return crc;
}

/* ---- bundles: writing ----------------------------------------------------- */

static const struct {
	const char *suffix, *filter;
} suffixes[] = {
	{".tar.gz", "gzip"}, {".tgz", "gzip"}, {".tar.zst", "zstd"},
	{".tzst", "zstd"}, {".tar.xz", "xz"}, {".txz", "xz"},
	{".tar.bz2", "bzip2"}, {".tbz2", "bzip2"}, {".tar.lz4", "lz4"},
};

const char *ckpt_bundle_compression(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
		size_t k = strlen(suffixes[i].suffix);

		if (n > k && strcmp(name + n - k, suffixes[i].suffix) == 0)
			return suffixes[i].filter;
	}
	return "none";
}

struct ckpt_bundle {
	struct archive *a;
	ckpt_sink *out;
	uint32_t crc;
	uint64_t expected, written;
};

static int bundle_err(struct archive *a, const char *name)
{
	const char *msg = archive_error_string(a);

	return ckpt_seterr("%s: %s", name, msg ? msg : "cannot write the bundle");
}

static int add_member(ckpt_bundle *b, const char *name, uint64_t size)
{
	struct archive_entry *e = archive_entry_new();
	int rc;

	if (!e)
		return ckpt_seterr("out of memory");
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)size);
	archive_entry_set_mtime(e, 0, 0); /* the same input, the same bundle */
	rc = archive_write_header(b->a, e);
	archive_entry_free(e);
	return rc == ARCHIVE_OK ? 0 : bundle_err(b->a, ckpt_sink_name(b->out));
}

static int write_member_data(ckpt_bundle *b, const void *buf, size_t n)
{
	if (n && archive_write_data(b->a, buf, n) != (la_ssize_t)n)
		return bundle_err(b->a, ckpt_sink_name(b->out));
	return 0;
}

ckpt_bundle *ckpt_bundle_create(ckpt_sink *out, const char *compress,
                                const ckpt_flat *m)
{
	ckpt_bundle *b = calloc(1, sizeof *b);
	size_t mlen;
	char *text = NULL;

	if (!b || !(b->a = archive_write_new())) {
		free(b);
		ckpt_seterr("out of memory");
		return NULL;
	}
	b->out = out;
	b->crc = ckpt_crc32(0, NULL, 0);
	b->expected = ckpt_flat_bytes(m);
	archive_write_set_format_pax_restricted(b->a); /* ustar, pax past 8 GiB */
	if (strcmp(compress, "none") != 0 &&
	    archive_write_add_filter_by_name(b->a, compress) != ARCHIVE_OK) {
		ckpt_seterr("%s: cannot compress with '%s': %s", ckpt_sink_name(out),
		            compress, archive_error_string(b->a));
		goto fail;
	}
	/* no blocking: big writes go straight through */
	archive_write_set_bytes_per_block(b->a, strcmp(compress, "none") ? 10240 : 0);
	archive_write_set_bytes_in_last_block(b->a, 1);
	if (archive_write_open_fd(b->a, ckpt_sink_fd(out)) != ARCHIVE_OK) {
		bundle_err(b->a, ckpt_sink_name(out));
		goto fail;
	}
	if (!(text = ckpt_flat_format(m, &mlen)) ||
	    add_member(b, CKPT_BUNDLE_MANIFEST, mlen) < 0 ||
	    write_member_data(b, text, mlen) < 0 ||
	    add_member(b, CKPT_BUNDLE_DATA, b->expected) < 0)
		goto fail;
	free(text);
	return b;
fail:
	free(text);
	ckpt_bundle_abort(b);
	return NULL;
}

int ckpt_bundle_write(ckpt_bundle *b, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	if (n > b->expected - b->written)
		return ckpt_seterr("%s: more data than the manifest lists",
		                   ckpt_sink_name(b->out));
	b->written += n;
	b->crc = ckpt_crc32(b->crc, p, n);
	return write_member_data(b, buf, n);
}

int ckpt_bundle_finish(ckpt_bundle *b)
{
	char sum[16];
	int rc = -1;

	if (b->written != b->expected) {
		ckpt_seterr("%s: %" PRIu64 " bytes of data written, %" PRIu64
		            " expected", ckpt_sink_name(b->out), b->written, b->expected);
		goto out;
	}
	snprintf(sum, sizeof sum, "%08lx\n", (unsigned long)b->crc);
	if (add_member(b, CKPT_BUNDLE_CRC, 9) < 0 || write_member_data(b, sum, 9) < 0)
		goto out;
	if (archive_write_close(b->a) != ARCHIVE_OK) {
		bundle_err(b->a, ckpt_sink_name(b->out));
		goto out;
	}
	rc = 0;
out:
	archive_write_free(b->a);
	free(b);
	return rc;
}

void ckpt_bundle_abort(ckpt_bundle *b)
{
	if (!b)
		return;
	if (b->a)
		archive_write_free(b->a);
	free(b);
}

