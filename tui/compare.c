/*
 * compare.c - two attempts side by side: what changed in verdict, per case and per perf row,
 * and the diff of their sources.
 */
#include <stdio.h>
#include <string.h>

#include "textscreen.h"
#include "ui.h"

struct compare {
	struct textscreen ts;
	long long a, b;         /* the runs compared */
};

static void init(struct tui *t, void *self)
{
	(void)t;
	textscreen_init(self, TS_HSCROLL);
}

static void build(struct tui *t, struct compare *s, int width)
{
	struct doc *d = textscreen_rebuild(&s->ts, width, 1);
	struct db_run_detail a, b;

	s->a = t->compare[0];
	s->b = t->compare[1];
	if (!t->db || db_run_get(t->db, s->a, &a) != KBX_OK) {
		doc_add(d, ROLE_ERROR, t->db ? kbx_last_error() : "no history");
		return;
	}
	if (db_run_get(t->db, s->b, &b) != KBX_OK) {
		doc_add(d, ROLE_ERROR, kbx_last_error());
		db_run_detail_free(&a);
		return;
	}
	report_compare(d, &a, &b, width);
	db_run_detail_free(&a);
	db_run_detail_free(&b);
}

static void draw(struct tui *t, void *self, struct rect area)
{
	struct compare *s = self;
	int w = layout_inner(area).w;
	char title[128];

	if (s->a != t->compare[0] || s->b != t->compare[1] || textscreen_stale(&s->ts, w))
		build(t, s, w);
	snprintf(title, sizeof(title), "attempt #%lld %s attempt #%lld", s->a, glyphs()->arrow, s->b);
	textscreen_draw(&s->ts, area, title);
}

const struct screen_ops compare_screen = {
	.base = &textscreen_ops,
	.size = sizeof(struct compare),
	.open = init,
	.draw = draw,
};
