/* outcopy.c - a checkpoint's structure copied into an output (out.h):
 * between files of one format through the format's own copy where it has
 * one (HDF5 into HDF5); else variable by variable; into a format that
 * declares variables with their source (safetensors) what it can hold,
 * the rest named in one warning; a set's metadata as one union. */
#include "err.h"
#include "format.h"
#include "outint.h"
#include "wrap.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The union of a set's metadata, as ckpt_out_set_metadata() makes it. */
struct meta_union {
	json_t *seen;        /* key -> the value kept */
	char *clash;         /* the first key whose values differ */
	int (*put)(const char *key, const char *value, size_t len, void *user);
	void *user;
};

static int meta_take(const char *key, const char *value, size_t len, void *user)
{
	struct meta_union *m = user;
	json_t *had = json_object_get(m->seen, key);

	if (had) {
		if (!m->clash && (json_string_length(had) != len ||
		                  memcmp(json_string_value(had), value, len) != 0))
			m->clash = strdup(key);
		return 0;
	}
	if (json_object_set_new(m->seen, key, json_stringn(value, len)) < 0)
		return ckpt_seterr("out of memory");
	return m->put(key, value, len, m->user);
}

/* One file from a set of safetensors shards keeps the union of the
 * shards' __metadata__ and the map's "metadata" (total_size aside, values
 * that are not text as their JSON): the first value of a key wins, a
 * conflict is warned of once. */
int ckpt_out_set_metadata(const ckpt_out *o, const ckpt_file *set,
                          int (*put)(const char *key, const char *value, size_t len, void *user),
                          void *user)
{
	struct meta_union m = {json_object(), NULL, put, user};
	size_t n;
	ckpt_file *const *parts = ckpt_parts(set, &n);
	json_t *meta = json_object_get(set->container->wrapping->json, "metadata"), *val;
	const char *key;
	int rc = m.seen ? 0 : ckpt_seterr("out of memory");

	for (size_t k = 0; k < n && rc == 0; k++)
		if (ckpt_file_fmt(parts[k])->texts(parts[k], meta_take, &m) < 0)
			rc = -1;
	json_object_foreach(rc == 0 && json_is_object(meta) ? meta : NULL, key, val) {
		char *text = json_is_string(val) ? strdup(json_string_value(val))
		             : json_dumps(val, JSON_COMPACT | JSON_ENCODE_ANY);

		rc = !text ? ckpt_seterr("out of memory")
		     : strcmp(key, "total_size") == 0 ? 0 : meta_take(key, text, strlen(text), &m);
		free(text);
		if (rc < 0)
			break;
	}
	if (rc == 0 && m.clash)
		ckpt_warnf("%s: metadata '%s' differs between the files of %s: the first value "
		           "kept", ckpt_out_name(o), m.clash, set->name);
	free(m.clash);
	json_decref(m.seen);
	return rc;
}

/* ---- copying from a checkpoint ------------------------------------------ */

/* What a flat output (safetensors) cannot hold, said once: variables of
 * types it has no name for, attributes (but the root's strings, its
 * metadata), and links and named datatypes.  Groups need nothing: the
 * names keep them. */
struct left_out {
	size_t vars, attrs, links, values;
	const char *var, *attr, *link, *value; /* the first of each */
};

static void count_left_out(const ckpt_file *src, const ckpt_out *o, struct left_out *l)
{
	/* (an output of src's own format that keeps them) */
	size_t n = o->fmt->keeps_objects && ckpt_file_fmt(src) == o->fmt ? 0 : src->nobjs;

	l->attrs = o->root_attrs_left;
	l->attr = l->attrs ? "/" : NULL;
	for (size_t i = 0; i < n; i++) {
		const ckpt_obj *ob = &src->objs[i];
		const char *path = ob->kind == CKPT_OBJ_VAR ? src->vars[ob->var].name : ob->path;

		if (ob->nattrs && !l->attrs)
			l->attr = path;
		l->attrs += ob->nattrs;
		if (ob->kind == CKPT_OBJ_VALUE) {
			if (!l->values++)
				l->value = path;
		} else if (ob->kind != CKPT_OBJ_GROUP && ob->kind != CKPT_OBJ_VAR && !l->links++) {
			l->link = path;
		}
	}
}

static void say_left_out(char *buf, size_t size, size_t n, const char *what,
                         const char *of, const char *first)
{
	size_t at = strlen(buf);

	if (n)
		snprintf(buf + at, size - at, "%s%zu %s%s (%s'%s'%s)", at ? ", " : "", n, what,
		         n == 1 ? "" : "s", of, first, n > 1 ? ", ..." : "");
}

