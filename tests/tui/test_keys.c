/* The key table: every spelling parses, no key means two things in one scope, lookups fall
 * through screen -> lists -> global, and names round-trip. The help screen is generated from
 * this table (tests/tui/test_report.c checks that it lists every action). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tui/keys.h"

static void test_init(void **state)
{
	const char *why = NULL;

	(void)state;
	if (keys_init(&why) != 0)
		fail_msg("%s", why);
	for (int a = 1; a < ACT_COUNT; a++) {
		const int *codes;

		assert_true(strlen(keys_spec((enum action)a)) > 0);
		assert_true(strlen(keys_brief((enum action)a)) > 0);
		assert_true(strlen(keys_help((enum action)a)) > 0);
		assert_true(keys_codes((enum action)a, &codes) > 0);
		assert_true(keys_scope((enum action)a) < KS_COUNT);
	}
	for (int s = 0; s < KS_COUNT; s++)
		assert_true(strlen(keys_scope_title((enum key_scope)s)) > 0);
}

static void test_no_duplicates(void **state)
{
	int dups = 0;

	(void)state;
	for (int a = 1; a < ACT_COUNT; a++) {
		const int *ca;
		int na = keys_codes((enum action)a, &ca);

		for (int b = a + 1; b < ACT_COUNT; b++) {
			const int *cb;
			int nb = keys_codes((enum action)b, &cb);

			if (keys_scope((enum action)a) != keys_scope((enum action)b))
				continue;
			for (int i = 0; i < na; i++) {
				for (int j = 0; j < nb; j++) {
					if (ca[i] == cb[j]) {
						char n[32];

						print_error("key %s is bound to '%s' and '%s' in scope '%s'\n",
							    keys_name(ca[i], n, sizeof(n)), keys_help((enum action)a),
							    keys_help((enum action)b), keys_scope_title(keys_scope((enum action)a)));
						dups++;
					}
				}
			}
		}
	}
	assert_int_equal(dups, 0);
}

static void test_lookup(void **state)
{
	(void)state;
	assert_int_equal(keys_lookup(KS_BROWSER, 'j'), ACT_DOWN);
	assert_int_equal(keys_lookup(KS_BROWSER, TK_DOWN), ACT_DOWN);
	assert_int_equal(keys_lookup(KS_BROWSER, TK_CTRL('n')), ACT_DOWN);
	assert_int_equal(keys_lookup(KS_BROWSER, '/'), ACT_SEARCH);
	assert_int_equal(keys_lookup(KS_CAND, '/'), ACT_FIND);
	assert_int_equal(keys_lookup(KS_CAND, 'n'), ACT_NEXT_DIAG);
	assert_int_equal(keys_lookup(KS_LOG, 'n'), ACT_FIND_NEXT);
	assert_int_equal(keys_lookup(KS_DIFF, '}'), ACT_NEXT_ANY_CASE);
	/* the same key, different screens */
	assert_int_equal(keys_lookup(KS_BROWSER, 'd'), ACT_FILTER_DIFF);
	assert_int_equal(keys_lookup(KS_RESULTS, 'd'), ACT_DIFF);
	assert_int_equal(keys_lookup(KS_DIFF, 'd'), ACT_NONE);
	/* a screen's own binding wins over the list's */
	assert_int_equal(keys_lookup(KS_LOG, TK_ENTER), ACT_JUMP);
	assert_int_equal(keys_lookup(KS_RESULTS, TK_ENTER), ACT_OPEN);
	/* a range */
	assert_int_equal(keys_lookup(KS_TASK, '1'), ACT_EXAMPLE);
	assert_int_equal(keys_lookup(KS_TASK, '9'), ACT_EXAMPLE);
	assert_int_equal(keys_lookup(KS_TASK, '0'), ACT_NONE);
	assert_int_equal(keys_lookup(KS_BROWSER, '5'), ACT_NONE);
	/* global keys reach every screen */
	for (int s = KS_BROWSER; s <= KS_HELP; s++) {
		assert_int_equal(keys_lookup((enum key_scope)s, 'q'), ACT_BACK);
		assert_int_equal(keys_lookup((enum key_scope)s, '?'), ACT_HELP);
		assert_int_equal(keys_lookup((enum key_scope)s, TK_ESC), ACT_BACK);
	}
	/* prompts and pastes see only their own keys: 'q' is text there */
	assert_int_equal(keys_lookup(KS_PROMPT, 'q'), ACT_NONE);
	assert_int_equal(keys_lookup(KS_PROMPT, 'j'), ACT_NONE);
	assert_int_equal(keys_lookup(KS_PROMPT, TK_TAB), ACT_PROMPT_COMPLETE);
	assert_int_equal(keys_lookup(KS_PASTE, TK_CTRL('d')), ACT_PASTE_DONE);
	assert_int_equal(keys_lookup(KS_PASTE, 'x'), ACT_NONE);
	assert_int_equal(keys_lookup(KS_GLOBAL, 'j'), ACT_NONE);
}

