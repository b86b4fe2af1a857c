/*
 * historyview.c - the history: per category its attempts, pass rate and its trend (a
 * sparkline), best and median speedup; below, the runs of the selected category or every
 * attempt at the current task. Enter shows a run's results; Space marks two runs and = compares
 * them (source diff, verdict and timing changes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "draw.h"
#include "find.h"
#include "ui.h"

#define NSPARK TUI_NSERIES
#define RUNS_LIMIT 500

struct history {
	int focus;                      /* 0 categories, 1 runs */
	struct listview cats, runs;
	struct db_run_row *rows;
	struct vsbest *vb;              /* rows[i] against the best attempt before it */
	int nrows;
	int loaded_cat, loaded_task;    /* what rows holds */
	int more;                       /* the history has more runs than RUNS_LIMIT here */
	double all_median;              /* the All row's median speedup, < 0 none */
	long long marks[2];
	int rows_h;                     /* visible rows of the runs */
};

static void free_rows(struct history *h)
{
	for (int i = 0; h->vb && i < h->nrows; i++)
		vsbest_free(&h->vb[i]);
	free(h->vb);
	free(h->rows);
	h->vb = NULL;
	h->rows = NULL;
	h->nrows = 0;
}

static void load_rows(struct tui *t, struct history *h)
{
	const char *cat = NULL, *task = NULL;

	free_rows(h);
	if (t->history_task >= 0)
		task = t->cat->tasks[t->history_task]->id;
	else if (h->cats.sel > 0)
		cat = t->model.cats[h->cats.sel - 1].name;
	/* one more than shown, to know whether there are more */
	if (t->db && db_runs_list(t->db, cat, task, task ? 0 : RUNS_LIMIT + 1, &h->rows, &h->nrows) != KBX_OK)
		tui_message(t, ROLE_ERRMSG, "%s", kbx_last_error());
	h->more = !task && h->nrows > RUNS_LIMIT;
	if (h->more)
		h->nrows = RUNS_LIMIT;
	if (t->db && db_median_speedup(t->db, &h->all_median) != KBX_OK)
		h->all_median = -1;
	/* loaded with the rows, not per frame: it reads the timings of every task listed */
	h->vb = xcalloc((size_t)(h->nrows > 0 ? h->nrows : 1), sizeof(*h->vb));
	if (t->db && vsbest_for_runs(t->db, h->rows, h->nrows, h->vb) != KBX_OK)
		tui_message(t, ROLE_ERRMSG, "%s", kbx_last_error());
	h->loaded_cat = h->cats.sel;
	h->loaded_task = t->history_task;
	list_clamp(&h->runs, h->nrows, h->rows_h > 0 ? h->rows_h : 10);
}

static void init(struct tui *t, void *self)
{
	struct history *h = self;

	(void)t;
	h->loaded_cat = -2;
	h->rows_h = 10;
}

static void enter(struct tui *t, void *self)
{
	struct history *h = self;

	if (t->history_task >= 0) {
		int c = model_category_index(&t->model, t->cat->tasks[t->history_task]->category);

		h->cats.sel = c + 1;
		h->focus = 1;
	}
	load_rows(t, h);
}

static void done(struct tui *t, void *self)
{
	struct history *h = self;

	(void)t;
	free_rows(h);
	}

static int marked(const struct history *h, long long id)
{
	return id && (h->marks[0] == id || h->marks[1] == id);
}

