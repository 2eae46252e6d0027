/* pickle.c - a restricted unpickler (pickle.h): the data opcodes of
 * protocols 2-5, the globals torch.save writes; nothing called. */
#include "pickle.h"
#include "pickleint.h"
#include "err.h"
#include "pb.h"

#include <stdlib.h>
#include <string.h>

/* The machine: its input, stack, marks and memo. */
struct pm {
	ckpt_pk_doc *d;
	const char *name;
	const unsigned char *start, *p, *end;
	ckpt_pk **stack;
	size_t sp, scap;
	size_t *mark;
	size_t nmark, mcap;
	ckpt_pk **memo;
	size_t nmemo;
};

/* A memo index past this is no pickle Python's pickler writes. */
#define MAX_MEMO (1u << 24)

ckpt_pk_doc *ckpt_pk_doc_new(void)
{
	return calloc(1, sizeof(ckpt_pk_doc));
}

void ckpt_pk_doc_free(ckpt_pk_doc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		free(d->all[i]->s);
		free(d->all[i]->item);
		free(d->all[i]);
	}
	free(d->all);
	free(d);
}

static int bad(struct pm *m, const char *what)
{
	return ckpt_seterr("%s: %s at byte %zu of the pickle", m->name, what,
	                   (size_t)(m->p - m->start));
}

static int nomem(struct pm *m)
{
	return ckpt_seterr("%s: out of memory", m->name);
}

ckpt_pk *ckpt_pk_new(ckpt_pk_doc *d, ckpt_pk_kind kind)
{
	ckpt_pk *v;

	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 256;
		ckpt_pk **all = realloc(d->all, cap * sizeof *all);

		if (!all)
			return NULL;
		d->all = all, d->cap = cap;
	}
	if (!(v = calloc(1, sizeof *v)))
		return NULL;
	v->kind = kind;
	return d->all[d->n++] = v;
}

static ckpt_pk *new_value(struct pm *m, ckpt_pk_kind kind)
{
	return ckpt_pk_new(m->d, kind);
}

int ckpt_pk_add(ckpt_pk *c, ckpt_pk *item)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4;
		ckpt_pk **it = realloc(c->item, cap * sizeof *it);

		if (!it)
			return -1;
		c->item = it, c->cap = cap;
	}
	c->item[c->n++] = item;
	return 0;
}

static int push(struct pm *m, ckpt_pk *v)
{
	if (!v)
		return nomem(m);
	if (m->sp == m->scap) {
		size_t cap = m->scap ? 2 * m->scap : 64;
		ckpt_pk **s = realloc(m->stack, cap * sizeof *s);

		if (!s)
			return nomem(m);
		m->stack = s, m->scap = cap;
	}
	m->stack[m->sp++] = v;
	return 0;
}

/* The bottom of the stack: past the last mark. */
static size_t floor_of(const struct pm *m)
{
	return m->nmark ? m->mark[m->nmark - 1] : 0;
}

static ckpt_pk *pop(struct pm *m)
{
	return m->sp > floor_of(m) ? m->stack[--m->sp] : NULL;
}

static ckpt_pk *top(struct pm *m)
{
	return m->sp > floor_of(m) ? m->stack[m->sp - 1] : NULL;
}

/* The next n bytes, or NULL when the pickle ends first. */
static const unsigned char *take(struct pm *m, uint64_t n)
{
	const unsigned char *at = m->p;

	if ((uint64_t)(m->end - m->p) < n)
		return NULL;
	m->p += n;
	return at;
}

/* ---- values ------------------------------------------------------------------ */

static ckpt_pk *int_value(struct pm *m, int64_t i)
{
	ckpt_pk *v = new_value(m, CKPT_PK_INT);

	if (v)
		v->i = i;
	return v;
}

static ckpt_pk *bytes_value(struct pm *m, ckpt_pk_kind kind, const unsigned char *p, size_t n)
{
	ckpt_pk *v = new_value(m, kind);

	if (!v || !(v->s = malloc(n + 1)))
		return NULL;
	memcpy(v->s, p, n);
	v->s[n] = '\0';
	v->len = n;
	return v;
}

/* LONG1/LONG4: little-endian two's complement; past 8 bytes kept as bytes
 * (torch's legacy magic number is one). */
