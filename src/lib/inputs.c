/* inputs.c - HDF5 files, stdin and archives as inputs. */
#include "inputs.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

/* Whether path is to be opened as HDF5, not as an archive: also when it is
 * no regular file, or too small to be an archive, so that ckpt_open() says
 * what is wrong with it. */
static int path_is_hdf5(const char *path)
{
	int fd = open(path, O_RDONLY), yes;
	struct stat st;

	if (fd < 0)
		return 1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 8)
		yes = 1;
	else
		yes = ckpt_fd_is_hdf5(fd, (uint64_t)st.st_size);
	close(fd);
	return yes;
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

/* Each HDF5 member of the archive, in order; the other members (Keras'
 * config.json, metadata.json) are skipped. */
static int open_members(struct archive *a, const char *shown, ckpt_file ***files,
                        size_t *n)
{
	struct archive_entry *e;
	size_t first = *n;
	int r;

	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *member = archive_entry_pathname(e);
		char *name;
		void *buf = NULL;
		size_t size = 0;
		ckpt_file *f;

		if (archive_entry_filetype(e) != AE_IFREG)
			continue;
		if (!(name = malloc(strlen(shown) + strlen(member ? member : "?") + 2)))
			return ckpt_seterr("out of memory");
		sprintf(name, "%s:%s", shown, member ? member : "?");
		if (read_member(a, name, &buf, &size) < 0) {
			free(name);
			goto fail;
		}
		if (!ckpt_image_is_hdf5(buf, size)) {
			free(buf);
			free(name);
			continue;
		}
		f = ckpt_open_image(name, buf, size);
		free(name);
		if (!f || append(files, n, f) < 0)
			goto fail;
	}
	if (r != ARCHIVE_EOF) {
		ckpt_seterr("%s: damaged archive (%s)", shown, archive_error_string(a));
		goto fail;
	}
	if (*n == first)
		return ckpt_seterr("%s: the archive holds no HDF5 file", shown);
	return 0;
fail:
	while (*n > first)
		ckpt_close((*files)[--*n]);
	return -1;
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

static int open_archive(const char *path, const void *mem, size_t size,
                        ckpt_file ***files, size_t *n)
{
	struct archive *a = new_reader();
	const char *shown = mem ? "(stdin)" : path;
	int rc;

	if (!a)
		return ckpt_seterr("out of memory");
	rc = mem ? archive_read_open_memory(a, mem, size)
	         : archive_read_open_filename(a, path, 1 << 16);
	if (rc != ARCHIVE_OK) {
		rc = archive_errno(a) == ENOENT || archive_errno(a) == EACCES
		         ? ckpt_seterr("%s: %s", shown, strerror(archive_errno(a)))
		         : ckpt_seterr("%s: not an HDF5 file, nor a readable tar or zip "
		                       "archive (%s)", shown, archive_error_string(a));
	} else {
		rc = open_members(a, shown, files, n);
	}
	archive_read_free(a);
	return rc;
}

int ckpt_open_inputs(const char *path, ckpt_file ***files, size_t *n)
{
	ckpt_file *f;

	if (strcmp(path, "-") == 0) {
		void *buf;
		size_t size;
		int rc;

		if (ckpt_read_stream(0, &buf, &size) < 0)
			return ckpt_seterr_errno("(stdin)");
		if (size == 0 || ckpt_image_is_hdf5(buf, size)) {
			if (size == 0) {
				free(buf);
				return ckpt_seterr("(stdin): empty input, not an HDF5 file");
			}
			f = ckpt_open_image("(stdin)", buf, size);
			return f ? append(files, n, f) : -1;
		}
		rc = open_archive(NULL, buf, size, files, n);
		free(buf);
		return rc;
	}
	if (!path_is_hdf5(path))
		return open_archive(path, NULL, 0, files, n);
	f = ckpt_open(path);
	return f ? append(files, n, f) : -1;
}

void ckpt_close_inputs(ckpt_file **files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ckpt_close(files[i]);
	free(files);
}
