/* mkfixtures - write the small HDF5 checkpoints the tests use.
 *
 *   mkfixtures DIR          the standard set (see the list in main)
 *   mkfixtures --many N F   a file with N small variables in 100 groups
 *   mkfixtures --hostile DIR  files meant to break readers (see hostile())
 *
 * Values are fixed formulas, so tests can state what they expect. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ckpt.h"
#include "lib/h5.h" /* fixtures are made with HDF5 itself */

static _Noreturn void fail(const char *what)
{
	fprintf(stderr, "mkfixtures: %s\n", what);
	exit(1);
}

/* A dataset of dtype t from double values; chunk/gzip on request. */
static void put(hid_t loc, const char *name, ckpt_dtype t, int rank,
                const hsize_t *dims, const double *vals, const hsize_t *chunk)
{
	hsize_t n = 1;
	hid_t ft = ckpt_dtype_filetype(t), mt = ckpt_dtype_memtype(t);
	hid_t sp = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), lcpl = H5Pcreate(H5P_LINK_CREATE), d;
	void *buf;

	for (int i = 0; i < rank; i++)
		n *= dims[i];
	if (chunk) {
		H5Pset_chunk(dcpl, rank, chunk);
		H5Pset_shuffle(dcpl);
		H5Pset_deflate(dcpl, 4);
	}
	H5Pset_create_intermediate_group(lcpl, 1);
	buf = calloc(n ? n : 1, ckpt_dtype_size(t));
	ckpt_from_double(t, vals, buf, n);
	d = H5Dcreate2(loc, name, ft, sp, lcpl, dcpl, H5P_DEFAULT);
	if (d < 0 || (n && H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0))
		fail(name);
	H5Dclose(d);
	free(buf);
	H5Sclose(sp);
	H5Pclose(dcpl);
	H5Pclose(lcpl);
	H5Tclose(ft);
	H5Tclose(mt);
}

static double *ramp(size_t n, double a, double b)
{
	double *v = malloc((n ? n : 1) * sizeof *v);

	for (size_t i = 0; i < n; i++)
		v[i] = a * (double)i + b;
	return v;
}

static hid_t create(const char *dir, const char *name, int track_order)
{
	char path[4096];
	hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), f;

	if (track_order)
		H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
	H5Pclose(fcpl);
	if (f < 0)
		fail(path);
	return f;
}

static void string_attr(hid_t loc, const char *name, const char *value)
{
	hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR), a;

	H5Tset_size(t, strlen(value) + 1);
	a = H5Acreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	H5Awrite(a, t, value);
	H5Aclose(a);
	H5Sclose(sp);
	H5Tclose(t);
}

/* dtypes.h5: one [2,3] variable of every dtype, values i - 2 (floats
 * i*0.25 - 1), plus specials in f32/f16/bf16. */
static void dtypes(const char *dir)
{
	hid_t f = create(dir, "dtypes.h5", 0);
	hsize_t dims[2] = {2, 3}, five = 5;
	double *iv = ramp(6, 1, -2), *fv = ramp(6, 0.25, -1);
	double bools[6] = {0, 1, 1, 0, 0, 1};
	double special[5] = {1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, 0.0, -0.0};

	for (int t = CKPT_BOOL; t < CKPT_NDTYPES; t++) {
		const double *v = t == CKPT_BOOL ? bools :
		                  ckpt_dtype_is_float((ckpt_dtype)t) ? fv : iv;
		double uv[6];

		if (t == CKPT_F8E4M3 || t == CKPT_F8E5M2)
			continue; /* no HDF5 type: safetensors only */
		if (t >= CKPT_U8 && t <= CKPT_U64) {
			for (int i = 0; i < 6; i++)
				uv[i] = i * 40.0;
			v = uv;
		}
		put(f, ckpt_dtype_name((ckpt_dtype)t), (ckpt_dtype)t, 2, dims, v, NULL);
	}
	put(f, "special/f32", CKPT_F32, 1, &five, special, NULL);
	put(f, "special/f16", CKPT_F16, 1, &five, special, NULL);
	put(f, "special/bf16", CKPT_BF16, 1, &five, special, NULL);
	free(iv);
	free(fv);
	H5Fclose(f);
}

/* model.h5: a small Keras-like model with attributes, a scalar, an empty
 * variable, a string and a compound, and chunked + compressed storage. */
static void model(const char *dir)
{
	hid_t f = create(dir, "model.h5", 0), g, t, sp, d;
	hsize_t k[2] = {4, 3}, b = 3, e[2] = {0, 3}, chunk[2] = {2, 3}, three = 3;
	double *kv = ramp(12, 0.5, -3), *bv = ramp(3, 1, 0.5), one = 7;
	const char *words[3] = {"alpha", "beta", "gamma"};
	struct { int a; double b; } rec[3] = {{1, 0.5}, {2, 1.5}, {3, 2.5}};

	string_attr(f, "keras_version", "2.13.1");
	put(f, "dense/dense/kernel:0", CKPT_F32, 2, k, kv, chunk);
	put(f, "dense/dense/bias:0", CKPT_F32, 1, &b, bv, NULL);
	put(f, "optimizer/iterations:0", CKPT_I64, 0, NULL, &one, NULL);
	put(f, "empty", CKPT_F32, 2, e, NULL, NULL);
	g = H5Gopen2(f, "dense", H5P_DEFAULT);
	string_attr(g, "weight_names", "dense/kernel:0");
	H5Gclose(g);
	t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, H5T_VARIABLE);
	sp = H5Screate_simple(1, &three, NULL);
	d = H5Dcreate2(f, "labels", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, words);
	H5Dclose(d);
	H5Tclose(t);
	t = H5Tcreate(H5T_COMPOUND, sizeof rec[0]);
	H5Tinsert(t, "a", 0, H5T_NATIVE_INT);
	H5Tinsert(t, "b", sizeof(double), H5T_NATIVE_DOUBLE);
	d = H5Dcreate2(f, "records", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rec);
	H5Dclose(d);
	H5Tclose(t);
	H5Sclose(sp);
	free(kv);
	free(bv);
	H5Fclose(f);
}

