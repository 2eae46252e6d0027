/* flat.c - flat vectors: the layout of a checkpoint's numeric variables,
 * and the manifest text that describes it. */
#include "flat.h"
#include "err.h"
#include "fmt.h"
#include "header.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- layout --------------------------------------------------------------- */

void ckpt_flat_init(ckpt_flat *m)
{
	memset(m, 0, sizeof *m);
	m->dtype = CKPT_OTHER;
}

void ckpt_flat_free(ckpt_flat *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->e[i].name);
	free(m->e);
	ckpt_flat_init(m);
}

/* Append an entry at the end of the vector; name is taken over. */
static int add_entry(ckpt_flat *m, char *name, ckpt_dtype t, int rank,
                     const uint64_t *dims, uint64_t count)
{
	ckpt_flat_entry *e;

	if (count > UINT64_MAX / 8 - m->count) {
		ckpt_seterr("variable '%s': the flat vector would exceed 2^61 values", name);
		free(name);
		return -1;
	}
	if (!(e = realloc(m->e, (m->n + 1) * sizeof *e))) {
		free(name);
		return ckpt_seterr("out of memory");
	}
	m->e = e;
	e += m->n++;
	memset(e, 0, sizeof *e);
	e->name = name;
	e->dtype = t;
	e->rank = rank;
	for (int i = 0; i < rank; i++)
		e->dims[i] = dims[i];
	e->offset = m->count;
	e->count = count;
	m->count += count;
	return 0;
}

static int name_ok(const char *name);

int ckpt_flat_of_file(ckpt_flat *m, const ckpt_file *f, const ckpt_select *sel)
{
	char **names = ckpt_select_names(sel, f, 1);
	int rc = 0;

	ckpt_flat_init(m);
	if (!names)
		return -1;
	for (size_t i = 0; i < f->nvars && rc == 0; i++) {
		const ckpt_var *v = &f->vars[i];
		char *name = names[i];

		if (!name)
			continue;
		names[i] = NULL; /* the entry's from here on (add_entry frees it on failure) */
		if (!name_ok(name)) { /* a manifest could not name it */
			rc = ckpt_seterr("%s: variable '%s' would be called '%s', which is "
			                 "not a variable name (empty, absolute, or with '.' or "
			                 "'..' parts): check --strip-prefix and --add-prefix",
			                 f->name, v->name, name);
			free(name);
		} else if ((rc = add_entry(m, name, v->dtype, v->rank, v->dims, v->nelems)) == 0) {
			m->e[m->n - 1].var = v;
			m->dtype = m->n == 1 || m->dtype == v->dtype ? v->dtype : CKPT_OTHER;
		}
	}
	ckpt_select_names_free(names, f->nvars);
	if (rc < 0)
		ckpt_flat_free(m);
	return rc;
}

uint64_t ckpt_flat_bytes(const ckpt_flat *m)
{
	return m->count * ckpt_dtype_size(m->dtype);
}

static void shape_of(const ckpt_flat_entry *e, char *buf, size_t size)
{
	ckpt_var v = {.rank = e->rank, .dims = e->dims};

	ckpt_shape_str(&v, buf, size);
}

int ckpt_flat_same_layout(const ckpt_flat *a, const char *an, const ckpt_flat *b,
                          const char *bn)
{
	char sa[256], sb[256];
	size_t i;

	for (i = 0; i < a->n && i < b->n; i++) {
		const ckpt_flat_entry *x = &a->e[i], *y = &b->e[i];

		if (strcmp(x->name, y->name) != 0)
			return ckpt_seterr("%s lists variable '%s' where %s has '%s' "
			                   "(variable %zu)", bn, y->name, an, x->name, i + 1);
		shape_of(x, sa, sizeof sa);
		shape_of(y, sb, sizeof sb);
		if (strcmp(sa, sb) != 0)
			return ckpt_seterr("%s: variable '%s' has shape %s, %s has %s", bn,
			                   y->name, sb, an, sa);
	}
	if (i < a->n)
		return ckpt_seterr("%s lacks variable '%s' that %s has", bn, a->e[i].name, an);
	if (i < b->n)
		return ckpt_seterr("%s has variable '%s' that %s lacks", bn, b->e[i].name, an);
	return 0;
}