static ckpt_pk *long_value(struct pm *m, const unsigned char *p, size_t n)
{
	uint64_t u;

	if (n > 8)
		return bytes_value(m, CKPT_PK_BIGINT, p, n);
	u = ckpt_pb_le(p, (int)n);
	if (n > 0 && n < 8 && p[n - 1] & 0x80)
		u |= ~(uint64_t)0 << (8 * n);
	return int_value(m, (int64_t)u);
}

/* Python 2 str (BINSTRING): Latin-1, as UTF-8. */
static ckpt_pk *latin1_value(struct pm *m, const unsigned char *p, size_t n)
{
	ckpt_pk *v = new_value(m, CKPT_PK_STR);
	size_t k = 0;

	if (!v || !(v->s = malloc(2 * n + 1)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < 0x80) {
			v->s[k++] = (char)p[i];
		} else {
			v->s[k++] = (char)(0xc0 | p[i] >> 6);
			v->s[k++] = (char)(0x80 | (p[i] & 0x3f));
		}
	}
	v->s[k] = '\0';
	v->len = k;
	return v;
}

/* The items above the last mark as a new container of kind, mark gone. */
static int pop_mark_into(struct pm *m, ckpt_pk *c)
{
	size_t from;

	if (!m->nmark)
		return bad(m, "an opcode that needs a mark, without one");
	from = m->mark[--m->nmark];
	if (!c)
		return nomem(m);
	for (size_t i = from; i < m->sp; i++)
		if (ckpt_pk_add(c, m->stack[i]) < 0)
			return nomem(m);
	m->sp = from;
	return 0;
}

static int tuple_of(struct pm *m, int k)
{
	ckpt_pk *t = new_value(m, CKPT_PK_TUPLE);

	if (!t)
		return nomem(m);
	if (m->sp < floor_of(m) + (size_t)k)
		return bad(m, "a tuple of more items than the stack holds");
	for (size_t i = m->sp - (size_t)k; i < m->sp; i++)
		if (ckpt_pk_add(t, m->stack[i]) < 0)
			return nomem(m);
	m->sp -= (size_t)k;
	return push(m, t);
}

/* ---- memo ----------------------------------------------------------------------- */

static int put(struct pm *m, uint64_t at)
{
	ckpt_pk *v = top(m);

	if (!v)
		return bad(m, "a memo put on an empty stack");
	/* a pickler numbers its memo from 0, an entry per opcode at most */
	if (at >= MAX_MEMO || at > (uint64_t)(m->p - m->start))
		return bad(m, "a memo index beyond what a pickler writes");
	if (at >= m->nmemo) {
		size_t n = (size_t)at + 1 > 2 * m->nmemo ? (size_t)at + 1 : 2 * m->nmemo;
		ckpt_pk **memo = realloc(m->memo, n * sizeof *memo);

		if (!memo)
			return nomem(m);
		memset(memo + m->nmemo, 0, (n - m->nmemo) * sizeof *memo);
		m->memo = memo, m->nmemo = n;
	}
	m->memo[at] = v;
	return 0;
}

static int get(struct pm *m, uint64_t at)
{
	if (at >= m->nmemo || !m->memo[at])
		return bad(m, "a memo get of nothing put");
	return push(m, m->memo[at]);
}

/* MEMOIZE: the next index is the memo's length as Python counts it. */
static int memoize(struct pm *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nmemo; i++)
		if (m->memo[i])
			n = i + 1;
	return put(m, n);
}

/* ---- globals and their calls ------------------------------------------------------ */

static int global(struct pm *m, const char *mod, size_t mlen, const char *name, size_t nlen)
{
	ckpt_pk *g = new_value(m, CKPT_PK_GLOBAL);

	/* Python 3 writes builtins as Python 2 named them in protocol 2 */
	if (mlen == 11 && memcmp(mod, "__builtin__", 11) == 0)
		mod = "builtins", mlen = 8;

	if (!g || !(g->s = malloc(mlen + nlen + 2)))
		return nomem(m);
	memcpy(g->s, mod, mlen);
	g->s[mlen] = '.';
	memcpy(g->s + mlen + 1, name, nlen);
	g->len = mlen + nlen + 1;
	g->s[g->len] = '\0';
	if (memchr(g->s, '\0', g->len) || !ckpt_pk_allowed(g->s))
		return ckpt_seterr("%s: the pickle names '%s', which is no part of what torch.save "
		                   "writes: refused (ckpt never runs code from a file)", m->name,
		                   g->s);
	return push(m, g);
}