static void test_spec(void **state)
{
	int c[16];
	const char *bad = NULL;

	(void)state;
	assert_int_equal(keys_parse_spec("1-9", c, 16, &bad), 9);
	assert_int_equal(c[0], '1');
	assert_int_equal(c[8], '9');
	assert_int_equal(keys_parse_spec("^F PgDn", c, 16, &bad), 2);
	assert_int_equal(c[0], 6);
	assert_int_equal(c[1], TK_PGDN);
	assert_int_equal(keys_parse_spec("S-Tab", c, 16, &bad), 1);
	assert_int_equal(c[0], TK_BTAB);
	assert_int_equal(keys_parse_spec("Space", c, 16, &bad), 1);
	assert_int_equal(c[0], ' ');
	assert_int_equal(keys_parse_spec("j Foo k", c, 16, &bad), -1);
	assert_string_equal(bad, "Foo k");
	assert_int_equal(keys_parse_spec("9-1", c, 16, &bad), -1);
	assert_int_equal(keys_parse_spec("^1", c, 16, &bad), -1);
	assert_int_equal(keys_parse_spec("a-z", c, 4, &bad), -1); /* more codes than room */
	assert_int_equal(keys_parse_spec("", c, 16, &bad), 0);
}

static void test_names_round_trip(void **state)
{
	(void)state;
	for (int a = 1; a < ACT_COUNT; a++) {
		const int *codes;
		int n = keys_codes((enum action)a, &codes);

		for (int i = 0; i < n; i++) {
			char name[32];
			int back[4];

			keys_name(codes[i], name, sizeof(name));
			assert_int_equal(keys_parse_spec(name, back, 4, NULL), 1);
			assert_int_equal(back[0], codes[i]);
		}
	}
	{
		char k[32];

		assert_string_equal(keys_first(ACT_DOWN, k, sizeof(k)), "j");
		assert_string_equal(keys_first(ACT_OPEN, k, sizeof(k)), "Enter");
	}
}

/* doc/kbx.1 lists every key as the help screen does (".B <keys>" then the help line), so that
 * the man page cannot drift from the key table. */
static void test_man_page(void **state)
{
	const char *src = getenv("KBX_SRCDIR") ? getenv("KBX_SRCDIR") : KBX_SRCDIR;
	char *path = xasprintf("%s/doc/kbx.1", src), *man;
	size_t len;
	int missing = 0;

	(void)state;
	assert_int_equal(read_file(path, &man, &len), KBX_OK);
	for (int a = 1; a < ACT_COUNT; a++) {
		char *want = xasprintf("\n.B %s\n", keys_spec((enum action)a));

		if (!strstr(man, want)) {
			print_error("doc/kbx.1 lacks the keys of '%s' (%s)\n", keys_help((enum action)a), keys_spec((enum action)a));
			missing++;
		}
		free(want);
	}
	free(man);
	free(path);
	assert_int_equal(missing, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_no_duplicates),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_names_round_trip),
		cmocka_unit_test(test_man_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