/* order.h5: the root tracks creation order (zeta before alpha); group
 * "plain" does not (listed b before c although c was created first). */
static void order(const char *dir)
{
	hid_t f = create(dir, "order.h5", 1), g;
	hsize_t one = 1;
	double v = 1;

	put(f, "zeta", CKPT_F32, 1, &one, &v, NULL);
	put(f, "alpha", CKPT_F32, 1, &one, &v, NULL);
	g = H5Gcreate2(f, "plain", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	put(g, "c", CKPT_F32, 1, &one, &v, NULL);
	put(g, "b", CKPT_F32, 1, &one, &v, NULL);
	H5Gclose(g);
	put(f, "middle", CKPT_F32, 1, &one, &v, NULL);
	H5Fclose(f);
}

/* many: n variables w0..w(n-1) of shape [4] spread over 100 groups. */
static void many(const char *path, long n)
{
	hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	hsize_t four = 4;
	double v[4] = {1, 2, 3, 4};
	char name[64];

	if (f < 0)
		fail(path);
	for (long i = 0; i < n; i++) {
		snprintf(name, sizeof name, "g%02ld/w%ld", i % 100, i);
		put(f, name, CKPT_F32, 1, &four, v, NULL);
	}
	H5Fclose(f);
}

/* An unallocated chunked float32 dataset: a shape, no data. */
static void claim(hid_t f, const char *name, int rank, const hsize_t *dims)
{
	hsize_t chunk[CKPT_MAX_RANK];
	hid_t sp = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
	hid_t d;

	for (int i = 0; i < rank; i++)
		chunk[i] = 1;
	chunk[rank - 1] = dims[rank - 1] < 1024 ? dims[rank - 1] : 1024;
	H5Pset_chunk(dcpl, rank, chunk);
	if (sp < 0 || (d = H5Dcreate2(f, name, H5T_IEEE_F32LE, sp, H5P_DEFAULT, dcpl,
	                              H5P_DEFAULT)) < 0)
		fail(name);
	H5Dclose(d);
	H5Pclose(dcpl);
	H5Sclose(sp);
}

/* Hostile but valid files:
 *   huge.h5     'huge' claims 2^62 float32 values, none stored
 *   rank32.h5   'deep' of rank 32, every dimension 2 (2^32 values, none stored)
 *   names.h5    names with a space, newline, tab, '%', bytes that are not
 *               UTF-8, and a 1000-byte name; values 1..6
 *   empty.h5    variables of shape [0], [0,5] and a null dataspace
 *   big.h5      'w': 2 MiB of contiguous float32, to be truncated */
static void hostile(const char *dir)
{
	hsize_t huge[2] = {(hsize_t)1 << 31, (hsize_t)1 << 31}, deep[32], one = 1;
	hsize_t zero = 0, zero5[2] = {0, 5}, n = 1 << 19;
	double v = 1, *big = ramp((size_t)n, 1, 0);
	char longname[1001];
	static const char *names[] = {"with space", "new\nline", "tab\there", "per%cent%s%n",
	                              "\xff\xfe not utf-8"};
	hid_t f, sp, d;

	f = create(dir, "huge.h5", 1);
	claim(f, "huge", 2, huge);
	put(f, "small", CKPT_F32, 1, &one, &v, NULL);
	H5Fclose(f);
	for (int i = 0; i < 32; i++)
		deep[i] = 2;
	f = create(dir, "rank32.h5", 1);
	claim(f, "deep", 32, deep);
	H5Fclose(f);
	f = create(dir, "names.h5", 1);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++, v++)
		put(f, names[i], CKPT_F32, 1, &one, &v, NULL);
	memset(longname, 'x', 1000);
	longname[1000] = 0;
	put(f, longname, CKPT_F32, 1, &one, &v, NULL);
	H5Fclose(f);
	f = create(dir, "empty.h5", 1);
	put(f, "zero", CKPT_F32, 1, &zero, &v, NULL);
	put(f, "zero5", CKPT_I32, 2, zero5, &v, NULL);
	sp = H5Screate(H5S_NULL);
	if ((d = H5Dcreate2(f, "null", H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT,
	                    H5P_DEFAULT)) < 0)
		fail("null");
	H5Dclose(d);
	H5Sclose(sp);
	H5Fclose(f);
	f = create(dir, "big.h5", 1);
	put(f, "w", CKPT_F32, 1, &n, big, NULL);
	H5Fclose(f);
	free(big);
}

int main(int argc, char **argv)
{
	ckpt_init();
	if (argc == 4 && strcmp(argv[1], "--many") == 0) {
		many(argv[3], atol(argv[2]));
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--hostile") == 0) {
		hostile(argv[2]);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: mkfixtures DIR | mkfixtures --many N FILE | "
		        "mkfixtures --hostile DIR\n");
		return 2;
	}
	dtypes(argv[1]);
	model(argv[1]);
	order(argv[1]);
	return 0;
}
