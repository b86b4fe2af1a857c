/*
 * diffview.c - where a case's output differs from the reference: the worst elements
 * (scrollable), an error heatmap over the output's tiles with its legend, and a histogram of
 * log10 error, of each output and (> steps through them) of the first wrong stage's buffer where
 * there is one; for Quantization tasks a lens with the metrics against their thresholds, which z
 * zooms to the whole screen below the header (scrolling: at 100 x 30 its box shows only the
 * diagnosis and the metrics); for Fusion tasks the first stage (shared scratch buffer) that goes
 * wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "textscreen.h"
#include "ui.h"

/* The worst elements are the screen's text (textscreen.h); the heatmap, the histogram and the
 * lens fit their boxes and are drawn afresh each frame. */
struct diffview {
	struct textscreen worst;
	const struct run_record *shown;
	int shown_case, shown_output;   /* what the worst elements are of */
	struct textscreen lens;         /* the lens zoomed (z) */
	int zoom;
	const struct run_record *lens_shown;
	int lens_case, lens_output;     /* what the zoomed lens is of */
};

static const struct task *view_task(struct tui *t)
{
	int k = t->view && t->view->task_id ? model_task_by_id(&t->model, t->view->task_id) : -1;

	return k >= 0 ? t->cat->tasks[k] : NULL;
}

static void init(struct tui *t, void *self)
{
	struct diffview *s = self;

	(void)t;
	textscreen_init(&s->worst, TS_HSCROLL);
	textscreen_init(&s->lens, 0);
}

/* Back on top: both texts are built again (the run shown may have changed meanwhile). */
static void enter_view(struct tui *t, void *self)
{
	struct diffview *s = self;

	(void)t;
	textscreen_invalidate(&s->worst);
	textscreen_invalidate(&s->lens);
}

static void close_view(struct tui *t, void *self)
{
	struct diffview *s = self;

	(void)t;
	textscreen_free(&s->worst);
	textscreen_free(&s->lens);
}

static int is_quant(const struct task *task)
{
	return task && !strcmp(task->category, "Quantization");
}

/* The lens of case c's output o in doc d, w columns wide. */
static void lens_doc(struct tui *t, struct doc *d, const struct task *task, const struct case_result *c,
		     const struct output_result *o, int w)
{
	struct finding *f = NULL;
	int nf = t->view->source && t->rules.n ? rules_scan(&t->rules, t->view->source, &f) : 0;

	report_quant_lens(d, task, c, o, f, nf, w);
	free(f);
}

/* The zoomed lens over area (below the header), built again when the case or output changed. */
static void draw_zoom(struct tui *t, struct diffview *s, struct rect area, const struct task *task,
		      const struct case_result *c, const struct output_result *o)
{
	int w = layout_inner(area).w;
	int changed = s->lens_shown != t->view || s->lens_case != t->view_case || s->lens_output != t->view_output;

	if (changed || textscreen_stale(&s->lens, w)) {
		lens_doc(t, textscreen_rebuild(&s->lens, w, changed), task, c, o, w);
		s->lens_shown = t->view;
		s->lens_case = t->view_case;
		s->lens_output = t->view_output;
	}
	textscreen_draw(&s->lens, area, "quantization lens (z: back to the diff)");
}

static const struct case_result *cur_case(struct tui *t)
{
	if (!t->view || t->view_case < 0 || t->view_case >= t->view->ncases)
		return NULL;
	return &t->view->cases[t->view_case];
}

/* What > steps through: the case's outputs, then its first wrong stage's buffer. */
static int views_of(const struct case_result *c)
{
	return c->noutputs + (c->stage != NULL);
}

static const struct output_result *view_of(const struct case_result *c, int k)
{
	return k < c->noutputs ? &c->outputs[k] : c->stage;
}

