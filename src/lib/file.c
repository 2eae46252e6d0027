/* file.c - opening a checkpoint: a path or standard input, recognised by
 * its content and handed to its format's backend (HDF5: h5file.c), which
 * lists the variables; lookups by name. */
#include "file.h"
#include "sniff.h"
#include "err.h"
#include "backend.h"
#include "format.h"
#include "wrap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ckpt_read_all(ptrdiff_t (*read_some)(void *from, void *buf, size_t n), void *from,
                  void **buf, size_t *size)
{
	size_t cap = 1 << 16, len = 0;
	char *p = malloc(cap), *np;
	ptrdiff_t n;

	if (!p)
		return -2;
	for (;;) {
		if (len == cap) {
			if (!(np = realloc(p, cap *= 2))) {
				free(p);
				return -2;
			}
			p = np;
		}
		if ((n = read_some(from, p + len, cap - len)) == 0)
			break;
		if (n < 0) {
			free(p);
			return -1;
		}
		len += (size_t)n;
	}
	*buf = p;
	*size = len;
	return 0;
}

static ptrdiff_t read_fd(void *from, void *buf, size_t n)
{
	ssize_t got;

	while ((got = read(*(int *)from, buf, n)) < 0 && errno == EINTR)
		;
	return got;
}

int ckpt_read_stream(int fd, void **buf, size_t *size)
{
	int rc = ckpt_read_all(read_fd, &fd, buf, size);

	if (rc == -2)
		errno = ENOMEM;
	return rc < 0 ? -1 : 0;
}

/* ---- the variables' storage --------------------------------------------- */

struct ckpt_arena {
	struct ckpt_arena *next;
	size_t used, size;
	uint64_t data[];    /* (aligned for sizes; names are bytes) */
};

#define ARENA_BLOCK (64 * 1024 - sizeof(struct ckpt_arena))

static void *arena_alloc(ckpt_file *f, size_t n)
{
	struct ckpt_arena *a = f->arena;
	size_t words = (n + 7) / 8;

	if (!a || a->size - a->used < words) {
		size_t size = words * 8 > ARENA_BLOCK ? words : ARENA_BLOCK / 8;

		if (!(a = malloc(sizeof *a + size * 8))) {
			ckpt_seterr("%s: out of memory", f->name);
			return NULL;
		}
		*a = (struct ckpt_arena){.next = f->arena, .size = size};
		f->arena = a;
	}
	a->used += words;
	return a->data + a->used - words;
}

int ckpt_file_set_dims(ckpt_file *f, ckpt_var *v, int rank, const uint64_t *dims)
{
	uint64_t *copy = NULL;

	if (rank > 0 && !(copy = arena_alloc(f, (size_t)rank * sizeof *copy)))
		return -1;
	if (rank > 0)
		memcpy(copy, dims, (size_t)rank * sizeof *copy);
	v->rank = rank;
	v->dims = copy;
	return 0;
}

char *ckpt_file_strdup(ckpt_file *f, const char *s)
{
	size_t n = strlen(s) + 1;
	char *copy = arena_alloc(f, n);

	return copy ? memcpy(copy, s, n) : NULL;
}

static void arena_free(struct ckpt_arena *a)
{
	while (a) {
		struct ckpt_arena *next = a->next;

		free(a);
		a = next;
	}
}

/* ---- opening ------------------------------------------------------------ */

ckpt_file *ckpt_file_new(const char *name)
{
	ckpt_file *f = calloc(1, sizeof *f);

	if (!f || !(f->name = strdup(name))) {
		free(f);
		ckpt_seterr("%s: out of memory", name);
		return NULL;
	}
	f->fd = -1;
	return f;
}

static int cmp_by_name(const void *a, const void *b)
{
	return strcmp((*(const ckpt_var *const *)a)->name,
	              (*(const ckpt_var *const *)b)->name);
}

/* Lookups go through the variables sorted by name. */
int ckpt_file_index(ckpt_file *f)
{
	if (!(f->by_name = malloc((f->nvars + 1) * sizeof *f->by_name))) {
		ckpt_seterr("%s: out of memory", f->name);
		ckpt_close(f);
		return -1;
	}
	for (size_t i = 0; i < f->nvars; i++)
		f->by_name[i] = &f->vars[i];
	qsort(f->by_name, f->nvars, sizeof *f->by_name, cmp_by_name);
	return 0;
}

