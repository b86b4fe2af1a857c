/*
 * worker.h - run a candidate in a separate process (`kbx worker`) and watch it.
 *
 * The parent (CLI, TUI) never touches the GPU. worker_run forks and executes `kbx worker` in
 * its own process group and in a fresh temporary working directory, sends the request as one
 * JSON line on its stdin, and reads events (events.h) from its stdout, forwarding them to `ev`.
 * Every phase event sets a deadline; when it passes, the parent kills the worker's process group
 * and reports verdict timeout naming the phase. A worker that dies without a done event (a
 * sticky CUDA error, a crash) is reported as runtime_error with how it ended and the tail of its
 * stderr. Each run gets a fresh worker.
 *
 * With req->sanitize the worker runs under compute-sanitizer (sanitizer.h): the parent holds
 * the done event back until the worker has exited, reports each finding in the candidate as a
 * log line ("compute-sanitizer memcheck: cand.cu:12: Invalid __global__ write ..."), and a run
 * with findings gets the warning `sanitizer` and, if it had passed, verdict wrong. The tool is
 * $KBX_COMPUTE_SANITIZER, else compute-sanitizer beside the CUDA toolkit's include folder, else
 * on $PATH.
 *
 * The worker side (serve.h) reads the request with worker_request_from_json and calls engine_run
 * with events_json_writer(stdout). A request with python set goes to the Python worker instead
 * of `kbx worker` (pyworker.h: its interpreter, sandbox and paths); it answers the same way.
 *
 * A request with calibrate set ({"op":"calibrate"}) runs no task: the worker measures the device
 * (calibrate.h) and answers with a calibration event before its done event; worker_calibrate
 * sends one and waits for the answer.
 */
#ifndef KBX_WORKER_H
#define KBX_WORKER_H

#include "bench.h"
#include "events.h"
#include "status.h"

/* A worker's exit status after a run that lost the CUDA context (serve.c): it served that run to
 * its done event and then retired; a kept worker that exits so before answering the next request
 * never saw it, and the request goes to a fresh one. */
#define WORKER_EXIT_CONTEXT_LOST 3

struct worker_request {
	char *task_id;
	char *source;
	char *source_name;
	unsigned long long seed;
	int no_perf;
	int device;
	int max_perf_rows;
	struct bench_options bench;   /* how perf rows are timed (warm-up, repetitions, mode) */
	double launch_limit_s;        /* per launch, default 10 */
	double compile_limit_s;       /* default 60 */
	char *db_path;                /* compile cache; NULL = none */
	char *tasks_root;
	char *save_cubin;             /* absolute path, or NULL */
	char *only_case;
	char *export_dir;             /* absolute path, or NULL */
	int export_perf_row;          /* engine_options.export_perf_row */
	int no_derived;               /* engine_options.no_derived */
	int fuzz;                     /* engine_options.fuzz */
	char *sanitize;               /* run under compute-sanitizer with this tool, or NULL */
	char *triton_dir;             /* engine_options.triton_dir (absolute path), or NULL */
	char *triton_launch;          /* engine_options.triton_launch, or NULL */
	int calibrate;                /* "op":"calibrate": measure the device instead (no task, no source) */
	char *calib_db;               /* history to read the device's calibration from (read only), or NULL */
	int python;                   /* the candidate is a Python module: the Python worker runs it */
	char *python_exe;             /* its interpreter (--python), or NULL (pyworker.h) */
	int compare_gpu;              /* engine_options.compare_gpu (--compare: enum compare_mode) */
	int retime_reference;         /* engine_options.retime_reference (--retime-reference) */
	int allow_pytorch;            /* engine_options.allow_pytorch (--allow-pytorch) */
};

void worker_request_default(struct worker_request *r);
char *worker_request_to_json(const struct worker_request *r);
enum kbx_status worker_request_from_json(const char *text, struct worker_request *r);
void worker_request_free(struct worker_request *r);
/* A deep copy: every string of src duplicated (worker_request_free releases it). A new field
 * of the struct is copied here, next to it, not by its users. */
void worker_request_copy(struct worker_request *dst, const struct worker_request *src);

/* Return nonzero to cancel a run in progress (polled about every 100 ms). */
typedef int (*worker_cancel_fn)(void *ctx);

/* Run the request in a fresh worker. KBX_OK when a verdict was reported through ev->done
 * (including timeout and crashes); KBX_ECANCEL when cancelled; other errors when the worker
 * could not be started. `exe` is the kbx binary (NULL = /proc/self/exe). */
enum kbx_status worker_run(const char *exe, const struct worker_request *req, const struct run_events *ev,
			   worker_cancel_fn cancel, void *cancel_ctx);

/* A worker kept between runs: a Python worker imports torch and Triton once and serves every
 * item of an evaluation on its GPU. worker_run_kept runs like worker_run in the kept worker,
 * starting one when there is none (or the last one ended: a timeout, a crash, a lost CUDA
 * context); a CUDA request still gets a fresh `kbx worker`. Not thread-safe: one per thread. */
struct worker_keep;
struct worker_keep *worker_keep_new(void);
void worker_keep_free(struct worker_keep *k);
/* With on, CUDA requests are served by a kept `kbx worker` too (kbx eval --reuse-worker): the
 * driver and the CUDA context are set up once per process instead of once per run. A run that
 * loses the context ends the process (WORKER_EXIT_CONTEXT_LOST) and the next starts a fresh one,
 * as for the Python worker. */
void worker_keep_cuda(struct worker_keep *k, int on);
enum kbx_status worker_run_kept(struct worker_keep *k, const char *exe, const struct worker_request *req,
				const struct run_events *ev, worker_cancel_fn cancel, void *cancel_ctx);

/* req->sanitize "auto" (worker_run, worker_run_kept): compute-sanitizer's racecheck and initcheck
 * on the task's smallest case (worker_smallest_case), each in a worker of its own, then the run
 * itself unsanitized. The tools' findings arrive first as log lines on the candidate's lines;
 * with any, the run's summary gets the warning `sanitizer` and, had it passed, verdict wrong.
 * Without compute-sanitizer, for a Python or Triton-cache candidate, or a task whose cases are
 * all empty, a log line says so and the run goes on unsanitized. */
/* The name of the task's own case with the fewest bytes of data (not an empty one), or NULL. */
const char *worker_smallest_case(const struct task *t);

/* Calibrate device `device` in a fresh worker (calibrate.h). KBX_OK with *out filled; otherwise
 * the error says why: KBX_ENODEVICE / KBX_ENOGPUBUILD without a GPU, KBX_ETIMEOUT when a phase
 * ran past its limit, KBX_EWORKER when the worker failed or died. progress (may be NULL) gets
 * the worker's phases and log lines as they come. */
struct calibration;
enum kbx_status worker_calibrate(const char *exe, int device, const struct run_events *progress,
				 struct calibration *out);

#endif