static void draw(struct tui *t, void *self, struct rect area)
{
	struct history *h = self;
	const struct model *m = &t->model;
	struct rect top, bottom, ti, bi, head, runs_head;
	struct doc d;
	struct db_category_stat all;
	char title[256];
	int toph = m->ncats + 1 + 3;

	if (toph > area.h / 2)
		toph = area.h / 2;
	layout_vsplit(area, toph, 5, &top, &bottom);
	ti = layout_inner(top);
	bi = layout_inner(bottom);
	layout_vsplit(ti, 1, 1, &head, &ti);
	layout_vsplit(bi, 1, 1, &runs_head, &bi);
	h->rows_h = bi.h;
	if (h->loaded_cat != h->cats.sel || h->loaded_task != t->history_task)
		load_rows(t, h);

	doc_init(&d);
	memset(&all, 0, sizeof(all));
	snprintf(all.category, sizeof(all.category), "All");
	all.best_speedup = -1;
	all.median_speedup = h->all_median;
	for (int i = 0; i < m->ncats; i++) {
		all.attempts += m->cats[i].stat.attempts;
		all.passes += m->cats[i].stat.passes;
		all.tasks_passed += m->cats[i].stat.tasks_passed;
		if (m->cats[i].stat.best_speedup > all.best_speedup)
			all.best_speedup = m->cats[i].stat.best_speedup;
	}
	report_history_category(&d, &all, t->cat->ntasks, model_series(m, 0), NSPARK, ti.w);
	doc_newline(&d);
	for (int i = 0; i < m->ncats; i++) {
		struct db_category_stat st = m->cats[i].stat;

		snprintf(st.category, sizeof(st.category), "%s", m->cats[i].name);
		report_history_category(&d, &st, m->cats[i].count, model_series(m, i + 1), NSPARK, ti.w);
		doc_newline(&d);
	}
	list_clamp(&h->cats, m->ncats + 1, ti.h);
	draw_box(top, "history by category", h->focus == 0);
	{
		struct doc hd;
		int namew = ti.w - 1 - 7 - 6 - 2 - NSPARK - 9 - 9 - 9;

		doc_init(&hd);
		doc_add(&hd, ROLE_DIM, " ");
		doc_addcol(&hd, ROLE_DIM, "category", namew < 8 ? 8 : namew, 0);
		doc_addcol(&hd, ROLE_DIM, "runs", 7, 1);
		doc_addcol(&hd, ROLE_DIM, "pass", 6, 1);
		doc_add(&hd, ROLE_DIM, "  ");
		doc_addcol(&hd, ROLE_DIM, "pass rate", NSPARK, 0);
		doc_addcol(&hd, ROLE_DIM, "best", 9, 1);
		doc_addcol(&hd, ROLE_DIM, "median", 9, 1);
		doc_addcol(&hd, ROLE_DIM, "solved", 9, 1);
		draw_doc(head, &hd, 0, -1, 0, 0);
		doc_free(&hd);
	}
	draw_doc(ti, &d, h->cats.top, h->cats.sel, h->focus == 0, 0);
	doc_free(&d);

	doc_init(&d);
	for (int i = 0; i < h->nrows; i++) {
		report_history_run(&d, &h->rows[i], &h->vb[i], t->now, marked(h, h->rows[i].id), t->history_task < 0, bi.w);
		doc_newline(&d);
	}
	if (!h->nrows) {
		doc_add(&d, ROLE_DIM, " no runs yet");
		doc_newline(&d);
	}
	if (h->more) {
		doc_addf(&d, ROLE_DIM, " only the newest %d runs are listed here: kbx history%s%s lists them all",
			 RUNS_LIMIT, h->cats.sel > 0 ? " --category " : "", h->cats.sel > 0 ? m->cats[h->cats.sel - 1].name : "");
		doc_newline(&d);
	}
	if (t->history_task >= 0)
		snprintf(title, sizeof(title), "every attempt at %s (%d)%sa: the category's runs",
			 t->cat->tasks[t->history_task]->id, h->nrows, glyphs()->mid);
	else
		snprintf(title, sizeof(title), "runs%s%s (%s%d)", glyphs()->mid,
			 h->cats.sel > 0 ? m->cats[h->cats.sel - 1].name : "all", h->more ? "the newest " : "", h->nrows);
	list_clamp(&h->runs, h->nrows, bi.h);
	/* at the last run, the line under it says why the list ends there */
	if (h->more && h->runs.sel == h->nrows - 1 && h->runs.top + bi.h <= h->nrows)
		h->runs.top = h->nrows + 1 - bi.h;
	draw_box(bottom, title, h->focus == 1);
	{
		struct doc hd;

		doc_init(&hd);
		report_history_run_header(&hd, t->history_task < 0, bi.w);
		draw_doc(runs_head, &hd, 0, -1, 0, 0);
		doc_free(&hd);
	}
	draw_doc(bi, &d, h->runs.top, h->nrows ? h->runs.sel : -1, h->focus == 1, 0);
	doc_free(&d);
}

