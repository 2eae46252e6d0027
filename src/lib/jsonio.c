/* jsonio.c - JSON read piece by piece (jsonio.h). */
#include "jsonio.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* As deep as jansson goes. */
#define MAX_DEPTH 2048

void ckpt_jp_init(ckpt_jp *p, ptrdiff_t (*read)(void *, void *, size_t), void *from)
{
	memset(p, 0, offsetof(ckpt_jp, buf));
	p->read = read;
	p->from = from;
}

void ckpt_jp_free(ckpt_jp *p)
{
	free(p->str);
	p->str = NULL;
}

static int syntax(ckpt_jp *p, const char *fmt, ...)
{
	va_list ap;

	if (p->status != CKPT_JP_OK)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err, sizeof p->err, fmt, ap);
	va_end(ap);
	p->err_pos = p->pos + p->at;
	p->status = CKPT_JP_SYNTAX;
	return -1;
}

/* The next byte without taking it; -1 at the end or after an error. */
static int look(ckpt_jp *p)
{
	if (p->status != CKPT_JP_OK)
		return -1;
	if (p->at == p->n) {
		ptrdiff_t got = p->read(p->from, p->buf, sizeof p->buf);

		p->pos += p->n;
		p->at = p->n = 0;
		if (got < 0) {
			p->status = CKPT_JP_READ;
			return -1;
		}
		p->n = (size_t)got;
		if (got == 0)
			return -1;
	}
	return p->buf[p->at];
}

static int take(ckpt_jp *p)
{
	int c = look(p);

	if (c >= 0)
		p->at++;
	return c;
}

