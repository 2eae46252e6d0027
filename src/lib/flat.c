/* flat.c - flat vectors: layout, manifest, bundle. */
#include "flat.h"
#include "err.h"
#include "fmt.h"
#include "header.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define MANIFEST_MEMBER "manifest.tsv"
#define DATA_MEMBER "flat.bin"
#define CRC_MEMBER "flat.crc32"
#define MAX_MANIFEST (256u << 20)

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
	ckpt_var v;

	v.rank = e->rank;
	memcpy(v.dims, e->dims, sizeof v.dims);
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

/* ---- bundles: writing ----------------------------------------------------- */

static const struct {
	const char *suffix, *filter;
} suffixes[] = {
	{".tar.gz", "gzip"}, {".tgz", "gzip"}, {".tar.zst", "zstd"},
	{".tzst", "zstd"}, {".tar.xz", "xz"}, {".txz", "xz"},
	{".tar.bz2", "bzip2"}, {".tbz2", "bzip2"}, {".tar.lz4", "lz4"},
};

const char *ckpt_bundle_compression(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
		size_t k = strlen(suffixes[i].suffix);

		if (n > k && strcmp(name + n - k, suffixes[i].suffix) == 0)
			return suffixes[i].filter;
	}
	return "none";
}

/* zlib's CRC-32 over any length (crc32() takes a uInt). */
static uLong crc_update(uLong crc, const unsigned char *p, size_t n)
{
	for (size_t off = 0; off < n; off += 1u << 30)
		crc = crc32(crc, p + off, (uInt)(n - off < (1u << 30) ? n - off : 1u << 30));
	return crc;
}

struct ckpt_bundle {
	struct archive *a;
	ckpt_sink *out;
	uLong crc;
	uint64_t expected, written;
};

static int bundle_err(struct archive *a, const char *name)
{
	const char *msg = archive_error_string(a);

	return ckpt_seterr("%s: %s", name, msg ? msg : "cannot write the bundle");
}

static int add_member(ckpt_bundle *b, const char *name, uint64_t size)
{
	struct archive_entry *e = archive_entry_new();
	int rc;

	if (!e)
		return ckpt_seterr("out of memory");
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)size);
	archive_entry_set_mtime(e, 0, 0); /* the same input, the same bundle */
	rc = archive_write_header(b->a, e);
	archive_entry_free(e);
	return rc == ARCHIVE_OK ? 0 : bundle_err(b->a, ckpt_sink_name(b->out));
}

static int write_member_data(ckpt_bundle *b, const void *buf, size_t n)
{
	if (n && archive_write_data(b->a, buf, n) != (la_ssize_t)n)
		return bundle_err(b->a, ckpt_sink_name(b->out));
	return 0;
}

ckpt_bundle *ckpt_bundle_create(ckpt_sink *out, const char *compress,
                                const ckpt_flat *m)
{
	ckpt_bundle *b = calloc(1, sizeof *b);
	size_t mlen;
	char *text = NULL;

	if (!b || !(b->a = archive_write_new())) {
		free(b);
		ckpt_seterr("out of memory");
		return NULL;
	}
	b->out = out;
	b->crc = crc32(0, Z_NULL, 0);
	b->expected = ckpt_flat_bytes(m);
	archive_write_set_format_pax_restricted(b->a); /* ustar, pax past 8 GiB */
	if (strcmp(compress, "none") != 0 &&
	    archive_write_add_filter_by_name(b->a, compress) != ARCHIVE_OK) {
		ckpt_seterr("%s: cannot compress with '%s': %s", ckpt_sink_name(out),
		            compress, archive_error_string(b->a));
		goto fail;
	}
	/* no blocking: big writes go straight through */
	archive_write_set_bytes_per_block(b->a, strcmp(compress, "none") ? 10240 : 0);
	archive_write_set_bytes_in_last_block(b->a, 1);
	if (archive_write_open_fd(b->a, ckpt_sink_fd(out)) != ARCHIVE_OK) {
		bundle_err(b->a, ckpt_sink_name(out));
		goto fail;
	}
	if (!(text = ckpt_flat_format(m, &mlen)) ||
	    add_member(b, MANIFEST_MEMBER, mlen) < 0 ||
	    write_member_data(b, text, mlen) < 0 ||
	    add_member(b, DATA_MEMBER, b->expected) < 0)
		goto fail;
	free(text);
	return b;
fail:
	free(text);
	ckpt_bundle_abort(b);
	return NULL;
}

