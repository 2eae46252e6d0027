/* select.c - shared name selection and mapping. */
#include "select.h"
#include "err.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

void ckpt_select_init(ckpt_select *s)
{
	memset(s, 0, sizeof *s);
}

void ckpt_select_free(ckpt_select *s)
{
	free(s->only);
	free(s->exclude);
	ckpt_select_init(s);
}

static int append(const char ***list, size_t *n, const char *glob)
{
	const char **nl = realloc(*list, (*n + 1) * sizeof *nl);

	if (!nl)
		return ckpt_seterr("out of memory");
	nl[(*n)++] = glob;
	*list = nl;
	return 0;
}

int ckpt_select_only(ckpt_select *s, const char *glob)
{
	return append(&s->only, &s->nonly, glob);
}

int ckpt_select_exclude(ckpt_select *s, const char *glob)
{
	return append(&s->exclude, &s->nexclude, glob);
}

char *ckpt_select_map(const ckpt_select *s, const char *name)
{
	const char *add = s->add_prefix ? s->add_prefix : "";
	size_t plen = s->strip_prefix ? strlen(s->strip_prefix) : 0;
	char *out;

	if (plen && strncmp(name, s->strip_prefix, plen) == 0)
		name += plen;
	if (!(out = malloc(strlen(add) + strlen(name) + 1)))
		return NULL;
	strcpy(out, add);
	strcat(out, name);
	return out;
}

static int any_match(const char **globs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return 1;
	return 0;
}

int ckpt_select_match(const ckpt_select *s, const char *mapped)
{
	if (s->nonly && !any_match(s->only, s->nonly, mapped))
		return 0;
	return !any_match(s->exclude, s->nexclude, mapped);
}
