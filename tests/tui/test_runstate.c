/* A run as the explorer keeps it: deep copies of every event (the copies themselves are
 * tests/core/test_result.c's), the threaded runner reading a real
 * worker process (a stand-in script speaking the wire format) without blocking, cancelling,
 * a worker that dies, and a run read back from the history. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "db/recorder.h"
#include "tui/runstate.h"

static char dir[] = "/tmp/kbx-test-runstate-XXXXXX";

static void fill_case(struct case_result *c, const char *name, enum verdict v)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->verdict = v;
	c->message = v == V_PASS ? NULL : xstrdup("312 of 4096 elements differ");
	snprintf(c->first_wrong_stage, sizeof(c->first_wrong_stage), "%s", v == V_PASS ? "" : "norm");
	c->noutputs = 1;
	c->outputs = xcalloc(1, sizeof(*c->outputs));
	snprintf(c->outputs[0].arg, sizeof(c->outputs[0].arg), "y");
	c->outputs[0].cmp.n = 4096;
	c->outputs[0].cmp.mismatches = v == V_PASS ? 0 : 312;
	c->outputs[0].cmp.max_abs = 0.31;
	c->outputs[0].cmp.nworst = 1;
	c->outputs[0].cmp.worst[0].ndim = 2;
	c->outputs[0].cmp.worst[0].coord[0] = 17;
	c->outputs[0].cmp.worst[0].coord[1] = 63;
	c->outputs[0].cmp.worst[0].abs_err = 0.31;
	c->outputs[0].cmp.tile_rows = 2;
	c->outputs[0].cmp.tile_cols = 3;
	c->outputs[0].cmp.tiles[5] = 12.5f;
	c->seconds = 0.25;
}

static void fill_summary(struct run_summary *s, enum verdict v)
{
	memset(s, 0, sizeof(*s));
	s->verdict = v;
	s->message = xstrdup(v == V_PASS ? "every case matched" : "an output differs from the reference");
	s->cases_total = 2;
	s->cases_passed = v == V_PASS ? 2 : 1;
	s->speedup_golden = v == V_PASS ? 1.5 : -1;
	s->speedup_ref = -1;
	s->cand_ms_sum = s->ref_ms_sum = s->golden_ms_sum = -1;
	snprintf(s->gpu, sizeof(s->gpu), "NVIDIA H200");
}

/* The wire lines of a small wrong run, written by the real JSON writer. */
static char *wire(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct run_events w = events_json_writer(f);
	struct compile_result c = { 0 };
	struct case_result k1, k2;
	struct perf_result p = { 0 };
	struct run_summary s;

	c.ok = 1;
	c.seconds = 0.5;
	c.log = xstrdup("");
	snprintf(c.arch, sizeof(c.arch), "sm_90");
	fill_case(&k1, "corner", V_PASS);
	fill_case(&k2, "random_outlier", V_WRONG);
	p.row = 3;
	p.input_size = xstrdup("[[4096]]");
	p.cand.median = 0.5;
	p.cand.n = 100;
	p.ref.n = 100;
	p.ref.median = 1.0;
	p.has_ref = 1;
	p.golden_ms = 0.75;
	p.bytes = p.flops = p.gbps = p.tflops = -1;
	p.correct = 1;
	fill_summary(&s, V_WRONG);
	w.phase(w.ctx, "compile", 60);
	w.compile(w.ctx, &c);
	w.phase(w.ctx, "case corner launch 1", 10);
	w.case_done(w.ctx, &k1);
	w.case_done(w.ctx, &k2);
	w.perf_row(w.ctx, &p);
	w.log(w.ctx, "a note from the worker");
	w.done(w.ctx, &s);
	fclose(f);
	compile_result_free(&c);
	case_result_free(&k1);
	case_result_free(&k2);
	perf_result_free(&p);
	run_summary_free(&s);
	return buf;
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int r = system(cmd);

	(void)state;
	free(cmd);
	return r == 0 ? 0 : -1;
}

static void check_record(const struct run_record *r)
{
	assert_true(r->have_compile);
	assert_true(r->compile.ok);
	assert_string_equal(r->compile.arch, "sm_90");
	assert_int_equal(r->ncases, 2);
	assert_string_equal(r->cases[1].name, "random_outlier");
	assert_int_equal(r->cases[1].verdict, V_WRONG);
	assert_string_equal(r->cases[1].message, "312 of 4096 elements differ");
	assert_string_equal(r->cases[1].first_wrong_stage, "norm");
	assert_int_equal(r->cases[1].noutputs, 1);
	assert_int_equal(r->cases[1].outputs[0].cmp.mismatches, 312);
	assert_int_equal(r->cases[1].outputs[0].cmp.worst[0].coord[1], 63);
	assert_true(r->cases[1].outputs[0].cmp.tiles[5] == 12.5f);
	assert_int_equal(r->nperf, 1);
	assert_string_equal(r->perf[0].input_size, "[[4096]]");
	assert_true(r->perf[0].golden_ms == 0.75);
	assert_true(r->have_summary);
	assert_int_equal(r->summary.verdict, V_WRONG);
	assert_int_equal(run_record_verdict(r), V_WRONG);
	assert_int_equal(run_record_first_failure(r), 1);
}

