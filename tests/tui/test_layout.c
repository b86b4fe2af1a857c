/* Layout maths: the minimum size, pane splits, list scrolling, heat levels and resampling,
 * the log histogram, sparklines, bars and the number and time formats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/doc.h"
#include "tui/layout.h"

static int setup(void **state)
{
	(void)state;
	setlocale(LC_ALL, "C.UTF-8");
	glyphs_set(1);
	return 0;
}

static void test_size_and_frame(void **state)
{
	struct rect top, body, bottom;

	(void)state;
	assert_true(layout_big_enough(80, 24));
	assert_true(layout_big_enough(60, 20));
	assert_true(layout_big_enough(200, 60));
	assert_false(layout_big_enough(59, 24));
	assert_false(layout_big_enough(80, 19));
	layout_frame(80, 24, &top, &body, &bottom);
	assert_int_equal(top.y, 0);
	assert_int_equal(top.h, 1);
	assert_int_equal(body.y, 1);
	assert_int_equal(body.h, 22);
	assert_int_equal(bottom.y, 23);
	assert_int_equal(body.w, 80);
}

static void test_splits(void **state)
{
	struct rect r = { 1, 0, 22, 80 }, a, b, in;

	(void)state;
	layout_hsplit(r, 28, 20, &a, &b);
	assert_int_equal(a.w, 28);
	assert_int_equal(b.x, 28);
	assert_int_equal(a.w + b.w, 80);
	/* asking for too much leaves the other side its minimum */
	layout_hsplit(r, 75, 20, &a, &b);
	assert_int_equal(b.w, 20);
	layout_hsplit(r, 3, 20, &a, &b);
	assert_int_equal(a.w, 20);
	layout_vsplit(r, 18, 5, &a, &b);
	assert_int_equal(a.h, 17);
	assert_int_equal(b.y, a.y + a.h);
	assert_int_equal(a.h + b.h, 22);
	in = layout_inner(r);
	assert_int_equal(in.x, 1);
	assert_int_equal(in.y, 2);
	assert_int_equal(in.w, 78);
	assert_int_equal(in.h, 20);
	in = layout_inner((struct rect){ 0, 0, 1, 1 });
	assert_int_equal(in.w, 0);
	assert_int_equal(in.h, 0);
}

static void test_lists(void **state)
{
	struct listview lv = { 0, 0 };

	(void)state;
	assert_true(list_move(&lv, 1, 100, 10));
	assert_int_equal(lv.sel, 1);
	assert_int_equal(lv.top, 0);
	list_move(&lv, 20, 100, 10);
	assert_int_equal(lv.sel, 21);
	/* the selection stays visible, with context below it */
	assert_true(lv.sel >= lv.top && lv.sel < lv.top + 10);
	assert_int_equal(lv.top, 21 - 10 + 1 + 2);
	list_move(&lv, 1000, 100, 10);
	assert_int_equal(lv.sel, 99);
	assert_int_equal(lv.top, 90);
	assert_false(list_move(&lv, 1, 100, 10));
	list_move(&lv, -1000, 100, 10);
	assert_int_equal(lv.sel, 0);
	assert_int_equal(lv.top, 0);
	/* a list that shrank */
	lv.sel = 50;
	lv.top = 45;
	list_clamp(&lv, 5, 10);
	assert_int_equal(lv.sel, 4);
	assert_int_equal(lv.top, 0);
	list_clamp(&lv, 0, 10);
	assert_int_equal(lv.sel, 0);
}

static void test_heat(void **state)
{
	float tiles[4 * 4] = { 0 }, out[16];
	int gr, gc;

	(void)state;
	assert_int_equal(layout_heat_level(0), 0);
	assert_int_equal(layout_heat_level(0.05), 1);
	assert_int_equal(layout_heat_level(0.5), 2);
	assert_int_equal(layout_heat_level(1.0), 3);
	assert_int_equal(layout_heat_level(9.99), 3);
	assert_int_equal(layout_heat_level(10), 4);
	assert_int_equal(layout_heat_level(INFINITY), 4);
	assert_int_equal(layout_heat_level(NAN), 4);
	assert_int_equal(layout_heat_relative(0, 100), 0);
	assert_int_equal(layout_heat_relative(0.5, 100), 1);
	assert_int_equal(layout_heat_relative(5, 100), 2);
	assert_int_equal(layout_heat_relative(20, 100), 3);
	assert_int_equal(layout_heat_relative(100, 100), 4);
	assert_int_equal(layout_heat_relative(NAN, 100), 4);
	assert_int_equal(layout_heat_relative(5, 0), 0);
	/* one bad tile must survive shrinking the map */
	tiles[3 * 4 + 2] = 50;
	tiles[0] = 0.5f;
	layout_heat_resample(tiles, 4, 4, 2, 2, out, &gr, &gc);
	assert_int_equal(gr, 2);
	assert_int_equal(gc, 2);
	assert_true(out[0] == 0.5f);
	assert_true(out[1] == 0);
	assert_true(out[2] == 0);
	assert_true(out[3] == 50);
	/* never larger than the map itself */
	layout_heat_resample(tiles, 4, 4, 10, 40, out, &gr, &gc);
	assert_int_equal(gr, 4);
	assert_int_equal(gc, 4);
	assert_true(out[3 * 4 + 2] == 50);
	tiles[5] = NAN;
	layout_heat_resample(tiles, 4, 4, 1, 1, out, &gr, &gc);
	assert_true(isnan(out[0]));
}

