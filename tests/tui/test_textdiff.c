/* The attempt diff: edit scripts that really turn one source into the other (checked on random
 * sources), minimal ones on small cases, and the unified rendering with hunk headers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tui/textdiff.h"
#include "tui/theme.h"

/* Apply ops to a: the result must be b. */
static void check_script(char **a, int na, char **b, int nb, const struct td_op *ops, int n)
{
	int ia = 0, ib = 0;

	for (int i = 0; i < n; i++) {
		switch (ops[i].kind) {
		case TD_SAME:
			assert_int_equal(ops[i].a, ia);
			assert_int_equal(ops[i].b, ib);
			assert_string_equal(a[ia], b[ib]);
			ia++;
			ib++;
			break;
		case TD_DEL:
			assert_int_equal(ops[i].a, ia);
			ia++;
			break;
		case TD_ADD:
			assert_int_equal(ops[i].b, ib);
			ib++;
			break;
		}
	}
	assert_int_equal(ia, na);
	assert_int_equal(ib, nb);
}

static void test_lines(void **state)
{
	int n;
	char **l = text_lines("a\r\nb\n\nc", &n);

	(void)state;
	assert_int_equal(n, 4);
	assert_string_equal(l[0], "a");
	assert_string_equal(l[2], "");
	assert_string_equal(l[3], "c");
	text_lines_free(l, n);
	l = text_lines("x\n", &n);
	assert_int_equal(n, 1);
	text_lines_free(l, n);
	l = text_lines("", &n);
	assert_int_equal(n, 0);
	text_lines_free(l, n);
}

static void test_small(void **state)
{
	char *a[] = { "a", "b", "c", "d" }, *b[] = { "a", "x", "c", "d", "e" };
	struct td_op *ops;
	int n, add, del;

	(void)state;
	n = textdiff(a, 4, b, 5, &ops);
	check_script(a, 4, b, 5, ops, n);
	textdiff_stat(ops, n, &add, &del);
	assert_int_equal(add, 2);  /* x, e */
	assert_int_equal(del, 1);  /* b */
	free(ops);
	n = textdiff(a, 4, a, 4, &ops);
	textdiff_stat(ops, n, &add, &del);
	assert_int_equal(add + del, 0);
	assert_int_equal(n, 4);
	free(ops);
	n = textdiff(a, 0, b, 5, &ops);
	check_script(a, 0, b, 5, ops, n);
	free(ops);
	n = textdiff(a, 4, b, 0, &ops);
	check_script(a, 4, b, 0, ops, n);
	free(ops);
}

static void test_unified(void **state)
{
	struct doc d;
	const char *old_text = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n";
	const char *new_text = "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n";

	(void)state;
	doc_init(&d);
	textdiff_doc(&d, old_text, new_text, 3);
	/* two hunks: far enough apart not to merge */
	assert_string_equal(doc_text(&d, 0), "@@ -2,7 +2,7 @@");
	assert_string_equal(doc_text(&d, 1), " 2");
	assert_string_equal(doc_text(&d, 4), "-5");
	assert_string_equal(doc_text(&d, 5), "+FIVE");
	assert_int_equal(d.lines[4].segs[0].role, ROLE_DIFF_DEL);
	assert_int_equal(d.lines[5].segs[0].role, ROLE_DIFF_ADD);
	assert_string_equal(doc_text(&d, 9), "@@ -18,3 +18,4 @@");
	assert_string_equal(doc_text(&d, 13), "+21");
	doc_clear(&d);
	/* changes close together share one hunk */
	textdiff_doc(&d, "a\nb\nc\nd\ne\nf\n", "A\nb\nc\nd\ne\nF\n", 3);
	assert_string_equal(doc_text(&d, 0), "@@ -1,6 +1,6 @@");
	assert_int_equal(doc_find_tag(&d, 0), -1);
	doc_clear(&d);
	textdiff_doc(&d, "same\n", "same\n", 3);
	assert_non_null(strstr(doc_text(&d, 0), "no changes"));
	doc_free(&d);
}

static uint64_t rng = 0x853c49e6748fea9bULL;

static unsigned next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 32);
}

/* Random sources over a small alphabet of lines (many repeats): every script must be right. */
static void test_random_scripts(void **state)
{
	static char *const words[] = { "{", "}", "int i;", "return;", "", "x = 1;", "y = 2;", "// c" };
	char *a[80], *b[80];
	struct td_op *ops;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		int na = (int)(next() % 80), nb = (int)(next() % 80), n;

		for (int i = 0; i < na; i++)
			a[i] = words[next() % 8];
		for (int i = 0; i < nb; i++)
			b[i] = words[next() % 8];
		n = textdiff(a, na, b, nb, &ops);
		check_script(a, na, b, nb, ops, n);
		free(ops);
	}
}

/* Beyond the LCS limit the middle is replaced whole: still a correct script. */
static void test_large(void **state)
{
	int n = 2600, nops, add, del;
	char **a = xcalloc((size_t)n, sizeof(char *)), **b = xcalloc((size_t)n, sizeof(char *));
	struct td_op *ops;

	(void)state;
	for (int i = 0; i < n; i++) {
		a[i] = xasprintf("line %d", i);
		b[i] = xasprintf(i == 0 || i == n - 1 ? "line %d" : "changed %d", i);
	}
	nops = textdiff(a, n, b, n, &ops);
	check_script(a, n, b, n, ops, nops);
	textdiff_stat(ops, nops, &add, &del);
	assert_int_equal(add, n - 2);
	assert_int_equal(del, n - 2);
	free(ops);
	text_lines_free(a, n);
	text_lines_free(b, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_unified),
		cmocka_unit_test(test_random_scripts),
		cmocka_unit_test(test_large),
	};

	setlocale(LC_ALL, "C.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
