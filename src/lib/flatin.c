/* flatin.c - reading a flat vector: a raw stream, or a bundle whose
 * checksum a thread computes while the caller goes on. */
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

/* ---- reading ------------------------------------------------------------ */

#define MAX_MANIFEST (256u << 20)
#define PEEK 512
#define FEED (1u << 20)

struct ckpt_flat_in {
	char *name;
	int fd, own_fd;
	unsigned char peek[PEEK];
	size_t npeek, peek_used;
	uint64_t size;         /* known bytes of data, or UINT64_MAX */
	struct archive *a;     /* a bundle */
	ckpt_flat manifest;
	int is_bundle;
	unsigned char *feed;   /* the bundle reader's buffer */
	/* The checksum is computed by a thread, on a copy of what was read,
	 * while the caller goes on: the next read waits for it. */
	uint32_t crc;
	unsigned char *copy[2];
	size_t cap[2];
	int cur;
	struct crc_job {
		pthread_t thread;
		uint32_t *crc;
		const unsigned char *p;
		size_t n;
		int running;
	} job;
};

/* Read from the fd, the peeked bytes first; returns bytes, 0 at the end. */
static ssize_t raw_read(ckpt_flat_in *in, void *buf, size_t n)
{
	if (in->peek_used < in->npeek) {
		size_t k = in->npeek - in->peek_used;

		if (k > n)
			k = n;
		memcpy(buf, in->peek + in->peek_used, k);
		in->peek_used += k;
		return (ssize_t)k;
	}
	for (;;) {
		ssize_t r = read(in->fd, buf, n);

		if (r < 0 && errno == EINTR)
			continue;
		return r;
	}
}

static la_ssize_t feed(struct archive *a, void *user, const void **buf)
{
	ckpt_flat_in *in = user;
	ssize_t r = raw_read(in, in->feed, FEED);

	if (r < 0)
		archive_set_error(a, errno, "%s", strerror(errno));
	*buf = in->feed;
	return r;
}

static int looks_like_bundle(const unsigned char *p, size_t n)
{
	static const struct {
		size_t len;
		const char *magic;
	} magics[] = {
		{3, "\x1f\x8b\x08"},                 /* gzip */
		{4, "\x28\xb5\x2f\xfd"},             /* zstd */
		{6, "\xfd" "7zXZ\0"},                /* xz */
		{3, "BZh"},                          /* bzip2 */
		{4, "\x04\x22\x4d\x18"},             /* lz4 */
	};

	if (n >= 262 && memcmp(p + 257, "ustar", 5) == 0)
		return 1;
	for (size_t i = 0; i < sizeof magics / sizeof *magics; i++)
		if (n >= magics[i].len && memcmp(p, magics[i].magic, magics[i].len) == 0)
			return 1;
	return 0;
}

static int bundle_read_err(ckpt_flat_in *in, const char *what)
{
	const char *msg = archive_error_string(in->a);

	return ckpt_seterr("%s: %s%s%s", in->name, what, msg ? ": " : "", msg ? msg : "");
}

/* The next member, which must be called name. */
static int next_member(ckpt_flat_in *in, const char *name, uint64_t *size)
{
	struct archive_entry *e;
	int r = archive_read_next_header(in->a, &e);

	if (r == ARCHIVE_EOF)
		return ckpt_seterr("%s: bundle ends before its member '%s'", in->name, name);
	if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
		return bundle_read_err(in, "not a readable bundle");
	if (!archive_entry_pathname(e) || strcmp(archive_entry_pathname(e), name) != 0 ||
	    archive_entry_filetype(e) != AE_IFREG)
		return ckpt_seterr("%s: bundle member '%s' where '%s' was expected",
		                   in->name, archive_entry_pathname(e) ?
		                   archive_entry_pathname(e) : "", name);
	*size = archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
	return 0;
}

