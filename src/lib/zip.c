/* zip.c - a zip's central directory and its members' data (zip.h). */
#include "zip.h"
#include "backend.h"
#include "err.h"
#include "pb.h"
#include "temp.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define EOCD_SIZE 22u
#define MAX_COMMENT 65535u
#define MAX_MEMBERS (1u << 24)

static int read_at(const struct ckpt_zip_src *z, void *buf, size_t n, uint64_t off)
{
	ptrdiff_t got;

	if (off > z->size || n > z->size - off)
		return ckpt_seterr("%s: the zip's directory points past its end (truncated?)",
		                   z->shown);
	if (z->image) {
		memcpy(buf, z->image + off, n);
		return 0;
	}
	if ((got = ckpt_pread_full(z->fd, buf, n, off)) < 0)
		return ckpt_seterr_errno(z->shown);
	if ((size_t)got < n)
		return ckpt_seterr("%s: the file shrank while being read", z->shown);
	return 0;
}

/* The end of central directory record: its offset, found from the end. */
static int find_eocd(const struct ckpt_zip_src *z, unsigned char *tail, size_t *len,
                     uint64_t *at)
{
	size_t n = z->size < EOCD_SIZE + MAX_COMMENT ? (size_t)z->size : EOCD_SIZE + MAX_COMMENT;

	if (n < EOCD_SIZE || read_at(z, tail, n, z->size - n) < 0)
		return ckpt_seterr("%s: no zip archive (no end of central directory)", z->shown);
	for (size_t i = n - EOCD_SIZE + 1; i-- > 0;)
		if (memcmp(tail + i, "PK\5\6", 4) == 0) {
			*at = z->size - n + i;
			*len = n;
			memmove(tail, tail + i, n - i);
			return 0;
		}
	return ckpt_seterr("%s: no zip archive (no end of central directory)", z->shown);
}

/* Where the central directory is and how many entries it has, from the
 * EOCD record at at, or the zip64 one its locator names. */
static int directory(const struct ckpt_zip_src *z, uint64_t *count, uint64_t *cd_off,
                     uint64_t *cd_size)
{
	unsigned char *tail = malloc(EOCD_SIZE + MAX_COMMENT), loc[20], e64[56];
	uint64_t at = 0;
	size_t len;

	if (!tail)
		return ckpt_seterr("%s: out of memory", z->shown);
	if (find_eocd(z, tail, &len, &at) < 0) {
		free(tail);
		return -1;
	}
	*count = ckpt_pb_le(tail + 10, 2), *cd_size = ckpt_pb_le(tail + 12, 4);
	*cd_off = ckpt_pb_le(tail + 16, 4);
	free(tail);
	if (*count != 0xffff && *cd_off != 0xffffffff && *cd_size != 0xffffffff)
		return 0;
	if (at < 20 || read_at(z, loc, 20, at - 20) < 0 || memcmp(loc, "PK\6\7", 4) != 0 ||
	    read_at(z, e64, 56, ckpt_pb_le(loc + 8, 8)) < 0 || memcmp(e64, "PK\6\6", 4) != 0)
		return ckpt_seterr("%s: a zip64 archive without its zip64 directory record",
		                   z->shown);
	*count = ckpt_pb_le(e64 + 32, 8), *cd_size = ckpt_pb_le(e64 + 40, 8);
	*cd_off = ckpt_pb_le(e64 + 48, 8);
	return 0;
}

/* The zip64 extra field's sizes and offset, for those the entry's fields
 * leave at 0xffffffff. */
static int zip64_extra(const unsigned char *x, size_t n, struct ckpt_zip_member *m,
                       uint64_t *local)
{
	while (n >= 4) {
		size_t id = (size_t)ckpt_pb_le(x, 2), len = (size_t)ckpt_pb_le(x + 2, 2), at = 4;

		if (len > n - 4)
			return -1;
		if (id == 1) {
			uint64_t *f[] = {&m->usize, &m->csize, local};

			for (int i = 0; i < 3; i++)
				if (*f[i] == 0xffffffff) {
					if (at + 8 > 4 + len)
						return -1;
					*f[i] = ckpt_pb_le(x + at, 8), at += 8;
				}
		}
		x += 4 + len, n -= 4 + len;
	}
	return 0;
}

