/*
 * find.h - `/`, `n` and `N` in every view, as in less and tig: one pattern for the session
 * (PCRE2, smart case, model.h's struct search), matched against each line of the view on top.
 *
 * A screen takes part by filling screen_ops.find (ui.h); views built on a docview pass it to
 * docview_find, lists to find_row (model.h). `n` and `N` wrap around the view's ends and say
 * so. The browser keeps its own search, which narrows its list (model.h).
 */
#ifndef KBX_TUI_FIND_H
#define KBX_TUI_FIND_H

#include "keys.h"

struct tui;

/* ACT_FIND, ACT_FIND_NEXT, ACT_FIND_PREV on the screen on top; returns result bits. */
unsigned find_key(struct tui *t, enum action a);
/* 1 when a search pattern is set (n and N then go through its matches). */
int find_active(const struct tui *t);

#endif
