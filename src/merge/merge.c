/* merge.c - ckpt-merge's main job: BASE with variables set from SOURCEs. */
#include "merge/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct merge_options *opt;

/* ---- merging: when nothing matches, a hint ------------------------------ */

/* The first path component of name, with its '/'; "" if none. */
static size_t first_component(const char *name)
{
	const char *slash = strchr(name, '/');

	return slash ? (size_t)(slash - name) + 1 : 0;
}

/* name without "_<digits>" at the end of each component, in buf. */
static void without_suffixes(const char *name, char *buf, size_t size)
{
	size_t o = 0;

	for (const char *p = name; *p && o + 1 < size; p++) {
		if (*p == '_' && p[1] >= '0' && p[1] <= '9') {
			const char *q = p + 1;

			while (*q >= '0' && *q <= '9')
				q++;
			if (*q == '/' || *q == 0 || *q == ':') {
				p = q - 1;
				continue;
			}
		}
		buf[o++] = *p;
	}
	buf[o] = 0;
}

/* A hint for sources whose names miss base's: a prefix to strip or to
 * add, or a "_1"-style suffix to rename. */
static void find_hint(const ckpt_file *base, const ckpt_file *src, char *hint, size_t size)
{
	char a[512], b[512];

	*hint = 0;
	for (size_t i = 0; i < src->nvars; i++) {
		char *m = ckpt_select_map(&opt->sel, src->vars[i].name);
		size_t pl = m ? first_component(m) : 0;

		if (!m)
			continue;
		if (pl && ckpt_find(base, m + pl)) {
			snprintf(hint, size, "; try --strip-prefix '%.*s'", (int)pl, m);
			free(m);
			return;
		}
		for (size_t j = 0; j < base->nvars; j++) {
			const char *bn = base->vars[j].name;
			size_t bl = first_component(bn);

			if (bl && strcmp(bn + bl, m) == 0) {
				snprintf(hint, size, "; try --add-prefix '%.*s'", (int)bl, bn);
				free(m);
				return;
			}
			without_suffixes(m, a, sizeof a);
			without_suffixes(bn, b, sizeof b);
			if (strcmp(a, b) == 0) {
				size_t k = 0; /* the first component where they differ */

				for (size_t x = 0; m[x] && m[x] == bn[x]; x++)
					if (m[x] == '/')
						k = x + 1;
				const char *ms = strchr(m + k, '/'), *bs = strchr(bn + k, '/');
				if (ms && bs)
					snprintf(hint, size, "; try --rename '%.*s/*=%.*s/*'",
					         (int)(ms - m), m, (int)(bs - bn), bn);
				else
					snprintf(hint, size, "; try --rename '%s=%s'", m, bn);
				free(m);
				return;
			}
		}
		free(m);
	}
}

/* A few names of f, quoted, for a message. */
static void some_names(const ckpt_file *f, char *buf, size_t size)
{
	size_t o = 0;

	*buf = 0;
	for (size_t i = 0; i < f->nvars && i < 3 && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s'%s'", i ? ", " : "",
		                      f->vars[i].name);
	if (f->nvars > 3 && o < size)
		snprintf(buf + o, size - o, ", ...");
	if (f->nvars == 0)
		snprintf(buf, size, "no variables");
}

_Noreturn static void nothing_matches(const struct merge_plan *p)
{
	char sn[400], bn[400], hint[600];

	some_names(p->src[0], sn, sizeof sn);
	some_names(p->base, bn, sizeof bn);
	find_hint(p->base, p->src[0], hint, sizeof hint);
	die("no variable of %s%s matches one of %s (%s has %s; %s has %s)%s",
	    p->src[0]->name, p->nsrc > 1 ? " or the other SOURCEs" : "", p->base->name,
	    p->src[0]->name, sn, p->base->name, bn, hint);
}

/* ---- merging: writing ---------------------------------------------------- */

static ckpt_copy_action decide(const ckpt_var *v, ckpt_copy_spec *spec, void *user)
{
	const struct merge_plan *p = user;

	spec->keep_storage = opt->keep_storage;
	return p->from[v - p->base->vars].v ? CKPT_COPY_EMPTY : CKPT_COPY_WHOLE;
}

