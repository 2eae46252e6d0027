/* TensorFlow's table (the .index of a tensor bundle) and the protocol
 * buffer fields of its entries: the bundles TensorFlow wrote (../shared,
 * skipped where absent: plain and Snappy-compressed blocks, TF1 and TF2
 * names), every entry's tensor CRC against the data file; damaged and
 * truncated tables are errors, never a read out of bounds.  Tables
 * written: TensorFlow's rebuilt byte for byte, small blocks read back. */
#include "unit.h"
#include "lib/crc32c.h"
#include "lib/pb.h"
#include "lib/tftable.h"

#define REAL "../shared/testdata/real/tf/"

static unsigned char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return buf;
}

struct entries {
	char keys[16][64];
	uint64_t dtype[16], offset[16], size[16], crc[16];
	int n;
};

static int collect(const char *key, size_t klen, const unsigned char *val, size_t vlen,
                   void *user)
{
	struct entries *e = user;
	const unsigned char *p = val;
	struct ckpt_pb_field f;
	int rc;

	assert_true(e->n < 16 && klen < 64);
	memcpy(e->keys[e->n], key, klen + 1);
	e->dtype[e->n] = e->offset[e->n] = e->size[e->n] = e->crc[e->n] = 0;
	while ((rc = ckpt_pb_next(&p, val + vlen, &f)) > 0) {
		if (f.number == 1 && f.wire == 0)
			e->dtype[e->n] = f.value;
		if (f.number == 4 && f.wire == 0)
			e->offset[e->n] = f.value;
		if (f.number == 5 && f.wire == 0)
			e->size[e->n] = f.value;
		if (f.number == 6 && f.wire == 5)
			e->crc[e->n] = f.value;
	}
	assert_int_equal(rc, 0);
	e->n++;
	return 0;
}

/* A scalar string tensor as TensorFlow encodes it: the length as a
 * varint, the masked CRC of the length as 4 bytes (uint32), the bytes; the
 * entry's CRC runs over the length as uint32, that CRC's 4 bytes, and the
 * string. */
static void check_string(const unsigned char *p, uint64_t size, uint32_t entry_crc)
{
	const unsigned char *q = p;
	uint64_t len;
	uint32_t len32, crc, stored;

	assert_int_equal(ckpt_pb_varint(&q, p + size, &len), 0);
	assert_int_equal((uint64_t)(q - p) + 4 + len, size);
	len32 = (uint32_t)len;
	crc = ckpt_crc32c_extend(0, &len32, 4);
	memcpy(&stored, q, 4);
	assert_int_equal(stored, ckpt_crc32c_mask(crc));
	crc = ckpt_crc32c_extend(crc, q, 4);
	crc = ckpt_crc32c_extend(crc, q + 4, len);
	assert_int_equal(ckpt_crc32c_mask(crc), entry_crc);
}

static void check_bundle(const char *dir, const char *const *keys, int nkeys)
{
	char path[256];
	unsigned char *index, *data;
	size_t isize, dsize;
	struct entries e = {0};

	snprintf(path, sizeof path, REAL "%s/variables/variables.index", dir);
	if (!(index = slurp(path, &isize)))
		skip();
	snprintf(path, sizeof path, REAL "%s/variables/variables.data-00000-of-00001", dir);
	assert_non_null(data = slurp(path, &dsize));
	assert_true(ckpt_tftable_magic(index + isize - 8));
	assert_int_equal(ckpt_tftable_each(path, index, isize, collect, &e), 0);
	assert_int_equal(e.n, nkeys);
	for (int i = 0; i < nkeys; i++) {
		assert_string_equal(e.keys[i], keys[i]);
		if (i == 0) /* the header: no dtype */
			continue;
		assert_true(e.offset[i] + e.size[i] <= dsize);
		if (e.dtype[i] == 1) /* float32: the CRC of the bytes */
			assert_int_equal(ckpt_crc32c_mask(ckpt_crc32c_extend(0, data + e.offset[i],
			                                                      e.size[i])), e.crc[i]);
		if (e.dtype[i] == 7) /* a scalar string: length, its CRC, bytes */
			check_string(data + e.offset[i], e.size[i], (uint32_t)e.crc[i]);
	}
	free(index);
	free(data);
}

static void tf1_names_plain_blocks(void **state)
{
	static const char *const keys[] = {"", "a", "b", "c"};

	(void)state;
	check_bundle("half_plus_three", keys, 4);
}

static void tf1_names_snappy_blocks(void **state)
{
	static const char *const keys[] = {"", "a", "a2", "b", "c", "c2"};

	(void)state;
	check_bundle("half_plus_two_cpu", keys, 6);
}

static void tf2_names_and_object_graph(void **state)
{
	static const char *const keys[] = {"", "_CHECKPOINTABLE_OBJECT_GRAPH",
	                                   "a/.ATTRIBUTES/VARIABLE_VALUE",
	                                   "b/.ATTRIBUTES/VARIABLE_VALUE",
	                                   "c/.ATTRIBUTES/VARIABLE_VALUE"};

	(void)state;
	check_bundle("half_plus_two_tf2", keys, 5);
}

