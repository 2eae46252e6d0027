/* h5err.c - HDF5's own error reports: silenced (the toolkit says what
 * failed in one line), and their innermost words added to that line. */
#include "h5.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ckpt_h5_init(void)
{
	const char *dbg = getenv("CKPT_DEBUG");

	if (!(dbg && *dbg && strcmp(dbg, "0") != 0))
		H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* H5Ewalk callback: remember the description of the innermost entry, which
 * is the first one in H5E_WALK_UPWARD order. */
static herr_t innermost(unsigned n, const H5E_error2_t *e, void *data)
{
	char *out = data;

	const char *err = e->desc ? strstr(e->desc, "errno = ") : NULL;

	/* a system error: its own words, not the driver's report of it */
	if (n == 0 && err && atoi(err + 8) > 0)
		snprintf(out, 256, "%s", strerror(atoi(err + 8)));
	else if (n == 0 && e->desc && *e->desc)
		snprintf(out, 256, "%s", e->desc);
	return 0;
}

int ckpt_seterr_h5(const char *fmt, ...)
{
	char errbuf[1024], h5msg[256] = "";
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof errbuf, fmt, ap);
	va_end(ap);
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, h5msg);
	len = strlen(errbuf);
	if (strstr(h5msg, "bad version number") || strstr(h5msg, "version number not supported")) {
		/* a message or superblock of a format version this library
		 * predates: what the user needs is a newer HDF5 */
		unsigned maj = 0, min = 0, rel = 0;

		H5get_libversion(&maj, &min, &rel);
		snprintf(errbuf + len, sizeof errbuf - len, ": written by a newer HDF5 than "
		         "the %u.%u.%u this build uses (%s): write it with h5py's libver='v110', "
		         "or build ckpt with a newer HDF5", maj, min, rel, h5msg);
	} else if (*h5msg) {
		snprintf(errbuf + len, sizeof errbuf - len, " (%s)", h5msg);
	}
	return ckpt_seterr("%s", errbuf);
}

