/*
 * serve.h - the worker's side of the worker protocol (worker.h is the parent's side).
 *
 * A worker reads requests, one JSON line each (worker_request_to_json), and answers each with
 * events on its output (events.h), ending with a done event. Two workers speak it: `kbx worker`
 * (CUDA candidates) and the Python worker (pyhost.h), which is the same code loaded into a
 * Python process with a host candidate. The history database is the caller's (core knows no
 * SQLite): the compile cache and the stored calibration come through serve_env.
 */
#ifndef KBX_SERVE_H
#define KBX_SERVE_H

#include <stdio.h>

#include "calibrate.h"
#include "engine.h"
#include "gpu.h"

struct serve_env {
	void *ctx;
	const char *tasks_root;               /* when the request names none */
	const struct host_candidate *host;    /* NULL: candidates are CUDA source */
	/* The compile cache of the history at db_path: 0 and *out filled, or -1 (run without). */
	int (*open_cache)(void *ctx, const char *db_path, struct compile_cache *out);
	void (*close_cache)(void *ctx, struct compile_cache *c);
	/* The stored calibration of this device in the history at db_path: 0 when found. */
	int (*find_calibration)(void *ctx, const char *db_path, const struct gpu_info *info, struct calibration *out);
	/* The reference's kept timings (reftime.h) in the history open_cache opened: *out filled.
	 * May be NULL: then nothing is kept. */
	void (*ref_timings)(void *ctx, const struct compile_cache *opened, struct ref_timing_cache *out);
	/* The reference's kept outputs (refout.h) there too; may be NULL. */
	void (*ref_outputs)(void *ctx, const struct compile_cache *opened, struct ref_output_cache *out);
};

/* Serve requests from `in` until it ends; events go to `out`. Returns the process's exit
 * status: 0, 1 when a run failed inside kbx, 2 for a request that cannot be read, 3 when the
 * CUDA context was lost (the worker must not serve again). */
int worker_serve(FILE *in, FILE *out, const struct serve_env *env);

#endif
