/*
 * compare.c - two attempts side by side: what changed in verdict, per case and per perf row,
 * and the diff of their sources.
 */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "docview.h"
#include "ui.h"

static struct {
	int ready;
	struct docview v;
	long long a, b;
	int width;
} s;

static void enter(struct tui *t)
{
	(void)t;
	if (!s.ready) {
		docview_init(&s.v, 0);
		s.v.hscrollable = 1;
		s.ready = 1;
	}
	s.width = 0;
}

static void leave(struct tui *t)
{
	(void)t;
	docview_free(&s.v);
	memset(&s, 0, sizeof(s));
}

static void build(struct tui *t, int width)
{
	struct db_run_detail a, b;

	docview_reset(&s.v);
	s.a = t->compare[0];
	s.b = t->compare[1];
	s.width = width;
	s.v.top = 0;
	if (!t->db || db_run_get(t->db, s.a, &a) != KBX_OK) {
		doc_add(&s.v.doc, ROLE_ERROR, t->db ? kbx_last_error() : "no history");
		return;
	}
	if (db_run_get(t->db, s.b, &b) != KBX_OK) {
		doc_add(&s.v.doc, ROLE_ERROR, kbx_last_error());
		db_run_detail_free(&a);
		return;
	}
	report_compare(&s.v.doc, &a, &b, width);
	db_run_detail_free(&a);
	db_run_detail_free(&b);
}

static void draw(struct tui *t, struct rect area)
{
	struct rect in = layout_inner(area);
	char title[128];

	if (s.a != t->compare[0] || s.b != t->compare[1] || s.width != in.w)
		build(t, in.w);
	snprintf(title, sizeof(title), "attempt #%lld %s attempt #%lld", s.a, glyphs()->arrow, s.b);
	draw_box(area, title, 1);
	docview_draw(&s.v, in, 1);
}

static unsigned key(struct tui *t, enum action a, int k)
{
	(void)t;
	(void)k;
	return docview_key(&s.v, a) ? R_HANDLED : 0;
}

static int find(struct tui *t, const struct search *se, int dir, int again, int *wrapped)
{
	(void)t;
	return docview_find(&s.v, se, dir, again, wrapped);
}

static const enum action hints[] = {
	ACT_DOWN, ACT_UP, ACT_PGDN, ACT_RIGHT, ACT_BACK, ACT_NONE,
};

const struct screen_ops compare_screen = {
	.name = "compare",
	.scope = KS_COMPARE,
	.hints = hints,
	.enter = enter,
	.draw = draw,
	.key = key,
	.leave = leave,
	.find = find,
};
