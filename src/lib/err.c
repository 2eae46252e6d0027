/* err.c - the one place libckpt keeps failure messages. */
#include "err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char errbuf[1024];

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

int ckpt_seterr_errno(const char *what)
{
	return ckpt_seterr("%s: %s", what, strerror(errno));
}
