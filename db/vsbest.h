/*
 * vsbest.h - a run against the best earlier attempt at its task: SAME, FASTER, SLOWER or UNCLEAR.
 *
 * The best attempt at run R (task T, GPU name G) is a passing run of T on a GPU of the same name,
 * created before R, chosen over the perf rows it shares with R. A row is shared when both runs
 * timed it (a positive median) with the same row index and the same input size; runs timed with
 * --rows N cover only some rows. Sums over different rows do not compare, so the earlier run
 * that shares the most rows with R wins, then the one with the lowest sum of candidate medians
 * over them, then the older one. When no earlier passing run shares a row with R, the latest
 * one with timings is named, with no rows shared, and the verdict is UNCLEAR.
 *
 * Each shared row is compared with timing_compare (core/timecmp.h) on the two runs' sample
 * summaries and clock summaries as the history keeps them (db.h, struct db_perf), and the rows'
 * verdicts combine into the run's with timing_combine. A row timed with launch latency hidden in
 * one run and not in the other measured two different things: UNCLEAR, whatever the times say.
 *
 *     struct db_run_detail now;          db_run_get of the run just recorded
 *     struct vsbest vb;
 *
 *     if (vsbest_find(db, &now, &vb) == KBX_OK && vb.found)
 *             printf("%s: %s\n", vsbest_label(vb.change), vb.why);
 *     vsbest_free(&vb);
 *
 * A run with nothing to compare (it timed no rows, or no earlier passing run on that GPU timed
 * any) has found = 0: there is nothing to say, rather than an UNCLEAR.
 */
#ifndef KBX_DB_VSBEST_H
#define KBX_DB_VSBEST_H

#include "../core/timecmp.h"
#include "db.h"

/* One shared row. */
struct vsbest_row {
	int row;
	char *input_size;               /* owned; NULL when the rows have none */
	double now_ms, best_ms;         /* the two medians */
	enum timing_change change;
	char why[224];                  /* timing_compare's line */
};

struct vsbest {
	int found;                      /* 0: nothing to compare; every other field zero */
	long long best_id;              /* the best earlier attempt */
	double best_at;                 /* its created_at */
	int timed;                      /* rows this run timed */
	int shared;                     /* of them, rows the best attempt timed too (= nrows) */
	enum timing_change change;      /* the run's verdict; UNCLEAR when no row is shared */
	char why[320];                  /* one line: why */
	struct vsbest_row *rows;        /* the shared rows in row order; NULL for vsbest_for_runs */
	int nrows;
};

/*
 * The best earlier attempt at the run `now` and the comparison with it. Reads now->row.task_id,
 * .gpu, .created_at (0: now) and .id (0: not recorded; the run itself is never its own best)
 * and now->perf. KBX_OK with found = 0 when there is nothing to compare; KBX_EDB when the
 * history cannot be read.
 */
enum kbx_status vsbest_find(struct db *db, const struct db_run_detail *now, struct vsbest *out);

/*
 * For each passing run in rows[0..n) (db_runs_list, any tasks and GPUs), its verdict against
 * the best attempt before it, in out[0..n) (zeroed first: found = 0 for the others), without
 * per-row details. One pass per task and GPU among the rows, so that a list costs about as
 * much as reading those tasks' timings once.
 */
enum kbx_status vsbest_for_runs(struct db *db, const struct db_run_row *rows, int n, struct vsbest *out);

/* Compare the timed rows of `now` with those of `best` (run best_id, created at best_at) as
 * vsbest_find does once it has chosen; out->found is 1 when now timed any row. */
void vsbest_compare(const struct db_perf *now, int nnow, const struct db_perf *best, int nbest, long long best_id,
		    double best_at, struct vsbest *out);

/* Free what v owns and zero it; NULL is fine. */
void vsbest_free(struct vsbest *v);

/* "SAME", "FASTER", "SLOWER", "UNCLEAR" (timing_change_name in capitals). */
const char *vsbest_label(enum timing_change c);

#endif
