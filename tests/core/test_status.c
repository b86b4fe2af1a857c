#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"

static const struct {
	enum kbx_status st;
	const char *text;
} all_codes[] = {
#define STATUS_ROW(id, text) { id, text },
	KBX_STATUS_LIST(STATUS_ROW)
#undef STATUS_ROW
};

#define NCODES (sizeof(all_codes) / sizeof(all_codes[0]))

static void test_status_str_every_code(void **state)
{
	size_t i, j;

	assert_int_equal(KBX_OK, 0);
	assert_int_equal(NCODES, 14);
	for (i = 0; i < NCODES; i++) {
		const char *s = kbx_status_str(all_codes[i].st);

		assert_int_equal(all_codes[i].st, (int)i);
		assert_string_equal(s, all_codes[i].text);
		assert_true(strlen(s) > 0);
		/* house style: lowercase start (the GPU/CUDA acronyms aside), no trailing period */
		assert_true(s[strlen(s) - 1] != '.');
		for (j = 0; j < i; j++)
			assert_string_not_equal(s, kbx_status_str(all_codes[j].st));
	}
	assert_string_equal(kbx_status_str(KBX_OK), "ok");
	assert_string_equal(kbx_status_str(KBX_EPARSE), "parse error");
	assert_string_equal(kbx_status_str(KBX_ECANCEL), "cancelled");
	assert_string_equal(kbx_status_str((enum kbx_status)999), "unknown status");
}

static void test_error_every_code(void **state)
{
	size_t i;
	char want[128];

	for (i = 0; i < NCODES; i++) {
		enum kbx_status st = kbx_error(all_codes[i].st, "thing '%s' number %d", "x", (int)i);

		assert_int_equal(st, all_codes[i].st);
		snprintf(want, sizeof(want), "thing 'x' number %d", (int)i);
		assert_string_equal(kbx_last_error(), want);
	}
}

static void test_wrap_every_code(void **state)
{
	size_t i;

	for (i = 0; i < NCODES; i++) {
		enum kbx_status st;
		char want[128];

		kbx_error(all_codes[i].st, "inner %d", (int)i);
		st = kbx_wrap(all_codes[i].st, "cannot load '%s'", "Fusion/x");
		assert_int_equal(st, all_codes[i].st);
		snprintf(want, sizeof(want), "cannot load 'Fusion/x': inner %d", (int)i);
		assert_string_equal(kbx_last_error(), want);

		/* with no message recorded, the status text stands in */
		kbx_clear_error();
		kbx_wrap(all_codes[i].st, "outer");
		snprintf(want, sizeof(want), "outer: %s", all_codes[i].text);
		assert_string_equal(kbx_last_error(), want);
	}
}

static void test_wrap_nested(void **state)
{
	kbx_error(KBX_EIO, "cannot open 'a': no such file");
	kbx_wrap(KBX_EIO, "cannot load task 'b'");
	kbx_wrap(KBX_EIO, "cannot run");
	assert_string_equal(kbx_last_error(), "cannot run: cannot load task 'b': cannot open 'a': no such file");
}

static void test_clear(void **state)
{
	kbx_error(KBX_EINVAL, "something");
	kbx_clear_error();
	assert_string_equal(kbx_last_error(), "");
}

/* A message that quotes the previous one: the buffer must not be read while it is written. */
static void test_error_quotes_last_error(void **state)
{
	kbx_error(KBX_EPARSE, "unknown dtype 'f23'");
	kbx_error(KBX_EPARSE, "'%s' line %d: %s", "t.ini", 7, kbx_last_error());
	assert_string_equal(kbx_last_error(), "'t.ini' line 7: unknown dtype 'f23'");
	kbx_wrap(KBX_EPARSE, "%s", kbx_last_error());
	assert_string_equal(kbx_last_error(), "'t.ini' line 7: unknown dtype 'f23': 't.ini' line 7: unknown dtype 'f23'");
}

static void test_long_message_truncated(void **state)
{
	char big[5000];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	kbx_error(KBX_EIO, "%s", big);
	assert_int_equal(strlen(kbx_last_error()), 2047);
	kbx_wrap(KBX_EIO, "%s", big);
	assert_int_equal(strlen(kbx_last_error()), 2047);
	assert_true(strncmp(kbx_last_error(), "aaaa", 4) == 0);
}

static enum kbx_status helper(enum kbx_status st, const char *fmt, ...) KBX_PRINTF(2, 3);

/* A wrapper in the way other modules build one on kbx_verror */
static enum kbx_status helper(enum kbx_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	st = kbx_verror(st, fmt, ap);
	va_end(ap);
	return st;
}

static void test_verror(void **state)
{
	assert_int_equal(helper(KBX_ECUDA, "cuda %s failed: %d", "cuMemAlloc", 2), KBX_ECUDA);
	assert_string_equal(kbx_last_error(), "cuda cuMemAlloc failed: 2");
	assert_int_equal(helper(KBX_OK, "%s", ""), KBX_OK);
	assert_string_equal(kbx_last_error(), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_str_every_code),
		cmocka_unit_test(test_error_every_code),
		cmocka_unit_test(test_wrap_every_code),
		cmocka_unit_test(test_wrap_nested),
		cmocka_unit_test(test_clear),
		cmocka_unit_test(test_error_quotes_last_error),
		cmocka_unit_test(test_long_message_truncated),
		cmocka_unit_test(test_verror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
