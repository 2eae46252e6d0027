/* inputs.c - HDF5 files, stdin and archives as inputs. */
#include "inputs.h"
#include "sniff.h"
#include "err.h"
#include "par.h"
#include "wrap.h"
#include "format.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

/* Whether path is to be opened as one checkpoint (HDF5, safetensors), not
 * as an archive or a map of shards: also when it is no regular file, or
 * too small to be an archive, so that ckpt_open() says what is wrong. */
static int path_is_checkpoint(const char *path)
{
	int fd = open(path, O_RDONLY), yes;
	unsigned char head[16];
	ssize_t got;
	struct stat st;

	if (fd < 0)
		return 1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 8)
		yes = 1;
	else
		yes = (got = pread(fd, head, sizeof head, 0)) > 0 &&
		      ckpt_format_of(&(struct ckpt_probe){head, (size_t)got, fd, NULL,
		                                          (uint64_t)st.st_size, NULL, NULL});
	close(fd);
	return yes;
}

static int image_is_checkpoint(const void *buf, size_t size)
{
	return ckpt_format_of(&(struct ckpt_probe){buf, size, -1, buf, size, NULL, NULL}) != NULL;
}

static int append(ckpt_file ***files, size_t *n, ckpt_file *f)
{
	ckpt_file **nf = realloc(*files, (*n + 1) * sizeof *nf);

	if (!nf) {
		ckpt_close(f);
		return ckpt_seterr("out of memory");
	}
	nf[(*n)++] = f;
	*files = nf;
	return 0;
}

/* Read the current member whole into memory. */
static ptrdiff_t read_archive(void *from, void *buf, size_t n)
{
	return archive_read_data(from, buf, n);
}

static int read_member(struct archive *a, const char *name, void **buf, size_t *size)
{
	int rc = ckpt_read_all(read_archive, a, buf, size);

	if (rc == -2)
		return ckpt_seterr("%s: out of memory", name);
	if (rc < 0)
		return ckpt_seterr("%s: damaged archive member (%s)", name,
		                   archive_error_string(a));
	return 0;
}

/* The regular members of an archive, read in order. */
struct members {
	struct ckpt_member *m;
	size_t n;
	int zip;
};

static void members_free(struct members *ms)
{
	for (size_t i = 0; i < ms->n; i++) {
		archive_entry_free(ms->m[i].entry);
		free(ms->m[i].data);
	}
	free(ms->m);
	ms->m = NULL;
	ms->n = 0;
}

static const char *member_name(const struct ckpt_member *m)
{
	const char *name = archive_entry_pathname(m->entry);

	return name ? name : "?";
}

static int read_members(struct archive *a, const char *shown, struct members *ms)
{
	struct archive_entry *e;
	int r;

	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		struct ckpt_member *m;
		char *name;

		ms->zip = ms->zip || (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) ==
		                     ARCHIVE_FORMAT_ZIP;
		/* directories and links are kept (a .keras output writes them
		 * again), their bytes not read */
		if (!(m = realloc(ms->m, (ms->n + 1) * sizeof *m)))
			return ckpt_seterr("%s: out of memory", shown);
		ms->m = m;
		m = &ms->m[ms->n];
		*m = (struct ckpt_member){archive_entry_clone(e), NULL, 0};
		if (!m->entry)
			return ckpt_seterr("%s: out of memory", shown);
		ms->n++;
		if (archive_entry_filetype(e) != AE_IFREG)
			continue;
		if (!(name = malloc(strlen(shown) + strlen(member_name(m)) + 2)))
			return ckpt_seterr("%s: out of memory", shown);
		sprintf(name, "%s:%s", shown, member_name(m));
		r = read_member(a, name, &m->data, &m->size);
		free(name);
		if (r < 0)
			return -1;
	}
	if (r != ARCHIVE_EOF)
		return ckpt_seterr("%s: damaged archive (%s)", shown, archive_error_string(a));
	return 0;
}

