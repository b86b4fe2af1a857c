/*
 * history.c - what the history says: per-category and per-task summaries, run lists, one run in
 * full, and a category's pass rate over time.
 */
#include "db.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "../core/util.h"

/* A passing run's speedup: vs golden when there is a golden table, else vs the reference. */
#define RUN_SPEEDUP "COALESCE(speedup_golden, speedup_ref)"

static double column_opt_double(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1.0 : sqlite3_column_double(st, i);
}

static const char *column_str(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

static char *column_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? xstrdup((const char *)s) : NULL;
}

static void column_copy(sqlite3_stmt *st, int i, char *dst, size_t size)
{
	snprintf(dst, size, "%s", column_str(st, i));
}

/* A stored verdict name; a name this kbx does not know reads as "error". */
static enum verdict column_verdict(sqlite3_stmt *st, int i)
{
	enum verdict v;

	return verdict_parse(column_str(st, i), &v) ? v : V_ERROR;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of xs[0..n) (sorted in place), the mean of the middle two for even n; -1 when empty. */
static double median(double *xs, int n)
{
	if (n <= 0)
		return -1.0;
	qsort(xs, (size_t)n, sizeof(*xs), cmp_double);
	return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2.0;
}

static enum kbx_status prepare(struct db *db, const char *sql, sqlite3_stmt **st, const char *what)
{
	if (sqlite3_prepare_v2(db_sqlite(db), sql, -1, st, NULL) != SQLITE_OK)
		return db_error(db, "%s", what);
	return KBX_OK;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* --- per category -------------------------------------------------------------------------- */

static void finish_category(struct db_category_stat *c, double *xs, int nx)
{
	if (nx) {
		c->median_speedup = median(xs, nx);
		c->best_speedup = xs[nx - 1];
	}
}

/* One pass over the runs sorted by category and task: a single snapshot, and every figure,
 * distinct task counts and medians included, computed the same way in C. */
enum kbx_status db_category_stats(struct db *db, struct db_category_stat **out, int *n)
{
	struct db_category_stat *cs = NULL, *c = NULL;
	size_t cap = 0, xcap = 0;
	int count = 0, nx = 0, rc, task_passed = 0;
	char *cat = NULL, *task = NULL;
	double *xs = NULL;
	sqlite3_stmt *st;
	enum kbx_status ret;

	*out = NULL;
	*n = 0;
	ret = prepare(db,
		      "SELECT category, task_id, verdict = 'pass', created_at, " RUN_SPEEDUP
		      ", verdict = 'impossible_timing' FROM runs ORDER BY category, task_id", &st, "summarise categories");
	if (ret != KBX_OK)
		return ret;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *row_cat = column_str(st, 0), *row_task = column_str(st, 1);
		int pass = sqlite3_column_int(st, 2);
		double at = sqlite3_column_double(st, 3);

		if (!cat || strcmp(cat, row_cat) != 0) {
			if (c)
				finish_category(c, xs, nx);
			nx = 0;
			free(cat);
			free(task);
			cat = xstrdup(row_cat);
			task = NULL;
			XGROW(cs, count + 1, cap);
			c = &cs[count++];
			memset(c, 0, sizeof(*c));
			snprintf(c->category, sizeof(c->category), "%s", row_cat);
			c->best_speedup = c->median_speedup = -1.0;
			c->last_at = at;
		}
		if (!task || strcmp(task, row_task) != 0) {
			free(task);
			task = xstrdup(row_task);
			c->tasks_tried++;
			task_passed = 0;
		}
		c->attempts++;
		c->impossible += sqlite3_column_int(st, 5);
		if (at > c->last_at)
			c->last_at = at;
		if (pass) {
			c->passes++;
			if (!task_passed)
				c->tasks_passed++;
			task_passed = 1;
			if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
				XGROW(xs, nx + 1, xcap);
				xs[nx++] = sqlite3_column_double(st, 4);
			}
		}
	}
	if (c)
		finish_category(c, xs, nx);
	sqlite3_finalize(st);
	free(cat);
	free(task);
	free(xs);
	if (rc != SQLITE_DONE) {
		free(cs);
		return db_error(db, "summarise categories");
	}
	*out = cs;
	*n = count;
	return KBX_OK;
}

