/*
 * The parent side of the worker protocol, with this test binary standing in for `kbx worker`
 * (worker_run executes `EXE worker`): time limits, crashes, exits without a verdict, garbage on
 * the pipe, cancellation, and the request's round trip. No GPU involved.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gpucompare.h"
#include "core/util.h"
#include "core/worker.h"

static char self[4096];

/* --------------------------------------------------------------- the fake ---- */

static int fake_worker(int kept)
{
	const char *mode = getenv("FAKE_MODE");
	struct run_events ev = events_json_writer(stdout);
	struct worker_request req;
	struct run_summary s;
	char *line = NULL;
	size_t cap = 0;

	if (!strcmp(mode, "serve")) {
		/* a kept worker: request after request until stdin ends, each answered with this
		 * process's id and how many it has served */
		int runs = 0;

		while (getline(&line, &cap, stdin) >= 0) {
			if (worker_request_from_json(line, &req))
				return 2;
			memset(&s, 0, sizeof(s));
			s.speedup_golden = s.speedup_ref = -1;
			s.verdict = V_PASS;
			s.message = xasprintf("pid %d run %d kept %d", (int)getpid(), ++runs, kept);
			ev.done(ev.ctx, &s);
			free(s.message);
			worker_request_free(&req);
		}
		free(line);
		return 0;
	}
	if (getline(&line, &cap, stdin) < 0 || worker_request_from_json(line, &req))
		return 2;
	free(line);
	memset(&s, 0, sizeof(s));
	s.speedup_golden = s.speedup_ref = -1;
	ev.phase(ev.ctx, "step one", 1);
	if (!strcmp(mode, "hang")) {
		sleep(60);
	} else if (!strcmp(mode, "crash")) {
		fprintf(stderr, "about to fault\n");
		fflush(stderr);
		signal(SIGSEGV, SIG_DFL); /* not a sanitizer's handler: die of the signal itself */
		raise(SIGSEGV);
	} else if (!strcmp(mode, "exit3")) {
		exit(3);
	} else if (!strcmp(mode, "garbage")) {
		printf("this is not json\n{\"ev\":\"nonsense\"}\n");
		fflush(stdout);
	} else if (!strcmp(mode, "ownhang")) {  /* kbx's own check hangs, not the candidate */
		ev.phase(ev.ctx, RUN_PHASE_OWN "perf row 8: checking the results", 1);
		sleep(60);
	} else if (!strcmp(mode, "nolimit")) {
		ev.phase(ev.ctx, "unlimited", 0);
		sleep(2);
	}
	s.verdict = V_PASS;
	s.message = xasprintf("task %s seed %llu rep %.1f", req.task_id, req.seed, req.bench.rep_ms);
	ev.done(ev.ctx, &s);
	free(s.message);
	worker_request_free(&req);
	return 0;
}

/* ------------------------------------------------------------- the parent ---- */

struct seen {
	int done, logs, phases;
	enum verdict v;
	char msg[4096];
	char last_phase[256];
};

static void on_phase(void *ctx, const char *what, double limit)
{
	struct seen *w = ctx;

	(void)limit;
	w->phases++;
	snprintf(w->last_phase, sizeof(w->last_phase), "%s", what);
}

static void on_log(void *ctx, const char *text)
{
	(void)text;
	((struct seen *)ctx)->logs++;
}

static void on_done(void *ctx, const struct run_summary *s)
{
	struct seen *w = ctx;

	w->done++;
	w->v = s->verdict;
	snprintf(w->msg, sizeof(w->msg), "%s", s->message ? s->message : "");
}

static enum kbx_status run_mode(const char *mode, struct seen *w, worker_cancel_fn cancel, double *took)
{
	struct run_events ev = { w, on_phase, NULL, NULL, NULL, on_log, on_done };
	struct worker_request req;
	enum kbx_status st;
	double t0 = now_seconds();

	memset(w, 0, sizeof(*w));
	setenv("FAKE_MODE", mode, 1);
	worker_request_default(&req);
	req.task_id = "Activation/gelu";
	req.source = "// source with \"quotes\"\n";
	req.seed = 42;
	req.bench.rep_ms = 7;
	req.compile_limit_s = 5;
	st = worker_run(self, &req, &ev, cancel, NULL);
	*took = now_seconds() - t0;
	return st;
}

static void test_pass_and_request_round_trip(void **state)
{
	struct seen w;
	double took;

	(void)state;
	assert_int_equal(run_mode("pass", &w, NULL, &took), KBX_OK);
	assert_int_equal(w.done, 1);
	assert_int_equal(w.v, V_PASS);
	assert_string_equal(w.msg, "task Activation/gelu seed 42 rep 7.0");
	assert_int_equal(w.phases, 1);
}

