/* tout.c - PyTorch's torch.save files, writing side: the zip format as
 * current torch writes it - archive/data.pkl (protocol 2), the version
 * records, archive/data/KEY per tensor, each member stored with its data
 * at a multiple of 64 bytes (torch's padding extra field "FB"), zip64
 * where sizes or offsets pass 4 GiB.  From a PyTorch base, data.pkl is the
 * base's structure with every tensor a new contiguous storage (its values
 * the output's; tied tensors one tensor again; values that are no tensor
 * kept); from any other base, an OrderedDict of name -> tensor.  Tensors
 * are declared first (decl.c); data.pkl and the members' headers are then
 * written, the values at their offsets, and at the commit each member's
 * CRC (taken as its bytes are written in order, read back otherwise) and
 * the central directory. */
#include "backend.h"
#include "decl.h"
#include "err.h"
#include "format.h"
#include "temp.h"
#include "torch.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define ALIGN 64
#define FOLDER "archive/"
#define BIG 0xffffffffu
#define NAME_MAX_LEN 4096
#define HEADER_MAX (30 + NAME_MAX_LEN + 20 + 4 + ALIGN)

/* A member of the zip: where its local header and data are. */
struct member {
	char *name;
	uint64_t header, data, size;
	uint32_t crc;
};

/* A tensor's data: its CRC-32 so far, of the bytes [0, next) written in
 * order (NOT_IN_ORDER once they were not). */
struct tstate {
	size_t member;
	uint64_t next;
	uint32_t crc;
	uint32_t memo;      /* its first tensor's memo index in data.pkl, + 1, */
	const ckpt_pk *node; /* and the base's tensor that is (NULL: none) */
};

#define NOT_IN_ORDER UINT64_MAX

struct tout {
	struct ckpt_temp t;
	struct ckpt_decls l;
	const ckpt_file *like;    /* a PyTorch base, or NULL */
	struct tstate *st;
	struct member *m;
	size_t nm, mcap;
	uint64_t end;
	int fixed;
};

struct tvar {
	struct tout *o;
	const struct ckpt_decl *d;
	struct tstate *st;
	ckpt_dtype mem;
	void *conv;
	size_t convcap;
};

static const struct {
	ckpt_dtype t;
	const char *storage;
} classes[] = {
	{CKPT_F32, "torch.FloatStorage"}, {CKPT_F64, "torch.DoubleStorage"},
	{CKPT_F16, "torch.HalfStorage"}, {CKPT_BF16, "torch.BFloat16Storage"},
	{CKPT_I64, "torch.LongStorage"}, {CKPT_I32, "torch.IntStorage"},
	{CKPT_I16, "torch.ShortStorage"}, {CKPT_I8, "torch.CharStorage"},
	{CKPT_U8, "torch.ByteStorage"}, {CKPT_BOOL, "torch.BoolStorage"},
	{CKPT_F8E4M3, "torch.Float8_e4m3fnStorage"}, {CKPT_F8E5M2, "torch.Float8_e5m2Storage"},
};

static const char *storage_class(ckpt_dtype t)
{
	for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
		if (classes[i].t == t)
			return classes[i].storage;
	return NULL;
}

static const char *name_of(const struct tout *o)
{
	return ckpt_temp_name(&o->t);
}

void *ckpt_tout_open(const char *target, int force, const ckpt_file *like)
{
	struct tout *o = calloc(1, sizeof *o);

	if (!o) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	o->t.fd = o->t.slot = -1;
	o->like = like && ckpt_file_fmt(like) == &ckpt_format_torch ? like : NULL;
	if (ckpt_temp_open(&o->t, target, force, 1, "a PyTorch file") < 0) {
		free(o);
		return NULL;
	}
	return o;
}

const char *ckpt_tout_name(const void *w)
{
	return name_of(w);
}

void ckpt_tout_abort(void *w)
{
	struct tout *o = w;

	if (!o)
		return;
	ckpt_temp_release(&o->t);
	ckpt_decl_free(&o->l);
	for (size_t i = 0; i < o->nm; i++)
		free(o->m[i].name);
	free(o->m);
	free(o->st);
	free(o);
}

