/* Failure messages (err.c): one line each, kept per thread, never printed
 * by the library; warnings handed to the program's function. */
#include "unit.h"

#include <errno.h>
#include <pthread.h>

static void keeps_the_last_message_and_returns_minus_one(void **state)
{
	(void)state;
	assert_int_equal(ckpt_seterr("%s: variable '%s': %d", "a.h5", "w", 3), -1);
	assert_string_equal(ckpt_errmsg(), "a.h5: variable 'w': 3");
	errno = ENOENT;
	assert_int_equal(ckpt_seterr_errno("b.h5"), -1);
	assert_string_equal(ckpt_errmsg(), "b.h5: No such file or directory");
}

static void *set_in_thread(void *arg)
{
	(void)arg;
	ckpt_seterr("from the thread");
	return NULL;
}

static void keeps_messages_per_thread(void **state)
{
	pthread_t t;

	(void)state;
	ckpt_seterr("from main");
	assert_int_equal(pthread_create(&t, NULL, set_in_thread, NULL), 0);
	pthread_join(t, NULL);
	assert_string_equal(ckpt_errmsg(), "from main");
}

static void escapes_control_bytes_to_keep_one_line(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(ckpt_escape_line("a\nb\tc\x01" "d", buf, sizeof buf),
	                    "a\\nb\\tc\\x01d");
	assert_string_equal(ckpt_escape_line("\xc3\xa9t\xc3\xa9", buf, sizeof buf),
	                    "\xc3\xa9t\xc3\xa9"); /* UTF-8 stays */
	ckpt_escape_line("0123456789abcdef", buf, 8);
	assert_true(strlen(buf) > 0 && strlen(buf) <= 7); /* at most size-1 bytes */
	assert_memory_equal(buf, "0123456", strlen(buf));
	ckpt_escape_line("ab\ncd", buf, 4);
	assert_null(strchr(buf, '\n'));
}

static char heard[256];
static int times;

static void listen(const char *msg)
{
	snprintf(heard, sizeof heard, "%s", msg);
	times++;
}

static void hands_warnings_to_the_program_or_drops_them(void **state)
{
	(void)state;
	ckpt_warnf("dropped %d", 1);
	assert_int_equal(times, 0);
	ckpt_set_warn(listen);
	ckpt_warnf("%s: a reference points nowhere", "a.h5");
	assert_int_equal(times, 1);
	assert_string_equal(heard, "a.h5: a reference points nowhere");
	ckpt_set_warn(NULL);
	ckpt_warnf("dropped again");
	assert_int_equal(times, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keeps_the_last_message_and_returns_minus_one),
		cmocka_unit_test(keeps_messages_per_thread),
		cmocka_unit_test(escapes_control_bytes_to_keep_one_line),
		cmocka_unit_test(hands_warnings_to_the_program_or_drops_them),
	};

	ckpt_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
