/* select.h - the name options every program shares: --only GLOB and
 * --exclude GLOB (fnmatch on the whole name, '*' also matching '/'),
 * --strip-prefix P and --add-prefix P, and --rename FROM=TO.
 *
 * Names are mapped first (strip, add, rename); the globs then apply to
 * the mapped name.  With no --only every name is selected. */
#ifndef CKPT_SELECT_H
#define CKPT_SELECT_H

#include <stddef.h>

typedef struct ckpt_select {
	const char **only;
	size_t nonly;
	const char **exclude;
	size_t nexclude;
	const char *strip_prefix, *add_prefix;
	const char **rename;    /* "FROM=TO" */
	size_t nrename;
} ckpt_select;

void ckpt_select_init(ckpt_select *s);
void ckpt_select_free(ckpt_select *s);

/* Add a glob (kept by reference: it usually points into argv). */
int ckpt_select_only(ckpt_select *s, const char *glob);
int ckpt_select_exclude(ckpt_select *s, const char *glob);

/* --rename FROM=TO: a name equal to FROM becomes TO; or, with one '*' on
 * each side, a name that FROM matches becomes TO with the '*' replaced by
 * what it matched.  Applied after the prefixes, first fitting rule only.
 * -1 with a message for a malformed rule. */
int ckpt_select_rename(ckpt_select *s, const char *spec);

/* The mapped name, newly allocated (NULL when out of memory). */
char *ckpt_select_map(const ckpt_select *s, const char *name);

/* Whether the mapped name is selected by the --only/--exclude globs. */
int ckpt_select_match(const ckpt_select *s, const char *mapped);

/* Whether names (n of them) cannot all be variables of one file: one is
 * there twice (CKPT_NAMES_TWICE), or one lies inside another, as "w/x"
 * inside "w", which would have to be a group (CKPT_NAMES_NESTED).  Then
 * *first and *second are set to the two positions: for NESTED, the outer
 * name's, then the inner's; for TWICE, the earlier, then the later.
 * CKPT_NAMES_OK (0) if none; -1 with a message if out of memory.  Time
 * n log n. */
enum { CKPT_NAMES_OK, CKPT_NAMES_TWICE, CKPT_NAMES_NESTED };
int ckpt_names_clash(const char *const *names, size_t n, size_t *first, size_t *second);

struct ckpt_file;

/* The names the options give the variables of f, indexed as f->vars
 * (n = f->nvars): NULL for a variable s does not select, and with
 * numeric_only for one that is not numeric.  s NULL selects all under
 * their own names.  A mapping that folds two selected variables onto one
 * name, or puts one inside another (which would have to be a group), is
 * refused with a message naming the file and both variables.  NULL on
 * failure; free with ckpt_select_names_free(names, f->nvars). */
char **ckpt_select_names(const ckpt_select *s, const struct ckpt_file *f,
                         int numeric_only);
void ckpt_select_names_free(char **names, size_t n);

#endif