/* The member's checkpoint, knowing what it came in. */
static ckpt_file *open_member(const char *shown, struct ckpt_member *m, ckpt_container_kind kind)
{
	char *name = malloc(strlen(shown) + strlen(member_name(m)) + 2);
	ckpt_container *c = calloc(1, sizeof *c);
	ckpt_file *f = NULL;

	if (name && c && (c->path = strdup(shown)) && (c->member = strdup(member_name(m)))) {
		sprintf(name, "%s:%s", shown, member_name(m));
		c->kind = kind;
		f = ckpt_open_image(name, m->data, m->size);
		m->data = NULL; /* the checkpoint owns the bytes now */
		if (f) {
			f->container = c;
			c = NULL;
		}
	} else {
		ckpt_seterr("%s: out of memory", shown);
	}
	ckpt_container_free(c);
	free(name);
	return f;
}

static int is_regular(const struct ckpt_member *m)
{
	return archive_entry_filetype(m->entry) == AE_IFREG;
}

static int shadowed(const struct members *ms, size_t i)
{
	for (size_t j = i + 1; j < ms->n; j++)
		if (strcmp(member_name(&ms->m[i]), member_name(&ms->m[j])) == 0)
			return 1;
	return 0;
}

/* A zip read by Python's zipfile, as Keras reads it, gives a name the last
 * member of that name: the earlier ones (an archive appended to) are
 * dropped, with one warning naming the first such name. */
static void drop_shadowed(const char *shown, struct members *ms)
{
	size_t kept = 0, dropped = 0;

	for (size_t i = 0; i < ms->n; i++) {
		if (!shadowed(ms, i)) {
			ms->m[kept++] = ms->m[i];
			continue;
		}
		if (!dropped++)
			ckpt_warnf("%s: member '%s' is in the archive more than once: the last "
			           "one read, as Keras reads it, and kept", shown,
			           member_name(&ms->m[i]));
		archive_entry_free(ms->m[i].entry);
		free(ms->m[i].data);
	}
	ms->n = kept;
}

/* A Keras archive is one checkpoint, its model.weights.h5; the other
 * members are kept for an output that is to be a .keras archive too. */
static int open_keras(const char *shown, struct members *ms, ckpt_file ***files, size_t *n)
{
	struct ckpt_wrapping *w;
	size_t k = 0;
	ckpt_file *f;

	drop_shadowed(shown, ms);
	while (k < ms->n && (!is_regular(&ms->m[k]) ||
	                     strcmp(member_name(&ms->m[k]), CKPT_KERAS_WEIGHTS) != 0))
		k++;
	if (k == ms->n)
		return ckpt_seterr("%s: a Keras archive without %s", shown, CKPT_KERAS_WEIGHTS);
	if (!ckpt_image_is_hdf5(ms->m[k].data, ms->m[k].size))
		return ckpt_seterr("%s:%s: not an HDF5 file", shown, CKPT_KERAS_WEIGHTS);
	if (!(w = calloc(1, sizeof *w)))
		return ckpt_seterr("%s: out of memory", shown);
	if (!(f = open_member(shown, &ms->m[k], CKPT_KERAS_ARCHIVE))) {
		free(w);
		return -1;
	}
	w->members = ms->m;
	w->nmembers = ms->n;
	w->weights = k;
	f->container->wrapping = w;
	ms->m = NULL;
	ms->n = 0;
	return append(files, n, f);
}

/* Each HDF5 member of the archive, in order; the other members (Keras'
 * config.json, metadata.json) are skipped. */
static int open_members(struct archive *a, const char *shown, ckpt_file ***files,
                        size_t *n)
{
	struct members ms = {NULL, 0, 0};
	const char **names;
	size_t first = *n;
	int keras, rc = read_members(a, shown, &ms);
	const char *foreign;

	if (rc == 0 && !(names = calloc(ms.n + 1, sizeof *names)))
		rc = ckpt_seterr("%s: out of memory", shown);
	if (rc < 0) {
		members_free(&ms);
		return -1;
	}
	for (size_t i = 0; i < ms.n; i++)
		names[i] = member_name(&ms.m[i]);
	keras = ms.zip && ckpt_keras_archive_is(names, ms.n);
	foreign = ckpt_sniff_members(names, ms.n);
	free(names);
	if (keras) {
		rc = open_keras(shown, &ms, files, n);
		members_free(&ms);
		return rc;
	}
	for (size_t i = 0; i < ms.n && rc == 0; i++) {
		ckpt_file *f;

		if (!is_regular(&ms.m[i]) || !image_is_checkpoint(ms.m[i].data, ms.m[i].size))
			continue;
		if (!(f = open_member(shown, &ms.m[i], CKPT_ARCHIVE_MEMBER)) ||
		    append(files, n, f) < 0)
			rc = -1;
	}
	members_free(&ms);
	if (rc == 0 && *n == first)
		rc = foreign ? ckpt_sniff_named(shown, foreign)
		             : ckpt_seterr("%s: the archive holds no checkpoint", shown);
	if (rc < 0)
		while (*n > first)
			ckpt_close((*files)[--*n]);
	return rc;
}