enum kbx_status db_median_speedup(struct db *db, double *out)
{
	double *xs = NULL;
	size_t cap = 0;
	int nx = 0, rc;
	sqlite3_stmt *st;
	enum kbx_status ret;

	*out = -1.0;
	ret = prepare(db, "SELECT " RUN_SPEEDUP " FROM runs WHERE verdict = 'pass' AND " RUN_SPEEDUP " IS NOT NULL",
		      &st, "median speedup");
	if (ret != KBX_OK)
		return ret;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		XGROW(xs, nx + 1, cap);
		xs[nx++] = sqlite3_column_double(st, 0);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		*out = median(xs, nx);
	free(xs);
	return rc == SQLITE_DONE ? KBX_OK : db_error(db, "median speedup");
}

/* --- per task ------------------------------------------------------------------------------ */

enum kbx_status db_task_stats(struct db *db, const char *category, struct db_task_stat **out, int *n)
{
	struct sbuf sql = SBUF_INIT;
	struct db_task_stat *ts = NULL;
	size_t cap = 0;
	int count = 0, rc;
	sqlite3_stmt *st;
	enum kbx_status ret;

	*out = NULL;
	*n = 0;
	sbuf_adds(&sql,
		  "SELECT task_id, COUNT(*), SUM(verdict = 'pass'), MAX(created_at),"
		  " MAX(CASE WHEN verdict = 'pass' THEN " RUN_SPEEDUP " END),"
		  " (SELECT l.verdict FROM runs l WHERE l.task_id = r.task_id"
		  "  ORDER BY l.created_at DESC, l.id DESC LIMIT 1),"
		  " SUM(verdict = 'impossible_timing')"
		  " FROM runs r");
	if (category)
		sbuf_adds(&sql, " WHERE category = ?1");
	sbuf_adds(&sql, " GROUP BY task_id ORDER BY task_id");
	ret = prepare(db, sql.buf, &st, "summarise tasks");
	sbuf_release(&sql);
	if (ret != KBX_OK)
		return ret;
	if (category)
		bind_text(st, 1, category);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_task_stat *t;

		XGROW(ts, count + 1, cap);
		t = &ts[count++];
		memset(t, 0, sizeof(*t));
		column_copy(st, 0, t->task_id, sizeof(t->task_id));
		t->attempts = sqlite3_column_int(st, 1);
		t->passes = sqlite3_column_int(st, 2);
		t->last_at = sqlite3_column_double(st, 3);
		t->best_speedup = column_opt_double(st, 4);
		t->last_verdict = column_verdict(st, 5);
		t->impossible = sqlite3_column_int(st, 6);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(ts);
		return db_error(db, "summarise tasks");
	}
	*out = ts;
	*n = count;
	return KBX_OK;
}

/* --- runs ---------------------------------------------------------------------------------- */

#define RUN_ROW_COLUMNS \
	"id, task_id, category, gpu, verdict, warnings, speedup_golden, speedup_ref, cand_ms," \
	" created_at, source_hash, device, eval"

static void read_run_row(sqlite3_stmt *st, struct db_run_row *r)
{
	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(st, 0);
	column_copy(st, 1, r->task_id, sizeof(r->task_id));
	column_copy(st, 2, r->category, sizeof(r->category));
	column_copy(st, 3, r->gpu, sizeof(r->gpu));
	r->verdict = column_verdict(st, 4);
	column_copy(st, 5, r->warnings, sizeof(r->warnings));
	r->speedup_golden = column_opt_double(st, 6);
	r->speedup_ref = column_opt_double(st, 7);
	r->cand_ms = column_opt_double(st, 8);
	r->created_at = sqlite3_column_double(st, 9);
	column_copy(st, 10, r->source_hash, sizeof(r->source_hash));
	r->device = sqlite3_column_type(st, 11) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 11);
	column_copy(st, 12, r->eval, sizeof(r->eval));
}