/* All of a small member. */
static char *read_member(ckpt_flat_in *in, uint64_t size)
{
	char *buf = malloc(size + 1);
	la_ssize_t r;

	if (!buf) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	r = size ? archive_read_data(in->a, buf, size) : 0;
	if (r != (la_ssize_t)size) {
		free(buf);
		bundle_read_err(in, "truncated bundle");
		return NULL;
	}
	buf[size] = 0;
	return buf;
}

static int open_bundle(ckpt_flat_in *in)
{
	uint64_t size;
	char *text, what[300];

	in->is_bundle = 1;
	in->crc = ckpt_crc32(0, NULL, 0);
	if (!(in->a = archive_read_new()) || !(in->feed = malloc(FEED)))
		return ckpt_seterr("out of memory");
	archive_read_support_filter_all(in->a);
	archive_read_support_format_tar(in->a);
	if (archive_read_open(in->a, in, NULL, feed, NULL) != ARCHIVE_OK)
		return bundle_read_err(in, "not a readable bundle");
	if (next_member(in, CKPT_BUNDLE_MANIFEST, &size) < 0)
		return -1;
	if (size > MAX_MANIFEST)
		return ckpt_seterr("%s: bundle's manifest is %" PRIu64 " bytes, more "
		                   "than it can be", in->name, size);
	if (!(text = read_member(in, size)))
		return -1;
	snprintf(what, sizeof what, "%s:" CKPT_BUNDLE_MANIFEST, in->name);
	if (ckpt_flat_parse(&in->manifest, text, size, what) < 0) {
		free(text);
		return -1;
	}
	free(text);
	if (next_member(in, CKPT_BUNDLE_DATA, &size) < 0)
		return -1;
	if (size != ckpt_flat_bytes(&in->manifest))
		return ckpt_seterr("%s: bundle's " CKPT_BUNDLE_DATA " has %" PRIu64 " bytes; "
		                   "its manifest's %" PRIu64 " %s values need %" PRIu64,
		                   in->name, size, in->manifest.count,
		                   ckpt_dtype_name(in->manifest.dtype),
		                   ckpt_flat_bytes(&in->manifest));
	in->size = size;
	return 0;
}

ckpt_flat_in *ckpt_flat_in_open(const char *path, int raw)
{
	ckpt_flat_in *in = calloc(1, sizeof *in);
	int from_stdin = strcmp(path, "-") == 0;
	struct stat st = {0};
	ssize_t r;

	if (!in || !(in->name = strdup(from_stdin ? "(stdin)" : path))) {
		free(in);
		ckpt_seterr("out of memory");
		return NULL;
	}
	ckpt_flat_init(&in->manifest);
	in->size = UINT64_MAX;
	in->fd = from_stdin ? 0 : open(path, O_RDONLY);
	in->own_fd = !from_stdin;
	if (in->fd < 0) {
		ckpt_seterr_errno(path);
		goto fail;
	}
	if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		ckpt_seterr("%s: is a directory", in->name);
		goto fail;
	}
	if (!raw) {
		while (in->npeek < PEEK &&
		       (r = read(in->fd, in->peek + in->npeek, PEEK - in->npeek)) != 0) {
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				ckpt_seterr_errno(in->name);
				goto fail;
			}
			in->npeek += (size_t)r;
		}
		if (looks_like_bundle(in->peek, in->npeek))
			return open_bundle(in) < 0 ? (ckpt_flat_in_close(in), NULL) : in;
	}
	if (S_ISREG(st.st_mode)) {
		off_t pos = lseek(in->fd, 0, SEEK_CUR);

		if (pos >= 0 && (uint64_t)st.st_size >= (uint64_t)pos)
			in->size = (uint64_t)st.st_size - (uint64_t)pos + in->npeek;
	}
	return in;
fail:
	ckpt_flat_in_close(in);
	return NULL;
}

const char *ckpt_flat_in_name(const ckpt_flat_in *in)
{
	return in->name;
}

const ckpt_flat *ckpt_flat_in_manifest(const ckpt_flat_in *in)
{
	return in->is_bundle ? &in->manifest : NULL;
}

uint64_t ckpt_flat_in_size(const ckpt_flat_in *in)
{
	return in->size;
}

