/*
 * test_db_vsbest.c - history telling a real change from noise: the schema 5 columns of a perf
 * row (timing details, clock summary) written by the recorder and read back; the best earlier
 * attempt (same task, same GPU name, passing, created before, most rows shared, lowest sum) and
 * the SAME / FASTER / SLOWER / UNCLEAR verdict against it; histories from schema 3 and 4; damaged
 * values in the new columns.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "old_schemas.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/events.h"
#include "core/util.h"
#include "db/db.h"
#include "fixture.h"
#include "db/recorder.h"
#include "db/vsbest.h"

/* --- helpers ------------------------------------------------------------------------------- */

#define TASK "Activation/gelu"
#define H200 "NVIDIA H200"
#define A100 "NVIDIA A100-SXM4-80GB"

static const char *const sizes[] = { "{\"n\":1024}", "{\"n\":4096}", "{\"n\":16384}", "{\"n\":65536}" };

static void exec_sq(sqlite3 *sq, const char *fmt, ...) KBX_PRINTF(2, 3);
static void exec_sq(sqlite3 *sq, const char *fmt, ...)
{
	char *sql;
	va_list ap;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	if (sqlite3_exec(sq, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(sq));
	sqlite3_free(sql);
}

/*
 * A perf row timed at `ms` with a tight spread (p20..p80 within 0.1%, 1000 samples), at SM clock
 * mhz with slowdown `reasons` (mhz 0: no clock readings).
 */
static struct db_perf timed_row(int row, double ms, double mhz, unsigned long long reasons)
{
	struct db_perf p;

	memset(&p, 0, sizeof(p));
	p.row = row;
	p.input_size = sizes[row % 4];
	p.cand_ms = ms;
	p.cand_p20 = ms * 0.999;
	p.cand_p80 = ms * 1.001;
	p.cand_min = ms * 0.99;
	p.cand_n = 1000;
	p.ref_ms = p.golden_ms = p.gbps = p.tflops = -1;
	p.cand_max = ms * 1.05;
	p.cand_mean = ms;
	p.cand_stddev = ms * 0.001;
	p.cand_rsd = 0.001;
	snprintf(p.bench_mode, sizeof(p.bench_mode), "fixed");
	snprintf(p.bench_stop, sizeof(p.bench_stop), "count");
	if (mhz > 0) {
		p.clocks.sm_mhz = p.clocks.min_sm_mhz = mhz;
		p.clocks.mem_mhz = 2619;
		p.clocks.max_sm_mhz = 1980;
		p.clocks.temp_c = 60;
		p.clocks.power_w = 500;
		p.clocks.reasons = reasons;
		p.clocks.reasons_valid = 1;
		p.clocks.valid = 2;
	}
	return p;
}

/* rows first..first+n-1, row i at scale * (i + 1) ms, all at mhz with reasons */
static void timed_rows(struct db_perf *p, int first, int n, double scale, double mhz, unsigned long long reasons)
{
	for (int i = 0; i < n; i++)
		p[i] = timed_row(first + i, scale * (first + i + 1), mhz, reasons);
}

static long long add_run(struct db *db, const char *gpu, enum verdict v, double at, const struct db_perf *perf, int n)
{
	struct db_run r;

	memset(&r, 0, sizeof(r));
	r.task_id = TASK;
	r.category = "Activation";
	r.gpu = gpu;
	r.verdict = v;
	r.created_at = at;
	r.speedup_golden = r.speedup_ref = r.cand_ms = r.ref_ms = -1;
	r.perf = perf;
	r.nperf = n;
	if (db_run_insert(db, &r) != KBX_OK)
		fail_msg("%s", kbx_last_error());
	return r.id;
}

/* A run of 4 rows, all at scale, at 1980 MHz without a slowdown. */
static long long add_plain(struct db *db, const char *gpu, enum verdict v, double at, double scale)
{
	struct db_perf p[4];

	timed_rows(p, 0, 4, scale, 1980, 0);
	return add_run(db, gpu, v, at, p, 4);
}

static void find_for(struct db *db, long long id, struct vsbest *vb)
{
	struct db_run_detail d;

	if (db_run_get(db, id, &d) != KBX_OK)
		fail_msg("%s", kbx_last_error());
	if (vsbest_find(db, &d, vb) != KBX_OK)
		fail_msg("%s", kbx_last_error());
	db_run_detail_free(&d);
}

static void assert_contains(const char *s, const char *part)
{
	if (!strstr(s, part))
		fail_msg("'%s' does not contain '%s'", s, part);
}

/* --- the new columns ----------------------------------------------------------------------- */

/* The recorder keeps a perf event's timing details and clocks; a row without them stays NULL. */
static void test_recorder_keeps_clocks(void **state)
{
	struct db_fixture *f = *state;
	sqlite3 *sq = db_sqlite(f->db);
	struct perf_result perf[3];
	struct run_summary sum;
	struct recorder *rec;
	struct run_events ev;
	struct db_run_detail d;
	const struct db_perf *p;

	memset(perf, 0, sizeof(perf));
	perf[0].row = 0;
	perf[0].input_size = (char *)sizes[0];
	perf[0].cand = (struct sample_stats){ .median = 0.2, .p20 = 0.19, .p80 = 0.21, .min = 0.18, .max = 0.4,
					      .mean = 0.205, .stddev = 0.01, .n = 500 };
	perf[0].golden_ms = perf[0].bytes = perf[0].flops = -1;
	perf[0].correct = 1;
	snprintf(perf[0].bench_mode, sizeof(perf[0].bench_mode), "noise");
	snprintf(perf[0].bench_stop, sizeof(perf[0].bench_stop), "cap");
	perf[0].cand_rsd = 0.01 / 0.205;
	perf[0].hide_latency = 1;
	perf[0].clocks = (struct clock_summary){ 1755, 1740, 2619, 1980, 83, 699.5,
						 CLOCK_REASON_SW_POWER_CAP | CLOCK_REASON_SW_THERMAL | (1ULL << 63), 1, 2 };
	/* timed, but from a worker that sent no timing details and read no clocks */
	perf[1].row = 1;
	perf[1].cand = (struct sample_stats){ .median = 0.3, .p20 = 0.29, .p80 = 0.31, .min = 0.28, .n = 20 };
	perf[1].golden_ms = perf[1].bytes = perf[1].flops = -1;
	perf[1].correct = 1;
	/* clocks read, reasons not */
	perf[2].row = 2;
	perf[2].cand = (struct sample_stats){ .median = 0.4, .p20 = 0.39, .p80 = 0.41, .min = 0.38, .max = 0.5,
					      .mean = 0.4, .stddev = 0, .n = 1 };
	perf[2].golden_ms = perf[2].bytes = perf[2].flops = -1;
	perf[2].correct = 1;
	snprintf(perf[2].bench_mode, sizeof(perf[2].bench_mode), "fixed");
	snprintf(perf[2].bench_stop, sizeof(perf[2].bench_stop), "count");
	perf[2].clocks = (struct clock_summary){ .sm_mhz = 1980, .min_sm_mhz = 1980, .valid = 1 };

	memset(&sum, 0, sizeof(sum));
	sum.verdict = V_PASS;
	sum.speedup_golden = sum.speedup_ref = -1;
	sum.cand_ms_sum = 0.9;
	snprintf(sum.gpu, sizeof(sum.gpu), H200);
	rec = recorder_new(f->db, TASK, "Activation", "// k", "k.cu", 1);
	ev = recorder_events(rec);
	for (int i = 0; i < 3; i++)
		ev.perf_row(ev.ctx, &perf[i]);
	ev.done(ev.ctx, &sum);
	assert_int_equal(recorder_status(rec), KBX_OK);
	assert_int_equal(db_run_get(f->db, recorder_run_id(rec), &d), KBX_OK);
	recorder_free(rec);

	assert_int_equal(d.nperf, 3);
	p = &d.perf[0];
	assert_true(p->cand_max == 0.4 && p->cand_mean == 0.205 && p->cand_stddev == 0.01);
	assert_true(fabs(p->cand_rsd - 0.01 / 0.205) < 1e-15);
	assert_string_equal(p->bench_mode, "noise");
	assert_string_equal(p->bench_stop, "cap");
	assert_int_equal(p->hide_latency, 1);
	assert_int_equal(p->clocks.valid, 2);
	assert_true(p->clocks.sm_mhz == 1755 && p->clocks.min_sm_mhz == 1740 && p->clocks.mem_mhz == 2619);
	assert_true(p->clocks.max_sm_mhz == 1980 && p->clocks.temp_c == 83 && p->clocks.power_w == 699.5);
	/* NVML's mask, all 64 bits of it */
	assert_true(p->clocks.reasons == (CLOCK_REASON_SW_POWER_CAP | CLOCK_REASON_SW_THERMAL | (1ULL << 63)));
	assert_int_equal(p->clocks.reasons_valid, 1);

	p = &d.perf[1];
	assert_true(p->cand_ms == 0.3);
	assert_true(p->cand_mean < 0 && p->cand_max < 0 && p->cand_stddev < 0 && p->cand_rsd < 0);
	assert_string_equal(p->bench_mode, "");
	assert_string_equal(p->bench_stop, "");
	assert_int_equal(p->hide_latency, -1);
	assert_int_equal(p->clocks.valid, 0);
	assert_true(p->clocks.sm_mhz == 0 && p->clocks.reasons == 0);
	assert_int_equal(q_int(sq, "SELECT COUNT(*) FROM perf_rows WHERE \"row\" = 1 AND cand_mean IS NULL AND"
			       " bench_mode IS NULL AND hide_latency IS NULL AND sm_mhz IS NULL AND reasons IS NULL"
			       " AND reasons_valid IS NULL AND clock_readings IS NULL"), 1);

	p = &d.perf[2];
	assert_true(p->cand_stddev == 0);       /* one sample: 0, not "not known" */
	assert_int_equal(p->hide_latency, 0);
	assert_int_equal(p->clocks.valid, 1);
	assert_true(p->clocks.sm_mhz == 1980 && p->clocks.mem_mhz == 0);
	assert_int_equal(p->clocks.reasons_valid, 0);
	assert_int_equal(q_int(sq, "SELECT COUNT(*) FROM perf_rows WHERE \"row\" = 2 AND mem_mhz IS NULL"
			       " AND reasons IS NULL AND reasons_valid = 0 AND clock_readings = 1"), 1);
	db_run_detail_free(&d);
}

/* Two doubles the same for vsbest: equal, or both NaN (the sign of a zero may differ). */
static int same_num(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static void assert_same_perf(const struct db_perf *a, const struct db_perf *b, int i)
{
	const struct clock_summary *x = &a->clocks, *y = &b->clocks;

	if (a->row != b->row || strcmp(a->input_size ? a->input_size : "<null>", b->input_size ? b->input_size : "<null>") ||
	    !same_num(a->cand_ms, b->cand_ms) || !same_num(a->cand_p20, b->cand_p20) ||
	    !same_num(a->cand_p80, b->cand_p80) || !same_num(a->cand_min, b->cand_min) || a->cand_n != b->cand_n ||
	    !same_num(a->ref_ms, b->ref_ms) || !same_num(a->golden_ms, b->golden_ms) || !same_num(a->gbps, b->gbps) ||
	    !same_num(a->tflops, b->tflops) || !same_num(a->cand_max, b->cand_max) ||
	    !same_num(a->cand_mean, b->cand_mean) || !same_num(a->cand_stddev, b->cand_stddev) ||
	    !same_num(a->cand_rsd, b->cand_rsd) || strcmp(a->bench_mode, b->bench_mode) ||
	    strcmp(a->bench_stop, b->bench_stop) || a->hide_latency != b->hide_latency)
		fail_msg("perf row %d: db_perf_stored differs from what was read back (row %d/%d, cand_ms %g/%g, "
			 "cand_n %d/%d, mean %g/%g, mode '%s'/'%s', stop '%s'/'%s', hide %d/%d)", i, a->row, b->row,
			 a->cand_ms, b->cand_ms, a->cand_n, b->cand_n, a->cand_mean, b->cand_mean, a->bench_mode,
			 b->bench_mode, a->bench_stop, b->bench_stop, a->hide_latency, b->hide_latency);
	if (!same_num(x->sm_mhz, y->sm_mhz) || !same_num(x->min_sm_mhz, y->min_sm_mhz) ||
	    !same_num(x->mem_mhz, y->mem_mhz) || !same_num(x->max_sm_mhz, y->max_sm_mhz) ||
	    !same_num(x->temp_c, y->temp_c) || !same_num(x->power_w, y->power_w) || x->reasons != y->reasons ||
	    x->reasons_valid != y->reasons_valid || x->valid != y->valid)
		fail_msg("perf row %d: db_perf_stored's clocks differ from what was read back (valid %d/%d, sm %g/%g, "
			 "reasons %llu/%llu (%d/%d))", i, x->valid, y->valid, x->sm_mhz, y->sm_mhz, x->reasons, y->reasons,
			 x->reasons_valid, y->reasons_valid);
}

/* db_perf_stored says what db_run_get will give back, for ordinary rows and odd ones alike. */
static void test_stored_is_read_back(void **state)
{
	struct db_fixture *f = *state;
	enum { N = 12 };
	struct db_perf in[N];
	struct db_run_detail d;
	long long id;

	timed_rows(in, 0, 4, 1.0, 1980, CLOCK_REASON_SW_THERMAL);
	/* not timed: every figure "not available" */
	memset(&in[4], 0, sizeof(in[4]));
	in[4].row = 4;
	in[4].cand_ms = in[4].cand_p20 = in[4].cand_p80 = in[4].cand_min = -1;
	in[4].ref_ms = in[4].golden_ms = in[4].gbps = in[4].tflops = -1;
	/* NaN and infinities, a negative count, no input size */
	in[5] = timed_row(5, 2.0, 1755, 0);
	in[5].input_size = NULL;
	in[5].cand_p20 = NAN;
	in[5].cand_p80 = INFINITY;
	in[5].cand_min = -INFINITY;
	in[5].cand_n = -3;
	in[5].ref_ms = -0.0;
	in[5].cand_max = NAN;
	in[5].cand_stddev = -1;
	in[5].clocks.temp_c = NAN;
	in[5].clocks.power_w = INFINITY;
	in[5].clocks.mem_mhz = -5;
	in[5].clocks.valid = 7;
	/* statistics without a mean, a mode that is not a word, a stop that is not one */
	in[6] = timed_row(6, 3.0, 0, 0);
	in[6].cand_mean = 0;
	snprintf(in[6].bench_mode, sizeof(in[6].bench_mode), "wobbly");
	/* a mode filled to the brim (no NUL), a hidden latency of 2 */
	in[7] = timed_row(7, 3.5, 0, 0);
	memcpy(in[7].bench_mode, "noisenoi", sizeof(in[7].bench_mode));
	in[7].hide_latency = 2;
	in[8] = timed_row(8, 4.0, 0, 0);
	snprintf(in[8].bench_stop, sizeof(in[8].bench_stop), "later");
	in[8].hide_latency = 1;
	/* a stop without a mode; reasons without clock readings; clock readings without reasons */
	in[9] = timed_row(9, 5.0, 1500, 7);
	in[9].bench_mode[0] = '\0';
	in[9].clocks.valid = 0;
	in[10] = timed_row(10, 6.0, 1500, 7);
	in[10].clocks.reasons_valid = 0;
	in[10].clocks.valid = 1;
	in[11] = timed_row(11, 7.0, 1500, ~0ULL);
	in[11].cand_mean = INFINITY;
	in[11].cand_rsd = NAN;
	snprintf(in[11].bench_mode, sizeof(in[11].bench_mode), "noise");
	snprintf(in[11].bench_stop, sizeof(in[11].bench_stop), "cap");

	id = add_run(f->db, H200, V_PASS, 100, in, N);
	assert_int_equal(db_run_get(f->db, id, &d), KBX_OK);
	assert_int_equal(d.nperf, N);
	for (int i = 0; i < N; i++) {
		struct db_perf st;

		db_perf_stored(&in[i], &st);
		assert_ptr_equal(st.input_size, in[i].input_size);
		assert_same_perf(&st, &d.perf[i], i);
	}
	db_run_detail_free(&d);
}

static void assert_same_vsbest(const struct vsbest *a, const struct vsbest *b)
{
	assert_int_equal(a->found, b->found);
	assert_int_equal(a->best_id, b->best_id);
	assert_true(a->best_at == b->best_at);
	assert_int_equal(a->timed, b->timed);
	assert_int_equal(a->shared, b->shared);
	assert_int_equal(a->change, b->change);
	assert_string_equal(a->why, b->why);
	assert_int_equal(a->nrows, b->nrows);
	for (int i = 0; i < a->nrows; i++) {
		assert_int_equal(a->rows[i].row, b->rows[i].row);
		assert_string_equal(a->rows[i].input_size ? a->rows[i].input_size : "<null>",
				    b->rows[i].input_size ? b->rows[i].input_size : "<null>");
		assert_true(a->rows[i].now_ms == b->rows[i].now_ms && a->rows[i].best_ms == b->rows[i].best_ms);
		assert_int_equal(a->rows[i].change, b->rows[i].change);
		assert_string_equal(a->rows[i].why, b->rows[i].why);
	}
}

/* A run through the recorder, its events made from rows: the comparison the recorder makes from
 * memory, and vsbest_find on the run read back. */
static void record_and_compare(struct db *db, enum verdict v, const char *gpu, const struct db_perf *rows, int n,
			       struct vsbest *mem, struct vsbest *read_back)
{
	struct perf_result *perf = xcalloc((size_t)n, sizeof(*perf));
	struct run_summary sum;
	struct recorder *rec;
	struct run_events ev;

	for (int i = 0; i < n; i++) {
		const struct db_perf *p = &rows[i];
		struct perf_result *q = &perf[i];

		q->row = p->row;
		q->input_size = (char *)p->input_size;
		q->cand = (struct sample_stats){ .median = p->cand_ms, .p20 = p->cand_p20, .p80 = p->cand_p80,
						 .min = p->cand_min, .max = p->cand_max, .mean = p->cand_mean,
						 .stddev = p->cand_stddev, .n = p->cand_n };
		q->golden_ms = q->bytes = q->flops = -1;
		q->correct = 1;
		q->cand_rsd = p->cand_rsd;
		memcpy(q->bench_mode, p->bench_mode, sizeof(q->bench_mode));
		memcpy(q->bench_stop, p->bench_stop, sizeof(q->bench_stop));
		q->hide_latency = p->hide_latency;
		q->clocks = p->clocks;
	}
	memset(&sum, 0, sizeof(sum));
	sum.verdict = v;
	sum.speedup_golden = sum.speedup_ref = -1;
	sum.cand_ms_sum = 1;
	snprintf(sum.gpu, sizeof(sum.gpu), "%s", gpu);
	rec = recorder_new(db, TASK, "Activation", "// k", "k.cu", 1);
	ev = recorder_events(rec);
	for (int i = 0; i < n; i++)
		ev.perf_row(ev.ctx, &perf[i]);
	ev.done(ev.ctx, &sum);
	assert_int_equal(recorder_status(rec), KBX_OK);
	assert_int_equal(recorder_vs_best(rec, mem), KBX_OK);
	memset(read_back, 0, sizeof(*read_back));
	/* as the explorer did before: only a passing run is compared */
	if (v == V_PASS)
		find_for(db, recorder_run_id(rec), read_back);
	recorder_free(rec);
	free(perf);
}

/* The comparison from memory is the one made on the run read back, through every branch. */
static void test_recorder_vs_best(void **state)
{
	struct db_fixture *f = *state;
	struct vsbest mem, back;
	struct db_perf p[6];

	/* nothing earlier */
	timed_rows(p, 0, 4, 1.0, 1980, 0);
	record_and_compare(f->db, V_PASS, H200, p, 4, &mem, &back);
	assert_int_equal(mem.found, 0);
	assert_same_vsbest(&mem, &back);
	vsbest_free(&mem);
	vsbest_free(&back);

	/* faster than it, on the same rows */
	timed_rows(p, 0, 4, 0.8, 1980, 0);
	record_and_compare(f->db, V_PASS, H200, p, 4, &mem, &back);
	assert_int_equal(mem.found, 1);
	assert_int_equal(mem.change, TC_FASTER);
	assert_same_vsbest(&mem, &back);
	vsbest_free(&mem);
	vsbest_free(&back);

	/* throttled, some rows without timing details or clocks, one with latency hidden, one
	 * row not timed, an extra row: partly shared */
	timed_rows(p, 0, 6, 0.81, 1500, CLOCK_REASON_SW_THERMAL);
	p[1].bench_mode[0] = p[1].bench_stop[0] = '\0';
	p[1].clocks.valid = 0;
	p[2].hide_latency = 1;
	p[3].cand_ms = -1;
	p[3].cand_n = 0;
	record_and_compare(f->db, V_PASS, H200, p, 6, &mem, &back);
	assert_int_equal(mem.found, 1);
	assert_same_vsbest(&mem, &back);
	vsbest_free(&mem);
	vsbest_free(&back);

	/* another GPU: nothing to compare; a failing run: never compared */
	timed_rows(p, 0, 4, 0.5, 1980, 0);
	record_and_compare(f->db, V_PASS, A100, p, 4, &mem, &back);
	assert_int_equal(mem.found, 0);
	assert_same_vsbest(&mem, &back);
	vsbest_free(&mem);
	vsbest_free(&back);
	record_and_compare(f->db, V_WRONG, H200, p, 4, &mem, &back);
	assert_int_equal(mem.found, 0);
	vsbest_free(&mem);
	vsbest_free(&back);

	/* an unwritten run compares with nothing */
	assert_int_equal(recorder_vs_best(NULL, &mem), KBX_OK);
	assert_int_equal(mem.found, 0);
}

/* --- the best attempt ---------------------------------------------------------------------- */

static void test_no_earlier_run(void **state)
{
	struct db_fixture *f = *state;
	struct vsbest vb;
	long long id = add_plain(f->db, H200, V_PASS, 100, 1.0);

	find_for(f->db, id, &vb);
	assert_int_equal(vb.found, 0);
	assert_null(vb.rows);
	vsbest_free(&vb);
}

/* A failing run is never the best, however fast; nor is one on another GPU or of another task. */
static void test_only_passing_same_gpu(void **state)
{
	struct db_fixture *f = *state;
	struct db_run other;
	struct db_perf p[4];
	struct vsbest vb;
	long long wrong, a100, now, best;

	wrong = add_plain(f->db, H200, V_WRONG, 100, 0.1);
	a100 = add_plain(f->db, A100, V_PASS, 110, 0.2);
	memset(&other, 0, sizeof(other));
	timed_rows(p, 0, 4, 0.3, 1980, 0);
	other.task_id = "Activation/relu";
	other.category = "Activation";
	other.gpu = H200;
	other.verdict = V_PASS;
	other.created_at = 120;
	other.perf = p;
	other.nperf = 4;
	assert_int_equal(db_run_insert(f->db, &other), KBX_OK);
	now = add_plain(f->db, H200, V_PASS, 200, 1.0);
	find_for(f->db, now, &vb);
	assert_int_equal(vb.found, 0);
	vsbest_free(&vb);
	(void)wrong;
	(void)a100;

	/* with a passing run on the same GPU, that one is the best, and the others still are not */
	best = add_plain(f->db, H200, V_PASS, 150, 1.0);
	find_for(f->db, now, &vb);
	assert_int_equal(vb.found, 1);
	assert_int_equal(vb.best_id, best);
	assert_true(vb.best_at == 150);
	assert_int_equal(vb.change, TC_SAME);
	assert_int_equal(vb.timed, 4);
	assert_int_equal(vb.shared, 4);
	assert_int_equal(vb.nrows, 4);
	assert_contains(vb.why, "4 same");
	for (int i = 0; i < 4; i++) {
		assert_int_equal(vb.rows[i].row, i);
		assert_string_equal(vb.rows[i].input_size, sizes[i]);
		assert_int_equal(vb.rows[i].change, TC_SAME);
		assert_true(vb.rows[i].now_ms == vb.rows[i].best_ms);
	}
	vsbest_free(&vb);
	assert_int_equal(vb.found, 0);
}

/* Of two earlier runs the faster is the best; this run against it: FASTER, SLOWER or SAME. */
static void test_two_earlier_runs(void **state)
{
	struct db_fixture *f = *state;
	struct vsbest vb;
	long long slow, fast, now;

	slow = add_plain(f->db, H200, V_PASS, 100, 1.2);
	fast = add_plain(f->db, H200, V_PASS, 110, 1.0);
	now = add_plain(f->db, H200, V_PASS, 120, 0.9);
	find_for(f->db, now, &vb);
	assert_int_equal(vb.best_id, fast);
	assert_int_equal(vb.change, TC_FASTER);
	assert_contains(vb.why, "sum of medians 10.0% faster");
	assert_contains(vb.why, "4 faster");
	vsbest_free(&vb);

	/* the run in the middle was compared with the slow one, the only one before it */
	find_for(f->db, fast, &vb);
	assert_int_equal(vb.best_id, slow);
	assert_int_equal(vb.change, TC_FASTER);
	vsbest_free(&vb);

	/* a later, slower run: SLOWER against the best (now the 0.9 one), runs after it ignored */
	add_plain(f->db, H200, V_PASS, 300, 0.5);
	{
		long long later = add_plain(f->db, H200, V_PASS, 130, 1.1);

		find_for(f->db, later, &vb);
		assert_int_equal(vb.best_id, now);
		assert_int_equal(vb.change, TC_SLOWER);
		assert_contains(vb.why, "22.2% slower");
		vsbest_free(&vb);
	}
}

/* A run recorded at the same instant as an earlier one is after it (by id), never its own best;
 * a run not recorded at all (id 0) compares with everything before its time. */
static void test_same_instant_and_unrecorded(void **state)
{
	struct db_fixture *f = *state;
	struct db_run_detail d;
	struct db_perf p[4];
	struct vsbest vb;
	long long a, b;

	a = add_plain(f->db, H200, V_PASS, 100, 1.0);
	b = add_plain(f->db, H200, V_PASS, 100, 0.5);
	find_for(f->db, a, &vb);
	assert_int_equal(vb.found, 0);
	vsbest_free(&vb);
	find_for(f->db, b, &vb);
	assert_int_equal(vb.best_id, a);
	vsbest_free(&vb);

	memset(&d, 0, sizeof(d));
	snprintf(d.row.task_id, sizeof(d.row.task_id), TASK);
	snprintf(d.row.gpu, sizeof(d.row.gpu), H200);
	timed_rows(p, 0, 4, 0.5, 1980, 0);
	d.perf = p;
	d.nperf = 4;
	d.row.created_at = 0;   /* now */
	assert_int_equal(vsbest_find(f->db, &d, &vb), KBX_OK);
	assert_int_equal(vb.best_id, b);
	assert_int_equal(vb.change, TC_SAME);
	vsbest_free(&vb);
	/* no GPU, or nothing timed: nothing to compare */
	d.row.gpu[0] = '\0';
	assert_int_equal(vsbest_find(f->db, &d, &vb), KBX_OK);
	assert_int_equal(vb.found, 0);
	snprintf(d.row.gpu, sizeof(d.row.gpu), H200);
	for (int i = 0; i < 4; i++)
		p[i].cand_ms = -1;
	assert_int_equal(vsbest_find(f->db, &d, &vb), KBX_OK);
	assert_int_equal(vb.found, 0);
	assert_int_equal(vsbest_find(f->db, NULL, &vb), KBX_OK);
	assert_int_equal(vb.found, 0);
}

/* --rows N: only the rows both runs timed, with the same input size, are compared. */
static void test_partial_rows(void **state)
{
	struct db_fixture *f = *state;
	struct db_perf p[4];
	struct vsbest vb;
	long long full, low, now, other;

	full = add_plain(f->db, H200, V_PASS, 100, 1.0);
	/* the two smallest rows only, much faster there: sums over different rows do not compare */
	timed_rows(p, 0, 2, 0.1, 1980, 0);
	low = add_run(f->db, H200, V_PASS, 110, p, 2);
	/* this run: the two largest rows, 5% faster than the full run there */
	timed_rows(p, 2, 2, 0.95, 1980, 0);
	now = add_run(f->db, H200, V_PASS, 120, p, 2);
	find_for(f->db, now, &vb);
	assert_int_equal(vb.best_id, full);
	assert_int_equal(vb.timed, 2);
	assert_int_equal(vb.shared, 2);
	assert_int_equal(vb.nrows, 2);
	assert_int_equal(vb.rows[0].row, 2);
	assert_int_equal(vb.rows[1].row, 3);
	assert_int_equal(vb.change, TC_FASTER);
	vsbest_free(&vb);

	/* the most rows shared wins over a lower sum: a full run shares 4 with a full run, the
	 * two-row runs 2 */
	other = add_plain(f->db, H200, V_PASS, 130, 1.0);
	find_for(f->db, other, &vb);
	assert_int_equal(vb.best_id, full);
	assert_int_equal(vb.shared, 4);
	assert_int_equal(vb.change, TC_SAME);
	vsbest_free(&vb);

	/* left with the low run, whose rows 0 and 1 share nothing with `now`'s rows 2 and 3 */
	exec_sq(db_sqlite(f->db), "DELETE FROM runs WHERE id IN (%lld, %lld)", full, other);
	find_for(f->db, now, &vb);
	assert_int_equal(vb.found, 1);
	assert_int_equal(vb.best_id, low);
	assert_int_equal(vb.shared, 0);
	assert_int_equal(vb.nrows, 0);
	assert_null(vb.rows);
	assert_int_equal(vb.change, TC_UNCLEAR);
	assert_contains(vb.why, "no perf rows in common with run #");
	vsbest_free(&vb);

	/* the same row index with another input size (the task's workload changed) is not shared */
	timed_rows(p, 0, 4, 1.0, 1980, 0);
	p[3].input_size = "{\"n\":99}";
	full = add_run(f->db, H200, V_PASS, 140, p, 4);
	timed_rows(p, 0, 4, 1.0, 1980, 0);
	now = add_run(f->db, H200, V_PASS, 150, p, 4);
	find_for(f->db, now, &vb);
	assert_int_equal(vb.best_id, full);
	assert_int_equal(vb.timed, 4);
	assert_int_equal(vb.shared, 3);
	assert_contains(vb.why, "3 of 4 rows compared");
	vsbest_free(&vb);
}

/* A best run that was throttled explains a gain: UNCLEAR, and the why says so. */
static void test_throttled_best(void **state)
{
	struct db_fixture *f = *state;
	struct db_perf p[4];
	struct vsbest vb;
	long long best, now;

	timed_rows(p, 0, 4, 1.0, 1755, CLOCK_REASON_SW_POWER_CAP);
	best = add_run(f->db, H200, V_PASS, 100, p, 4);
	timed_rows(p, 0, 4, 0.95, 1980, 0);
	now = add_run(f->db, H200, V_PASS, 110, p, 4);
	find_for(f->db, now, &vb);
	assert_int_equal(vb.best_id, best);
	assert_int_equal(vb.change, TC_UNCLEAR);
	assert_contains(vb.why, "4 unclear");
	assert_contains(vb.rows[0].why, "5.0% faster but clocks differ");
	assert_contains(vb.rows[0].why, "the best run was throttled (power cap)");
	vsbest_free(&vb);

	/* far faster than the conditions explain: FASTER stands */
	timed_rows(p, 0, 4, 0.5, 1980, 0);
	now = add_run(f->db, H200, V_PASS, 120, p, 4);
	find_for(f->db, now, &vb);
	assert_int_equal(vb.change, TC_FASTER);
	vsbest_free(&vb);
}

/* Launch latency hidden on one side only: different measurements, UNCLEAR. */
static void test_hide_latency_differs(void **state)
{
	struct db_fixture *f = *state;
	struct db_perf p[1];
	struct vsbest vb;
	long long now;

	p[0] = timed_row(0, 0.01, 1980, 0);
	add_run(f->db, H200, V_PASS, 100, p, 1);
	p[0] = timed_row(0, 0.005, 1980, 0);
	p[0].hide_latency = 1;
	now = add_run(f->db, H200, V_PASS, 110, p, 1);
	find_for(f->db, now, &vb);
	assert_int_equal(vb.change, TC_UNCLEAR);
	assert_contains(vb.why, "launch latency hidden in this run only");
	vsbest_free(&vb);
}

/* A list of runs gets, for each passing run, the verdict vsbest_find gives it alone. */
static void test_for_runs(void **state)
{
	struct db_fixture *f = *state;
	static const double scales[] = { 1.0, 1.2, 0.8, 0.8, 0.9, 0.5, 0.79 };
	struct db_run_row *rows;
	struct vsbest *vb, one;
	int n;

	for (int i = 0; i < 7; i++) {
		add_plain(f->db, H200, i == 3 ? V_WRONG : V_PASS, 100 + i, scales[i]);
		add_plain(f->db, A100, V_PASS, 100.5 + i, scales[6 - i]);
	}
	assert_int_equal(db_runs_list(f->db, NULL, TASK, 0, &rows, &n), KBX_OK);
	assert_int_equal(n, 14);
	vb = xcalloc((size_t)n, sizeof(*vb));
	assert_int_equal(vsbest_for_runs(f->db, rows, n, vb), KBX_OK);
	for (int i = 0; i < n; i++) {
		find_for(f->db, rows[i].id, &one);
		if (rows[i].verdict != V_PASS)
			assert_int_equal(vb[i].found, 0);
		else
			assert_int_equal(vb[i].found, one.found);
		if (vb[i].found) {
			assert_int_equal(vb[i].best_id, one.best_id);
			assert_int_equal(vb[i].change, one.change);
			assert_string_equal(vb[i].why, one.why);
			assert_null(vb[i].rows);
		}
		vsbest_free(&one);
		vsbest_free(&vb[i]);
	}
	/* the first run on each GPU has nothing before it */
	assert_int_equal(vb[n - 1].found, 0);
	free(vb);
	free(rows);
	assert_int_equal(vsbest_for_runs(f->db, NULL, 0, NULL), KBX_OK);
}

/* --- older histories ----------------------------------------------------------------------- */

/*
 * The schema as kbx shipped it at versions 2, 3 and 4, frozen here (never regenerated from
 * db.c), with two timed runs of gelu on an H200 and the second 20% faster.
 */
static const char schema_v2[] =
	OLD_SCHEMA_V1 OLD_SCHEMA_V2_STEP;
static const char schema_v3[] =
	OLD_SCHEMA_V3_STEP;
static const char schema_v4[] =
	OLD_SCHEMA_V4_STEP;
static const char old_runs[] =
	"INSERT INTO runs (task_id, category, gpu, verdict, seed, created_at, uid) VALUES"
	" ('Activation/gelu', 'Activation', 'NVIDIA H200', 'pass', 1, 100, '0123456789abcdef0123456789abcdef'),"
	" ('Activation/gelu', 'Activation', 'NVIDIA H200', 'pass', 2, 200, 'fedcba9876543210fedcba9876543210');"
	"INSERT INTO perf_rows (run_id, \"row\", input_size, cand_ms, cand_p20, cand_p80, cand_min, cand_n) VALUES"
	" (1, 0, '{\"n\":1024}', 1.0, 0.999, 1.001, 0.99, 500), (1, 1, '{\"n\":4096}', 2.0, 1.998, 2.002, 1.98, 500),"
	" (2, 0, '{\"n\":1024}', 0.8, 0.799, 0.801, 0.79, 500), (2, 1, '{\"n\":4096}', 1.6, 1.598, 1.602, 1.58, 500);";

static void make_old_history(const char *path, int version)
{
	sqlite3 *sq;

	assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
	exec_sq(sq, "%s", schema_v2);
	exec_sq(sq, "%s", schema_v3);
	if (version >= 4)
		exec_sq(sq, "%s", schema_v4);
	exec_sq(sq, "%s", old_runs);
	exec_sq(sq, "PRAGMA user_version = %d", version);
	sqlite3_close(sq);
}

/* The rows of an old history read as "no details, no clocks", and still compare on their
 * timings alone. */
static void check_old_runs(struct db *db, long long first, long long second)
{
	struct db_run_detail d;
	struct vsbest vb;

	assert_int_equal(db_run_get(db, second, &d), KBX_OK);
	assert_int_equal(d.nperf, 2);
	for (int i = 0; i < 2; i++) {
		assert_true(d.perf[i].cand_mean < 0 && d.perf[i].cand_stddev < 0 && d.perf[i].cand_max < 0);
		assert_string_equal(d.perf[i].bench_mode, "");
		assert_int_equal(d.perf[i].hide_latency, -1);
		assert_int_equal(d.perf[i].clocks.valid, 0);
	}
	assert_int_equal(vsbest_find(db, &d, &vb), KBX_OK);
	db_run_detail_free(&d);
	assert_int_equal(vb.found, 1);
	assert_int_equal(vb.best_id, first);
	assert_int_equal(vb.change, TC_FASTER);
	assert_contains(vb.rows[0].why, "clocks not recorded");
	vsbest_free(&vb);
}

static void test_migrate_v3_v4(void **state)
{
	struct db_fixture *f = *state;
	char path[400];

	for (int version = 3; version <= 4; version++) {
		struct db *db;
		struct db_merge_stats ms;

		snprintf(path, sizeof(path), "%s/v%d.db", f->dir, version);
		make_old_history(path, version);
		/* merged as it is (through a migrated copy: the file itself is left alone) */
		assert_int_equal(db_merge(f->db, path, &ms), KBX_OK);
		assert_int_equal(ms.runs_merged, version == 3 ? 2 : 0);
		assert_int_equal(ms.runs_present, version == 3 ? 0 : 2);
		{
			sqlite3 *sq;

			assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
			assert_int_equal(q_int(sq, "PRAGMA user_version"), version);
			sqlite3_close(sq);
		}
		/* and opened, which migrates it */
		assert_int_equal(db_open(path, &db), KBX_OK);
		assert_int_equal(db_schema_version(db), DB_SCHEMA_VERSION);
		assert_int_equal(q_int(db_sqlite(db), "SELECT COUNT(*) FROM pragma_table_info('perf_rows')"
				       " WHERE name IN ('cand_stddev', 'cand_mean', 'bench_mode', 'bench_stop', 'cand_rsd',"
				       " 'sm_mhz', 'min_sm_mhz', 'mem_mhz', 'max_sm_mhz', 'temp_c', 'power_w', 'reasons',"
				       " 'reasons_valid', 'clock_readings', 'cand_max', 'hide_latency')"), 16);
		assert_int_equal(q_int(db_sqlite(db), "SELECT COUNT(*) FROM perf_rows WHERE sm_mhz IS NULL"
				       " AND clock_readings IS NULL AND cand_mean IS NULL"), 4);
		check_old_runs(db, 1, 2);
		db_close(db);
	}
	/* the merged copies compare the same way */
	check_old_runs(f->db, 1, 2);
}

/* --- damaged values ------------------------------------------------------------------------ */

/* Values a damaged or hand-edited file may hold in any column. */
static const char *const junk_values[] = {
	"NULL", "'abc'", "X'00ff'", "-1", "0", "1", "2", "3", "-5", "1e308", "9e999", "-9e999", "1755.5",
	"9223372036854775807", "-9223372036854775808", "'noise'", "'cap'", "''", "0.001", "1000000000",
};
#define NJUNK (sizeof(junk_values) / sizeof(junk_values[0]))

static const char *const junk_columns[] = {
	"cand_ms", "cand_p20", "cand_p80", "cand_min", "cand_n", "cand_max", "cand_mean", "cand_stddev",
	"cand_rsd", "bench_mode", "bench_stop", "hide_latency", "sm_mhz", "min_sm_mhz", "mem_mhz", "max_sm_mhz",
	"temp_c", "power_w", "reasons", "reasons_valid", "clock_readings", "input_size", "\"row\"",
};
#define NCOLS (sizeof(junk_columns) / sizeof(junk_columns[0]))

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static void test_garbage_columns(void **state)
{
	struct db_fixture *f = *state;
	sqlite3 *sq = db_sqlite(f->db);
	struct db_run_detail d;
	struct vsbest vb, *list;
	struct db_run_row *rows;
	long long a, b;
	int n;

	a = add_plain(f->db, H200, V_PASS, 100, 1.0);
	b = add_plain(f->db, H200, V_PASS, 110, 0.9);

	/* the kinds of damage one at a time: read as "not known", never as a figure */
	exec_sq(sq, "UPDATE perf_rows SET sm_mhz = 'abc', min_sm_mhz = X'00ff', mem_mhz = 9e999, max_sm_mhz = -1,"
		" clock_readings = -5, reasons = 'x', reasons_valid = 'y', bench_mode = 'nonsense', bench_stop = 42,"
		" hide_latency = 'z', cand_mean = 'q', cand_stddev = X'01', cand_max = -3 WHERE run_id = %lld", b);
	assert_int_equal(db_run_get(f->db, b, &d), KBX_OK);
	for (int i = 0; i < d.nperf; i++) {
		const struct db_perf *p = &d.perf[i];

		assert_int_equal(p->clocks.valid, 0);
		assert_true(p->clocks.sm_mhz == 0 && p->clocks.mem_mhz == 0 && p->clocks.reasons == 0);
		assert_string_equal(p->bench_mode, "");
		assert_string_equal(p->bench_stop, "");
		assert_int_equal(p->hide_latency, -1);
		assert_true(p->cand_mean < 0 && p->cand_stddev < 0 && p->cand_max < 0);
	}
	assert_int_equal(vsbest_find(f->db, &d, &vb), KBX_OK);
	assert_int_equal(vb.change, TC_FASTER);       /* the timings themselves are fine */
	vsbest_free(&vb);
	db_run_detail_free(&d);
	/* readings count as at most two; a valid SM clock makes them count */
	exec_sq(sq, "UPDATE perf_rows SET sm_mhz = 1980, clock_readings = 99 WHERE run_id = %lld", b);
	assert_int_equal(db_run_get(f->db, b, &d), KBX_OK);
	assert_int_equal(d.perf[0].clocks.valid, 2);
	assert_true(d.perf[0].clocks.sm_mhz == 1980 && d.perf[0].clocks.mem_mhz == 0);
	db_run_detail_free(&d);

	/* then everything at random, in both runs: whatever is read, the comparison holds up */
	for (int iter = 0; iter < 400; iter++) {
		long long id = rng() % 2 ? a : b;
		const char *col = junk_columns[rng() % NCOLS];
		const char *val = junk_values[rng() % NJUNK];
		int row = (int)(rng() % 4);
		char *sql;

		if (!strcmp(col, "\"row\"") && !strcmp(val, "NULL"))
			continue;    /* NOT NULL: refused by SQLite, not kbx's concern */
		/* a row index may clash with another row's: the primary key refuses it, fine too */
		sql = sqlite3_mprintf("UPDATE perf_rows SET %s = %s WHERE run_id = %lld AND \"row\" = %d", col, val, id,
				      row);
		sqlite3_exec(sq, sql, NULL, NULL, NULL);
		sqlite3_free(sql);
		assert_int_equal(db_run_get(f->db, b, &d), KBX_OK);
		assert_int_equal(vsbest_find(f->db, &d, &vb), KBX_OK);
		if (vb.found) {
			assert_true(vb.change == TC_SAME || vb.change == TC_FASTER || vb.change == TC_SLOWER ||
				    vb.change == TC_UNCLEAR);
			assert_true(strlen(vb.why) > 0 && strlen(vb.why) < sizeof(vb.why));
			for (int i = 0; i < vb.nrows; i++)
				assert_true(strlen(vb.rows[i].why) > 0);
		}
		vsbest_free(&vb);
		db_run_detail_free(&d);
	}
	assert_int_equal(db_runs_list(f->db, NULL, NULL, 0, &rows, &n), KBX_OK);
	list = xcalloc((size_t)n, sizeof(*list));
	assert_int_equal(vsbest_for_runs(f->db, rows, n, list), KBX_OK);
	for (int i = 0; i < n; i++)
		vsbest_free(&list[i]);
	free(list);
	free(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_recorder_keeps_clocks, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_stored_is_read_back, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_recorder_vs_best, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_no_earlier_run, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_only_passing_same_gpu, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_two_earlier_runs, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_same_instant_and_unrecorded, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_partial_rows, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_throttled_best, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_hide_latency_differs, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_for_runs, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v3_v4, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_garbage_columns, db_fixture_setup, db_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
