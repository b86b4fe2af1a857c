#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calibrate.h"
#include "gpucompare.h"
#include "jsonget.h"
#include "problem.h"
#include "pyworker.h"
#include "task.h"
#include "sanitizer.h"
#include "util.h"

#define STDERR_KEEP 4096

void worker_request_default(struct worker_request *r)
{
	memset(r, 0, sizeof(*r));
	bench_options_default(&r->bench);
	r->launch_limit_s = 10;
	r->compile_limit_s = 60;
}

char *worker_request_to_json(const struct worker_request *r)
{
	json_t *o = json_object();
	char *s;

	json_object_set_new(o, "task", json_string(r->task_id ? r->task_id : ""));
	json_object_set_new(o, "source", json_string(r->source ? r->source : ""));
	json_object_set_new(o, "source_name", json_string(r->source_name ? r->source_name : "candidate.cu"));
	json_object_set_new(o, "seed", json_integer((json_int_t)r->seed));
	json_object_set_new(o, "no_perf", json_boolean(r->no_perf));
	json_object_set_new(o, "device", json_integer(r->device));
	json_object_set_new(o, "max_perf_rows", json_integer(r->max_perf_rows));
	json_object_set_new(o, "no_derived", json_boolean(r->no_derived));
	json_object_set_new(o, "fuzz", json_integer(r->fuzz));
	if (r->sanitize)
		json_object_set_new(o, "sanitize", json_string(r->sanitize));
	json_object_set_new(o, "warmup_ms", json_real(r->bench.warmup_ms));
	json_object_set_new(o, "rep_ms", json_real(r->bench.rep_ms));
	json_object_set_new(o, "bench_mode", json_string(bench_mode_name(r->bench.mode)));
	json_object_set_new(o, "rsd_target", json_real(r->bench.rsd_target));
	json_object_set_new(o, "min_samples", json_integer(r->bench.min_samples));
	json_object_set_new(o, "min_time_ms", json_real(r->bench.min_ms));
	json_object_set_new(o, "max_time_ms", json_real(r->bench.max_ms));
	json_object_set_new(o, "hide_latency", json_boolean(r->bench.hide_latency));
	json_object_set_new(o, "launch_limit_s", json_real(r->launch_limit_s));
	json_object_set_new(o, "compile_limit_s", json_real(r->compile_limit_s));
	if (r->db_path)
		json_object_set_new(o, "db", json_string(r->db_path));
	if (r->tasks_root)
		json_object_set_new(o, "tasks_root", json_string(r->tasks_root));
	if (r->save_cubin)
		json_object_set_new(o, "save_cubin", json_string(r->save_cubin));
	if (r->only_case)
		json_object_set_new(o, "only_case", json_string(r->only_case));
	if (r->export_dir)
		json_object_set_new(o, "export_dir", json_string(r->export_dir));
	if (r->export_perf_row)
		json_object_set_new(o, "export_perf_row", json_integer(r->export_perf_row));
	if (r->triton_dir)
		json_object_set_new(o, "triton_dir", json_string(r->triton_dir));
	if (r->triton_launch)
		json_object_set_new(o, "triton_launch", json_string(r->triton_launch));
	if (r->calibrate)
		json_object_set_new(o, "op", json_string("calibrate"));
	if (r->calib_db)
		json_object_set_new(o, "calib_db", json_string(r->calib_db));
	if (r->python)
		json_object_set_new(o, "lang", json_string("python"));
	if (r->python_exe)
		json_object_set_new(o, "python", json_string(r->python_exe));
	if (r->compare_gpu)
		json_object_set_new(o, "compare", json_string(compare_mode_name(r->compare_gpu)));
	if (r->retime_reference)
		json_object_set_new(o, "retime_reference", json_true());
	if (r->allow_pytorch)
		json_object_set_new(o, "allow_pytorch", json_true());
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!s)
		abort();
	return s;
}

enum kbx_status worker_request_from_json(const char *text, struct worker_request *r)
{
	json_error_t err;
	json_t *o = json_loads(text, 0, &err);
	const char *op = NULL, *bench_mode = NULL, *compare = NULL;
	enum jsonget_found has_op, has_mode, has_compare;

