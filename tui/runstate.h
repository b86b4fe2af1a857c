/*
 * runstate.h - one run as the explorer sees it, and the runner that keeps the screen alive
 * while a worker works.
 *
 * struct run_record collects a run's events (its run_events is run_record_events) -- phase,
 * compile result, each case, each perf row, the summary -- as deep copies, so the screens can
 * show it at any time; a run from the history is loaded into the same struct.
 *
 * The runner starts worker_run (core/worker.h, blocking) in a thread whose run_events is an
 * event queue (core/evqueue.h): worker_run decodes the worker's JSON once, and each event
 * reaches this side as a typed struct, never as text again. The event loop polls runner_fd()
 * beside the terminal and calls runner_pump(), which hands every waiting event, in order, to the
 * caller's run_events (the record, the history recorder) and frees it: the callbacks borrow the
 * structs for the call, and copy what they keep (run_record_events does). Cancelling sets a
 * flag that worker_run's cancel callback reads (within about 100 ms). Nothing here touches
 * curses.
 */
#ifndef KBX_TUI_RUNSTATE_H
#define KBX_TUI_RUNSTATE_H

#include "../core/events.h"
#include "../core/worker.h"
#include "../db/db.h"
#include "../db/vsbest.h"

enum run_state { RUN_IDLE, RUN_RUNNING, RUN_DONE, RUN_CANCELLED, RUN_FAILED };

struct run_record {
	char *task_id;
	char *source;
	char *source_name;
	enum run_state state;
	double started, finished;       /* now_seconds(); from the history: 0 */
	char phase[256];
	double phase_limit, phase_started;
	int nphases;
	int have_compile;
	struct compile_result compile;
	struct case_result *cases;
	int ncases, cases_cap;
	struct perf_result *perf;
	int nperf, perf_cap;
	int have_summary;
	struct run_summary summary;
	char **logs;
	int nlogs, logs_cap;
	char error[512];                /* why the run could not start or finish */
	long long db_id;                /* the history's id, 0 if not recorded */
	double created_at;              /* history: unix seconds */
	int from_history;
	struct vsbest vs_best;          /* against the best earlier attempt (found = 0: none); owned */
};

void run_record_init(struct run_record *r, const char *task_id, const char *source, const char *source_name);
void run_record_free(struct run_record *r);
/* Events that fill r (ctx = r). */
struct run_events run_record_events(struct run_record *r);
/* A stored run (db_run_get) as a record; per-case details come from their JSON. KBX_EPARSE
 * names a detail that could not be read (the record still holds the rest). */
enum kbx_status run_record_from_db(const struct db_run_detail *d, struct run_record *r);
/* Index of the first case with this verdict other than pass, or -1. */
int run_record_first_failure(const struct run_record *r);
/* The verdict so far: the summary's, else from the cases. */
enum verdict run_record_verdict(const struct run_record *r);

/* ---- the runner -------------------------------------------------------------------------- */

struct runner;

/* Start req (copied) in a worker thread; exe NULL = this binary; keep (may be NULL) is the
 * explorer's kept worker for Python candidates (worker.h: torch imported once per session), used
 * by one run at a time. NULL and a message when the thread or the queue could not be made. */
struct worker_keep;
struct runner *runner_start(const char *exe, const struct worker_request *req, struct worker_keep *keep);
/* The file to poll for reading (-1 once runner_pump has reported the end). */
int runner_fd(const struct runner *r);
/* Dispatch every event waiting to ev (NULL: drop them), oldest first; never blocks. Returns 1
 * once the worker thread has ended and its last event was dispatched (the thread is then
 * joined), else 0. */
int runner_pump(struct runner *r, const struct run_events *ev);
/* Ask the run to stop; runner_pump then reports the end. */
void runner_cancel(struct runner *r);
/* After the end: worker_run's status and, when not KBX_OK, its message. */
enum kbx_status runner_status(const struct runner *r, const char **msg);
/* Cancel if still running, wait for the thread, free. NULL is fine. */
void runner_free(struct runner *r);

#endif