size_t ckpt_file_twice(const ckpt_file *f)
{
	for (size_t i = 1; i < f->nvars; i++)
		if (strcmp(f->by_name[i - 1]->name, f->by_name[i]->name) == 0)
			return i;
	return 0;
}

/* Every name one variable's: a safetensors header may give a key twice
 * (read as a stream, it has no document tree to refuse it). */
static int unique_names(ckpt_file *f)
{
	size_t i = ckpt_file_twice(f);

	if (i == 0)
		return 0;
	ckpt_seterr("%s: two variables are called '%s'", f->name, f->by_name[i]->name);
	ckpt_close(f);
	return -1;
}

/* The variables in the order the file records, which its format looks
 * up by name: then sorted by name again. */
static int reorder(ckpt_file *f, const struct ckpt_format *fmt)
{
	if (fmt->reorder(f) < 0) {
		ckpt_close(f);
		return -1;
	}
	qsort(f->by_name, f->nvars, sizeof *f->by_name, cmp_by_name);
	return 0;
}

/* Opened (0) and listed by its format: indexed. */
static ckpt_file *finish_open(ckpt_file *f, const struct ckpt_format *fmt, int opened)
{
	if (opened < 0) {
		ckpt_close(f);
		return NULL;
	}
	if (ckpt_file_index(f) < 0 || unique_names(f) < 0 || (fmt->reorder && reorder(f, fmt) < 0))
		return NULL;
	return f;
}

ptrdiff_t ckpt_pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));

		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ptrdiff_t)got;
}

ckpt_file *ckpt_open_image(const char *name, void *image, size_t size)
{
	ckpt_file *f = ckpt_file_new(name);
	struct ckpt_probe p = {image, size, -1, image, size, NULL, NULL};
	const struct ckpt_format *fmt;

	if (!f) {
		free(image);
		return NULL;
	}
	f->image = image;
	f->image_size = f->size = size;
	if (!(fmt = ckpt_format_of(&p))) {
		if (ckpt_sniff_image(name, image, size) == 0)
			ckpt_seterr("%s: not an HDF5 or safetensors file", name);
		ckpt_close(f);
		return NULL;
	}
	return finish_open(f, fmt, fmt->open(f, NULL));
}

static ckpt_file *open_stdin(void)
{
	void *buf;
	size_t size;

	if (ckpt_read_stream(0, &buf, &size) < 0) {
		ckpt_seterr_errno("(stdin)");
		return NULL;
	}
	if (size == 0) {
		free(buf);
		ckpt_seterr("(stdin): empty input, not a checkpoint");
		return NULL;
	}
	return ckpt_open_image("(stdin)", buf, size);
}

/* Checks HDF5 cannot phrase well: missing, a directory, unreadable, empty,
 * not a checkpoint at all; the format otherwise. */
static const struct ckpt_format *check_path(const char *path)
{
	struct stat st;
	unsigned char head[16];
	ssize_t got;
	int fd = open(path, O_RDONLY);
	const struct ckpt_format *fmt = NULL;

	if (fd < 0)
		return ckpt_seterr_errno(path), NULL;
	if (fstat(fd, &st) < 0)
		ckpt_seterr_errno(path);
	else if (S_ISDIR(st.st_mode)) {
		if (ckpt_sniff_path(path) == 0) /* (a SavedModel is named) */
			ckpt_seterr("%s: is a directory", path);
	} else if (st.st_size == 0)
		ckpt_seterr("%s: empty file, not a checkpoint", path);
	else if ((got = pread(fd, head, sizeof head, 0)) < 0)
		ckpt_seterr_errno(path);
	else if (!(fmt = ckpt_format_of(&(struct ckpt_probe){head, (size_t)got, fd, NULL,
	                                                     (uint64_t)st.st_size, NULL, NULL})) &&
	         ckpt_sniff_path(path) == 0)
		ckpt_seterr("%s: not an HDF5 or safetensors file", path);
	close(fd);
	return fmt;
}

