/* select.c - shared name selection and mapping. */
#include "select.h"
#include "err.h"
#include "file.h"

#include <fnmatch.h>
#include <stdio.h>
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
	free(s->rename);
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

/* "FROM=TO": both exact, or each with one '*'. */
int ckpt_select_rename(ckpt_select *s, const char *spec)
{
	const char *eq = strchr(spec, '='), *star;
	size_t from_stars = 0, to_stars = 0;

	if (!eq || eq == spec || !eq[1] || strchr(eq + 1, '='))
		return ckpt_seterr("--rename '%s': not FROM=TO", spec);
	for (star = spec; star < eq; star++)
		from_stars += *star == '*';
	for (star = eq + 1; *star; star++)
		to_stars += *star == '*';
	if (from_stars > 1 || to_stars > 1 || from_stars != to_stars)
		return ckpt_seterr("--rename '%s': a '*' on each side or on neither", spec);
	return append(&s->rename, &s->nrename, spec);
}

/* Apply the first rename rule that fits name; NULL when none does. */
static char *renamed(const ckpt_select *s, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < s->nrename; i++) {
		const char *r = s->rename[i], *eq = strchr(r, '='), *star = memchr(r, '*', (size_t)(eq - r));
		const char *to = eq + 1, *tstar = strchr(to, '*');
		size_t pre = star ? (size_t)(star - r) : (size_t)(eq - r);
		size_t suf = star ? (size_t)(eq - star - 1) : 0, mid;
		char *out;

		if (!star) {
			if (n == pre && strncmp(name, r, pre) == 0)
				return strdup(to);
			continue;
		}
		if (n < pre + suf || strncmp(name, r, pre) != 0 ||
		    strncmp(name + n - suf, star + 1, suf) != 0)
			continue;
		mid = n - pre - suf;
		if (!(out = malloc(strlen(to) + mid + 1)))
			return NULL;
		sprintf(out, "%.*s%.*s%s", (int)(tstar - to), to, (int)mid, name + pre, tstar + 1);
		return out;
	}
	return NULL;
}

char *ckpt_select_map(const ckpt_select *s, const char *name)
{
	const char *add = s->add_prefix ? s->add_prefix : "";
	size_t plen = s->strip_prefix ? strlen(s->strip_prefix) : 0;
	char *out, *r;

	if (plen && strncmp(name, s->strip_prefix, plen) == 0)
		name += plen;
	if (!(out = malloc(strlen(add) + strlen(name) + 1)))
		return NULL;
	strcpy(out, add);
	strcat(out, name);
	if (s->nrename && (r = renamed(s, out))) {
		free(out);
		out = r;
	}
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

/* ---- names that cannot live in one file ----------------------------------- */

struct indexed {
	const char *name;
	size_t i;
};

/* Byte order with '/' first: the names inside a group ("w/...") sort right
 * after the group's own name ("w"), before "w-a" or "w0". */
static int path_order(const void *pa, const void *pb)
{
	const struct indexed *a = pa, *b = pb;
	const unsigned char *x = (const unsigned char *)a->name;
	const unsigned char *y = (const unsigned char *)b->name;

	for (; *x && *x == *y; x++, y++)
		;
	if (*x == *y)
		return a->i < b->i ? -1 : a->i > b->i;
	if (!*x || !*y)
		return *x ? 1 : -1;
	return *x == '/' ? -1 : *y == '/' ? 1 : *x - *y;
}

static int inside(const char *group, const char *name)
{
	size_t n = strlen(group);

	return strncmp(group, name, n) == 0 && name[n] == '/';
}

int ckpt_names_clash(const char *const *names, size_t n, size_t *first, size_t *second)
{
	struct indexed *s = malloc((n ? n : 1) * sizeof *s);
	int kind = CKPT_NAMES_OK;

	if (!s)
		return ckpt_seterr("out of memory");
	for (size_t i = 0; i < n; i++)
		s[i] = (struct indexed){names[i], i};
	qsort(s, n, sizeof *s, path_order);
	for (size_t k = 1; k < n && kind == CKPT_NAMES_OK; k++) {
		if (strcmp(s[k - 1].name, s[k].name) == 0)
			kind = CKPT_NAMES_TWICE;
		else if (inside(s[k - 1].name, s[k].name))
			kind = CKPT_NAMES_NESTED;
		else
			continue;
		*first = s[k - 1].i;
		*second = s[k].i;
	}
	free(s);
	return kind;
}

/* ---- a checkpoint's variables under their mapped names ----------------- */

/* The message for two selected variables, a and b (positions in f), whose
 * names (the same, or b's inside a's) cannot both be in one file. */
static int refuse_clash(const ckpt_file *f, int kind, size_t a, size_t b,
                        char *const *names)
{
	const char *an = f->vars[a].name, *bn = f->vars[b].name;
	int renamed = strcmp(an, names[a]) != 0;

	if (kind == CKPT_NAMES_TWICE)
		return ckpt_seterr("%s: variables '%s' and '%s' would both be called '%s': "
		                   "check --strip-prefix, --add-prefix and --rename",
		                   f->name, an, bn, names[a]);
	return ckpt_seterr("%s: variable '%s' would be called '%s', inside variable "
	                   "'%s'%s%s%s, which cannot also be a group: check "
	                   "--strip-prefix, --add-prefix and --rename", f->name, bn,
	                   names[b], an, renamed ? " (called '" : "",
	                   renamed ? names[a] : "", renamed ? "')" : "");
}

void ckpt_select_names_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

char **ckpt_select_names(const ckpt_select *s, const ckpt_file *f, int numeric_only)
{
	char **names = calloc(f->nvars + 1, sizeof *names);
	const char **sel = malloc((f->nvars + 1) * sizeof *sel);
	size_t *at = malloc((f->nvars + 1) * sizeof *at), n = 0, x, y;
	int kind = -1;

	if (!names || !sel || !at)
		goto oom;
	for (size_t i = 0; i < f->nvars; i++) {
		if (numeric_only && f->vars[i].dtype == CKPT_OTHER)
			continue;
		if (!(names[i] = s ? ckpt_select_map(s, f->vars[i].name) : strdup(f->vars[i].name)))
			goto oom;
		if (s && !ckpt_select_match(s, names[i])) {
			free(names[i]);
			names[i] = NULL;
			continue;
		}
		at[n] = i;
		sel[n++] = names[i];
	}
	if ((kind = ckpt_names_clash(sel, n, &x, &y)) > 0)
		refuse_clash(f, kind, at[x], at[y], names);
	free(sel);
	free(at);
	if (kind == CKPT_NAMES_OK)
		return names;
	ckpt_select_names_free(names, f->nvars);
	return NULL;
oom:
	ckpt_seterr("%s: out of memory", f->name);
	free(sel);
	free(at);
	ckpt_select_names_free(names, f->nvars);
	return NULL;
}
