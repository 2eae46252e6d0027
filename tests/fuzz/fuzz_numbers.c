/* libFuzzer: the option values every program parses (counts and reals).
 * Whatever scan_count() accepts is a whole number in range that prints
 * back the same; whatever scan_real() accepts is finite and reads back
 * exactly from its shortest form. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prog.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *s = malloc(size + 1), back[64];
	uint64_t v, lo = size ? data[0] : 0, hi = size > 1 ? (uint64_t)data[1] << 56 : 100;
	double d, again;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	if (scan_count(s, lo, hi, &v) == 0) {
		if (v < lo || v > hi)
			abort();
		snprintf(back, sizeof back, "%" PRIu64, v);
		if (strspn(s, "0") == 0 && strcmp(back, s) != 0)
			abort();
	}
	if (scan_real(s, &d) == 0) {
		if (!isfinite(d))
			abort();
		snprintf(back, sizeof back, "%.17g", d);
		if (scan_real(back, &again) != 0 || again != d)
			abort();
	}
	free(s);
	return 0;
}
