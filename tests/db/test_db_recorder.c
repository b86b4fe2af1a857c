/*
 * test_db_recorder.c - the recorder (db/recorder.c): a run's events into the history, and the one
 * mapping between perf events and history rows (db_perf_from_result, db_perf_to_result).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/events.h"
#include "core/util.h"
#include "db/db.h"
#include "db/recorder.h"
#include "fixture.h"

static void fill_case(struct case_result *c, struct output_result *outs, const char *name, int index,
		      enum verdict v, int nout)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->index = index;
	c->verdict = v;
	c->outputs = outs;
	c->noutputs = nout;
	c->seconds = 0.01;
}

static void test_recorder(void **state)
{
	struct db_fixture *f = *state;
	static const char src[] = "// @kbx launch k<<<1, 1>>>(x, y, n)\nextern \"C\" __global__ void k() {}\n";
	struct output_result outs[2];
	struct case_result cases[3];
	struct perf_result perf[2];
	struct compile_result comp;
	struct run_summary sum;
	struct recorder *rec;
	struct run_events ev;
	struct db_run_detail d;
	char hash[65], buf[256];
	char *json;
	long long id;

	memset(outs, 0, sizeof(outs));
	snprintf(outs[0].arg, sizeof(outs[0].arg), "y");
	outs[0].cmp.max_abs = 0.5;
	outs[0].cmp.max_rel = 4.0;
	outs[0].cmp.max_ulp = 10;
	outs[0].cmp.mismatches = 3;
	snprintf(outs[1].arg, sizeof(outs[1].arg), "z");
	outs[1].cmp.max_abs = 0.25;
	outs[1].cmp.max_rel = NAN;   /* last, so that a NaN cannot hide behind a later value */
	outs[1].cmp.max_ulp = 100;
	outs[1].cmp.mismatches = 4;
	fill_case(&cases[0], outs, "corner", 0, V_WRONG, 2);
	fill_case(&cases[1], NULL, "crash", 1, V_RUNTIME_ERROR, 0);
	cases[1].message = "illegal address";
	fill_case(&cases[2], outs + 1, "perf[0]", -1, V_PASS, 1);

	memset(perf, 0, sizeof(perf));
	perf[0].row = 0;
	perf[0].input_size = "{\"n\":4096}";
	perf[0].cand = (struct sample_stats){ .median = 0.2, .p20 = 0.19, .p80 = 0.25, .min = 0.18, .n = 50 };
	perf[0].ref = (struct sample_stats){ .median = 0.4, .n = 40 };
	perf[0].has_ref = 1;
	perf[0].golden_ms = 0.3;
	perf[0].bytes = 32768;
	perf[0].flops = -1;
	perf[0].gbps = 0.16;
	perf[0].tflops = 0;
	perf[0].correct = 1;
	perf[1].row = 1;
	perf[1].cand = (struct sample_stats){ .median = 0.3, .p20 = 0.29, .p80 = 0.31, .min = 0.28, .n = 20 };
	perf[1].has_ref = 0;
	perf[1].golden_ms = -1;
	perf[1].bytes = 100;
	perf[1].flops = 50;
	perf[1].gbps = 1.5;
	perf[1].tflops = 2.5;

	memset(&comp, 0, sizeof(comp));
	comp.ok = 1;
	comp.options = "-arch=sm_90 -std=c++17";
	comp.log = "";
	snprintf(comp.arch, sizeof(comp.arch), "sm_90");

	memset(&sum, 0, sizeof(sum));
	sum.verdict = V_WRONG;
	sum.warnings = WARN(W_NONDETERMINISTIC) | WARN(W_NO_GOLDEN);
	sum.message = "case 'corner': 7 elements differ";
	sum.cases_total = 2;
	sum.speedup_golden = -1;
	sum.speedup_ref = 0.4 / 0.5;
	sum.cand_ms_sum = 0.5;
	sum.ref_ms_sum = 0.4;
	sum.golden_ms_sum = -1;
	snprintf(sum.gpu, sizeof(sum.gpu), "NVIDIA H200");
	sum.driver_version = 12080;

	rec = recorder_new(f->db, "Activation/gelu", "Activation", src, "cand.cu", 42);
	recorder_set_context(rec, 5, "first");
	recorder_set_context(rec, 1, "eval-2026");   /* the last call wins */
	ev = recorder_events(rec);
	assert_ptr_equal(ev.ctx, rec);
	ev.phase(ev.ctx, "compile", 30);
	ev.compile(ev.ctx, &comp);
	ev.log(ev.ctx, "hello");
	for (int i = 0; i < 3; i++)
		ev.case_done(ev.ctx, &cases[i]);
	for (int i = 0; i < 2; i++)
		ev.perf_row(ev.ctx, &perf[i]);
	assert_int_equal(recorder_run_id(rec), 0);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM runs"), 0);
	ev.done(ev.ctx, &sum);
	assert_int_equal(recorder_status(rec), KBX_OK);
	assert_string_equal(recorder_error(rec), "");
	id = recorder_run_id(rec);
	assert_true(id > 0);
	/* a second done() writes nothing */
	ev.done(ev.ctx, &sum);
	assert_int_equal(recorder_run_id(rec), id);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM runs"), 1);
	recorder_free(rec);

	assert_int_equal(db_run_get(f->db, id, &d), KBX_OK);
	assert_string_equal(d.row.task_id, "Activation/gelu");
	assert_string_equal(d.row.category, "Activation");
	assert_string_equal(d.row.gpu, "NVIDIA H200");
	assert_int_equal(d.row.verdict, V_WRONG);
	assert_string_equal(d.row.warnings, "nondeterministic,no-golden");
	assert_true(d.row.speedup_golden < 0);
	assert_true(fabs(d.row.speedup_ref - 0.8) < 1e-15);
	assert_true(d.row.cand_ms == 0.5);
	sha256_hex(src, strlen(src), hash);
	assert_string_equal(d.row.source_hash, hash);
	assert_string_equal(d.source, src);
	assert_string_equal(d.message, sum.message);
	json = run_summary_to_json(&sum);
	assert_string_equal(d.summary_json, json);
	free(json);
	assert_int_equal(d.ncases, 3);
	for (int i = 0; i < 3; i++) {
		assert_string_equal(d.case_names[i], cases[i].name);
		assert_int_equal(d.case_verdicts[i], cases[i].verdict);
		json = case_result_to_json(&cases[i]);
		assert_string_equal(d.case_json[i], json);
		free(json);
	}
	assert_int_equal(d.nperf, 2);
	assert_string_equal(d.perf[0].input_size, "{\"n\":4096}");
	assert_true(d.perf[0].cand_ms == 0.2);
	assert_true(d.perf[0].cand_p20 == 0.19);
	assert_true(d.perf[0].cand_p80 == 0.25);
	assert_true(d.perf[0].cand_min == 0.18);
	assert_int_equal(d.perf[0].cand_n, 50);
	assert_true(d.perf[0].ref_ms == 0.4);
	assert_true(d.perf[0].golden_ms == 0.3);
	assert_true(d.perf[0].gbps == 0.16);
	assert_true(d.perf[0].tflops < 0);          /* no flops formula */
	assert_null(d.perf[1].input_size);
	assert_true(d.perf[1].ref_ms < 0);
	assert_true(d.perf[1].golden_ms < 0);
	assert_true(d.perf[1].tflops == 2.5);
	db_run_detail_free(&d);

	assert_string_equal(q_text(f->db, buf, sizeof(buf), "SELECT compile_options FROM runs"), comp.options);
	assert_string_equal(q_text(f->db, buf, sizeof(buf), "SELECT source_path FROM runs"), "cand.cu");
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT device FROM runs"), 1);
	assert_string_equal(q_text(f->db, buf, sizeof(buf), "SELECT eval FROM runs"), "eval-2026");
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT seed FROM runs"), 42);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT driver_version FROM runs"), 12080);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT ref_ms = 0.4 FROM runs"), 1);
	/* per-case figures: the worst over the outputs, NaN ignored; none for a crash */
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT max_abs = 0.5 AND max_rel = 4.0 AND max_ulp = 100 AND mismatches = 7"
			       " FROM case_results WHERE idx = 0"), 1);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT max_abs IS NULL AND mismatches IS NULL FROM case_results WHERE idx = 1"), 1);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT max_rel IS NULL AND max_abs = 0.25 FROM case_results WHERE idx = 2"), 1);

	/* a run that ends before any perf row and without a source */
	rec = recorder_new(f->db, "Math/add", "Math", NULL, NULL, 7);
	ev = recorder_events(rec);
	sum.verdict = V_COMPILE_ERROR;
	sum.cand_ms_sum = sum.ref_ms_sum = 0;
	sum.speedup_ref = -1;
	sum.gpu[0] = '\0';
	ev.done(ev.ctx, &sum);
	assert_int_equal(recorder_status(rec), KBX_OK);
	id = recorder_run_id(rec);
	assert_true(id > 0);
	recorder_free(rec);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT cand_ms IS NULL AND ref_ms IS NULL AND source_hash IS NULL"
			       " AND gpu IS NULL AND compile_options IS NULL FROM runs WHERE id = %lld", id), 1);
	/* no context: neither device nor evaluation */
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT device IS NULL AND eval IS NULL FROM runs WHERE id = %lld", id), 1);

	/* a failing write is reported, not lost */
	rec = recorder_new(f->db, "Math/add", NULL, src, NULL, 7);
	ev = recorder_events(rec);
	ev.case_done(ev.ctx, &cases[0]);
	ev.done(ev.ctx, &sum);
	assert_int_not_equal(recorder_status(rec), KBX_OK);
	assert_int_equal(recorder_run_id(rec), 0);
	assert_true(strlen(recorder_error(rec)) > 0);
	recorder_free(rec);

	/* no done(): nothing written */
	rec = recorder_new(f->db, "Math/sub", "Math", src, NULL, 7);
	ev = recorder_events(rec);
	ev.compile(ev.ctx, &comp);
	ev.case_done(ev.ctx, &cases[0]);
	recorder_free(rec);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM runs"), 2);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM case_results"), 3);
}

