/* The table of formats (formats.c, format.h): every entry provides what
 * its kind needs (a format that reads, one that writes, one only named),
 * names are unique, the formats ckpt only names recognise their files,
 * and an output's name chooses its format. */
#include "unit.h"
#include "lib/format.h"

static void test_every_entry_is_whole(void **state)
{
	(void)state;
	const struct ckpt_format *f, *g;
	size_t n = 0, readers = 0, writers = 0;

	for (size_t i = 0; (f = ckpt_format_at(i)); i++, n++) {
		assert_non_null(f->name);
		assert_non_null(f->probe);
		for (size_t j = 0; j < i; j++) {
			g = ckpt_format_at(j);
			assert_string_not_equal(f->name, g->name);
		}
		if (f->open) {
			readers++;
			assert_non_null(f->close);
			assert_non_null(f->text);
			assert_non_null(f->texts);
			assert_non_null(f->storage);
			assert_non_null(f->slab_open);
			assert_non_null(f->slab_read);
		}
		if (f->out_open) {
			writers++;
			assert_non_null(f->open); /* an output is read back as a base */
			assert_non_null(f->suffixes);
			assert_non_null(f->out_name);
			assert_non_null(f->out_declare);
			/* texts kept (HDF5, safetensors) or none (bundles); a file
			 * that can be a set's shard, or not (a bundle) */
			assert_int_equal(!f->out_set_text, !f->out_unset_text);
			assert_non_null(f->out_commit);
			assert_non_null(f->out_abort);
			assert_int_equal(!f->out_finish, !f->out_tempfile);
			assert_int_equal(!f->out_split, !f->split_name);
			assert_non_null(f->var_open);
			assert_non_null(f->var_write);
			assert_non_null(f->var_close);
			assert_int_equal(!f->copy_structure, !f->copy_var);
		} else {
			assert_null(f->var_open);
		}
	}
	assert_int_equal(readers, 4);
	assert_int_equal(writers, 4);
	assert_true(n > readers);
}

struct sample {
	const char *head;
	size_t n;
	const char *tail;
	const char *name;
	const struct ckpt_format *is;
};

static void test_named_formats_recognise_their_files(void **state)
{
	(void)state;
	static unsigned char zip_npz[64] = "PK\3\4";
	const struct sample s[] = {
		{(const char *)zip_npz, 64, NULL, NULL, &ckpt_format_npz},
		{"\x80\x04\x95", 3, NULL, NULL, &ckpt_format_pickle},
		{"\x93NUMPY\x01\x00", 8, NULL, NULL, &ckpt_format_npy},
		{"GGUF\x03\0\0\0", 8, NULL, NULL, &ckpt_format_gguf},
		{"\x1c\0\0\0TFL3", 8, NULL, NULL, &ckpt_format_tflite},
		{"\0\0\0\0", 4, NULL, "run/model.ckpt.index", &ckpt_format_tf_index},
		{"\0\0\0\0", 4, NULL, "m.data-00000-of-00002", &ckpt_format_tf_data},
		{"\0\0\0\0", 4, NULL, "m.data-00000-of-00002x", NULL},
		{"\0\0\0\0", 4, NULL, "m/saved_model.pb", &ckpt_format_saved_model},
		{"\0\0\0\0", 4, NULL, "saved_model.pb", &ckpt_format_saved_model},
		{"\x08\x07\x12\x07pytorch", 11, NULL, NULL, &ckpt_format_onnx},
		{"\0\0\0\0", 4, NULL, "model.onnx", &ckpt_format_onnx},
		{"hello, world", 12, NULL, "notes.txt", NULL},
	};

	/* a local header naming a first member of 5 bytes */
	zip_npz[26] = 5, memcpy(zip_npz + 30, "w.npy", 5);
	for (size_t i = 0; i < sizeof s / sizeof *s; i++) {
		struct ckpt_probe p = {(const unsigned char *)s[i].head, s[i].n, -1, NULL, s[i].n,
		                       (const unsigned char *)s[i].tail, s[i].name};
		const char *what = ckpt_format_unread(&p);

		assert_null(ckpt_format_of(&p));
		if (s[i].is)
			assert_string_equal(what, s[i].is->name);
		else
			assert_null(what);
	}
}

/* A PyTorch file is read: a zip whose first member is torch's, or the
 * legacy format's pickled magic number. */
static void test_pytorch_files_are_read(void **state)
{
	(void)state;
	static unsigned char zip[64] = "PK\3\4";
	struct ckpt_probe p = {zip, 64, -1, NULL, 64, NULL, NULL};

	zip[26] = 13, memcpy(zip + 30, "arch/data.pkl", 13);
	assert_ptr_equal(ckpt_format_of(&p), &ckpt_format_torch);
	memcpy(zip + 30, "arch/data.pkx", 13);
	assert_null(ckpt_format_of(&p));
	p.head = (const unsigned char *)"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x2e";
	p.n = p.size = 13;
	assert_ptr_equal(ckpt_format_of(&p), &ckpt_format_torch);
	p.head = (const unsigned char *)"\x80\x04\x95";
	p.n = p.size = 3;
	assert_null(ckpt_format_of(&p));
	assert_string_equal(ckpt_format_unread(&p), ckpt_format_pickle.name);
}

/* A TensorFlow index is read: the table's footer magic in its last bytes. */
static void test_tensorflow_index_is_read(void **state)
{
	(void)state;
	static const unsigned char magic[8] = {0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb};
	struct ckpt_probe p = {(const unsigned char *)"\0\0\0\0", 4, -1, NULL, 48, magic, NULL};

	assert_ptr_equal(ckpt_format_of(&p), &ckpt_format_tf);
	p.size = 47; /* no room for a footer */
	assert_null(ckpt_format_of(&p));
}

static void test_output_names_choose_the_format(void **state)
{
	(void)state;
	assert_ptr_equal(ckpt_format_for_output("m.safetensors", NULL), &ckpt_format_safetensors);
	assert_ptr_equal(ckpt_format_for_output("m.h5", NULL), &ckpt_format_hdf5);
	assert_ptr_equal(ckpt_format_for_output("m.keras", NULL), &ckpt_format_hdf5);
	assert_ptr_equal(ckpt_format_for_output("m.dat", NULL), &ckpt_format_hdf5);
	assert_ptr_equal(ckpt_format_for_output("pytorch_model.bin", NULL), &ckpt_format_torch);
	assert_ptr_equal(ckpt_format_for_output("m.pt", NULL), &ckpt_format_torch);
	assert_ptr_equal(ckpt_format_for_output("m.pth", NULL), &ckpt_format_torch);
	assert_ptr_equal(ckpt_format_for_output("last.ckpt", NULL), &ckpt_format_torch);
	assert_ptr_equal(ckpt_format_for_output("run/avg.index", NULL), &ckpt_format_tf);
	assert_ptr_equal(ckpt_format_for_output("m.safetensors.index.json", NULL),
	                 &ckpt_format_hdf5); /* a set: out.c's, of safetensors files */
	assert_ptr_equal(ckpt_format_for_output("-", NULL), &ckpt_format_hdf5);
	assert_ptr_equal(ckpt_format_for_output(NULL, NULL), &ckpt_format_hdf5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_entry_is_whole),
		cmocka_unit_test(test_named_formats_recognise_their_files),
		cmocka_unit_test(test_tensorflow_index_is_read),
		cmocka_unit_test(test_pytorch_files_are_read),
		cmocka_unit_test(test_output_names_choose_the_format),
	};

	return cmocka_run_group_tests_name("formats", tests, NULL, NULL);
}
