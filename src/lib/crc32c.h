/* crc32c.h - (internal to libckpt) CRC-32C (Castagnoli), the checksum of
 * TensorFlow's tables and tensor bundles (and LevelDB's), with the SSE4.2
 * instruction where the CPU has it, a table otherwise: the same values. */
#ifndef CKPT_CRC32C_H
#define CKPT_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32C of the bytes that crc was the CRC of, followed by the n
 * bytes at buf (crc 0 for none). */
uint32_t ckpt_crc32c_extend(uint32_t crc, const void *buf, size_t n);

/* The same, by the table whatever the CPU (for the tests). */
uint32_t ckpt_crc32c_by_table(uint32_t crc, const void *buf, size_t n);

/* What TensorFlow stores: a CRC rotated and offset, so that the CRC of a
 * string holding CRCs is not degenerate. */
static inline uint32_t ckpt_crc32c_mask(uint32_t crc)
{
	return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

static inline uint32_t ckpt_crc32c_unmask(uint32_t masked)
{
	uint32_t rot = masked - 0xa282ead8u;

	return (rot >> 17) | (rot << 15);
}

#endif