ckpt_file *ckpt_open(const char *path)
{
	ckpt_file *f;
	const struct ckpt_format *fmt;
	struct stat st;
	char located[4200];
	const char *file = path;
	int rc;

	if (strcmp(path, "-") == 0)
		return open_stdin();
	/* a TensorFlow checkpoint is named by its prefix or its directory */
	if ((rc = ckpt_format_locate(path, located, sizeof located)) < 0)
		return NULL;
	if (rc)
		file = located;
	if (!(fmt = check_path(file)) || !(f = ckpt_file_new(path)))
		return NULL;
	if ((f->fd = open(file, O_RDONLY)) < 0 || fstat(f->fd, &st) < 0) {
		ckpt_seterr_errno(path);
		ckpt_close(f);
		return NULL;
	}
	f->size = (uint64_t)st.st_size;
	return finish_open(f, fmt, fmt->open(f, file));
}

void ckpt_forget_structure(ckpt_file *f)
{
	for (size_t i = 0; i < f->nobjs; i++) {
		free(f->objs[i].path);
		free(f->objs[i].target);
		free(f->objs[i].file);
	}
	free(f->objs);
	f->objs = NULL;
	f->nobjs = 0;
}

void ckpt_close(ckpt_file *f)
{
	const struct ckpt_format *fmt;

	if (!f)
		return;
	if ((fmt = ckpt_file_fmt(f)))
		fmt->close(f);
	free(f->backend);
	ckpt_container_free(f->container);
	if (f->fd >= 0)
		close(f->fd);
	ckpt_forget_structure(f);
	free(f->vars);
	arena_free(f->arena);
	free(f->by_name);
	free(f->image);
	free(f->name);
	free(f);
}

int ckpt_file_text(const ckpt_file *f, const char *key, char **text)
{
	const struct ckpt_format *fmt = ckpt_file_fmt(f);

	*text = NULL;
	return fmt ? fmt->text(f, key, text) : 0;
}

int ckpt_file_number(const ckpt_file *f, const char *key, ckpt_dtype t, void *value)
{
	const struct ckpt_format *fmt = ckpt_file_fmt(f);
	char *text = NULL, *end;
	int rc = ckpt_file_text(f, key, &text);

	if (rc == 1) { /* as text: all of it a number */
		errno = 0;
		if (t == CKPT_I64)
			*(long long *)value = strtoll(text, &end, 10);
		else
			*(double *)value = strtod(text, &end);
		rc = end != text && !*end && errno == 0;
	} else if (fmt && fmt->number) {
		rc = fmt->number(f, key, t, value);
	}
	free(text);
	return rc;
}

char *ckpt_var_storage(const ckpt_file *set, const ckpt_var *var, char *out, size_t size)
{
	const ckpt_file *f;
	const ckpt_var *v;

	ckpt_part_of(set, var, &f, &v); /* a sharded set: the shard's */
	return ckpt_file_fmt(f)->storage(f, v, out, size);
}

const ckpt_var *ckpt_find(const ckpt_file *f, const char *name)
{
	size_t lo = 0, hi = f->nvars;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const ckpt_var *v = f->by_name[mid];
		int c = strcmp(name, v->name);

		if (c == 0)
			return v;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

uint64_t ckpt_total_params(const ckpt_file *f)
{
	uint64_t n = 0;

	for (size_t i = 0; i < f->nvars; i++)
		if (f->vars[i].dtype != CKPT_OTHER)
			n += f->vars[i].nelems;
	return n;
}

char *ckpt_shape_str(const ckpt_var *v, char *buf, size_t size)
{
	size_t len = 0;

	if (v->rank < 0) {
		snprintf(buf, size, "null");
		return buf;
	}
	len += (size_t)snprintf(buf, size, "[");
	for (int i = 0; i < v->rank && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%llu", i ? "," : "",
		                        (unsigned long long)v->dims[i]);
	if (len < size)
		snprintf(buf + len, size - len, "]");
	return buf;
}

int ckpt_same_shape(const ckpt_var *a, const ckpt_var *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return 0;
	return 1;
}

