/* select.h - the name options every program shares: --only GLOB and
 * --exclude GLOB (fnmatch on the whole name, '*' also matching '/'),
 * --strip-prefix P and --add-prefix P.
 *
 * Names are mapped first (strip, then add); the globs then apply to the
 * mapped name.  With no --only every name is selected. */
#ifndef CKPT_SELECT_H
#define CKPT_SELECT_H

#include <stddef.h>

typedef struct ckpt_select {
	const char **only;
	size_t nonly;
	const char **exclude;
	size_t nexclude;
	const char *strip_prefix, *add_prefix;
} ckpt_select;

void ckpt_select_init(ckpt_select *s);
void ckpt_select_free(ckpt_select *s);

/* Add a glob (kept by reference: it usually points into argv). */
int ckpt_select_only(ckpt_select *s, const char *glob);
int ckpt_select_exclude(ckpt_select *s, const char *glob);

/* The mapped name, newly allocated (NULL when out of memory). */
char *ckpt_select_map(const ckpt_select *s, const char *name);

/* Whether the mapped name is selected by the --only/--exclude globs. */
int ckpt_select_match(const ckpt_select *s, const char *mapped);

#endif