static unsigned compare(struct tui *t, struct history *h)
{
	long long a = 0, b = 0;

	if (h->marks[0] && h->marks[1]) {
		a = h->marks[0] < h->marks[1] ? h->marks[0] : h->marks[1];
		b = h->marks[0] < h->marks[1] ? h->marks[1] : h->marks[0];
	} else if (h->nrows) {
		/* the selected attempt against the attempt at the same task before it */
		const struct db_run_row *sel = &h->rows[h->runs.sel];

		b = h->marks[0] ? h->marks[0] : sel->id;
		for (int i = 0; i < h->nrows; i++) {
			if (h->rows[i].id == b) {
				for (int j = i + 1; j < h->nrows; j++) {
					if (!strcmp(h->rows[j].task_id, h->rows[i].task_id)) {
						a = h->rows[j].id;
						break;
					}
				}
				break;
			}
		}
	}
	if (!a || !b) {
		tui_message(t, ROLE_MESSAGE, "mark two attempts with Space (or select one that has an earlier attempt)");
		return R_HANDLED;
	}
	t->compare[0] = a;
	t->compare[1] = b;
	return tui_open(t, SCR_COMPARE);
}

static unsigned use_apply(struct tui *t, const char *arg)
{
	struct db_run_detail d;
	int k;
	char name[64];

	if (!t->db)
		return R_HANDLED;
	if (db_run_get(t->db, atoll(arg), &d) != KBX_OK) {
		tui_message(t, ROLE_ERRMSG, "%s", kbx_last_error());
		return R_HANDLED;
	}
	k = model_task_by_id(&t->model, d.row.task_id);
	if (k < 0 || !d.source) {
		tui_message(t, ROLE_ERRMSG, "run #%lld has no source for a task in the catalogue", d.row.id);
		db_run_detail_free(&d);
		return R_HANDLED;
	}
	t->task = k;
	snprintf(name, sizeof(name), "run #%lld", d.row.id);
	candidate_set(t, k, d.source, name, NULL);
	tui_message(t, ROLE_MESSAGE, "the candidate of %s is now the source of run #%lld", t->cat->tasks[k]->name,
		    d.row.id);
	db_run_detail_free(&d);
	t->cand_goto = 1;
	return tui_open(t, SCR_CAND);
}

static unsigned use_source(struct tui *t, struct history *h)
{
	const struct db_run_row *row;
	char what[64], arg[32];

	if (!h->nrows || !t->db)
		return R_HANDLED;
	row = &h->rows[h->runs.sel];
	snprintf(what, sizeof(what), "the source of run #%lld", row->id);
	snprintf(arg, sizeof(arg), "%lld", row->id);
	return session_replace(t, model_task_by_id(&t->model, row->task_id), what, use_apply, arg);
}