static void test_dispatch(void **state)
{
	char *lines = wire(), *save = NULL, *l;
	struct run_record r;
	struct run_events ev;

	(void)state;
	run_record_init(&r, "Fusion/x", "src", "x.cu");
	ev = run_record_events(&r);
	for (l = strtok_r(lines, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		assert_int_equal(events_json_dispatch(l, &ev), KBX_OK);
	check_record(&r);
	assert_int_equal(r.state, RUN_DONE);
	assert_string_equal(r.phase, "case corner launch 1");
	assert_true(r.phase_limit == 10);
	assert_int_equal(r.nlogs, 1);
	/* a second done changes nothing */
	{
		struct run_summary s;

		fill_summary(&s, V_PASS);
		ev.done(ev.ctx, &s);
		run_summary_free(&s);
		assert_int_equal(r.summary.verdict, V_WRONG);
	}
	run_record_free(&r);
	free(lines);
}

static char *script(const char *name, const char *body)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s", body);
	fclose(f);
	chmod(path, 0700);
	return path;
}

/* Pump until the runner ends; the loop must never block for long (a poll with a timeout, as the
 * explorer's loop does). Returns the seconds it took. */
static double pump_all(struct runner *rn, const struct run_events *ev, double limit)
{
	double t0 = now_seconds();

	for (;;) {
		struct pollfd p = { runner_fd(rn), POLLIN, 0 };
		double before;

		if (p.fd >= 0)
			poll(&p, 1, 100);
		before = now_seconds();
		if (runner_pump(rn, ev))
			break;
		/* reading what is there is quick: it never waits for the worker */
		assert_true(now_seconds() - before < 0.5);
		if (now_seconds() - t0 > limit)
			fail_msg("the run did not end within %.0f s", limit);
	}
	return now_seconds() - t0;
}

static void test_runner(void **state)
{
	char *lines = wire(), *body, *exe, *req_path = xasprintf("%s/req.json", dir);
	struct worker_request req;
	struct run_record r;
	struct run_events ev;
	struct runner *rn;
	const char *msg;
	char *text;
	size_t len;

	(void)state;
	/* the stand-in worker: keeps the request, sends the events slowly, in two bursts */
	body = xasprintf("read req\nprintf '%%s\\n' \"$req\" > '%s'\nsleep 0.3\ncat <<'EOF'\n%sEOF\n", req_path, lines);
	exe = script("worker_ok.sh", body);
	worker_request_default(&req);
	req.task_id = "Fusion/x";
	req.source = "// the source";
	req.source_name = "x.cu";
	rn = runner_start(exe, &req, NULL);
	assert_non_null(rn);
	run_record_init(&r, "Fusion/x", "// the source", "x.cu");
	ev = run_record_events(&r);
	pump_all(rn, &ev, 20);
	assert_int_equal(runner_status(rn, &msg), KBX_OK);
	check_record(&r);
	runner_free(rn);
	assert_int_equal(read_file(req_path, &text, &len), KBX_OK);
	assert_non_null(strstr(text, "\"task\": \"Fusion/x\"") ? text : strstr(text, "\"task\":\"Fusion/x\""));
	assert_non_null(strstr(text, "the source"));
	free(text);
	run_record_free(&r);
	free(body);
	free(exe);
	free(lines);
	free(req_path);
}

static void test_cancel(void **state)
{
	char *exe = script("worker_hang.sh",
			   "read req\necho '{\"ev\":\"phase\",\"what\":\"compile\",\"limit_s\":60}'\nsleep 30\n");
	struct worker_request req;
	struct run_record r;
	struct run_events ev;
	struct runner *rn;
	double t0;

	(void)state;
	worker_request_default(&req);
	req.task_id = "Fusion/x";
	req.source = "x";
	rn = runner_start(exe, &req, NULL);
	assert_non_null(rn);
	run_record_init(&r, "Fusion/x", "x", NULL);
	ev = run_record_events(&r);
	/* let it start, then cancel: the end comes promptly */
	for (int i = 0; i < 10 && !*r.phase; i++) {
		struct pollfd p = { runner_fd(rn), POLLIN, 0 };

		poll(&p, 1, 200);
		runner_pump(rn, &ev);
	}
	assert_string_equal(r.phase, "compile");
	t0 = now_seconds();
	runner_cancel(rn);
	pump_all(rn, &ev, 5);
	assert_true(now_seconds() - t0 < 2.0);
	assert_int_equal(runner_status(rn, NULL), KBX_ECANCEL);
	assert_false(r.have_summary);
	runner_free(rn);
	run_record_free(&r);
	/* freeing a runner that is still running cancels it and waits, without hanging */
	rn = runner_start(exe, &req, NULL);
	assert_non_null(rn);
	t0 = now_seconds();
	runner_free(rn);
	assert_true(now_seconds() - t0 < 2.0);
	free(exe);
}

static void test_worker_dies(void **state)
{
	char *exe = script("worker_dies.sh", "read req\necho 'oops: no GPU for you' >&2\nexit 3\n");
	struct worker_request req;
	struct run_record r;
	struct run_events ev;
	struct runner *rn;

	(void)state;
	worker_request_default(&req);
	req.task_id = "Fusion/x";
	req.source = "x";
	rn = runner_start(exe, &req, NULL);
	run_record_init(&r, "Fusion/x", "x", NULL);
	ev = run_record_events(&r);
	pump_all(rn, &ev, 10);
	assert_int_equal(runner_status(rn, NULL), KBX_OK);
	assert_true(r.have_summary);
	assert_int_equal(r.summary.verdict, V_RUNTIME_ERROR);
	assert_non_null(strstr(r.summary.message, "status 3"));
	assert_non_null(strstr(r.summary.message, "oops"));
	runner_free(rn);
	run_record_free(&r);
	free(exe);
}

static void test_from_history(void **state)
{
	char *path = xasprintf("%s/h.db", dir), *lines = wire(), *save = NULL, *l;
	struct db *db;
	struct recorder *rec;
	struct run_events ev;
	struct db_run_detail d;
	struct run_record r;

	(void)state;
	assert_int_equal(db_open(path, &db), KBX_OK);
	rec = recorder_new(db, "Fusion/x", "Fusion", "// src", "x.cu", 0);
	ev = recorder_events(rec);
	for (l = strtok_r(lines, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		assert_int_equal(events_json_dispatch(l, &ev), KBX_OK);
	assert_int_equal(recorder_status(rec), KBX_OK);
	assert_true(recorder_run_id(rec) > 0);
	assert_int_equal(db_run_get(db, recorder_run_id(rec), &d), KBX_OK);
	assert_int_equal(run_record_from_db(&d, &r), KBX_OK);
	assert_true(r.from_history);
	assert_int_equal(r.db_id, recorder_run_id(rec));
	assert_string_equal(r.source, "// src");
	assert_int_equal(r.ncases, 2);
	assert_int_equal(r.cases[1].verdict, V_WRONG);
	assert_int_equal(r.cases[1].outputs[0].cmp.worst[0].coord[1], 63);
	assert_string_equal(r.cases[1].first_wrong_stage, "norm");
	assert_int_equal(r.nperf, 1);
	assert_true(fabs(r.perf[0].cand.median - 0.5) < 1e-12);
	assert_true(r.have_summary);
	assert_int_equal(r.summary.verdict, V_WRONG);
	run_record_free(&r);
	/* how a row was timed and its clocks (schema 5) come along into the record */
	d.perf[0].clocks = (struct clock_summary){ .sm_mhz = 1755, .min_sm_mhz = 1700, .max_sm_mhz = 1980,
						   .reasons = CLOCK_REASON_SW_POWER_CAP, .reasons_valid = 1, .valid = 2 };
	snprintf(d.perf[0].bench_mode, sizeof(d.perf[0].bench_mode), "noise");
	snprintf(d.perf[0].bench_stop, sizeof(d.perf[0].bench_stop), "cap");
	d.perf[0].cand_stddev = 0.01;
	d.perf[0].hide_latency = 1;
	assert_int_equal(run_record_from_db(&d, &r), KBX_OK);
	assert_true(r.perf[0].clocks.sm_mhz == 1755 && r.perf[0].clocks.valid == 2);
	assert_true(r.perf[0].clocks.reasons == CLOCK_REASON_SW_POWER_CAP);
	assert_string_equal(r.perf[0].bench_mode, "noise");
	assert_string_equal(r.perf[0].bench_stop, "cap");
	assert_true(r.perf[0].cand.stddev == 0.01);
	assert_int_equal(r.perf[0].hide_latency, 1);
	assert_int_equal(r.vs_best.found, 0);
	run_record_free(&r);
	/* a damaged detail column: the rest is still there, and the message says which */
	free(d.case_json[0]);
	d.case_json[0] = xstrdup("{not json");
	assert_int_equal(run_record_from_db(&d, &r), KBX_EPARSE);
	assert_non_null(strstr(kbx_last_error(), "case 'corner'"));
	assert_int_equal(r.ncases, 2);
	assert_string_equal(r.cases[0].name, "corner");
	assert_int_equal(r.cases[0].verdict, V_PASS);
	run_record_free(&r);
	db_run_detail_free(&d);
	recorder_free(rec);
	db_close(db);
	free(lines);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dispatch),
		cmocka_unit_test(test_runner),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_worker_dies),
		cmocka_unit_test(test_from_history),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