int ckpt_bundle_write(ckpt_bundle *b, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	if (n > b->expected - b->written)
		return ckpt_seterr("%s: more data than the manifest lists",
		                   ckpt_sink_name(b->out));
	b->written += n;
	b->crc = crc_update(b->crc, p, n);
	return write_member_data(b, buf, n);
}

int ckpt_bundle_finish(ckpt_bundle *b)
{
	char sum[16];
	int rc = -1;

	if (b->written != b->expected) {
		ckpt_seterr("%s: %" PRIu64 " bytes of data written, %" PRIu64
		            " expected", ckpt_sink_name(b->out), b->written, b->expected);
		goto out;
	}
	snprintf(sum, sizeof sum, "%08lx\n", (unsigned long)b->crc);
	if (add_member(b, CRC_MEMBER, 9) < 0 || write_member_data(b, sum, 9) < 0)
		goto out;
	if (archive_write_close(b->a) != ARCHIVE_OK) {
		bundle_err(b->a, ckpt_sink_name(b->out));
		goto out;
	}
	rc = 0;
out:
	archive_write_free(b->a);
	free(b);
	return rc;
}

void ckpt_bundle_abort(ckpt_bundle *b)
{
	if (!b)
		return;
	if (b->a)
		archive_write_free(b->a);
	free(b);
}

/* ---- reading ------------------------------------------------------------ */

#define PEEK 512
#define FEED (1u << 20)

struct ckpt_flat_in {
	char *name;
	int fd, own_fd;
	unsigned char peek[PEEK];
	size_t npeek, peek_used;
	uint64_t size;         /* known bytes of data, or UINT64_MAX */
	struct archive *a;     /* a bundle */
	ckpt_flat manifest;
	int is_bundle;
	unsigned char *feed;   /* the bundle reader's buffer */
	/* The checksum is computed by a thread, on a copy of what was read,
	 * while the caller goes on: the next read waits for it. */
	uLong crc;
	unsigned char *copy[2];
	size_t cap[2];
	int cur;
	struct crc_job {
		pthread_t thread;
		uLong *crc;
		const unsigned char *p;
		size_t n;
		int running;
	} job;
};

/* Read from the fd, the peeked bytes first; returns bytes, 0 at the end. */
static ssize_t raw_read(ckpt_flat_in *in, void *buf, size_t n)
{
	if (in->peek_used < in->npeek) {
		size_t k = in->npeek - in->peek_used;

		if (k > n)
			k = n;
		memcpy(buf, in->peek + in->peek_used, k);
		in->peek_used += k;
		return (ssize_t)k;
	}
	for (;;) {
		ssize_t r = read(in->fd, buf, n);

		if (r < 0 && errno == EINTR)
			continue;
		return r;
	}
}

static la_ssize_t feed(struct archive *a, void *user, const void **buf)
{
	ckpt_flat_in *in = user;
	ssize_t r = raw_read(in, in->feed, FEED);

	if (r < 0)
		archive_set_error(a, errno, "%s", strerror(errno));
	*buf = in->feed;
	return r;
}

static int looks_like_bundle(const unsigned char *p, size_t n)
{
	static const struct {
		size_t len;
		const char *magic;
	} magics[] = {
		{3, "\x1f\x8b\x08"},                 /* gzip */
		{4, "\x28\xb5\x2f\xfd"},             /* zstd */
		{6, "\xfd" "7zXZ\0"},                /* xz */
		{3, "BZh"},                          /* bzip2 */
		{4, "\x04\x22\x4d\x18"},             /* lz4 */
	};

	if (n >= 262 && memcmp(p + 257, "ustar", 5) == 0)
		return 1;
	for (size_t i = 0; i < sizeof magics / sizeof *magics; i++)
		if (n >= magics[i].len && memcmp(p, magics[i].magic, magics[i].len) == 0)
			return 1;
	return 0;
}

static int bundle_read_err(ckpt_flat_in *in, const char *what)
{
	const char *msg = archive_error_string(in->a);

	return ckpt_seterr("%s: %s%s%s", in->name, what, msg ? ": " : "", msg ? msg : "");
}

