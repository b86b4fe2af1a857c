/*
 * browser.c - the first screen: categories on the left, their tasks on the right, with the
 * history's pass rates, verdicts and speedups; PCRE2 search and filters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "draw.h"
#include "ui.h"

struct browser {
	int focus;                      /* 0 categories, 1 tasks */
	struct listview cats, tasks;    /* cats: 0 = all, 1.. = model categories */
	struct search search;
	char saved[256];                /* the pattern before the prompt opened */
	int *visible;                   /* catalogue indexes of the listed tasks */
	int nvisible;
	int rows;                       /* visible rows in the task pane */
};

static void rebuild(struct tui *t, struct browser *b)
{
	const struct model *m = &t->model;
	int first = 0, count = t->cat->ntasks;

	if (b->cats.sel > 0 && b->cats.sel <= m->ncats) {
		first = m->cats[b->cats.sel - 1].first;
		count = m->cats[b->cats.sel - 1].count;
	}
	free(b->visible);
	b->visible = xmalloc(sizeof(int) * (size_t)(count ? count : 1));
	b->nvisible = 0;
	for (int i = first; i < first + count; i++)
		if (search_task(&b->search, t->cat->tasks[i], &m->hist[i]))
			b->visible[b->nvisible++] = i;
	list_clamp(&b->tasks, b->nvisible, b->rows > 0 ? b->rows : 10);
	/* the current task is the selected one; none when the list is empty */
	t->task = b->nvisible ? b->visible[b->tasks.sel] : -1;
}

static void init(struct tui *t, void *self)
{
	struct browser *b = self;

	search_init(&b->search);
	b->cats.sel = t->model.ncats ? 1 : 0;
	b->rows = 10;
}

static void enter(struct tui *t, void *self)
{
	struct browser *b = self;

	rebuild(t, b);
	/* back from a task: keep the list on the task the user was looking at */
	if (t->task >= 0) {
		for (int i = 0; i < b->nvisible; i++) {
			if (b->visible[i] == t->task) {
				b->tasks.sel = i;
				break;
			}
		}
	}
}

static void done(struct tui *t, void *self)
{
	struct browser *b = self;

	(void)t;
	search_free(&b->search);
	free(b->visible);
	}

static void all_stat(const struct model *m, struct db_category_stat *s)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->category, sizeof(s->category), "All");
	for (int i = 0; i < m->ncats; i++) {
		s->attempts += m->cats[i].stat.attempts;
		s->passes += m->cats[i].stat.passes;
	}
}

