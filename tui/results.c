/*
 * results.c - a run's results: verdict and summary, each case's verdict and errors (Enter or d
 * opens its diff), each perf row's timings, speedups, GB/s, TFLOP/s and % of peak; the selected
 * case in full below.
 */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "textscreen.h"
#include "ui.h"

struct results {
	struct textscreen ts;
	const struct run_record *shown;
	int ncases, nperf, have_summary;        /* what the text shows of it */
};

static const struct task *view_task(struct tui *t)
{
	int k;

	if (!t->view || !t->view->task_id)
		return NULL;
	k = model_task_by_id(&t->model, t->view->task_id);
	return k >= 0 ? t->cat->tasks[k] : NULL;
}

static void init(struct tui *t, void *self)
{
	(void)t;
	textscreen_init(self, TS_SELECT);
}

static void enter(struct tui *t, void *self)
{
	struct results *s = self;

	if (s->shown != t->view) {
		s->ts.v.top = 0;
		s->ts.v.sel = -1;
		/* a new run: start on its first failing case, the one worth a diff */
		if (t->view && t->view_case < 0)
			t->view_case = run_record_first_failure(t->view);
	}
	textscreen_invalidate(&s->ts);
	if (t->view_case >= 0)
		s->ts.v.sel = -1; /* selected again after the build */
}

static void build(struct tui *t, struct results *s, int width)
{
	const struct run_record *r = t->view;
	struct doc *d = textscreen_rebuild(&s->ts, width, 0);

	s->shown = r;
	if (!r) {
		doc_add(d, ROLE_DIM, "no results yet: r runs the candidate");
		doc_newline(d);
		return;
	}
	s->ncases = r->ncases;
	s->nperf = r->nperf;
	s->have_summary = r->have_summary;
	report_results(d, r, view_task(t), t->dev.peak_gbps, width);
	if (t->view_case >= 0) {
		docview_clamp(&s->ts.v, s->ts.v.rows);
		docview_select_tag(&s->ts.v, t->view_case);
	}
}

static void draw(struct tui *t, void *self, struct rect area)
{
	struct results *s = self;
	const struct run_record *r = t->view;
	struct rect top, bottom, in;
	char title[256];
	int tag;

	layout_vsplit(area, area.h * 3 / 5, 6, &top, &bottom);
	in = layout_inner(top);
	if (s->shown != r || textscreen_stale(&s->ts, in.w) ||
	    (r && (s->ncases != r->ncases || s->nperf != r->nperf || s->have_summary != r->have_summary)))
		build(t, s, in.w);
	if (r && r->from_history)
		snprintf(title, sizeof(title), "results%s%s%srun #%lld from the history", glyphs()->mid,
			 r->task_id ? r->task_id : "", glyphs()->mid, r->db_id);
	else
		snprintf(title, sizeof(title), "results%s%s%s", glyphs()->mid, r && r->task_id ? r->task_id : "",
			 r && r->state == RUN_RUNNING ? " (running)" : "");
	textscreen_draw(&s->ts, top, title);
	tag = textscreen_tag(&s->ts);
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

static unsigned key(struct tui *t, void *self, enum action a, int k)
{
	int tag;

	switch (a) {
	case ACT_OPEN:
	case ACT_DIFF:
		tag = textscreen_tag(self);
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

const struct screen_ops results_screen = {
	.base = &textscreen_ops,
	.size = sizeof(struct results),
	.open = init,
	.enter = enter,
	.draw = draw,
	.key = key,
};