/* The next member, which must be called name. */
static int next_member(ckpt_flat_in *in, const char *name, uint64_t *size)
{
	struct archive_entry *e;
	int r = archive_read_next_header(in->a, &e);

	if (r == ARCHIVE_EOF)
		return ckpt_seterr("%s: bundle ends before its member '%s'", in->name, name);
	if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
		return bundle_read_err(in, "not a readable bundle");
	if (!archive_entry_pathname(e) || strcmp(archive_entry_pathname(e), name) != 0 ||
	    archive_entry_filetype(e) != AE_IFREG)
		return ckpt_seterr("%s: bundle member '%s' where '%s' was expected",
		                   in->name, archive_entry_pathname(e) ?
		                   archive_entry_pathname(e) : "", name);
	*size = archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
	return 0;
}

/* All of a small member. */
static char *read_member(ckpt_flat_in *in, uint64_t size)
{
	char *buf = malloc(size + 1);
	la_ssize_t r;

	if (!buf) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	r = size ? archive_read_data(in->a, buf, size) : 0;
	if (r != (la_ssize_t)size) {
		free(buf);
		bundle_read_err(in, "truncated bundle");
		return NULL;
	}
	buf[size] = 0;
	return buf;
}

static int open_bundle(ckpt_flat_in *in)
{
	uint64_t size;
	char *text, what[300];

	in->is_bundle = 1;
	in->crc = crc32(0, Z_NULL, 0);
	if (!(in->a = archive_read_new()) || !(in->feed = malloc(FEED)))
		return ckpt_seterr("out of memory");
	archive_read_support_filter_all(in->a);
	archive_read_support_format_tar(in->a);
	if (archive_read_open(in->a, in, NULL, feed, NULL) != ARCHIVE_OK)
		return bundle_read_err(in, "not a readable bundle");
	if (next_member(in, MANIFEST_MEMBER, &size) < 0)
		return -1;
	if (size > MAX_MANIFEST)
		return ckpt_seterr("%s: bundle's manifest is %" PRIu64 " bytes, more "
		                   "than it can be", in->name, size);
	if (!(text = read_member(in, size)))
		return -1;
	snprintf(what, sizeof what, "%s:" MANIFEST_MEMBER, in->name);
	if (ckpt_flat_parse(&in->manifest, text, size, what) < 0) {
		free(text);
		return -1;
	}
	free(text);
	if (next_member(in, DATA_MEMBER, &size) < 0)
		return -1;
	if (size != ckpt_flat_bytes(&in->manifest))
		return ckpt_seterr("%s: bundle's " DATA_MEMBER " has %" PRIu64 " bytes; "
		                   "its manifest's %" PRIu64 " %s values need %" PRIu64,
		                   in->name, size, in->manifest.count,
		                   ckpt_dtype_name(in->manifest.dtype),
		                   ckpt_flat_bytes(&in->manifest));
	in->size = size;
	return 0;
}

ckpt_flat_in *ckpt_flat_in_open(const char *path, int raw)
{
	ckpt_flat_in *in = calloc(1, sizeof *in);
	int from_stdin = strcmp(path, "-") == 0;
	struct stat st = {0};
	ssize_t r;

	if (!in || !(in->name = strdup(from_stdin ? "(stdin)" : path))) {
		free(in);
		ckpt_seterr("out of memory");
		return NULL;
	}
	ckpt_flat_init(&in->manifest);
	in->size = UINT64_MAX;
	in->fd = from_stdin ? 0 : open(path, O_RDONLY);
	in->own_fd = !from_stdin;
	if (in->fd < 0) {
		ckpt_seterr_errno(path);
		goto fail;
	}
	if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		ckpt_seterr("%s: is a directory", in->name);
		goto fail;
	}
	if (!raw) {
		while (in->npeek < PEEK &&
		       (r = read(in->fd, in->peek + in->npeek, PEEK - in->npeek)) != 0) {
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				ckpt_seterr_errno(in->name);
				goto fail;
			}
			in->npeek += (size_t)r;
		}
		if (looks_like_bundle(in->peek, in->npeek))
			return open_bundle(in) < 0 ? (ckpt_flat_in_close(in), NULL) : in;
	}
	if (S_ISREG(st.st_mode)) {
		off_t pos = lseek(in->fd, 0, SEEK_CUR);

		if (pos >= 0 && (uint64_t)st.st_size >= (uint64_t)pos)
			in->size = (uint64_t)st.st_size - (uint64_t)pos + in->npeek;
	}
	return in;
