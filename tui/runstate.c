/*
 * runstate.c - a run's record and the threaded runner.
 */
#include "runstate.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/evqueue.h"
#include "../core/util.h"

/* ---- the record -------------------------------------------------------------------------- */

void run_record_init(struct run_record *r, const char *task_id, const char *source, const char *source_name)
{
	memset(r, 0, sizeof(*r));
	r->task_id = xstrdup_or_null(task_id);
	r->source = xstrdup_or_null(source);
	r->source_name = xstrdup_or_null(source_name);
	r->state = RUN_IDLE;
}

void run_record_free(struct run_record *r)
{
	free(r->task_id);
	free(r->source);
	free(r->source_name);
	if (r->have_compile)
		compile_result_free(&r->compile);
	for (int i = 0; i < r->ncases; i++)
		case_result_free(&r->cases[i]);
	free(r->cases);
	for (int i = 0; i < r->nperf; i++)
		perf_result_free(&r->perf[i]);
	free(r->perf);
	if (r->have_summary)
		run_summary_free(&r->summary);
	for (int i = 0; i < r->nlogs; i++)
		free(r->logs[i]);
	free(r->logs);
	vsbest_free(&r->vs_best);
	memset(r, 0, sizeof(*r));
}

static void ev_phase(void *ctx, const char *what, double limit_s)
{
	struct run_record *r = ctx;

	snprintf(r->phase, sizeof(r->phase), "%s", what ? what : "");
	r->phase_limit = limit_s;
	r->phase_started = now_seconds();
	r->nphases++;
}

static void ev_compile(void *ctx, const struct compile_result *c)
{
	struct run_record *r = ctx;

	if (r->have_compile)
		compile_result_free(&r->compile);
	compile_result_copy(&r->compile, c);
	r->have_compile = 1;
}

static void ev_case(void *ctx, const struct case_result *c)
{
	struct run_record *r = ctx;

	XGROW(r->cases, r->ncases + 1, r->cases_cap);
	case_result_copy(&r->cases[r->ncases++], c);
}

static void ev_perf(void *ctx, const struct perf_result *p)
{
	struct run_record *r = ctx;

	XGROW(r->perf, r->nperf + 1, r->perf_cap);
	perf_result_copy(&r->perf[r->nperf++], p);
}

static void ev_log(void *ctx, const char *text)
{
	struct run_record *r = ctx;

	/* keep the latest 200 lines: a chatty worker must not eat the memory */
	if (r->nlogs >= 200) {
		free(r->logs[0]);
		memmove(r->logs, r->logs + 1, sizeof(*r->logs) * (size_t)(r->nlogs - 1));
		r->nlogs--;
	}
	XGROW(r->logs, r->nlogs + 1, r->logs_cap);
	r->logs[r->nlogs++] = xstrdup(text ? text : "");
}

static void ev_done(void *ctx, const struct run_summary *s)
{
	struct run_record *r = ctx;

	if (r->have_summary)
		return; /* a second done is ignored, as the recorder does */
	run_summary_copy(&r->summary, s);
	r->have_summary = 1;
	r->state = RUN_DONE;
	r->finished = now_seconds();
}

struct run_events run_record_events(struct run_record *r)
{
	struct run_events ev = { r, ev_phase, ev_compile, ev_case, ev_perf, ev_log, ev_done };

	return ev;
}

enum kbx_status run_record_from_db(const struct db_run_detail *d, struct run_record *r)
{
	enum kbx_status st = KBX_OK;
	char bad[256] = "";

	run_record_init(r, d->row.task_id, d->source, NULL);
	r->from_history = 1;
	r->db_id = d->row.id;
	r->created_at = d->row.created_at;
	r->state = RUN_DONE;
	if (d->summary_json && run_summary_from_json(d->summary_json, &r->summary) == KBX_OK) {
		r->have_summary = 1;
	} else {
		if (d->summary_json)
			snprintf(bad, sizeof(bad), "summary: %s", kbx_last_error());
		memset(&r->summary, 0, sizeof(r->summary));
		r->summary.verdict = d->row.verdict;
		r->summary.message = xstrdup_or_null(d->message);
		r->summary.speedup_golden = d->row.speedup_golden;
		r->summary.speedup_ref = d->row.speedup_ref;
		r->summary.cand_ms_sum = d->row.cand_ms;
		r->summary.ref_ms_sum = r->summary.golden_ms_sum = -1;
		snprintf(r->summary.gpu, sizeof(r->summary.gpu), "%s", d->row.gpu);
		r->have_summary = 1;
	}
	for (int i = 0; i < d->ncases; i++) {
		struct case_result c;

		XGROW(r->cases, r->ncases + 1, r->cases_cap);
		if (d->case_json[i] && case_result_from_json(d->case_json[i], &c) == KBX_OK) {
			r->cases[r->ncases++] = c;
			continue;
		}
		if (!*bad)
			snprintf(bad, sizeof(bad), "case '%s': %s", d->case_names[i],
				 d->case_json[i] ? kbx_last_error() : "no details stored");
		/* the name and the verdict are in their own columns */
		memset(&c, 0, sizeof(c));
		snprintf(c.name, sizeof(c.name), "%s", d->case_names[i]);
		c.index = i;
		c.verdict = d->case_verdicts[i];
		r->cases[r->ncases++] = c;
	}
	for (int i = 0; i < d->nperf; i++) {
		const struct db_perf *p = &d->perf[i];
		struct perf_result *q;

		XGROW(r->perf, r->nperf + 1, r->perf_cap);
		q = &r->perf[r->nperf++];
		db_perf_to_result(p, q);
	}
	if (*bad) {
		snprintf(r->error, sizeof(r->error), "%s", bad);
		st = kbx_error(KBX_EPARSE, "run %lld: %s", d->row.id, bad);
	}
	return st;
}

