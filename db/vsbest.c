/*
 * vsbest.c - the best earlier attempt at a run's task, and the run compared with it.
 */
#include "vsbest.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "../core/util.h"

/* An earlier passing run: only its timed rows, in row order. */
struct attempt {
	long long id;
	double at;
	struct db_perf *perf;           /* input_size points into sizes */
	char **sizes;
	const struct db_perf **rows;    /* &perf[0..nperf), the form the comparisons walk */
	int nperf;
};

static int timed(const struct db_perf *p)
{
	return isfinite(p->cand_ms) && p->cand_ms > 0;
}

static int same_size(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static void attempt_free(struct attempt *a)
{
	for (int i = 0; i < a->nperf; i++)
		free(a->sizes[i]);
	free(a->sizes);
	free(a->perf);
	free(a->rows);
	memset(a, 0, sizeof(*a));
}

static void attempts_free(struct attempt *a, int n)
{
	for (int i = 0; i < n; i++)
		attempt_free(&a[i]);
	free(a);
}

/* The timed rows of one run from `rows` (bound to nothing yet); SQLite's result code. */
static int read_attempt_rows(sqlite3_stmt *rows, struct attempt *cur)
{
	size_t pcap = 0, scap = 0;
	int rc;

	sqlite3_bind_int64(rows, 1, cur->id);
	while ((rc = sqlite3_step(rows)) == SQLITE_ROW) {
		struct db_perf p;
		char *size;

		db_perf_read(rows, 0, &p, &size);
		if (!timed(&p)) {
			free(size);
			continue;
		}
		XGROW(cur->perf, cur->nperf + 1, pcap);
		XGROW(cur->sizes, cur->nperf + 1, scap);
		cur->perf[cur->nperf] = p;
		cur->sizes[cur->nperf] = size;
		cur->nperf++;
	}
	sqlite3_reset(rows);
	/* the arrays no longer move; SQL gave the rows in order */
	if (cur->nperf)
		cur->rows = xcalloc((size_t)cur->nperf, sizeof(*cur->rows));
	for (int i = 0; i < cur->nperf; i++) {
		cur->perf[i].input_size = cur->sizes[i];
		cur->rows[i] = &cur->perf[i];
	}
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/*
 * The passing runs of `task` on a GPU named `gpu` created before (at, id) -- earlier, or at the
 * same instant with a smaller id -- that timed at least one row, oldest first.
 */
static enum kbx_status load_attempts(struct db *db, const char *task, const char *gpu, double at, long long id,
				     struct attempt **out, int *n)
{
	sqlite3 *sq = db_sqlite(db);
	sqlite3_stmt *runs = NULL, *rows = NULL;
	struct attempt *a = NULL;
	size_t cap = 0;
	int count = 0, rc;
	enum kbx_status st = KBX_OK;

	*out = NULL;
	*n = 0;
	rc = sqlite3_prepare_v2(sq,
				"SELECT id, created_at FROM runs WHERE task_id = ?1 AND gpu = ?2 AND verdict = 'pass'"
				" AND (created_at < ?3 OR (created_at = ?3 AND id < ?4)) ORDER BY created_at, id",
				-1, &runs, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(sq, "SELECT " DB_PERF_COLUMNS " FROM perf_rows WHERE run_id = ?1 ORDER BY \"row\"",
					-1, &rows, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(runs, 1, task, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(runs, 2, gpu, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(runs, 3, at);
		sqlite3_bind_int64(runs, 4, id);
		while ((rc = sqlite3_step(runs)) == SQLITE_ROW) {
			struct attempt cur;

			memset(&cur, 0, sizeof(cur));
			cur.id = sqlite3_column_int64(runs, 0);
			cur.at = sqlite3_column_double(runs, 1);
			rc = read_attempt_rows(rows, &cur);
			if (rc != SQLITE_OK || !cur.nperf) {
				attempt_free(&cur);
				if (rc != SQLITE_OK)
					break;
				continue;
			}
			XGROW(a, count + 1, cap);
			a[count++] = cur;
		}
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	if (rc != SQLITE_OK) {
		st = db_error(db, "read the earlier attempts at '%s'", task);
		attempts_free(a, count);
		a = NULL;
		count = 0;
	}
	sqlite3_finalize(runs);
	sqlite3_finalize(rows);
	*out = a;
	*n = count;
	return st;
}

/* ---- comparing ---------------------------------------------------------------------------- */

static int cmp_row(const void *x, const void *y)
{
	const struct db_perf *a = *(const struct db_perf *const *)x, *b = *(const struct db_perf *const *)y;

	return (a->row > b->row) - (a->row < b->row);
}

/* Pointers to the timed rows of perf[0..n), in row order; *out NULL when there are none. */
static int timed_rows(const struct db_perf *perf, int n, const struct db_perf ***out)
{
	const struct db_perf **v = NULL;
	int k = 0;

	*out = NULL;
	if (!perf || n <= 0)
		return 0;
	for (int i = 0; i < n; i++) {
		if (!timed(&perf[i]))
			continue;
		if (!v)
			v = xcalloc((size_t)n, sizeof(*v));
		v[k++] = &perf[i];
	}
	if (k > 1)
		qsort(v, (size_t)k, sizeof(*v), cmp_row);
	*out = v;
	return k;
}

/*
 * Walk the rows that a[0..na) and b[0..nb) (both in row order) share -- same index, same input
 * size -- calling fn on each pair; returns how many. A row index that repeats (only a damaged
 * file has that) pairs once.
 */
static int walk_shared(const struct db_perf *const *a, int na, const struct db_perf *const *b, int nb,
		       void (*fn)(void *ctx, const struct db_perf *x, const struct db_perf *y), void *ctx)
{
	int i = 0, j = 0, k = 0;

	while (i < na && j < nb) {
		if (a[i]->row < b[j]->row) {
			i++;
		} else if (a[i]->row > b[j]->row) {
			j++;
		} else {
			if (same_size(a[i]->input_size, b[j]->input_size)) {
				if (fn)
					fn(ctx, a[i], b[j]);
				k++;
			}
			i++;
			j++;
		}
	}
	return k;
}

/* A stored figure where "not available" is < 0, as timecmp wants it: NaN. */
static double known(double v)
{
	return v >= 0 ? v : NAN;
}

static void obs_from(const struct db_perf *p, struct timing_obs *o)
{
	struct sample_stats s;

	s.median = p->cand_ms;
	s.p20 = known(p->cand_p20);
	s.p80 = known(p->cand_p80);
	s.min = known(p->cand_min);
	s.max = known(p->cand_max);
	s.mean = known(p->cand_mean);
	s.stddev = known(p->cand_stddev);
	s.n = p->cand_n > 0 ? p->cand_n : 0;
	timing_obs_set(o, &s, &p->clocks);
}

struct collect {
	struct vsbest *out;
	size_t cap;
	double now_sum, best_sum;
};

static void collect_row(void *ctx, const struct db_perf *now, const struct db_perf *best)
{
	struct collect *c = ctx;
	struct vsbest_row *r;
	struct timing_obs on, ob;

	XGROW(c->out->rows, c->out->nrows + 1, c->cap);
	r = &c->out->rows[c->out->nrows++];
	memset(r, 0, sizeof(*r));
	r->row = now->row;
	r->input_size = now->input_size ? xstrdup(now->input_size) : NULL;
	r->now_ms = now->cand_ms;
	r->best_ms = best->cand_ms;
	c->now_sum += now->cand_ms;
	c->best_sum += best->cand_ms;
	if (now->hide_latency >= 0 && best->hide_latency >= 0 && now->hide_latency != best->hide_latency) {
		/* hiding the launch latency takes the host out of the time: not the same measurement */
		r->change = TC_UNCLEAR;
		snprintf(r->why, sizeof(r->why), "launch latency hidden in %s run only: the times measure different things",
			 now->hide_latency ? "this" : "the best");
		return;
	}
	obs_from(now, &on);
	obs_from(best, &ob);
	r->change = timing_compare(&on, &ob, r->why, sizeof(r->why));
}

/* "12.4% faster", "2.5x slower", "no change"; ratio = now / best. */
static void fmt_ratio(double ratio, char *buf, size_t len)
{
	double p = fabs(ratio - 1) * 100;

	if (!isfinite(ratio) || ratio <= 0)
		snprintf(buf, len, "not comparable");
	else if (ratio >= 2)
		snprintf(buf, len, "%.1fx slower", ratio);
	else if (ratio <= 0.5)
		snprintf(buf, len, "%.1fx faster", 1 / ratio);
	else if (ratio == 1)
		snprintf(buf, len, "no change");
	else
		snprintf(buf, len, p < 0.1 ? "%.2f%% %s" : "%.1f%% %s", p, ratio > 1 ? "slower" : "faster");
}

/* Compare sorted timed rows; fills everything but found's precondition checks. */
static void compare_sorted(const struct db_perf *const *now, int nn, const struct db_perf *const *best, int nb,
			   long long best_id, double best_at, struct vsbest *out)
{
	struct collect c = { out, 0, 0, 0 };
	enum timing_change *changes;
	char counts[128], sum[48];
	size_t used;
	int cut = 0;

	out->found = 1;
	out->best_id = best_id;
	out->best_at = best_at;
	out->timed = nn;
	out->shared = walk_shared(now, nn, best, nb, collect_row, &c);
	if (!out->nrows) {
		out->change = TC_UNCLEAR;
		snprintf(out->why, sizeof(out->why), "no perf rows in common with run #%lld (same row and input size)",
			 best_id);
		return;
	}
	changes = xcalloc((size_t)out->nrows, sizeof(*changes));
	for (int i = 0; i < out->nrows; i++)
		changes[i] = out->rows[i].change;
	out->change = timing_combine(changes, (size_t)out->nrows, counts, sizeof(counts));
	free(changes);
	if (out->nrows == 1) {
		snprintf(out->why, sizeof(out->why), "%s", out->rows[0].why);
	} else {
		/* the counts, and the reason of the first row that reads like the whole run (row
		 * numbers from 1, as kbx run prints them) */
		int k = 0;

		while (k < out->nrows && out->rows[k].change != out->change)
			k++;
		fmt_ratio(c.best_sum > 0 ? c.now_sum / c.best_sum : NAN, sum, sizeof(sum));
		/* a line for people: cut where it must be */
		if (k < out->nrows)
			cut = snprintf(out->why, sizeof(out->why), "sum of medians %s; rows: %s; row %d: %s", sum, counts,
				       out->rows[k].row + 1, out->rows[k].why);
		else
			cut = snprintf(out->why, sizeof(out->why), "sum of medians %s; rows: %s", sum, counts);
	}
	used = cut >= (int)sizeof(out->why) ? sizeof(out->why) : strlen(out->why);
	if (out->shared < nn && used < sizeof(out->why))
		snprintf(out->why + used, sizeof(out->why) - used, "; %d of %d rows compared", out->shared, nn);
}

void vsbest_compare(const struct db_perf *now, int nnow, const struct db_perf *best, int nbest, long long best_id,
		    double best_at, struct vsbest *out)
{
	const struct db_perf **a, **b;
	int na, nb;

	memset(out, 0, sizeof(*out));
	na = timed_rows(now, nnow, &a);
	nb = timed_rows(best, nbest, &b);
	if (na)
		compare_sorted(a, na, b, nb, best_id, best_at, out);
	free(a);
	free(b);
}

static void add_best_ms(void *ctx, const struct db_perf *now, const struct db_perf *best)
{
	(void)now;
	*(double *)ctx += best->cand_ms;
}

/*
 * Choose the best of the attempts a[0..na) for the sorted timed rows now[0..nn) and compare:
 * the most rows shared, then the lowest sum of medians over them, then the older; with none
 * shared, the latest. Nothing when there is no attempt.
 */
static void against(const struct db_perf *const *now, int nn, const struct attempt *a, int na, struct vsbest *out)
{
	int best = -1, best_shared = 0;
	double best_sum = 0;

	memset(out, 0, sizeof(*out));
	if (!nn || na <= 0)
		return;
	for (int i = 0; i < na; i++) {
		double sum = 0;
		int k = walk_shared(now, nn, a[i].rows, a[i].nperf, add_best_ms, &sum);

		if (k > best_shared || (k && k == best_shared && sum < best_sum)) {
			best = i;
			best_shared = k;
			best_sum = sum;
		}
	}
	if (best < 0)
		best = na - 1;
	compare_sorted(now, nn, a[best].rows, a[best].nperf, a[best].id, a[best].at, out);
}

enum kbx_status vsbest_find(struct db *db, const struct db_run_detail *now, struct vsbest *out)
{
	const struct db_perf **rows;
	struct attempt *a;
	int nn, na;
	enum kbx_status st;

	memset(out, 0, sizeof(*out));
	if (!now || !now->row.gpu[0] || !now->row.task_id[0])
		return KBX_OK;
	nn = timed_rows(now->perf, now->nperf, &rows);
	if (!nn)
		return KBX_OK;
	st = load_attempts(db, now->row.task_id, now->row.gpu, now->row.created_at > 0 ? now->row.created_at : db_now(),
			   now->row.id > 0 ? now->row.id : 0, &a, &na);
	if (st == KBX_OK)
		against(rows, nn, a, na, out);
	attempts_free(a, na);
	free(rows);
	return st;
}

enum kbx_status vsbest_for_runs(struct db *db, const struct db_run_row *rows, int n, struct vsbest *out)
{
	char *done;
	enum kbx_status st = KBX_OK;

	if (n <= 0)
		return KBX_OK;
	memset(out, 0, (size_t)n * sizeof(*out));
	done = xcalloc((size_t)n, 1);
	for (int i = 0; i < n && st == KBX_OK; i++) {
		const struct db_run_row *r = &rows[i];
		struct attempt *a;
		double until = r->created_at;
		int na;

		if (done[i] || r->verdict != V_PASS || !r->gpu[0])
			continue;
		/* every listed run of this task on this GPU, read with one pass over its attempts */
		for (int j = i; j < n; j++) {
			if (done[j] || rows[j].verdict != V_PASS || strcmp(rows[j].task_id, r->task_id) ||
			    strcmp(rows[j].gpu, r->gpu))
				continue;
			done[j] = 2;
			if (rows[j].created_at > until)
				until = rows[j].created_at;
		}
		st = load_attempts(db, r->task_id, r->gpu, until, LLONG_MAX, &a, &na);
		for (int j = i; j < n && st == KBX_OK; j++) {
			int k;

			if (done[j] != 2)
				continue;
			done[j] = 1;
			/* a run is among its task's attempts when it timed a row; those before it are
			 * exactly the ones that sort before it */
			for (k = 0; k < na && a[k].id != rows[j].id; k++)
				;
			if (k == na)
				continue;
			against(a[k].rows, a[k].nperf, a, k, &out[j]);
			/* the list shows one word per run: the rows' details are not kept */
			for (int m = 0; m < out[j].nrows; m++)
				free(out[j].rows[m].input_size);
			free(out[j].rows);
			out[j].rows = NULL;
			out[j].nrows = 0;
		}
		attempts_free(a, na);
	}
	free(done);
	if (st != KBX_OK)
		for (int i = 0; i < n; i++)
			vsbest_free(&out[i]);
	return st;
}

void vsbest_free(struct vsbest *v)
{
	if (!v)
		return;
	for (int i = 0; i < v->nrows; i++)
		free(v->rows[i].input_size);
	free(v->rows);
	memset(v, 0, sizeof(*v));
}

const char *vsbest_label(enum timing_change c)
{
	switch (c) {
	case TC_SAME: return "SAME";
	case TC_FASTER: return "FASTER";
	case TC_SLOWER: return "SLOWER";
	case TC_UNCLEAR: return "UNCLEAR";
	}
	return "UNKNOWN";
}
