/* fmt.c - round-trip number formatting. */
#include "fmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether x and y are the same value once stored as t. */
static int same_in(ckpt_dtype t, double x, double y)
{
	switch (t) {
	case CKPT_F16: return ckpt_double_to_f16(x) == ckpt_double_to_f16(y);
	case CKPT_BF16: return ckpt_double_to_bf16(x) == ckpt_double_to_bf16(y);
	case CKPT_F32: return (float)x == (float)y;
	case CKPT_F8E4M3: return ckpt_double_to_e4m3(x) == ckpt_double_to_e4m3(y);
	case CKPT_F8E5M2: return ckpt_double_to_e5m2(x) == ckpt_double_to_e5m2(y);
	default: return x == y;
	}
}

char *ckpt_fmt_double(double v, ckpt_dtype t, char *out)
{
	if (isnan(v))
		return strcpy(out, "nan");
	if (isinf(v))
		return strcpy(out, v > 0 ? "inf" : "-inf");
	int p;

	for (p = 1; p <= 17; p++) {
		snprintf(out, CKPT_FMT_MAX, "%.*g", p, v);
		if (same_in(t, strtod(out, NULL), v))
			break;
	}
	if (p > 17)
		p = 17;
	/* %g turns 10 into "1e+01"; as Python's repr does, write numbers below
	 * 1e16 positionally, with the same significant digits.  (log10(0) is
	 * -inf, which no int holds: zero never gets here.) */
	if (strchr(out, 'e') && fabs(v) >= 1) {
		int exp10 = (int)floor(log10(fabs(v)));

		if (exp10 < 16)
			snprintf(out, CKPT_FMT_MAX, "%.*g", exp10 + 1 > p ? exp10 + 1 : p, v);
	}
	return out;
}

char *ckpt_fmt_elem(ckpt_dtype t, const void *buf, size_t i, char *out)
{
	double d;

	switch (t) {
	case CKPT_BOOL:
		return strcpy(out, ((const signed char *)buf)[i] ? "true" : "false");
	case CKPT_I8: snprintf(out, CKPT_FMT_MAX, "%d", ((const int8_t *)buf)[i]); break;
	case CKPT_I16: snprintf(out, CKPT_FMT_MAX, "%d", ((const int16_t *)buf)[i]); break;
	case CKPT_I32: snprintf(out, CKPT_FMT_MAX, "%" PRId32, ((const int32_t *)buf)[i]); break;
	case CKPT_I64: snprintf(out, CKPT_FMT_MAX, "%" PRId64, ((const int64_t *)buf)[i]); break;
	case CKPT_U8: snprintf(out, CKPT_FMT_MAX, "%u", ((const uint8_t *)buf)[i]); break;
	case CKPT_U16: snprintf(out, CKPT_FMT_MAX, "%u", ((const uint16_t *)buf)[i]); break;
	case CKPT_U32: snprintf(out, CKPT_FMT_MAX, "%" PRIu32, ((const uint32_t *)buf)[i]); break;
	case CKPT_U64: snprintf(out, CKPT_FMT_MAX, "%" PRIu64, ((const uint64_t *)buf)[i]); break;
	case CKPT_F16: case CKPT_BF16: case CKPT_F32: case CKPT_F64:
	case CKPT_F8E4M3: case CKPT_F8E5M2:
		ckpt_to_double(t, (const char *)buf + i * ckpt_dtype_size(t), &d, 1);
		return ckpt_fmt_double(d, t, out);
	default: return strcpy(out, "?");
	}
	return out;
}

int ckpt_scan_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	int over = 0;

	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (d > 9)
			return -1;
		over |= v > (UINT64_MAX - d) / 10;
		v = v * 10 + d;
	}
	if (over)
		return -2;
	*out = v;
	return 0;
}
