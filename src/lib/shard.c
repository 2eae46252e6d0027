/* shard.c - splitting a checkpoint into shards and joining them. */
#include "shard.h"
#include "err.h"
#include "refs.h"
#include "flat.h"
#include "header.h"
#include "fmt.h"
#include "out.h"
#include "outint.h"
#include "h5.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const by_names[] = {"round-robin", "size"};

/* ---- splitting ------------------------------------------------------------ */

/* A variable's size and position, sorted together (qsort has no context
 * argument). */
struct sized {
	uint64_t bytes;
	size_t i;
};

static int larger_first(const void *a, const void *b)
{
	const struct sized *x = a, *y = b;

	return x->bytes != y->bytes ? (x->bytes < y->bytes ? 1 : -1) :
	       (x->i > y->i) - (x->i < y->i);
}

int ckpt_shard_assign(const ckpt_file *f, size_t k, ckpt_shard_by by, size_t *owner)
{
	struct sized *order;
	uint64_t *load;

	for (size_t i = 0; i < f->nvars; i++)
		owner[i] = i % k;
	if (by == CKPT_BY_ROUND_ROBIN)
		return 0;
	order = malloc(f->nvars * sizeof *order + 1);
	load = calloc(k, sizeof *load);
	if (!order || !load) {
		free(order);
		free(load);
		return ckpt_seterr("out of memory");
	}
	for (size_t i = 0; i < f->nvars; i++)
		order[i] = (struct sized){f->vars[i].nbytes, i};
	qsort(order, f->nvars, sizeof *order, larger_first);
	for (size_t i = 0; i < f->nvars; i++) {
		size_t best = 0;

		for (size_t s = 1; s < k; s++)
			if (load[s] < load[best])
				best = s;
		owner[order[i].i] = best;
		load[best] += order[i].bytes;
	}
	free(order);
	free(load);
	return 0;
}

char *ckpt_shard_format(const ckpt_file *f, const size_t *owner, size_t index,
                        size_t k, ckpt_shard_by by)
{
	size_t cap = 128, len;
	char *text = malloc(cap);

	if (!text)
		return NULL;
	len = (size_t)snprintf(text, cap, "#ckpt-shard\t1\tindex=%zu\tcount=%zu\tby=%s\n",
	                       index, k, by_names[by]);
	for (size_t i = 0; i < f->nvars; i++) {
		char *name = ckpt_flat_escape(f->vars[i].name), *nt;
		size_t need = name ? strlen(name) + 24 : 0;

		if (!name)
			goto oom;
		while (len + need >= cap)
			cap *= 2;
		if (!(nt = realloc(text, cap))) {
			free(name);
			goto oom;
		}
		text = nt;
		len += (size_t)sprintf(text + len, "%s\t%zu\n", name, owner[i]);
		free(name);
	}
	return text;
oom:
	free(text);
	return NULL;
}

int ckpt_shard_write_attr(ckpt_out *o, const char *text)
{
	/* a shard without its record could not be joined */
	if (!ckpt_out_holds_texts(o))
		return ckpt_seterr("%s: keeps no shard record (no texts in its format): split "
		                   "into a set instead (-o NAME.safetensors.index.json or "
		                   "NAME.bin.index.json)", ckpt_out_name(o));
	return ckpt_out_set_text(o, CKPT_SHARD_ATTR, text);
}

/* ---- reading ------------------------------------------------------------ */

static char *read_text_attr(const ckpt_file *f)
{
	char *text = NULL;
	int k = ckpt_file_text(f, CKPT_SHARD_ATTR, &text);

	if (k == 0)
		ckpt_seterr("%s: not a shard (no %s attribute; shards are made by "
		            "ckpt-merge --split)", f->name, CKPT_SHARD_ATTR);
	else if (k < 0)
		ckpt_seterr("%s: its %s attribute is not a string", f->name, CKPT_SHARD_ATTR);
	return text;
}

/* A whole number that fits a size_t. */
static int parse_size(const char *s, size_t len, size_t *out)
{
	uint64_t v;

	if (ckpt_scan_u64(s, len, &v) < 0 || v > SIZE_MAX)
		return -1;
	*out = (size_t)v;
	return 0;
}

/* A header value that is a whole number fitting a size_t. */
static int header_size(const ckpt_header *h, const char *key, size_t *out)
{
	size_t vl;
	const char *v = ckpt_header_get(h, key, &vl);

	return v ? parse_size(v, vl, out) : -1;
}

static int parse_header(ckpt_shard_info *info, const char *line, size_t len,
                        const char *what)
{
	ckpt_header h;

	if (ckpt_header_parse(line, len, "shard", &h) != CKPT_HEADER_OK || h.version != 1)
		return ckpt_seterr("%s: its %s attribute is not one this program reads",
		                   what, CKPT_SHARD_ATTR);
	if (header_size(&h, "index", &info->index) < 0 ||
	    header_size(&h, "count", &info->count) < 0 || info->count == 0 ||
	    info->index >= info->count)
		return ckpt_seterr("%s: its %s attribute has no valid index= and count=",
		                   what, CKPT_SHARD_ATTR);
	return 0;
}

