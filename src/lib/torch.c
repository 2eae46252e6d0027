/* torch.c - PyTorch's torch.save files as a format of the toolkit
 * (format.h), reading side.  The zip format (torch >= 1.6): a folder with
 * data.pkl (the pickled structure), data/KEY per storage (stored, 64-byte
 * aligned: read in place; deflated in a re-zipped file: inflated into a
 * temporary once), version, byteorder.  The legacy format: five pickles
 * (magic number, protocol version, system info, the structure, the
 * storages' keys), then each storage as its element count and its bytes.
 * The pickles are read by a restricted unpickler that runs nothing
 * (pickle.h); their structure names the tensors (torchwalk.c). */
#include "backend.h"
#include "err.h"
#include "format.h"
#include "pb.h"
#include "torch.h"
#include "zip.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct ckpt_torch *torch_of(const ckpt_file *f)
{
	return f->backend->state;
}

static struct ckpt_zip_src zip_src(const ckpt_file *f)
{
	return (struct ckpt_zip_src){f->image ? -1 : f->fd, f->image, f->size, f->name};
}

static int load(ckpt_file *f, struct ckpt_torch *t, const unsigned char *p, size_t n)
{
	size_t used;

	return ckpt_pk_load(t->doc, f->name, p, n, &t->root, &used) < 0 ? -1 : 0;
}

/* ---- the zip format --------------------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct ckpt_zip_member *)a)->name,
	              ((const struct ckpt_zip_member *)b)->name);
}

static const struct ckpt_zip_member *member(const struct ckpt_zip_member *m, size_t n,
                                            const char *folder, const char *name)
{
	char want[4096];
	struct ckpt_zip_member key = {.name = want};

	if ((size_t)snprintf(want, sizeof want, "%s%s", folder, name) >= sizeof want)
		return NULL;
	return bsearch(&key, m, n, sizeof *m, by_name);
}

/* An unlinked temporary file in TMPDIR, for a deflated storage. */
static int temporary(const ckpt_file *f)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	snprintf(path, sizeof path, "%s/ckpt-torch-XXXXXX", dir && *dir ? dir : "/tmp");
	if ((fd = mkstemp(path)) < 0)
		return ckpt_seterr("%s: a deflated storage needs a temporary file: %s: %s", f->name,
		                   path, strerror(errno));
	unlink(path);
	return fd;
}

/* Storage st's bytes: member m in place, or inflated. */
static int place_storage(ckpt_file *f, const struct ckpt_zip_src *z,
                         const struct ckpt_zip_member *m, struct ckpt_torch_storage *st)
{
	uint64_t bytes = st->numel * st->elsize;

	if (m->usize < bytes)
		return ckpt_seterr("%s: storage '%s' holds %" PRIu64 " bytes, its tensors need %"
		                   PRIu64 " (damaged)", f->name, st->key, m->usize, bytes);
	if (m->method == 0) {
		st->fd = f->fd, st->offset = m->offset;
		return 0;
	}
	if ((st->fd = temporary(f)) < 0)
		return -1;
	st->own_fd = 1;
	return ckpt_zip_inflate_to(z, m, st->fd);
}

static int byte_order(ckpt_file *f, const struct ckpt_zip_src *z,
                      const struct ckpt_zip_member *m)
{
	unsigned char *text;
	int little;

	if (!m)
		return 0; /* before torch 1.13: the writer's, always little-endian */
	if (ckpt_zip_read(z, m, &text) < 0)
		return -1;
	little = m->usize == 6 && memcmp(text, "little", 6) == 0;
	free(text);
	return little ? 0 : ckpt_seterr("%s: a big-endian PyTorch file, which ckpt does not "
	                                "read", f->name);
}

/* The folder's data.pkl: the first member named so, as torch finds it. */
static const struct ckpt_zip_member *pickle_member(const struct ckpt_zip_member *m, size_t n,
                                                   char *folder, size_t size)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(m[i].name);

		if ((len == 8 || (len > 8 && m[i].name[len - 9] == '/')) &&
		    strcmp(m[i].name + len - 8, "data.pkl") == 0 && len - 8 < size) {
			memcpy(folder, m[i].name, len - 8);
			folder[len - 8] = '\0';
			return &m[i];
		}
	}
	return NULL;
}

