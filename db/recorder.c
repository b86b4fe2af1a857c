/*
 * recorder.c - collect one run's events and write them to the history on done().
 */
#include "recorder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

struct recorder {
	struct db *db;
	char *task_id, *category, *source, *source_path;
	unsigned long long seed;
	int device;                     /* < 0: not known */
	char *eval;
	char *options;                  /* from the compile result */
	struct db_case *cases;          /* strings owned */
	int ncases;
	size_t cases_cap;
	struct db_perf *perf;           /* input_size owned */
	int nperf;
	size_t perf_cap;
	int done;
	long long run_id;
	double created_at;              /* as written */
	char *gpu;                      /* the summary's, as written (NULL: none) */
	enum verdict verdict;
	enum kbx_status status;
	char *error;
};

struct recorder *recorder_new(struct db *db, const char *task_id, const char *category,
			      const char *source, const char *source_path, unsigned long long seed)
{
	struct recorder *r = xcalloc(1, sizeof(*r));

	r->db = db;
	r->task_id = xstrdup_or_null(task_id);
	r->category = xstrdup_or_null(category);
	r->source = xstrdup_or_null(source);
	r->source_path = xstrdup_or_null(source_path);
	r->seed = seed;
	r->device = -1;
	r->status = KBX_OK;
	return r;
}

void recorder_set_context(struct recorder *r, int device, const char *eval)
{
	r->device = device < 0 ? -1 : device;
	free(r->eval);
	r->eval = xstrdup_or_null(eval);
}

static void on_phase(void *ctx, const char *what, double limit_s)
{
}

static void on_log(void *ctx, const char *text)
{
}

static void on_compile(void *ctx, const struct compile_result *c)
{
	struct recorder *r = ctx;

	/* The last compile wins (a cache miss may be followed by the real compile). */
	if (c && c->options) {
		free(r->options);
		r->options = xstrdup(c->options);
	}
}

/* Worst figure over a case's outputs; NaN (no figure) never wins. */
static double worst(double acc, double v)
{
	return isnan(v) || v <= acc ? acc : v;
}

static void on_case(void *ctx, const struct case_result *c)
{
	struct recorder *r = ctx;
	struct db_case *dc;

	if (!c || r->done)
		return;
	XGROW(r->cases, r->ncases + 1, r->cases_cap);
	dc = &r->cases[r->ncases++];
	memset(dc, 0, sizeof(*dc));
	dc->name = xstrdup(c->name);
	dc->verdict = c->verdict;
	dc->max_abs = dc->max_rel = dc->max_ulp = -1.0;
	dc->mismatches = c->noutputs > 0 ? 0 : -1;
	for (int i = 0; i < c->noutputs; i++) {
		const struct cmp_result *m = &c->outputs[i].cmp;

		dc->max_abs = worst(dc->max_abs, m->max_abs);
		dc->max_rel = worst(dc->max_rel, m->max_rel);
		dc->max_ulp = worst(dc->max_ulp, m->max_ulp);
		dc->mismatches += (long long)m->mismatches;
	}
	dc->detail_json = case_result_to_json(c);
}

static void on_perf(void *ctx, const struct perf_result *p)
{
	struct recorder *r = ctx;
	struct db_perf *dp;

	if (!p || r->done)
		return;
	XGROW(r->perf, r->nperf + 1, r->perf_cap);
	dp = &r->perf[r->nperf++];
	db_perf_from_result(p, dp);
}

static void on_done(void *ctx, const struct run_summary *s)
{
	struct recorder *r = ctx;
	struct db_run run;
	char hash[65];
	char *warnings, *summary_json;

	if (!s || r->done)
		return;
	r->done = 1;
	memset(&run, 0, sizeof(run));
	run.task_id = r->task_id;
	run.category = r->category;
	run.gpu = s->gpu[0] ? s->gpu : NULL;
	run.driver_version = s->driver_version;
	run.source = r->source;
	if (r->source) {
		sha256_hex(r->source, strlen(r->source), hash);
		run.source_hash = hash;
	}
	run.source_path = r->source_path;
	run.compile_options = r->options;
	run.verdict = s->verdict;
	warnings = warnings_string(s->warnings);
	run.warnings = warnings;
	run.message = s->message;
	run.seed = r->seed;
	run.speedup_golden = s->speedup_golden;
	run.speedup_ref = s->speedup_ref;
	/* Sums over perf rows: nothing timed means not available, not 0 ms. */
	run.cand_ms = r->nperf > 0 && s->cand_ms_sum > 0 ? s->cand_ms_sum : -1.0;
	run.ref_ms = r->nperf > 0 && s->ref_ms_sum > 0 ? s->ref_ms_sum : -1.0;
	run.created_at = 0;
	summary_json = run_summary_to_json(s);
	run.summary_json = summary_json;
	run.cases = r->cases;
	run.ncases = r->ncases;
	run.perf = r->perf;
	run.nperf = r->nperf;
	run.has_device = r->device >= 0;
	run.device = r->device;
	run.eval = r->eval;

	r->status = db_run_insert(r->db, &run);
	if (r->status == KBX_OK) {
		r->run_id = run.id;
		r->created_at = run.written_at;
		r->gpu = xstrdup_or_null(run.gpu);
		r->verdict = run.verdict;
	} else {
		free(r->error);
		r->error = xstrdup(kbx_last_error());
	}
	free(warnings);
	free(summary_json);
}

struct run_events recorder_events(struct recorder *r)
{
	struct run_events ev = {
		.ctx = r,
		.phase = on_phase,
		.compile = on_compile,
		.case_done = on_case,
		.perf_row = on_perf,
		.log = on_log,
		.done = on_done,
	};

	return ev;
}

long long recorder_run_id(const struct recorder *r)
{
	return r->run_id;
}

enum kbx_status recorder_status(const struct recorder *r)
{
	return r->status;
}

const char *recorder_error(const struct recorder *r)
{
	return r->error ? r->error : "";
}

enum kbx_status recorder_vs_best(const struct recorder *r, struct vsbest *out)
{
	struct db_run_detail now;
	enum kbx_status st;

	memset(out, 0, sizeof(*out));
	if (!r || r->run_id <= 0 || r->verdict != V_PASS)
		return KBX_OK;
	/* the fields vsbest_find reads, as db_run_get would give them back */
	memset(&now, 0, sizeof(now));
	now.row.id = r->run_id;
	snprintf(now.row.task_id, sizeof(now.row.task_id), "%s", r->task_id ? r->task_id : "");
	snprintf(now.row.category, sizeof(now.row.category), "%s", r->category ? r->category : "");
	snprintf(now.row.gpu, sizeof(now.row.gpu), "%s", r->gpu ? r->gpu : "");
	now.row.verdict = r->verdict;
	now.row.created_at = r->created_at;
	now.row.device = -1;
	now.nperf = r->nperf;
	if (r->nperf > 0)
		now.perf = xcalloc((size_t)r->nperf, sizeof(*now.perf));
	for (int i = 0; i < r->nperf; i++)
		db_perf_stored(&r->perf[i], &now.perf[i]);
	st = vsbest_find(r->db, &now, out);
	free(now.perf);
	return st;
}

void recorder_free(struct recorder *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->ncases; i++) {
		free((char *)r->cases[i].name);
		free((char *)r->cases[i].detail_json);
	}
	free(r->cases);
	for (int i = 0; i < r->nperf; i++)
		free((char *)r->perf[i].input_size);
	free(r->perf);
	free(r->task_id);
	free(r->category);
	free(r->source);
	free(r->source_path);
	free(r->options);
	free(r->eval);
	free(r->error);
	free(r->gpu);
	free(r);
}
