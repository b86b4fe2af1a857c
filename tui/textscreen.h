/*
 * textscreen.h - the base of the screens that show one scrolling text in a box: help, compare,
 * the compile log, the run, the results, the task, the candidate and the diff's worst elements.
 *
 * Such a screen's state (ui.h: screen_ops.size, self) starts with a struct textscreen: the text
 * (a docview: lines, scroll offset, selection) and the width it was built for. Its table names
 * textscreen_ops as its base, which opens it without flags, builds its text again whenever it
 * comes back on top, takes the movement keys the screen leaves (Up, Down, pages, Home, End, Left
 * and Right where it scrolls sideways), searches it (/, n, N: find.h) and frees it. The screen
 * builds its text when textscreen_stale says so, into the doc textscreen_rebuild hands it, and
 * draws it with textscreen_draw. The base draws only through docview_draw and draw_box, so that
 * a test can drive it without a terminal.
 *
 *	struct help { struct textscreen ts; char theme[64]; };
 *
 *	static void draw(struct tui *t, void *self, struct rect area)
 *	{
 *		struct help *s = self;
 *		int w = layout_inner(area).w;
 *
 *		if (textscreen_stale(&s->ts, w) || strcmp(s->theme, t->theme.name))
 *			report_help(textscreen_rebuild(&s->ts, w, 0), ...);
 *		textscreen_draw(&s->ts, area, "help: every key");
 *	}
 *
 *	const struct screen_ops help_screen = {
 *		.base = &textscreen_ops,
 *		.size = sizeof(struct help), .draw = draw,
 *	};
 */
#ifndef KBX_TUI_TEXTSCREEN_H
#define KBX_TUI_TEXTSCREEN_H

#include "docview.h"
#include "keys.h"
#include "layout.h"

struct tui;
struct search;
struct screen_ops;

struct textscreen {
	struct docview v;       /* the text and where it is scrolled to */
	int width;              /* the width the text was built for; 0: never built, or to build again */
};

/* textscreen_init flags */
#define TS_SELECT 0x1u          /* the movement keys move a selection over tagged lines */
#define TS_HSCROLL 0x2u         /* Left and Right scroll sideways (else they are the screen's) */

void textscreen_init(struct textscreen *ts, unsigned flags);
void textscreen_free(struct textscreen *ts);
/* Build the text again at the next draw (the subject changed under the same width). */
void textscreen_invalidate(struct textscreen *ts);
/* 1 when the text must be built (again) for a box width columns wide inside. */
int textscreen_stale(const struct textscreen *ts, int width);
/* Clear the text for a build at width; home: back to the first line (a new subject), else the
 * position stays. Returns the doc to build into. */
struct doc *textscreen_rebuild(struct textscreen *ts, int width, int home);
/* The text in a focused box on area, with title. */
void textscreen_draw(struct textscreen *ts, struct rect area, const char *title);
/* The selected line's tag, -1 when none (TS_SELECT). */
int textscreen_tag(const struct textscreen *ts);

/* The base of a text screen's table (ui.h: screen_ops.base); self starts with a struct textscreen. */
extern const struct screen_ops textscreen_ops;
/* Its key and find: the movement keys (R_HANDLED when a was one, else 0); / n N over the text's
 * lines (the tagged ones with TS_SELECT) by find.h's rules. */
unsigned textscreen_key(struct tui *t, void *self, enum action a, int key);
int textscreen_find(struct tui *t, void *self, const struct search *s, int dir, int again, int *wrapped);

#endif
