/*
 * help.c - every key and what it does, generated from the key table (keys.h) that binds them.
 */
#include <stdio.h>
#include <string.h>

#include "textscreen.h"
#include "ui.h"

struct help {
	struct textscreen ts;
	char theme[64];         /* the theme the text names as current */
};

static void draw(struct tui *t, void *self, struct rect area)
{
	struct help *s = self;
	int w = layout_inner(area).w;

	if (textscreen_stale(&s->ts, w) || strcmp(s->theme, t->theme.name)) {
		report_help(textscreen_rebuild(&s->ts, w, 0), t->theme.name, t->themes, t->nthemes, w);
		snprintf(s->theme, sizeof(s->theme), "%s", t->theme.name);
	}
	textscreen_draw(&s->ts, area, "help: every key");
}

const struct screen_ops help_screen = {
	.base = &textscreen_ops,
	.size = sizeof(struct help),
	.draw = draw,
};