static struct archive *new_reader(void)
{
	struct archive *a = archive_read_new();

	if (a) {
		archive_read_support_filter_all(a);
		/* tar and zip only: "all" would take text files for mtree */
		archive_read_support_format_tar(a);
		archive_read_support_format_gnutar(a);
		archive_read_support_format_zip(a);
	}
	return a;
}

/* The archive at path, or in mem (size bytes) shown as shown. */
static int open_archive(const char *path, const char *shown, const void *mem, size_t size,
                        ckpt_file ***files, size_t *n)
{
	struct archive *a = new_reader();
	int rc;

	if (!a)
		return ckpt_seterr("out of memory");
	rc = mem ? archive_read_open_memory(a, mem, size)
	         : archive_read_open_filename(a, path, 1 << 16);
	if (rc != ARCHIVE_OK) {
		rc = archive_errno(a) == ENOENT || archive_errno(a) == EACCES
		         ? ckpt_seterr("%s: %s", shown, strerror(archive_errno(a)))
		         : ckpt_seterr("%s: not an HDF5 or safetensors file, nor a readable "
		                       "tar or zip archive (%s)", shown, archive_error_string(a));
	} else {
		rc = open_members(a, shown, files, n);
	}
	archive_read_free(a);
	return rc;
}

static int is_json(const char *path)
{
	char head[64];
	int fd = open(path, O_RDONLY);
	ssize_t got = fd < 0 ? -1 : read(fd, head, sizeof head);

	if (fd >= 0)
		close(fd);
	return got > 0 && ckpt_looks_like_json(head, (size_t)got);
}

/* A shard map (Keras' NAME.weights.json) is one checkpoint, its shards'
 * union.  Maps are small: a line per layer. */
#define MAX_MAP_BYTES (256u << 20)

static int open_shard_map(const char *path, ckpt_file ***files, size_t *n)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	void *text;
	size_t len;
	ckpt_file *f;

	if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_size > MAX_MAP_BYTES) {
		close(fd);
		return ckpt_seterr("%s: not HDF5, and too large for a shard map (%ju bytes; "
		                   "at most %u)", path, (uintmax_t)st.st_size, MAX_MAP_BYTES);
	}
	if (fd < 0 || ckpt_read_stream(fd, &text, &len) < 0) {
		if (fd >= 0)
			close(fd);
		return ckpt_seterr_errno(path);
	}
	close(fd);
	f = ckpt_keras_shards_open(path, text, len);
	free(text);
	return f ? append(files, n, f) : -1;
}

/* Standard input, or a pipe given by name (<(cat f.h5)): read into
 * memory, as HDF5 and safetensors need to seek.  In an MPI run it reaches
 * rank 0 only, which reads it and gives every rank the bytes. */
static int read_stream(const char *path, const char *shown, void **buf, size_t *size)
{
	uint64_t len = 0;
	int ok = 1, fd = 0;

	*buf = NULL;
	*size = 0;
	if (ckpt_par_rank() == 0 && path && (fd = open(path, O_RDONLY)) < 0)
		ok = ckpt_seterr_errno(shown) + 1;
	else if (ckpt_par_rank() == 0 && ckpt_read_stream(fd, buf, size) < 0)
		ok = ckpt_seterr_errno(shown) + 1;
	if (path && fd > 0)
		close(fd);
	if (ckpt_par_size() == 1)
		return ok ? 0 : -1;
	len = *size;
	if (ckpt_par_bcast(&len, sizeof len) < 0)
		return ok ? ckpt_seterr("%s: %s", shown, ckpt_errmsg()) : -1;
	if (ckpt_par_rank() != 0 && !(*buf = malloc(len ? (size_t)len : 1)))
		ok = ckpt_seterr("%s: out of memory", shown) + 1;
	*size = (size_t)len;
	for (size_t at = 0; ok && at < *size; at += 1u << 30) {
		size_t part = *size - at < (1u << 30) ? *size - at : (1u << 30);

		if (ckpt_par_bcast((char *)*buf + at, part) < 0)
			ok = ckpt_seterr("%s: %s", shown, ckpt_errmsg()) + 1;
	}
	if (!ok) {
		free(*buf);
		*buf = NULL;
	}
	return ok ? 0 : -1;
}