static void *crc_work(void *arg)
{
	struct crc_job *j = arg;

	*j->crc = ckpt_crc32(*j->crc, j->p, j->n);
	return NULL;
}

static void crc_wait(ckpt_flat_in *in)
{
	if (in->job.running)
		pthread_join(in->job.thread, NULL);
	in->job.running = 0;
}

/* Checksum n bytes at p (which stay untouched until crc_wait()). */
static void crc_start(ckpt_flat_in *in, const unsigned char *p, size_t n)
{
	in->job = (struct crc_job){.crc = &in->crc, .p = p, .n = n};
	if (pthread_create(&in->job.thread, NULL, crc_work, &in->job) == 0)
		in->job.running = 1;
	else
		crc_work(&in->job);
}

static int64_t read_some(ckpt_flat_in *in, unsigned char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = in->is_bundle ? archive_read_data(in->a, buf + got, n - got)
		                          : raw_read(in, buf + got, n - got);

		if (r < 0)
			return in->is_bundle ? bundle_read_err(in, "bundle unreadable")
			                     : ckpt_seterr_errno(in->name);
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (int64_t)got;
}

int64_t ckpt_flat_in_read(ckpt_flat_in *in, void *buf, size_t n)
{
	unsigned char *b;
	int64_t got;

	if (!in->is_bundle)
		return read_some(in, buf, n);
	if (in->cap[in->cur] < n) {
		free(in->copy[in->cur]);
		if (!(in->copy[in->cur] = malloc(n)))
			return in->cap[in->cur] = 0, ckpt_seterr("out of memory");
		in->cap[in->cur] = n;
	}
	b = in->copy[in->cur];
	got = read_some(in, b, n);
	crc_wait(in); /* on the other copy: before the next checksum starts */
	if (got <= 0)
		return got;
	memcpy(buf, b, (size_t)got);
	crc_start(in, b, (size_t)got);
	in->cur ^= 1;
	return got;
}

int ckpt_flat_in_end(ckpt_flat_in *in, uint64_t *extra)
{
	char sink[1 << 16]; /* what follows the expected bytes: counted, dropped */
	uint64_t size;
	int64_t r;
	char *text;
	struct archive_entry *e;
	int rc;

	*extra = 0;
	while ((r = ckpt_flat_in_read(in, sink, sizeof sink)) > 0)
		*extra += (uint64_t)r;
	crc_wait(in);
	if (r < 0)
		return -1;
	if (!in->is_bundle)
		return 0;
	if (next_member(in, CKPT_BUNDLE_CRC, &size) < 0)
		return -1;
	if (size > 64 || !(text = read_member(in, size)))
		return size > 64 ? ckpt_seterr("%s: bundle's " CKPT_BUNDLE_CRC " is not a "
		                               "checksum", in->name) : -1;
	rc = strlen(text) == 9 && text[8] == '\n' && strspn(text, "0123456789abcdef") == 8 &&
	     strtoul(text, NULL, 16) == (unsigned long)in->crc;
	free(text);
	if (!rc)
		return ckpt_seterr("%s: bundle's data do not match its checksum "
		                   "(corrupted in transfer?)", in->name);
	rc = archive_read_next_header(in->a, &e);
	if (rc == ARCHIVE_OK || rc == ARCHIVE_WARN)
		return ckpt_seterr("%s: unexpected bundle member '%s' after the "
		                   "checksum", in->name, archive_entry_pathname(e) ?
		                   archive_entry_pathname(e) : "");
	if (rc != ARCHIVE_EOF)
		return bundle_read_err(in, "bundle unreadable after its checksum");
	return 0;
}

void ckpt_flat_in_close(ckpt_flat_in *in)
{
	if (!in)
		return;
	crc_wait(in);
	free(in->copy[0]);
	free(in->copy[1]);
	if (in->a)
		archive_read_free(in->a);
	if (in->own_fd && in->fd >= 0)
		close(in->fd);
	ckpt_flat_free(&in->manifest);
	free(in->feed);
	free(in->name);
	free(in);
}
