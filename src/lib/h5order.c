/* h5order.c - the order of a flat file's variables kept in HDF5.
 *
 * HDF5 lists a group's links in creation order (ckpt tracks it), so a
 * tree walk meets the variables of a safetensors file grouped by their
 * '/'-prefixes: a/x, b/y, a/z come back a/x, a/z, b/y.  Where the walk's
 * order differs from the file's, the HDF5 output keeps the file's order in
 * a root attribute (CKPT_ORDER_ATTR, a JSON list of the names), and
 * reading puts the variables back in it: safetensors -> HDF5 ->
 * safetensors gives the same bytes.  An attribute that does not name the
 * file's variables exactly (a subset copied on) is ignored. */
#include "h5.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Whether the walk meets names[0..n) in another order than theirs: it
 * does unless every group's variables are together in the list (the walk
 * meets a group's members at its first one; a name under a group the
 * list left earlier comes back too late).  closed: the groups left. */
static int walk_differs(const char *const *names, size_t n)
{
	json_t *closed = json_object();
	int differs = !closed;
	char *path = NULL;

	for (size_t i = 1; i < n && !differs; i++) {
		const char *a = names[i - 1], *b = names[i];
		size_t same = 0; /* the groups both are in: up to a's slash at same */

		for (size_t j = 0; a[j] && a[j] == b[j]; j++)
			if (a[j] == '/')
				same = j + 1;
		free(path);
		if (!(path = malloc(strlen(a) + strlen(b) + 1))) {
			differs = 1;
			break;
		}
		strcpy(path, a);
		/* a's groups below the shared ones are left */
		for (const char *s = a + same; (s = strchr(s, '/')); s++) {
			path[s - a] = '\0';
			json_object_set_new(closed, path, json_true());
			path[s - a] = '/';
		}
		strcpy(path, b);
		for (const char *s = b + same; !differs && (s = strchr(s, '/')); s++) {
			path[s - b] = '\0';
			differs = json_object_get(closed, path) != NULL;
			path[s - b] = '/';
		}
	}
	free(path);
	json_decref(closed);
	return differs;
}

int ckpt_h5_write_order(hid_t fid, const char *const *names, size_t n)
{
	json_t *list;
	char *text;
	int rc;

	if (!walk_differs(names, n))
		return 0;
	if (!(list = json_array()))
		return ckpt_seterr("out of memory");
	for (size_t i = 0; i < n; i++)
		if (json_array_append_new(list, json_string(names[i])) < 0) {
			json_decref(list);
			return ckpt_seterr("out of memory");
		}
	text = json_dumps(list, JSON_COMPACT);
	json_decref(list);
	if (!text)
		return ckpt_seterr("out of memory");
	rc = ckpt_h5_write_string_attr(fid, CKPT_ORDER_ATTR, text, strlen(text));
	free(text);
	return rc;
}

/* where[k]: the variable the list's name k is, or -1 when the list does
 * not name the variables exactly (f's index answers the lookups) */
static int match_names(const ckpt_file *f, json_t *list, size_t *where)
{
	char *used = calloc(f->nvars + 1, 1);
	int ok = used && json_array_size(list) == f->nvars;

	for (size_t k = 0; ok && k < f->nvars; k++) {
		const char *name = json_string_value(json_array_get(list, k));
		const ckpt_var *v = name ? ckpt_find(f, name) : NULL;

		ok = v && !used[v - f->vars];
		if (ok)
			used[where[k] = (size_t)(v - f->vars)] = 1;
	}
	free(used);
	return ok ? 0 : -1;
}

int ckpt_h5_apply_order(ckpt_file *f)
{
	char *text = NULL;
	json_t *list;
	size_t *where, *moved;
	ckpt_var *vars;
	int rc = 0;

	if (ckpt_h5_root_text(f, CKPT_ORDER_ATTR, &text) != 1 || f->nvars == 0) {
		free(text);
		return 0;
	}
	list = json_loads(text, 0, NULL);
	free(text);
	where = malloc((f->nvars + 1) * sizeof *where);
	moved = malloc((f->nvars + 1) * sizeof *moved);
	vars = malloc((f->nvars + 1) * sizeof *vars);
	if (!where || !moved || !vars)
		rc = ckpt_seterr("%s: out of memory", f->name);
	else if (json_is_array(list) && match_names(f, list, where) == 0) {
		for (size_t k = 0; k < f->nvars; k++) {
			vars[k] = f->vars[where[k]];
			moved[where[k]] = k;
		}
		memcpy(f->vars, vars, f->nvars * sizeof *vars);
		for (size_t i = 0; i < f->nobjs; i++) {
			if (f->objs[i].kind == CKPT_OBJ_VAR)
				f->objs[i].var = moved[f->objs[i].var];
			else if (f->objs[i].kind == CKPT_OBJ_HARDLINK && f->objs[i].target_var >= 0)
				f->objs[i].target_var = (int)moved[f->objs[i].target_var];
		}
	}
	json_decref(list);
	free(where);
	free(moved);
	free(vars);
	return rc;
}