	worker_request_default(r);
	if (!json_is_object(o)) {
		json_decref(o);
		return kbx_error(KBX_EPARSE, "bad worker request: %s (column %d)", err.text, err.column);
	}
	r->task_id = jsonget_strdup(o, "task");
	r->source = jsonget_strdup(o, "source");
	r->source_name = jsonget_strdup(o, "source_name");
	r->seed = (unsigned long long)jsonget_int_or(o, "seed", 0);
	r->no_perf = jsonget_bool_or(o, "no_perf", 0);
	r->device = (int)jsonget_num_or(o, "device", 0);
	r->max_perf_rows = (int)jsonget_num_or(o, "max_perf_rows", 0);
	r->no_derived = jsonget_bool_or(o, "no_derived", 0);
	r->fuzz = (int)jsonget_num_or(o, "fuzz", 0);
	r->sanitize = jsonget_strdup(o, "sanitize");
	r->bench.warmup_ms = jsonget_num_or(o, "warmup_ms", r->bench.warmup_ms);
	r->bench.rep_ms = jsonget_num_or(o, "rep_ms", r->bench.rep_ms);
	r->bench.rsd_target = jsonget_num_or(o, "rsd_target", r->bench.rsd_target);
	r->bench.min_samples = (int)jsonget_num_or(o, "min_samples", r->bench.min_samples);
	r->bench.min_ms = jsonget_num_or(o, "min_time_ms", r->bench.min_ms);
	r->bench.max_ms = jsonget_num_or(o, "max_time_ms", r->bench.max_ms);
	r->bench.hide_latency = jsonget_bool_or(o, "hide_latency", 0);
	has_mode = jsonget_str(o, "bench_mode", &bench_mode, NULL);
	if (has_mode != JSONGET_ABSENT && (has_mode != JSONGET_FOUND || bench_mode_parse(bench_mode) < 0)) {
		json_decref(o);
		worker_request_free(r);
		return kbx_error(KBX_EPARSE, "bad worker request: \"bench_mode\" must be \"fixed\" or \"noise\"");
	}
	if (has_mode == JSONGET_FOUND)
		r->bench.mode = (enum bench_mode)bench_mode_parse(bench_mode);
	r->launch_limit_s = jsonget_num_or(o, "launch_limit_s", r->launch_limit_s);
	r->compile_limit_s = jsonget_num_or(o, "compile_limit_s", r->compile_limit_s);
	r->db_path = jsonget_strdup(o, "db");
	r->tasks_root = jsonget_strdup(o, "tasks_root");
	r->save_cubin = jsonget_strdup(o, "save_cubin");
	r->only_case = jsonget_strdup(o, "only_case");
	r->export_dir = jsonget_strdup(o, "export_dir");
	r->export_perf_row = (int)jsonget_num_or(o, "export_perf_row", 0);
	r->triton_dir = jsonget_strdup(o, "triton_dir");
	r->triton_launch = jsonget_strdup(o, "triton_launch");
	r->calib_db = jsonget_strdup(o, "calib_db");
	r->python = !strcmp(jsonget_str_or(o, "lang", ""), "python");
	r->python_exe = jsonget_strdup(o, "python");
	/* no "compare" is host: requests from before --compare */
	has_compare = jsonget_str(o, "compare", &compare, NULL);
	if (has_compare != JSONGET_ABSENT && (has_compare != JSONGET_FOUND || compare_mode_parse(compare) < 0)) {
		json_decref(o);
		worker_request_free(r);
		return kbx_error(KBX_EPARSE, "bad worker request: \"compare\" must be \"host\", \"gpu\" or \"both\"");
	}
	r->compare_gpu = has_compare == JSONGET_FOUND ? compare_mode_parse(compare) : COMPARE_HOST;
	r->retime_reference = json_is_true(json_object_get(o, "retime_reference"));
	r->allow_pytorch = json_is_true(json_object_get(o, "allow_pytorch"));
	/* No "op" is a run: requests from before calibrations existed. */
	has_op = jsonget_str(o, "op", &op, NULL);
	if (has_op != JSONGET_ABSENT && (has_op != JSONGET_FOUND || (strcmp(op, "run") && strcmp(op, "calibrate")))) {
		json_decref(o);
		worker_request_free(r);
		return kbx_error(KBX_EPARSE, "bad worker request: \"op\" must be \"run\" or \"calibrate\"");
	}
	r->calibrate = has_op == JSONGET_FOUND && !strcmp(op, "calibrate");
	json_decref(o);
	if (r->calibrate)
		return KBX_OK;
	if (!r->task_id || !r->source) {
		worker_request_free(r);
		return kbx_error(KBX_EPARSE, "bad worker request: \"task\" and \"source\" are required");
	}
	return KBX_OK;
}

void worker_request_copy(struct worker_request *dst, const struct worker_request *src)
{
	*dst = *src;
	dst->bench.memory = NULL;       /* a run's, never a request's */
	dst->task_id = xstrdup_or_null(src->task_id);
	dst->source = xstrdup_or_null(src->source);
	dst->source_name = xstrdup_or_null(src->source_name);
	dst->db_path = xstrdup_or_null(src->db_path);
	dst->tasks_root = xstrdup_or_null(src->tasks_root);
	dst->save_cubin = xstrdup_or_null(src->save_cubin);
	dst->only_case = xstrdup_or_null(src->only_case);
	dst->export_dir = xstrdup_or_null(src->export_dir);
	dst->sanitize = xstrdup_or_null(src->sanitize);
	dst->triton_dir = xstrdup_or_null(src->triton_dir);
	dst->triton_launch = xstrdup_or_null(src->triton_launch);
	dst->calib_db = xstrdup_or_null(src->calib_db);
	dst->python_exe = xstrdup_or_null(src->python_exe);
}

void worker_request_free(struct worker_request *r)
{
	free(r->task_id);
	free(r->source);
	free(r->source_name);
	free(r->db_path);
	free(r->tasks_root);
	free(r->save_cubin);
	free(r->only_case);
	free(r->export_dir);
	free(r->sanitize);
	free(r->triton_dir);
	free(r->triton_launch);
	free(r->calib_db);
	free(r->python_exe);
	memset(r, 0, sizeof(*r));
}

/* ------------------------------------------------------------- parent side ---- */

struct watch {
	const struct run_events *to;
	char phase[256];
	double deadline;        /* 0 = none */
	double limit;
	int own;                /* the phase is kbx's own work (RUN_PHASE_OWN): an error, not a timeout */
	int done;
	int events;             /* lines read from the worker for this request */
	int hold;               /* keep the done event (as JSON) until the worker has exited */
	char *held;
	calibration_fn on_calibration;  /* NULL: calibration events are skipped */
	void *calibration_ctx;
};