fail:
	ckpt_flat_in_close(in);
	return NULL;
}

const char *ckpt_flat_in_name(const ckpt_flat_in *in)
{
	return in->name;
}

const ckpt_flat *ckpt_flat_in_manifest(const ckpt_flat_in *in)
{
	return in->is_bundle ? &in->manifest : NULL;
}

uint64_t ckpt_flat_in_size(const ckpt_flat_in *in)
{
	return in->size;
}

static void *crc_work(void *arg)
{
	struct crc_job *j = arg;

	*j->crc = crc_update(*j->crc, j->p, j->n);
	return NULL;
}

static void crc_wait(ckpt_flat_in *in)
{
	if (in->job.running)
		pthread_join(in->job.thread, NULL);
	in->job.running = 0;
}

/* Checksum n bytes at p (which stay untouched until crc_wait()). */
static void crc_start(ckpt_flat_in *in, const unsigned char *p, size_t n)
{
	in->job = (struct crc_job){.crc = &in->crc, .p = p, .n = n};
	if (pthread_create(&in->job.thread, NULL, crc_work, &in->job) == 0)
		in->job.running = 1;
	else
		crc_work(&in->job);
}

static int64_t read_some(ckpt_flat_in *in, unsigned char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = in->is_bundle ? archive_read_data(in->a, buf + got, n - got)
		                          : raw_read(in, buf + got, n - got);

		if (r < 0)
			return in->is_bundle ? bundle_read_err(in, "bundle unreadable")
			                     : ckpt_seterr_errno(in->name);
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (int64_t)got;
}

int64_t ckpt_flat_in_read(ckpt_flat_in *in, void *buf, size_t n)
{
	unsigned char *b;
	int64_t got;

	if (!in->is_bundle)
		return read_some(in, buf, n);
	if (in->cap[in->cur] < n) {
		free(in->copy[in->cur]);
		if (!(in->copy[in->cur] = malloc(n)))
			return in->cap[in->cur] = 0, ckpt_seterr("out of memory");
		in->cap[in->cur] = n;
	}
	b = in->copy[in->cur];
	got = read_some(in, b, n);
	crc_wait(in); /* on the other copy: before the next checksum starts */
	if (got <= 0)
		return got;
	memcpy(buf, b, (size_t)got);
	crc_start(in, b, (size_t)got);
	in->cur ^= 1;
	return got;
}

int ckpt_flat_in_end(ckpt_flat_in *in, uint64_t *extra)
{
	static char sink[1 << 16];
	uint64_t size;
	int64_t r;
	char *text;
	struct archive_entry *e;
	int rc;

	*extra = 0;
	while ((r = ckpt_flat_in_read(in, sink, sizeof sink)) > 0)
		*extra += (uint64_t)r;
	crc_wait(in);
	if (r < 0)
		return -1;
	if (!in->is_bundle)
		return 0;
	if (next_member(in, CRC_MEMBER, &size) < 0)
		return -1;
	if (size > 64 || !(text = read_member(in, size)))
		return size > 64 ? ckpt_seterr("%s: bundle's " CRC_MEMBER " is not a "
		                               "checksum", in->name) : -1;
	rc = strlen(text) == 9 && text[8] == '\n' && strspn(text, "0123456789abcdef") == 8 &&
	     strtoul(text, NULL, 16) == (unsigned long)in->crc;
	free(text);
	if (!rc)
		return ckpt_seterr("%s: bundle's data do not match its checksum "
		                   "(corrupted in transfer?)", in->name);
	rc = archive_read_next_header(in->a, &e);
	if (rc == ARCHIVE_OK || rc == ARCHIVE_WARN)
		return ckpt_seterr("%s: unexpected bundle member '%s' after the "
		                   "checksum", in->name, archive_entry_pathname(e) ?
		                   archive_entry_pathname(e) : "");
	if (rc != ARCHIVE_EOF)
		return bundle_read_err(in, "bundle unreadable after its checksum");
	return 0;
}

void ckpt_flat_in_close(ckpt_flat_in *in)
{
	if (!in)
		return;
	crc_wait(in);
	free(in->copy[0]);
	free(in->copy[1]);
	if (in->a)
		archive_read_free(in->a);
	if (in->own_fd && in->fd >= 0)
		close(in->fd);
	ckpt_flat_free(&in->manifest);
	free(in->feed);
	free(in->name);
	free(in);
}
