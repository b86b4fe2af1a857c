/*
 * draw.h - drawing on the terminal: the only functions screens use to put text on it.
 *
 * Every call names a colour role, never a colour; draw.c turns roles into curses attributes
 * from the current theme (draw_apply_theme), with an 8-colour fallback and attributes only
 * when there is no colour (NO_COLOR, the mono theme, a terminal without colours).
 */
#ifndef KBX_TUI_DRAW_H
#define KBX_TUI_DRAW_H

#include "doc.h"
#include "layout.h"
#include "theme.h"

/* Set up colour pairs for th; returns 1 when colours are in use. */
int draw_apply_theme(const struct theme *th, int no_color);
/* Terminal size. */
void draw_size(int *cols, int *rows);

void draw_fill(struct rect r, int role);
/* Text clipped to maxw columns; returns the columns written. */
int draw_text(int y, int x, int maxw, int role, const char *s);
/* A doc line in w columns from hscroll on; sel_role >= 0 draws the whole line in that role. */
void draw_doc_line(int y, int x, int w, const struct doc_line *l, int hscroll, int sel_role);
/* Lines [top, top + r.h) of d in r; line `sel` (-1: none) highlighted, dimmer without focus. */
void draw_doc(struct rect r, const struct doc *d, int top, int sel, int focus, int hscroll);
/* A box on r's border with a title; focus picks the border role. */
void draw_box(struct rect r, const char *title, int focus);
/* Where the terminal cursor should rest (-1: hidden). */
void draw_cursor(int y, int x);
/* Clear and redraw everything on the next refresh. */
void draw_invalidate(void);

#endif
