/* JSON read piece by piece and written piece by piece (jsonio.c), checked
 * against jansson, the parser it replaces for safetensors headers: the
 * same documents accepted, the same strings decoded, the same bytes
 * written; fed a byte at a time as well as whole. */
#include "unit.h"
#include "lib/jsonio.h"

#include <jansson.h>

struct text {
	const char *s;
	size_t n, at, chunk;
};

static ptrdiff_t from_text(void *from, void *buf, size_t n)
{
	struct text *t = from;

	if (n > t->chunk)
		n = t->chunk;
	if (n > t->n - t->at)
		n = t->n - t->at;
	memcpy(buf, t->s + t->at, n);
	t->at += n;
	return (ptrdiff_t)n;
}

/* Whether jsonio takes s (n bytes) as one JSON value, fed chunk bytes at
 * a time. */
static int jp_valid(const char *s, size_t n, size_t chunk)
{
	struct text t = {s, n, 0, chunk};
	ckpt_jp *p = malloc(sizeof *p);
	int ok;

	assert_non_null(p);
	ckpt_jp_init(p, from_text, &t);
	ok = ckpt_jp_skip(p) == 0 && ckpt_jp_end(p) == 0;
	assert_true(ok || p->status == CKPT_JP_SYNTAX);
	ckpt_jp_free(p);
	free(p);
	return ok;
}

static int jansson_valid(const char *s, size_t n)
{
	json_t *j = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);

	json_decref(j);
	return j != NULL;
}

static const char *const documents[] = {
	"{}", "[]", " { } ", "{\"a\":[1,2.5e3,-0,0.5E-7,true,false,null,{\"b\":\"\\u00e9\"}]}",
	"\"\\ud83d\\ude00\"", "\"\\u0000x\"", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "-9223372036854775808",
	"9223372036854775807", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", "{\"a\":1,\"a\":2}",
	/* and broken ones */
	"", " ", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "[,1]", "[01]", "[1.]",
	"[.5]", "[-]", "[1e]", "[1e+]", "[+1]", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
	"\"a\x01\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xe2\x82\"",
	"\"\x80\"", "\"\xff\"", "[tru]", "[nul]", "{} x", "{}{}", "[\"\\x\"]", "[\"\\u12\"]",
	"9223372036854775808", "-9223372036854775809", "99999999999999999999", "{1:2}",
	"[1 2]", "{\"a\" 1}", "\"abc", "[\"a\",", "'a'", "[NaN]", "[Infinity]",
};

static void accepts_what_jansson_accepts(void **state)
{
	static const size_t chunks[] = {1, 2, 3, 7, 65536};

	(void)state;
	for (size_t i = 0; i < sizeof documents / sizeof *documents; i++) {
		const char *d = documents[i];
		int want = jansson_valid(d, strlen(d));

		for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++)
			if (jp_valid(d, strlen(d), chunks[c]) != want)
				fail_msg("document %zu (%s): jansson says %d", i, d, want);
	}
}

static void refuses_nesting_past_jansson_depth(void **state)
{
	char *s = malloc(6000);

	(void)state;
	for (size_t n = 2000; n <= 3000; n += 1000) {
		memset(s, '[', n);
		memset(s + n, ']', n);
		assert_int_equal(jp_valid(s, 2 * n, 65536), n == 2000);
		assert_int_equal(jansson_valid(s, 2 * n), n == 2000);
	}
	free(s);
}

/* Random short byte strings inside quotes: valid UTF-8 or not, with escapes
 * and controls, the verdicts and the decoded bytes agree. */
static void decodes_strings_as_jansson(void **state)
{
	static const char alphabet[] = "a\"\\u0d8Ffe\x01\x7f\xc3\xa9\xed\xa0\xf0\x9f\x98\x80\xc0\xff ";
	uint64_t seed = 42;

	(void)state;
	for (int k = 0; k < 20000; k++) {
		char s[16];
		size_t n = 0, len = 1 + k % 8;
		json_t *j;
		struct text t;
		ckpt_jp *p = malloc(sizeof *p);

		s[n++] = '"';
		for (size_t i = 0; i < len; i++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			s[n++] = alphabet[(seed >> 33) % (sizeof alphabet - 1)];
		}
		s[n++] = '"';
		t = (struct text){s, n, 0, 1 + k % 3};
		ckpt_jp_init(p, from_text, &t);
		j = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
		if ((ckpt_jp_string(p) == 0 && ckpt_jp_end(p) == 0) != (j != NULL))
			fail_msg("string %d: %.*s: jansson says %d", k, (int)n, s, j != NULL);
		if (j) {
			assert_int_equal(p->len, json_string_length(j));
			assert_memory_equal(p->str, json_string_value(j), p->len);
		}
		json_decref(j);
		ckpt_jp_free(p);
		free(p);
	}
}