/* Numbers (those torch has no storage for are refused by name when
 * declared); what is no number is left out. */
int ckpt_tout_storable(const ckpt_file *src, const ckpt_var *v)
{
	(void)src;
	return v->dtype != CKPT_OTHER;
}

int ckpt_tout_declare_from(void *w, const char *name, const ckpt_var *like, ckpt_dtype t,
                           const ckpt_file *src, const ckpt_var *sv)
{
	struct tout *o = w;
	ckpt_var v = ckpt_decl_as(like, t);

	if (o->fixed)
		return ckpt_seterr("%s: variable '%s' made after values were written", name_of(o),
		                   name);
	if (!storage_class(v.dtype))
		return ckpt_seterr("%s: variable '%s': a PyTorch file cannot hold %s values (as "
		                   "torch 1.13 reads them): convert them with --dtype", name_of(o),
		                   name, v.type);
	return ckpt_decl_add(&o->l, name_of(o), name, &v, src, sv) ? 0 : -1;
}

int ckpt_tout_declare(void *w, const char *name, ckpt_dtype t, int rank, const uint64_t *dims)
{
	ckpt_var v = ckpt_decl_new_var(t, rank, dims);

	return ckpt_tout_declare_from(w, name, &v, t, NULL, NULL);
}

/* ---- the zip's members --------------------------------------------------------- */

static void le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static int put_at(struct tout *o, const void *p, size_t n, uint64_t at)
{
	return ckpt_pwrite_all(o->t.fd, p, n, at, name_of(o));
}

/* A member's local header, for a member at at: into h, its length (the
 * data to follow at a multiple of 64: the padding in an extra field "FB",
 * as torch writes it). */
static size_t local_header(unsigned char *h, uint64_t at, const char *name, uint64_t size,
                           uint32_t crc)
{
	size_t nlen = strlen(name), x = 30 + nlen, pad;
	int zip64 = size >= BIG;

	memset(h, 0, 30);
	memcpy(h, "PK\3\4", 4);
	le(h + 4, zip64 ? 45 : 20, 2);
	le(h + 14, crc, 4);
	le(h + 18, zip64 ? BIG : size, 4);
	le(h + 22, zip64 ? BIG : size, 4);
	le(h + 26, nlen, 2);
	memcpy(h + 30, name, nlen);
	if (zip64) {
		le(h + x, 1, 2), le(h + x + 2, 16, 2), le(h + x + 4, size, 8), le(h + x + 12, size, 8);
		x += 20;
	}
	pad = (size_t)((ALIGN - (at + x + 4) % ALIGN) % ALIGN);
	memcpy(h + x, "FB", 2), le(h + x + 2, pad, 2);
	memset(h + x + 4, 'Z', pad);
	x += 4 + pad;
	le(h + 28, x - 30 - nlen, 2);
	return x;
}

/* A member at o->end, o->end moved past its data: its index.  Its local
 * header is written now when its CRC is known (write), else with the CRC
 * at the end (write_header) - the data, written first, then go to the
 * file in order. */
static ptrdiff_t add_member(struct tout *o, const char *name, uint64_t size, uint32_t crc,
                            int write)
{
	unsigned char h[HEADER_MAX];
	size_t nlen = strlen(name), x;
	struct member *m;

	if (nlen > NAME_MAX_LEN)
		return ckpt_seterr("%s: a member name of %zu bytes", name_of(o), nlen);
	if (o->nm == o->mcap) {
		size_t cap = o->mcap ? 2 * o->mcap : 64;

		if (!(m = realloc(o->m, cap * sizeof *m)))
			return ckpt_seterr("out of memory");
		o->m = m, o->mcap = cap;
	}
	x = local_header(h, o->end, name, size, crc);
	if (write && put_at(o, h, x, o->end) < 0)
		return -1;
	m = &o->m[o->nm];
	if (!(m->name = strdup(name)))
		return ckpt_seterr("out of memory");
	m->header = o->end, m->data = o->end + x, m->size = size, m->crc = crc;
	o->end = m->data + size;
	return (ptrdiff_t)o->nm++;
}

