/*
 * textscreen.c - what the text screens share (textscreen.h).
 */
#include "textscreen.h"

#include "draw.h"
#include "ui.h"

void textscreen_init(struct textscreen *ts, unsigned flags)
{
	docview_init(&ts->v, (flags & TS_SELECT) != 0);
	ts->v.hscrollable = (flags & TS_HSCROLL) != 0;
	ts->width = 0;
}

void textscreen_free(struct textscreen *ts)
{
	docview_free(&ts->v);
}

void textscreen_invalidate(struct textscreen *ts)
{
	ts->width = 0;
}

int textscreen_stale(const struct textscreen *ts, int width)
{
	return ts->width <= 0 || ts->width != width;
}

struct doc *textscreen_rebuild(struct textscreen *ts, int width, int home)
{
	docview_reset(&ts->v);
	ts->width = width;
	if (home) {
		ts->v.top = 0;
		ts->v.sel = -1;
	}
	return &ts->v.doc;
}

void textscreen_draw(struct textscreen *ts, struct rect area, const char *title)
{
	draw_box(area, title, 1);
	docview_draw(&ts->v, layout_inner(area), 1);
}

int textscreen_tag(const struct textscreen *ts)
{
	return docview_tag(&ts->v);
}

unsigned textscreen_key(struct tui *t, void *self, enum action a, int key)
{
	struct textscreen *ts = self;

	(void)t;
	(void)key;
	return docview_key(&ts->v, a) ? R_HANDLED : 0;
}

int textscreen_find(struct tui *t, void *self, const struct search *s, int dir, int again, int *wrapped)
{
	struct textscreen *ts = self;

	(void)t;
	return docview_find(&ts->v, s, dir, again, wrapped);
}

static void ts_open(struct tui *t, void *self)
{
	(void)t;
	textscreen_init(self, 0);
}

/* back on top: what the text shows may have changed meanwhile (a run from the history is read
 * into the same record) */
static void ts_enter(struct tui *t, void *self)
{
	(void)t;
	textscreen_invalidate(self);
}

static void ts_close(struct tui *t, void *self)
{
	(void)t;
	textscreen_free(self);
}

const struct screen_ops textscreen_ops = {
	.size = sizeof(struct textscreen),
	.open = ts_open,
	.enter = ts_enter,
	.key = textscreen_key,
	.close = ts_close,
	.find = textscreen_find,
};
