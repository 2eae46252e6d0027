/* The restricted unpickler (pickle.c): pickles written here opcode by
 * opcode, as Python's pickler writes them (protocols 2 and 4), read into
 * values; every global outside torch.save's refused by name; every prefix
 * of a pickle short, never read past. */
#include "unit.h"
#include "lib/pickle.h"

/* {'a': 1, 'b': [-2, 2.5, None, True], 'c': 'é'} (protocol 2, memoized) */
static const unsigned char dict2[] =
	"\x80\x02}q\x00(X\x01\x00\x00\x00" "aq\x01K\x01X\x01\x00\x00\x00" "bq\x02]q\x03(J\xfe\xff\xff\xff"
	"G@\x04\x00\x00\x00\x00\x00\x00N\x88" "eX\x01\x00\x00\x00" "cq\x04X\x02\x00\x00\x00\xc3\xa9q\x05u.";

/* OrderedDict([('w', _rebuild_tensor_v2(('storage', FloatStorage, '0',
 * 'cpu', 6), 2, (2, 2), (1, 2), False, OrderedDict())), ('v', <memo of w>)]) */
static const unsigned char tensor2[] =
	"\x80\x02" "ccollections\nOrderedDict\nq\x00)Rq\x01("
	"X\x01\x00\x00\x00wq\x02"
	"ctorch._utils\n_rebuild_tensor_v2\nq\x03"
	"((X\x07\x00\x00\x00storageq\x04" "ctorch\nFloatStorage\nq\x05"
	"X\x01\x00\x00\x00" "0q\x06X\x03\x00\x00\x00" "cpuq\x07K\x06tq\x08Q"
	"K\x02K\x02K\x02\x86q\x09K\x01K\x02\x86q\x0a\x89h\x00)Rq\x0btq\x0cRq\x0d"
	"X\x01\x00\x00\x00vq\x0eh\x0du.";

/* {'f': os.system('true')} by GLOBAL; the same by STACK_GLOBAL (protocol 4) */
static const unsigned char system2[] =
	"\x80\x02}q\x00X\x01\x00\x00\x00" "fq\x01" "cos\nsystem\nq\x02X\x04\x00\x00\x00trueq\x03\x85Rs.";
static const unsigned char eval4[] =
	"\x80\x04\x95\x20\x00\x00\x00\x00\x00\x00\x00\x8c\x08" "builtins\x94\x8c\x04" "eval\x94\x93\x94"
	"\x8c\x01" "1\x94\x85\x94R\x94.";

static ckpt_pk *load(ckpt_pk_doc *d, const unsigned char *p, size_t n, int want)
{
	ckpt_pk *root = NULL;
	size_t used = 0;

	assert_int_equal(ckpt_pk_load(d, "t.pt", p, n, &root, &used), want);
	if (want == 0)
		assert_int_equal(used, n);
	return root;
}

static void test_values_of_protocol_2(void **state)
{
	(void)state;
	ckpt_pk_doc *d = ckpt_pk_doc_new();
	ckpt_pk *v = load(d, dict2, sizeof dict2 - 1, 0), *list;

	assert_int_equal(v->kind, CKPT_PK_DICT);
	assert_int_equal(v->n, 6);
	assert_string_equal(v->item[0]->s, "a");
	assert_int_equal(v->item[1]->i, 1);
	list = v->item[3];
	assert_int_equal(list->kind, CKPT_PK_LIST);
	assert_int_equal(list->n, 4);
	assert_int_equal(list->item[0]->i, -2);
	assert_true(list->item[1]->d == 2.5);
	assert_int_equal(list->item[2]->kind, CKPT_PK_NONE);
	assert_int_equal(list->item[3]->kind, CKPT_PK_BOOL);
	assert_string_equal(v->item[5]->s, "\xc3\xa9");
	ckpt_pk_doc_free(d);
}

static void test_tensor_rebuilt_without_a_call(void **state)
{
	(void)state;
	ckpt_pk_doc *d = ckpt_pk_doc_new();
	ckpt_pk *v = load(d, tensor2, sizeof tensor2 - 1, 0), *t;

	assert_int_equal(v->kind, CKPT_PK_DICT);
	assert_true(v->ordered);
	assert_int_equal(v->n, 4);
	t = v->item[1];
	assert_int_equal(t->kind, CKPT_PK_TENSOR);
	assert_null(t->refused);
	assert_int_equal(t->i, 2);
	assert_int_equal(t->item[0]->kind, CKPT_PK_STORAGE);
	assert_string_equal(t->item[0]->s, "0");
	assert_string_equal(t->item[0]->item[0]->s, "torch.FloatStorage");
	assert_int_equal(t->item[0]->i, 6);
	assert_int_equal(ckpt_pk_seq(t->item[1])->item[1]->i, 2); /* size (2, 2) */
	assert_int_equal(ckpt_pk_seq(t->item[2])->item[0]->i, 1); /* stride (1, 2) */
	assert_ptr_equal(v->item[3], t); /* the memo: the same value */
	ckpt_pk_doc_free(d);
}