static int write_header(struct tout *o, const struct member *m)
{
	unsigned char h[HEADER_MAX];

	return put_at(o, h, local_header(h, m->header, m->name, m->size, m->crc), m->header);
}

/* A small member whose bytes are known. */
static int add_record(struct tout *o, const char *name, const void *p, size_t n)
{
	ptrdiff_t i = add_member(o, name, n, (uint32_t)crc32(0, p, (uInt)n), 1);

	return i < 0 ? -1 : put_at(o, p, n, o->m[i].data);
}

/* ---- data.pkl ------------------------------------------------------------------- */

/* Tensor i: _rebuild_tensor_v2 of a new contiguous storage (key i), in a
 * Parameter when param; the base's tensor node once more (tied weights,
 * one object): the first one's memo.  Another tensor of the same storage
 * (a detached copy) is a tensor of its own on the same storage. */
static void put_tensor(struct tout *o, struct ckpt_pk_out *p, size_t i, const ckpt_pk *node,
                       int param, int grad)
{
	const struct ckpt_decl *d = &o->l.d[i];
	uint64_t stride[CKPT_MAX_RANK], step = 1;
	char key[32];

	if (o->st[i].memo && o->st[i].node == node) {
		ckpt_pk_get_memo(p, o->st[i].memo - 1);
		return;
	}
	for (int k = d->v.rank; k-- > 0;) {
		stride[k] = step;
		step *= d->v.dims[k] ? d->v.dims[k] : 1;
	}
	snprintf(key, sizeof key, "%zu", i);
	if (param) {
		ckpt_pk_put_global(p, "torch._utils._rebuild_parameter");
		ckpt_pk_op(p, '(');
	}
	ckpt_pk_put_global(p, "torch._utils._rebuild_tensor_v2");
	ckpt_pk_op(p, '(');
	ckpt_pk_op(p, '(');
	ckpt_pk_put_str(p, "storage", 7);
	ckpt_pk_put_global(p, storage_class(d->v.dtype));
	ckpt_pk_put_str(p, key, strlen(key));
	ckpt_pk_put_str(p, "cpu", 3);
	ckpt_pk_put_int(p, (int64_t)d->v.nelems);
	ckpt_pk_op(p, 't');
	ckpt_pk_op(p, 'Q');
	ckpt_pk_put_int(p, 0);
	ckpt_pk_put_ints(p, d->v.dims, d->v.rank);
	ckpt_pk_put_ints(p, stride, d->v.rank);
	ckpt_pk_put_bool(p, !param && grad);
	ckpt_pk_put_global(p, "collections.OrderedDict");
	ckpt_pk_op(p, ')');
	ckpt_pk_op(p, 'R');
	ckpt_pk_op(p, 't');
	ckpt_pk_op(p, 'R');
	if (param) {
		ckpt_pk_put_bool(p, grad);
		ckpt_pk_put_global(p, "collections.OrderedDict");
		ckpt_pk_op(p, ')');
		ckpt_pk_op(p, 'R');
		ckpt_pk_op(p, 't');
		ckpt_pk_op(p, 'R');
	}
	if (!o->st[i].memo)
		o->st[i].memo = ckpt_pk_put_memo(p) + 1, o->st[i].node = node;
}

/* A tensor of the base's structure: the output's variable of its name. */
static int base_tensor(void *user, struct ckpt_pk_out *p, const ckpt_pk *v)
{
	struct tout *o = user;
	const ckpt_var *bv = &o->like->vars[v->tag - 1];
	const struct ckpt_decl *d = ckpt_decl_find(&o->l, bv->name);

	if (!d)
		return ckpt_seterr("%s: '%s' of the base is not in the output, whose structure is "
		                   "the base's (name the output for another format to leave it "
		                   "out)", name_of(o), bv->name);
	put_tensor(o, p, (size_t)(d - o->l.d), v, v->param, v->grad);
	return 0;
}

