/* formats.c - the formats ckpt reads, in the order they are tried (a
 * format is one module and one line here). */
#include "format.h"
#include "backend.h"

static const struct ckpt_format *const formats[] = {
	&ckpt_format_hdf5,
	&ckpt_format_safetensors,
};

const struct ckpt_format *ckpt_format_of(const struct ckpt_probe *p)
{
	for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
		if (formats[i]->probe(p))
			return formats[i];
	return NULL;
}

const struct ckpt_format *ckpt_file_fmt(const ckpt_file *f)
{
	return f->backend ? f->backend->format : NULL;
}