static void draw(struct tui *t, void *self, struct rect area)
{
	struct browser *b = self;
	const struct model *m = &t->model;
	struct rect left, right, li, ri;
	struct doc d;
	struct db_category_stat all;
	int active = search_active(&b->search), total_matches = 0;
	char title[512], buf[300];

	layout_hsplit(area, 28, 20, &left, &right);
	li = layout_inner(left);
	ri = layout_inner(right);
	b->rows = ri.h;
	rebuild(t, b);

	/* categories: counts of matching tasks while a search or filter is on */
	doc_init(&d);
	all_stat(m, &all);
	if (active)
		for (int i = 0; i < t->cat->ntasks; i++)
			total_matches += search_task(&b->search, t->cat->tasks[i], &m->hist[i]);
	report_category_line(&d, "All", t->cat->ntasks, &all, active ? total_matches : -1, li.w);
	doc_newline(&d);
	for (int c = 0; c < m->ncats; c++) {
		int matches = -1;

		if (active) {
			matches = 0;
			for (int i = m->cats[c].first; i < m->cats[c].first + m->cats[c].count; i++)
				matches += search_task(&b->search, t->cat->tasks[i], &m->hist[i]);
		}
		report_category_line(&d, m->cats[c].name, m->cats[c].count, &m->cats[c].stat, matches, li.w);
		doc_newline(&d);
	}
	list_clamp(&b->cats, m->ncats + 1, li.h);
	draw_box(left, "Categories", b->focus == 0);
	draw_doc(li, &d, b->cats.top, b->cats.sel, b->focus == 0, 0);
	doc_free(&d);

	/* tasks */
	doc_init(&d);
	for (int i = 0; i < b->nvisible; i++) {
		int k = b->visible[i];

		report_task_line(&d, t->cat->tasks[k], &m->hist[k], t->now, b->cats.sel == 0, ri.w);
		doc_newline(&d);
	}
	if (!b->nvisible) {
		doc_add(&d, ROLE_DIM, active ? " no task matches the search and filters (F clears them)" : " no tasks");
		doc_newline(&d);
	}
	/* with a search or filter on, the title says what is on and how many match */
	if (b->cats.sel == 0) {
		snprintf(title, sizeof(title), "All%s%d tasks", glyphs()->mid, t->cat->ntasks);
	} else {
		const struct cat_entry *ce = &m->cats[b->cats.sel - 1];
		int solved = 0;

		for (int i = ce->first; i < ce->first + ce->count; i++)
			solved += m->hist[i].passes > 0;
		if (active)
			snprintf(title, sizeof(title), "%s", ce->name);
		else
			snprintf(title, sizeof(title), "%s%s%d tasks%s%d solved", ce->name, glyphs()->mid, ce->count,
				 glyphs()->mid, solved);
	}
	if (active) {
		int total = b->cats.sel ? m->cats[b->cats.sel - 1].count : t->cat->ntasks;

		if (b->search.re) {
			snprintf(buf, sizeof(buf), "%s/%s/", glyphs()->mid, b->search.pattern);
			strncat(title, buf, sizeof(title) - strlen(title) - 1);
		}
		if (b->search.difficulty) {
			snprintf(buf, sizeof(buf), "%s%d star%s", glyphs()->mid, b->search.difficulty,
				 b->search.difficulty == 1 ? "" : "s");
			strncat(title, buf, sizeof(title) - strlen(title) - 1);
		}
		if (b->search.vf != VF_ANY) {
			snprintf(buf, sizeof(buf), "%s%s", glyphs()->mid, verdict_filter_name(b->search.vf));
			strncat(title, buf, sizeof(title) - strlen(title) - 1);
		}
		snprintf(buf, sizeof(buf), "%s%d of %d", glyphs()->mid, b->nvisible, total);
		strncat(title, buf, sizeof(title) - strlen(title) - 1);
	}
	list_clamp(&b->tasks, b->nvisible, ri.h);
	draw_box(right, title, b->focus == 1);
	draw_doc(ri, &d, b->tasks.top, b->nvisible ? b->tasks.sel : -1, b->focus == 1, 0);
	doc_free(&d);
}

/* ---- search prompt ----------------------------------------------------------------------- */

static void search_change(struct tui *t, const char *text)
{
	struct browser *b = screen_state(t, SCR_BROWSER);

	if (!b)
		return;
	if (search_set(&b->search, text) != KBX_OK)
		tui_message(t, ROLE_ERRMSG, "%s", kbx_last_error());
	else
		t->msg[0] = '\0';
	b->tasks.sel = b->tasks.top = 0;
	rebuild(t, b);
}

static void search_accept(struct tui *t, const char *text)
{
	struct browser *b = screen_state(t, SCR_BROWSER);

	if (!b)
		return;
	search_change(t, text);
	if (*text && !b->nvisible && b->cats.sel != 0) {
		/* nothing here: look in every category */
		b->cats.sel = 0;
		rebuild(t, b);
	}
	if (*text && !b->nvisible)
		tui_message(t, ROLE_MESSAGE, "no task name matches /%s/%s", text,
			    b->cats.sel ? " here (the All category searches every task)"
			    : text[0] == '?' ? "" : " (/?text searches the summaries too)");
	if (b->nvisible)
		b->focus = 1;
}

static void search_cancel(struct tui *t, const char *text)
{
	struct browser *b = screen_state(t, SCR_BROWSER);

	if (!b)
		return;
	(void)text;
	search_set(&b->search, b->saved);
	rebuild(t, b);
}

/* n and N: the search narrows the list to its matches, so they step through the list, wrapping
 * around its ends as less does. */
