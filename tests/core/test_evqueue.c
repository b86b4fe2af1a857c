/*
 * Tests for core/evqueue.c: a run's events decoded once and handed over as typed structs, in
 * order, to another thread -- from JSON lines, from worker_run reading a stand-in worker, and
 * from a producer thread racing the consumer -- with the ownership its header gives (run under
 * the ASan build: --enable-debug).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/evqueue.h"
#include "core/util.h"
#include "core/worker.h"

static char dir[] = "/tmp/kbx-test-evqueue-XXXXXX";

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

/* A small run's wire lines, written by the real JSON writer: phase, compile, two cases, a perf
 * row, a log line, done. */
static char *wire(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct run_events w = events_json_writer(f);
	struct compile_result c = { 0 };
	struct case_result k = { 0 };
	struct perf_result p = { 0 };
	struct run_summary s = { 0 };

	c.ok = 1;
	c.log = xstrdup("compiled");
	snprintf(c.arch, sizeof(c.arch), "sm_90");
	k.verdict = V_WRONG;
	k.message = xstrdup("312 of 4096 elements differ");
	k.noutputs = 1;
	k.outputs = xcalloc(1, sizeof(*k.outputs));
	snprintf(k.outputs[0].arg, sizeof(k.outputs[0].arg), "y");
	k.outputs[0].cmp.n = 4096;
	k.outputs[0].cmp.mismatches = 312;
	p.row = 3;
	p.input_size = xstrdup("[[4096]]");
	p.cand.median = 0.5;
	p.cand.n = 100;
	p.golden_ms = p.bytes = p.flops = -1;
	p.correct = 1;
	s.verdict = V_WRONG;
	s.message = xstrdup("an output differs");
	s.speedup_golden = s.speedup_ref = -1;
	snprintf(s.gpu, sizeof(s.gpu), "NVIDIA H200");
	w.phase(w.ctx, "compile", 60);
	w.compile(w.ctx, &c);
	snprintf(k.name, sizeof(k.name), "corner");
	w.case_done(w.ctx, &k);
	snprintf(k.name, sizeof(k.name), "random_outlier");
	k.index = 1;
	w.case_done(w.ctx, &k);
	w.perf_row(w.ctx, &p);
	w.log(w.ctx, "a note from the worker");
	w.done(w.ctx, &s);
	fclose(f);
	compile_result_free(&c);
	case_result_free(&k);
	perf_result_free(&p);
	run_summary_free(&s);
	return buf;
}

static const enum run_event_kind wire_kinds[] = { RUN_EVENT_PHASE, RUN_EVENT_COMPILE, RUN_EVENT_CASE, RUN_EVENT_CASE,
						  RUN_EVENT_PERF, RUN_EVENT_LOG, RUN_EVENT_DONE };
#define NWIRE ((int)(sizeof(wire_kinds) / sizeof(wire_kinds[0])))

/* What wire() sent, event by event. */
static void check_wire_event(const struct run_event *e, int i)
{
	assert_int_equal(e->kind, wire_kinds[i]);
	switch (i) {
	case 0:
		assert_string_equal(e->text, "compile");
		assert_true(e->limit_s == 60);
		break;
	case 1:
		assert_true(e->compile.ok);
		assert_string_equal(e->compile.log, "compiled");
		assert_string_equal(e->compile.arch, "sm_90");
		break;
	case 2:
	case 3:
		assert_string_equal(e->kase.name, i == 2 ? "corner" : "random_outlier");
		assert_int_equal(e->kase.index, i - 2);
		assert_int_equal(e->kase.verdict, V_WRONG);
		assert_string_equal(e->kase.message, "312 of 4096 elements differ");
		assert_int_equal(e->kase.noutputs, 1);
		assert_int_equal(e->kase.outputs[0].cmp.mismatches, 312);
		break;
	case 4:
		assert_int_equal(e->perf.row, 3);
		assert_string_equal(e->perf.input_size, "[[4096]]");
		assert_true(e->perf.cand.median == 0.5);
		break;
	case 5:
		assert_string_equal(e->text, "a note from the worker");
		break;
	case 6:
		assert_int_equal(e->summary.verdict, V_WRONG);
		assert_string_equal(e->summary.message, "an output differs");
		assert_string_equal(e->summary.gpu, "NVIDIA H200");
		break;
	}
}

/* JSON lines decoded once (events_json_dispatch) into the queue; the consumer takes typed
 * events, in order, and owns each one it pops. */
