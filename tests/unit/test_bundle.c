/* Bundles (bundle.c): the compression a name asks for, and the checksum. */
#include "unit.h"

static void picks_compression_by_suffix(void **state)
{
	(void)state;
	assert_string_equal(ckpt_bundle_compression("a.tar.gz"), "gzip");
	assert_string_equal(ckpt_bundle_compression("dir/a.tgz"), "gzip");
	assert_string_equal(ckpt_bundle_compression("a.tar.zst"), "zstd");
	assert_string_equal(ckpt_bundle_compression("a.tar.xz"), "xz");
	assert_string_equal(ckpt_bundle_compression("a.tar.bz2"), "bzip2");
	assert_string_equal(ckpt_bundle_compression("a.tar"), "none");
	assert_string_equal(ckpt_bundle_compression("-"), "none");
	assert_string_equal(ckpt_bundle_compression(".tar.gz"), "none");
}

static void checksums_like_zlib_in_pieces_or_whole(void **state)
{
	static const char text[] = "123456789";

	(void)state;
	/* the CRC-32 check value of the standard */
	assert_int_equal(ckpt_crc32(0, text, 9), 0xcbf43926u);
	assert_int_equal(ckpt_crc32(ckpt_crc32(0, text, 4), text + 4, 5), 0xcbf43926u);
	assert_int_equal(ckpt_crc32(0, NULL, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(picks_compression_by_suffix),
		cmocka_unit_test(checksums_like_zlib_in_pieces_or_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