static void test_histogram(void **state)
{
	double v[] = { 1e-6, 2e-6, 5e-3, 0.5, 0, NAN, INFINITY, 3.0, -0.7 };
	int bins[8], lo, zeros, nonfinite, nb;

	(void)state;
	nb = layout_log_histogram(v, 9, bins, 8, &lo, &zeros, &nonfinite);
	assert_int_equal(lo, -6);
	assert_int_equal(nb, 7); /* decades -6 .. 0 */
	assert_int_equal(bins[0], 2);
	assert_int_equal(bins[3], 1);   /* 5e-3 */
	assert_int_equal(bins[5], 2);   /* 0.5 and |-0.7| */
	assert_int_equal(bins[6], 1);   /* 3.0 */
	assert_int_equal(zeros, 1);
	assert_int_equal(nonfinite, 2);
	/* too many decades: the largest are kept, smaller ones pile into the first bin */
	nb = layout_log_histogram(v, 9, bins, 3, &lo, &zeros, &nonfinite);
	assert_int_equal(nb, 3);
	assert_int_equal(lo, -2);
	assert_int_equal(bins[0], 3);
	nb = layout_log_histogram(v, 0, bins, 8, &lo, &zeros, &nonfinite);
	assert_int_equal(nb, 0);
}

static void test_pictures(void **state)
{
	double s[5] = { 0, 0.5, 1, -1, 0.25 };
	char buf[64];

	(void)state;
	layout_sparkline(s, 5, buf, sizeof(buf));
	assert_string_equal(buf, "\u2581\u2585\u2588 \u2583");
	glyphs_set(0);
	layout_sparkline(s, 5, buf, sizeof(buf));
	assert_string_equal(buf, "_=# ,");
	glyphs_set(1);
	/* a short buffer: whole glyphs only */
	layout_sparkline(s, 5, buf, 5);
	assert_string_equal(buf, "\u2581");
	assert_int_equal(layout_bar_cells(0, 10, 20), 0);
	assert_int_equal(layout_bar_cells(0.1, 100, 20), 1);
	assert_int_equal(layout_bar_cells(5, 10, 20), 10);
	assert_int_equal(layout_bar_cells(9.99, 10, 20), 19);
	assert_int_equal(layout_bar_cells(10, 10, 20), 20);
	assert_int_equal(layout_bar_cells(3, 0, 20), 0);
}

static void test_formats(void **state)
{
	char b[64];

	(void)state;
	fmt_ago(1000, 998, b, sizeof(b));
	assert_string_equal(b, "now");
	fmt_ago(1000, 958, b, sizeof(b));
	assert_string_equal(b, "42s ago");
	fmt_ago(10000, 10000 - 125, b, sizeof(b));
	assert_string_equal(b, "2m ago");
	fmt_ago(1e6, 1e6 - 3 * 3600 - 5, b, sizeof(b));
	assert_string_equal(b, "3h ago");
	fmt_ago(1e7, 1e7 - 2 * 86400, b, sizeof(b));
	assert_string_equal(b, "2d ago");
	fmt_ago(1e8, 1e8 - 30 * 86400, b, sizeof(b));
	assert_string_equal(b, "4w ago");
	fmt_ago(1e6, 0, b, sizeof(b));
	assert_string_equal(b, "");
	fmt_elapsed(0.84, b, sizeof(b));
	assert_string_equal(b, "0.8s");
	fmt_elapsed(125, b, sizeof(b));
	assert_string_equal(b, "2m05s");
	fmt_speedup(1.4234, b, sizeof(b));
	assert_string_equal(b, "1.42x");
	fmt_speedup(-1, b, sizeof(b));
	assert_string_equal(b, "-");
	fmt_speedup(250, b, sizeof(b));
	assert_string_equal(b, "250x");
	fmt_count(1204, b, sizeof(b));
	assert_string_equal(b, "1,204");
	fmt_count(100000, b, sizeof(b));
	assert_string_equal(b, "100,000");
	fmt_count(-1234567, b, sizeof(b));
	assert_string_equal(b, "-1,234,567");
	fmt_count(7, b, sizeof(b));
	assert_string_equal(b, "7");
	fmt_num(0.3125, 0, b, sizeof(b));
	assert_string_equal(b, "0.3125");
	fmt_num(3.1e-7, 0, b, sizeof(b));
	assert_string_equal(b, "3.10e-07");
	fmt_num(NAN, 0, b, sizeof(b));
	assert_string_equal(b, "nan");
	fmt_num(-INFINITY, 0, b, sizeof(b));
	assert_string_equal(b, "-inf");
	fmt_num(-1, 1, b, sizeof(b));
	assert_string_equal(b, "-");
	fmt_num(-1, 0, b, sizeof(b));
	assert_string_equal(b, "-1");
	fmt_stars(2, b, sizeof(b));
	assert_string_equal(b, "\u2605\u2605\u2606\u2606\u2606");
	glyphs_set(0);
	fmt_stars(4, b, sizeof(b));
	assert_string_equal(b, "****-");
	glyphs_set(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_and_frame),
		cmocka_unit_test(test_splits),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_heat),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_pictures),
		cmocka_unit_test(test_formats),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
