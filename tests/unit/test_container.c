/* Containers (container.c, keras.c): what an output's name asks for, the
 * names of a sharded set's files, the map Keras reads. */
#include "unit.h"
#include "lib/wrap.h"

#include <jansson.h>

static void output_names_choose_the_container(void **state)
{
	(void)state;
	assert_int_equal(ckpt_container_for_output("avg.keras"), CKPT_KERAS_ARCHIVE);
	assert_int_equal(ckpt_container_for_output("d/m.weights.json"), CKPT_KERAS_SHARDS);
	assert_int_equal(ckpt_container_for_output("m.json"), CKPT_BARE);
	assert_int_equal(ckpt_container_for_output(".keras"), CKPT_BARE); /* no name */
	assert_int_equal(ckpt_container_for_output("avg.h5"), CKPT_BARE);
	assert_int_equal(ckpt_container_for_output("-"), CKPT_BARE);
}

static void shards_are_named_after_the_map_in_its_directory(void **state)
{
	char **n = ckpt_keras_shard_names("out/m.weights.json", 2);

	(void)state;
	assert_non_null(n);
	assert_string_equal(n[0], "out/m_00000.weights.h5");
	assert_string_equal(n[1], "out/m_00001.weights.h5");
	assert_null(n[2]);
	free(n[0]), free(n[1]), free(n);
}

static void json_is_recognised_by_its_first_byte(void **state)
{
	(void)state;
	assert_true(ckpt_looks_like_json(" \n\t{\"a\": 1}", 11));
	assert_false(ckpt_looks_like_json("\x89HDF\r\n", 6));
	assert_false(ckpt_looks_like_json("   ", 3));
	assert_false(ckpt_looks_like_json("", 0));
}

/* The map written for a set: the base's, shards renamed in place, the
 * new total, keys in the base's order. */
static void the_map_keeps_the_base_order_and_renames_its_shards(void **state)
{
	const char *text = "{\"metadata\": {\"total_size\": 1.0, \"note\": \"x\"}, "
	                   "\"weight_map\": {\"/b/vars\": \"m_00001.weights.h5\", "
	                   "\"/a/vars\": \"m_00000.weights.h5\"}}";
	char *shards[] = {"m_00000.weights.h5", "m_00001.weights.h5"};
	char *names[] = {"d/o_00000.weights.h5", "d/o_00001.weights.h5", NULL};
	struct ckpt_wrapping w = {0};
	ckpt_container c = {CKPT_KERAS_SHARDS, "m.weights.json", NULL, shards, 2, &w};
	char *out;

	(void)state;
	assert_non_null(w.json = json_loads(text, 0, NULL));
	assert_non_null(out = ckpt_keras_shards_json(&c, names, 288));
	assert_string_equal(out, "{\n"
	                         "    \"metadata\": {\n"
	                         "        \"total_size\": 288,\n"
	                         "        \"note\": \"x\"\n"
	                         "    },\n"
	                         "    \"weight_map\": {\n"
	                         "        \"/b/vars\": \"o_00001.weights.h5\",\n"
	                         "        \"/a/vars\": \"o_00000.weights.h5\"\n"
	                         "    }\n"
	                         "}");
	free(out);
	json_decref(w.json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(output_names_choose_the_container),
		cmocka_unit_test(shards_are_named_after_the_map_in_its_directory),
		cmocka_unit_test(json_is_recognised_by_its_first_byte),
		cmocka_unit_test(the_map_keeps_the_base_order_and_renames_its_shards),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
