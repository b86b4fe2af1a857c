/*
 * runview.c - a run as it happens: the phase and its time limit, compile, a bar for the cases
 * and one for the perf rows, each case and row as it arrives, the elapsed time; x cancels.
 */
#include <stdio.h>
#include <string.h>

#include "../core/derive.h"
#include "../core/util.h"
#include "draw.h"
#include "textscreen.h"
#include "ui.h"

struct runview {
	struct textscreen ts;
	const struct task *counted;     /* the task expected_cases counted */
	int ncounted;
};

/* The cases a run goes through: the task's own and the derived ones (core/derive.h), so that
 * the bar does not read "cases 18/15". Derived once per task, not at every redraw. */
static int expected_cases(struct runview *s, const struct task *t)
{
	struct task_case *derived;
	int nderived = 0;

	if (t == s->counted)
		return s->ncounted;
	if (derive_auto(t, &derived, &nderived) == KBX_OK)
		derive_cases_free(derived, nderived);
	else
		kbx_clear_error();
	s->counted = t;
	s->ncounted = t->ncases + nderived;
	return s->ncounted;
}

static void bar(struct doc *d, const char *name, int done, int total, int width)
{
	int w = width - 12 - 12, cells;

	if (w < 10)
		w = 10;
	if (w > 50)
		w = 50;
	doc_addcol(d, ROLE_LABEL, name, 12, 0);
	cells = layout_bar_cells(done, total, w);
	for (int i = 0; i < w; i++)
		doc_add(d, i < cells ? ROLE_BAR_DONE : ROLE_BAR_TODO, i < cells ? glyphs()->bar_full : glyphs()->bar_empty);
	doc_addf(d, ROLE_NUMBER, " %d/%d", done, total);
	doc_newline(d);
}