static void w_phase(void *ctx, const char *what, double limit_s)
{
	struct watch *w = ctx;

	w->own = strncmp(what, RUN_PHASE_OWN, strlen(RUN_PHASE_OWN)) == 0;
	if (w->own)
		what += strlen(RUN_PHASE_OWN);
	snprintf(w->phase, sizeof(w->phase), "%s", what);
	w->limit = limit_s;
	w->deadline = limit_s > 0 ? now_seconds() + limit_s : 0;
	if (w->to->phase)
		w->to->phase(w->to->ctx, what, limit_s);
}

static void w_compile(void *ctx, const struct compile_result *c)
{
	struct watch *w = ctx;

	if (w->to->compile)
		w->to->compile(w->to->ctx, c);
}

static void w_case(void *ctx, const struct case_result *c)
{
	struct watch *w = ctx;

	if (w->to->case_done)
		w->to->case_done(w->to->ctx, c);
}

static void w_perf(void *ctx, const struct perf_result *p)
{
	struct watch *w = ctx;

	if (w->to->perf_row)
		w->to->perf_row(w->to->ctx, p);
}

static void w_log(void *ctx, const char *text)
{
	struct watch *w = ctx;

	if (w->to->log)
		w->to->log(w->to->ctx, text);
}

static void w_done(void *ctx, const struct run_summary *s)
{
	struct watch *w = ctx;

	w->done = 1;
	if (w->hold) {
		free(w->held);
		w->held = run_summary_to_json(s);
	} else if (w->to->done) {
		w->to->done(w->to->ctx, s);
	}
}

static void report_end(struct watch *w, enum verdict v, const char *msg)
{
	struct run_summary s;

	memset(&s, 0, sizeof(s));
	s.verdict = v;
	s.speedup_golden = s.speedup_ref = -1;
	s.cand_ms_sum = s.ref_ms_sum = s.golden_ms_sum = -1;
	s.message = (char *)msg;
	w->done = 1;
	if (w->to->done)
		w->to->done(w->to->ctx, &s);
}

/* Limits of the worker process. The candidate's code runs only on the GPU (no host code of
 * its own ever runs), so these bound what kbx's side of the worker may do on its behalf: no
 * core files, a cap on file sizes (an --export of the largest case stays well below it) and on
 * open files. No address-space or data limit: the CUDA driver reserves virtual memory by the
 * size of the GPU's and would fail to start under one; host memory follows the task's own
 * problem sizes, which are not the candidate's to choose. */
#define WORKER_MAX_FILE_BYTES ((rlim_t)16 << 30)
#define WORKER_MAX_OPEN_FILES 1024

#define SANITIZER_LOG "sanitizer.log"

static void child(const char *exe, struct pyworker_plan *py, const char *sanitizer, const char *tool,
		  const char *dir, int in_fd, int out_fd, int err_fd, int kept)
{
	struct rlimit no_core = { 0, 0 };
	struct rlimit fsize = { WORKER_MAX_FILE_BYTES, WORKER_MAX_FILE_BYTES };
	struct rlimit nofile = { WORKER_MAX_OPEN_FILES, WORKER_MAX_OPEN_FILES };
	int fd;

	setpgid(0, 0);
	dup2(in_fd, 0);
	dup2(out_fd, 1);
	dup2(err_fd, 2);
	/* Nothing of the parent's (its history database, the terminal's other files) goes along. */
	for (fd = 3; fd < WORKER_MAX_OPEN_FILES; fd++)
		close(fd);
	/* A throw-away working directory: nothing the worker writes lands in the user's tree. */
	if (!*dir || chdir(dir) != 0)
		_exit(126);
	setrlimit(RLIMIT_CORE, &no_core);
	setrlimit(RLIMIT_FSIZE, &fsize);
	setrlimit(RLIMIT_NOFILE, &nofile);
	if (py) {
		pyworker_exec(py);
		dprintf(2, "cannot execute '%s': %s\n", py->argv[0], strerror(errno));
		_exit(127);
	}
	if (sanitizer)
		execl(sanitizer, "compute-sanitizer", "--tool", tool, "--log-file", SANITIZER_LOG, "--print-limit", "100",
		      exe, "worker", (char *)NULL);
	else    /* a kept `kbx worker` (worker_keep_cuda) holds its CUDA context between runs */
		execl(exe, "kbx", "worker", kept ? "--kept" : (char *)NULL, (char *)NULL);
	dprintf(2, "cannot execute '%s': %s\n", sanitizer ? sanitizer : exe, strerror(errno));
	_exit(127);
}

static void kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void remove_workdir(const char *dir)
{
	if (*dir)
		nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The compute-sanitizer to run: $KBX_COMPUTE_SANITIZER, the toolkit's, or one on $PATH. */
static int find_sanitizer(char *out, size_t len)
{
	const char *env = getenv("KBX_COMPUTE_SANITIZER");

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return access(out, X_OK) != 0;
	}
#ifdef KBX_CUDA_INCLUDE
	{
		const char *inc = KBX_CUDA_INCLUDE, *slash = strrchr(inc, '/');

		if (slash) {
			snprintf(out, len, "%.*s/bin/compute-sanitizer", (int)(slash - inc), inc);
			if (access(out, X_OK) == 0)
				return 0;
			snprintf(out, len, "%.*s/compute-sanitizer/compute-sanitizer", (int)(slash - inc), inc);
			if (access(out, X_OK) == 0)
				return 0;
		}
	}
#endif
	return path_find_exec("compute-sanitizer", out, len) ? 1 : 0;
}