/* ---- manifest text ------------------------------------------------------ */

int ckpt_flat_plain(const char *name)
{
	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		if (*s == '\\' || *s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

char *ckpt_flat_escape(const char *name)
{
	char *out = malloc(4 * strlen(name) + 1), *p = out;

	if (!out)
		return NULL;
	for (const unsigned char *s = (const unsigned char *)name; *s; s++) {
		switch (*s) {
		case '\\': *p++ = '\\'; *p++ = '\\'; break;
		case '\t': *p++ = '\\'; *p++ = 't'; break;
		case '\n': *p++ = '\\'; *p++ = 'n'; break;
		case '\r': *p++ = '\\'; *p++ = 'r'; break;
		default:
			if (*s < 0x20 || *s == 0x7f)
				p += sprintf(p, "\\x%02x", *s);
			else
				*p++ = (char)*s;
		}
	}
	*p = 0;
	return out;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *ckpt_flat_unescape(const char *s, size_t len)
{
	char *out = malloc(len + 1), *p = out;

	if (!out) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	for (size_t i = 0; i < len; i++) {
		int hi, lo;

		if (s[i] != '\\') {
			*p++ = s[i];
			continue;
		}
		if (++i == len)
			goto bad;
		switch (s[i]) {
		case '\\': *p++ = '\\'; break;
		case 't': *p++ = '\t'; break;
		case 'n': *p++ = '\n'; break;
		case 'r': *p++ = '\r'; break;
		case 'x':
			if (i + 2 >= len)
				goto bad;
			if ((hi = hexval(s[i + 1])) < 0 || (lo = hexval(s[i + 2])) < 0 ||
			    (hi | lo) == 0)
				goto bad;
			*p++ = (char)(hi << 4 | lo);
			i += 2;
			break;
		default: goto bad;
		}
	}
	*p = 0;
	return out;
bad:
	free(out);
	ckpt_seterr("bad escape sequence in name '%.*s'", (int)(len > 200 ? 200 : len), s);
	return NULL;
}

char *ckpt_flat_format(const ckpt_flat *m, size_t *len)
{
	size_t cap = 256, used = 0;
	char *buf = malloc(cap), shape[CKPT_MAX_RANK * 21 + 8];

	if (!buf)
		goto oom;
	used = (size_t)snprintf(buf, cap, "#ckpt-flat\t%d\tdtype=%s\tbyteorder=%s\t"
	                        "count=%" PRIu64 "\n", CKPT_FLAT_VERSION,
	                        ckpt_dtype_name(m->dtype),
	                        m->big_endian ? "big" : "little", m->count);
	for (size_t i = 0; i < m->n; i++) {
		const ckpt_flat_entry *e = &m->e[i];
		char *name = ckpt_flat_escape(e->name);
		size_t need;

		if (!name)
			goto oom;
		shape_of(e, shape, sizeof shape);
		need = strlen(name) + strlen(shape) + 80;
		if (used + need > cap) {
			char *nb;

			while (used + need > cap)
				cap *= 2;
			if (!(nb = realloc(buf, cap))) {
				free(name);
				goto oom;
			}
			buf = nb;
		}
		used += (size_t)sprintf(buf + used, "%s\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\n",
		                        name, ckpt_dtype_name(e->dtype), shape, e->offset,
		                        e->count);
		free(name);
	}
	*len = used;
	return buf;
oom:
	free(buf);
	ckpt_seterr("out of memory");
	return NULL;
}

/* "[3,4]", "[]" or "null" into rank and dims, with the element count. */
static int parse_shape(const char *s, size_t len, int *rank, uint64_t *dims,
                       uint64_t *count)
{
	size_t i = 1;

	*rank = 0;
	*count = 1;
	if (len == 4 && memcmp(s, "null", 4) == 0) {
		*rank = -1;
		*count = 0;
		return 0;
	}
	if (len < 2 || s[0] != '[' || s[len - 1] != ']')
		return -1;
	if (len == 2)
		return 0;
	while (i < len) {
		size_t j = i;

		while (j < len - 1 && s[j] != ',')
			j++;
		if (*rank == CKPT_MAX_RANK || ckpt_scan_u64(s + i, j - i, &dims[*rank]) < 0)
			return -1;
		if (*count && dims[*rank] > UINT64_MAX / 8 / *count)
			return -1;
		*count *= dims[(*rank)++];
		i = j + 1;
	}
	return 0;
}

/* The tab-separated fields of one line. */
static size_t split_fields(const char *line, size_t len, const char **f,
                           size_t *flen, size_t max)
{
	size_t n = 0, start = 0;

	for (size_t i = 0; i <= len; i++)
		if (i == len || line[i] == '\t') {
			if (n < max) {
				f[n] = line + start;
				flen[n] = i - start;
			}
			n++;
			start = i + 1;
		}
	return n;
}

/* A header value as a string, when it fits size. */
static const char *header_value(const ckpt_header *h, const char *key, char *buf,
                                size_t size)
{
	size_t vl;
	const char *v = ckpt_header_get(h, key, &vl);

	if (!v || vl >= size)
		return NULL;
	memcpy(buf, v, vl);
	buf[vl] = 0;
	return buf;
}

static int parse_header(ckpt_flat *m, const char *line, size_t len, const char *what)
{
	ckpt_header h;
	char dtype[32], order[32], count[32];
	int rc = ckpt_header_parse(line, len, "flat", &h);

	if (rc == CKPT_HEADER_OTHER)
		return ckpt_seterr("%s: not a ckpt-flat manifest (its first line does "
		                   "not start with '#ckpt-flat')", what);
	if (rc == CKPT_HEADER_BAD_VERSION)
		return ckpt_seterr("%s: line 1: bad version", what);
	if (h.version != CKPT_FLAT_VERSION)
		return ckpt_seterr("%s: manifest format %" PRIu64 " is not one this "
		                   "program reads (%d)", what, h.version, CKPT_FLAT_VERSION);
	if (!header_value(&h, "dtype", dtype, sizeof dtype) ||
	    !header_value(&h, "byteorder", order, sizeof order) ||
	    !header_value(&h, "count", count, sizeof count))
		return ckpt_seterr("%s: line 1: needs dtype=, byteorder= and count=", what);
	if (ckpt_dtype_parse(dtype, &m->dtype) < 0)
		return ckpt_seterr("%s: line 1: unknown dtype '%s'", what, dtype);
	if (strcmp(order, "little") != 0 && strcmp(order, "big") != 0)
		return ckpt_seterr("%s: line 1: byteorder is '%s', not little or big", what,
		                   order);
	m->big_endian = order[0] == 'b';
	/* checked against the lines at the end */
	if (ckpt_scan_u64(count, strlen(count), &m->count) < 0)
		return ckpt_seterr("%s: line 1: bad count '%s'", what, count);
	return 0;
}

static int name_ok(const char *name)
{
	const char *p = name;

	if (!*name || *name == '/')
		return 0;
	for (;;) { /* no empty, "." or ".." components */
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (!slash)
			return 1;
		p = slash + 1;
	}
}

static int parse_line(ckpt_flat *m, const char *line, size_t len, const char *what,
                      size_t lineno)
{
	const char *f[5];
	size_t fl[5], n = split_fields(line, len, f, fl, 5);
	uint64_t dims[CKPT_MAX_RANK], count, offset, shape_count;
	ckpt_dtype t;
	int rank;
	char tname[32], *name;

	if (n != 5)
		return ckpt_seterr("%s: line %zu: %zu field%s, not 5 (name, dtype, shape, "
		                   "offset, count)", what, lineno, n, n == 1 ? "" : "s");
	if (!(name = ckpt_flat_unescape(f[0], fl[0])))
		return ckpt_seterr("%s: line %zu: %s", what, lineno, ckpt_errmsg());
	if (!name_ok(name)) {
		free(name);
		return ckpt_seterr("%s: line %zu: '%.*s' is not a variable name", what,
		                   lineno, (int)(fl[0] > 200 ? 200 : fl[0]), f[0]);
	}
	snprintf(tname, sizeof tname, "%.*s", (int)(fl[1] < 31 ? fl[1] : 31), f[1]);
	if (fl[1] >= sizeof tname || ckpt_dtype_parse(tname, &t) < 0) {
		free(name);
		return ckpt_seterr("%s: line %zu: unknown dtype '%s'", what, lineno, tname);
	}
	if (parse_shape(f[2], fl[2], &rank, dims, &shape_count) < 0) {
		free(name);
		return ckpt_seterr("%s: line %zu: bad shape '%.*s'", what, lineno,
		                   (int)(fl[2] > 200 ? 200 : fl[2]), f[2]);
	}
	if (ckpt_scan_u64(f[3], fl[3], &offset) < 0 || ckpt_scan_u64(f[4], fl[4], &count) < 0) {
		free(name);
		return ckpt_seterr("%s: line %zu: offset and count must be whole numbers",
		                   what, lineno);
	}
	if (count != shape_count || offset != m->count) {
		free(name);
		return ckpt_seterr("%s: line %zu: offset %" PRIu64 " and count %" PRIu64
		                   " do not follow the lines before (offset %" PRIu64
		                   ", count %" PRIu64 " expected)", what, lineno, offset,
		                   count, m->count, shape_count);
	}
	if (add_entry(m, name, t, rank, dims, count) < 0)
		return ckpt_seterr("%s: line %zu: %s", what, lineno, ckpt_errmsg());
	return 0;
}

/* Which two entries of m cannot both be variables of one file (the same
 * name, or one inside the other), as ckpt_names_clash() says. */
static int entries_clash(const ckpt_flat *m, size_t *a, size_t *b)
{
	const char **names = malloc((m->n ? m->n : 1) * sizeof *names);
	int kind;

	if (!names)
		return ckpt_seterr("out of memory");
	for (size_t i = 0; i < m->n; i++)
		names[i] = m->e[i].name;
	kind = ckpt_names_clash(names, m->n, a, b);
	free(names);
	return kind;
}

/* Every line after the header names a variable: entry i is on line i + 2. */
static int listed_names_fit(const ckpt_flat *m, const char *what)
{
	size_t a, b;
	int kind = entries_clash(m, &a, &b);

	if (kind == CKPT_NAMES_TWICE)
		return ckpt_seterr("%s: line %zu: variable '%s' listed twice (first on "
		                   "line %zu)", what, b + 2, m->e[b].name, a + 2);
	if (kind == CKPT_NAMES_NESTED)
		return ckpt_seterr("%s: line %zu: variable '%s' lies inside variable "
		                   "'%s' of line %zu, which cannot also be a group", what,
		                   b + 2, m->e[b].name, m->e[a].name, a + 2);
	return kind;
}

int ckpt_flat_parse(ckpt_flat *m, const char *text, size_t len, const char *what)
{
	uint64_t declared = 0;
	size_t lineno = 0, pos = 0;

	ckpt_flat_init(m);
	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos;

		pos += ll + (nl != NULL);
		if (++lineno == 1) {
			if (parse_header(m, line, ll, what) < 0)
				goto fail;
			declared = m->count;
			m->count = 0;
		} else if (memchr(line, 0, ll)) {
			ckpt_seterr("%s: line %zu: holds a NUL byte", what, lineno);
			goto fail;
		} else if (parse_line(m, line, ll, what, lineno) < 0) {
			goto fail;
		}
	}
	if (lineno == 0) {
		ckpt_seterr("%s: empty manifest", what);
		goto fail;
	}
	if (m->count != declared) {
		ckpt_seterr("%s: the lines add up to %" PRIu64 " values, the header "
		            "says %" PRIu64, what, m->count, declared);
		goto fail;
	}
	if (listed_names_fit(m, what) < 0)
		goto fail;
	return 0;
fail:
	ckpt_flat_free(m);
	return -1;
}

