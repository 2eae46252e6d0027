/* err.c - the one place libckpt keeps failure messages. */
#include "err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

static _Thread_local char errbuf[1024];

void ckpt_init(void)
{
	const char *dbg = getenv("CKPT_DEBUG");

	if (!(dbg && *dbg && strcmp(dbg, "0") != 0))
		H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

const char *ckpt_errmsg(void)
{
	return errbuf;
}

/* One line, always: HDF5's texts can hold newlines, names anything. */
static void one_line(void)
{
	for (char *p = errbuf; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = p[1] ? ' ' : '\0';
}

/* Format into errbuf; the arguments may be the previous message (adding
 * context to it), so not in place. */
static void vset(const char *fmt, va_list ap)
{
	char buf[sizeof errbuf];

	vsnprintf(buf, sizeof buf, fmt, ap);
	memcpy(errbuf, buf, sizeof buf);
}

int ckpt_seterr(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(fmt, ap);
	va_end(ap);
	one_line();
	return -1;
}

/* H5Ewalk callback: remember the description of the innermost entry, which
 * is the first one in H5E_WALK_UPWARD order. */
static herr_t innermost(unsigned n, const H5E_error2_t *e, void *data)
{
	char *out = data;

	if (n == 0 && e->desc && *e->desc)
		snprintf(out, 256, "%s", e->desc);
	return 0;
}

int ckpt_seterr_h5(const char *fmt, ...)
{
	char h5msg[256] = "";
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vset(fmt, ap);
	va_end(ap);
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, h5msg);
	len = strlen(errbuf);
	if (*h5msg)
		snprintf(errbuf + len, sizeof errbuf - len, " (%s)", h5msg);
	one_line();
	return -1;
}

int ckpt_seterr_errno(const char *what)
{
	return ckpt_seterr("%s: %s", what, strerror(errno));
}
