/*
 * docview.h - a scrolling view of a doc: the widget most screens are made of.
 *
 * Without selectable lines it scrolls; with them (lines tagged >= 0) the movement keys move a
 * selection over those lines and the view follows it. Left and right scroll sideways.
 */
#ifndef KBX_TUI_DOCVIEW_H
#define KBX_TUI_DOCVIEW_H

#include "doc.h"
#include "keys.h"
#include "layout.h"

struct docview {
	struct doc doc;
	int top, sel, hscroll;
	int rows;               /* height when last drawn (for paging) */
	int selectable;         /* move a selection over tagged lines */
	int hscrollable;        /* left/right scroll (else they are the screen's) */
};

void docview_init(struct docview *v, int selectable);
void docview_free(struct docview *v);
/* Clear the text, keeping the position (call before rebuilding the doc). */
void docview_reset(struct docview *v);
/* Keep the selection on a tagged line and in view. */
void docview_clamp(struct docview *v, int rows);
void docview_draw(struct docview *v, struct rect r, int focus);
/* Movement; returns 1 when the action was one it knows. */
int docview_key(struct docview *v, enum action a);
/* The selected line's tag (-1 when none). */
int docview_tag(const struct docview *v);
/* Select the first line with this tag; returns 1 when found. */
int docview_select_tag(struct docview *v, int tag);

struct search;
/* Move to the next line matching s (find.h's rules: dir 1 or -1, again to start past the current
 * line, *wrapped set when it went round): the selection moves over selectable lines, else the
 * line scrolls to the top. Returns 1 when a line matched. */
int docview_find(struct docview *v, const struct search *s, int dir, int again, int *wrapped);

#endif