static void build(struct tui *t, struct runview *s, int width)
{
	struct run_record *r = t->run;
	struct doc *d = textscreen_rebuild(&s->ts, width, 0);
	const struct task *task = r ? t->cat->tasks[t->run_task >= 0 ? t->run_task : 0] : NULL;
	double now = now_seconds();
	char buf[64];

	if (!r) {
		doc_add(d, ROLE_DIM, "no run yet: r runs the current task's candidate");
		doc_newline(d);
		return;
	}
	doc_addcol(d, ROLE_LABEL, "source", 12, 0);
	doc_add(d, ROLE_NORMAL, r->source_name ? r->source_name : "candidate");
	doc_newline(d);
	doc_addcol(d, ROLE_LABEL, "elapsed", 12, 0);
	fmt_elapsed((r->state == RUN_RUNNING ? now : r->finished) - r->started, buf, sizeof(buf));
	doc_add(d, ROLE_NUMBER, buf);
	doc_newline(d);
	doc_addcol(d, ROLE_LABEL, "phase", 12, 0);
	if (r->state == RUN_RUNNING) {
		doc_add(d, ROLE_ACCENT, *r->phase ? r->phase : "starting the worker");
		if (r->phase_limit > 0) {
			fmt_elapsed(now - r->phase_started, buf, sizeof(buf));
			doc_addf(d, ROLE_DIM, "  %s of %.0fs allowed", buf, r->phase_limit);
		}
	} else {
		doc_add(d, ROLE_DIM, r->state == RUN_DONE ? "done" : r->state == RUN_CANCELLED ? "cancelled" : "failed");
	}
	doc_newline(d);
	doc_addcol(d, ROLE_LABEL, "compile", 12, 0);
	if (!r->have_compile) {
		doc_add(d, ROLE_DIM, r->state == RUN_RUNNING ? "compiling..." : "-");
	} else {
		int errors = 0;

		for (int i = 0; i < r->compile.ndiags; i++)
			errors += !strcmp(r->compile.diags[i].severity, "error");
		fmt_elapsed(r->compile.seconds, buf, sizeof(buf));
		doc_add(d, r->compile.ok ? ROLE_PASS : ROLE_ERROR, r->compile.ok ? "ok" : "failed");
		doc_addf(d, ROLE_DIM, " in %s%s %s", buf, r->compile.cached ? " (cached)" : "", r->compile.arch);
		if (r->compile.ndiags)
			doc_addf(d, errors ? ROLE_ERROR : ROLE_WARN, "  %d error%s, %d other (L: compile log)", errors,
				 errors == 1 ? "" : "s", r->compile.ndiags - errors);
	}
	doc_newline(d);
	if (task) {
		int total = expected_cases(s, task);

		/* fuzz draws and their shrinking come on top of what can be known ahead */
		bar(d, "cases", r->ncases, r->ncases > total ? r->ncases : total, width);
		if (task->perf.nrows)
			bar(d, "perf rows", r->nperf, task->perf.nrows, width);
	}
	if (r->state != RUN_RUNNING) {
		enum verdict v = run_record_verdict(r);

		doc_newline(d);
		doc_addcol(d, ROLE_LABEL, "verdict", 12, 0);
		if (r->have_summary) {
			doc_add(d, report_verdict_role(v), verdict_name(v));
			if (r->summary.message) {
				doc_add(d, ROLE_NORMAL, "  ");
				doc_addn(d, ROLE_NORMAL, r->summary.message, strcspn(r->summary.message, "\n"));
			}
		} else {
			doc_add(d, ROLE_ERROR, r->state == RUN_CANCELLED ? "cancelled" : "no verdict");
			doc_add(d, ROLE_NORMAL, "  ");
			doc_add(d, ROLE_NORMAL, r->error);
		}
		doc_newline(d);
		if (*r->error && r->have_summary) {
			doc_addcol(d, ROLE_LABEL, "", 12, 0);
			doc_add(d, ROLE_WARN, r->error);
			doc_newline(d);
		}
		doc_addcol(d, ROLE_LABEL, "", 12, 0);
		doc_add(d, ROLE_DIM, "Enter: results");
		if (r->have_compile)
			doc_add(d, ROLE_DIM, "   L: compile log");
		doc_newline(d);
	}
	doc_newline(d);
	if (r->ncases) {
		doc_add(d, ROLE_HEADING, "cases");
		doc_newline(d);
	}
	for (int i = 0; i < r->ncases; i++) {
		const struct case_result *c = &r->cases[i];
		int role = report_verdict_role(c->verdict);

		doc_add(d, role, c->verdict == V_PASS ? glyphs()->pass : glyphs()->fail);
		doc_add(d, ROLE_NORMAL, " ");
		doc_addcol(d, ROLE_NORMAL, c->name, 30, 0);
		doc_addcol(d, role, verdict_name(c->verdict), 14, 0);
		fmt_elapsed(c->seconds, buf, sizeof(buf));
		doc_addcol(d, ROLE_DIM, buf, 7, 1);
		if (c->message) {
			doc_add(d, ROLE_NORMAL, "  ");
			doc_addn(d, ROLE_DIM, c->message, strcspn(c->message, "\n"));
		}
		doc_newline(d);
	}
	if (r->nperf) {
		doc_newline(d);
		doc_add(d, ROLE_HEADING, "perf rows");
		doc_newline(d);
	}
	for (int i = 0; i < r->nperf; i++) {
		const struct perf_result *p = &r->perf[i];
		double c = p->cand.median;

		doc_addf(d, ROLE_NUMBER, "%3d ", p->row);
		doc_addcol(d, ROLE_NORMAL, p->input_size ? p->input_size : "", 26, 0);
		doc_addf(d, ROLE_NUMBER, " %9.4f ms", c);
		if (p->has_ref && c > 0) {
			fmt_speedup(p->ref.median / c, buf, sizeof(buf));
			doc_addf(d, ROLE_DIM, "  vs ref ");
			doc_add(d, ROLE_NUMBER, buf);
		}
		if (p->golden_ms > 0 && c > 0) {
			fmt_speedup(p->golden_ms / c, buf, sizeof(buf));
			doc_addf(d, ROLE_DIM, "  vs golden ");
			doc_add(d, ROLE_NUMBER, buf);
		}
		if (!p->correct)
			doc_add(d, ROLE_FAIL, "  wrong at this size");
		doc_newline(d);
	}
	for (int i = 0; i < r->nlogs; i++) {
		doc_add(d, ROLE_DIM, r->logs[i]);
		doc_newline(d);
	}
}

static void draw(struct tui *t, void *self, struct rect area)
{
	char title[256];
	const struct task *task = t->run && t->run_task >= 0 ? t->cat->tasks[t->run_task] : NULL;

	/* rebuilt every frame: the loop redraws while the run goes on */
	build(t, self, layout_inner(area).w);
	snprintf(title, sizeof(title), "run%s%s%s", glyphs()->mid, task ? task->id : "",
		 t->runner ? "  (x cancels)" : "");
	textscreen_draw(self, area, title);
}

static unsigned key(struct tui *t, void *self, enum action a, int k)
{
	if (a == ACT_OPEN) {
		if (!t->run)
			return R_HANDLED;
		/* the verdict is in once done arrived, even while the worker is still exiting */
		if (t->run->state == RUN_RUNNING) {
			tui_message(t, ROLE_MESSAGE, "still running (x cancels)");
			return R_HANDLED;
		}
		t->view = t->run;
		return tui_open(t, SCR_RESULTS);
	}
	return 0;
}

const struct screen_ops run_screen = {
	.base = &textscreen_ops,
	.size = sizeof(struct runview),
	.draw = draw,
	.key = key,
};