/* After a sanitized run: findings in the candidate become log lines, a warning and, for a run
 * that passed, verdict wrong; then the held done event goes out. */
static void report_sanitizer(struct watch *w, const char *workdir, const struct worker_request *req)
{
	char path[PATH_MAX], *log = NULL;
	size_t len;
	struct san_finding *f = NULL;
	struct run_summary s;
	int n = 0, i, mine = 0, first = -1;

	snprintf(path, sizeof(path), "%s/%s", workdir, SANITIZER_LOG);
	if (read_file(path, &log, &len) == KBX_OK)
		n = sanitizer_parse(log, &f);
	else
		kbx_clear_error();
	for (i = 0; i < n; i++) {
		char *line;

		if (!sanitizer_is_candidate(&f[i], req->source_name))
			continue;
		mine += f[i].count;
		if (first < 0)
			first = i;
		line = xasprintf("compute-sanitizer %s: %s:%d: %s%s%s%s", req->sanitize, *f[i].file ? f[i].file : "?",
				 f[i].line, f[i].what, *f[i].where ? " (" : "", f[i].where, *f[i].where ? ")" : "");
		if (f[i].count > 1) {
			char *more = xasprintf("%s [%d times]", line, f[i].count);

			free(line);
			line = more;
		}
		if (w->to->log)
			w->to->log(w->to->ctx, line);
		free(line);
	}
	if (w->to->log && !mine)
		w->to->log(w->to->ctx, n ? "compute-sanitizer: no errors in the candidate (only in the reference)"
					 : "compute-sanitizer: no errors");
	if (w->held && run_summary_from_json(w->held, &s) == KBX_OK) {
		if (mine) {
			char *m = xasprintf("compute-sanitizer %s: %d error%s in the candidate, first at line %d: %s%s%s%s",
					    req->sanitize, mine, mine == 1 ? "" : "s", f[first].line, f[first].what,
					    s.verdict == V_PASS ? "" : " (then: ", s.verdict == V_PASS ? "" : s.message ? s.message : "",
					    s.verdict == V_PASS ? "" : ")");

			s.warnings |= WARN(W_SANITIZER);
			if (s.verdict == V_PASS)
				s.verdict = V_WRONG;
			free(s.message);
			s.message = m;
		}
		if (w->to->done)
			w->to->done(w->to->ctx, &s);
		run_summary_free(&s);
	} else {
		kbx_clear_error();
	}
	free(w->held);
	w->held = NULL;
	w->hold = 0;
	sanitizer_findings_free(f, n);
	free(log);
}

/* A worker process: its pipes, group and working directory. One run's worker (kept = 0) is
 * ended after its run; a kept one (worker_keep) serves the next request too. */
struct worker_proc {
	pid_t pid;
	int in_fd, out_fd, err_fd;
	char workdir[64];
	int have_dir;           /* workdir exists and is ours to remove */
	int python;
	struct sbuf line;       /* stdout read past the last full line */
};

/* A kept worker process and how many runs it has served. */
struct kept_proc {
	struct worker_proc p;
	int alive;
	int runs;               /* served by the current process */
};

struct worker_keep {
	struct kept_proc slot[2];       /* [0] `kbx worker` (CUDA requests), [1] the Python worker */
	int cuda;                       /* CUDA requests are kept too (worker_keep_cuda) */
};

static enum kbx_status proc_start(struct worker_proc *wp, const char *exe, const struct pyworker_paths *py,
				  const char *sanitizer, const char *tool, int kept)
{
	struct pyworker_plan plan;
	int in_p[2], out_p[2], err_p[2];

	memset(wp, 0, sizeof(*wp));
	wp->in_fd = wp->out_fd = wp->err_fd = -1;
	snprintf(wp->workdir, sizeof(wp->workdir), "/tmp/kbx-worker-XXXXXX");
	if (pipe(in_p) || pipe(out_p) || pipe(err_p))
		return kbx_error(KBX_EWORKER, "cannot create pipes: %s", strerror(errno));
	if (!mkdtemp(wp->workdir))
		return kbx_error(KBX_EWORKER, "cannot create a working directory '%s': %s", wp->workdir, strerror(errno));
	wp->have_dir = 1;
	if (py)
		pyworker_plan(py, wp->workdir, &plan);
	wp->pid = fork();
	if (wp->pid < 0) {
		if (py)
			pyworker_plan_free(&plan);
		return kbx_error(KBX_EWORKER, "cannot start a worker: %s", strerror(errno));
	}
	if (wp->pid == 0) {
		close(in_p[1]);
		close(out_p[0]);
		close(err_p[0]);
		child(exe, py ? &plan : NULL, sanitizer, tool, wp->workdir, in_p[0], out_p[1], err_p[1], kept);
	}
	if (py)
		pyworker_plan_free(&plan);
	setpgid(wp->pid, wp->pid);
	close(in_p[0]);
	close(out_p[1]);
	close(err_p[1]);
	wp->in_fd = in_p[1];
	wp->out_fd = out_p[0];
	wp->err_fd = err_p[0];
	wp->python = py != NULL;
	signal(SIGPIPE, SIG_IGN);
	return KBX_OK;
}

