/*
 * compilelog.c - the compile log of the run being viewed: its diagnostics (Enter jumps to the
 * line in the candidate screen) and the raw NVRTC log.
 */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "docview.h"
#include "ui.h"

static struct {
	int ready;
	struct docview v;
	const struct run_record *shown;
	int ndiags, width;
} s;

static void enter(struct tui *t)
{
	(void)t;
	if (!s.ready) {
		docview_init(&s.v, 1);
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

static void draw(struct tui *t, struct rect area)
{
	struct rect in = layout_inner(area);
	const struct run_record *r = t->view;
	char title[256];

	if (s.shown != r || s.width != in.w || (r && s.ndiags != r->compile.ndiags)) {
		docview_reset(&s.v);
		if (r && r->have_compile)
			report_compile_log(&s.v.doc, &r->compile, in.w);
		else
			doc_add(&s.v.doc, ROLE_DIM, "no compile log");
		if (s.shown != r) {
			s.v.top = 0;
			s.v.sel = -1;
		}
		s.shown = r;
		s.width = in.w;
		s.ndiags = r ? r->compile.ndiags : 0;
	}
	snprintf(title, sizeof(title), "compile log%s%s", glyphs()->mid, r && r->source_name ? r->source_name : "");
	draw_box(area, title, 1);
	docview_draw(&s.v, in, 1);
}

static unsigned jump(struct tui *t)
{
	const struct run_record *r = t->view;
	int tag = docview_tag(&s.v), line, k;
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

static unsigned key(struct tui *t, enum action a, int k)
{
	(void)k;
	if (a == ACT_JUMP || a == ACT_OPEN)
		return jump(t);
	if (docview_key(&s.v, a))
		return R_HANDLED;
	return 0;
}

static int find(struct tui *t, const struct search *se, int dir, int again, int *wrapped)
{
	(void)t;
	return docview_find(&s.v, se, dir, again, wrapped);
}

static const enum action hints[] = {
	ACT_JUMP, ACT_DOWN, ACT_UP, ACT_CANDIDATE, ACT_RUN, ACT_BACK, ACT_NONE,
};

const struct screen_ops log_screen = {
	.name = "compile log",
	.scope = KS_LOG,
	.hints = hints,
	.enter = enter,
	.draw = draw,
	.key = key,
	.leave = leave,
	.find = find,
};