/* One central directory entry at p (of n bytes left): its size, or -1. */
static ptrdiff_t entry(const unsigned char *p, size_t n, struct ckpt_zip_member *m,
                       uint64_t *local)
{
	size_t name, extra, comment;

	if (n < 46 || memcmp(p, "PK\1\2", 4) != 0)
		return -1;
	name = (size_t)ckpt_pb_le(p + 28, 2), extra = (size_t)ckpt_pb_le(p + 30, 2);
	comment = (size_t)ckpt_pb_le(p + 32, 2);
	if (46 + name + extra + comment > n || !(m->name = malloc(name + 1)))
		return -1;
	memcpy(m->name, p + 46, name);
	m->name[name] = '\0';
	m->method = (int)ckpt_pb_le(p + 10, 2);
	m->crc = (uint32_t)ckpt_pb_le(p + 16, 4);
	m->csize = ckpt_pb_le(p + 20, 4), m->usize = ckpt_pb_le(p + 24, 4), *local = ckpt_pb_le(p + 42, 4);
	if (zip64_extra(p + 46 + name, extra, m, local) < 0)
		return -1;
	return (ptrdiff_t)(46 + name + extra + comment);
}

/* Where m's data starts: past its local header at local. */
static int locate_data(const struct ckpt_zip_src *z, struct ckpt_zip_member *m, uint64_t local)
{
	unsigned char h[30];

	if (read_at(z, h, 30, local) < 0 || memcmp(h, "PK\3\4", 4) != 0)
		return ckpt_seterr("%s: member '%s' has no local header where the directory says "
		                   "(damaged zip)", z->shown, m->name);
	m->offset = local + 30 + ckpt_pb_le(h + 26, 2) + ckpt_pb_le(h + 28, 2);
	if (m->offset > z->size || m->csize > z->size - m->offset)
		return ckpt_seterr("%s: member '%s' runs past the end of the file (truncated?)",
		                   z->shown, m->name);
	return 0;
}

int ckpt_zip_list(const struct ckpt_zip_src *z, struct ckpt_zip_member **out, size_t *nout)
{
	uint64_t count = 0, cd_off = 0, cd_size = 0, local = 0;
	unsigned char *cd = NULL;
	struct ckpt_zip_member *m = NULL;
	size_t n = 0, at = 0;
	int rc = -1;

	if (directory(z, &count, &cd_off, &cd_size) < 0)
		return -1;
	if (count > MAX_MEMBERS || cd_size > z->size || count > cd_size / 46 + 1)
		return ckpt_seterr("%s: a zip directory of %llu entries in %llu bytes (damaged)",
		                   z->shown, (unsigned long long)count, (unsigned long long)cd_size);
	if (!(cd = malloc(cd_size ? (size_t)cd_size : 1)) ||
	    !(m = calloc(count ? (size_t)count : 1, sizeof *m))) {
		ckpt_seterr("%s: out of memory", z->shown);
		goto out;
	}
	if (read_at(z, cd, (size_t)cd_size, cd_off) < 0)
		goto out;
	for (; n < count; n++) {
		ptrdiff_t len = entry(cd + at, (size_t)cd_size - at, &m[n], &local);

		if (len < 0) {
			ckpt_seterr("%s: entry %zu of the zip's directory is damaged", z->shown, n);
			n++;
			goto out;
		}
		at += (size_t)len;
		if (locate_data(z, &m[n], local) < 0) {
			n++;
			goto out;
		}
	}
	rc = 0;
out:
	free(cd);
	if (rc < 0)
		ckpt_zip_free(m, n);
	else
		*out = m, *nout = n;
	return rc;
}

void ckpt_zip_free(struct ckpt_zip_member *m, size_t n)
{
	for (size_t i = 0; m && i < n; i++)
		free(m[i].name);
	free(m);
}