enum kbx_status db_runs_list(struct db *db, const char *category, const char *task_id, int limit,
			     struct db_run_row **out, int *n)
{
	struct sbuf sql = SBUF_INIT;
	struct db_run_row *rows = NULL;
	size_t cap = 0;
	int count = 0, rc;
	sqlite3_stmt *st;
	enum kbx_status ret;

	*out = NULL;
	*n = 0;
	/* Only the filters given go into the WHERE clause, so that SQLite can use their indexes. */
	sbuf_adds(&sql, "SELECT " RUN_ROW_COLUMNS " FROM runs");
	if (category && task_id)
		sbuf_adds(&sql, " WHERE category = ?1 AND task_id = ?2");
	else if (category)
		sbuf_adds(&sql, " WHERE category = ?1");
	else if (task_id)
		sbuf_adds(&sql, " WHERE task_id = ?2");
	sbuf_adds(&sql, " ORDER BY created_at DESC, id DESC LIMIT ?3");
	ret = prepare(db, sql.buf, &st, "list runs");
	sbuf_release(&sql);
	if (ret != KBX_OK)
		return ret;
	if (category)
		bind_text(st, 1, category);
	if (task_id)
		bind_text(st, 2, task_id);
	sqlite3_bind_int(st, 3, limit > 0 ? limit : -1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		XGROW(rows, count + 1, cap);
		read_run_row(st, &rows[count++]);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(rows);
		return db_error(db, "list runs");
	}
	*out = rows;
	*n = count;
	return KBX_OK;
}

static enum kbx_status read_cases(struct db *db, long long id, struct db_run_detail *d)
{
	sqlite3_stmt *st;
	enum kbx_status ret;
	size_t cap = 0, cap_json = 0, cap_v = 0;
	int rc;

	ret = prepare(db, "SELECT name, verdict, detail_json FROM case_results WHERE run_id = ?1 ORDER BY idx",
		      &st, "read case results");
	if (ret != KBX_OK)
		return ret;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		XGROW(d->case_names, d->ncases + 1, cap);
		XGROW(d->case_json, d->ncases + 1, cap_json);
		XGROW(d->case_verdicts, d->ncases + 1, cap_v);
		d->case_names[d->ncases] = xstrdup(column_str(st, 0));
		d->case_verdicts[d->ncases] = column_verdict(st, 1);
		d->case_json[d->ncases] = column_dup(st, 2);
		d->ncases++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? KBX_OK : db_error(db, "read case results of run %lld", id);
}

/* A number column: NULL, text or a blob (a damaged row) is "not available", -1. */
static double column_num(sqlite3_stmt *st, int i)
{
	int t = sqlite3_column_type(st, i);

	return t == SQLITE_FLOAT || t == SQLITE_INTEGER ? sqlite3_column_double(st, i) : -1.0;
}

/* A clock figure: 0 when not read (nvml.h), and so is anything that cannot be one. */
static double column_clock(sqlite3_stmt *st, int i)
{
	double v = column_num(st, i);

	return isfinite(v) && v > 0 ? v : 0;
}

/* One of `words` (NULL-terminated) copied to dst, else "". */
static void column_word(sqlite3_stmt *st, int i, const char *const *words, char *dst, size_t size)
{
	const char *s = sqlite3_column_type(st, i) == SQLITE_TEXT ? column_str(st, i) : "";

	dst[0] = '\0';
	for (; *words; words++)
		if (!strcmp(s, *words))
			snprintf(dst, size, "%s", s);
}