int ckpt_shard_parse(const char *text, ckpt_shard_info *info, const char *what)
{
	const char *p, *nl;
	size_t cap = 0, lineno = 1;

	memset(info, 0, sizeof *info);
	if (!(info->text = strdup(text)))
		return ckpt_seterr("out of memory");
	nl = strchr(info->text, '\n');
	if (parse_header(info, info->text, nl ? (size_t)(nl - info->text) :
	                 strlen(info->text), what) < 0)
		goto fail;
	info->body = p = nl ? nl + 1 : info->text + strlen(info->text);
	for (; *p; p = nl + 1) {
		const char *tab;
		size_t owner;

		lineno++;
		if (!(nl = strchr(p, '\n')) || !(tab = memchr(p, '\t', (size_t)(nl - p))) ||
		    parse_size(tab + 1, (size_t)(nl - tab - 1), &owner) < 0 ||
		    owner >= info->count) {
			ckpt_seterr("%s: its %s attribute is malformed at line %zu", what,
			            CKPT_SHARD_ATTR, lineno);
			goto fail;
		}
		if (info->nvars == cap) {
			char **nn;
			size_t *no;

			cap = cap ? 2 * cap : 64;
			nn = realloc(info->names, cap * sizeof *nn);
			if (nn)
				info->names = nn;
			no = realloc(info->owner, cap * sizeof *no);
			if (no)
				info->owner = no;
			if (!nn || !no) {
				ckpt_seterr("out of memory");
				goto fail;
			}
		}
		if (!(info->names[info->nvars] = ckpt_flat_unescape(p, (size_t)(tab - p)))) {
			ckpt_seterr("%s: its %s attribute is malformed at line %zu: %s", what,
			            CKPT_SHARD_ATTR, lineno, ckpt_errmsg());
			goto fail;
		}
		info->owner[info->nvars++] = owner;
	}
	return 0;
fail:
	ckpt_shard_free(info);
	return -1;
}

int ckpt_shard_read(const ckpt_file *f, ckpt_shard_info *info)
{
	char *text = read_text_attr(f);
	int rc;

	memset(info, 0, sizeof *info);
	if (!text)
		return -1;
	rc = ckpt_shard_parse(text, info, f->name);
	free(text);
	return rc;
}

void ckpt_shard_free(ckpt_shard_info *info)
{
	for (size_t i = 0; i < info->nvars; i++)
		free(info->names[i]);
	free(info->names);
	free(info->owner);
	free(info->text);
	memset(info, 0, sizeof *info);
}

/* ---- joining ------------------------------------------------------------ */

int ckpt_shard_check(ckpt_file **shards, ckpt_shard_info *info, size_t n)
{
	size_t k = info[0].count;

	for (size_t i = 1; i < n; i++)
		if (info[i].count != k || strcmp(info[i].body, info[0].body) != 0)
			return ckpt_seterr("%s and %s are shards of different checkpoints "
			                   "(or of different splits)", shards[0]->name,
			                   shards[i]->name);
	/* put each at its index: a selection sort that finds duplicates */
	for (size_t want = 0; want < k; want++) {
		size_t at = n;

		for (size_t i = want; i < n; i++) {
			if (info[i].index != want)
				continue;
			if (at < n)
				return ckpt_seterr("%s and %s are both shard %zu of %zu (shards "
				                   "overlap)", shards[at]->name, shards[i]->name,
				                   want, k);
			at = i;
		}
		if (at == n)
			return ckpt_seterr("shard %zu of %zu is missing", want, k);
		if (at != want) {
			ckpt_file *f = shards[at];
			ckpt_shard_info t = info[at];

			shards[at] = shards[want];
			shards[want] = f;
			info[at] = info[want];
			info[want] = t;
		}
	}
	if (n > k)
		return ckpt_seterr("%s is a second copy of shard %zu of %zu (shards overlap)",
		                   shards[k]->name, info[k].index, k);
	/* each holds its share: no more, no less */
	for (size_t s = 0; s < k; s++) {
		size_t mine = 0;

		for (size_t i = 0; i < info[0].nvars; i++) {
			if (info[0].owner[i] != s)
				continue;
			mine++;
			if (!ckpt_find(shards[s], info[0].names[i]))
				return ckpt_seterr("%s: lacks variable '%s' (shard %zu of %zu "
				                   "holds it)", shards[s]->name, info[0].names[i],
				                   s, k);
		}
		if (shards[s]->nvars != mine)
			return ckpt_seterr("%s: has %zu variables, shard %zu of %zu holds %zu",
			                   shards[s]->name, shards[s]->nvars, s, k, mine);
	}
	return 0;
}

