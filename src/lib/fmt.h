/* fmt.h - numbers as text that reads back to the same stored value: the
 * shortest decimal that round-trips through the element type (so a float32
 * prints as 0.1, not 0.100000001), "nan", "inf", "-inf". */
#ifndef CKPT_FMT_H
#define CKPT_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

#define CKPT_FMT_MAX 32

/* Element i of a slab buf holding values of type t, in memory layout. */
char *ckpt_fmt_elem(ckpt_dtype t, const void *buf, size_t i, char *out);

/* A double, shortest text that round-trips through type t (a float type,
 * or CKPT_F64 for statistics). */
char *ckpt_fmt_double(double v, ckpt_dtype t, char *out);

/* The other way, the one whole-number parser of the toolkit (option values
 * too): len bytes at s, all decimal digits (no sign, no spaces), as a
 * number; 0, -2 when the digits exceed UINT64_MAX, -1 for anything else. */
int ckpt_scan_u64(const char *s, size_t len, uint64_t *out);

#endif