/* GLOBAL: "module\nname\n" */
static int global_line(struct pm *m)
{
	const unsigned char *a = m->p, *nl1 = memchr(a, '\n', (size_t)(m->end - a)), *nl2;

	if (!nl1 || !(nl2 = memchr(nl1 + 1, '\n', (size_t)(m->end - nl1 - 1))))
		return CKPT_PK_SHORT;
	m->p = nl2 + 1;
	return global(m, (const char *)a, (size_t)(nl1 - a), (const char *)nl1 + 1,
	              (size_t)(nl2 - nl1 - 1));
}

static int stack_global(struct pm *m)
{
	ckpt_pk *name = pop(m), *mod = pop(m);

	if (!name || !mod || name->kind != CKPT_PK_STR || mod->kind != CKPT_PK_STR)
		return bad(m, "STACK_GLOBAL without two strings");
	return global(m, mod->s, mod->len, name->s, name->len);
}

static int reduce(struct pm *m)
{
	ckpt_pk *args = pop(m), *fn = pop(m), *v;

	if (!args || !fn || args->kind != CKPT_PK_TUPLE || fn->kind != CKPT_PK_GLOBAL)
		return bad(m, "REDUCE without a global and a tuple");
	if (!(v = ckpt_pk_call(m->d, fn, args)))
		return ckpt_seterr("%s: out of memory, or a call to '%s' with arguments it does "
		                   "not take", m->name, fn->s);
	return push(m, v);
}

/* NEWOBJ(cls, args): cls() for the classes torch.save writes so */
static int newobj(struct pm *m)
{
	ckpt_pk *args = pop(m), *cls = pop(m), *v;

	if (!args || !cls || args->kind != CKPT_PK_TUPLE || cls->kind != CKPT_PK_GLOBAL)
		return bad(m, "NEWOBJ without a class and a tuple");
	if (!(v = ckpt_pk_call(m->d, cls, args)))
		return nomem(m);
	return push(m, v);
}

/* BUILD: an OrderedDict's attributes (a state dict's _metadata) are kept;
 * a tensor's Python attributes are not its values. */
static int build(struct pm *m)
{
	ckpt_pk *state = pop(m), *obj = top(m);

	if (!state || !obj)
		return bad(m, "BUILD on an empty stack");
	if (obj->kind == CKPT_PK_DICT && obj->ordered)
		obj->attrs = state;
	else if (obj->kind != CKPT_PK_TENSOR)
		return bad(m, "BUILD on other than an OrderedDict or a tensor");
	return 0;
}

ckpt_pk *ckpt_pk_arg(const ckpt_pk *t, size_t i)
{
	return t && t->kind == CKPT_PK_TUPLE && i < t->n ? t->item[i] : NULL;
}

/* torch.save's persistent ids: ('storage', type, key, location, numel[,
 * view]) */
static int persid(struct pm *m)
{
	ckpt_pk *pid = pop(m), *s;
	const ckpt_pk *tag = ckpt_pk_arg(pid, 0), *type = ckpt_pk_arg(pid, 1), *key = ckpt_pk_arg(pid, 2),
	              *loc = ckpt_pk_arg(pid, 3), *numel = ckpt_pk_arg(pid, 4);

	if (!pid || !numel || !tag ||
	    (tag->kind != CKPT_PK_STR && tag->kind != CKPT_PK_BYTES) ||
	    strcmp(tag->s, "storage") != 0)
		return bad(m, "a persistent id that names no storage");
	if (type->kind != CKPT_PK_GLOBAL || key->kind != CKPT_PK_STR ||
	    numel->kind != CKPT_PK_INT || numel->i < 0)
		return bad(m, "a storage id without a type, key and size");
	if (pid->n > 5 && pid->item[5]->kind != CKPT_PK_NONE)
		return bad(m, "a view of a storage (written by torch before 0.4), which ckpt "
		              "does not read");
	if (!(s = new_value(m, CKPT_PK_STORAGE)) || !(s->s = strdup(key->s)) ||
	    ckpt_pk_add(s, pid->item[1]) < 0 || ckpt_pk_add(s, pid->item[3]) < 0)
		return nomem(m);
	s->len = key->len;
	s->i = numel->i;
	(void)loc;
	return push(m, s);
}

