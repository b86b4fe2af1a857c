/*
 * help.c - every key and what it does, generated from the key table (keys.h) that binds them.
 */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "docview.h"
#include "ui.h"

static struct {
	int ready;
	struct docview v;
	int width;
	char theme[64];
} s;

static void enter(struct tui *t)
{
	(void)t;
	if (!s.ready) {
		docview_init(&s.v, 0);
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

static void draw(struct tui *t, struct rect area)
{
	struct rect in = layout_inner(area);

	if (s.width != in.w || strcmp(s.theme, t->theme.name)) {
		docview_reset(&s.v);
		report_help(&s.v.doc, t->theme.name, t->themes, t->nthemes, in.w);
		s.width = in.w;
		snprintf(s.theme, sizeof(s.theme), "%s", t->theme.name);
	}
	draw_box(area, "help: every key", 1);
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
	ACT_DOWN, ACT_UP, ACT_PGDN, ACT_TOP, ACT_THEME, ACT_BACK, ACT_NONE,
};

const struct screen_ops help_screen = {
	.name = "help",
	.scope = KS_HELP,
	.hints = hints,
	.enter = enter,
	.draw = draw,
	.key = key,
	.leave = leave,
	.find = find,
};