/* A perf event and a history row map onto each other (the recorder writes one, the explorer
 * shows a past run from the other): what the history keeps comes back, and an untimed row
 * reads as untimed. */
static void test_perf_mapping(void **state)
{
	struct perf_result p, back;
	struct db_perf dp;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.row = 4;
	p.input_size = (char *)"[[1024]]";
	p.cand = (struct sample_stats){ 0.5, 0.49, 0.51, 0.48, 0.6, 0.505, 0.01, 200 };
	p.ref = (struct sample_stats){ 0.7, 0.69, 0.71, 0.68, 0.8, 0.7, 0.01, 150 };
	p.has_ref = 1;
	p.golden_ms = 0.65;
	p.bytes = 8192;
	p.flops = -1;
	p.gbps = 16.4;
	p.tflops = 3;
	p.cand_rsd = 0.02;
	snprintf(p.bench_mode, sizeof(p.bench_mode), "noise");
	snprintf(p.bench_stop, sizeof(p.bench_stop), "cap");
	p.clocks.valid = 2;
	p.clocks.sm_mhz = 1980;
	db_perf_from_result(&p, &dp);
	assert_string_equal(dp.input_size, "[[1024]]");
	assert_true(dp.cand_ms == 0.5 && dp.cand_n == 200 && dp.ref_ms == 0.7 && dp.golden_ms == 0.65);
	assert_true(dp.gbps == 16.4 && dp.tflops == -1);   /* no FLOP formula: no TFLOP/s */
	assert_string_equal(dp.bench_mode, "noise");
	db_perf_to_result(&dp, &back);
	assert_int_equal(back.row, 4);
	assert_string_equal(back.input_size, "[[1024]]");
	assert_true(back.cand.median == 0.5 && back.cand.p20 == 0.49 && back.cand.max == 0.6 && back.cand.n == 200);
	assert_true(back.ref.median == 0.7 && back.has_ref);
	assert_true(back.cand_rsd == 0.02 && back.clocks.sm_mhz == 1980 && back.clocks.valid == 2);
	assert_string_equal(back.bench_stop, "cap");
	assert_true(back.bytes < 0 && back.flops < 0 && back.correct);
	perf_result_free(&back);
	free((char *)dp.input_size);

	p.cand.n = 0;      /* never timed (wrong at this size) */
	p.has_ref = 0;
	db_perf_from_result(&p, &dp);
	assert_true(dp.cand_ms < 0 && dp.cand_n == 0 && dp.ref_ms < 0 && dp.gbps < 0);
	assert_string_equal(dp.bench_mode, "");
	db_perf_to_result(&dp, &back);
	assert_false(back.has_ref);
	perf_result_free(&back);
	free((char *)dp.input_size);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_recorder, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test(test_perf_mapping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