/* SETITEM(S), APPEND(S), ADDITEMS: into the container below the items. */
static int fill(struct pm *m, size_t from, ckpt_pk_kind want)
{
	ckpt_pk *c = from > 0 ? m->stack[from - 1] : NULL;

	if (!c || c->kind != want || from - 1 < (m->nmark ? m->mark[m->nmark - 1] : 0) ||
	    (want == CKPT_PK_DICT && (m->sp - from) % 2))
		return bad(m, want == CKPT_PK_DICT ? "SETITEMS on other than a dict"
		              : want == CKPT_PK_LIST ? "APPENDS on other than a list"
		                                     : "ADDITEMS on other than a set");
	for (size_t i = from; i < m->sp; i++)
		if (ckpt_pk_add(c, m->stack[i]) < 0)
			return nomem(m);
	m->sp = from;
	return 0;
}

static int fill_marked(struct pm *m, ckpt_pk_kind want)
{
	size_t from;

	if (!m->nmark)
		return bad(m, "an opcode that needs a mark, without one");
	from = m->mark[--m->nmark];
	return fill(m, from, want);
}

static int mark(struct pm *m)
{
	if (m->nmark == m->mcap) {
		size_t cap = m->mcap ? 2 * m->mcap : 16;
		size_t *mk = realloc(m->mark, cap * sizeof *mk);

		if (!mk)
			return nomem(m);
		m->mark = mk, m->mcap = cap;
	}
	m->mark[m->nmark++] = m->sp;
	return 0;
}

/* ---- the opcodes ------------------------------------------------------------------- */

/* Bytes whose length is the n-byte number before them. */
static const unsigned char *counted(struct pm *m, int n, size_t *len)
{
	const unsigned char *p = take(m, (uint64_t)n);
	uint64_t k;

	if (!p)
		return NULL;
	k = ckpt_pb_le(p, n);
	if (k > (uint64_t)(m->end - m->p))
		return NULL;
	*len = (size_t)k;
	return take(m, k);
}

/* Opcodes with bytes after them: strings, bytes, numbers. */
static int counted_op(struct pm *m, unsigned op)
{
	const unsigned char *p;
	size_t n;
	int width = op == 'X' || op == 'T' || op == 'B' ? 4
	          : op == 0x8d || op == 0x8e || op == 0x96 ? 8
	          : op == 0x8b ? 4 : 1;

	if (!(p = counted(m, width, &n)))
		return CKPT_PK_SHORT;
	switch (op) {
	case 'X': case 0x8c: case 0x8d:
		return push(m, bytes_value(m, CKPT_PK_STR, p, n));
	case 'T': case 'U':
		return push(m, latin1_value(m, p, n));
	case 0x8a: case 0x8b:
		return push(m, long_value(m, p, n));
	default: /* B C 0x8e 0x96 */
		return push(m, bytes_value(m, CKPT_PK_BYTES, p, n));
	}
}

/* Opcodes with a fixed number of bytes after them. */
static int fixed_op(struct pm *m, unsigned op)
{
	int width = op == 'J' || op == 'r' || op == 'j' ? 4 : op == 'M' ? 2
	          : op == 'G' || op == 0x95 ? 8 : 1;
	const unsigned char *p = take(m, (uint64_t)width);
	union { uint64_t u; double d; } f;

	if (!p)
		return CKPT_PK_SHORT;
	switch (op) {
	case 'J':
		return push(m, int_value(m, (int32_t)ckpt_pb_le(p, 4)));
	case 'K': case 'M':
		return push(m, int_value(m, (int64_t)ckpt_pb_le(p, width)));
	case 'G':
		f.u = 0;
		for (int i = 0; i < 8; i++)
			f.u = f.u << 8 | p[i];
		{
			ckpt_pk *v = new_value(m, CKPT_PK_FLOAT);

			if (v)
				v->d = f.d;
			return push(m, v);
		}
	case 'q': case 'r':
		return put(m, ckpt_pb_le(p, width));
	case 'h': case 'j':
		return get(m, ckpt_pb_le(p, width));
	case 0x80:
		return p[0] >= 2 && p[0] <= 5 ? 0 : bad(m, "a pickle protocol other than 2 to 5");
	default: /* FRAME: a hint only */
		return 0;
	}
}

