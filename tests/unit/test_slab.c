/* Slab geometry, and reading variables slab by slab in C order. */
#include "unit.h"

#include <stdio.h>
#include <unistd.h>


static void plans_slabs_of_whole_chunks_within_the_budget(void **state)
{
	uint64_t d3[3] = {10, 20, 30}, chunk[3] = {4, 20, 30};
	uint64_t d1[1] = {1000};
	int split;
	uint64_t step;

	(void)state;
	ckpt_slab_plan(3, d3, NULL, 6000, &split, &step); /* all fits */
	assert_int_equal(split, 0);
	assert_int_equal(step, 10);
	ckpt_slab_plan(3, d3, NULL, 1800, &split, &step); /* 3 rows of 600 */
	assert_int_equal(split, 0);
	assert_int_equal(step, 3);
	ckpt_slab_plan(3, d3, chunk, 3000, &split, &step); /* 5 rows -> 4, whole chunks */
	assert_int_equal(split, 0);
	assert_int_equal(step, 4);
	ckpt_slab_plan(3, d3, NULL, 100, &split, &step); /* 3 rows of 30 */
	assert_int_equal(split, 1);
	assert_int_equal(step, 3);
	ckpt_slab_plan(3, d3, NULL, 7, &split, &step); /* within the last dim */
	assert_int_equal(split, 2);
	assert_int_equal(step, 7);
	{ /* tiny chunks: at most 1024 chunks a slab, still whole ones */
		uint64_t big[1] = {1000000}, one[1] = {1}, three[1] = {3};
		uint64_t wide[2] = {10, 1000000}, ones[2] = {1, 1};

		ckpt_slab_plan(1, big, one, 1 << 20, &split, &step);
		assert_int_equal(split, 0);
		assert_int_equal(step, 1024);
		ckpt_slab_plan(1, big, three, 1 << 20, &split, &step);
		assert_int_equal(step, 3072);
		ckpt_slab_plan(2, wide, ones, 1 << 20, &split, &step); /* split deeper */
		assert_int_equal(split, 1);
		assert_int_equal(step, 1024);
	}
	ckpt_slab_plan(1, d1, NULL, 0, &split, &step); /* never less than 1 */
	assert_int_equal(step, 1);
	ckpt_slab_plan(0, NULL, NULL, 10, &split, &step); /* scalar */
	assert_int_equal(step, 1);
}

