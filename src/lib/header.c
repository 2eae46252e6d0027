/* header.c - the first line of ckpt's text formats. */
#include "header.h"
#include "fmt.h"

#include <string.h>

int ckpt_header_parse(const char *line, size_t len, const char *kind, ckpt_header *h)
{
	size_t kl = strlen(kind), pos;
	const char *end = line + len, *p, *tab;

	memset(h, 0, sizeof *h);
	if (len < 6 + kl + 1 || memcmp(line, "#ckpt-", 6) != 0 ||
	    memcmp(line + 6, kind, kl) != 0 || line[6 + kl] != '\t')
		return CKPT_HEADER_OTHER;
	pos = 6 + kl + 1;
	tab = memchr(line + pos, '\t', len - pos);
	if (ckpt_scan_u64(line + pos, (size_t)((tab ? tab : end) - line) - pos,
	                  &h->version) < 0)
		return CKPT_HEADER_BAD_VERSION;
	for (p = tab ? tab + 1 : end; p < end; p = tab ? tab + 1 : end) {
		const char *f_end, *eq;

		tab = memchr(p, '\t', (size_t)(end - p));
		f_end = tab ? tab : end;
		eq = memchr(p, '=', (size_t)(f_end - p));
		if (!eq || eq == p || h->nfields == CKPT_HEADER_MAX_FIELDS)
			continue;
		h->field[h->nfields].key = p;
		h->field[h->nfields].klen = (size_t)(eq - p);
		h->field[h->nfields].val = eq + 1;
		h->field[h->nfields].vlen = (size_t)(f_end - eq - 1);
		h->nfields++;
	}
	return CKPT_HEADER_OK;
}

const char *ckpt_header_get(const ckpt_header *h, const char *key, size_t *vlen)
{
	size_t kl = strlen(key);

	for (size_t i = h->nfields; i-- > 0;) /* the last one counts */
		if (h->field[i].klen == kl && memcmp(h->field[i].key, key, kl) == 0) {
			*vlen = h->field[i].vlen;
			return h->field[i].val;
		}
	return NULL;
}
