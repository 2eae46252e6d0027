/* sniff.c - the formats ckpt does not read, named. */
#include "sniff.h"
#include "err.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READS "ckpt reads HDF5 (h5py, Keras), .keras archives and safetensors"

static int ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* NAME.data-00000-of-00001 */
static int tf_data_name(const char *name)
{
	const char *d = name ? strstr(name, ".data-") : NULL;
	unsigned a, b;
	int end = 0;

	return d && sscanf(d, ".data-%5u-of-%5u%n", &a, &b, &end) == 2 && d[end] == '\0';
}

/* A zip's first member, from its local header */
static const char *zip_first_member(const unsigned char *h, size_t n, char *out, size_t cap)
{
	size_t len;

	if (n < 30 || memcmp(h, "PK\3\4", 4) != 0)
		return NULL;
	len = (size_t)h[26] | (size_t)h[27] << 8;
	if (len == 0 || len >= cap || 30 + len > n)
		return NULL;
	memcpy(out, h + 30, len);
	out[len] = '\0';
	return out;
}

static const char *member_format(const char *m)
{
	if (ends_with(m, "/data.pkl") || strcmp(m, "data.pkl") == 0 || ends_with(m, "/.format_version") ||
	    ends_with(m, "/byteorder"))
		return "a PyTorch checkpoint (a torch.save zip)";
	if (ends_with(m, ".npy"))
		return "a NumPy .npz archive";
	return NULL;
}

const char *ckpt_sniff_members(const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (member_format(names[i]))
			return member_format(names[i]);
	return NULL;
}

/* torch.save's legacy magic number, 0x1950a86a20f9469cfc6c, as pickle's
 * LONG1 opcode writes it after the protocol 2 header */
static const unsigned char torch_legacy[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc,
                                             0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8};
/* the footer magic of TensorFlow's table files (a bundle's .index) */
static const unsigned char tf_table[] = {0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb};

/* ONNX's ModelProto begins with ir_version (field 1, a varint), then
 * producer_name (2), graph (7) or opset_import (8) */
static int onnx_like(const unsigned char *h, size_t n)
{
	return n >= 3 && h[0] == 0x08 && h[1] > 0 && h[1] < 0x20 &&
	       (h[2] == 0x12 || h[2] == 0x3a || h[2] == 0x42);
}

const char *ckpt_sniff(const unsigned char *h, size_t n, const unsigned char *tail,
                       const char *name)
{
	char member[256];
	const char *m = zip_first_member(h, n, member, sizeof member);

	if (m)
		return member_format(m);
	if (n >= sizeof torch_legacy && !memcmp(h, torch_legacy, sizeof torch_legacy))
		return "a legacy PyTorch checkpoint (torch.save before 1.6)";
	if (n >= 2 && h[0] == 0x80 && h[1] >= 2 && h[1] <= 5)
		return "a Python pickle (a legacy PyTorch checkpoint?)";
	if (n >= 6 && !memcmp(h, "\x93NUMPY", 6))
		return "a NumPy .npy array";
	if (n >= 4 && !memcmp(h, "GGUF", 4))
		return "a GGUF model (llama.cpp)";
	if (n >= 8 && !memcmp(h + 4, "TFL3", 4))
		return "a TensorFlow Lite model";
	if ((tail && !memcmp(tail, tf_table, sizeof tf_table)) || ends_with(name, ".index"))
		return "a TensorFlow checkpoint index (NAME.index of a bundle with NAME.data-*)";
	if (tf_data_name(name))
		return "a TensorFlow checkpoint data shard (its NAME.index lists what it holds)";
	if (ends_with(name, "saved_model.pb"))
		return "a TensorFlow SavedModel graph (its weights are in variables/variables.index)";
	if (ends_with(name, ".onnx") || onnx_like(h, n))
		return "an ONNX model";
	return NULL;
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
