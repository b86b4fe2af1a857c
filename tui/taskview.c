/*
 * taskview.c - one task: summary, contract, tolerance, cases, perf sizes, golden timings for
 * this GPU, the examples (1-9 load one) and the reference source, coloured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

#include "draw.h"
#include "docview.h"
#include "ui.h"

static struct {
	int ready;
	struct docview v;
	int task, width, dev_done;
} s;

static void build(struct tui *t, int width)
{
	const struct task *task = tui_task(t);
	struct golden_info g;

	docview_reset(&s.v);
	if (!task)
		return;
	session_golden_info(t, task, &g);
	report_task(&s.v.doc, task, &g, width);
	session_golden_info_free(&g);
	s.task = t->task;
	s.width = width;
	s.dev_done = t->dev.done;
}

static void enter(struct tui *t)
{
	if (!s.ready) {
		docview_init(&s.v, 0);
		s.ready = 1;
		s.task = -1;
	}
	if (s.task != t->task) {
		s.v.top = 0;
		s.v.sel = -1;
		s.width = 0;
	}
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
	const struct task *task = tui_task(t);
	char title[256];

	if (s.task != t->task || s.width != in.w || s.dev_done != t->dev.done)
		build(t, in.w);
	snprintf(title, sizeof(title), "task%s%s", glyphs()->mid, task ? task->id : "none");
	draw_box(area, title, 1);
	docview_draw(&s.v, in, 1);
}

static unsigned example_apply(struct tui *t, const char *arg)
{
	const struct task *task = tui_task(t);
	int i = atoi(arg);
	const char *base;
	char name[256];

	if (!task || i < 0 || i >= task->nexamples)
		return R_HANDLED;
	if (!candidate_load_file(t, task->examples[i]))
		return R_HANDLED;
	base = strrchr(task->examples[i], '/');
	snprintf(name, sizeof(name), "example %s", base ? base + 1 : task->examples[i]);
	free(t->cands[t->task].name);
	t->cands[t->task].name = xstrdup(name);
	t->cand_goto = 1;
	return tui_open(t, SCR_CAND);
}

static unsigned load_example(struct tui *t, int i)
{
	const struct task *task = tui_task(t);
	const char *base;
	char what[300], arg[16];

	if (!task || i < 0 || i >= task->nexamples) {
		tui_message(t, ROLE_ERRMSG, "%s has no example %d", task ? task->name : "this task", i + 1);
		return R_HANDLED;
	}
	base = strrchr(task->examples[i], '/');
	snprintf(what, sizeof(what), "example %s", base ? base + 1 : task->examples[i]);
	snprintf(arg, sizeof(arg), "%d", i);
	return session_replace(t, t->task, what, example_apply, arg);
}

static unsigned key(struct tui *t, enum action a, int k)
{
	if (docview_key(&s.v, a))
		return R_HANDLED;
	switch (a) {
	case ACT_EXAMPLE:
		return load_example(t, k - '1');
	case ACT_RUN_REF:
		return R_HANDLED | R_RUN_REF;
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
	ACT_EXAMPLE, ACT_RUN, ACT_RUN_REF, ACT_LOAD, ACT_PASTE, ACT_EDIT, ACT_STARTER, ACT_CANDIDATE, ACT_HISTORY, ACT_BACK, ACT_NONE,
};

const struct screen_ops task_screen = {
	.name = "task",
	.scope = KS_TASK,
	.hints = hints,
	.enter = enter,
	.draw = draw,
	.key = key,
	.leave = leave,
	.find = find,
};