static void reads_integers_and_tells_them_from_reals(void **state)
{
	static const struct {
		const char *s;
		int integer;
		int64_t v;
	} cases[] = {
		{"0", 1, 0}, {"-0", 1, 0}, {"42", 1, 42}, {"-7", 1, -7},
		{"9223372036854775807", 1, INT64_MAX}, {"-9223372036854775808", 1, INT64_MIN},
		{"1.0", 0, 0}, {"1e3", 0, 0}, {"-2.5E-3", 0, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct text t = {cases[i].s, strlen(cases[i].s), 0, 65536};
		ckpt_jp *p = malloc(sizeof *p);
		int integer;
		int64_t v;

		ckpt_jp_init(p, from_text, &t);
		assert_int_equal(ckpt_jp_number(p, &integer, &v), 0);
		assert_int_equal(integer, cases[i].integer);
		if (integer)
			assert_true(v == cases[i].v);
		assert_int_equal(ckpt_jp_end(p), 0);
		free(p);
	}
}

static void walks_objects_and_arrays_in_order(void **state)
{
	const char *doc = " {\"k\" : [ 1 , 2 ] , \"e\":{} ,\"z\":[]} ";
	struct text t = {doc, strlen(doc), 0, 2};
	ckpt_jp *p = malloc(sizeof *p);
	int first = 1, inner, more, integer;
	int64_t v, sum = 0;
	char keys[8] = "";

	(void)state;
	ckpt_jp_init(p, from_text, &t);
	while ((more = ckpt_jp_next(p, '{', &first)) > 0) {
		assert_int_equal(ckpt_jp_key(p), 0);
		strncat(keys, p->str, 1);
		inner = 1;
		if (ckpt_jp_peek(p) == '[')
			while (ckpt_jp_next(p, '[', &inner) > 0) {
				assert_int_equal(ckpt_jp_number(p, &integer, &v), 0);
				sum += v;
			}
		else
			assert_int_equal(ckpt_jp_skip(p), 0);
	}
	assert_int_equal(more, 0);
	assert_int_equal(ckpt_jp_end(p), 0);
	assert_string_equal(keys, "kez");
	assert_true(sum == 3);
	ckpt_jp_free(p);
	free(p);
}

static void says_where_the_syntax_broke(void **state)
{
	const char *doc = "{\"a\": [1, 2,, 3]}";
	struct text t = {doc, strlen(doc), 0, 3};
	ckpt_jp *p = malloc(sizeof *p);

	(void)state;
	ckpt_jp_init(p, from_text, &t);
	assert_int_equal(ckpt_jp_skip(p), -1);
	assert_int_equal(p->status, CKPT_JP_SYNTAX);
	assert_true(p->err_pos == 12);
	assert_non_null(strstr(p->err, "invalid token"));
	assert_int_equal(ckpt_jp_end(p), -1); /* and it stays failed */
	ckpt_jp_free(p);
	free(p);
}

struct buf {
	char s[256];
	size_t n;
};

static int to_buf(void *to, const char *s, size_t n)
{
	struct buf *b = to;

	assert_true(b->n + n <= sizeof b->s);
	memcpy(b->s + b->n, s, n);
	b->n += n;
	return 0;
}

/* Every byte below 0x80 and some UTF-8: the bytes json_dumps writes. */
static void quotes_as_json_dumps(void **state)
{
	static const char *const texts[] = {"", "plain", "\xc3\xa9\xf0\x9f\x98\x80", "a/b\x7f"};
	char s[8];

	(void)state;
	for (int c = 0; c < 0x80 + 4; c++) {
		const char *text = c < 0x80 ? s : texts[c - 0x80];
		size_t n = c < 0x80 ? 3 : strlen(text);
		json_t *j;
		char *want;
		struct buf b = {.n = 0};

		snprintf(s, sizeof s, "x%cy", c ? c : '?');
		s[1] = (char)c; /* (also NUL) */
		j = json_stringn(text, n);
		want = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
		assert_int_equal(ckpt_json_quote(text, n, to_buf, &b), 0);
		assert_int_equal(b.n, strlen(want));
		assert_memory_equal(b.s, want, b.n);
		free(want);
		json_decref(j);
	}
}

static void tells_utf8_as_jansson(void **state)
{
	uint64_t seed = 7;

	(void)state;
	for (int k = 0; k < 100000; k++) {
		unsigned char s[5];
		size_t n = 1 + (size_t)k % 5;
		json_t *j;

		for (size_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			s[i] = (unsigned char)(seed >> 56 | (k % 3 ? 0x80 : 0));
		}
		j = json_stringn((const char *)s, n);
		if (ckpt_json_utf8(s, n) != (j != NULL))
			fail_msg("bytes %d: jansson says %d", k, j != NULL);
		json_decref(j);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accepts_what_jansson_accepts),
		cmocka_unit_test(refuses_nesting_past_jansson_depth),
		cmocka_unit_test(decodes_strings_as_jansson),
		cmocka_unit_test(reads_integers_and_tells_them_from_reals),
		cmocka_unit_test(walks_objects_and_arrays_in_order),
		cmocka_unit_test(says_where_the_syntax_broke),
		cmocka_unit_test(quotes_as_json_dumps),
		cmocka_unit_test(tells_utf8_as_jansson),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