static int skip_space(ckpt_jp *p)
{
	int c;

	while ((c = look(p)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		p->at++;
	return c;
}

static int expect(ckpt_jp *p, int want, const char *what)
{
	if (skip_space(p) != want)
		return p->status == CKPT_JP_OK ? syntax(p, "'%c' expected%s", want, what) : -1;
	p->at++;
	return 0;
}

int ckpt_jp_peek(ckpt_jp *p)
{
	return skip_space(p);
}

/* ---- strings ---------------------------------------------------------------- */

static int put(ckpt_jp *p, const char *bytes, size_t n)
{
	if (p->cap - p->len < n + 1) {
		size_t cap = p->cap ? p->cap : 256;
		char *s;

		while (cap - p->len < n + 1)
			cap *= 2;
		if (!(s = realloc(p->str, cap))) {
			p->status = CKPT_JP_NOMEM;
			return -1;
		}
		p->str = s;
		p->cap = cap;
	}
	memcpy(p->str + p->len, bytes, n);
	p->len += n;
	p->str[p->len] = '\0';
	return 0;
}

static int hex4(ckpt_jp *p, unsigned *u)
{
	*u = 0;
	for (int i = 0; i < 4; i++) {
		int c = take(p), d = c >= '0' && c <= '9' ? c - '0'
		                   : c >= 'a' && c <= 'f' ? c - 'a' + 10
		                   : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return syntax(p, "invalid escape");
		*u = *u << 4 | (unsigned)d;
	}
	return 0;
}

static int put_utf8(ckpt_jp *p, unsigned u)
{
	char b[4];
	size_t n;

	if (u < 0x80)
		b[0] = (char)u, n = 1;
	else if (u < 0x800)
		b[0] = (char)(0xC0 | u >> 6), b[1] = (char)(0x80 | (u & 0x3F)), n = 2;
	else if (u < 0x10000)
		b[0] = (char)(0xE0 | u >> 12), b[1] = (char)(0x80 | (u >> 6 & 0x3F)),
		b[2] = (char)(0x80 | (u & 0x3F)), n = 3;
	else
		b[0] = (char)(0xF0 | u >> 18), b[1] = (char)(0x80 | (u >> 12 & 0x3F)),
		b[2] = (char)(0x80 | (u >> 6 & 0x3F)), b[3] = (char)(0x80 | (u & 0x3F)), n = 4;
	return put(p, b, n);
}

/* \uXXXX, with a second one when the first is a high surrogate. */
static int unicode_escape(ckpt_jp *p)
{
	unsigned u, lo;

	if (hex4(p, &u) < 0)
		return -1;
	if (u >= 0xDC00 && u <= 0xDFFF)
		return syntax(p, "invalid Unicode '\\u%04X'", u);
	if (u >= 0xD800 && u <= 0xDBFF) {
		if (take(p) != '\\' || take(p) != 'u' || hex4(p, &lo) < 0 || lo < 0xDC00 ||
		    lo > 0xDFFF)
			return syntax(p, "invalid Unicode '\\u%04X'", u);
		u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
	}
	return put_utf8(p, u);
}

static int escape(ckpt_jp *p)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	int c = take(p);
	const char *at = c > 0 ? strchr(from, c) : NULL;

	if (c == 'u')
		return unicode_escape(p);
	if (!at)
		return syntax(p, "invalid escape");
	return put(p, &to[at - from], 1);
}

/* How many bytes follow lead byte c in UTF-8 (0: c cannot lead), and the
 * range of the first of them: shortest forms only, no surrogates. */
static int utf8_lead(int c, int *lo, int *hi)
{
	*lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
	*hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
	return c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2
	       : c >= 0xF0 && c <= 0xF4 ? 3 : 0;
}

/* One UTF-8 sequence whose first byte c was taken. */
static int utf8_rest(ckpt_jp *p, int c)
{
	int lo, hi, n = utf8_lead(c, &lo, &hi);
	char b[4] = {(char)c};

	if (n == 0)
		return syntax(p, "unable to decode byte 0x%x", c);
	for (int i = 1; i <= n; i++, lo = 0x80, hi = 0xBF) {
		int d = take(p);

		if (d < lo || d > hi)
			return syntax(p, "unable to decode byte 0x%x", c);
		b[i] = (char)d;
	}
	return put(p, b, (size_t)n + 1);
}

/* Plain bytes up to the next quote, backslash, control or non-ASCII byte
 * go in at once: the common case costs a scan. */
static int plain_run(ckpt_jp *p)
{
	size_t i = p->at;

	while (i < p->n && p->buf[i] >= 0x20 && p->buf[i] < 0x80 && p->buf[i] != '"' &&
	       p->buf[i] != '\\')
		i++;
	if (i > p->at && put(p, (const char *)p->buf + p->at, i - p->at) < 0)
		return -1;
	p->at = i;
	return 0;
}

int ckpt_jp_string(ckpt_jp *p)
{
	int c;

	if (expect(p, '"', "") < 0)
		return -1;
	p->len = 0;
	if (put(p, "", 0) < 0)
		return -1;
	for (;;) {
		if (plain_run(p) < 0 || (c = take(p)) < 0)
			return p->status == CKPT_JP_OK ? syntax(p, "premature end of input") : -1;
		if (c == '"')
			return 0;
		if (c < 0x20)
			return syntax(p, "control character 0x%x", c);
		if ((c == '\\' ? escape(p) : c >= 0x80 ? utf8_rest(p, c) : put(p, &(char){(char)c}, 1)) < 0)
			return -1;
	}
}

int ckpt_jp_key(ckpt_jp *p)
{
	if (skip_space(p) != '"')
		return p->status == CKPT_JP_OK ? syntax(p, "string or '}' expected") : -1;
	return ckpt_jp_string(p) < 0 ? -1 : expect(p, ':', " after an object key");
}

/* ---- numbers and literals ------------------------------------------------------ */

/* One or more digits into *v; *big set when they do not fit. */
static int digits(ckpt_jp *p, int *big, uint64_t *v)
{
	int c, n = 0;

	while ((c = look(p)) >= '0' && c <= '9') {
		p->at++;
		n++;
		if (*v > (UINT64_MAX - 9) / 10)
			*big = 1;
		else
			*v = *v * 10 + (uint64_t)(c - '0');
	}
	return n ? 0 : syntax(p, "invalid number");
}

int ckpt_jp_number(ckpt_jp *p, int *integer, int64_t *value)
{
	int neg = skip_space(p) == '-', c, big = 0;
	uint64_t v = 0, ignored = 0;

	*integer = 1;
	*value = 0;
	if (neg)
		p->at++;
	if (look(p) == '0') {
		p->at++;
		if ((c = look(p)) >= '0' && c <= '9')
			return syntax(p, "invalid number");
	} else if (digits(p, &big, &v) < 0)
		return -1;
	if (look(p) == '.') {
		p->at++;
		*integer = 0;
		if (digits(p, &big, &ignored) < 0)
			return -1;
	}
	if ((c = look(p)) == 'e' || c == 'E') {
		p->at++;
		*integer = 0;
		if ((c = look(p)) == '+' || c == '-')
			p->at++;
		if (digits(p, &big, &ignored) < 0)
			return -1;
	}
	if (*integer && (big || v > (uint64_t)INT64_MAX + neg))
		return syntax(p, neg ? "too big negative integer" : "too big integer");
	if (*integer)
		*value = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

static int literal(ckpt_jp *p, const char *word)
{
	for (const char *w = word; *w; w++)
		if (take(p) != *w)
			return syntax(p, "invalid token");
	return 0;
}

/* ---- structure --------------------------------------------------------------- */

int ckpt_jp_next(ckpt_jp *p, int open, int *first)
{
	int close = open == '{' ? '}' : ']', c;

	if (*first) {
		if (expect(p, open, "") < 0)
			return -1;
		if (++p->depth > MAX_DEPTH)
			return syntax(p, "maximum parsing depth reached");
		if (skip_space(p) == close) {
			p->at++, p->depth--, *first = 0;
			return 0;
		}
		*first = 0;
		return p->status == CKPT_JP_OK ? 1 : -1;
	}
	if ((c = skip_space(p)) == close) {
		p->at++, p->depth--;
		return 0;
	}
	if (c != ',')
		return p->status == CKPT_JP_OK ?
		       syntax(p, "'%c' or ',' expected", close) : -1;
	p->at++;
	return 1;
}

int ckpt_jp_skip(ckpt_jp *p)
{
	int c = skip_space(p), first = 1, more, integer;
	int64_t v;

	switch (c) {
	case '{':
	case '[':
		while ((more = ckpt_jp_next(p, c, &first)) > 0)
			if ((c == '{' && ckpt_jp_key(p) < 0) || ckpt_jp_skip(p) < 0)
				return -1;
		return more;
	case '"':
		return ckpt_jp_string(p);
	case 't':
		return literal(p, "true");
	case 'f':
		return literal(p, "false");
	case 'n':
		return literal(p, "null");
	case -1:
		return p->status == CKPT_JP_OK ? syntax(p, "premature end of input") : -1;
	default:
		if (c == '-' || (c >= '0' && c <= '9'))
			return ckpt_jp_number(p, &integer, &v);
		return syntax(p, "invalid token");
	}
}

int ckpt_jp_end(ckpt_jp *p)
{
	if (skip_space(p) >= 0)
		return syntax(p, "end of file expected");
	return p->status == CKPT_JP_OK ? 0 : -1;
}

/* ---- writing ------------------------------------------------------------------ */

int ckpt_json_utf8(const void *text, size_t n)
{
	const unsigned char *s = text;

	for (size_t i = 0; i < n;) {
		int lo, hi, k;

		if (s[i++] < 0x80)
			continue;
		if ((k = utf8_lead(s[i - 1], &lo, &hi)) == 0 || (size_t)k > n - i)
			return 0;
		for (; k > 0; k--, i++, lo = 0x80, hi = 0xBF)
			if (s[i] < lo || s[i] > hi)
				return 0;
	}
	return 1;
}

int ckpt_json_quote(const char *s, size_t n, int (*out)(void *, const char *, size_t),
                    void *to)
{
	static const char letter[] = "btn\0fr"; /* \b (8) to \r (13) */
	size_t run = 0;

	if (out(to, "\"", 1) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[8];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		if (i > run && out(to, s + run, i - run) < 0)
			return -1;
		run = i + 1;
		if (c == '"' || c == '\\')
			snprintf(esc, sizeof esc, "\\%c", c);
		else if (c >= 8 && c <= 13 && letter[c - 8])
			snprintf(esc, sizeof esc, "\\%c", letter[c - 8]);
		else
			snprintf(esc, sizeof esc, "\\u%04X", c);
		if (out(to, esc, strlen(esc)) < 0)
			return -1;
	}
	if (n > run && out(to, s + run, n - run) < 0)
		return -1;
	return out(to, "\"", 1);
}