/* The output's variables that are none of the base's: key and tensor. */
static int added_tensors(void *user, struct ckpt_pk_out *p)
{
	struct tout *o = user;

	for (size_t i = 0; i < o->l.n; i++)
		if (!o->like || !ckpt_find(o->like, o->l.d[i].name)) {
			ckpt_pk_put_str(p, o->l.d[i].name, strlen(o->l.d[i].name));
			put_tensor(o, p, i, NULL, 0, 0);
		}
	return 0;
}

static int added_outside(const struct tout *o, const ckpt_pk *root)
{
	if (root->kind == CKPT_PK_DICT)
		return 0;
	for (size_t i = 0; i < o->l.n; i++)
		if (!ckpt_find(o->like, o->l.d[i].name))
			return ckpt_seterr("%s: '%s' is no part of the base, whose structure is no "
			                   "dict to add it to", name_of(o), o->l.d[i].name);
	return 0;
}

/* An output of only some of its PyTorch base's tensors (a shard of a
 * split) is an OrderedDict of them, as a Hugging Face shard is: the base's
 * other values, if it has any, left out with a warning. */
static void shard_of_base(struct tout *o)
{
	size_t values = 0;

	for (size_t i = 0; i < o->like->nvars; i++)
		if (!ckpt_decl_find(&o->l, o->like->vars[i].name))
			break;
		else if (i + 1 == o->like->nvars)
			return;
	for (size_t i = 0; i < o->like->nobjs; i++)
		values += o->like->objs[i].kind == CKPT_OBJ_VALUE;
	if (values)
		ckpt_warnf("%s: holds some of the tensors of %s, as an OrderedDict: its %zu "
		           "values that are no tensors left out", name_of(o), o->like->name, values);
	o->like = NULL;
}

static int write_pickle(struct tout *o, struct ckpt_pk_out *p)
{
	const struct ckpt_torch *t;
	int rc;

	if (o->like && o->like->nvars)
		shard_of_base(o);
	t = o->like ? o->like->backend->state : NULL;

	ckpt_pk_op(p, 0x80);
	ckpt_pk_op(p, 2);
	if (t) {
		rc = added_outside(o, t->root) < 0
		         ? -1 : ckpt_pk_put_value(p, t->root, base_tensor, added_tensors, o);
	} else {
		ckpt_pk_put_global(p, "collections.OrderedDict");
		ckpt_pk_op(p, ')');
		ckpt_pk_op(p, 'R');
		ckpt_pk_op(p, '(');
		rc = added_tensors(o, p);
		ckpt_pk_op(p, 'u');
	}
	ckpt_pk_op(p, '.');
	if (rc == CKPT_PK_TOO_DEEP)
		rc = ckpt_seterr("%s: the base's structure is nested too deep (or holds itself) to "
		                 "be written", name_of(o));
	if (rc == 0 && p->b.failed)
		rc = ckpt_seterr("out of memory");
	return rc;
}

/* ---- the layout ------------------------------------------------------------------- */

static int put_bytes(struct tout *o, size_t i, const void *buf, size_t n, uint64_t at)
{
	struct tstate *st = &o->st[i];

	if (at == 0)
		st->next = 0, st->crc = 0;
	if (at == st->next && st->next != NOT_IN_ORDER) {
		st->crc = (uint32_t)crc32(st->crc, buf, (uInt)n);
		st->next = at + n;
	} else {
		st->next = NOT_IN_ORDER;
	}
	return put_at(o, buf, n, o->m[st->member].data + at);
}

struct copy_into {
	struct tout *o;
	size_t i;
};

static int put_copy(void *user, const void *buf, size_t n, uint64_t at)
{
	struct copy_into *c = user;

	return put_bytes(c->o, c->i, buf, n, at);
}

/* data.pkl and the records before the data, then each tensor's member
 * (its CRC to come), the copies written. */