int run_record_first_failure(const struct run_record *r)
{
	for (int i = 0; i < r->ncases; i++)
		if (r->cases[i].verdict != V_PASS)
			return i;
	return -1;
}

enum verdict run_record_verdict(const struct run_record *r)
{
	int f;

	if (r->have_summary)
		return r->summary.verdict;
	f = run_record_first_failure(r);
	return f >= 0 ? r->cases[f].verdict : V_PASS;
}

/* ---- the runner -------------------------------------------------------------------------- */

struct runner {
	pthread_t th;
	struct evqueue *q;          /* the worker thread's events, typed (core/evqueue.h) */
	atomic_int cancel;
	struct worker_request req;
	char *exe;
	struct worker_keep *keep;   /* the explorer's, or NULL */
	enum kbx_status st;
	char msg[1024];
	int joined;
};

static int cancel_cb(void *ctx)
{
	struct runner *r = ctx;

	return atomic_load(&r->cancel);
}

static void *thread_main(void *arg)
{
	struct runner *r = arg;
	struct run_events ev = evqueue_events(r->q);

	r->st = r->keep ? worker_run_kept(r->keep, r->exe, &r->req, &ev, cancel_cb, r)
			: worker_run(r->exe, &r->req, &ev, cancel_cb, r);
	if (r->st != KBX_OK)
		snprintf(r->msg, sizeof(r->msg), "%s", kbx_last_error());
	/* closing the queue is what tells the reader the run is over (st and msg are set) */
	evqueue_close(r->q);
	return NULL;
}

struct runner *runner_start(const char *exe, const struct worker_request *req, struct worker_keep *keep)
{
	struct runner *r = xcalloc(1, sizeof(*r));
	sigset_t block, old;
	int rc;

	r->q = evqueue_new();
	if (!r->q) {
		free(r);
		return NULL;
	}
	atomic_init(&r->cancel, 0);
	worker_request_copy(&r->req, req);
	r->keep = keep;
	r->exe = xstrdup_or_null(exe);
	/* Terminal signals belong to the event loop: the worker thread never takes them, so that
	 * the loop's poll() is the one interrupted. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGWINCH);
	sigaddset(&block, SIGTSTP);
	sigaddset(&block, SIGCONT);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	rc = pthread_create(&r->th, NULL, thread_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		kbx_error(KBX_EWORKER, "cannot start the run's thread: %s", strerror(rc));
		evqueue_free(r->q);
		worker_request_free(&r->req);
		free(r->exe);
		free(r);
		return NULL;
	}
	return r;
}

int runner_fd(const struct runner *r)
{
	return r ? evqueue_fd(r->q) : -1;
}

int runner_pump(struct runner *r, const struct run_events *ev)
{
	if (!r)
		return 1;
	if (!evqueue_pump(r->q, ev))
		return 0;
	if (!r->joined) {
		pthread_join(r->th, NULL);
		r->joined = 1;
	}
	return 1;
}

void runner_cancel(struct runner *r)
{
	if (r)
		atomic_store(&r->cancel, 1);
}

enum kbx_status runner_status(const struct runner *r, const char **msg)
{
	if (msg)
		*msg = r->msg;
	return r->st;
}

void runner_free(struct runner *r)
{
	if (!r)
		return;
	if (!r->joined) {
		/* the thread never waits for the reader: it ends within worker_run's cancel poll */
		runner_cancel(r);
		pthread_join(r->th, NULL);
		r->joined = 1;
	}
	evqueue_free(r->q);     /* with the events nobody read */
	worker_request_free(&r->req);
	free(r->exe);
	free(r);
}