/* What identifies the file under path on one machine: size, modification
 * time, and a digest (FNV-1a) of its first and last 64 KiB. */
struct file_sig {
	uint64_t size, sec, nsec, digest;
};

static void digest_at(int fd, off_t at, uint64_t *h)
{
	static unsigned char buf[1 << 16];
	ssize_t got = pread(fd, buf, sizeof buf, at);

	for (ssize_t i = 0; i < got; i++)
		*h = (*h ^ buf[i]) * 0x100000001b3u;
}

static void file_sig(const char *path, struct file_sig *s)
{
	int fd = open(path, O_RDONLY);
	struct stat st;

	memset(s, 0, sizeof *s);
	s->size = UINT64_MAX; /* not there */
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0) {
		s->size = (uint64_t)st.st_size;
		s->sec = (uint64_t)st.st_mtim.tv_sec;
		s->nsec = (uint64_t)st.st_mtim.tv_nsec;
		s->digest = 0xcbf29ce484222325u;
		digest_at(fd, 0, &s->digest);
		if (st.st_size > 1 << 16)
			digest_at(fd, st.st_size - (1 << 16), &s->digest);
	}
	close(fd);
}

/* Under MPI every rank must read the same file under path (the disks of
 * nodes may differ): its signature is compared with rank 0's.  A rank
 * that differs returns its own error for the program to report (par.h);
 * the others agree on it.  Collective. */
static int same_on_every_rank(const char *path)
{
	struct file_sig mine, first;

	if (!ckpt_par_on() || strcmp(path, "-") == 0)
		return 0;
	file_sig(path, &mine);
	first = mine;
	if (ckpt_par_bcast(&first, sizeof first) < 0)
		return -1;
	if (memcmp(&first, &mine, sizeof mine) != 0)
		return ckpt_seterr("%s: rank %d sees another file under this name than rank 0 "
		                   "(%s differ): every rank must read the same inputs", path,
		                   ckpt_par_rank(),
		                   first.size != mine.size ? "sizes"
		                   : first.digest != mine.digest ? "contents" : "modification times");
	return ckpt_par_all_ok(1) ? 0 : ckpt_seterr("%s: stopped: another rank failed", path);
}

/* A pipe or a device: read as a stream (it cannot seek) */
static int is_stream(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) ||
	                                 S_ISSOCK(st.st_mode));
}

int ckpt_open_inputs(const char *path, ckpt_file ***files, size_t *n)
{
	ckpt_file *f;

	if (same_on_every_rank(path) < 0)
		return -1;
	if (strcmp(path, "-") == 0 || is_stream(path)) {
		int std = strcmp(path, "-") == 0;
		const char *shown = std ? "(stdin)" : path;
		void *buf;
		size_t size;
		int rc;

		if (read_stream(std ? NULL : path, shown, &buf, &size) < 0)
			return -1;
		if (size == 0 || image_is_checkpoint(buf, size)) {
			if (size == 0) {
				free(buf);
				return ckpt_seterr("%s: empty input, not a checkpoint", shown);
			}
			f = ckpt_open_image(shown, buf, size);
			return f ? append(files, n, f) : -1;
		}
		rc = ckpt_sniff_image(shown, buf, size) < 0
		         ? -1 : open_archive(NULL, shown, buf, size, files, n);
		free(buf);
		return rc;
	}
	if (!path_is_checkpoint(path))
		return ckpt_sniff_path(path) < 0 ? -1
		       : is_json(path)           ? open_shard_map(path, files, n)
		                                 : open_archive(path, path, NULL, 0, files, n);
	f = ckpt_open(path);
	return f ? append(files, n, f) : -1;
}

void ckpt_close_inputs(ckpt_file **files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ckpt_close(files[i]);
	free(files);
}
