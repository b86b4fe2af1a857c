#include "serve.h"

#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "util.h"
#include "worker.h"

/* {"op":"calibrate"}: measure the device, answer with a calibration event, then done. */
static int serve_calibrate(FILE *out, const struct worker_request *req, const struct run_events *ev)
{
	struct calibration cal;
	struct run_summary s;
	enum kbx_status st;

	memset(&s, 0, sizeof(s));
	s.speedup_golden = s.speedup_ref = -1;
	s.cand_ms_sum = s.ref_ms_sum = s.golden_ms_sum = -1;
	st = calibrate_device(req->device, ev, &cal);
	if (st == KBX_OK) {
		events_json_calibration(out, &cal);
		s.verdict = V_PASS;
		snprintf(s.gpu, sizeof(s.gpu), "%s", cal.gpu_name);
	} else {
		s.verdict = st == KBX_ENODEVICE || st == KBX_ENOGPUBUILD ? V_NOT_RUN : V_ERROR;
		s.message = (char *)kbx_last_error();
	}
	ev->done(ev->ctx, &s);
	fflush(out);
	return st ? 1 : 0;
}

/* The stored calibration of the device a run is about to use, for the perf rows' fractions;
 * NULL when there is none (or no device: the engine says so in its own words). */
static const struct calibration *run_calibration(const struct serve_env *env, const struct worker_request *req,
						 struct calibration *cal)
{
	struct gpu_info info;

	if (!req->calib_db || req->no_perf || !env->find_calibration || gpu_probe(req->device, &info, NULL) != KBX_OK ||
	    env->find_calibration(env->ctx, req->calib_db, &info, cal) != 0) {
		kbx_clear_error();
		return NULL;
	}
	return cal;
}

static void options_from_request(const struct worker_request *req, const struct serve_env *env,
				 struct engine_options *o)
{
	engine_options_default(o);
	o->seed = req->seed;
	o->no_perf = req->no_perf;
	o->device = req->device;
	o->max_perf_rows = req->max_perf_rows;
	o->bench = req->bench;
	o->launch_limit_s = req->launch_limit_s;
	o->compile_limit_s = req->compile_limit_s;
	o->tasks_root = req->tasks_root ? req->tasks_root : env->tasks_root;
	o->save_cubin = req->save_cubin;
	o->only_case = req->only_case;
	o->no_derived = req->no_derived;
	o->fuzz = req->fuzz;
	o->sanitize = req->sanitize != NULL;
	o->export_dir = req->export_dir;
	o->export_perf_row = req->export_perf_row;
	o->triton_dir = req->triton_dir;
	o->triton_launch = req->triton_launch;
	o->host = env->host;
	o->compare_gpu = req->compare_gpu;
	o->retime_reference = req->retime_reference;
	o->allow_pytorch = req->allow_pytorch;
}

/* One request: a verdict through a done event. Returns like worker_serve. */
static int serve_one(FILE *out, const char *line, const struct serve_env *env)
{
	struct worker_request req;
	struct engine_options o;
	struct compile_cache cache;
	struct run_events ev = events_json_writer(out), annotated;
	struct calibrate_annotator ann = { &ev, NULL, 0 };
	struct calibration cal;
	struct ref_timing_cache reftimes;
	struct ref_output_cache refouts;
	struct bench_memory timing = { 0 };  /* this run's alone: the next request starts afresh */
	struct task *t = NULL;
	char *slash;
	int sticky = 0, have_cache = 0;
	enum kbx_status st;

	if (worker_request_from_json(line, &req)) {
		fprintf(stderr, "worker: %s\n", kbx_last_error());
		return 2;
	}
	if (req.calibrate) {
		int rc = serve_calibrate(out, &req, &ev);

		worker_request_free(&req);
		return rc;
	}
	slash = req.task_id ? strchr(req.task_id, '/') : NULL;
	if (!slash) {
		fprintf(stderr, "worker: bad task id\n");
		worker_request_free(&req);
		return 2;
	}
	*slash = '\0';
	st = task_load(req.tasks_root ? req.tasks_root : env->tasks_root, req.task_id, slash + 1, &t);
	*slash = '/';
	if (st) {
		fprintf(stderr, "worker: %s\n", kbx_last_error());
		worker_request_free(&req);
		return 2;
	}
	memset(&cache, 0, sizeof(cache));
	if (req.db_path && env->open_cache && env->open_cache(env->ctx, req.db_path, &cache) == 0)
		have_cache = 1;
	options_from_request(&req, env, &o);
	if (have_cache && env->ref_timings) {
		env->ref_timings(env->ctx, &cache, &reftimes);
		o.ref_timings = &reftimes;
	}
	if (have_cache && env->ref_outputs) {
		env->ref_outputs(env->ctx, &cache, &refouts);
		o.ref_outputs = &refouts;
	}
	o.bench.memory = &timing;
	ann.cal = run_calibration(env, &req, &cal);
	o.calib = ann.cal;
	ann.tensor = calibrate_task_tensor(t);
	annotated = calibrate_annotator_events(&ann);
	st = engine_run(t, req.source, req.source_name ? req.source_name : "candidate.cu", &o,
			have_cache ? &cache : NULL, &annotated, &sticky);
	fflush(out);
	if (have_cache)
		env->close_cache(env->ctx, &cache);
	task_free(t);
	worker_request_free(&req);
	if (st)
		return 1;
	return sticky ? WORKER_EXIT_CONTEXT_LOST : 0;
}

int worker_serve(FILE *in, FILE *out, const struct serve_env *env)
{
	char *line = NULL;
	size_t cap = 0;
	int rc = 2, served = 0;

	while (getline(&line, &cap, in) >= 0) {
		if (!*str_trim(line))
			continue;
		rc = serve_one(out, line, env);
		served++;
		if (rc == WORKER_EXIT_CONTEXT_LOST || rc == 2)
			break;
	}
	free(line);
	if (!served)
		fprintf(stderr, "worker: no request on stdin\n");
	return rc;
}
