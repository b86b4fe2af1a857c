/*
 * results.c - a run's results: verdict and summary, each case's verdict and errors (Enter or d
 * opens its diff), each perf row's timings, speedups, GB/s, TFLOP/s and % of peak; the selected
 * case in full below.
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
	int ncases, nperf, have_summary, width;
} s;

static const struct task *view_task(struct tui *t)
{
	int k;

	if (!t->view || !t->view->task_id)
		return NULL;
	k = model_task_by_id(&t->model, t->view->task_id);
	return k >= 0 ? t->cat->tasks[k] : NULL;
}

static void enter(struct tui *t)
{
	if (!s.ready) {
		docview_init(&s.v, 1);
		s.ready = 1;
	}
	if (s.shown != t->view) {
		s.v.top = 0;
		s.v.sel = -1;
		/* a new run: start on its first failing case, the one worth a diff */
		if (t->view && t->view_case < 0)
			t->view_case = run_record_first_failure(t->view);
	}
	s.width = 0;
	if (t->view_case >= 0)
		s.v.sel = -1; /* selected again after the build */
}

static void leave(struct tui *t)
{
	(void)t;
	docview_free(&s.v);
	memset(&s, 0, sizeof(s));
}

static void build(struct tui *t, int width)
{
	const struct run_record *r = t->view;

	docview_reset(&s.v);
	s.shown = r;
	s.width = width;
	if (!r) {
		doc_add(&s.v.doc, ROLE_DIM, "no results yet: r runs the candidate");
		doc_newline(&s.v.doc);
		return;
	}
	s.ncases = r->ncases;
	s.nperf = r->nperf;
	s.have_summary = r->have_summary;
	report_results(&s.v.doc, r, view_task(t), t->dev.peak_gbps, width);
	if (t->view_case >= 0) {
		docview_clamp(&s.v, s.v.rows);
		docview_select_tag(&s.v, t->view_case);
	}
}

static void draw(struct tui *t, struct rect area)
{
	const struct run_record *r = t->view;
	struct rect top, bottom, in;
	char title[256];
	int tag;

	layout_vsplit(area, area.h * 3 / 5, 6, &top, &bottom);
	in = layout_inner(top);
	if (s.shown != r || s.width != in.w || (r && (s.ncases != r->ncases || s.nperf != r->nperf ||
						       s.have_summary != r->have_summary)))
		build(t, in.w);
	if (r && r->from_history)
		snprintf(title, sizeof(title), "results%s%s%srun #%lld from the history", glyphs()->mid,
			 r->task_id ? r->task_id : "", glyphs()->mid, r->db_id);
	else
		snprintf(title, sizeof(title), "results%s%s%s", glyphs()->mid, r && r->task_id ? r->task_id : "",
			 r && r->state == RUN_RUNNING ? " (running)" : "");
	draw_box(top, title, 1);
	docview_draw(&s.v, in, 1);
	tag = docview_tag(&s.v);
	if (tag >= 0)
		t->view_case = tag;
	{
		struct doc d;

		doc_init(&d);
		if (r && tag >= 0 && tag < r->ncases)
			report_case_detail(&d, &r->cases[tag], view_task(t), bottom.w - 2);
		else
			doc_add(&d, ROLE_DIM, "select a case");
		draw_box(bottom, "case", 0);
		draw_doc(layout_inner(bottom), &d, 0, -1, 0, 0);
		doc_free(&d);
	}
}

static unsigned key(struct tui *t, enum action a, int k)
{
	int tag;

	(void)k;
	if (docview_key(&s.v, a))
		return R_HANDLED;
	switch (a) {
	case ACT_OPEN:
	case ACT_DIFF:
		tag = docview_tag(&s.v);
		if (!t->view || tag < 0 || tag >= t->view->ncases)
			return R_HANDLED;
		if (!t->view->cases[tag].noutputs) {
			tui_message(t, ROLE_MESSAGE, "case '%s' has no compared output to diff%s%s", t->view->cases[tag].name,
				    t->view->cases[tag].message ? ": " : "",
				    t->view->cases[tag].message ? t->view->cases[tag].message : "");
			return R_HANDLED;
		}
		t->view_case = tag;
		t->view_output = 0;
		return tui_open(t, SCR_DIFF);
	case ACT_SANITIZE:
		return R_HANDLED | R_RUN_SANITIZE;
	default:
		return 0;
	}
}

static int find(struct tui *t, const struct search *se, int dir, int again, int *wrapped)
{
	(void)t;
	return docview_find(&s.v, se, dir, again, wrapped);
}

static const enum action hints[] = {
	ACT_DIFF, ACT_LOG, ACT_CANDIDATE, ACT_RUN, ACT_SANITIZE, ACT_HISTORY, ACT_BACK, ACT_NONE,
};

const struct screen_ops results_screen = {
	.name = "results",
	.scope = KS_RESULTS,
	.hints = hints,
	.enter = enter,
	.draw = draw,
	.key = key,
	.leave = leave,
	.find = find,
};
