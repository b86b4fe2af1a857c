/*
 * compilelog.c - the compile log of the run being viewed: its diagnostics (Enter jumps to the
 * line in the candidate screen) and the raw NVRTC log.
 */
#include <stdio.h>
#include <string.h>

#include "textscreen.h"
#include "ui.h"

struct compilelog {
	struct textscreen ts;
	const struct run_record *shown;
	int ndiags;             /* the diagnostics the text lists */
};

static void init(struct tui *t, void *self)
{
	(void)t;
	textscreen_init(self, TS_SELECT | TS_HSCROLL);
}

static void draw(struct tui *t, void *self, struct rect area)
{
	struct compilelog *s = self;
	const struct run_record *r = t->view;
	int w = layout_inner(area).w;
	char title[256];

	if (s->shown != r || textscreen_stale(&s->ts, w) || (r && s->ndiags != r->compile.ndiags)) {
		struct doc *d = textscreen_rebuild(&s->ts, w, s->shown != r);

		if (r && r->have_compile)
			report_compile_log(d, &r->compile, w);
		else
			doc_add(d, ROLE_DIM, "no compile log");
		s->shown = r;
		s->ndiags = r ? r->compile.ndiags : 0;
	}
	snprintf(title, sizeof(title), "compile log%s%s", glyphs()->mid, r && r->source_name ? r->source_name : "");
	textscreen_draw(&s->ts, area, title);
}

static unsigned jump(struct tui *t, struct compilelog *s)
{
	const struct run_record *r = t->view;
	int tag = textscreen_tag(&s->ts), line, k;
	struct candidate *c;

	if (!r || tag < 0 || tag >= r->compile.ndiags)
		return R_HANDLED;
	line = r->compile.diags[tag].line;
	if (line <= 0) {
		tui_message(t, ROLE_MESSAGE, "this diagnostic names no line");
		return R_HANDLED;
	}
	k = r->task_id ? model_task_by_id(&t->model, r->task_id) : -1;
	if (k < 0)
		return R_HANDLED;
	t->task = k;
	c = &t->cands[k];
	/* the line belongs to the source that was compiled: make that the candidate if it is not */
	if (r->source && (!c->source || strcmp(c->source, r->source))) {
		candidate_set(t, k, r->source, r->source_name ? r->source_name : "from the run", NULL);
		tui_message(t, ROLE_MESSAGE, "the candidate is now the source that was compiled");
	}
	t->cand_goto = line;
	return tui_open(t, SCR_CAND);
}

static unsigned key(struct tui *t, void *self, enum action a, int k)
{
	if (a == ACT_JUMP || a == ACT_OPEN)
		return jump(t, self);
	return 0;
}

const struct screen_ops log_screen = {
	.base = &textscreen_ops,
	.size = sizeof(struct compilelog),
	.open = init,
	.draw = draw,
	.key = key,
};