static int open_zip(ckpt_file *f, struct ckpt_torch *t)
{
	struct ckpt_zip_src z = zip_src(f);
	struct ckpt_zip_member *m = NULL, pkl;
	const struct ckpt_zip_member *found;
	unsigned char *bytes = NULL;
	char folder[4096], name[4200];
	size_t n = 0;
	int rc = -1;

	if (ckpt_zip_list(&z, &m, &n) < 0)
		return -1;
	if (!(found = pickle_member(m, n, folder, sizeof folder))) {
		ckpt_seterr("%s: a zip archive without data.pkl (no PyTorch file)", f->name);
		goto out;
	}
	pkl = *found;
	qsort(m, n, sizeof *m, by_name);
	if (byte_order(f, &z, member(m, n, folder, "byteorder")) < 0 ||
	    ckpt_zip_read(&z, &pkl, &bytes) < 0 || load(f, t, bytes, (size_t)pkl.usize) < 0 ||
	    ckpt_torch_walk(f, t) < 0)
		goto out;
	rc = 0;
	for (size_t i = 0; i < t->nst && rc == 0; i++) {
		snprintf(name, sizeof name, "data/%s", t->st[i].key);
		if (!(found = member(m, n, folder, name)))
			rc = ckpt_seterr("%s: storage '%s' is not in the archive (no %s%s)", f->name,
			                 t->st[i].key, folder, name);
		else
			rc = place_storage(f, &z, found, &t->st[i]);
	}
out:
	free(bytes);
	ckpt_zip_free(m, n);
	return rc;
}

/* ---- the legacy format ----------------------------------------------------------- */

static const unsigned char legacy_magic[] = {0x6c, 0xfc, 0x9c, 0x46, 0xf9,
                                             0x20, 0x6a, 0xa8, 0x50, 0x19};

static int is_little_endian(const ckpt_pk *info)
{
	for (size_t i = 0; info->kind == CKPT_PK_DICT && i + 1 < info->n; i += 2)
		if (info->item[i]->kind == CKPT_PK_STR &&
		    strcmp(info->item[i]->s, "little_endian") == 0)
			return info->item[i + 1]->kind == CKPT_PK_BOOL && info->item[i + 1]->i;
	return 1;
}

/* The five pickles at the file's start, from the bytes p (n of them, the
 * file's first n): 0 with the storages' keys and where they begin,
 * CKPT_PK_SHORT when n is too few. */
static int legacy_pickles(ckpt_file *f, struct ckpt_torch *t, const unsigned char *p, size_t n,
                          ckpt_pk **keys, size_t *end)
{
	ckpt_pk *v[5];
	size_t at = 0, used;
	int rc;

	for (int i = 0; i < 5; i++, at += used)
		if ((rc = ckpt_pk_load(t->doc, f->name, p + at, n - at, &v[i], &used)) < 0)
			return rc;
	if (v[0]->kind != CKPT_PK_BIGINT || v[0]->len != sizeof legacy_magic ||
	    memcmp(v[0]->s, legacy_magic, sizeof legacy_magic) != 0)
		return ckpt_seterr("%s: a pickle without torch's magic number (no PyTorch file)",
		                   f->name);
	if (v[1]->kind != CKPT_PK_INT || v[1]->i != 1001)
		return ckpt_seterr("%s: a legacy PyTorch file of protocol version %" PRId64
		                   "; ckpt reads 1001", f->name, v[1]->i);
	if (!is_little_endian(v[2]))
		return ckpt_seterr("%s: a big-endian PyTorch file, which ckpt does not read",
		                   f->name);
	if (v[4]->kind != CKPT_PK_LIST)
		return ckpt_seterr("%s: the storages' keys are no list (damaged)", f->name);
	t->root = v[3], *keys = v[4], *end = at;
	return 0;
}

/* Each storage after the pickles: its element count, then its bytes. */
static int legacy_storages(ckpt_file *f, struct ckpt_torch *t, const ckpt_pk *keys,
                           uint64_t at)
{
	for (size_t i = 0; i < keys->n; i++) {
		struct ckpt_torch_storage *st = keys->item[i]->kind == CKPT_PK_STR
		                                    ? ckpt_torch_find(t, keys->item[i]->s) : NULL;
		unsigned char count[8];
		uint64_t numel, bytes;

		if (!st)
			return ckpt_seterr("%s: storage %zu of the list is no tensor's (damaged)",
			                   f->name, i);
		if (at > f->size || f->size - at < 8 ||
		    (f->image ? (memcpy(count, (const char *)f->image + at, 8), 8)
		              : ckpt_pread_full(f->fd, count, 8, at)) != 8)
			return ckpt_seterr("%s: storage '%s' is missing (truncated?)", f->name, st->key);
		numel = ckpt_pb_le(count, 8);
		bytes = numel * st->elsize;
		if (numel != st->numel)
			return ckpt_seterr("%s: storage '%s' has %" PRIu64 " elements, its tensors "
			                   "name %" PRIu64 " (damaged)", f->name, st->key, numel,
			                   st->numel);
		if (f->size - at - 8 < bytes)
			return ckpt_seterr("%s: storage '%s' is cut short (truncated?)", f->name,
			                   st->key);
		st->fd = f->fd, st->offset = at + 8;
		at += 8 + bytes;
	}
	return 0;
}

