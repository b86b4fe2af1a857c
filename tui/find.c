/*
 * find.c - searching the lines of the view on top (find.h).
 */
#include "find.h"

#include <stdio.h>

#include "ui.h"

int find_active(const struct tui *t)
{
	return t->find.re != NULL;
}

static unsigned go(struct tui *t, int dir, int again)
{
	int wrapped = 0;

	if (!screen_find(t, &t->find, dir, again, &wrapped))
		tui_message(t, ROLE_ERRMSG, "no line matches /%s/", t->find.pattern);
	else if (wrapped)
		tui_message(t, ROLE_MESSAGE, "/%s/: search wrapped to the %s", t->find.pattern, dir > 0 ? "top" : "bottom");
	else
		tui_message(t, ROLE_MESSAGE, "/%s/ (n: next, N: previous, / Enter: clear)", t->find.pattern);
	return R_HANDLED;
}

static void accept(struct tui *t, const char *text)
{
	if (!*text) {
		search_set(&t->find, "");
		tui_message(t, ROLE_MESSAGE, "search cleared");
		return;
	}
	if (search_set(&t->find, text) != KBX_OK) {
		tui_message(t, ROLE_ERRMSG, "%s", kbx_last_error());
		return;
	}
	go(t, 1, 0);
}

unsigned find_key(struct tui *t, enum action a)
{
	if (!screen_can_find(t)) {
		tui_message(t, ROLE_MESSAGE, "nothing to search on this screen");
		return R_HANDLED;
	}
	if (a == ACT_FIND) {
		prompt_open(t, "/", "", 0, accept, NULL, NULL);
		return R_HANDLED;
	}
	if (!find_active(t)) {
		tui_message(t, ROLE_MESSAGE, "no search yet: / searches this view");
		return R_HANDLED;
	}
	return go(t, a == ACT_FIND_NEXT ? 1 : -1, 1);
}
