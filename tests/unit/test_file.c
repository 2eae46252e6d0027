/* Opening checkpoints: order, lookups, kinds, and the failure messages. */
#include "unit.h"

#include <stdio.h>
#include <unistd.h>

static void dataset(hid_t loc, const char *name, hid_t type, int rank, hsize_t *dims)
{
	hid_t sp = rank < 0 ? H5Screate(H5S_NULL) :
	           rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
	hid_t lcpl = H5Pcreate(H5P_LINK_CREATE), d;

	H5Pset_create_intermediate_group(lcpl, 1);
	d = H5Dcreate2(loc, name, type, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT);
	assert_true(d >= 0);
	H5Dclose(d);
	H5Pclose(lcpl);
	H5Sclose(sp);
}

static void lists_variables_depth_first_in_creation_order(void **state)
{
	hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), f, g, str;
	hsize_t d2[2] = {2, 3}, d0[1] = {0};
	ckpt_file *c;

	(void)state;
	H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
	f = H5Fcreate(unit_path("o.h5"), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
	/* Intermediate groups would inherit the tracking; an explicit group
	 * with default properties does not, so z lists in name order. */
	g = H5Gcreate2(f, "z", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Gclose(g);
	dataset(f, "z/w", H5T_IEEE_F32LE, 2, d2);
	dataset(f, "z/a", H5T_STD_I64BE, 0, NULL);
	dataset(f, "b", H5T_IEEE_F64LE, 1, d0);
	dataset(f, "n", H5T_STD_U8LE, -1, NULL);
	str = H5Tcopy(H5T_C_S1);
	H5Tset_size(str, 10);
	dataset(f, "s", str, 1, d2);
	H5Tclose(str);
	H5Lcreate_soft("/b", f, "link_to_b", H5P_DEFAULT, H5P_DEFAULT);
	H5Lcreate_hard(f, "z", f, "z_again", H5P_DEFAULT, H5P_DEFAULT);
	H5Fclose(f);
	H5Pclose(fcpl);

	c = ckpt_open(unit_path("o.h5"));
	assert_non_null(c);
	assert_int_equal(c->nvars, 5); /* the soft link and second hard link are skipped */
	assert_string_equal(c->vars[0].name, "z/a");
	assert_string_equal(c->vars[1].name, "z/w");
	assert_string_equal(c->vars[2].name, "b");
	assert_string_equal(c->vars[3].name, "n");
	assert_string_equal(c->vars[4].name, "s");
	assert_int_equal(c->vars[0].dtype, CKPT_I64);
	assert_int_equal(c->vars[0].rank, 0);
	assert_int_equal(c->vars[0].nelems, 1);
	assert_int_equal(c->vars[1].nelems, 6);
	assert_int_equal(c->vars[1].nbytes, 24);
	assert_int_equal(c->vars[2].nelems, 0);
	assert_int_equal(c->vars[3].rank, -1);
	assert_int_equal(c->vars[4].dtype, CKPT_OTHER);
	assert_string_equal(c->vars[4].type, "string");
	assert_int_equal(ckpt_total_params(c), 1 + 6 + 0 + 0);
	assert_ptr_equal(ckpt_find(c, "z/w"), &c->vars[1]);
	assert_null(ckpt_find(c, "z/q"));
	ckpt_close(c);
}

static void shows_and_compares_shapes(void **state)
{
	static const uint64_t d[] = {3, 4};
	ckpt_var v = {.rank = 2, .dims = d}, s = {.rank = 0}, n = {.rank = -1};
	char b[64];

	(void)state;
	assert_string_equal(ckpt_shape_str(&v, b, sizeof b), "[3,4]");
	assert_string_equal(ckpt_shape_str(&s, b, sizeof b), "[]");
	assert_string_equal(ckpt_shape_str(&n, b, sizeof b), "null");
	assert_true(ckpt_same_shape(&v, &v));
	assert_false(ckpt_same_shape(&v, &s));
}

static void opens_an_image_in_memory(void **state)
{
	FILE *fp = fopen(unit_path("o.h5"), "rb");
	void *buf;
	size_t size;
	ckpt_file *c;

	(void)state;
	assert_non_null(fp);
	assert_int_equal(ckpt_read_stream(fileno(fp), &buf, &size), 0);
	fclose(fp);
	c = ckpt_open_image("mem", buf, size);
	assert_non_null(c);
	assert_int_equal(c->nvars, 5);
	ckpt_close(c);
}

static void refuses_missing_directories_non_hdf5_and_truncated_files(void **state)
{
	FILE *fp;

	(void)state;
	assert_null(ckpt_open(unit_path("missing.h5")));
	assert_non_null(strstr(ckpt_errmsg(), "missing.h5: No such file"));
	assert_null(ckpt_open(unit_dir));
	assert_non_null(strstr(ckpt_errmsg(), "is a directory"));
	fp = fopen(unit_path("text.h5"), "w");
	fputs("not hdf5 at all, just some words\n", fp);
	fclose(fp);
	assert_null(ckpt_open(unit_path("text.h5")));
	assert_non_null(strstr(ckpt_errmsg(), "text.h5: not an HDF5 or safetensors file"));
	assert_null(ckpt_open_image("img", strdup("short"), 5));
	assert_non_null(strstr(ckpt_errmsg(), "img: not an HDF5 or safetensors file"));
	fp = fopen(unit_path("o.h5"), "rb");
	fseek(fp, 0, SEEK_END);
	assert_int_equal(truncate(unit_path("o.h5"), ftell(fp) / 2), 0);
	fclose(fp);
	assert_null(ckpt_open(unit_path("o.h5")));
	assert_non_null(strstr(ckpt_errmsg(), "o.h5: damaged or truncated HDF5 file (truncated file"));
	assert_null(strchr(ckpt_errmsg(), '\n'));
}

/* A group stored the old way (a symbol table) holds its names in one
 * local heap, which HDF5's cache must hold whole beside the rest (else a
 * million names are a million reads of it); the rest stays small. */
static void sizes_the_cache_for_the_largest_heap_of_names(void **state)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f, g;
	H5AC_cache_config_t c = {.version = H5AC__CURR_CACHE_CONFIG_VERSION};
	H5O_info_t mi;
	ckpt_file *k;
	char name[80];

	(void)state;
	H5Pset_libver_bounds(fapl, H5F_LIBVER_EARLIEST, H5F_LIBVER_LATEST);
	f = H5Fcreate(unit_path("heap.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	for (int i = 0; i < 30000; i++) {
		snprintf(name, sizeof name, "a_rather_long_name_for_variable_number_%06d", i);
		dataset(g, name, H5T_IEEE_F32LE, 0, NULL);
	}
	assert_true(H5Oget_info2(g, &mi, H5O_INFO_META_SIZE) >= 0);
	assert_true(mi.meta_size.obj.heap_size > CKPT_H5_CACHE); /* (the case) */
	H5Gclose(g);
	H5Fclose(f);
	H5Pclose(fapl);
	assert_non_null(k = ckpt_open(unit_path("heap.h5")));
	assert_int_equal(k->nvars, 30000);
	assert_true(H5Fget_mdc_config(ckpt_h5_fid(k), &c) >= 0);
	assert_true(c.max_size == mi.meta_size.obj.heap_size + CKPT_H5_CACHE);
	/* the walk forgotten, the variables are still there and readable */
	assert_true(k->nobjs > 30000);
	ckpt_forget_structure(k);
	assert_int_equal(k->nobjs, 0);
	assert_null(k->objs);
	assert_int_equal(ckpt_vars_same(k, &k->vars[7], k, &k->vars[7]), 1);
	ckpt_close(k);
	unlink(unit_path("heap.h5"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lists_variables_depth_first_in_creation_order),
		cmocka_unit_test(shows_and_compares_shapes),
		cmocka_unit_test(opens_an_image_in_memory),
		cmocka_unit_test(refuses_missing_directories_non_hdf5_and_truncated_files),
		cmocka_unit_test(sizes_the_cache_for_the_largest_heap_of_names),
	};

	ckpt_init();
	return cmocka_run_group_tests(tests, unit_tmpdir, unit_rmdir);
}
