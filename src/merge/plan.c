/* plan.c - the plan of a merge: which variable of the output comes from
 * which SOURCE, under which name.  Library-like: errors are returned with
 * a message (ckpt_seterr), never printed, so that tests/unit can check it. */
#include "merge/merge.h"

#include <stdlib.h>
#include <string.h>

/* Added variables must fit beside BASE's: not inside one of them, nor
 * around them. */
static int check_added(const struct merge_plan *p)
{
	size_t nb = p->base->nvars, x, y;
	const char **names = malloc((nb + p->nadded + 1) * sizeof *names);
	int kind;

	if (!names)
		return ckpt_seterr("out of memory");
	for (size_t i = 0; i < nb; i++)
		names[i] = p->base->vars[i].name;
	for (size_t i = 0; i < p->nadded; i++)
		names[nb + i] = p->added[i].name;
	kind = ckpt_names_clash(names, nb + p->nadded, &x, &y);
	if (kind == CKPT_NAMES_NESTED && y >= nb) {
		const struct pick *pk = &p->added[y - nb];
		const ckpt_file *of = x < nb ? p->base : p->src[p->added[x - nb].src];

		kind = ckpt_seterr("%s: variable '%s' cannot be added as '%s': inside "
		                   "variable '%s' (of %s), which cannot also be a group",
		                   p->src[pk->src]->name, pk->v->name, pk->name, names[x],
		                   of->name);
	} else if (kind == CKPT_NAMES_NESTED) {
		const struct pick *pk = &p->added[x - nb];

		kind = ckpt_seterr("%s: variable '%s' cannot be added as '%s': variable "
		                   "'%s' of %s lies inside it, and it cannot be a group",
		                   p->src[pk->src]->name, pk->v->name, pk->name, names[y],
		                   p->base->name);
	}
	free(names);
	return kind < 0 ? -1 : 0;
}

/* Whether SOURCE f's variable v can give its values to BASE's b. */
static int check_fit(const struct merge_plan *p, const struct merge_rules *r,
                     const ckpt_file *f, const ckpt_var *v, const ckpt_var *b)
{
	char sa[256], sb[256];

	if (!ckpt_same_shape(v, b))
		return ckpt_seterr("%s: variable '%s' has shape %s, %s has %s", f->name,
		                   v->name, ckpt_shape_str(v, sa, sizeof sa), p->base->name,
		                   ckpt_shape_str(b, sb, sizeof sb));
	if (strcmp(v->type, b->type) == 0)
		return 0;
	if (v->dtype == CKPT_OTHER || b->dtype == CKPT_OTHER)
		return ckpt_seterr("%s: variable '%s' is %s, %s has %s, which cannot be "
		                   "converted", f->name, v->name, v->type, p->base->name,
		                   b->type);
	if (!r->cast)
		return ckpt_seterr("%s: variable '%s' is %s, %s has %s (--cast converts)",
		                   f->name, v->name, v->type, p->base->name, b->type);
	return 0;
}

static int add_var(struct merge_plan *p, size_t k, const ckpt_var *v, char *name)
{
	struct pick *a = realloc(p->added, (p->nadded + 1) * sizeof *a);

	if (!a) {
		free(name);
		return ckpt_seterr("out of memory");
	}
	p->added = a;
	p->added[p->nadded++] = (struct pick){k, v, name};
	return 0;
}

static int by_name_then_place(const void *a, const void *b)
{
	const struct pick *const *x = a, *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);

	return c ? c : *x < *y ? -1 : *x > *y;
}

/* A name added by several SOURCEs: the last one wins, in the place of the
 * first. */
static int one_per_name(struct merge_plan *p)
{
	struct pick **order = malloc((p->nadded + 1) * sizeof *order);
	size_t n = 0;

	if (!order)
		return ckpt_seterr("out of memory");
	for (size_t i = 0; i < p->nadded; i++)
		order[i] = &p->added[i];
	qsort(order, p->nadded, sizeof *order, by_name_then_place);
	for (size_t i = 0, j; i < p->nadded; i = j) {
		for (j = i + 1; j < p->nadded && strcmp(order[i]->name, order[j]->name) == 0; j++) {
			free(order[i]->name);
			order[i]->src = order[j]->src;
			order[i]->v = order[j]->v;
			order[i]->name = order[j]->name;
			order[j]->name = NULL; /* taken */
		}
	}
	for (size_t i = 0; i < p->nadded; i++)
		if (p->added[i].name)
			p->added[n++] = p->added[i];
	p->nadded = n;
	free(order);
	return 0;
}

/* The picks of SOURCE k. */
static int plan_source(struct merge_plan *p, const struct merge_rules *r, size_t k)
{
	const ckpt_file *f = p->src[k];
	char **m = ckpt_select_names(r->sel, f, 0);
	int rc = 0;

	if (!m)
		return -1;
	for (size_t i = 0; i < f->nvars && rc == 0; i++) {
		const ckpt_var *v = &f->vars[i], *b;
		char *name = m[i];

		if (!name)
			continue;
		m[i] = NULL;
		if ((b = ckpt_find(p->base, name))) {
			if ((rc = check_fit(p, r, f, v, b)) == 0)
				p->from[b - p->base->vars] = (struct pick){k, v, NULL};
			free(name);
		} else if (r->strict) {
			rc = ckpt_seterr("%s: variable '%s'%s%s%s is not in %s (--strict)",
			                 f->name, v->name, strcmp(v->name, name) ? " (as '" : "",
			                 strcmp(v->name, name) ? name : "",
			                 strcmp(v->name, name) ? "')" : "", p->base->name);
			free(name);
		} else if (r->add) {
			rc = add_var(p, k, v, name);
		} else {
			p->ignored++;
			free(name);
		}
	}
	ckpt_select_names_free(m, f->nvars);
	return rc;
}

int merge_plan_make(struct merge_plan *p, const struct merge_rules *r,
                    const ckpt_file *base, ckpt_file *const *src, size_t nsrc)
{
	int rc = 0;

	memset(p, 0, sizeof *p);
	p->base = base;
	p->src = src;
	p->nsrc = nsrc;
	if (!(p->from = calloc(base->nvars + 1, sizeof *p->from)))
		return ckpt_seterr("out of memory");
	for (size_t k = 0; k < nsrc && rc == 0; k++)
		rc = plan_source(p, r, k);
	if (rc == 0)
		rc = one_per_name(p);
	if (rc == 0)
		rc = check_added(p);
	for (size_t i = 0; i < base->nvars; i++)
		p->replaced += p->from[i].v != NULL;
	if (rc < 0)
		merge_plan_free(p);
	return rc;
}

void merge_plan_free(struct merge_plan *p)
{
	for (size_t i = 0; i < p->nadded; i++)
		free(p->added[i].name);
	free(p->added);
	free(p->from);
	p->added = p->from = NULL;
	p->nadded = 0;
}