static int simple_op(struct pm *m, unsigned op)
{
	ckpt_pk *v;

	switch (op) {
	case 'N': return push(m, new_value(m, CKPT_PK_NONE));
	case 0x88: case 0x89:
		if ((v = new_value(m, CKPT_PK_BOOL)))
			v->i = op == 0x88;
		return push(m, v);
	case ')': return push(m, new_value(m, CKPT_PK_TUPLE));
	case ']': return push(m, new_value(m, CKPT_PK_LIST));
	case '}': return push(m, new_value(m, CKPT_PK_DICT));
	case 0x8f: return push(m, new_value(m, CKPT_PK_SET));
	case 0x85: case 0x86: case 0x87: return tuple_of(m, (int)(op - 0x84));
	case '(': return mark(m);
	case 't':
		v = new_value(m, CKPT_PK_TUPLE);
		return pop_mark_into(m, v) < 0 ? -1 : push(m, v);
	case 'l':
		v = new_value(m, CKPT_PK_LIST);
		return pop_mark_into(m, v) < 0 ? -1 : push(m, v);
	case 0x91:
		v = new_value(m, CKPT_PK_FROZENSET);
		return pop_mark_into(m, v) < 0 ? -1 : push(m, v);
	case 'd':
		v = new_value(m, CKPT_PK_DICT);
		return pop_mark_into(m, v) < 0 ? -1 : v->n % 2 ? bad(m, "DICT of an odd count")
		                                                 : push(m, v);
	case 'a':
		return m->sp < floor_of(m) + 2 ? bad(m, "APPEND without a list and an item")
		                               : fill(m, m->sp - 1, CKPT_PK_LIST);
	case 's':
		return m->sp < floor_of(m) + 3 ? bad(m, "SETITEM without a dict, key and value")
		                               : fill(m, m->sp - 2, CKPT_PK_DICT);
	case 'e': return fill_marked(m, CKPT_PK_LIST);
	case 'u': return fill_marked(m, CKPT_PK_DICT);
	case 0x90: return fill_marked(m, CKPT_PK_SET);
	case '0': return pop(m) ? 0 : bad(m, "POP on an empty stack");
	case '1':
		if (!m->nmark)
			return bad(m, "POP_MARK without a mark");
		m->sp = m->mark[--m->nmark];
		return 0;
	case '2': return top(m) ? push(m, top(m)) : bad(m, "DUP on an empty stack");
	case 'R': return reduce(m);
	case 0x81: return newobj(m);
	case 'b': return build(m);
	case 'Q': return persid(m);
	case 0x93: return stack_global(m);
	case 'c': return global_line(m);
	case 0x94: return memoize(m);
	default: return 1;
	}
}

static int step(struct pm *m, unsigned op)
{
	static const char counted_ops[] = "XTUBC\x8a\x8b\x8c\x8d\x8e\x96";
	static const char fixed_ops[] = "JKMGqrhj\x80\x95";
	int rc;

	if (op != 0 && strchr(counted_ops, (int)op))
		return counted_op(m, op);
	if (op != 0 && strchr(fixed_ops, (int)op))
		return fixed_op(m, op);
	if ((rc = simple_op(m, op)) != 1)
		return rc;
	return bad(m, op < 0x80 && strchr("ILSVFpgPio", (int)op)
	                  ? "an opcode of pickle protocols 0 and 1, which torch.save does not write"
	                  : "an opcode ckpt does not read");
}

static void pm_free(struct pm *m)
{
	free(m->stack);
	free(m->mark);
	free(m->memo);
}

int ckpt_pk_load(ckpt_pk_doc *d, const char *name, const unsigned char *p, size_t n,
                 ckpt_pk **root, size_t *used)
{
	struct pm m = {.d = d, .name = name, .start = p, .p = p, .end = p + n};
	int rc = 0;

	while (rc == 0) {
		unsigned op;

		if (m.p == m.end) {
			rc = CKPT_PK_SHORT;
			break;
		}
		op = *m.p++;
		if (op == '.') {
			if (m.sp == 0)
				rc = bad(&m, "STOP on an empty stack");
			break;
		}
		rc = step(&m, op);
	}
	if (rc == 0) {
		*root = m.stack[m.sp - 1];
		*used = (size_t)(m.p - m.start);
	} else if (rc == CKPT_PK_SHORT) {
		ckpt_seterr("%s: the pickle ends before its STOP (truncated?)", name);
	}
	pm_free(&m);
	return rc;
}

const ckpt_pk *ckpt_pk_seq(const ckpt_pk *t)
{
	if (t && t->kind == CKPT_PK_CALL && strcmp(t->item[0]->s, "torch.Size") == 0 &&
	    t->item[1]->n == 1)
		t = t->item[1]->item[0];
	return t && (t->kind == CKPT_PK_TUPLE || t->kind == CKPT_PK_LIST) ? t : NULL;
}
