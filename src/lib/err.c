/* err.c - the one place libckpt keeps failure messages. */
#include "err.h"
#include "h5.h"

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

char *ckpt_escape_line(const char *s, char *buf, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p && n + 5 < size; p++) {
		if (*p >= 0x20 && *p != 0x7f) {
			buf[n++] = (char)*p;
			continue;
		}
		buf[n++] = '\\';
		if (*p == '\n' || *p == '\t') {
			buf[n++] = *p == '\n' ? 'n' : 't';
			continue;
		}
		buf[n++] = 'x';
		buf[n++] = hex[*p >> 4];
		buf[n++] = hex[*p & 15];
	}
	if (size)
		buf[n < size ? n : size - 1] = 0;
	return buf;
}

/* One line, always: HDF5's texts can hold newlines, names anything.  A
 * newline HDF5 ends its text with is dropped, any other control byte shown
 * escaped. */
static void one_line(void)
{
	char buf[sizeof errbuf];
	size_t len = strlen(errbuf);

	while (len && errbuf[len - 1] == '\n')
		errbuf[--len] = 0;
	ckpt_escape_line(errbuf, buf, sizeof buf);
	memcpy(errbuf, buf, sizeof buf);
}

static ckpt_warn_fn warn_fn;

void ckpt_set_warn(ckpt_warn_fn fn)
{
	warn_fn = fn;
}

void ckpt_warnf(const char *fmt, ...)
{
	char buf[1024], line[1024];
	va_list ap;

	if (!warn_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	warn_fn(ckpt_escape_line(buf, line, sizeof line));
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
	char h5msg[256] = "";
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vset(fmt, ap);
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
	one_line();
	return -1;
}

int ckpt_seterr_errno(const char *what)
{
	return ckpt_seterr("%s: %s", what, strerror(errno));
}
