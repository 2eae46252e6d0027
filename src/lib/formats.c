/* formats.c - the formats ckpt reads and writes, in the order they are
 * tried (a format is one module and one line here). */
#include "format.h"
#include "backend.h"
#include "err.h"
#include "wrap.h"

#define NFORMATS (sizeof formats / sizeof *formats)

static const struct ckpt_format *const formats[] = {
	&ckpt_format_hdf5,
	&ckpt_format_safetensors,
	&ckpt_format_tf,
	&ckpt_format_torch,
	&ckpt_format_npz,
	&ckpt_format_pickle,
	&ckpt_format_npy,
	&ckpt_format_gguf,
	&ckpt_format_tflite,
	&ckpt_format_tf_index,
	&ckpt_format_tf_data,
	&ckpt_format_saved_model,
	&ckpt_format_onnx,
};

void ckpt_init(void)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i]->init)
			formats[i]->init();
}

const struct ckpt_format *ckpt_format_at(size_t i)
{
	return i < NFORMATS ? formats[i] : NULL;
}

static const struct ckpt_format *find(const struct ckpt_probe *p, int readable)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (!formats[i]->open == !readable && formats[i]->probe(p))
			return formats[i];
	return NULL;
}

int ckpt_format_locate(const char *path, char *out, size_t size)
{
	int rc;

	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i]->locate && (rc = formats[i]->locate(path, out, size)) != 0)
			return rc;
	return 0;
}

const struct ckpt_format *ckpt_format_of(const struct ckpt_probe *p)
{
	return find(p, 1);
}

const char *ckpt_format_unread(const struct ckpt_probe *p)
{
	const struct ckpt_format *fmt = find(p, 0);

	return fmt ? fmt->name : NULL;
}

int ckpt_format_no_text(const ckpt_file *f, const char *key, char **text)
{
	(void)f, (void)key;
	*text = NULL;
	return 0;
}

int64_t ckpt_format_no_texts(const ckpt_file *f, ckpt_string_fn put, void *user)
{
	(void)f, (void)put, (void)user;
	return 0;
}

const struct ckpt_format *ckpt_file_fmt(const ckpt_file *f)
{
	return f->backend ? f->backend->format : NULL;
}

const struct ckpt_format *ckpt_format_for_output(const char *target, const ckpt_file *like)
{
	size_t n;
	ckpt_file *const *parts = like ? ckpt_parts(like, &n) : NULL;
	const struct ckpt_format *base = like ? ckpt_file_fmt(parts ? parts[0] : like) : NULL;

	for (size_t i = 0; i < NFORMATS; i++)
		for (const char *const *s = formats[i]->suffixes; target && s && *s; s++)
			if (ckpt_name_ends(target, *s))
				return formats[i];
	return base && base->out_open ? base : formats[0];
}