static void draw(struct tui *t, void *self, struct rect area)
{
	struct diffview *s = self;
	const struct case_result *c = cur_case(t);
	const struct task *task = view_task(t);
	const struct output_result *o;
	struct rect head, rest, top, bottom, heat, hist;
	struct doc d;
	int quant = is_quant(task);
	char title[128];

	if (!c) {
		draw_text(area.y + 1, area.x + 1, area.w - 2, ROLE_DIM, "no case selected: pick one on the results screen");
		return;
	}
	if (t->view_output < 0 || t->view_output >= views_of(c))
		t->view_output = 0;
	o = views_of(c) ? view_of(c, t->view_output) : NULL;
	quant = quant && !(c->stage && o == c->stage);   /* the lens is the outputs' */

	/* the header: two lines, and up to three more for how the first wrong stage differs */
	doc_init(&d);
	report_diff_header(&d, task, c, o, area.w);
	{
		int rows = d.n;

		while (rows > 2 && !d.lines[rows - 1].len)
			rows--;
		layout_vsplit(area, rows < 2 ? 2 : rows > 5 ? 5 : rows, 1, &head, &rest);
	}
	draw_doc(head, &d, 0, -1, 0, 0);
	doc_free(&d);
	if (quant && s->zoom) {
		draw_zoom(t, s, rest, task, c, o);
		return;
	}

	/* worst elements on top; heatmap and histogram side by side below, and for Quantization
	 * tasks the lens under the histogram */
	{
		int th = rest.h * 9 / 20;

		if (quant)
			th = rest.h * 7 / 20;
		layout_vsplit(rest, th < 6 ? 6 : th, 5, &top, &bottom);
	}
	if (s->shown != t->view || s->shown_case != t->view_case || s->shown_output != t->view_output ||
	    textscreen_stale(&s->worst, top.w)) {
		struct doc *wd = textscreen_rebuild(&s->worst, top.w, 1);

		if (o)
			report_worst(wd, &o->cmp, top.w - 2);
		s->shown = t->view;
		s->shown_case = t->view_case;
		s->shown_output = t->view_output;
	}
	snprintf(title, sizeof(title), "worst elements (%d)", o ? o->cmp.nworst : 0);
	textscreen_draw(&s->worst, top, title);

	layout_hsplit(bottom, bottom.w / 2, 30, &heat, &hist);
	doc_init(&d);
	if (o)
		report_heatmap(&d, &o->cmp, heat.w - 2, heat.h - 2);
	draw_box(heat, "|err|/tol by tile", 0);
	draw_doc(layout_inner(heat), &d, 0, -1, 0, 0);
	doc_free(&d);

	if (quant) {
		/* the lens, with its diagnosis on top, gets most of the column; the histogram keeps 6 rows */
		int lh = hist.h - 6 < 8 ? 8 : hist.h - 6;
		struct rect lens;

		layout_vsplit(hist, hist.h - lh, 4, &hist, &lens);
		doc_init(&d);
		lens_doc(t, &d, task, c, o, lens.w - 2);
		draw_box(lens, "quantization lens (z: all of it)", 0);
		draw_doc(layout_inner(lens), &d, 0, -1, 0, 0);
		doc_free(&d);
	}
	doc_init(&d);
	if (o)
		report_histogram(&d, &o->cmp, hist.w - 2, hist.h - 2);
	draw_box(hist, "error histogram", 0);
	draw_doc(layout_inner(hist), &d, 0, -1, 0, 0);
	doc_free(&d);
}

/* The next case with outputs in direction dir, failing ones only unless all; wraps around the
 * ends and says so. */
static void step_case(struct tui *t, int dir, int all)
{
	const struct run_record *r = t->view;
	int n, wrapped = 0;

	if (!r || !(n = r->ncases))
		return;
	for (int k = 1; k <= n; k++) {
		int i = t->view_case + k * dir;
		const struct case_result *c;

		if (i >= n || i < 0) {
			wrapped = 1;
			i = ((i % n) + n) % n;
		}
		c = &r->cases[i];
		if (!c->noutputs || (!all && c->verdict == V_PASS))
			continue;
		if (i == t->view_case)
			break;
		t->view_case = i;
		t->view_output = 0;
		if (wrapped)
			tui_message(t, ROLE_MESSAGE, "wrapped to the %s %scase", dir > 0 ? "first" : "last", all ? "" : "failing ");
		return;
	}
	if (all)
		tui_message(t, ROLE_MESSAGE, "no other case with outputs");
	else
		tui_message(t, ROLE_MESSAGE, "no other failing case (} and { step through every case)");
}

static unsigned key(struct tui *t, void *self, enum action a, int k)
{
	struct diffview *s = self;
	const struct case_result *c = cur_case(t);

	if (s->zoom) {
		/* the zoomed lens scrolls; q and z go back to the diff */
		if (a == ACT_BACK || a == ACT_LENS) {
			s->zoom = 0;
			return R_HANDLED;
		}
		if (textscreen_key(t, &s->lens, a, k) & R_HANDLED)
			return R_HANDLED;
	}
	switch (a) {
	case ACT_LENS:
		if (c && is_quant(view_task(t)) && t->view_output >= c->noutputs)
			tui_message(t, ROLE_MESSAGE, "the lens is the outputs' (> goes back to them)");
		else if (is_quant(view_task(t)))
			s->zoom = 1;
		else
			tui_message(t, ROLE_MESSAGE, "the quantization lens is for Quantization tasks");
		return R_HANDLED;
	case ACT_NEXT_CASE:
		step_case(t, 1, 0);
		return R_HANDLED;
	case ACT_PREV_CASE:
		step_case(t, -1, 0);
		return R_HANDLED;
	case ACT_NEXT_ANY_CASE:
		step_case(t, 1, 1);
		return R_HANDLED;
	case ACT_PREV_ANY_CASE:
		step_case(t, -1, 1);
		return R_HANDLED;
	case ACT_NEXT_OUTPUT:
		if (c && views_of(c) > 1)
			t->view_output = (t->view_output + 1) % views_of(c);
		else
			tui_message(t, ROLE_MESSAGE, "this case has one output");
		return R_HANDLED;
	default:
		return 0;
	}
}

const struct screen_ops diff_screen = {
	.base = &textscreen_ops,
	.size = sizeof(struct diffview),
	.open = init,
	.enter = enter_view,
	.close = close_view,
	.draw = draw,
	.key = key,
};