static void test_hang_times_out(void **state)
{
	struct seen w;
	double took;

	(void)state;
	assert_int_equal(run_mode("hang", &w, NULL, &took), KBX_OK);
	assert_int_equal(w.done, 1);
	assert_int_equal(w.v, V_TIMEOUT);
	assert_non_null(strstr(w.msg, "'step one' ran past its 1 s limit"));
	assert_true(took >= 0.9 && took < 5);
}

static void test_own_phase_is_kbx_error(void **state)
{
	struct seen w;
	double took;

	(void)state;
	assert_int_equal(run_mode("ownhang", &w, NULL, &took), KBX_OK);
	assert_int_equal(w.done, 1);
	assert_int_equal(w.v, V_ERROR);   /* not V_TIMEOUT: the candidate is not charged */
	assert_non_null(strstr(w.msg, "kbx's own 'perf row 8: checking the results' ran past its 1 s limit (not "
				     "the candidate's time)"));
	assert_string_equal(w.last_phase, "perf row 8: checking the results");  /* shown without the prefix */
	assert_true(took >= 0.9 && took < 5);
}

static void test_crash_is_runtime_error(void **state)
{
	struct seen w;
	double took;

	(void)state;
	assert_int_equal(run_mode("crash", &w, NULL, &took), KBX_OK);
	assert_int_equal(w.v, V_RUNTIME_ERROR);
	assert_non_null(strstr(w.msg, "signal 11"));
	assert_non_null(strstr(w.msg, "during 'step one'"));
	assert_non_null(strstr(w.msg, "about to fault"));
}

static void test_exit_without_verdict(void **state)
{
	struct seen w;
	double took;

	(void)state;
	assert_int_equal(run_mode("exit3", &w, NULL, &took), KBX_OK);
	assert_int_equal(w.v, V_RUNTIME_ERROR);
	assert_non_null(strstr(w.msg, "exited with status 3"));
}

static void test_garbage_lines_are_logged(void **state)
{
	struct seen w;
	double took;

	(void)state;
	assert_int_equal(run_mode("garbage", &w, NULL, &took), KBX_OK);
	assert_int_equal(w.v, V_PASS);
	assert_int_equal(w.logs, 2);
}

static void test_phase_without_limit(void **state)
{
	struct seen w;
	double took;

	(void)state;
	assert_int_equal(run_mode("nolimit", &w, NULL, &took), KBX_OK);
	assert_int_equal(w.v, V_PASS);
	assert_true(took >= 1.9);
}

static int cancel_soon(void *ctx)
{
	static double t0;

	(void)ctx;
	if (!t0)
		t0 = now_seconds();
	return now_seconds() - t0 > 0.3;
}

static void test_cancel(void **state)
{
	struct seen w;
	double took;

	(void)state;
	assert_int_equal(run_mode("hang", &w, cancel_soon, &took), KBX_ECANCEL);
	assert_int_equal(w.done, 0);
	assert_true(took < 0.9);
}

static void test_request_json_garbage(void **state)
{
	static const char *bad[] = { "", "{", "[]", "{\"task\": 3}", "{\"source\": \"x\"}", "null", "\"str\"" };
	struct worker_request r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(worker_request_from_json(bad[i], &r), KBX_EPARSE);
		assert_non_null(strstr(kbx_last_error(), "worker request"));
	}
}

/* --compare gpu travels to the worker; absent means host, as in requests from before it. */
static void test_request_compare(void **state)
{
	static const char *bad[] = { "{\"task\":\"a/b\",\"source\":\"\",\"compare\":\"cpu\"}",
				     "{\"task\":\"a/b\",\"source\":\"\",\"compare\":1}" };
	struct worker_request r, back, copy;
	char *text;
	size_t i;

	(void)state;
	worker_request_default(&r);
	assert_int_equal(r.compare_gpu, 0);
	r.task_id = "Activation/gelu";
	r.source = "x";
	text = worker_request_to_json(&r);
	assert_null(strstr(text, "\"compare\""));
	assert_int_equal(worker_request_from_json(text, &back), KBX_OK);
	assert_int_equal(back.compare_gpu, 0);
	worker_request_free(&back);
	free(text);
	r.compare_gpu = 1;
	text = worker_request_to_json(&r);
	assert_non_null(strstr(text, "\"compare\":\"gpu\""));
	assert_int_equal(worker_request_from_json(text, &back), KBX_OK);
	assert_int_equal(back.compare_gpu, 1);
	assert_string_equal(back.task_id, "Activation/gelu");
	worker_request_copy(&copy, &back);
	worker_request_free(&back);
	assert_int_equal(copy.compare_gpu, 1);
	worker_request_free(&copy);
	free(text);
	assert_int_equal(worker_request_from_json("{\"task\":\"a/b\",\"source\":\"\",\"compare\":\"host\"}", &back),
			 KBX_OK);
	assert_int_equal(back.compare_gpu, 0);
	worker_request_free(&back);
	/* both (the GPU's reports held to the host's) travels too */
	r.compare_gpu = COMPARE_BOTH;
	text = worker_request_to_json(&r);
	assert_non_null(strstr(text, "\"compare\":\"both\""));
	assert_int_equal(worker_request_from_json(text, &back), KBX_OK);
	assert_int_equal(back.compare_gpu, COMPARE_BOTH);
	worker_request_free(&back);
	free(text);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(worker_request_from_json(bad[i], &back), KBX_EPARSE);
		assert_non_null(strstr(kbx_last_error(), "\"compare\""));
	}
}