/* Kill what is left of the process and its group and reap it (its working directory stays
 * until proc_remove_dir: the sanitizer's log is read from it). */
static int proc_end(struct worker_proc *wp, int kill_first)
{
	int status = 0;

	if (wp->in_fd >= 0)
		close(wp->in_fd);
	if (wp->out_fd >= 0)
		close(wp->out_fd);
	if (wp->err_fd >= 0)
		close(wp->err_fd);
	wp->in_fd = wp->out_fd = wp->err_fd = -1;
	if (wp->pid > 0) {
		if (kill_first)
			kill_group(wp->pid);
		while (waitpid(wp->pid, &status, 0) < 0 && errno == EINTR)
			;
		kill(-wp->pid, SIGKILL); /* anything the worker left behind in its group */
		wp->pid = 0;
	}
	sbuf_release(&wp->line);
	return status;
}

static void proc_remove_dir(struct worker_proc *wp)
{
	if (wp->have_dir)
		remove_workdir(wp->workdir);
	wp->have_dir = 0;
}

static int send_request(struct worker_proc *wp, const struct worker_request *req)
{
	char *reqtext = worker_request_to_json(req);
	size_t len = strlen(reqtext), off = 0;
	ssize_t n;
	int ok = 1;

	while (off < len) {
		n = write(wp->in_fd, reqtext + off, len - off);
		if (n <= 0) {
			ok = 0;
			break;
		}
		off += (size_t)n;
	}
	if (ok && write(wp->in_fd, "\n", 1) != 1)
		ok = 0;
	free(reqtext);
	return ok ? 0 : -1;
}

/* Read events until the worker ends (one run's worker) or, for a kept one, until its done
 * event. Returns KBX_OK, KBX_ECANCEL or KBX_EWORKER; *ended when the process is gone or was
 * killed (a timeout: reported through w). */
static enum kbx_status converse(struct worker_proc *wp, struct watch *w, const struct run_events *ev,
				struct run_events *proxy, int kept, worker_cancel_fn cancel, void *cancel_ctx,
				struct sbuf *errtail, int *ended)
{
	char buf[65536];
	int open_fds = 2;
	ssize_t n;

	*ended = 0;
	while (open_fds > 0 && !(kept && w->done)) {
		struct pollfd pfd[2] = { { wp->out_fd, POLLIN, 0 }, { wp->err_fd, POLLIN, 0 } };
		int r;

		if (pfd[0].fd < 0)
			pfd[0].events = 0;
		if (pfd[1].fd < 0)
			pfd[1].events = 0;
		r = poll(pfd, 2, 100);
		if (r < 0 && errno != EINTR) {
			kill_group(wp->pid);
			*ended = 1;
			return kbx_error(KBX_EWORKER, "poll: %s", strerror(errno));
		}
		if (cancel && cancel(cancel_ctx)) {
			kill_group(wp->pid);
			*ended = 1;
			return kbx_error(KBX_ECANCEL, "cancelled");
		}
		if (w->deadline > 0 && now_seconds() > w->deadline) {
			char msg[512];

			kill_group(wp->pid);
			if (w->own) {   /* kbx's own check was slow: not the candidate's time */
				snprintf(msg, sizeof(msg), "kbx's own '%s' ran past its %.0f s limit (not the candidate's "
					 "time); the worker was killed", w->phase, w->limit);
				report_end(w, V_ERROR, msg);
			} else {
				snprintf(msg, sizeof(msg), "'%s' ran past its %.0f s limit; the worker was killed", w->phase,
					 w->limit);
				report_end(w, V_TIMEOUT, msg);
			}
			*ended = 1;
			return KBX_OK;
		}
		if (pfd[1].revents & (POLLIN | POLLHUP)) {
			n = read(wp->err_fd, buf, sizeof(buf));
			if (n <= 0) {
				close(wp->err_fd);
				wp->err_fd = -1;
				open_fds--;
			} else {
				sbuf_add(errtail, buf, (size_t)n);
				if (errtail->len > STDERR_KEEP) {
					memmove(errtail->buf, errtail->buf + errtail->len - STDERR_KEEP, STDERR_KEEP);
					errtail->len = STDERR_KEEP;
					errtail->buf[errtail->len] = '\0';
				}
			}
		}
		if (pfd[0].revents & (POLLIN | POLLHUP)) {
			n = read(wp->out_fd, buf, sizeof(buf));
			if (n <= 0) {
				close(wp->out_fd);
				wp->out_fd = -1;
				open_fds--;
				continue;
			}
			sbuf_add(&wp->line, buf, (size_t)n);
			for (;;) {
				char *nl = wp->line.len ? memchr(wp->line.buf, '\n', wp->line.len) : NULL;
				size_t used;

				if (!nl)
					break;
				*nl = '\0';
				if (wp->line.buf[0])
					w->events++;
				if (wp->line.buf[0] &&
				    events_json_dispatch_ex(wp->line.buf, proxy, w->on_calibration, w->calibration_ctx) != KBX_OK &&
				    ev->log)
					ev->log(ev->ctx, kbx_last_error());
				used = (size_t)(nl - wp->line.buf) + 1;
				memmove(wp->line.buf, wp->line.buf + used, wp->line.len - used);
				wp->line.len -= used;
				wp->line.buf[wp->line.len] = '\0';
			}
		}
	}
	*ended = open_fds == 0;
	return KBX_OK;
}