static int count(const char *key, size_t klen, const unsigned char *val, size_t vlen, void *user)
{
	(void)key, (void)klen, (void)val, (void)vlen;
	++*(int *)user;
	return 0;
}

/* Every single-byte change and every truncation of a real index: an
 * error with a message, or (a change the CRC does not cover, in the
 * footer's padding) the same walk; never a crash (ASan watches). */
static void damaged_and_truncated(void **state)
{
	static const char *const dirs[] = {"half_plus_three", "half_plus_two_cpu"};

	(void)state;
	for (int d = 0; d < 2; d++) {
		char path[256];
		unsigned char *index, *copy;
		size_t size;

		snprintf(path, sizeof path, REAL "%s/variables/variables.index", dirs[d]);
		if (!(index = slurp(path, &size)))
			skip();
		for (size_t cut = 0; cut < size; cut++) {
			int n = 0;

			assert_non_null(copy = malloc(cut ? cut : 1));
			memcpy(copy, index, cut);
			assert_int_equal(ckpt_tftable_each("x.index", copy, cut, count, &n), -1);
			assert_non_null(strstr(ckpt_errmsg(), "x.index: "));
			free(copy);
		}
		for (size_t i = 0; i < size; i++)
			for (int bit = 0; bit < 8; bit++) {
				int n = 0, rc;

				index[i] ^= (unsigned char)(1 << bit);
				rc = ckpt_tftable_each("x.index", index, size, count, &n);
				index[i] ^= (unsigned char)(1 << bit);
				assert_true(rc == 0 || rc == -1);
				if (rc == 0) /* only the footer's padding is not checked */
					assert_true(i >= size - 48 && i < size - 8);
			}
		free(index);
	}
}

/* ---- writing ---------------------------------------------------------------- */

/* A table's entries copied into a builder writing to a temporary file,
 * whose bytes come back in *out. */
struct rebuild {
	struct ckpt_tftable_out *t;
};

static int add_to(const char *key, size_t klen, const unsigned char *val, size_t vlen,
                  void *user)
{
	return ckpt_tftable_add(((struct rebuild *)user)->t, key, klen, val, vlen);
}