/* --retime-reference and --allow-pytorch travel to the worker; absent means kept timings may
 * stand in and PyTorch-computed outputs fail. */
static void test_request_retime(void **state)
{
	struct worker_request r, back, copy;
	char *text;

	(void)state;
	worker_request_default(&r);
	r.task_id = "Activation/gelu";
	r.source = "x";
	text = worker_request_to_json(&r);
	assert_null(strstr(text, "retime_reference"));
	assert_null(strstr(text, "allow_pytorch"));
	assert_int_equal(worker_request_from_json(text, &back), KBX_OK);
	assert_int_equal(back.retime_reference, 0);
	assert_int_equal(back.allow_pytorch, 0);
	worker_request_free(&back);
	free(text);
	r.retime_reference = 1;
	r.allow_pytorch = 1;
	text = worker_request_to_json(&r);
	assert_non_null(strstr(text, "\"retime_reference\":true"));
	assert_non_null(strstr(text, "\"allow_pytorch\":true"));
	assert_int_equal(worker_request_from_json(text, &back), KBX_OK);
	assert_int_equal(back.retime_reference, 1);
	assert_int_equal(back.allow_pytorch, 1);
	worker_request_copy(&copy, &back);
	assert_int_equal(copy.retime_reference, 1);
	worker_request_free(&back);
	worker_request_free(&copy);
	free(text);
}

/* Two CUDA requests through a worker_keep: one process serves both with worker_keep_cuda, a
 * process each without (the default). */
static void two_runs(struct worker_keep *k, int *pid1, int *run1, int *pid2, int *run2, int *kept)
{
	struct seen w;
	struct run_events ev = { &w, on_phase, NULL, NULL, NULL, on_log, on_done };
	struct worker_request req;

	setenv("FAKE_MODE", "serve", 1);
	worker_request_default(&req);
	req.task_id = "Activation/gelu";
	req.source = "// CUDA source\n";
	memset(&w, 0, sizeof(w));
	assert_int_equal(worker_run_kept(k, self, &req, &ev, NULL, NULL), KBX_OK);
	assert_int_equal(w.done, 1);
	assert_int_equal(sscanf(w.msg, "pid %d run %d kept %d", pid1, run1, kept), 3);
	memset(&w, 0, sizeof(w));
	assert_int_equal(worker_run_kept(k, self, &req, &ev, NULL, NULL), KBX_OK);
	assert_int_equal(w.done, 1);
	assert_int_equal(sscanf(w.msg, "pid %d run %d kept %d", pid2, run2, kept), 3);
}

static void test_keep_cuda(void **state)
{
	struct worker_keep *k = worker_keep_new();
	int p1, r1, p2, r2, kept;

	(void)state;
	two_runs(k, &p1, &r1, &p2, &r2, &kept);
	assert_int_not_equal(p1, p2);   /* by default each CUDA run has a fresh worker */
	assert_int_equal(r1, 1);
	assert_int_equal(r2, 1);
	assert_int_equal(kept, 0);      /* started without --kept: its context goes with its run */
	worker_keep_free(k);
	k = worker_keep_new();
	worker_keep_cuda(k, 1);
	two_runs(k, &p1, &r1, &p2, &r2, &kept);
	assert_int_equal(p1, p2);       /* kept: the same process serves the second */
	assert_int_equal(r1, 1);
	assert_int_equal(r2, 2);
	assert_int_equal(kept, 1);      /* and knows it (kbx worker --kept holds the context) */
	worker_keep_free(k);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_retime),
		cmocka_unit_test(test_pass_and_request_round_trip),
		cmocka_unit_test(test_hang_times_out),
		cmocka_unit_test(test_crash_is_runtime_error),
		cmocka_unit_test(test_exit_without_verdict),
		cmocka_unit_test(test_garbage_lines_are_logged),
		cmocka_unit_test(test_phase_without_limit),
		cmocka_unit_test(test_own_phase_is_kbx_error),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_request_json_garbage),
		cmocka_unit_test(test_request_compare),
		cmocka_unit_test(test_keep_cuda),
	};
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "worker"))
		return fake_worker(argc > 2 && !strcmp(argv[2], "--kept"));
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	return cmocka_run_group_tests(tests, NULL, NULL);
}
