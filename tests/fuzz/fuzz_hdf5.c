/* libFuzzer: valid HDF5 files of every shape the toolkit may meet, built
 * from the fuzz input with HDF5's own calls (so the fuzzer explores files,
 * not HDF5's parser): groups, datasets of every element type ckpt knows and
 * some it does not (odd floats, reduced-precision integers, opaque, strings,
 * compounds, enums; Keras 3's bfloat16 mark on anything), ranks 0-3 with
 * empty dimensions, contiguous, compact and chunked storage with filters,
 * attributes up to dense storage, soft and hard links, the newest file
 * format; the values are the input's bytes (NaN, Inf, subnormals,
 * extremes).  Then, in process, what the programs do: list and read every
 * variable with statistics (ckpt-read --stats), compare the file with
 * itself and with a copy whose values differ (ckpt-diff), and average the
 * two into an output that is read back (ckpt-average).  Invariants are
 * checked; nothing may crash or leak. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/ckpt.h"
#include "lib/h5.h" /* fixtures are made with HDF5 itself */

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define MAX_OPS 24
#define MAX_DEPTH 6
#define MAX_ELEMS 4096

struct input {
	const unsigned char *p;
	size_t n;
	unsigned char flip; /* XORed into value bytes: the second file differs */
};

static unsigned take(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

/* ---- element types ----------------------------------------------------- */

static hid_t float_type(size_t bytes, size_t epos, size_t esize, size_t msize,
                        size_t ebias)
{
	hid_t t = H5Tcopy(H5T_IEEE_F32LE);

	H5Tset_fields(t, 8 * bytes - 1, epos, esize, 0, msize);
	H5Tset_size(t, bytes);
	H5Tset_precision(t, 8 * bytes);
	H5Tset_ebias(t, ebias);
	return t;
}

static hid_t bool_enum(void)
{
	hid_t t = H5Tenum_create(H5T_NATIVE_SCHAR);
	signed char f = 0, tr = 1;

	H5Tenum_insert(t, "FALSE", &f);
	H5Tenum_insert(t, "TRUE", &tr);
	return t;
}

static hid_t pair_compound(void)
{
	hid_t t = H5Tcreate(H5T_COMPOUND, 8);

	H5Tinsert(t, "a", 0, H5T_IEEE_F32LE);
	H5Tinsert(t, "b", 4, H5T_STD_I32LE);
	return t;
}

static hid_t odd_int(void)
{
	hid_t t = H5Tcopy(H5T_STD_I32LE);

	H5Tset_precision(t, 20);
	return t;
}

static hid_t opaque2(void)
{
	hid_t t = H5Tcreate(H5T_OPAQUE, 2);

	H5Tset_tag(t, "bfloat16?");
	return t;
}

static hid_t fixed_string(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	H5Tset_size(t, 4);
	return t;
}

/* A plain type: little- and big-endian floats and integers. */
static hid_t plain_type(unsigned k)
{
	switch (k) {
	case 0: return H5T_IEEE_F32LE;
	case 1: return H5T_IEEE_F64LE;
	case 2: return H5T_IEEE_F32BE;
	case 3: return H5T_IEEE_F64BE;
	case 4: return H5T_STD_I8LE;
	case 5: return H5T_STD_U8LE;
	case 6: return H5T_STD_I16LE;
	case 7: return H5T_STD_U16BE;
	case 8: return H5T_STD_I32LE;
	case 9: return H5T_STD_U32LE;
	case 10: return H5T_STD_I64LE;
	default: return H5T_STD_U64BE;
	}
}

/* A new type (to be closed) from one byte. */
static hid_t element_type(unsigned k)
{
	k %= 20;
	if (k < 12)
		return H5Tcopy(plain_type(k));
	switch (k - 12) {
	case 0: return float_type(2, 10, 5, 10, 15);   /* float16 */
	case 1: return float_type(2, 7, 8, 7, 127);    /* bfloat16 */
	case 2: return float_type(3, 16, 7, 16, 63);   /* a float ckpt does not know */
	case 3: return bool_enum();
	case 4: return pair_compound();
	case 5: return odd_int();
	case 6: return opaque2();
	default: return fixed_string();
	}
}

/* ---- building the file ------------------------------------------------- */

struct builder {
	struct input in;
	hid_t fid, group[MAX_DEPTH + 1];
	int depth;
	hid_t last;     /* the last object made (attributes go there) */
	char lastname[16];
	int ndsets;
};

static void name_of(struct builder *b, char *name, const char *kind)
{
	snprintf(name, 16, "%s%u", kind, take(&b->in) % 6);
}

static hid_t dataset_plist(struct builder *b, int rank, const hsize_t *dims,
                           size_t bytes)
{
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	unsigned how = take(&b->in);
	hsize_t chunk[3];

	if ((how & 3) == 1 && bytes <= 1024) {
		H5Pset_layout(dcpl, H5D_COMPACT);
	} else if ((how & 3) >= 2 && rank > 0) {
		for (int i = 0; i < rank; i++)
			chunk[i] = dims[i] ? 1 + take(&b->in) % dims[i] : 1;
		H5Pset_chunk(dcpl, rank, chunk);
		if (how & 4)
			H5Pset_shuffle(dcpl);
		if (how & 8)
			H5Pset_deflate(dcpl, 1);
		if (how & 16)
			H5Pset_fletcher32(dcpl);
	}
	if (how & 32)
		H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED);
	return dcpl;
}

