/* The text-screen base alone (tui/textscreen.h): one instance, no terminal. Drawing goes through
 * draw_box and draw_doc, which this test defines in place of draw.c's: they record what would be
 * drawn (the first line shown, the selection), so scrolling is checked as the screen shows it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "tui/draw.h"
#include "tui/model.h"
#include "tui/textscreen.h"
#include "tui/ui.h"

static struct {
	int boxes, docs;
	int top, sel, hscroll;
	char title[128];
} drawn;

void draw_box(struct rect r, const char *title, int focus)
{
	(void)r;
	(void)focus;
	drawn.boxes++;
	snprintf(drawn.title, sizeof(drawn.title), "%s", title);
}

void draw_doc(struct rect r, const struct doc *d, int top, int sel, int focus, int hscroll)
{
	(void)r;
	(void)d;
	(void)focus;
	drawn.docs++;
	drawn.top = top;
	drawn.sel = sel;
	drawn.hscroll = hscroll;
}

/* A box 12 rows high: 10 rows of text inside. */
static const struct rect area = { 0, 0, 12, 40 };

/* n lines "line 1" .. "line n"; with tags, every third line is selectable (tag = its number). */
static void fill(struct textscreen *ts, int n, int tags)
{
	struct doc *d = textscreen_rebuild(ts, layout_inner(area).w, 0);

	for (int i = 1; i <= n; i++) {
		doc_addf(d, ROLE_NORMAL, "line %d%s", i, i == 42 ? " needle" : "");
		if (tags && i % 3 == 0)
			doc_tag(d, i);
		doc_newline(d);
	}
}

static unsigned press(struct textscreen *ts, enum action a)
{
	return textscreen_key(NULL, ts, a, 0);
}

static void test_scroll_bounds(void **state)
{
	struct textscreen ts;

	(void)state;
	textscreen_init(&ts, 0);
	assert_true(textscreen_stale(&ts, 38));
	fill(&ts, 50, 0);
	assert_false(textscreen_stale(&ts, 38));
	assert_true(textscreen_stale(&ts, 37));
	textscreen_draw(&ts, area, "fifty lines");
	assert_string_equal(drawn.title, "fifty lines");
	assert_int_equal(drawn.top, 0);
	assert_int_equal(drawn.sel, -1);

	/* up at the top stays there */
	assert_int_equal(press(&ts, ACT_UP), R_HANDLED);
	textscreen_draw(&ts, area, "");
	assert_int_equal(drawn.top, 0);
	press(&ts, ACT_DOWN);
	press(&ts, ACT_DOWN);
	textscreen_draw(&ts, area, "");
	assert_int_equal(drawn.top, 2);
	/* a page is the rows shown less one */
	press(&ts, ACT_PGDN);
	textscreen_draw(&ts, area, "");
	assert_int_equal(drawn.top, 11);
	press(&ts, ACT_PGUP);
	textscreen_draw(&ts, area, "");
	assert_int_equal(drawn.top, 2);
	/* the end shows the last page whole, and down there goes no further */
	press(&ts, ACT_BOTTOM);
	press(&ts, ACT_DOWN);
	textscreen_draw(&ts, area, "");
	assert_int_equal(drawn.top, ts.v.doc.n - 10);
	press(&ts, ACT_TOP);
	textscreen_draw(&ts, area, "");
	assert_int_equal(drawn.top, 0);
	/* without TS_HSCROLL, left and right are the screen's (or the global keys') */
	assert_int_equal(press(&ts, ACT_RIGHT), 0);
	assert_int_equal(press(&ts, ACT_OPEN), 0);

	/* a text shorter than the box never scrolls */
	fill(&ts, 5, 0);
	press(&ts, ACT_BOTTOM);
	textscreen_draw(&ts, area, "");
	assert_int_equal(drawn.top, 0);
	textscreen_free(&ts);
}

static void test_rebuild_keeps_or_homes(void **state)
{
	struct textscreen ts;

	(void)state;
	textscreen_init(&ts, 0);
	fill(&ts, 50, 0);
	textscreen_draw(&ts, area, "");
	press(&ts, ACT_PGDN);
	/* the same subject again (a resize, a redraw): the position stays */
	fill(&ts, 50, 0);
	textscreen_draw(&ts, area, "");
	assert_int_equal(drawn.top, 9);
	/* a new subject: from the first line */
	textscreen_rebuild(&ts, 38, 1);
	textscreen_draw(&ts, area, "");
	assert_int_equal(drawn.top, 0);
	textscreen_invalidate(&ts);
	assert_true(textscreen_stale(&ts, 38));
	textscreen_free(&ts);
}

