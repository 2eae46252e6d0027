/* CRC-32C: known answers (RFC 3720's and LevelDB's), the instruction and
 * the table alike at every length and alignment, extension in pieces, and
 * TensorFlow's mask. */
#include "unit.h"
#include "lib/crc32c.h"

static void known_answers(void **state)
{
	unsigned char zeros[32] = {0}, ones[32], up[32], down[32];

	(void)state;
	memset(ones, 0xff, sizeof ones);
	for (int i = 0; i < 32; i++)
		up[i] = (unsigned char)i, down[i] = (unsigned char)(31 - i);
	assert_int_equal(ckpt_crc32c_extend(0, "123456789", 9), 0xe3069283u);
	assert_int_equal(ckpt_crc32c_extend(0, zeros, 32), 0x8a9136aau);
	assert_int_equal(ckpt_crc32c_extend(0, ones, 32), 0x62a8ab43u);
	assert_int_equal(ckpt_crc32c_extend(0, up, 32), 0x46dd794eu);
	assert_int_equal(ckpt_crc32c_extend(0, down, 32), 0x113fdb5cu);
	assert_int_equal(ckpt_crc32c_extend(0, "", 0), 0);
}

static void instruction_and_table_agree(void **state)
{
	static unsigned char buf[1100];
	uint64_t r = 0x9e3779b97f4a7c15u;

	(void)state;
	for (size_t i = 0; i < sizeof buf; i++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		buf[i] = (unsigned char)r;
	}
	for (size_t off = 0; off < 9; off++)
		for (size_t n = 0; n + off <= sizeof buf; n += 1 + n / 7) {
			uint32_t whole = ckpt_crc32c_extend(0, buf + off, n);
			size_t cut = n / 3;

			assert_int_equal(whole, ckpt_crc32c_by_table(0, buf + off, n));
			assert_int_equal(whole, ckpt_crc32c_extend(
				ckpt_crc32c_extend(0, buf + off, cut), buf + off + cut, n - cut));
		}
}

/* Buffers long enough for the three interleaved streams (rounds of
 * 12 KiB), at every alignment and around every round's end. */
static void long_buffers_agree(void **state)
{
	size_t size = 5 * 12288 + 100;
	unsigned char *buf = malloc(size);
	uint64_t r = 0x2545f4914f6cdd1du;

	(void)state;
	assert_non_null(buf);
	for (size_t i = 0; i < size; i++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		buf[i] = (unsigned char)r;
	}
	for (size_t off = 0; off < 9; off++)
		for (size_t round = 1; round <= 5; round++)
			for (size_t n = round * 12288 - 9; n <= round * 12288 + 9 && n + off <= size; n++) {
				uint32_t whole = ckpt_crc32c_extend(0, buf + off, n);

				assert_int_equal(whole, ckpt_crc32c_by_table(0, buf + off, n));
				assert_int_equal(whole, ckpt_crc32c_extend(
					ckpt_crc32c_extend(0, buf + off, n / 3), buf + off + n / 3,
					n - n / 3));
			}
	memset(buf, 0xff, size);
	assert_int_equal(ckpt_crc32c_extend(7, buf, size), ckpt_crc32c_by_table(7, buf, size));
	free(buf);
}

static void mask_round_trips(void **state)
{
	(void)state;
	/* LevelDB: the mask changes the value, and unmasks back */
	assert_int_equal(ckpt_crc32c_unmask(ckpt_crc32c_mask(0xe3069283u)), 0xe3069283u);
	assert_true(ckpt_crc32c_mask(0xe3069283u) != 0xe3069283u);
	assert_true(ckpt_crc32c_mask(ckpt_crc32c_mask(0xe3069283u)) != 0xe3069283u);
	for (uint32_t c = 1; c < 0xfff00000u; c += 0x00fedcbau)
		assert_int_equal(ckpt_crc32c_unmask(ckpt_crc32c_mask(c)), c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_answers),
		cmocka_unit_test(instruction_and_table_agree),
		cmocka_unit_test(long_buffers_agree),
		cmocka_unit_test(mask_round_trips),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