static unsigned key(struct tui *t, void *self, enum action a, int k)
{
	struct history *h = self;
	struct listview *lv = h->focus ? &h->runs : &h->cats;
	int n = h->focus ? h->nrows : t->model.ncats + 1, rows = h->focus ? h->rows_h : 10;

	(void)k;
	switch (a) {
	case ACT_DOWN:
	case ACT_UP:
	case ACT_PGDN:
	case ACT_PGUP:
	case ACT_TOP:
	case ACT_BOTTOM:
		list_move(lv, a == ACT_DOWN ? 1 : a == ACT_UP ? -1 : a == ACT_PGDN ? rows - 1 : a == ACT_PGUP ? -(rows - 1)
			  : a == ACT_TOP ? -n : n, n, rows);
		/* moving over the categories shows their runs */
		if (!h->focus)
			t->history_task = -1;
		return R_HANDLED;
	case ACT_NEXT_PANE:
	case ACT_PREV_PANE:
		h->focus = !h->focus;
		return R_HANDLED;
	case ACT_LEFT:
		h->focus = 0;
		return R_HANDLED;
	case ACT_RIGHT:
		h->focus = 1;
		return R_HANDLED;
	case ACT_OPEN:
		if (h->focus == 0) {
			/* a category: its runs */
			t->history_task = -1;
			h->focus = 1;
			return R_HANDLED;
		}
		if (!h->nrows)
			return R_HANDLED;
		if (session_view_history(t, h->rows[h->runs.sel].id))
			return tui_open(t, SCR_RESULTS);
		return R_HANDLED;
	case ACT_MARK:
		if (!h->nrows)
			return R_HANDLED;
		{
			long long id = h->rows[h->runs.sel].id;

			if (h->marks[0] == id)
				h->marks[0] = h->marks[1], h->marks[1] = 0;
			else if (h->marks[1] == id)
				h->marks[1] = 0;
			else if (!h->marks[0])
				h->marks[0] = id;
			else if (!h->marks[1])
				h->marks[1] = id;
			else
				h->marks[0] = h->marks[1], h->marks[1] = id;
			/* as in mutt and tig: mark, then on to the next line, and say both */
			tui_message(t, ROLE_MESSAGE, "%s run #%lld%s; %s", marked(h, id) ? "marked" : "unmarked", id,
				    h->runs.sel + 1 < h->nrows ? ", moved down" : "",
				    h->marks[0] && h->marks[1] ? "= compares the two marked runs" : "mark another to compare (=)");
			list_move(&h->runs, 1, h->nrows, h->rows_h);
		}
		return R_HANDLED;
	case ACT_COMPARE:
		return compare(t, h);
	case ACT_SCOPE:
		if (t->history_task >= 0) {
			t->history_task = -1;
		} else if (t->task >= 0) {
			t->history_task = t->task;
		} else {
			tui_message(t, ROLE_MESSAGE, "no current task");
			return R_HANDLED;
		}
		h->runs.sel = h->runs.top = 0;
		return R_HANDLED;
	case ACT_USE_SOURCE:
		return use_source(t, h);
	default:
		return 0;
	}
}

struct find_ctx {
	struct tui *t;
	const struct history *h;
	const struct search *s;
};

static int run_matches(void *ctx, int i)
{
	struct find_ctx *f = ctx;
	struct doc d;
	int hit;

	doc_init(&d);
	report_history_run(&d, &f->h->rows[i], &f->h->vb[i], f->t->now, 0, f->t->history_task < 0, 200);
	hit = search_text(f->s, doc_text(&d, 0));
	doc_free(&d);
	return hit;
}

/* / n N: over the runs (task, verdict, gpu as listed) */
static int find(struct tui *t, void *self, const struct search *s, int dir, int again, int *wrapped)
{
	struct history *h = self;
	struct find_ctx f = { t, h, s };
	int i = find_row(h->nrows, h->runs.sel, dir, again, run_matches, &f, wrapped);

	if (i < 0)
		return 0;
	h->focus = 1;
	h->runs.sel = i;
	list_clamp(&h->runs, h->nrows, h->rows_h);
	return 1;
}

const struct screen_ops history_screen = {
	.size = sizeof(struct history),
	.open = init,
	.enter = enter,
	.draw = draw,
	.key = key,
	.close = done,
	.find = find,
};