static unsigned next_match(struct tui *t, struct browser *b, int dir)
{
	int rows = b->rows > 0 ? b->rows : 10;

	if (!search_active(&b->search)) {
		tui_message(t, ROLE_MESSAGE, "no search: / shows the tasks whose name matches");
		return R_HANDLED;
	}
	if (!b->nvisible) {
		tui_message(t, ROLE_MESSAGE, "no task matches the search");
		return R_HANDLED;
	}
	b->focus = 1;
	if (b->tasks.sel + dir >= b->nvisible || b->tasks.sel + dir < 0) {
		b->tasks.sel = dir > 0 ? 0 : b->nvisible - 1;
		tui_message(t, ROLE_MESSAGE, "search wrapped to the %s", dir > 0 ? "top" : "bottom");
	} else {
		b->tasks.sel += dir;
	}
	list_clamp(&b->tasks, b->nvisible, rows);
	rebuild(t, b);
	return R_HANDLED;
}

static unsigned key(struct tui *t, void *self, enum action a, int k)
{
	struct browser *b = self;
	struct listview *lv = b->focus ? &b->tasks : &b->cats;
	int n = b->focus ? b->nvisible : t->model.ncats + 1;
	int rows = b->rows > 0 ? b->rows : 10, old_cat = b->cats.sel;

	switch (a) {
	case ACT_DOWN: list_move(lv, 1, n, rows); break;
	case ACT_UP: list_move(lv, -1, n, rows); break;
	case ACT_PGDN: list_move(lv, rows - 1, n, rows); break;
	case ACT_PGUP: list_move(lv, -(rows - 1), n, rows); break;
	case ACT_TOP: list_move(lv, -n, n, rows); break;
	case ACT_BOTTOM: list_move(lv, n, n, rows); break;
	case ACT_LEFT:
	case ACT_PREV_PANE:
		b->focus = 0;
		return R_HANDLED;
	case ACT_RIGHT:
	case ACT_NEXT_PANE:
		b->focus = b->nvisible ? 1 : 0;
		return R_HANDLED;
	case ACT_OPEN:
		if (b->focus == 0) {
			b->focus = b->nvisible ? 1 : 0;
			return R_HANDLED;
		}
		if (!b->nvisible)
			return R_HANDLED;
		t->task = b->visible[b->tasks.sel];
		return tui_open(t, SCR_TASK);
	case ACT_FIND_NEXT:
		return next_match(t, b, 1);
	case ACT_FIND_PREV:
		return next_match(t, b, -1);
	case ACT_SEARCH:
		snprintf(b->saved, sizeof(b->saved), "%s", b->search.pattern);
		prompt_open(t, "/", "", 0, search_accept, search_change, search_cancel);
		return R_HANDLED;
	case ACT_FILTER_DIFF:
		b->search.difficulty = (b->search.difficulty + 1) % 6;
		b->tasks.sel = b->tasks.top = 0;
		if (b->search.difficulty)
			tui_message(t, ROLE_MESSAGE, "difficulty: %d", b->search.difficulty);
		else
			tui_message(t, ROLE_MESSAGE, "difficulty: any");
		rebuild(t, b);
		return R_HANDLED;
	case ACT_FILTER_VERDICT:
		b->search.vf = (enum verdict_filter)((b->search.vf + 1) % VF_COUNT);
		b->tasks.sel = b->tasks.top = 0;
		tui_message(t, ROLE_MESSAGE, "last verdict: %s", verdict_filter_name(b->search.vf));
		rebuild(t, b);
		return R_HANDLED;
	case ACT_CLEAR_FILTERS:
		search_set(&b->search, "");
		b->search.difficulty = 0;
		b->search.vf = VF_ANY;
		rebuild(t, b);
		tui_message(t, ROLE_MESSAGE, "search and filters cleared");
		return R_HANDLED;
	case ACT_BACK:
		if (search_active(&b->search) && k == TK_ESC) {
			/* Esc clears a search first; q still quits */
			search_set(&b->search, "");
			b->search.difficulty = 0;
			b->search.vf = VF_ANY;
			rebuild(t, b);
			tui_message(t, ROLE_MESSAGE, "search and filters cleared");
			return R_HANDLED;
		}
		return 0;
	default:
		return 0;
	}
	if (b->focus == 0 && b->cats.sel != old_cat)
		b->tasks.sel = b->tasks.top = 0;
	rebuild(t, b);
	return R_HANDLED;
}

const struct screen_ops browser_screen = {
	.size = sizeof(struct browser),
	.open = init,
	.enter = enter,
	.draw = draw,
	.key = key,
	.close = done,
};
