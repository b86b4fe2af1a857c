/* Role-tagged lines: display widths of UTF-8, fitting without splitting a character, columns
 * that line up, wrapping, and nothing unprintable reaching the terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/doc.h"
#include "tui/theme.h"

static int setup(void **state)
{
	(void)state;
	if (!setlocale(LC_ALL, "C.UTF-8") && !setlocale(LC_ALL, "en_US.UTF-8"))
		return -1;
	glyphs_set(1);
	return 0;
}

static void test_width(void **state)
{
	int used;

	(void)state;
	assert_int_equal(text_width("abc", (size_t)-1), 3);
	assert_int_equal(text_width("\u2605\u2605\u2606", (size_t)-1), 3);     /* stars: 1 column, 3 bytes each */
	assert_int_equal(text_width("\u6f22\u5b57", (size_t)-1), 4);           /* CJK: 2 columns each */
	assert_int_equal(text_width("a\xff" "b", (size_t)-1), 3);               /* invalid byte: 1 column */
	/* never half a character */
	assert_int_equal(text_fit("\u6f22\u5b57x", (size_t)-1, 3, &used), 3);
	assert_int_equal(used, 2);
	assert_int_equal(text_fit("\u2605\u2605", (size_t)-1, 1, &used), 3);
	assert_int_equal(used, 1);
	assert_int_equal(text_fit("abc", 2, 10, &used), 2);
	/* skipping for horizontal scroll: a wide character straddling the edge goes whole */
	{
		int sk;

		assert_int_equal(text_skip("\u6f22abc", (size_t)-1, 1, &sk), 3);
		assert_int_equal(sk, 2);
		assert_int_equal(text_skip("abc", (size_t)-1, 2, &sk), 2);
		assert_int_equal(sk, 2);
	}
}

static void test_segments(void **state)
{
	struct doc d;
	const struct doc_line *l;

	(void)state;
	doc_init(&d);
	doc_add(&d, ROLE_LABEL, "name ");
	doc_add(&d, ROLE_LABEL, "x");
	doc_add(&d, ROLE_NUMBER, "42");
	doc_tag(&d, 7);
	doc_newline(&d);
	doc_addf(&d, ROLE_NORMAL, "%d-%s", 3, "z");
	assert_int_equal(d.n, 2);
	l = &d.lines[0];
	assert_string_equal(l->text, "name x42");
	assert_int_equal(l->nsegs, 2); /* same role next to each other: one segment */
	assert_int_equal(l->segs[0].role, ROLE_LABEL);
	assert_int_equal(l->segs[0].len, 6);
	assert_int_equal(l->segs[1].role, ROLE_NUMBER);
	assert_int_equal(l->width, 8);
	assert_int_equal(l->tag, 7);
	assert_int_equal(d.lines[1].tag, -1);
	assert_string_equal(doc_text(&d, 1), "3-z");
	assert_int_equal(doc_find_tag(&d, 7), 0);
	assert_int_equal(doc_find_tag(&d, 8), -1);
	doc_free(&d);
}

static void test_sanitise(void **state)
{
	struct doc d;

	(void)state;
	doc_init(&d);
	/* an escape sequence from a compile log must not reach the terminal */
	doc_add(&d, ROLE_NORMAL, "a\x1b[2Jb\rc\x7f");
	assert_string_equal(doc_text(&d, 0), "a?[2Jb?c?");
	doc_newline(&d);
	doc_add(&d, ROLE_NORMAL, "x\tY");
	assert_string_equal(doc_text(&d, 1), "x       Y");
	doc_newline(&d);
	/* tab stops count from the origin (after a line number) */
	doc_add(&d, ROLE_LINENR, " 12 ");
	doc_tab_origin(&d);
	doc_add(&d, ROLE_CODE, "\tz");
	assert_string_equal(doc_text(&d, 2), " 12         z");
	doc_newline(&d);
	doc_add(&d, ROLE_NORMAL, "ok\xc3(bad");
	assert_string_equal(doc_text(&d, 3), "ok?(bad");
	doc_free(&d);
}

static void test_columns(void **state)
{
	struct doc d;

	(void)state;
	doc_init(&d);
	doc_addcol(&d, ROLE_NORMAL, "abc", 6, 0);
	doc_add(&d, ROLE_NORMAL, "|");
	assert_string_equal(doc_text(&d, 0), "abc   |");
	doc_newline(&d);
	doc_addcol(&d, ROLE_NORMAL, "abc", 6, 1);
	doc_add(&d, ROLE_NORMAL, "|");
	assert_string_equal(doc_text(&d, 1), "   abc|");
	doc_newline(&d);
	doc_addcol(&d, ROLE_NORMAL, "abcdefgh", 6, 0);
	doc_add(&d, ROLE_NORMAL, "|");
	assert_string_equal(doc_text(&d, 2), "abcde\u2026|");
	assert_int_equal(d.lines[2].width, 7);
	doc_newline(&d);
	/* wide characters: exactly the width asked for */
	doc_addcol(&d, ROLE_NORMAL, "\u6f22\u5b57\u6f22\u5b57", 6, 0);
	assert_int_equal(d.lines[3].width, 6);
	doc_newline(&d);
	doc_addcol(&d, ROLE_STAR, "\u2605\u2605\u2606", 5, 0);
	assert_int_equal(d.lines[4].width, 5);
	doc_pad(&d, ROLE_NORMAL, 9);
	assert_int_equal(d.lines[4].width, 9);
	doc_free(&d);
	/* ASCII glyphs for a non-UTF-8 terminal */
	glyphs_set(0);
	doc_init(&d);
	doc_addcol(&d, ROLE_NORMAL, "abcdefgh", 6, 0);
	assert_string_equal(doc_text(&d, 0), "abcde~");
	doc_free(&d);
	glyphs_set(1);
}

static void test_wrap(void **state)
{
	struct doc d;

	(void)state;
	doc_init(&d);
	doc_wrap(&d, ROLE_NORMAL, "the quick brown fox jumps over the lazy dog", 15, 2);
	assert_string_equal(doc_text(&d, 0), "  the quick");
	assert_string_equal(doc_text(&d, 1), "  brown fox");
	assert_string_equal(doc_text(&d, 2), "  jumps over");
	assert_string_equal(doc_text(&d, 3), "  the lazy dog");
	for (int i = 0; i < 4; i++)
		assert_true(d.lines[i].width <= 15);
	doc_clear(&d);
	/* a word longer than the width is cut; paragraphs stay */
	doc_wrap(&d, ROLE_NORMAL, "abcdefghijklmnopqrstuvwxyz\n\nend", 10, 0);
	assert_string_equal(doc_text(&d, 0), "abcdefghij");
	assert_string_equal(doc_text(&d, 1), "klmnopqrst");
	assert_string_equal(doc_text(&d, 2), "uvwxyz");
	assert_string_equal(doc_text(&d, 3), "");
	assert_string_equal(doc_text(&d, 4), "end");
	doc_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_sanitise),
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_wrap),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