static ckpt_copy_action copy_whole(const ckpt_var *v, ckpt_copy_spec *spec, void *user)
{
	(void)v, (void)spec, (void)user;
	return CKPT_COPY_WHOLE;
}

static int same_obj(const ckpt_obj *a, const ckpt_obj *b)
{
	return a->kind == b->kind && a->kind != CKPT_OBJ_VAR && strcmp(a->path, b->path) == 0;
}

/* Copy the object every shard has next (a group, link or datatype), and
 * step past it everywhere. */
static int copy_common(ckpt_file **shards, size_t k, size_t *cur, hid_t dst)
{
	const ckpt_obj *o;

	/* further names of a variable are only in the shard that holds it */
	for (size_t s = 0; s < k; s++)
		while (cur[s] < shards[s]->nobjs &&
		       shards[s]->objs[cur[s]].kind == CKPT_OBJ_HARDLINK &&
		       shards[s]->objs[cur[s]].target_var >= 0)
			if (ckpt_h5_copy_obj(shards[s], &shards[s]->objs[cur[s]++], dst,
			                     copy_whole, NULL) < 0)
				return -1;
	o = cur[0] < shards[0]->nobjs ? &shards[0]->objs[cur[0]] : NULL;
	if (!o && cur[0] == shards[0]->nobjs)
		return 0; /* only such names were left */

	for (size_t s = 0; s < k; s++)
		if (!o || cur[s] >= shards[s]->nobjs || !same_obj(o, &shards[s]->objs[cur[s]]))
			return ckpt_seterr("%s and %s do not fit together (their groups "
			                   "differ)", shards[0]->name, shards[s]->name);
	for (size_t s = 0; s < k; s++)
		cur[s]++;
	return ckpt_h5_copy_obj(shards[0], o, dst, copy_whole, NULL);
}

static int at_var(const ckpt_file *f, size_t cur, const char *name)
{
	const ckpt_obj *o = cur < f->nobjs ? &f->objs[cur] : NULL;

	return o && o->kind == CKPT_OBJ_VAR && strcmp(f->vars[o->var].name, name) == 0;
}

static ckpt_copy_action copy_none(const ckpt_var *v, ckpt_copy_spec *spec, void *user)
{
	(void)v, (void)spec, (void)user;
	return CKPT_COPY_SKIP;
}

/* Shards without groups, or a file without them: what the first shard
 * holds besides variables (its metadata), then each variable from its
 * shard in the original's order. */
static int join_flat(ckpt_file **shards, const ckpt_shard_info *info, ckpt_out *out)
{
	int rc = ckpt_copy_structure(shards[0], out, copy_none, NULL);

	ckpt_out_unset_text(out, CKPT_SHARD_ATTR);
	for (size_t i = 0; i < info->nvars && rc == 0; i++) {
		const ckpt_file *f = shards[info->owner[i]];
		const ckpt_var *v = ckpt_find(f, info->names[i]);

		rc = v ? ckpt_copy_var(f, v, out, v->name)
		       : ckpt_seterr("%s: variable '%s' is missing", f->name, info->names[i]);
	}
	return rc;
}

int ckpt_shard_join(ckpt_file **shards, const ckpt_shard_info *info, ckpt_out *out)
{
	hid_t dst = ckpt_h5_out_fid(out, NULL);
	size_t k = info->count, *cur, left;
	int rc;

	if (dst < 0 || ckpt_h5_fid(shards[0]) < 0)
		return join_flat(shards, info, out);
	if ((rc = ckpt_h5_copy_root_attrs(shards[0], dst)) < 0)
		return rc;
	ckpt_out_unset_text(out, CKPT_SHARD_ATTR);
	if (!(cur = calloc(k, sizeof *cur)))
		return ckpt_seterr("out of memory");
	/* The shards' walks are the original's, each without the others'
	 * variables: take the next variable from its shard as soon as its
	 * shard has it next, and what all have in common in between. */
	for (size_t i = 0; i < info->nvars && rc == 0; i++) {
		const ckpt_file *f = shards[info->owner[i]];
		size_t *c = &cur[info->owner[i]];

		while (rc == 0 && !at_var(f, *c, info->names[i]))
			rc = copy_common(shards, k, cur, dst);
		if (rc == 0)
			rc = ckpt_h5_copy_obj(f, &f->objs[(*c)++], dst, copy_whole, NULL);
	}
	for (left = shards[0]->nobjs - cur[0]; rc == 0 && left > 0; left--)
		rc = copy_common(shards, k, cur, dst);
	for (size_t s = 0; s < k && rc == 0; s++)
		if (cur[s] != shards[s]->nobjs)
			rc = ckpt_seterr("%s and %s do not fit together (their groups differ)",
			                 shards[0]->name, shards[s]->name);
	for (size_t s = 0; s < k && rc == 0; s++)
		rc = ckpt_h5_copy_refs(shards[s], dst);
	free(cur);
	return rc;
}