/* Inflate m's data, giving each piece to put. */
static int inflate_member(const struct ckpt_zip_src *z, const struct ckpt_zip_member *m,
                          int (*put)(void *user, const unsigned char *p, size_t n), void *user)
{
	unsigned char in[65536], out[65536];
	z_stream s;
	uint64_t at = 0;
	int zr = Z_OK, rc = 0;

	memset(&s, 0, sizeof s);
	if (inflateInit2(&s, -MAX_WBITS) != Z_OK)
		return ckpt_seterr("%s: out of memory", z->shown);
	while (rc == 0 && zr != Z_STREAM_END) {
		if (s.avail_in == 0) {
			size_t k = m->csize - at < sizeof in ? (size_t)(m->csize - at) : sizeof in;

			if (k == 0 || read_at(z, in, k, m->offset + at) < 0) {
				rc = k ? -1 : ckpt_seterr("%s: member '%s': its deflated data end early "
				                          "(damaged)", z->shown, m->name);
				break;
			}
			at += k;
			s.next_in = in, s.avail_in = (uInt)k;
		}
		s.next_out = out, s.avail_out = sizeof out;
		zr = inflate(&s, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END)
			rc = ckpt_seterr("%s: member '%s': its deflated data are damaged", z->shown,
			                 m->name);
		else
			rc = put(user, out, sizeof out - s.avail_out);
	}
	inflateEnd(&s);
	return rc;
}

struct into_buf {
	unsigned char *p;
	size_t n, cap;
	const struct ckpt_zip_src *z;
	const struct ckpt_zip_member *m;
};

static int to_buf(void *user, const unsigned char *p, size_t n)
{
	struct into_buf *b = user;

	if (n > b->cap - b->n)
		return ckpt_seterr("%s: member '%s' holds more than its size says (damaged zip)",
		                   b->z->shown, b->m->name);
	memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

static int unknown_method(const struct ckpt_zip_src *z, const struct ckpt_zip_member *m)
{
	return ckpt_seterr("%s: member '%s' is compressed with zip method %d; ckpt reads stored "
	                   "and deflated members (unzip and zip it again)", z->shown, m->name,
	                   m->method);
}

int ckpt_zip_read(const struct ckpt_zip_src *z, const struct ckpt_zip_member *m,
                  unsigned char **buf)
{
	struct into_buf b = {NULL, 0, (size_t)m->usize, z, m};
	int rc;

	*buf = NULL;
	if (m->method != 0 && m->method != 8)
		return unknown_method(z, m);
	/* (deflate packs at most 1032 bytes into one) */
	if (m->usize >= (1u << 31) || (m->method == 0 && m->csize != m->usize) ||
	    m->usize / 1032 > m->csize)
		return ckpt_seterr("%s: member '%s' of %llu bytes: too large for ckpt to read "
		                   "whole, or damaged", z->shown, m->name,
		                   (unsigned long long)m->usize);
	if (!(b.p = malloc(b.cap ? b.cap : 1)))
		return ckpt_seterr("%s: out of memory", z->shown);
	if (m->method == 0)
		rc = read_at(z, b.p, b.cap, m->offset), b.n = b.cap;
	else
		rc = inflate_member(z, m, to_buf, &b);
	if (rc == 0 && (b.n != m->usize || crc32(0, b.p, (uInt)b.n) != m->crc))
		rc = ckpt_seterr("%s: member '%s' fails its CRC (damaged zip)", z->shown, m->name);
	if (rc < 0)
		free(b.p);
	else
		*buf = b.p;
	return rc;
}

struct into_fd {
	int fd;
	const char *shown;
	uint64_t n;
	uLong crc;
};

static int to_fd(void *user, const unsigned char *p, size_t n)
{
	struct into_fd *t = user;

	if (ckpt_pwrite_all(t->fd, p, n, t->n, t->shown) < 0)
		return -1;
	t->n += n;
	t->crc = crc32(t->crc, p, (uInt)n);
	return 0;
}

int ckpt_zip_inflate_to(const struct ckpt_zip_src *z, const struct ckpt_zip_member *m, int fd)
{
	struct into_fd t = {fd, z->shown, 0, 0};

	if (m->method != 8)
		return unknown_method(z, m);
	if (inflate_member(z, m, to_fd, &t) < 0)
		return -1;
	if (t.n != m->usize || t.crc != m->crc)
		return ckpt_seterr("%s: member '%s' fails its CRC (damaged zip)", z->shown, m->name);
	return 0;
}