static void report_death(struct watch *w, int status, const struct sbuf *errtail)
{
	char msg[STDERR_KEEP + 512];
	const char *tail = errtail->len ? str_trim(errtail->buf) : "";

	if (WIFSIGNALED(status))
		snprintf(msg, sizeof(msg), "the worker died of signal %d (%s) during '%s'%s%s", WTERMSIG(status),
			 strsignal(WTERMSIG(status)), w->phase, *tail ? ": " : "", tail);
	else
		snprintf(msg, sizeof(msg), "the worker exited with status %d during '%s'%s%s", WEXITSTATUS(status),
			 w->phase, *tail ? ": " : "", tail);
	report_end(w, V_RUNTIME_ERROR, msg);
}

static enum kbx_status run_worker(const char *exe, const struct worker_request *req, const struct run_events *ev,
				  calibration_fn on_calibration, void *calibration_ctx, worker_cancel_fn cancel,
				  void *cancel_ctx, struct worker_keep *kept)
{
	struct watch w = { .to = ev, .on_calibration = on_calibration, .calibration_ctx = calibration_ctx };
	struct run_events proxy = { &w, w_phase, w_compile, w_case, w_perf, w_log, w_done };
	struct sbuf errtail = SBUF_INIT;
	char self[4096], sanitizer_path[PATH_MAX];
	const char *sanitizer = NULL;
	enum kbx_status st = KBX_OK;
	struct pyworker_paths py;
	struct worker_proc one, *wp = &one;
	struct kept_proc *keep = kept ? &kept->slot[req->python ? 1 : 0] : NULL;
	int status = 0, ended = 0, served = 0, retried = 0;
	ssize_t n;

	if (!exe) {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return kbx_error(KBX_EWORKER, "cannot find the kbx binary: %s", strerror(errno));
		self[n] = '\0';
		exe = self;
	}
	if (req->sanitize) {
		if (!sanitizer_tool_ok(req->sanitize))
			return kbx_error(KBX_EINVAL, "unknown sanitizer tool '%s' (expected memcheck, racecheck, initcheck or "
					 "synccheck)", req->sanitize);
		if (find_sanitizer(sanitizer_path, sizeof(sanitizer_path)))
			return kbx_error(KBX_ENOTFOUND, "compute-sanitizer not found (looked for $KBX_COMPUTE_SANITIZER, "
					 "the CUDA toolkit's bin/ and $PATH)");
		sanitizer = sanitizer_path;
		w.hold = 1;
		keep = NULL;    /* the findings are read once the worker has exited */
	}
	if (req->python) {
		st = pyworker_paths(req->python_exe, req->tasks_root ? req->tasks_root : task_default_root(), exe, &py);
		if (st) {
			/* nothing can run it: say what is missing, as a verdict */
			report_end(&w, strstr(kbx_last_error(), "interpreter") ? V_NOT_RUN : V_ERROR, kbx_last_error());
			return KBX_OK;
		}
	} else if (!kept || !kept->cuda) {
		/* `kbx worker` starts in milliseconds, but opens the driver and the CUDA context anew
		 * for each run (device_s in the split): kept only when asked (worker_keep_cuda) */
		keep = NULL;
	}
again:
	if (keep) {
		wp = &keep->p;
		if (keep->alive && waitpid(wp->pid, &status, WNOHANG) != 0) {
			wp->pid = 0;         /* it ended since its last run (a lost context) */
			proc_end(wp, 0);
			proc_remove_dir(wp);
			keep->alive = 0;
		}
	}
	if (!keep || !keep->alive) {
		st = proc_start(wp, exe, req->python ? &py : NULL, sanitizer, req->sanitize, keep != NULL);
		if (st) {
			proc_end(wp, 1);
			proc_remove_dir(wp);
			return st;
		}
		if (keep) {
			keep->alive = 1;
			keep->runs = 0;
		}
	}
	if (send_request(wp, req) && keep && keep->runs) {
		/* the kept worker went away between runs: one fresh start */
		proc_end(wp, 1);
		proc_remove_dir(wp);
		st = proc_start(wp, exe, req->python ? &py : NULL, sanitizer, req->sanitize, keep != NULL);
		if (st) {
			keep->alive = 0;
			proc_end(wp, 1);
			proc_remove_dir(wp);
			return st;
		}
		keep->runs = 0;
		send_request(wp, req);
	}
	if (!keep) {
		close(wp->in_fd);       /* one request: the worker ends when it is done */
		wp->in_fd = -1;
	} else {
		keep->runs++;
	}

	w.deadline = req->compile_limit_s > 0 ? now_seconds() + req->compile_limit_s + 30 : 0;
	snprintf(w.phase, sizeof(w.phase), "start");
	w.limit = req->compile_limit_s + 30;
	if (req->python && (!keep || keep->runs == 1)) {
		/* a fresh Python worker imports torch and Triton before it can answer */
		w.deadline += 120;
		w.limit += 120;
	}
	served = keep && keep->runs > 1;
	st = converse(wp, &w, ev, &proxy, keep != NULL, cancel, cancel_ctx, &errtail, &ended);
	if (!keep || ended || st) {
		status = proc_end(wp, ended || st);
		if (keep)
			keep->alive = 0;
		if (w.hold)
			report_sanitizer(&w, wp->workdir, req);
		proc_remove_dir(wp);
	}
	/* A kept worker that lost the CUDA context in its last run retires after that run's done
	 * event; the request written meanwhile was never read: once more, to a fresh worker. */
	if (!st && !w.done && served && !retried && !w.events && WIFEXITED(status) &&
	    WEXITSTATUS(status) == WORKER_EXIT_CONTEXT_LOST) {
		retried = 1;
		sbuf_reset(&errtail);
		goto again;
	}
	if (!st && !w.done)
		report_death(&w, status, &errtail);
	sbuf_release(&errtail);
	return st;
}

