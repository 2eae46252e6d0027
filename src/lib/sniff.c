/* sniff.c - the formats ckpt does not read, named: a file's or an
 * image's first and last bytes, a directory, an archive's members, looked
 * at by the format table's named-only entries (foreign.c). */
#include "sniff.h"
#include "err.h"
#include "format.h"
#include "wrap.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READS "ckpt reads HDF5 (h5py, Keras), .keras archives, safetensors, TensorFlow bundles and PyTorch files"

const char *ckpt_sniff_members(const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (ckpt_torch_member(names[i]))
			return "an archive holding a PyTorch file's members (ckpt reads the PyTorch "
			       "file itself)";
		if (ckpt_name_ends(names[i], ".npy"))
			return ckpt_format_npz.name;
	}
	return NULL;
}

const char *ckpt_sniff(const unsigned char *h, size_t n, const unsigned char *tail,
                       const char *name)
{
	return ckpt_format_unread(&(struct ckpt_probe){.head = h, .n = n, .fd = -1,
	                                                .tail = tail, .name = name});
}

int ckpt_sniff_named(const char *shown, const char *what)
{
	return what ? ckpt_seterr("%s: %s; " READS, shown, what) : 0;
}

int ckpt_sniff_image(const char *shown, const void *buf, size_t size)
{
	const unsigned char *b = buf;

	return ckpt_sniff_named(shown, ckpt_sniff(b, size < 512 ? size : 512,
	                                          size >= 8 ? b + size - 8 : NULL, NULL));
}

static int sniff_dir(const char *path)
{
	char pb[4096];
	struct stat st;
	int there = snprintf(pb, sizeof pb, "%s/saved_model.pb", path) < (int)sizeof pb &&
	            stat(pb, &st) == 0;

	return ckpt_sniff_named(path, there ? "a TensorFlow SavedModel directory (its "
	                                      "weights are in variables/variables.index)"
	                                    : NULL);
}

int ckpt_sniff_path(const char *path)
{
	unsigned char head[512], tail[8];
	struct stat st;
	ssize_t got = -1;
	int fd, have_tail = 0;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return sniff_dir(path);
	if ((fd = open(path, O_RDONLY)) < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		got = pread(fd, head, sizeof head, 0);
		have_tail = st.st_size >= 8 && pread(fd, tail, 8, st.st_size - 8) == 8;
	}
	close(fd);
	return got < 0 ? 0
	               : ckpt_sniff_named(path, ckpt_sniff(head, (size_t)got,
	                                                   have_tail ? tail : NULL, path));
}