static void warn_left_out(const ckpt_file *src, const ckpt_out *o, struct left_out *l)
{
	char list[1024] = "";

	count_left_out(src, o, l);
	say_left_out(list, sizeof list, l->vars, "non-numeric variable", "", l->var);
	say_left_out(list, sizeof list, l->attrs, "attribute", "on ", l->attr);
	say_left_out(list, sizeof list, l->links, "link", "", l->link);
	say_left_out(list, sizeof list, l->values, "non-tensor value", "", l->value);
	if (list[0])
		ckpt_warnf("%s: left out what %s cannot hold: %s", ckpt_out_name(o),
		           o->fmt->name, list);
}

/* Into a format that declares variables with their source: the variables
 * in src's order, declared, those copied whole read when it chooses. */
static int copy_declaring(const ckpt_file *src, ckpt_out *o, ckpt_copy_fn decide, void *user)
{
	struct left_out left = {0};
	int rc = 0;

	for (size_t i = 0; i < src->nvars && rc == 0; i++) {
		const ckpt_var *v = &src->vars[i];
		ckpt_copy_spec spec = {CKPT_OTHER, 0};
		ckpt_copy_action act = decide(v, &spec, user);
		ckpt_dtype t = act == CKPT_COPY_EMPTY && spec.dtype != CKPT_OTHER ? spec.dtype
		                                                                 : v->dtype;

		if (act == CKPT_COPY_SKIP)
			continue;
		if (t == v->dtype && o->fmt->storable && !o->fmt->storable(src, v)) {
			if (!left.vars++)
				left.var = v->name;
			continue;
		}
		rc = o->fmt->out_declare_from(ckpt_out_file_for(o, v->name), v->name, v, t,
		                              act == CKPT_COPY_WHOLE ? src : NULL,
		                              act == CKPT_COPY_WHOLE ? v : NULL);
	}
	if (rc == 0)
		warn_left_out(src, o, &left);
	return rc;
}

/* A sharded base: the callback sees the union's variables. */
struct in_part {
	const ckpt_file *set;
	const size_t *union_index;
	const ckpt_file *part;
	ckpt_copy_fn decide;
	void *user;
};

static ckpt_copy_action decide_in_part(const ckpt_var *v, ckpt_copy_spec *spec, void *user)
{
	const struct in_part *p = user;

	return p->decide(&p->set->vars[p->union_index[v - p->part->vars]], spec, p->user);
}

/* Values of variable v of src (a file of another format) into the output's
 * variable dst_name, slab by slab. */
static int copy_values(const ckpt_file *src, const ckpt_var *v, ckpt_out *o,
                       const char *dst_name)
{
	ckpt_slab s;
	ckpt_outvar *w;
	ckpt_region r;
	int rc;

	if (!(w = ckpt_outvar_open(o, dst_name, v->dtype)))
		return -1;
	if (ckpt_slab_open(&s, src, v, CKPT_SLAB_BYTES) < 0) {
		ckpt_outvar_close(w);
		return -1;
	}
	while ((rc = ckpt_slab_next(&s)) > 0) {
		ckpt_slab_region(&s, &r);
		if ((rc = ckpt_outvar_write(w, &r, s.buf)) < 0)
			break;
	}
	ckpt_slab_close(&s);
	ckpt_outvar_close(w);
	return rc;
}

/* A variable of a file of another format, created in the output. */
static int create_from(const ckpt_file *src, const ckpt_var *v, ckpt_dtype t, ckpt_out *o,
                       const char *dst_name)
{
	if (t == CKPT_OTHER)
		return ckpt_seterr("%s: variable '%s': %s values cannot be stored in %s",
		                   src->name, v->name, v->type, ckpt_out_file_name(o, dst_name));
	return ckpt_out_create_var(o, dst_name, t, v->rank, v->dims);
}

static int put_text(const char *key, const char *value, size_t len, void *o)
{
	return ckpt_out_set_bytes(o, key, value, len);
}

/* The texts a file keeps (a safetensors file's metadata) as the output's. */
static int copy_metadata(const ckpt_file *src, ckpt_out *o)
{
	return ckpt_file_fmt(src)->texts(src, put_text, o) < 0 ? -1 : 0;
}

/* From a format without groups or attributes: the metadata (once in a
 * file), the variables in order. */