/* The pickles are read from the file's first bytes, twice as many each
 * time they are found cut short. */
static int open_legacy(ckpt_file *f, struct ckpt_torch *t)
{
	size_t n = 1u << 20, end = 0;
	unsigned char *p = NULL;
	ckpt_pk *keys = NULL;
	int rc = CKPT_PK_SHORT;

	t->legacy = 1;
	while (rc == CKPT_PK_SHORT) {
		unsigned char *q;

		n = f->size < n ? (size_t)f->size : n;
		if (!(q = realloc(p, n))) {
			rc = ckpt_seterr("%s: out of memory", f->name);
			break;
		}
		p = q;
		if (f->image)
			memcpy(p, f->image, n);
		else if (ckpt_pread_full(f->fd, p, n, 0) != (ptrdiff_t)n) {
			rc = ckpt_seterr_errno(f->name);
			break;
		}
		ckpt_pk_doc_free(t->doc);
		if (!(t->doc = ckpt_pk_doc_new())) {
			rc = ckpt_seterr("%s: out of memory", f->name);
			break;
		}
		rc = legacy_pickles(f, t, p, n, &keys, &end);
		if (rc == CKPT_PK_SHORT && n == f->size)
			rc = ckpt_seterr("%s: the file ends inside its pickles (truncated?)", f->name);
		n *= 2;
	}
	free(p);
	if (rc < 0)
		return -1;
	return ckpt_torch_walk(f, t) < 0 ? -1 : legacy_storages(f, t, keys, end);
}

/* ---- the format ------------------------------------------------------------------- */

static int is_legacy(const unsigned char *h, size_t n)
{
	return n >= 12 && memcmp(h, "\x80\x02\x8a\x0a", 4) == 0 &&
	       memcmp(h + 4, legacy_magic, 8) == 0;
}

static int torch_open(ckpt_file *f, const char *path)
{
	struct ckpt_torch *t;
	unsigned char head[12] = {0};

	(void)path;
	if (!(f->backend = calloc(1, sizeof *f->backend)) || !(t = calloc(1, sizeof *t)) ||
	    !(t->doc = ckpt_pk_doc_new()))
		return ckpt_seterr("%s: out of memory", f->name);
	f->backend->format = &ckpt_format_torch;
	f->backend->state = t;
	if (f->image)
		memcpy(head, f->image, f->size < 12 ? (size_t)f->size : 12);
	else if (ckpt_pread_full(f->fd, head, sizeof head, 0) < 0)
		return ckpt_seterr_errno(f->name);
	return is_legacy(head, sizeof head) ? open_legacy(f, t) : open_zip(f, t);
}

static void torch_close(ckpt_file *f)
{
	struct ckpt_torch *t = f->backend ? torch_of(f) : NULL;

	if (!t)
		return;
	for (size_t i = 0; i < t->nst; i++)
		if (t->st[i].own_fd)
			close(t->st[i].fd);
	free(t->st);
	free(t->slot);
	free(t->at);
	ckpt_pk_doc_free(t->doc);
	free(t);
	f->backend->state = NULL;
}

/* A zip whose first member is torch's, or the legacy magic. */
static int probe(const struct ckpt_probe *p)
{
	char name[257];

	return is_legacy(p->head, p->n) ||
	       (ckpt_probe_zip_first(p, name, sizeof name) && ckpt_torch_member(name));
}

static char *storage(const ckpt_file *f, const ckpt_var *v, char *out, size_t size)
{
	const struct ckpt_torch *t = torch_of(f);
	const struct ckpt_torch_view *w = &t->at[v - f->vars];
	const struct ckpt_torch_storage *st = &t->st[w->storage];

	snprintf(out, size, "%s, storage '%s' at element %" PRIu64 "%s", w->contiguous
	         ? "contiguous" : "strided", st->key, w->offset,
	         st->own_fd ? " (deflated)" : "");
	return out;
}

/* ---- slabs ------------------------------------------------------------------------ */

/* A strided tensor's storage, mapped whole (or the image's bytes). */
struct tslab {
	const unsigned char *base; /* the storage's first byte */
	void *map;
	size_t maplen;
};

static const struct ckpt_torch_storage *storage_of(const ckpt_slab *s,
                                                   const struct ckpt_torch_view **w)
{
	const struct ckpt_torch *t = torch_of(s->file);

	*w = &t->at[s->var - s->file->vars];
	return &t->st[(*w)->storage];
}