static void add_dataset(struct builder *b)
{
	hid_t t = element_type(take(&b->in)), sp = -1, dcpl = -1, d = -1;
	int rank = (int)(take(&b->in) % 4);
	hsize_t dims[3], n = 1;
	size_t tsize = H5Tget_size(t);
	unsigned char *buf;
	char name[16];

	for (int i = 0; i < rank; i++)
		n *= dims[i] = take(&b->in) % 17;
	if (n > MAX_ELEMS)
		n = 0, dims[0] = 0;
	name_of(b, name, "v");
	sp = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
	dcpl = dataset_plist(b, rank, dims, n * tsize);
	buf = calloc(n ? n : 1, tsize);
	for (size_t i = 0; buf && i < n * tsize; i++)
		buf[i] = (unsigned char)(take(&b->in) ^ (i % 5 == 0 ? b->in.flip : 0));
	for (size_t i = 0; buf && H5Tget_class(t) == H5T_ENUM && i < n; i++)
		buf[i] &= 1; /* h5py's bool: 0 or 1 */
	if (buf && (d = H5Dcreate2(b->group[b->depth], name, t, sp, H5P_DEFAULT, dcpl,
	                           H5P_DEFAULT)) >= 0) {
		if (n)
			H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
		if (b->last >= 0)
			H5Oclose(b->last);
		b->last = d;
		snprintf(b->lastname, sizeof b->lastname, "%s", name);
		b->ndsets++;
	}
	free(buf);
	H5Pclose(dcpl);
	H5Sclose(sp);
	H5Tclose(t);
}

static void add_attributes(struct builder *b)
{
	unsigned how = take(&b->in), count = 1 + how % 12;
	hid_t sp = H5Screate(H5S_SCALAR), vs = H5Tcopy(H5T_C_S1);

	H5Tset_size(vs, H5T_VARIABLE);
	for (unsigned i = 0; b->last >= 0 && i < count; i++) {
		char name[16];
		int v = (int)take(&b->in);
		const char *s = "a variable-length string";
		int str = (how & 16) && i == count - 1;
		hid_t a;

		/* Keras 3's mark of bfloat16, on whatever the last object is */
		snprintf(name, sizeof name, str && (how & 32) ? "dtype" : "a%u", i);
		if (str && (how & 32))
			s = "bfloat16";
		if (H5Aexists(b->last, name) > 0)
			continue;
		a = H5Acreate2(b->last, name, str ? vs : H5T_NATIVE_INT, sp, H5P_DEFAULT,
		               H5P_DEFAULT);
		if (a >= 0) {
			H5Awrite(a, str ? vs : H5T_NATIVE_INT, str ? (const void *)&s : &v);
			H5Aclose(a);
		}
	}
	H5Tclose(vs);
	H5Sclose(sp);
}

static void add_group(struct builder *b)
{
	char name[16];
	hid_t g;

	name_of(b, name, "g");
	if (b->depth == MAX_DEPTH ||
	    (g = H5Gcreate2(b->group[b->depth], name, H5P_DEFAULT, H5P_DEFAULT,
	                    H5P_DEFAULT)) < 0)
		return;
	b->group[++b->depth] = g;
	if (b->last >= 0)
		H5Oclose(b->last);
	b->last = H5Oopen(g, ".", H5P_DEFAULT);
}

static void add_link(struct builder *b)
{
	char name[16];

	name_of(b, name, "l");
	if (!*b->lastname || H5Lexists(b->group[b->depth], name, H5P_DEFAULT) != 0)
		return;
	if (take(&b->in) & 1)
		H5Lcreate_soft(b->lastname, b->group[b->depth], name, H5P_DEFAULT, H5P_DEFAULT);
	else if (H5Lexists(b->group[b->depth], b->lastname, H5P_DEFAULT) > 0)
		H5Lcreate_hard(b->group[b->depth], b->lastname, b->group[b->depth], name,
		               H5P_DEFAULT, H5P_DEFAULT);
}