void db_perf_read(struct sqlite3_stmt *st, int first, struct db_perf *p, char **input_size)
{
	static const char *const modes[] = { "fixed", "noise", NULL };
	static const char *const stops[] = { "count", "noise", "cap", NULL };
	struct clock_summary *c = &p->clocks;
	int i = first;

	memset(p, 0, sizeof(*p));
	p->row = sqlite3_column_int(st, i++);
	*input_size = column_dup(st, i++);
	p->cand_ms = column_opt_double(st, i++);
	p->cand_p20 = column_opt_double(st, i++);
	p->cand_p80 = column_opt_double(st, i++);
	p->cand_min = column_opt_double(st, i++);
	p->cand_n = sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int(st, i);
	i++;
	p->ref_ms = column_opt_double(st, i++);
	p->golden_ms = column_opt_double(st, i++);
	p->gbps = column_opt_double(st, i++);
	p->tflops = column_opt_double(st, i++);
	/* schema 5: NULL in every row from before it, and whatever a damaged file holds */
	p->cand_max = column_num(st, i++);
	p->cand_mean = column_num(st, i++);
	p->cand_stddev = column_num(st, i++);
	p->cand_rsd = column_num(st, i++);
	column_word(st, i++, modes, p->bench_mode, sizeof(p->bench_mode));
	column_word(st, i++, stops, p->bench_stop, sizeof(p->bench_stop));
	p->hide_latency = !p->bench_mode[0] || sqlite3_column_type(st, i) != SQLITE_INTEGER ? -1
			  : sqlite3_column_int64(st, i) != 0;
	i++;
	c->sm_mhz = column_clock(st, i++);
	c->min_sm_mhz = column_clock(st, i++);
	c->mem_mhz = column_clock(st, i++);
	c->max_sm_mhz = column_clock(st, i++);
	c->temp_c = column_clock(st, i++);
	c->power_w = column_clock(st, i++);
	if (sqlite3_column_type(st, i) == SQLITE_INTEGER && sqlite3_column_type(st, i + 1) == SQLITE_INTEGER &&
	    sqlite3_column_int64(st, i + 1) != 0) {
		c->reasons = (unsigned long long)sqlite3_column_int64(st, i);
		c->reasons_valid = 1;
	}
	i += 2;
	/* a summary is of 0, 1 or 2 readings (clock_window_summarize) */
	if (sqlite3_column_type(st, i) == SQLITE_INTEGER) {
		long long n = sqlite3_column_int64(st, i);

		c->valid = n <= 0 ? 0 : n >= 2 ? 2 : (int)n;
	}
	if (!c->valid)
		memset(c, 0, sizeof(*c));
}

static enum kbx_status read_perf(struct db *db, long long id, struct db_run_detail *d)
{
	sqlite3_stmt *st;
	enum kbx_status ret;
	size_t cap = 0, cap_size = 0;
	int rc;

	ret = prepare(db, "SELECT " DB_PERF_COLUMNS " FROM perf_rows WHERE run_id = ?1 ORDER BY \"row\"", &st,
		      "read perf rows");
	if (ret != KBX_OK)
		return ret;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		XGROW(d->perf, d->nperf + 1, cap);
		XGROW(d->perf_input_size, d->nperf + 1, cap_size);
		db_perf_read(st, 0, &d->perf[d->nperf], &d->perf_input_size[d->nperf]);
		d->nperf++;
	}
	sqlite3_finalize(st);
	/* The array may have moved while growing: point each row at its own string only now. */
	for (int i = 0; i < d->nperf; i++)
		d->perf[i].input_size = d->perf_input_size[i];
	return rc == SQLITE_DONE ? KBX_OK : db_error(db, "read perf rows of run %lld", id);
}

enum kbx_status db_run_get(struct db *db, long long id, struct db_run_detail *out)
{
	sqlite3_stmt *st;
	enum kbx_status ret;
	int rc;