static int copy_flat(const ckpt_file *src, ckpt_out *o, ckpt_copy_fn decide, void *user,
                     int with_metadata)
{
	int rc = with_metadata ? copy_metadata(src, o) : 0;
	const char **names = malloc((src->nvars + 1) * sizeof *names);
	struct left_out left = {0};
	size_t n = 0;

	if (!names)
		return ckpt_seterr("out of memory");
	for (size_t i = 0; i < src->nvars && rc == 0; i++) {
		const ckpt_var *v = &src->vars[i];
		ckpt_copy_spec spec = {CKPT_OTHER, 0};
		ckpt_copy_action act = decide(v, &spec, user);
		ckpt_dtype t = act == CKPT_COPY_EMPTY && spec.dtype != CKPT_OTHER ? spec.dtype
		                                                                 : v->dtype;

		if (act == CKPT_COPY_SKIP)
			continue;
		if (t == CKPT_OTHER) { /* (a TensorFlow string tensor: said once) */
			if (!left.vars++)
				left.var = v->name;
			continue;
		}
		names[n++] = v->name;
		rc = create_from(src, v, t, o, v->name);
		if (rc == 0 && act == CKPT_COPY_WHOLE)
			rc = copy_values(src, v, o, v->name);
	}
	/* one file's order (a set's shards are files of their own) */
	if (rc == 0 && with_metadata && o->nfiles <= 1 && o->fmt->write_order &&
	    o->fmt->write_order(o->files[0], names, n) < 0)
		rc = ckpt_seterr("%s: %s", ckpt_out_name(o), ckpt_errmsg());
	if (rc == 0) /* (and the links, the values a flat file has no place for) */
		warn_left_out(src, o, &left);
	free(names);
	return rc;
}

/* rc of a copy into the output file named name (NULL: the output's one
 * file): -2, a write error, is named after the output, not the input. */
static int output_error(const ckpt_out *o, const char *name, int rc)
{
	if (rc == -2)
		return ckpt_seterr("%s: %s", name ? name : ckpt_out_file_name(o, NULL),
		                   ckpt_errmsg());
	return rc < 0 ? -1 : rc;
}

/* Whether f copies into the output through its format's own copy. */
static int native(const ckpt_out *o, const ckpt_file *f)
{
	return ckpt_file_fmt(f) == o->fmt && o->fmt->copy_structure;
}

int ckpt_copy_structure(const ckpt_file *src, ckpt_out *o, ckpt_copy_fn decide, void *user)
{
	size_t n;
	ckpt_file *const *parts = ckpt_parts(src, &n);
	int rc = 0;

	if (o->fmt->out_declare_from)
		return copy_declaring(src, o, decide, user);
	if (!parts && !native(o, src))
		return copy_flat(src, o, decide, user, 1);
	if (!parts)
		return output_error(o, NULL, o->fmt->copy_structure(o->files[0], src, decide, user));
	if (o->nfiles == 1 && src->container->kind == CKPT_SAFETENSORS_SHARDS)
		rc = ckpt_out_set_metadata(o, src, put_text, o);
	/* shard k into the output's shard k, or all into one file */
	for (size_t k = 0; k < n && rc == 0; k++) {
		struct in_part p = {src, src->container->wrapping->union_index[k], parts[k],
		                    decide, user};
		void *dst = o->files[o->nfiles > 1 ? k : 0];

		rc = native(o, parts[k])
		         ? output_error(o, o->fmt->out_name(dst),
		                        o->fmt->copy_structure(dst, parts[k], decide_in_part, &p))
		         : copy_flat(parts[k], o, decide_in_part, &p, o->nfiles > 1);
	}
	return rc;
}

int ckpt_copy_var(const ckpt_file *src, const ckpt_var *v, ckpt_out *o, const char *dst_name)
{
	const ckpt_file *pf;
	const ckpt_var *pv;

	if (o->fmt->out_declare_from)
		return o->fmt->out_declare_from(ckpt_out_file_for(o, dst_name), dst_name, v, v->dtype,
		                                src, v);
	ckpt_part_of(src, v, &pf, &pv);
	if (!native(o, pf))
		return create_from(pf, pv, pv->dtype, o, dst_name) < 0 ? -1
		                                                     : copy_values(pf, pv, o, dst_name);
	return output_error(o, ckpt_out_file_name(o, dst_name),
	                    o->fmt->copy_var(ckpt_out_file_for(o, dst_name), pf, pv, dst_name));
}
