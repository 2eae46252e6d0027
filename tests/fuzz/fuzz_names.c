/* libFuzzer: what the name options parse -- --rename rules, dtype names,
 * globs -- and the escapes of names in manifests.  Input: NUL-separated
 * fields: rule, name, glob. */
#include <stdlib.h>
#include <string.h>

#include "lib/ckpt.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *buf = malloc(size + 3), *rule, *name, *glob, *m, *e, *u;
	ckpt_select s;
	ckpt_dtype t;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = buf[size + 1] = buf[size + 2] = 0;
	rule = buf;
	name = rule + strlen(rule) + 1;
	glob = name + strlen(name) + 1;
	ckpt_select_init(&s);
	ckpt_dtype_parse(rule, &t);
	if (*glob)
		ckpt_select_only(&s, glob);
	if (ckpt_select_rename(&s, rule) == 0 && !strchr(rule, '='))
		abort();
	s.strip_prefix = glob;
	if ((m = ckpt_select_map(&s, name))) {
		ckpt_select_match(&s, m);
		free(m);
	}
	/* escaping is undone exactly */
	if ((e = ckpt_flat_escape(name))) {
		if (strpbrk(e, "\t\n\r") || !(u = ckpt_flat_unescape(e, strlen(e))) ||
		    strcmp(u, name) != 0)
			abort();
		free(u);
		free(e);
	}
	if ((u = ckpt_flat_unescape(name, strlen(name))))
		free(u);
	ckpt_select_free(&s);
	free(buf);
	return 0;
}