static int fix_layout(struct tout *o)
{
	struct ckpt_pk_out p = {0};
	char name[64];
	int rc;

	if (o->fixed)
		return 0;
	o->fixed = 1;
	if (!(o->st = calloc(o->l.n ? o->l.n : 1, sizeof *o->st)))
		return ckpt_seterr("out of memory");
	rc = write_pickle(o, &p);
	rc = rc ? rc : add_record(o, FOLDER "data.pkl", p.b.p, p.b.n);
	ckpt_pk_out_free(&p);
	rc = rc ? rc : add_record(o, FOLDER ".format_version", "1", 1);
	rc = rc ? rc : add_record(o, FOLDER ".storage_alignment", "64", 2);
	rc = rc ? rc : add_record(o, FOLDER "byteorder", "little", 6);
	for (size_t i = 0; i < o->l.n && rc == 0; i++) {
		ptrdiff_t m;

		snprintf(name, sizeof name, FOLDER "data/%zu", i);
		if ((m = add_member(o, name, o->l.d[i].v.nbytes, 0, 0)) < 0)
			rc = -1;
		else
			o->st[i].member = (size_t)m;
	}
	for (size_t i = 0; i < o->l.n && rc == 0; i++)
		if (o->l.d[i].src)
			rc = ckpt_decl_copy(&o->l.d[i], put_copy, &(struct copy_into){o, i});
	return rc;
}

/* ---- values ------------------------------------------------------------------------- */

void *ckpt_tvar_open(void *w, const char *name, ckpt_dtype t, const ckpt_slab *like)
{
	struct tout *o = w;
	const struct ckpt_decl *d = ckpt_decl_find(&o->l, name);
	struct tvar *v;

	if (!d) {
		ckpt_seterr("%s: variable '%s' was not declared", name_of(o), name);
		return NULL;
	}
	if (fix_layout(o) < 0)
		return NULL;
	if (!(v = calloc(1, sizeof *v))) {
		ckpt_seterr("out of memory");
		return NULL;
	}
	v->o = o, v->d = d, v->st = &o->st[d - o->l.d];
	v->mem = like ? like->var->dtype : t;
	return v;
}

int ckpt_tvar_write(void *var, const ckpt_region *r, const void *buf)
{
	struct tvar *w = var;
	const ckpt_var *v = &w->d->v;
	uint64_t index = 0;

	for (int i = 0; i < r->rank; i++)
		index = index * v->dims[i] + r->start[i];
	if (!(buf = ckpt_decl_stored(v, w->mem, buf, r->n, &w->conv, &w->convcap)))
		return -1;
	return put_bytes(w->o, (size_t)(w->d - w->o->l.d), buf, r->n * v->elsize,
	                 index * v->elsize);
}

void ckpt_tvar_close(void *var)
{
	struct tvar *w = var;

	if (!w)
		return;
	free(w->conv);
	free(w);
}

/* ---- the end: CRCs, the last records, the directory ---------------------------------- */

/* Member m's CRC: taken in order, or read back; then its local header. */
static int member_crc(struct tout *o, struct member *m, const struct tstate *st)
{
	unsigned char buf[1 << 16];
	uLong c = 0;

	if (st->next == m->size) {
		m->crc = st->crc;
	} else {
		for (uint64_t at = 0; at < m->size; at += sizeof buf) {
			size_t k = m->size - at < sizeof buf ? (size_t)(m->size - at) : sizeof buf;

			if (ckpt_pread_full(o->t.fd, buf, k, m->data + at) != (ptrdiff_t)k)
				return ckpt_seterr("%s: read error", name_of(o));
			c = crc32(c, buf, (uInt)k);
		}
		m->crc = (uint32_t)c;
	}
	return write_header(o, m);
}

/* A deterministic id (torch writes a random one): of the members' CRCs. */
static void serialization_id(const struct tout *o, char *out, size_t size)
{
	uint64_t h = 1469598103934665603u;

	for (size_t i = 0; i < o->nm; i++)
		h = (h ^ o->m[i].crc) * 1099511628211u;
	snprintf(out, size, "%020" PRIu64 "%020" PRIu64, h, h * 1099511628211u);
}