static void test_lines_to_typed_events(void **state)
{
	struct evqueue *q = evqueue_new();
	struct run_events ev;
	char *lines = wire(), *l, *save = NULL;
	struct run_event *e;
	int n = 0;

	(void)state;
	assert_non_null(q);
	ev = evqueue_events(q);
	assert_int_equal(evqueue_fd(q) >= 0, 1);
	for (l = strtok_r(lines, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		assert_int_equal(events_json_dispatch(l, &ev), KBX_OK);
	/* the decoder's structs are gone: the events hold copies of their own */
	free(lines);
	{
		struct pollfd p = { evqueue_fd(q), POLLIN, 0 };

		assert_int_equal(poll(&p, 1, 0), 1);
	}
	while ((e = evqueue_pop(q)) != NULL) {
		assert_true(n < NWIRE);
		assert_null(e->next);
		check_wire_event(e, n++);
		run_event_free(e);
	}
	assert_int_equal(n, NWIRE);
	assert_false(evqueue_closed(q));
	assert_int_equal(evqueue_pump(q, NULL), 0);
	{
		struct pollfd p = { evqueue_fd(q), POLLIN, 0 };

		/* nothing waiting: the wake-up was read with the events */
		assert_int_equal(poll(&p, 1, 0), 0);
	}
	evqueue_close(q);
	assert_true(evqueue_closed(q));
	assert_int_equal(evqueue_pump(q, NULL), 1);
	assert_int_equal(evqueue_fd(q), -1);
	evqueue_free(q);
}

/* ---- a consumer that checks what it is lent ---------------------------------------------------- */

struct seen {
	enum run_event_kind kinds[64];
	int n;
	char last_log[64];
};

static void note(struct seen *s, enum run_event_kind k)
{
	if (s->n < 64)
		s->kinds[s->n] = k;
	s->n++;
}

static void s_phase(void *ctx, const char *what, double limit_s)
{
	(void)what;
	(void)limit_s;
	note(ctx, RUN_EVENT_PHASE);
}

static void s_compile(void *ctx, const struct compile_result *c)
{
	assert_string_equal(c->arch, "sm_90");
	note(ctx, RUN_EVENT_COMPILE);
}

static void s_case(void *ctx, const struct case_result *c)
{
	assert_int_equal(c->outputs[0].cmp.n, 4096);
	note(ctx, RUN_EVENT_CASE);
}

static void s_perf(void *ctx, const struct perf_result *p)
{
	assert_string_equal(p->input_size, "[[4096]]");
	note(ctx, RUN_EVENT_PERF);
}

static void s_log(void *ctx, const char *text)
{
	struct seen *s = ctx;

	snprintf(s->last_log, sizeof(s->last_log), "%s", text);
	note(ctx, RUN_EVENT_LOG);
}

static void s_done(void *ctx, const struct run_summary *sum)
{
	assert_non_null(sum->message);
	note(ctx, RUN_EVENT_DONE);
}

static struct run_events seen_events(struct seen *s)
{
	return (struct run_events){ s, s_phase, s_compile, s_case, s_perf, s_log, s_done };
}

/* Pump until the end, waiting on the queue's file as the explorer's loop does. */
static void pump_all(struct evqueue *q, const struct run_events *to, double limit)
{
	double t0 = now_seconds();

	for (;;) {
		struct pollfd p = { evqueue_fd(q), POLLIN, 0 };

		if (p.fd >= 0)
			poll(&p, 1, 100);
		if (evqueue_pump(q, to))
			return;
		if (now_seconds() - t0 > limit)
			fail_msg("the producer did not finish within %.0f s", limit);
	}
}

struct worker_job {
	const char *exe;
	struct evqueue *q;
	enum kbx_status st;
};

static void *worker_thread(void *arg)
{
	struct worker_job *j = arg;
	struct run_events ev = evqueue_events(j->q);
	struct worker_request req;

	worker_request_default(&req);
	req.task_id = "Fusion/x";
	req.source = "// the source";
	req.source_name = "x.cu";
	j->st = worker_run(j->exe, &req, &ev, NULL, NULL);
	evqueue_close(j->q);
	return NULL;
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

/* The parent's decoder (worker_run reading a stand-in worker's stdout) on one thread, the
 * consumer on another: every event arrives typed, once, in the worker's order. */
static void test_worker_run_to_consumer(void **state)
{
	char *lines = wire(), *body = xasprintf("read req\nsleep 0.2\ncat <<'EOF'\n%sEOF\n", lines);
	char *exe = script("worker.sh", body);
	struct worker_job job = { exe, evqueue_new(), KBX_EWORKER };
	struct seen seen = { { 0 }, 0, "" };
	struct run_events to = seen_events(&seen);
	pthread_t th;

	(void)state;
	assert_non_null(job.q);
	assert_int_equal(pthread_create(&th, NULL, worker_thread, &job), 0);
	pump_all(job.q, &to, 30);
	pthread_join(th, NULL);
	assert_int_equal(job.st, KBX_OK);
	assert_int_equal(seen.n, NWIRE);
	for (int i = 0; i < NWIRE; i++)
		assert_int_equal(seen.kinds[i], wire_kinds[i]);
	assert_string_equal(seen.last_log, "a note from the worker");
	evqueue_free(job.q);
	free(exe);
	free(body);
	free(lines);
}

/* A worker that dies: the parent's own done event (runtime_error, with its stderr) comes through
 * the queue like the worker's. */
static void test_worker_death_is_typed(void **state)
{
	char *exe = script("worker_dies.sh", "read req\necho 'bad \377 byte' >&2\nexit 3\n");
	struct worker_job job = { exe, evqueue_new(), KBX_EWORKER };
	struct run_event *e, *last = NULL;
	pthread_t th;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, worker_thread, &job), 0);
	pthread_join(th, NULL);
	assert_int_equal(job.st, KBX_OK);
	while ((e = evqueue_pop(job.q)) != NULL) {
		run_event_free(last);
		last = e;
	}
	assert_non_null(last);
	assert_int_equal(last->kind, RUN_EVENT_DONE);
	assert_int_equal(last->summary.verdict, V_RUNTIME_ERROR);
	/* the stderr tail, its stray byte made U+FFFD as the wire made it */
	assert_non_null(strstr(last->summary.message, "bad \xef\xbf\xbd byte"));
	run_event_free(last);
	assert_int_equal(evqueue_pump(job.q, NULL), 1);
	evqueue_free(job.q);
	free(exe);
}

/* ---- a producer racing the consumer ------------------------------------------------------------ */

#define RACE_N 20000

static void *race_producer(void *arg)
{
	struct evqueue *q = arg;
	struct run_events ev = evqueue_events(q);

	for (int i = 0; i < RACE_N; i++) {
		char text[32];

		snprintf(text, sizeof(text), "%d", i);
		if (i % 3)
			ev.log(ev.ctx, text);
		else
			ev.phase(ev.ctx, text, i);
	}
	evqueue_close(q);
	return NULL;
}

struct order {
	int next;
};

static void o_phase(void *ctx, const char *what, double limit_s)
{
	struct order *o = ctx;

	assert_int_equal(atoi(what), o->next);
	assert_true(limit_s == o->next);
	assert_int_equal(o->next % 3, 0);
	o->next++;
}

static void o_log(void *ctx, const char *text)
{
	struct order *o = ctx;

	assert_int_equal(atoi(text), o->next);
	assert_int_not_equal(o->next % 3, 0);
	o->next++;
}

static void test_race(void **state)
{
	struct evqueue *q = evqueue_new();
	struct order o = { 0 };
	struct run_events to = { .ctx = &o, .phase = o_phase, .log = o_log };
	pthread_t th;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, race_producer, q), 0);
	pump_all(q, &to, 60);
	pthread_join(th, NULL);
	assert_int_equal(o.next, RACE_N);
	/* once the end is reported, nothing more */
	assert_int_equal(evqueue_pump(q, &to), 1);
	assert_int_equal(evqueue_fd(q), -1);
	evqueue_free(q);
}

/* Events nobody took are freed with the queue, whether it was closed or not. */
static void test_free_with_events(void **state)
{
	char *lines = wire(), *l, *save = NULL;
	struct evqueue *q = evqueue_new();
	struct run_events ev = evqueue_events(q);
	struct run_event *e;

	(void)state;
	for (l = strtok_r(lines, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		assert_int_equal(events_json_dispatch(l, &ev), KBX_OK);
	e = evqueue_pop(q);
	check_wire_event(e, 0);
	run_event_free(e);
	evqueue_free(q);
	q = evqueue_new();
	ev = evqueue_events(q);
	ev.log(ev.ctx, "left behind");
	evqueue_close(q);
	evqueue_free(q);
	evqueue_free(NULL);
	assert_int_equal(evqueue_pump(NULL, NULL), 1);
	assert_int_equal(evqueue_fd(NULL), -1);
	free(lines);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_to_typed_events),
		cmocka_unit_test(test_worker_run_to_consumer),
		cmocka_unit_test(test_worker_death_is_typed),
		cmocka_unit_test(test_race),
		cmocka_unit_test(test_free_with_events),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
