/*
 * model.h - what the explorer knows about the catalogue and the history, without curses.
 *
 * The catalogue is sorted by category then name, so each category is one run of tasks; the
 * model indexes them and keeps, per task and per category, what the history says (attempts,
 * passes, last verdict, best speedup). model_load_history fills that with two queries
 * (db_category_stats, db_task_stats) so that the browser can show it at once.
 *
 * The browser's search and filters live here too: a PCRE2 pattern over task names (smart case:
 * case-insensitive unless the pattern has a capital; "?pattern" matches summaries too), a
 * difficulty and a verdict filter. The same pattern type serves /, n and N in the views (find.h).
 */
#ifndef KBX_TUI_MODEL_H
#define KBX_TUI_MODEL_H

#include "../core/result.h"
#include "../core/task.h"
#include "../db/db.h"

struct task_hist {
	int attempts, passes;
	enum verdict last;              /* meaningful when attempts > 0 */
	double last_at;
	double best_speedup;            /* < 0 none */
};

struct cat_entry {
	const char *name;               /* borrowed from the first task */
	int first, count;               /* tasks [first, first + count) of the catalogue */
	struct db_category_stat stat;   /* zeroed (attempts 0) without history */
};

struct model {
	const struct catalogue *cat;
	struct cat_entry *cats;
	int ncats;
	struct task_hist *hist;         /* one per catalogue task */
	long long total_runs;
	int tasks_tried, tasks_passed;
	double *series;                 /* pass rate over time: (ncats + 1) rows of nseries, row 0 =
					 * every category; < 0 where a bucket has no runs */
	int nseries;
};

void model_init(struct model *m, const struct catalogue *cat);
void model_free(struct model *m);
/* Fill the history figures (cleared first). db may be NULL: no history. */
enum kbx_status model_load_history(struct model *m, struct db *db);
/* The same from query results already made (db_category_stats, db_task_stats), for a loader
 * that queries in another thread. */
void model_apply_history(struct model *m, const struct db_category_stat *cs, int ncs, const struct db_task_stat *ts,
			 int nts);
/* Fill the pass-rate series (nbuckets per category, db_category_series); NULL db: none. */
enum kbx_status model_load_series(struct model *m, struct db *db, int nbuckets);
/* The series of category row c (0 = all, 1.. = cats[c - 1]); NULL when not loaded. */
const double *model_series(const struct model *m, int c);
/* Take series computed elsewhere: (ncats + 1) rows of nbuckets, in the model's category order
 * (the array is taken over). */
void model_set_series(struct model *m, double *series, int nbuckets);
/* Index of a task in the catalogue, of a task id, of a category; -1 when absent. */
int model_task_index(const struct model *m, const struct task *t);
int model_task_by_id(const struct model *m, const char *id);
int model_category_index(const struct model *m, const char *name);

/* ---- search and filters ------------------------------------------------------------------ */

#define VERDICT_FILTER_LIST(X) \
	X(VF_ANY, "any") \
	X(VF_UNTRIED, "untried") \
	X(VF_PASSING, "passing") \
	X(VF_FAILING, "failing")

enum verdict_filter {
#define VF_ENUM(id, name) id,
	VERDICT_FILTER_LIST(VF_ENUM)
#undef VF_ENUM
	VF_COUNT
};

struct search {
	void *re;                       /* pcre2_code, NULL when no pattern */
	void *md;
	char pattern[256];              /* as typed, with its leading '?' */
	int summaries;                  /* the pattern began with '?': tasks' summaries match too */
	int difficulty;                 /* 0 = any */
	enum verdict_filter vf;
};

const char *verdict_filter_name(enum verdict_filter vf);
void search_init(struct search *s);
void search_free(struct search *s);
/* Set the pattern ("" clears it). On a bad pattern the old one stays and the message says where:
 * "bad pattern 'a(b': missing closing parenthesis at offset 3". */
enum kbx_status search_set(struct search *s, const char *pattern);
/* 1 when any of search, difficulty or verdict filter is set. */
int search_active(const struct search *s);
int search_text(const struct search *s, const char *text);
/* Does the task pass the pattern and both filters? The pattern is tried on the name ("gelu")
 * and on the id ("Activation/gelu"), each on its own so that ^ and $ anchor either; with
 * summaries, on the summary as well. */
int search_task(const struct search *s, const struct task *t, const struct task_hist *h);

/* / n N (find.h) over a list: the next of n rows, from cur in direction dir (1 or -1), for which match(ctx, i) is true:
 * cur itself counts unless again (a repeated search starts from the next row). Wraps around
 * and sets *wrapped; returns the row, or -1 when none matches. */
int find_row(int n, int cur, int dir, int again, int (*match)(void *ctx, int i), void *ctx, int *wrapped);

#endif
