/* The output writer: atomic commit, no clobbering, cleanup, structure copy. */
#include "unit.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


static int entries(void)
{
	DIR *d = opendir(unit_dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n += e->d_name[0] != '.' || (e->d_name[1] && e->d_name[1] != '.');
	closedir(d);
	return n;
}

static void clean(void)
{
	DIR *d = opendir(unit_dir);
	struct dirent *e;
	char p[512];

	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof p, "%s/%s", unit_dir, e->d_name);
			unlink(p);
		}
	closedir(d);
}

static void commits_atomically_and_aborts_cleanly(void **state)
{
	ckpt_out *o;
	struct stat st;
	ckpt_file *f;

	(void)state;
	clean();
	o = ckpt_out_open(unit_path("a.h5"), 0, NULL);
	assert_non_null(o);
	assert_int_equal(entries(), 1); /* only the temporary */
	assert_int_equal(stat(unit_path("a.h5"), &st), -1);
	unit_write_scalar(o, "x", 1.5);
	assert_int_equal(ckpt_out_commit(o), 0);
	assert_int_equal(entries(), 1);
	f = ckpt_open(unit_path("a.h5"));
	assert_non_null(f);
	assert_string_equal(f->vars[0].name, "x");
	ckpt_close(f);
	o = ckpt_out_open(unit_path("b.h5"), 0, NULL);
	unit_write_scalar(o, "y", 2);
	ckpt_out_abort(o);
	assert_int_equal(entries(), 1); /* nothing left of b */
}

static void keeps_an_existing_target_without_force(void **state)
{
	ckpt_out *o, *late;
	ckpt_file *f;

	(void)state;
	clean();
	o = ckpt_out_open(unit_path("a.h5"), 0, NULL);
	unit_write_scalar(o, "first", 1);
	assert_int_equal(ckpt_out_commit(o), 0);
	assert_null(ckpt_out_open(unit_path("a.h5"), 0, NULL));
	assert_non_null(strstr(ckpt_errmsg(), "a.h5: already exists (use -f"));
	/* the target appears while we write: refused at commit, not replaced */
	unlink(unit_path("a.h5"));
	late = ckpt_out_open(unit_path("a.h5"), 0, NULL);
	o = ckpt_out_open(unit_path("a.h5"), 0, NULL);
	unit_write_scalar(o, "winner", 1);
	unit_write_scalar(late, "loser", 1);
	assert_int_equal(ckpt_out_commit(o), 0);
	assert_int_equal(ckpt_out_commit(late), -1);
	assert_non_null(strstr(ckpt_errmsg(), "already exists"));
	assert_int_equal(entries(), 1);
	f = ckpt_open(unit_path("a.h5"));
	assert_string_equal(f->vars[0].name, "winner");
	ckpt_close(f);
	/* with force: replaced whole */
	o = ckpt_out_open(unit_path("a.h5"), 1, NULL);
	unit_write_scalar(o, "forced", 1);
	assert_int_equal(ckpt_out_commit(o), 0);
	f = ckpt_open(unit_path("a.h5"));
	assert_int_equal(f->nvars, 1);
	assert_string_equal(f->vars[0].name, "forced");
	ckpt_close(f);
}

static void refuses_targets_it_cannot_write(void **state)
{
	(void)state;
	assert_null(ckpt_out_open(unit_path("no/such/dir/x.h5"), 0, NULL));
	assert_non_null(strstr(ckpt_errmsg(), "x.h5: cannot create a file there: No such file"));
	assert_null(ckpt_out_open(unit_dir, 1, NULL));
	assert_non_null(strstr(ckpt_errmsg(), "is a directory"));
}

/* A writer killed by SIGTERM removes its temporary. */
static void removes_the_temporary_on_a_signal(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	clean();
	pid = fork();
	if (pid == 0) {
		ckpt_out *o = ckpt_out_open(unit_path("s.h5"), 0, NULL);

		if (!o)
			_exit(3);
		raise(SIGTERM);
		_exit(4);
	}
	waitpid(pid, &status, 0);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	assert_int_equal(entries(), 0);
}

