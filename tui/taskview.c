/*
 * taskview.c - one task: summary, contract, tolerance, cases, perf sizes, golden timings for
 * this GPU, the examples (1-9 load one) and the reference source, coloured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

#include "textscreen.h"
#include "ui.h"

struct taskview {
	struct textscreen ts;
	const struct task *shown;       /* what the text shows: the task (none before the first build), */
	int dev_done;                   /* and whether the GPU and its golden table were known */
};

static void build(struct tui *t, struct taskview *s, int width)
{
	const struct task *task = tui_task(t);
	/* another task: from its first line */
	struct doc *d = textscreen_rebuild(&s->ts, width, task != s->shown);
	struct golden_info g;

	s->shown = task;
	s->dev_done = t->dev.done;
	if (!task)
		return;
	session_golden_info(t, task, &g);
	report_task(d, task, &g, width);
	session_golden_info_free(&g);
}

static void draw(struct tui *t, void *self, struct rect area)
{
	struct taskview *s = self;
	const struct task *task = tui_task(t);
	int w = layout_inner(area).w;
	char title[256];

	if (s->shown != task || textscreen_stale(&s->ts, w) || s->dev_done != t->dev.done)
		build(t, s, w);
	snprintf(title, sizeof(title), "task%s%s", glyphs()->mid, task ? task->id : "none");
	textscreen_draw(&s->ts, area, title);
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

static unsigned key(struct tui *t, void *self, enum action a, int k)
{
	switch (a) {
	case ACT_EXAMPLE:
		return load_example(t, k - '1');
	case ACT_RUN_REF:
		return R_HANDLED | R_RUN_REF;
	default:
		return 0;
	}
}

const struct screen_ops task_screen = {
	.base = &textscreen_ops,
	.size = sizeof(struct taskview),
	.draw = draw,
	.key = key,
};