/* Variable b of the output takes the values of the SOURCE's variable. */
static void fill_var(ckpt_out *o, const ckpt_var *b, const struct pick *pk, ckpt_file **src)
{
	const ckpt_var *v = pk->v;
	int convert = v->dtype != b->dtype;
	ckpt_outvar *ov;
	void *buf = NULL;
	size_t bad = 0;
	ckpt_region r;
	ckpt_slab s;
	int rc, counted = 0;

	if (!convert && (rc = ckpt_copy_ref_values(src[pk->src], v, o, b->name)) != 0) {
		if (rc < 0)
			die_lib();
		return;
	}
	if (ckpt_slab_open(&s, src[pk->src], v, CKPT_SLAB_BYTES) < 0)
		die_lib();
	/* numbers in the output's memory type: a bfloat16 as Keras stores it
	 * and one as an HDF5 float are the same bytes in memory */
	ov = b->dtype != CKPT_OTHER ? ckpt_outvar_open(o, b->name, b->dtype) :
	     ckpt_outvar_open_like(o, b->name, &s);
	if (!ov)
		die_lib();
	if (convert && !(buf = malloc(s.cap * ckpt_dtype_size(b->dtype) + 1)))
		die("out of memory");
	while ((rc = ckpt_slab_next(&s)) > 0) {
		ckpt_slab_region(&s, &r);
		if (convert) {
			bad += ckpt_convert(v->dtype, s.buf, b->dtype, buf, s.count);
			note_changed(b->name, s.start, v->dtype, s.buf, b->dtype, buf, s.count,
			             &counted);
		}
		if (ckpt_outvar_write(ov, &r, convert ? buf : s.buf) < 0)
			die_lib();
	}
	if (rc < 0)
		die_lib();
	if (!opt->quiet)
		warn_out_of_range(b->name, bad, b->dtype);
	ckpt_slab_close(&s);
	ckpt_outvar_close(ov);
	free(buf);
}

static void add_to_output(ckpt_out *o, const struct pick *pk, ckpt_file **src)
{
	if (ckpt_out_make_groups(o, pk->name) < 0)
		die_lib();
	if (ckpt_copy_var(src[pk->src], pk->v, o, pk->name) < 0)
		die("%s (adding it as '%s')", ckpt_errmsg(), pk->name);
}

static void print_plan(const struct merge_plan *p)
{
	for (size_t i = 0; i < p->base->nvars; i++) {
		const struct pick *pk = &p->from[i];

		printf("%s\t%s", p->base->vars[i].name, pk->v ? "replaced" : "kept");
		if (pk->v)
			printf("\t%s\t%s", p->src[pk->src]->name, pk->v->name);
		printf("\n");
	}
	for (size_t i = 0; i < p->nadded; i++)
		printf("%s\tadded\t%s\t%s\n", p->added[i].name, p->src[p->added[i].src]->name,
		       p->added[i].v->name);
}

int merge_mode(const struct merge_options *o, int argc, char **argv)
{
	struct merge_rules rules = {&o->sel, o->cast, o->strict, o->add};
	struct merge_plan p;
	ckpt_file **base = NULL, **src = NULL;
	size_t nbase = 0, nsrc = 0;
	ckpt_out *out;

	opt = o;
	if (ckpt_open_inputs(argv[0], &base, &nbase) < 0)
		die_lib();
	if (nbase != 1)
		die("%s: holds %zu checkpoints; BASE must be one", argv[0], nbase);
	for (int i = 1; i < argc; i++)
		if (ckpt_open_inputs(argv[i], &src, &nsrc) < 0)
			die_lib();
	if (merge_plan_make(&p, &rules, base[0], src, nsrc) < 0)
		die_lib();
	if (p.replaced == 0 && p.nadded == 0)
		nothing_matches(&p);
	if (o->dry_run || o->verbose)
		print_plan(&p);
	if (!o->dry_run) {
		if (!(out = ckpt_out_open(o->out, o->force, p.base)))
			die_lib();
		if (ckpt_copy_structure(p.base, out, decide, &p) < 0)
			die_lib();
		/* every variable made before values are written (safetensors
		 * fixes its layout then) */
		for (size_t i = 0; i < p.nadded; i++)
			add_to_output(out, &p.added[i], src);
		for (size_t i = 0; i < p.base->nvars; i++)
			if (p.from[i].v)
				fill_var(out, &p.base->vars[i], &p.from[i], src);
		if (ckpt_out_commit(out) < 0)
			die_lib();
	}
	if (!o->quiet)
		warn_changed();
	if (!o->quiet)
		warn("%s: %zu variable%s replaced, %zu kept; %zu ignored, %zu added%s",
		     o->dry_run ? "(dry run)" : o->out, p.replaced,
		     p.replaced == 1 ? "" : "s", p.base->nvars - p.replaced, p.ignored,
		     p.nadded, p.ignored && !o->add ? " (--add adds them)" : "");
	merge_plan_free(&p);
	ckpt_close_inputs(src, nsrc);
	ckpt_close_inputs(base, nbase);
	return EXIT_OK;
}