static void test_selection(void **state)
{
	struct textscreen ts;

	(void)state;
	textscreen_init(&ts, TS_SELECT | TS_HSCROLL);
	fill(&ts, 50, 1);
	textscreen_draw(&ts, area, "");
	/* the selection starts on the first tagged line and steps over the others */
	assert_int_equal(textscreen_tag(&ts), 3);
	assert_int_equal(drawn.sel, 2);
	press(&ts, ACT_DOWN);
	assert_int_equal(textscreen_tag(&ts), 6);
	press(&ts, ACT_UP);
	press(&ts, ACT_UP);
	assert_int_equal(textscreen_tag(&ts), 3);
	press(&ts, ACT_BOTTOM);
	textscreen_draw(&ts, area, "");
	assert_int_equal(textscreen_tag(&ts), 48);
	assert_true(drawn.top <= 47 && drawn.top + 10 > 47);
	press(&ts, ACT_TOP);
	assert_int_equal(textscreen_tag(&ts), 3);
	/* sideways, by 8 columns, never before the first */
	assert_int_equal(press(&ts, ACT_RIGHT), R_HANDLED);
	textscreen_draw(&ts, area, "");
	assert_int_equal(drawn.hscroll, 8);
	press(&ts, ACT_LEFT);
	press(&ts, ACT_LEFT);
	textscreen_draw(&ts, area, "");
	assert_int_equal(drawn.hscroll, 0);
	textscreen_free(&ts);
}

static void test_search(void **state)
{
	struct textscreen ts;
	struct search s;
	int wrapped;

	(void)state;
	search_init(&s);
	textscreen_init(&ts, 0);
	fill(&ts, 50, 0);
	textscreen_draw(&ts, area, "");

	/* / needle: the matching line comes to the top */
	assert_int_equal(search_set(&s, "needle"), KBX_OK);
	assert_int_equal(textscreen_find(NULL, &ts, &s, 1, 0, &wrapped), 1);
	assert_false(wrapped);
	textscreen_draw(&ts, area, "");
	assert_int_equal(drawn.top, 41); /* line 42 */

	/* n from the top: line 7 (lines 7, 17, 27, ... match /7/) */
	assert_int_equal(search_set(&s, "7"), KBX_OK);
	press(&ts, ACT_TOP);
	assert_int_equal(textscreen_find(NULL, &ts, &s, 1, 1, &wrapped), 1);
	assert_int_equal(ts.v.top, 6);
	assert_int_equal(textscreen_find(NULL, &ts, &s, 1, 1, &wrapped), 1);
	assert_int_equal(ts.v.top, 16);
	/* N from line 7 goes back round the top to the last match, and says so */
	press(&ts, ACT_TOP);
	assert_int_equal(textscreen_find(NULL, &ts, &s, -1, 1, &wrapped), 1);
	assert_true(wrapped);

	/* no match: nothing moves */
	press(&ts, ACT_TOP);
	assert_int_equal(search_set(&s, "nowhere"), KBX_OK);
	assert_int_equal(textscreen_find(NULL, &ts, &s, 1, 0, &wrapped), 0);
	assert_int_equal(ts.v.top, 0);
	textscreen_free(&ts);

	/* with a selection, n and N go over the selectable lines only */
	textscreen_init(&ts, TS_SELECT);
	fill(&ts, 50, 1);
	textscreen_draw(&ts, area, "");
	assert_int_equal(search_set(&s, "line 1"), KBX_OK); /* 1, 10..19: of those 12, 15, 18 are tagged */
	assert_int_equal(textscreen_find(NULL, &ts, &s, 1, 1, &wrapped), 1);
	assert_int_equal(textscreen_tag(&ts), 12);
	assert_int_equal(textscreen_find(NULL, &ts, &s, 1, 1, &wrapped), 1);
	assert_int_equal(textscreen_tag(&ts), 15);
	assert_int_equal(textscreen_find(NULL, &ts, &s, -1, 1, &wrapped), 1);
	assert_int_equal(textscreen_tag(&ts), 12);
	assert_int_equal(textscreen_find(NULL, &ts, &s, -1, 1, &wrapped), 1);
	assert_int_equal(textscreen_tag(&ts), 18);
	assert_true(wrapped);
	textscreen_free(&ts);
	search_free(&s);
}

/* The base's table opens, enters, keys and closes an instance as the screen stack does. */
static void test_base_ops(void **state)
{
	struct textscreen *ts = test_calloc(1, textscreen_ops.size);

	(void)state;
	assert_int_equal(textscreen_ops.size, sizeof(struct textscreen));
	assert_null(textscreen_ops.draw); /* every text screen draws its own */
	textscreen_ops.open(NULL, ts);
	fill(ts, 30, 0);
	assert_false(textscreen_stale(ts, 38));
	textscreen_ops.enter(NULL, ts);
	assert_true(textscreen_stale(ts, 38)); /* back on top: built again */
	assert_int_equal(textscreen_ops.key(NULL, ts, ACT_DOWN, 'j'), R_HANDLED);
	textscreen_ops.close(NULL, ts);
	test_free(ts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scroll_bounds),
		cmocka_unit_test(test_rebuild_keeps_or_homes),
		cmocka_unit_test(test_selection),
		cmocka_unit_test(test_search),
		cmocka_unit_test(test_base_ops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