static enum kbx_status sanitize_auto(struct worker_keep *keep, const char *exe, const struct worker_request *req,
				     const struct task *t, const struct run_events *ev, worker_cancel_fn cancel,
				     void *cancel_ctx);

static int is_auto(const struct worker_request *req)
{
	return req->sanitize && !strcmp(req->sanitize, "auto");
}

/* "auto": the task is loaded here, for its smallest case */
static enum kbx_status run_auto(struct worker_keep *keep, const char *exe, const struct worker_request *req,
				const struct run_events *ev, worker_cancel_fn cancel, void *cancel_ctx)
{
	char *id = xstrdup(req->task_id ? req->task_id : ""), *slash = strchr(id, '/');
	struct task *t = NULL;
	enum kbx_status st;

	if (!slash) {
		free(id);
		return kbx_error(KBX_EINVAL, "--sanitize auto: bad task id '%s'", req->task_id ? req->task_id : "");
	}
	*slash = '\0';
	st = task_load(req->tasks_root ? req->tasks_root : task_default_root(), id, slash + 1, &t);
	free(id);
	if (!st)
		st = sanitize_auto(keep, exe, req, t, ev, cancel, cancel_ctx);
	task_free(t);
	return st;
}

enum kbx_status worker_run(const char *exe, const struct worker_request *req, const struct run_events *ev,
			   worker_cancel_fn cancel, void *cancel_ctx)
{
	if (is_auto(req))
		return run_auto(NULL, exe, req, ev, cancel, cancel_ctx);
	return run_worker(exe, req, ev, NULL, NULL, cancel, cancel_ctx, NULL);
}

struct worker_keep *worker_keep_new(void)
{
	struct worker_keep *k = xcalloc(1, sizeof(*k));

	for (int i = 0; i < 2; i++)
		k->slot[i].p.in_fd = k->slot[i].p.out_fd = k->slot[i].p.err_fd = -1;
	return k;
}

void worker_keep_cuda(struct worker_keep *k, int on)
{
	k->cuda = on;
}

void worker_keep_free(struct worker_keep *k)
{
	if (!k)
		return;
	for (int i = 0; i < 2; i++)
		if (k->slot[i].alive) {
			proc_end(&k->slot[i].p, 1);     /* idle between runs: nothing of a run is lost */
			proc_remove_dir(&k->slot[i].p);
		}
	free(k);
}

enum kbx_status worker_run_kept(struct worker_keep *k, const char *exe, const struct worker_request *req,
				const struct run_events *ev, worker_cancel_fn cancel, void *cancel_ctx)
{
	if (is_auto(req))
		return run_auto(k, exe, req, ev, cancel, cancel_ctx);
	return run_worker(exe, req, ev, NULL, NULL, cancel, cancel_ctx, k);
}

/* ------------------------------------------------------------ sanitize auto ---- */

struct auto_collect {
	const struct run_events *to;
	int found;              /* the tool reported errors in the candidate */
	char *message;          /* its done message then */
};

static void ac_log(void *ctx, const char *text)
{
	struct auto_collect *a = ctx;

	/* the tool's findings and its verdict line; the sanitized run's own progress stays quiet */
	if (!strncmp(text, "compute-sanitizer", 17) && a->to->log)
		a->to->log(a->to->ctx, text);
}

static void ac_done(void *ctx, const struct run_summary *s)
{
	struct auto_collect *a = ctx;

	if (s->warnings & WARN(W_SANITIZER)) {
		a->found = 1;
		if (!a->message)
			a->message = xstrdup(s->message ? s->message : "compute-sanitizer reported errors");
	} else if (s->verdict == V_TIMEOUT || s->verdict == V_ERROR) {
		char *m = xasprintf("--sanitize auto: the sanitized run ended as %s: %s", verdict_name(s->verdict),
				    s->message ? s->message : "");

		if (a->to->log)
			a->to->log(a->to->ctx, m);
		free(m);
	}
}

/* The main run's summary marked with the sanitizers' findings (its other events go through a tee
 * unchanged, sanitize_auto). */
struct auto_mark {
	const struct run_events *to;
	const struct auto_collect *found;
};

static void am_done(void *ctx, const struct run_summary *s)
{
	const struct auto_mark *m = ctx;
	struct run_summary copy = *s;
	char *msg = NULL;

	if (m->found->found) {
		copy.warnings |= WARN(W_SANITIZER);
		if (copy.verdict == V_PASS) {
			copy.verdict = V_WRONG;
			copy.message = m->found->message;
		} else {
			msg = xasprintf("%s; and %s", s->message ? s->message : verdict_name(s->verdict), m->found->message);
			copy.message = msg;
		}
	}
	if (m->to->done)
		m->to->done(m->to->ctx, &copy);
	free(msg);
}