/* The file the input describes, as an image (malloc'd), or NULL. */
static void *build_image(const unsigned char *data, size_t size, unsigned char flip,
                         size_t *len)
{
	struct builder b = {{data, size, flip}, -1, {-1}, 0, -1, "", 0};
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	unsigned head = take(&b.in);
	void *image = NULL;
	ssize_t n;

	H5Pset_fapl_core(fapl, 1 << 16, 0);
	if (head & 1)
		H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
	b.fid = H5Fcreate("fuzz.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	H5Pclose(fapl);
	if (b.fid < 0)
		return NULL;
	b.group[0] = b.fid;
	for (int op = 0; op < MAX_OPS && b.in.n; op++) {
		switch (take(&b.in) % 8) {
		case 0: add_group(&b); break;
		case 1: add_attributes(&b); break;
		case 2: add_link(&b); break;
		case 3:
			if (b.depth > 0)
				H5Gclose(b.group[b.depth--]);
			break;
		default: add_dataset(&b); break;
		}
	}
	if (b.last >= 0)
		H5Oclose(b.last);
	while (b.depth > 0)
		H5Gclose(b.group[b.depth--]);
	H5Fflush(b.fid, H5F_SCOPE_GLOBAL);
	if ((n = H5Fget_file_image(b.fid, NULL, 0)) > 0 && (image = malloc((size_t)n)) &&
	    H5Fget_file_image(b.fid, image, (size_t)n) != n) {
		free(image);
		image = NULL;
	}
	H5Fclose(b.fid);
	*len = n > 0 ? (size_t)n : 0;
	return image;
}

/* ---- what the programs do ---------------------------------------------- */

static void one_line(void)
{
	if (strchr(ckpt_errmsg(), '\n'))
		abort();
}

/* ckpt-read --stats --values on one variable. */
static void read_var(const ckpt_file *f, const ckpt_var *v)
{
	char text[64], shape[256];
	ckpt_stats st;
	ckpt_summary sum;
	ckpt_slab s;
	uint64_t seen = 0;
	double *work;
	int rc;

	ckpt_shape_str(v, shape, sizeof shape);
	if (v->dtype == CKPT_OTHER)
		return;
	ckpt_stats_init(&st);
	if (ckpt_slab_open(&s, f, v, CKPT_SLAB_BYTES) < 0) {
		one_line();
		return;
	}
	work = malloc(s.cap * sizeof *work + 1);
	while (work && (rc = ckpt_slab_next(&s)) > 0) {
		ckpt_to_double(v->dtype, s.buf, work, s.count);
		ckpt_stats_add(&st, work, s.count);
		for (size_t i = 0; i < s.count && i < 8; i++)
			ckpt_fmt_double(work[i], v->dtype, text);
		seen += s.count;
	}
	if (work && rc == 0 && seen != v->nelems)
		abort();
	ckpt_slab_close(&s);
	free(work);
	ckpt_stats_summary(&st, &sum);
	if (sum.count != seen || (sum.nan == 0 && sum.count && sum.min > sum.max))
		abort();
}

/* ckpt-diff on one variable present in both; a variable against itself
 * never differs. */
static void diff_var(const ckpt_file *fa, const ckpt_var *va, const ckpt_file *fb,
                     const ckpt_var *vb)
{
	ckpt_tol tol = {0, 0, 0, 0, 0};
	ckpt_slab sa, sb;
	ckpt_cmp c;
	int ra = 0, rb = 0;

	if (va->dtype == CKPT_OTHER || vb->dtype == CKPT_OTHER || !ckpt_same_shape(va, vb)) {
		if (ckpt_vars_same(fa, va, fb, vb) < 0)
			one_line();
		return;
	}
	ckpt_cmp_init(&c, 1);
	if (ckpt_slab_open(&sa, fa, va, CKPT_SLAB_BYTES) < 0) {
		one_line();
		return;
	}
	if (ckpt_slab_open(&sb, fb, vb, CKPT_SLAB_BYTES) < 0 ||
	    ckpt_slab_follow(&sb, &sa) < 0) {
		one_line();
		ckpt_slab_close(&sa);
		return;
	}
	while ((ra = ckpt_slab_next(&sa)) > 0 && (rb = ckpt_slab_next(&sb)) > 0)
		ckpt_cmp_slab(&c, &tol, va->dtype, sa.buf, vb->dtype, sb.buf, sa.count,
		              c.count, NULL, NULL);
	ckpt_slab_close(&sa);
	ckpt_slab_close(&sb);
	if (ra < 0 || rb < 0)
		return;
	if (c.count != va->nelems || c.ndiff > c.count || (fa == fb && c.ndiff))
		abort();
	if (fa == fb && c.count && ckpt_cmp_rms(&c) != 0)
		abort();
	(void)ckpt_cmp_cosine(&c), (void)ckpt_cmp_rel_l2(&c);
}

static ckpt_copy_action average_decide(const ckpt_var *v, ckpt_copy_spec *spec,
                                       void *user)
{
	(void)user;
	if (v->dtype == CKPT_OTHER)
		return CKPT_COPY_WHOLE;
	spec->dtype = v->dtype;
	return CKPT_COPY_EMPTY;
}

/* ckpt-average's core for one variable: the mean of a's and b's values
 * written to dst. */
static int average_var(const ckpt_file *fa, const ckpt_var *v, const ckpt_file *fb,
                       ckpt_out *dst)
{
	const ckpt_var *vb = ckpt_find(fb, v->name);
	ckpt_outvar *w = ckpt_outvar_open(dst, v->name, v->dtype);
	ckpt_slab s[2];
	ckpt_combine c;
	ckpt_region r;
	void *out = NULL;
	int rc = -1, r0 = 0, r1 = 0, open = 0;

	if (!w || !vb || vb->dtype != v->dtype || !ckpt_same_shape(v, vb))
		goto done;
	if (ckpt_slab_open(&s[0], fa, v, CKPT_SLAB_BYTES) < 0)
		goto done;
	open = 1;
	if (ckpt_slab_open(&s[1], fb, vb, CKPT_SLAB_BYTES) < 0)
		goto done;
	open = 2;
	if (ckpt_slab_follow(&s[1], &s[0]) < 0 ||
	    !(out = malloc(s[0].cap * ckpt_dtype_size(v->dtype) + 1)))
		goto done;
	ckpt_combine_init(&c, v->dtype, v->dtype, 2, NULL);
	while ((r0 = ckpt_slab_next(&s[0])) > 0 && (r1 = ckpt_slab_next(&s[1])) > 0) {
		const void *in[2] = {s[0].buf, s[1].buf};

		ckpt_combine_slabs(&c, in, out, s[0].count);
		ckpt_slab_region(&s[0], &r);
		if (ckpt_outvar_write(w, &r, out) < 0)
			goto done;
	}
	rc = r0 < 0 || r1 < 0 ? -1 : 0;
done:
	while (open > 0)
		ckpt_slab_close(&s[--open]);
	free(out);
	ckpt_outvar_close(w);
	return rc;
}

static void average(const ckpt_file *fa, const ckpt_file *fb, const char *path)
{
	ckpt_out *o = ckpt_out_open(path, 1, fa);
	ckpt_file *back;
	int rc;

	if (!o) {
		one_line();
		return;
	}
	rc = ckpt_copy_structure(fa, o, average_decide, NULL);
	for (size_t i = 0; rc == 0 && i < fa->nvars; i++)
		if (fa->vars[i].dtype != CKPT_OTHER)
			rc = average_var(fa, &fa->vars[i], fb, o);
	if (rc < 0) {
		one_line();
		ckpt_out_abort(o);
		return;
	}
	if (ckpt_out_commit(o) < 0) {
		one_line();
		return;
	}
	/* the output holds every variable of the first input */
	if (!(back = ckpt_open(path)) || back->nvars != fa->nvars)
		abort();
	for (size_t i = 0; i < back->nvars; i++)
		read_var(back, &back->vars[i]);
	ckpt_close(back);
	unlink(path);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static char path[64];
	size_t la, lb;
	void *ia, *ib;
	ckpt_file *a, *b;

	if (!*path) {
		snprintf(path, sizeof path, "/tmp/ckpt-fuzz-hdf5.%d.h5", (int)getpid());
		ckpt_init();
	}
	if (!(ia = build_image(data, size, 0, &la)))
		return 0;
	if (!(a = ckpt_open_image("a.h5", ia, la))) {
		one_line();
		return 0;
	}
	for (size_t i = 0; i < a->nvars; i++) {
		read_var(a, &a->vars[i]);
		diff_var(a, &a->vars[i], a, &a->vars[i]);
	}
	if ((ib = build_image(data, size, 0x41, &lb)) && (b = ckpt_open_image("b.h5", ib, lb))) {
		for (size_t i = 0; i < a->nvars; i++) {
			const ckpt_var *vb = ckpt_find(b, a->vars[i].name);

			if (vb)
				diff_var(a, &a->vars[i], b, vb);
		}
		average(a, b, path);
		ckpt_close(b);
	}
	ckpt_close(a);
	return 0;
}
