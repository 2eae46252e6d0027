/* What a user names as input (inputs.c): an HDF5 file, or an archive whose
 * HDF5 members are each a checkpoint, named "archive:member". */
#include "unit.h"

#include <archive.h>
#include <archive_entry.h>

/* A checkpoint with one float64 scalar, written through the library. */
static void make_checkpoint(const char *path, const char *var, double value)
{
	ckpt_out *o = ckpt_out_open(path, 1, NULL);

	assert_non_null(o);
	unit_write_scalar(o, var, value);
	assert_int_equal(ckpt_out_commit(o), 0);
}

static void slurp(const char *path, void **buf, size_t *size)
{
	FILE *fp = fopen(path, "rb");

	assert_non_null(fp);
	assert_int_equal(ckpt_read_stream(fileno(fp), buf, size), 0);
	fclose(fp);
}

/* An archive (format: "zip" or "tar") of the members, each a file's bytes,
 * or truncated to cut bytes when cut is not 0. */
static void make_archive(const char *path, const char *format, const char **names,
                         const char **files, size_t n, size_t cut)
{
	struct archive *a = archive_write_new();

	assert_int_equal(strcmp(format, "zip") == 0 ? archive_write_set_format_zip(a) :
	                 archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	for (size_t i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();
		void *buf;
		size_t size;

		slurp(files[i], &buf, &size);
		archive_entry_set_pathname(e, names[i]);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, (la_int64_t)size);
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
		assert_int_equal(archive_write_data(a, buf, size), (la_ssize_t)size);
		archive_entry_free(e);
		free(buf);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	if (cut)
		assert_int_equal(truncate(path, (off_t)cut), 0);
}

static void opens_a_plain_file_as_one_checkpoint(void **state)
{
	ckpt_file **f = NULL;
	size_t n = 0;

	(void)state;
	make_checkpoint(unit_path("one.h5"), "w", 1.5);
	assert_int_equal(ckpt_open_inputs(unit_path("one.h5"), &f, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0]->vars[0].name, "w");
	ckpt_close_inputs(f, n);
}

static void opens_each_hdf5_member_of_an_archive_in_order(void **state)
{
	const char *names[] = {"README.txt", "b.h5", "sub/a.h5"};
	const char *files[3];
	ckpt_file **f = NULL;
	size_t n = 0;
	FILE *fp;

	(void)state;
	make_checkpoint(unit_path("a.h5"), "a", 1);
	make_checkpoint(unit_path("b.h5"), "b", 2);
	fp = fopen(unit_path("readme"), "w");
	fputs("not a checkpoint\n", fp);
	fclose(fp);
	files[0] = unit_path("readme");
	files[1] = unit_path("b.h5");
	files[2] = unit_path("a.h5");
	for (int zip = 0; zip < 2; zip++) {
		const char *archive = unit_path(zip ? "set.zip" : "set.tar");

		make_archive(archive, zip ? "zip" : "tar", names, files, 3, 0);
		assert_int_equal(ckpt_open_inputs(archive, &f, &n), 0);
		assert_int_equal(n, 2); /* the text member is not a checkpoint */
		assert_non_null(strstr(f[0]->name, ":b.h5"));
		assert_non_null(strstr(f[1]->name, ":sub/a.h5"));
		assert_string_equal(f[0]->vars[0].name, "b");
		assert_string_equal(f[1]->vars[0].name, "a");
		ckpt_close_inputs(f, n);
		f = NULL;
		n = 0;
	}
}

static void appends_nothing_when_an_input_fails(void **state)
{
	const char *names[] = {"a.h5", "b.h5"};
	const char *files[2];
	ckpt_file **f = NULL;
	size_t n = 0;

	(void)state;
	make_checkpoint(unit_path("a.h5"), "a", 1);
	make_checkpoint(unit_path("b.h5"), "b", 2);
	assert_int_equal(ckpt_open_inputs(unit_path("a.h5"), &f, &n), 0);
	assert_int_equal(ckpt_open_inputs(unit_path("missing.h5"), &f, &n), -1);
	assert_non_null(strstr(ckpt_errmsg(), "missing.h5: No such file"));
	assert_int_equal(n, 1);
	/* a member cut short: the message names archive and member */
	files[0] = unit_path("a.h5");
	files[1] = unit_path("b.h5");
	make_archive(unit_path("cut.tar"), "tar", names, files, 2, 2048);
	assert_int_equal(ckpt_open_inputs(unit_path("cut.tar"), &f, &n), -1);
	assert_non_null(strstr(ckpt_errmsg(), "cut.tar"));
	assert_null(strchr(ckpt_errmsg(), '\n'));
	assert_int_equal(n, 1);
	ckpt_close_inputs(f, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(opens_a_plain_file_as_one_checkpoint),
		cmocka_unit_test(opens_each_hdf5_member_of_an_archive_in_order),
		cmocka_unit_test(appends_nothing_when_an_input_fails),
	};

	ckpt_init();
	return cmocka_run_group_tests(tests, unit_tmpdir, unit_rmdir);
}