static void test_other_globals_refused_by_name(void **state)
{
	(void)state;
	ckpt_pk_doc *d = ckpt_pk_doc_new();

	load(d, system2, sizeof system2 - 1, -1);
	assert_string_equal(ckpt_errmsg(), "t.pt: the pickle names 'os.system', which is no part "
	                                    "of what torch.save writes: refused (ckpt never runs "
	                                    "code from a file)");
	load(d, eval4, sizeof eval4 - 1, -1);
	assert_non_null(strstr(ckpt_errmsg(), "'builtins.eval'"));
	assert_true(ckpt_pk_allowed("torch._utils._rebuild_tensor_v2"));
	assert_false(ckpt_pk_allowed("torch.load"));
	assert_false(ckpt_pk_allowed("builtins.getattr"));
	ckpt_pk_doc_free(d);
}

/* Every prefix: short (or malformed), never a read past it (ASan). */
static void test_every_prefix_is_short(void **state)
{
	(void)state;
	const unsigned char *p[] = {dict2, tensor2, eval4};
	const size_t n[] = {sizeof dict2 - 1, sizeof tensor2 - 1, sizeof eval4 - 1};

	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; i < n[k]; i++) {
			ckpt_pk_doc *d = ckpt_pk_doc_new();
			unsigned char *copy = malloc(i ? i : 1);
			ckpt_pk *root;
			size_t used;
			int rc;

			memcpy(copy, p[k], i);
			rc = ckpt_pk_load(d, "t.pt", copy, i, &root, &used);
			assert_true(rc == CKPT_PK_SHORT || (k == 2 && rc == -1));
			free(copy);
			ckpt_pk_doc_free(d);
		}
}

static void test_malformed_pickles_fail(void **state)
{
	(void)state;
	static const struct {
		const char *p;
		size_t n;
		const char *says;
	} bad[] = {
		{"\x80\x02h\x05.", 4, "a memo get of nothing put"},
		{"\x80\x02r\xff\xff\xff\x0f.", 8, "a memo put on an empty stack"},
		{"\x80\x02K\x01r\xff\xff\xff\x0f.", 10, "a memo index beyond"},
		{"\x80\x02K\x01K\x02s.", 7, "SETITEM without a dict"},
		{"\x80\x02]K\x01K\x02s.", 8, "SETITEMS on other than a dict"},
		{"\x80\x02I1\n.", 5, "protocols 0 and 1"},
		{"\x80\x02\xff.", 4, "an opcode ckpt does not read"},
		{"\x80\x09N.", 4, "a pickle protocol other than 2 to 5"},
		{"\x80\x02.", 3, "STOP on an empty stack"},
		{"\x80\x02t.", 4, "needs a mark"},
		{"\x80\x02NN\x87.", 6, "a tuple of more items"},
		{"\x80\x02K\x01Q.", 5, "a persistent id that names no storage"},
	};

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ckpt_pk_doc *d = ckpt_pk_doc_new();
		ckpt_pk *root;
		size_t used;

		assert_int_not_equal(ckpt_pk_load(d, "t.pt", (const unsigned char *)bad[i].p,
		                                  bad[i].n, &root, &used), 0);
		if (!strstr(ckpt_errmsg(), bad[i].says))
			fail_msg("case %zu: '%s' does not say '%s'", i, ckpt_errmsg(), bad[i].says);
		ckpt_pk_doc_free(d);
	}
}

/* LONG1 of any width, BININT2, protocol 2's bytes (_codecs.encode). */
static void test_numbers_and_bytes(void **state)
{
	(void)state;
	static const unsigned char p[] =
		"\x80\x02(\x8a\x01\xff\x8a\x02\x00\x80\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80"
		"\x8a\x00M\xff\xff" "c_codecs\nencode\nX\x03\x00\x00\x00\x00\xc3\xbfX\x06\x00\x00\x00"
		"latin1\x86R" "C\x02hi" "t.";
	ckpt_pk_doc *d = ckpt_pk_doc_new();
	ckpt_pk *t = load(d, p, sizeof p - 1, 0);

	assert_int_equal(t->n, 7);
	assert_int_equal(t->item[0]->i, -1);
	assert_int_equal(t->item[1]->i, -32768);
	assert_int_equal(t->item[2]->i, INT64_MIN);
	assert_int_equal(t->item[3]->i, 0);
	assert_int_equal(t->item[4]->i, 65535);
	assert_int_equal(t->item[5]->kind, CKPT_PK_BYTES);
	assert_int_equal(t->item[5]->len, 2);
	assert_memory_equal(t->item[5]->s, "\x00\xff", 2);
	assert_int_equal(t->item[6]->kind, CKPT_PK_BYTES);
	ckpt_pk_doc_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_of_protocol_2),
		cmocka_unit_test(test_tensor_rebuilt_without_a_call),
		cmocka_unit_test(test_other_globals_refused_by_name),
		cmocka_unit_test(test_every_prefix_is_short),
		cmocka_unit_test(test_malformed_pickles_fail),
		cmocka_unit_test(test_numbers_and_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