static int central_entry(struct tout *o, const struct member *m, uint64_t at, size_t *len)
{
	unsigned char e[46 + 4096 + 28];
	size_t nlen = strlen(m->name), x = 46 + nlen, z = x + 4;
	int big = m->size >= BIG, far = m->header >= BIG;

	memset(e, 0, sizeof e);
	memcpy(e, "PK\1\2", 4);
	le(e + 4, big || far ? 45 : 20, 2);
	le(e + 6, big || far ? 45 : 20, 2);
	le(e + 16, m->crc, 4);
	le(e + 20, big ? BIG : m->size, 4);
	le(e + 24, big ? BIG : m->size, 4);
	le(e + 28, nlen, 2);
	le(e + 42, far ? BIG : m->header, 4);
	memcpy(e + 46, m->name, nlen);
	if (big)
		le(e + z, m->size, 8), le(e + z + 8, m->size, 8), z += 16;
	if (far)
		le(e + z, m->header, 8), z += 8;
	if (z > x + 4) {
		le(e + x, 1, 2), le(e + x + 2, z - x - 4, 2);
		x = z;
	}
	le(e + 30, x - 46 - nlen, 2);
	*len = x;
	return put_at(o, e, x, at);
}

/* The central directory at o->end, then the end records (zip64's too
 * where a count, size or offset needs them). */
static int directory(struct tout *o)
{
	uint64_t cd = o->end, at = cd;
	unsigned char e[56 + 20 + 22];
	size_t len, x = 0;
	int z64;

	for (size_t i = 0; i < o->nm; i++, at += len)
		if (central_entry(o, &o->m[i], at, &len) < 0)
			return -1;
	z64 = o->nm >= 0xffff || cd >= BIG || at - cd >= BIG;
	memset(e, 0, sizeof e);
	if (z64) {
		memcpy(e, "PK\6\6", 4);
		le(e + 4, 44, 8), le(e + 12, 45, 2), le(e + 14, 45, 2);
		le(e + 24, o->nm, 8), le(e + 32, o->nm, 8), le(e + 40, at - cd, 8), le(e + 48, cd, 8);
		memcpy(e + 56, "PK\6\7", 4);
		le(e + 64, at, 8), le(e + 72, 1, 4);
		x = 76;
	}
	memcpy(e + x, "PK\5\6", 4);
	le(e + x + 8, z64 ? 0xffff : o->nm, 2), le(e + x + 10, z64 ? 0xffff : o->nm, 2);
	le(e + x + 12, z64 ? BIG : at - cd, 4), le(e + x + 16, z64 ? BIG : cd, 4);
	if (put_at(o, e, x + 22, at) < 0)
		return -1;
	o->end = at + x + 22;
	return 0;
}

static int finish(struct tout *o)
{
	char id[48];
	int rc = fix_layout(o);

	for (size_t i = 0; i < o->l.n && rc == 0; i++)
		rc = member_crc(o, &o->m[o->st[i].member], &o->st[i]);
	if (rc == 0)
		serialization_id(o, id, sizeof id);
	rc = rc ? rc : add_record(o, FOLDER "version", "3\n", 2);
	rc = rc ? rc : add_record(o, FOLDER ".data/serialization_id", id, strlen(id));
	rc = rc ? rc : directory(o);
	if (rc == 0 && ftruncate(o->t.fd, (off_t)o->end) < 0)
		rc = ckpt_seterr_errno(name_of(o));
	return rc;
}

int ckpt_tout_finish(void *w)
{
	return finish(w);
}

struct ckpt_temp *ckpt_tout_tempfile(void *w)
{
	return &((struct tout *)w)->t;
}

int ckpt_tout_commit(void *w)
{
	struct tout *o = w;
	int rc = finish(o);

	rc = rc ? rc : ckpt_temp_commit(&o->t);
	ckpt_tout_abort(o);
	return rc;
}
