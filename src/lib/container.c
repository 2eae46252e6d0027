/* container.c - what wrapped a checkpoint, and the parts of a sharded set. */
#include "wrap.h"

#include <stdlib.h>
#include <string.h>

#include <archive_entry.h>
#include <jansson.h>

const char *ckpt_container_kind_name(ckpt_container_kind k)
{
	switch (k) {
	case CKPT_ARCHIVE_MEMBER:
		return "archive member";
	case CKPT_KERAS_ARCHIVE:
		return "keras archive";
	case CKPT_KERAS_SHARDS:
		return "keras shards";
	case CKPT_SAFETENSORS_SHARDS:
		return "safetensors shards";
	case CKPT_TORCH_SHARDS:
		return "pytorch shards";
	default:
		return "file";
	}
}

int ckpt_name_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && strcmp(s + n - m, suffix) == 0;
}

ckpt_container_kind ckpt_container_for_output(const char *path)
{
	if (ckpt_name_ends(path, ".keras"))
		return CKPT_KERAS_ARCHIVE;
	if (ckpt_name_ends(path, ".weights.json"))
		return CKPT_KERAS_SHARDS;
	if (ckpt_name_ends(path, ".safetensors.index.json"))
		return CKPT_SAFETENSORS_SHARDS;
	if (ckpt_name_ends(path, ".bin.index.json"))
		return CKPT_TORCH_SHARDS;
	return CKPT_BARE;
}

int ckpt_container_is_hf(ckpt_container_kind k)
{
	return k == CKPT_SAFETENSORS_SHARDS || k == CKPT_TORCH_SHARDS;
}

int ckpt_container_is_set(ckpt_container_kind k)
{
	return k == CKPT_KERAS_SHARDS || ckpt_container_is_hf(k);
}

void ckpt_wrapping_free(struct ckpt_wrapping *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nmembers; i++) {
		archive_entry_free(w->members[i].entry);
		free(w->members[i].data);
	}
	free(w->members);
	for (size_t i = 0; i < w->nparts; i++) {
		free(w->union_index ? w->union_index[i] : NULL);
		ckpt_close(w->part[i]);
	}
	free(w->union_index);
	free(w->part);
	free(w->var_part);
	free(w->var_index);
	json_decref(w->json);
	free(w);
}

void ckpt_container_free(ckpt_container *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nshards; i++)
		free(c->shards[i]);
	free(c->shards);
	free(c->path);
	free(c->member);
	ckpt_wrapping_free(c->wrapping);
	free(c);
}

static const struct ckpt_wrapping *set_of(const ckpt_file *f)
{
	const ckpt_container *c = f->container;

	return c && ckpt_container_is_set(c->kind) && c->wrapping ? c->wrapping : NULL;
}

size_t ckpt_part_of(const ckpt_file *f, const ckpt_var *v, const ckpt_file **pf,
                    const ckpt_var **pv)
{
	const struct ckpt_wrapping *w = set_of(f);
	size_t i = (size_t)(v - f->vars), p;

	*pf = f;
	*pv = v;
	if (!w || v < f->vars || i >= f->nvars)
		return 0;
	p = w->var_part[i];
	*pf = w->part[p];
	*pv = &w->part[p]->vars[w->var_index[i]];
	return p;
}

ckpt_file *const *ckpt_parts(const ckpt_file *f, size_t *n)
{
	const struct ckpt_wrapping *w = set_of(f);

	*n = w ? w->nparts : 0;
	return w ? w->part : NULL;
}