static int map_storage(ckpt_slab *s, const struct ckpt_torch_storage *st)
{
	struct tslab *m = calloc(1, sizeof *m);
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), from = st->offset / page * page;

	if (!m)
		return ckpt_seterr("%s: out of memory", s->file->name);
	s->backend = m;
	if (s->file->image && !st->own_fd) {
		m->base = (const unsigned char *)s->file->image + st->offset;
		return 0;
	}
	m->maplen = (size_t)(st->offset - from + st->numel * st->elsize);
	if (m->maplen == 0)
		return 0;
	m->map = mmap(NULL, m->maplen, PROT_READ, MAP_PRIVATE, st->fd, (off_t)from);
	if (m->map == MAP_FAILED) {
		m->map = NULL;
		return ckpt_seterr("%s: variable '%s': mapping its storage: %s", s->file->name,
		                   s->var->name, strerror(errno));
	}
	m->base = (const unsigned char *)m->map + (st->offset - from);
	return 0;
}

static int slab_open(ckpt_slab *s, size_t max_bytes)
{
	const struct ckpt_torch_view *w;
	const struct ckpt_torch_storage *st = storage_of(s, &w);
	const ckpt_var *v = s->var;
	uint64_t at = st->offset + w->offset * st->elsize;

	s->elsize = v->elsize;
	memset(&s->at, 0, sizeof s->at);
	s->at.var = v;
	ckpt_slab_plan(v->rank, v->dims, NULL, max_bytes / s->elsize, &s->at.split, &s->at.step);
	if (!w->contiguous)
		return map_storage(s, st);
	if (!st->own_fd && !ckpt_host_big_endian() && at % s->elsize == 0) {
		s->in_place = 1;
		s->addr = at;
	}
	return 0;
}

/* The region's elements from their places in the mapped storage. */
static void gather(unsigned char *out, const unsigned char *base, const ckpt_region *r,
                   const struct ckpt_torch_view *w, size_t es)
{
	uint64_t idx[CKPT_MAX_RANK] = {0}, inner, step;
	int last = r->rank - 1;

	if (r->rank == 0) {
		memcpy(out, base + w->offset * es, es);
		return;
	}
	inner = r->count[last], step = w->stride[last];
	for (size_t done = 0; done < r->n; done += inner) {
		uint64_t at = w->offset + r->start[last] * step;

		for (int i = 0; i < last; i++)
			at += (r->start[i] + idx[i]) * w->stride[i];
		for (uint64_t j = 0; j < inner; j++)
			memcpy(out + (done + j) * es, base + (at + j * step) * es, es);
		for (int i = last - 1; i >= 0 && ++idx[i] == r->count[i]; i--)
			idx[i] = 0;
	}
}

static int slab_read(ckpt_slab *s, void *buf, const ckpt_region *r)
{
	const struct ckpt_torch_view *w;
	const struct ckpt_torch_storage *st = storage_of(s, &w);
	const ckpt_var *v = s->var;
	uint64_t index = 0, at;
	size_t n = r->n * s->elsize;

	if (!w->contiguous) {
		gather(buf, ((struct tslab *)s->backend)->base, r, w, s->elsize);
	} else {
		for (int i = 0; i < r->rank; i++)
			index = index * v->dims[i] + r->start[i];
		at = st->offset + (w->offset + index) * s->elsize;
		if (s->file->image && !st->own_fd)
			memcpy(buf, (const char *)s->file->image + at, n);
		else if (ckpt_pread_full(st->fd, buf, n, at) != (ptrdiff_t)n)
			return ckpt_seterr("%s: variable '%s': the file shrank while being read",
			                   s->file->name, v->name);
	}
	if (ckpt_host_big_endian())
		ckpt_swap_bytes(buf, r->n, s->elsize);
	return 0;
}

static void slab_close(ckpt_slab *s)
{
	struct tslab *m = s->backend;

	if (m && m->map)
		munmap(m->map, m->maplen);
	free(m);
	s->backend = NULL;
}

static const char *const suffixes[] = {".pt", ".pth", ".bin", ".ckpt", NULL};

const struct ckpt_format ckpt_format_torch = {
	.name = "a PyTorch file",
	.probe = probe,
	.open = torch_open,
	.close = torch_close,
	.text = ckpt_format_no_text,
	.texts = ckpt_format_no_texts,
	.storage = storage,
	.slab_open = slab_open,
	.slab_read = slab_read,
	.slab_close = slab_close,
	.suffixes = suffixes,
	.keeps_objects = 1,
	.out_open = ckpt_tout_open,
	.out_name = ckpt_tout_name,
	.out_declare = ckpt_tout_declare,
	.out_commit = ckpt_tout_commit,
	.out_abort = ckpt_tout_abort,
	.out_finish = ckpt_tout_finish,
	.out_tempfile = ckpt_tout_tempfile,
	.out_declare_from = ckpt_tout_declare_from,
	.storable = ckpt_tout_storable,
	.var_open = ckpt_tvar_open,
	.var_write = ckpt_tvar_write,
	.var_close = ckpt_tvar_close,
};