const char *worker_smallest_case(const struct task *t)
{
	double best = -1;
	int i, pick = -1;

	for (i = 0; i < t->ncases; i++) {
		struct problem pb;
		double bytes = 0;
		int k;

		if (problem_from_case(t, i, &pb) != KBX_OK) {
			kbx_clear_error();
			continue;
		}
		for (k = 0; k < pb.nbufs; k++)
			bytes += (double)pb.bufs[k].bytes;
		problem_free(&pb);
		/* an empty case launches nothing: nothing for a sanitizer to see */
		if (bytes > 0 && (best < 0 || bytes < best)) {
			best = bytes;
			pick = i;
		}
	}
	return pick >= 0 ? t->cases[pick].name : NULL;
}

static enum kbx_status sanitize_auto(struct worker_keep *keep, const char *exe, const struct worker_request *req,
				     const struct task *t, const struct run_events *ev, worker_cancel_fn cancel,
				     void *cancel_ctx)
{
	static const char *const tools[] = { "racecheck", "initcheck" };
	struct auto_collect found = { ev, 0, NULL };
	struct run_events collect = { &found, NULL, NULL, NULL, NULL, ac_log, ac_done };
	struct auto_mark mark = { ev, &found };
	/* every event of the main run to ev as it is, but its done event, which am_done marks */
	struct run_events pass = *ev, mark_done = { &mark, NULL, NULL, NULL, NULL, NULL, am_done };
	struct run_events_tee tee = { { &pass, &mark_done } };
	struct run_events marked;
	struct worker_request main_req = *req, sub;
	const char *small = worker_smallest_case(t);
	char path[PATH_MAX];
	enum kbx_status st = KBX_OK;
	size_t i;

	pass.done = NULL;
	marked = events_tee(&tee);
	main_req.sanitize = NULL;
	if (req->python || req->triton_dir) {
		if (ev->log)
			ev->log(ev->ctx, "--sanitize auto: compute-sanitizer runs CUDA sources only; this candidate ran without it");
	} else if (find_sanitizer(path, sizeof(path))) {
		if (ev->log)
			ev->log(ev->ctx, "--sanitize auto: compute-sanitizer not found (set KBX_COMPUTE_SANITIZER); ran without it");
	} else if (!small) {
		if (ev->log)
			ev->log(ev->ctx, "--sanitize auto: the task has no case with data; ran without it");
	} else {
		for (i = 0; i < sizeof(tools) / sizeof(tools[0]) && !st; i++) {
			char *note = xasprintf("--sanitize auto: %s on case '%s'", tools[i], small);

			if (ev->log)
				ev->log(ev->ctx, note);
			free(note);
			sub = *req;
			sub.sanitize = (char *)tools[i];
			sub.only_case = (char *)small;
			sub.no_perf = 1;
			sub.fuzz = 0;
			sub.export_dir = NULL;
			sub.launch_limit_s *= 20;
			st = run_worker(exe, &sub, &collect, NULL, NULL, cancel, cancel_ctx, NULL);
		}
	}
	if (!st)
		st = run_worker(exe, &main_req, found.found ? &marked : ev, NULL, NULL, cancel, cancel_ctx, keep);
	free(found.message);
	return st;
}

/* ------------------------------------------------------------ calibration ---- */

struct calib_wait {
	const struct run_events *progress;
	struct calibration *out;
	int got;
	enum verdict verdict;
	char message[1024];
};

static void cw_phase(void *ctx, const char *what, double limit_s)
{
	struct calib_wait *c = ctx;

	if (c->progress && c->progress->phase)
		c->progress->phase(c->progress->ctx, what, limit_s);
}

static void cw_log(void *ctx, const char *text)
{
	struct calib_wait *c = ctx;

	if (c->progress && c->progress->log)
		c->progress->log(c->progress->ctx, text);
}

static void cw_done(void *ctx, const struct run_summary *s)
{
	struct calib_wait *c = ctx;

	c->verdict = s->verdict;
	snprintf(c->message, sizeof(c->message), "%s", s->message ? s->message : "");
}

static void cw_calibration(void *ctx, const struct calibration *cal)
{
	struct calib_wait *c = ctx;

	*c->out = *cal;
	c->got = 1;
}

enum kbx_status worker_calibrate(const char *exe, int device, const struct run_events *progress,
				 struct calibration *out)
{
	struct calib_wait c = { .progress = progress, .out = out, .verdict = V_ERROR };
	struct run_events ev = { .ctx = &c, .phase = cw_phase, .log = cw_log, .done = cw_done };
	struct worker_request req;
	enum kbx_status st;

	memset(out, 0, sizeof(*out));
	worker_request_default(&req);
	req.calibrate = 1;
	req.device = device;
	st = run_worker(exe, &req, &ev, cw_calibration, &c, NULL, NULL, NULL);
	if (st)
		return st;
	if (c.got && c.verdict == V_PASS)
		return KBX_OK;
	memset(out, 0, sizeof(*out));
	if (!c.message[0])
		snprintf(c.message, sizeof(c.message), "the worker gave no calibration");
	switch (c.verdict) {
	case V_NOT_RUN:
		return kbx_error(KBX_ENODEVICE, "%s", c.message);
	case V_TIMEOUT:
		return kbx_error(KBX_ETIMEOUT, "%s", c.message);
	default:
		return kbx_error(KBX_EWORKER, "%s", c.message);
	}
}
