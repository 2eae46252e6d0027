/* bundle.h - a flat vector with its manifest, as one file: a tar archive,
 * compressed or not, of manifest.tsv, flat.bin and flat.crc32 (the CRC-32
 * of flat.bin in hex), in that order; ckpt-flat(5).  Written with
 * ckpt_bundle_*, read (with raw streams) with ckpt_flat_in_*. */
#ifndef CKPT_BUNDLE_H
#define CKPT_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include "flat.h"
#include "sink.h"

#define CKPT_BUNDLE_MANIFEST "manifest.tsv"
#define CKPT_BUNDLE_DATA "flat.bin"
#define CKPT_BUNDLE_CRC "flat.crc32"

/* The CRC-32 (zlib's, as in gzip and zip) of n bytes, continuing crc
 * (0 to start). */
uint32_t ckpt_crc32(uint32_t crc, const void *buf, size_t n);

/* The compression a bundle's name asks for by its suffix (".tar.gz",
 * ".tgz", ".tar.zst", ".tar.xz", ".tar.bz2", ".tar.lz4"), or "none". */
const char *ckpt_bundle_compression(const char *name);

typedef struct ckpt_bundle ckpt_bundle;

/* Start a bundle on out: compress is "none", "gzip", "bzip2", "xz",
 * "zstd" or "lz4".  The manifest is written first; then data_bytes of flat
 * vector are expected through ckpt_bundle_write(). */
ckpt_bundle *ckpt_bundle_create(ckpt_sink *out, const char *compress,
                                const ckpt_flat *m);
int ckpt_bundle_write(ckpt_bundle *b, const void *buf, size_t n);
/* Write the checksum and close the archive (not out); frees b. */
int ckpt_bundle_finish(ckpt_bundle *b);
void ckpt_bundle_abort(ckpt_bundle *b);

/* ---- reading a flat vector -------------------------------------------- */

typedef struct ckpt_flat_in ckpt_flat_in;

/* Open path ("-": standard input).  Unless raw, a bundle (tar, compressed
 * or not) is recognised by its first bytes and its manifest read. */
ckpt_flat_in *ckpt_flat_in_open(const char *path, int raw);

/* The name used in messages. */
const char *ckpt_flat_in_name(const ckpt_flat_in *in);

/* A bundle's manifest, or NULL for a raw stream. */
const ckpt_flat *ckpt_flat_in_manifest(const ckpt_flat_in *in);

/* Bytes of flat vector when known beforehand (a regular file, a bundle's
 * flat.bin), or UINT64_MAX. */
uint64_t ckpt_flat_in_size(const ckpt_flat_in *in);

/* Read n bytes: returns how many were read, fewer than n only at the end
 * of the data; -1 on error. */
int64_t ckpt_flat_in_read(ckpt_flat_in *in, void *buf, size_t n);

/* After the expected bytes: how many more the data holds (read and
 * counted), and for a bundle whether its checksum matches all it held.
 * Returns -1 on a read error or a bad checksum. */
int ckpt_flat_in_end(ckpt_flat_in *in, uint64_t *extra);

void ckpt_flat_in_close(ckpt_flat_in *in);

#endif
