/* foreign.c - the formats ckpt knows but does not read (yet): entries of
 * the format table (format.h) that only recognise and name themselves, so
 * that an error says what a file is.  TensorFlow's parts, TensorFlow
 * Lite, NumPy, plain pickles, GGUF, ONNX; by content, and by name where the
 * content has no mark. */
#include "format.h"
#include "backend.h"

#include <stdio.h>
#include <string.h>

/* s ends with suffix, or is it ("saved_model.pb" in the directory). */
static int ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The name p's file goes by ends with suffix. */
static int named(const struct ckpt_probe *p, const char *suffix)
{
	return ends_with(p->name, suffix);
}

static int starts(const struct ckpt_probe *p, size_t at, const void *magic, size_t len)
{
	return p->n >= at + len && memcmp(p->head + at, magic, len) == 0;
}

const char *ckpt_probe_zip_first(const struct ckpt_probe *p, char *out, size_t cap)
{
	unsigned char h[30 + 256];
	size_t n = p->n < sizeof h ? p->n : sizeof h, len;

	memcpy(h, p->head, n);
	if (n < sizeof h && p->size > n) { /* (a long name: more bytes) */
		size_t want = p->size < sizeof h ? (size_t)p->size : sizeof h;

		if (p->image)
			memcpy(h, p->image, want), n = want;
		else if (p->fd >= 0 && ckpt_pread_full(p->fd, h, want, 0) == (ptrdiff_t)want)
			n = want;
	}
	if (n < 30 || memcmp(h, "PK\3\4", 4) != 0)
		return NULL;
	len = (size_t)h[26] | (size_t)h[27] << 8;
	if (len == 0 || len >= cap || 30 + len > n)
		return NULL;
	memcpy(out, h + 30, len);
	out[len] = '\0';
	return out;
}

int ckpt_torch_member(const char *m)
{
	return ends_with(m, "/data.pkl") || strcmp(m, "data.pkl") == 0 ||
	       ends_with(m, "/.format_version") || ends_with(m, "/byteorder");
}

static int npz(const struct ckpt_probe *p)
{
	char m[257];

	return ckpt_probe_zip_first(p, m, sizeof m) && ends_with(m, ".npy");
}

static int pickle(const struct ckpt_probe *p)
{
	return p->n >= 2 && p->head[0] == 0x80 && p->head[1] >= 2 && p->head[1] <= 5;
}

static int npy(const struct ckpt_probe *p)
{
	return starts(p, 0, "\x93NUMPY", 6);
}

static int gguf(const struct ckpt_probe *p)
{
	return starts(p, 0, "GGUF", 4);
}

static int tflite(const struct ckpt_probe *p)
{
	return starts(p, 4, "TFL3", 4);
}

/* NAME.index that is no table (tfbundle.c reads those that end in the
 * table's footer) */
static int tf_index(const struct ckpt_probe *p)
{
	return named(p, ".index");
}

/* NAME.data-00000-of-00001 */
static int tf_data(const struct ckpt_probe *p)
{
	const char *d = p->name ? strstr(p->name, ".data-") : NULL;
	unsigned a, b;
	int end = 0;

	return d && sscanf(d, ".data-%5u-of-%5u%n", &a, &b, &end) == 2 && d[end] == '\0';
}

static int saved_model(const struct ckpt_probe *p)
{
	return named(p, "saved_model.pb");
}

/* ONNX's ModelProto begins with ir_version (field 1, a varint), then
 * producer_name (2), graph (7) or opset_import (8) */
static int onnx(const struct ckpt_probe *p)
{
	const unsigned char *h = p->head;

	return named(p, ".onnx") || (p->n >= 3 && h[0] == 0x08 && h[1] > 0 && h[1] < 0x20 &&
	                             (h[2] == 0x12 || h[2] == 0x3a || h[2] == 0x42));
}

#define NAMED(id, fn, what) const struct ckpt_format id = {.name = what, .probe = fn}

NAMED(ckpt_format_npz, npz, "a NumPy .npz archive");
NAMED(ckpt_format_pickle, pickle, "a Python pickle, not one torch.save wrote");
NAMED(ckpt_format_npy, npy, "a NumPy .npy array");
NAMED(ckpt_format_gguf, gguf, "a GGUF model (llama.cpp)");
NAMED(ckpt_format_tflite, tflite, "a TensorFlow Lite model");
NAMED(ckpt_format_tf_index, tf_index,
      "named like a TensorFlow checkpoint index, but without the table footer an index "
      "ends in (truncated?)");
NAMED(ckpt_format_tf_data, tf_data,
      "a TensorFlow checkpoint data shard (its NAME.index lists what it holds)");
NAMED(ckpt_format_saved_model, saved_model,
      "a TensorFlow SavedModel graph (its weights are in variables/variables.index)");
NAMED(ckpt_format_onnx, onnx, "an ONNX model");