static unsigned char *file_bytes(FILE *f, size_t *size)
{
	unsigned char *buf;
	long n;

	fflush(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	assert_non_null(buf = malloc((size_t)n + 1));
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	*size = (size_t)n;
	return buf;
}

static unsigned char *rebuild(const unsigned char *image, size_t size, size_t block,
                              size_t *out_size)
{
	FILE *f = tmpfile();
	struct rebuild r;
	unsigned char *out;

	assert_non_null(f);
	assert_non_null(r.t = ckpt_tftable_out_new(fileno(f), "y.index", block));
	assert_int_equal(ckpt_tftable_each("x.index", image, size, add_to, &r), 0);
	assert_int_equal(ckpt_tftable_finish(r.t), 0);
	ckpt_tftable_out_free(r.t);
	out = file_bytes(f, out_size);
	fclose(f);
	return out;
}

/* What TensorFlow wrote uncompressed comes out of the builder byte for
 * byte (the index block's key is the last key's shortest successor); the
 * Snappy-compressed ones with the same entries. */
static void tables_written_as_tensorflow_writes_them(void **state)
{
	static const char *const dirs[] = {"counter", "half_plus_three", "half_plus_two_cpu",
	                                   "half_plus_two_tf2"};

	(void)state;
	for (int d = 0; d < 4; d++) {
		char path[256];
		unsigned char *index, *built;
		size_t size, bsize;
		struct entries a = {0}, b = {0};

		snprintf(path, sizeof path, REAL "%s/variables/variables.index", dirs[d]);
		if (!(index = slurp(path, &size)))
			skip();
		built = rebuild(index, size, CKPT_TFTABLE_BLOCK, &bsize);
		if (d < 2) {
			assert_int_equal(bsize, size);
			assert_memory_equal(built, index, size);
		}
		assert_int_equal(ckpt_tftable_each("x", index, size, collect, &a), 0);
		assert_int_equal(ckpt_tftable_each("y", built, bsize, collect, &b), 0);
		assert_memory_equal(&a, &b, sizeof a);
		free(index);
		free(built);
	}
}

struct seen {
	char keys[600][16];
	int n;
};

static int remember(const char *key, size_t klen, const unsigned char *val, size_t vlen,
                    void *user)
{
	struct seen *s = user;

	assert_true(s->n < 600 && klen < 16 && vlen == klen);
	assert_memory_equal(val, key, klen);
	memcpy(s->keys[s->n++], key, klen + 1);
	return 0;
}

/* Many blocks of 64 bytes: keys that share prefixes, that are prefixes of
 * the next, that hold 0xff bytes (no separator shorter than the key), all
 * read back in order. */
static void small_blocks_and_awkward_keys(void **state)
{
	FILE *f = tmpfile();
	struct ckpt_tftable_out *t;
	struct seen s = {0};
	unsigned char *image;
	size_t size;
	char keys[600][16];
	int n = 0;

	(void)state;
	assert_non_null(f);
	for (unsigned i = 0; i < 200; i++) {
		snprintf(keys[n++], 16, "a%03u", i);
		snprintf(keys[n++], 16, "a%03u\xff", i);
		snprintf(keys[n++], 16, "a%03u\xff\xff", i);
	}
	assert_non_null(t = ckpt_tftable_out_new(fileno(f), "z.index", 64));
	for (int i = 0; i < n; i++)
		assert_int_equal(ckpt_tftable_add(t, keys[i], strlen(keys[i]), keys[i],
		                                  strlen(keys[i])), 0);
	assert_int_equal(ckpt_tftable_finish(t), 0);
	ckpt_tftable_out_free(t);
	image = file_bytes(f, &size);
	fclose(f);
	assert_int_equal(ckpt_tftable_each("z.index", image, size, remember, &s), 0);
	assert_int_equal(s.n, n);
	for (int i = 0; i < n; i++)
		assert_string_equal(s.keys[i], keys[i]);
	free(image);
}

static void protobuf_written_and_read_back(void **state)
{
	struct ckpt_bytes o = {0};
	const unsigned char *p;
	struct ckpt_pb_field f;

	(void)state;
	ckpt_pb_put_uint(&o, 1, 150);
	ckpt_pb_put_bytes(&o, 2, "ab", 2);
	ckpt_pb_put_fixed32(&o, 6, 0x04030201u);
	ckpt_pb_put_uint(&o, 4, UINT64_MAX);
	assert_false(o.failed);
	p = o.p;
	assert_int_equal(ckpt_pb_next(&p, o.p + o.n, &f), 1);
	assert_true(f.number == 1 && f.value == 150);
	assert_int_equal(ckpt_pb_next(&p, o.p + o.n, &f), 1);
	assert_true(f.number == 2 && f.len == 2 && memcmp(f.bytes, "ab", 2) == 0);
	assert_int_equal(ckpt_pb_next(&p, o.p + o.n, &f), 1);
	assert_true(f.number == 6 && f.wire == 5 && f.value == 0x04030201u);
	assert_int_equal(ckpt_pb_next(&p, o.p + o.n, &f), 1);
	assert_true(f.number == 4 && f.value == UINT64_MAX);
	assert_int_equal(ckpt_pb_next(&p, o.p + o.n, &f), 0);
	assert_int_equal(o.n, 23); /* the bytes protobuf_fields reads */
	ckpt_bytes_free(&o);
}

static void protobuf_fields(void **state)
{
	/* 1: varint 150; 2: "ab"; 6: fixed32; 4: varint of 10 bytes */
	static const unsigned char msg[] = {0x08, 0x96, 0x01, 0x12, 0x02, 'a', 'b', 0x35,
	                                    1, 2, 3, 4, 0x20, 0xff, 0xff, 0xff, 0xff, 0xff,
	                                    0xff, 0xff, 0xff, 0xff, 0x01};
	const unsigned char *p = msg;
	struct ckpt_pb_field f;

	(void)state;
	assert_int_equal(ckpt_pb_next(&p, msg + sizeof msg, &f), 1);
	assert_true(f.number == 1 && f.wire == 0 && f.value == 150);
	assert_int_equal(ckpt_pb_next(&p, msg + sizeof msg, &f), 1);
	assert_true(f.number == 2 && f.wire == 2 && f.len == 2 && f.bytes[1] == 'b');
	assert_int_equal(ckpt_pb_next(&p, msg + sizeof msg, &f), 1);
	assert_true(f.number == 6 && f.wire == 5 && f.value == 0x04030201u);
	assert_int_equal(ckpt_pb_next(&p, msg + sizeof msg, &f), 1);
	assert_true(f.number == 4 && f.value == UINT64_MAX);
	assert_int_equal(ckpt_pb_next(&p, msg + sizeof msg, &f), 0);
	for (size_t cut = 1; cut < sizeof msg; cut++) { /* truncated: -1 at some field */
		int rc;

		p = msg;
		while ((rc = ckpt_pb_next(&p, msg + cut, &f)) > 0)
			;
		assert_int_equal(rc, cut == 3 || cut == 7 || cut == 12 ? 0 : -1);
	}
	p = (const unsigned char *)"\x0b"; /* wire type 3 (groups) */
	assert_int_equal(ckpt_pb_next(&p, p + 1, &f), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tf1_names_plain_blocks),
		cmocka_unit_test(tf1_names_snappy_blocks),
		cmocka_unit_test(tf2_names_and_object_graph),
		cmocka_unit_test(damaged_and_truncated),
		cmocka_unit_test(protobuf_fields),
		cmocka_unit_test(tables_written_as_tensorflow_writes_them),
		cmocka_unit_test(small_blocks_and_awkward_keys),
		cmocka_unit_test(protobuf_written_and_read_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
