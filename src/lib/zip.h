/* zip.h - (internal to libckpt) a zip archive's members where they are:
 * the central directory (zip64 too) read, each member's data located, so
 * that a stored member is read in place at its offset (as torch.save's
 * 64-byte aligned storages are) and a deflated one through zlib. */
#ifndef CKPT_ZIP_H
#define CKPT_ZIP_H

#include <stddef.h>
#include <stdint.h>

struct ckpt_zip_member {
	char *name;
	uint64_t offset;    /* of its data in the archive */
	uint64_t csize;     /* bytes stored */
	uint64_t usize;     /* bytes it holds */
	uint32_t crc;
	int method;         /* 0 stored, 8 deflated, others not read */
};

/* Where a zip is: an open file or an image in memory (fd < 0). */
struct ckpt_zip_src {
	int fd;
	const unsigned char *image;
	uint64_t size;
	const char *shown;  /* for messages */
};

/* The members of the zip at src, in the central directory's order: 0, or
 * -1 with a message (no zip, damaged, a member's data beyond the end). */
int ckpt_zip_list(const struct ckpt_zip_src *src, struct ckpt_zip_member **m, size_t *n);

void ckpt_zip_free(struct ckpt_zip_member *m, size_t n);

/* Member m's bytes, all of them, into a malloc'd *buf (its CRC checked):
 * for small members.  0 or -1 with a message. */
int ckpt_zip_read(const struct ckpt_zip_src *src, const struct ckpt_zip_member *m,
                  unsigned char **buf);

/* A deflated member m inflated into the file fd (from its start): 0 or -1
 * with a message. */
int ckpt_zip_inflate_to(const struct ckpt_zip_src *src, const struct ckpt_zip_member *m,
                        int fd);

#endif