static const char *make_file(void)
{
	static char path[128];
	hsize_t dims[3] = {7, 5, 3}, chunk[3] = {2, 5, 2};
	float v[105];
	hid_t f, sp, dcpl, d;

	snprintf(path, sizeof path, "%s/s.h5", unit_dir);
	for (int i = 0; i < 105; i++)
		v[i] = (float)i;
	f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	sp = H5Screate_simple(3, dims, NULL);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	H5Pset_chunk(dcpl, 3, chunk);
	H5Pset_deflate(dcpl, 1);
	d = H5Dcreate2(f, "chunked", H5T_IEEE_F32BE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
	H5Dclose(d);
	d = H5Dcreate2(f, "plain", H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
	H5Dclose(d);
	H5Sclose(sp);
	sp = H5Screate(H5S_SCALAR);
	d = H5Dcreate2(f, "scalar", H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v + 42);
	H5Dclose(d);
	H5Sclose(sp);
	H5Pclose(dcpl);
	H5Fclose(f);
	return path;
}

/* Every budget gives the values 0..104 in order, never more than asked. */
static void reads_in_order(void **state)
{
	ckpt_file *f = ckpt_open(make_file());
	const char *names[2] = {"chunked", "plain"};

	(void)state;
	assert_non_null(f);
	for (int k = 0; k < 2; k++) {
		const ckpt_var *v = ckpt_find(f, names[k]);

		assert_non_null(v);
		for (size_t budget = 4; budget <= 500; budget += 4) {
			ckpt_slab s;
			uint64_t next = 0;
			int rc;

			assert_int_equal(ckpt_slab_open(&s, f, v, budget), 0);
			while ((rc = ckpt_slab_next(&s)) == 1) {
				const float *p = s.buf;

				assert_true(s.count * 4 <= (budget < 4 ? 4 : budget));
				assert_int_equal(s.start, next);
				for (size_t i = 0; i < s.count; i++)
					assert_true(p[i] == (float)(next + i));
				next += s.count;
			}
			assert_int_equal(rc, 0);
			assert_int_equal(next, 105);
			ckpt_slab_close(&s);
		}
	}
	ckpt_close(f);
}

static void reads_scalars_and_reports_read_errors(void **state)
{
	ckpt_file *f = ckpt_open(make_file());
	const ckpt_var *v = ckpt_find(f, "scalar");
	ckpt_slab s;

	(void)state;
	assert_int_equal(ckpt_slab_open(&s, f, v, 1), 0);
	assert_int_equal(ckpt_slab_next(&s), 1);
	assert_int_equal(s.count, 1);
	assert_true(*(float *)s.buf == 42);
	assert_int_equal(ckpt_slab_next(&s), 0);
	ckpt_slab_close(&s);
	ckpt_close(f);
}

/* In place: a contiguous float32 variable is read without copying, also
 * behind a user block (offsets count from the start of the file), also
 * from an in-memory image; the values are the same. */
static void reads_contiguous_values_in_place(void **state)
{
	char path[128];
	hsize_t n = 1000;
	float v[1000];
	hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), f, sp, d;
	int used = 0;

	(void)state;
	for (int i = 0; i < 1000; i++)
		v[i] = (float)i * 0.5f;
	snprintf(path, sizeof path, "%s/ub.h5", unit_dir);
	H5Pset_userblock(fcpl, 1024);
	f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
	sp = H5Screate_simple(1, &n, NULL);
	d = H5Dcreate2(f, "v", H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
	H5Dclose(d);
	H5Sclose(sp);
	H5Fclose(f);
	H5Pclose(fcpl);
	for (int image = 0; image < 2; image++) {
		ckpt_file *cf;
		ckpt_slab s;
		uint64_t next = 0;

		if (image) {
			FILE *fp = fopen(path, "rb");
			void *buf;
			size_t size;

			assert_int_equal(ckpt_read_stream(fileno(fp), &buf, &size), 0);
			fclose(fp);
			cf = ckpt_open_image("ub", buf, size);
		} else {
			cf = ckpt_open(path);
		}
		assert_non_null(cf);
		assert_int_equal(ckpt_slab_open(&s, cf, ckpt_find(cf, "v"), 400), 0);
		used += s.in_place;
		while (ckpt_slab_next(&s) == 1) {
			for (size_t i = 0; i < s.count; i++)
				assert_true(((const float *)s.buf)[i] == (float)(next + i) * 0.5f);
			next += s.count;
		}
		assert_int_equal(next, 1000);
		ckpt_slab_close(&s);
		ckpt_close(cf);
	}
	assert_int_equal(used, 2);
	unlink(path);
}

/* Whether the first `before` values of the chunked (7,5,3) variable, in C
 * order, are whole chunks (2,5,2): counted value by value. */
static int whole_chunks_before(uint64_t before)
{
	int seen[4][1][2] = {{{0}}}, all[4][1][2] = {{{0}}};

	for (uint64_t i = 0; i < 105; i++) {
		int a = (int)(i / 15), b = (int)(i / 3 % 5), c = (int)(i % 3);

		(void)b;
		all[a / 2][0][c / 2]++;
		if (i < before)
			seen[a / 2][0][c / 2]++;
	}
	for (int a = 0; a < 4; a++)
		for (int c = 0; c < 2; c++)
			if (seen[a][0][c] && seen[a][0][c] != all[a][0][c])
				return 0;
	return 1;
}

/* Sharing a variable among ranks: slab i read after a seek (before any
 * read, or after all of them) is the slab read i-th in order (and the one
 * a seek to its first or last element reads), and a slab is an edge exactly when the values before
 * it are whole chunks; contiguous storage has an edge at every slab. */
static void seeks_and_finds_chunk_edges(void **state)
{
	ckpt_file *f = ckpt_open(make_file());
	const char *names[2] = {"chunked", "plain"};

	(void)state;
	assert_non_null(f);
	for (int k = 0; k < 2; k++) {
		const ckpt_var *v = ckpt_find(f, names[k]);

		for (size_t budget = 4; budget <= 500; budget += 4) {
			ckpt_slab s, t;
			unsigned char edges[105];
			uint64_t starts[106];
			size_t n, i = 0;

			assert_int_equal(ckpt_slab_open(&s, f, v, budget), 0);
			n = ckpt_slab_count(&s, edges);
			while (ckpt_slab_next(&s) == 1)
				starts[i++] = s.start;
			assert_int_equal(i, n);
			for (i = 0; i < n; i++) {
				assert_int_equal(edges[i],
				                 k == 1 || whole_chunks_before(starts[i]));
				assert_int_equal(ckpt_slab_open(&t, f, v, budget), 0);
				ckpt_slab_seek(&t, i);
				assert_int_equal(ckpt_slab_next(&t), 1);
				assert_int_equal(t.start, starts[i]);
				assert_true(*(const float *)t.buf == (float)starts[i]);
				ckpt_slab_close(&t);
				/* the slab that holds its first and its last element */
				for (int end = 0; end < 2; end++) {
					uint64_t e = end ? (i + 1 < n ? starts[i + 1] : v->nelems) - 1
					                 : starts[i];

					assert_int_equal(ckpt_slab_open(&t, f, v, budget), 0);
					assert_int_equal(ckpt_slab_seek_element(&t, e), i);
					assert_int_equal(ckpt_slab_next(&t), 1);
					assert_int_equal(t.start, starts[i]);
					ckpt_slab_close(&t);
				}
			}
			/* after reads too, backwards (s was read to its end) */
			for (i = n; i-- > 0;) {
				ckpt_slab_seek(&s, i);
				assert_int_equal(ckpt_slab_next(&s), 1);
				assert_int_equal(s.start, starts[i]);
				assert_true(*(const float *)s.buf == (float)starts[i]);
			}
			/* and forwards from a slab just read (walked from there), to
			 * itself (from the first again), the next, and further */
			for (i = 0; i < n; i++) {
				size_t to[4] = {i, i + 1, i + 3, n - 1};

				for (int w = 0; w < 4; w++) {
					if (to[w] >= n)
						continue;
					ckpt_slab_seek(&s, i);
					assert_int_equal(ckpt_slab_next(&s), 1);
					if (w & 1) {
						ckpt_slab_seek(&s, to[w]);
					} else {
						uint64_t e = to[w] + 1 < n ? starts[to[w] + 1] - 1 : starts[to[w]];

						assert_int_equal(ckpt_slab_seek_element(&s, e), to[w]);
					}
					assert_int_equal(ckpt_slab_next(&s), 1);
					assert_int_equal(s.start, starts[to[w]]);
					assert_true(*(const float *)s.buf == (float)starts[to[w]]);
				}
			}
			assert_int_equal(edges[0], 1);
			ckpt_slab_close(&s);
		}
	}
	ckpt_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plans_slabs_of_whole_chunks_within_the_budget),
		cmocka_unit_test(reads_in_order),
		cmocka_unit_test(reads_scalars_and_reports_read_errors),
		cmocka_unit_test(reads_contiguous_values_in_place),
		cmocka_unit_test(seeks_and_finds_chunk_edges),
	};

	ckpt_init();
	return cmocka_run_group_tests(tests, unit_tmpdir, unit_rmdir);
}