	memset(out, 0, sizeof(*out));
	ret = prepare(db, "SELECT " RUN_ROW_COLUMNS ", source, message, summary_json, origin, uid FROM runs"
		      " WHERE id = ?1", &st, "read a run");
	if (ret != KBX_OK)
		return ret;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_run_row(st, &out->row);
		out->source = column_dup(st, 13);
		out->message = column_dup(st, 14);
		out->summary_json = column_dup(st, 15);
		out->origin = column_dup(st, 16);
		column_copy(st, 17, out->uid, sizeof(out->uid));
		ret = KBX_OK;
	} else if (rc == SQLITE_DONE) {
		ret = kbx_error(KBX_ENOTFOUND, "no run %lld in the history", id);
	} else {
		ret = db_error(db, "read run %lld", id);
	}
	sqlite3_finalize(st);
	if (ret == KBX_OK)
		ret = read_cases(db, id, out);
	if (ret == KBX_OK)
		ret = read_perf(db, id, out);
	if (ret != KBX_OK)
		db_run_detail_free(out);
	return ret;
}

void db_run_detail_free(struct db_run_detail *d)
{
	if (!d)
		return;
	free(d->source);
	free(d->message);
	free(d->summary_json);
	free(d->origin);
	for (int i = 0; i < d->ncases; i++) {
		free(d->case_names[i]);
		free(d->case_json[i]);
	}
	free(d->case_names);
	free(d->case_json);
	free(d->case_verdicts);
	for (int i = 0; i < d->nperf; i++)
		free(d->perf_input_size[i]);
	free(d->perf_input_size);
	free(d->perf);
	memset(d, 0, sizeof(*d));
}

/* --- over time ----------------------------------------------------------------------------- */

enum kbx_status db_category_series(struct db *db, const char *category, int nbuckets, double *rates)
{
	sqlite3_stmt *st;
	enum kbx_status ret;
	double *at = NULL, lo, hi;
	char *pass = NULL;
	size_t cap = 0, pcap = 0;
	int count = 0, rc;
	int *runs, *passes;

	if (nbuckets <= 0 || !rates)
		return kbx_error(KBX_EINVAL, "pass-rate series needs at least one bucket");
	for (int i = 0; i < nbuckets; i++)
		rates[i] = -1.0;
	ret = prepare(db, category ? "SELECT created_at, verdict = 'pass' FROM runs WHERE category = ?1"
				   : "SELECT created_at, verdict = 'pass' FROM runs",
		      &st, "read the pass-rate series");
	if (ret != KBX_OK)
		return ret;
	if (category)
		bind_text(st, 1, category);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		XGROW(at, count + 1, cap);
		XGROW(pass, count + 1, pcap);
		at[count] = sqlite3_column_double(st, 0);
		pass[count] = (char)sqlite3_column_int(st, 1);
		count++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(at);
		free(pass);
		return db_error(db, "read the pass-rate series of '%s'", category ? category : "all");
	}
	if (count == 0) {
		free(at);
		free(pass);
		return KBX_OK;
	}
	lo = hi = at[0];
	for (int i = 1; i < count; i++) {
		if (at[i] < lo)
			lo = at[i];
		if (at[i] > hi)
			hi = at[i];
	}
	runs = xcalloc((size_t)nbuckets, sizeof(*runs));
	passes = xcalloc((size_t)nbuckets, sizeof(*passes));
	for (int i = 0; i < count; i++) {
		/* Buckets are [lo + k*w, lo + (k+1)*w); the newest run closes the last one. A history
		 * from a single instant is all "now", the last bucket. */
		int b = nbuckets - 1;

		if (hi > lo) {
			double f = (at[i] - lo) * nbuckets / (hi - lo);

			b = f >= nbuckets ? nbuckets - 1 : (int)f;
			if (b < 0)
				b = 0;
		}
		runs[b]++;
		passes[b] += pass[i] != 0;
	}
	for (int i = 0; i < nbuckets; i++)
		if (runs[i])
			rates[i] = (double)passes[i] / runs[i];
	free(runs);
	free(passes);
	free(at);
	free(pass);
	return KBX_OK;
}