static void string_attr(hid_t loc, const char *name, const char *value, int vlen)
{
	hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR), a;

	H5Tset_size(t, vlen ? H5T_VARIABLE : strlen(value) + 1);
	a = H5Acreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	H5Awrite(a, t, vlen ? (const void *)&value : value);
	H5Aclose(a);
	H5Sclose(sp);
	H5Tclose(t);
}

/* A Keras-like source: root attributes (fixed and variable strings), an
 * empty layer group with an attribute, chunked compressed data, a soft link,
 * creation order tracked at the root. */
static void make_source(const char *path)
{
	hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), f, g, sp, dcpl, d;
	hsize_t dims[2] = {6, 4}, chunk[2] = {3, 4};
	float v[24];

	for (int i = 0; i < 24; i++)
		v[i] = (float)i / 3;
	H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
	f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
	string_attr(f, "keras_version", "2.13.1", 0);
	string_attr(f, "backend", "tensorflow", 1);
	g = H5Gcreate2(f, "zz_input", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	string_attr(g, "weight_names", "", 0);
	H5Gclose(g);
	g = H5Gcreate2(f, "dense", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	sp = H5Screate_simple(2, dims, NULL);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	H5Pset_chunk(dcpl, 2, chunk);
	H5Pset_deflate(dcpl, 6);
	d = H5Dcreate2(g, "kernel:0", H5T_IEEE_F32BE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
	string_attr(d, "note", "big-endian", 1);
	H5Dclose(d);
	H5Pclose(dcpl);
	H5Sclose(sp);
	H5Gclose(g);
	H5Lcreate_soft("/dense/kernel:0", f, "alias", H5P_DEFAULT, H5P_DEFAULT);
	H5Fclose(f);
	H5Pclose(fcpl);
}

static ckpt_copy_action keep_empty(const ckpt_var *v, ckpt_copy_spec *spec, void *user)
{
	(void)v;
	spec->dtype = *(ckpt_dtype *)user;
	return CKPT_COPY_EMPTY;
}

static ckpt_copy_action keep_whole(const ckpt_var *v, ckpt_copy_spec *spec, void *user)
{
	(void)v, (void)spec, (void)user;
	return CKPT_COPY_WHOLE;
}

static void read_string_attr(hid_t loc, const char *obj, const char *name, char *out)
{
	hid_t a = H5Aopen_by_name(loc, obj, name, H5P_DEFAULT, H5P_DEFAULT);
	hid_t t = H5Aget_type(a), mt = H5Tcopy(H5T_C_S1);

	assert_true(a >= 0);
	if (H5Tis_variable_str(t) > 0) {
		char *s;

		H5Tset_size(mt, H5T_VARIABLE);
		H5Aread(a, mt, &s);
		strcpy(out, s);
		H5free_memory(s);
	} else {
		H5Tset_size(mt, H5Tget_size(t));
		H5Aread(a, mt, out);
	}
	H5Tclose(mt);
	H5Tclose(t);
	H5Aclose(a);
}

static void check_copy(const char *path, int whole)
{
	ckpt_file *c = ckpt_open(path);
	hid_t d, dcpl, t;
	char buf[64];
	float v[24];

	assert_non_null(c);
	assert_int_equal(c->nobjs, 4);
	assert_int_equal(c->objs[0].kind, CKPT_OBJ_GROUP);
	assert_string_equal(c->objs[0].path, "zz_input"); /* creation order kept */
	assert_string_equal(c->objs[1].path, "dense");
	assert_int_equal(c->objs[2].kind, CKPT_OBJ_VAR);
	assert_int_equal(c->objs[3].kind, CKPT_OBJ_SOFTLINK);
	assert_string_equal(c->objs[3].target, "/dense/kernel:0");
	read_string_attr(ckpt_h5_fid(c), "/", "keras_version", buf);
	assert_string_equal(buf, "2.13.1");
	read_string_attr(ckpt_h5_fid(c), "/", "backend", buf);
	assert_string_equal(buf, "tensorflow");
	read_string_attr(ckpt_h5_fid(c), "zz_input", "weight_names", buf);
	assert_string_equal(buf, "");
	read_string_attr(ckpt_h5_fid(c), "dense/kernel:0", "note", buf);
	assert_string_equal(buf, "big-endian");
	d = H5Dopen2(ckpt_h5_fid(c), "dense/kernel:0", H5P_DEFAULT);
	dcpl = H5Dget_create_plist(d);
	t = H5Dget_type(d);
	assert_int_equal(H5Pget_layout(dcpl), H5D_CHUNKED);
	assert_int_equal(H5Pget_nfilters(dcpl), 1);
	if (whole) {
		assert_int_equal(H5Tget_order(t), H5T_ORDER_BE);
		H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
		assert_true(v[23] == (float)23 / 3);
	} else {
		assert_int_equal(ckpt_dtype_of(t), CKPT_F16);
	}
	H5Tclose(t);
	H5Pclose(dcpl);
	H5Dclose(d);
	ckpt_close(c);
}

static void copies_groups_attributes_and_storage(void **state)
{
	ckpt_file *src;
	ckpt_out *o;
	ckpt_dtype f16 = CKPT_F16;

	(void)state;
	clean();
	make_source(unit_path("src.h5"));
	src = ckpt_open(unit_path("src.h5"));
	assert_non_null(src);
	o = ckpt_out_open(unit_path("whole.h5"), 0, src);
	assert_int_equal(ckpt_copy_structure(src, o, keep_whole, NULL), 0);
	assert_int_equal(ckpt_out_commit(o), 0);
	check_copy(unit_path("whole.h5"), 1);
	o = ckpt_out_open(unit_path("empty.h5"), 0, src);
	assert_int_equal(ckpt_copy_structure(src, o, keep_empty, &f16), 0);
	assert_int_equal(ckpt_out_commit(o), 0);
	check_copy(unit_path("empty.h5"), 0);
	ckpt_close(src);
}

/* Every real Keras file copied whole is the same file for h5diff: data,
 * attributes, groups.  Skipped without ../shared or h5diff. */
static void copies_files_other_software_wrote(void **state)
{
	const char *real = "../shared/testdata/real/keras";
	DIR *d = opendir(real);
	struct dirent *e;
	int n = 0;

	(void)state;
	if (!d || system("h5diff --version >/dev/null 2>&1") != 0) {
		if (d)
			closedir(d);
		skip();
	}
	while ((e = readdir(d))) {
		char src[512], cmd[1400];
		ckpt_file *f;
		ckpt_out *o;

		if (!strstr(e->d_name, ".h5"))
			continue;
		snprintf(src, sizeof src, "%s/%s", real, e->d_name);
		f = ckpt_open(src);
		assert_non_null(f);
		o = ckpt_out_open(unit_path("copy.h5"), 1, f);
		assert_non_null(o);
		assert_int_equal(ckpt_copy_structure(f, o, keep_whole, NULL), 0);
		assert_int_equal(ckpt_out_commit(o), 0);
		ckpt_close(f);
		snprintf(cmd, sizeof cmd, "h5diff -q '%s' '%s'", src, unit_path("copy.h5"));
		if (system(cmd) != 0)
			fail_msg("h5diff finds %s and its copy different", src);
		n++;
	}
	closedir(d);
	assert_true(n > 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(commits_atomically_and_aborts_cleanly),
		cmocka_unit_test(keeps_an_existing_target_without_force),
		cmocka_unit_test(refuses_targets_it_cannot_write),
		cmocka_unit_test(removes_the_temporary_on_a_signal),
		cmocka_unit_test(copies_groups_attributes_and_storage),
		cmocka_unit_test(copies_files_other_software_wrote),
	};

	ckpt_init();
	return cmocka_run_group_tests(tests, unit_tmpdir, unit_rmdir);
}
