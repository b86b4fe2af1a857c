/*
 * engine.h - compile, verify and time one candidate against a task's reference.
 *
 * engine_run does all GPU work of one run and reports through struct run_events (events.h).
 * It runs inside the worker process (worker.h), never in the TUI or CLI process: a candidate
 * can hang or poison the CUDA context. Steps (DESIGN.md "Running a candidate"):
 *
 *   compile   candidate and reference with NVRTC (through the compile cache when given), parse
 *             launch lines, check every kernel's parameters against its launch (abi_error)
 *   cases     the task's cases, then the derived ones (derive.h: scaled, negated, boundary
 *             sizes) and, with fuzz > 0, drawn ones (the first failure shrunk). Per case: inputs from the counter-based generator; reference in its own buffers;
 *             candidate outputs and scratch poisoned, every buffer between guard zones; one
 *             synchronised launch at a time (a phase event before each, for the parent's
 *             watchdog); guard zones, input mutation, unwritten outputs, comparison, and a second
 *             run compared bit for bit
 *   perf      per row, when every case passed: fresh inputs, a correctness check at that size,
 *             then the do_bench method for candidate and reference (L2 flushed outside the timed
 *             window, events per repetition, median/p20/p80/min)
 *   done      verdict, warnings, speedups vs golden (sum of golden ms / sum of candidate ms) and
 *             vs the reference
 *
 * Without a device it compiles for sm_90 and ends with verdict not_run.
 */
#ifndef KBX_ENGINE_H
#define KBX_ENGINE_H

#include <stddef.h>

#include "bench.h"
#include "calibrate.h"
#include "events.h"
#include "status.h"
#include "task.h"


struct engine_options {
	unsigned long long seed;
	int no_perf;
	int device;
	struct bench_options bench;   /* how each perf row is timed (bench.h) */
	double launch_limit_s;        /* announced with each launch's phase event */
	double compile_limit_s;
	int max_perf_rows;            /* 0 = all rows; else only the last N (largest) */
	const char *tasks_root;       /* for golden tables and tasks/include */
	const char *save_cubin;       /* write the candidate's cubin here (absolute path), or NULL */
	const char *only_case;        /* run just this case (and no perf), or NULL */
	const char *export_dir;       /* write each case's inputs and outputs as .npy under DIR/<case>/ */
	int no_derived;               /* skip the derived cases (core/derive.h) */
	int fuzz;                     /* draw this many more cases; shrink the first that fails */
	int sanitize;                 /* running under compute-sanitizer: no guard zones */
	const char *triton_dir;       /* the candidate is this Triton cache entry (triton.h), not source */
	const char *triton_launch;    /* its launch line; NULL: DIR/kbx-launch.txt */
	const struct calibration *calib; /* this GPU's stored calibration for the timing ceilings
	                               * (ceiling.h), or NULL: the datasheet figures alone */
};

void engine_options_default(struct engine_options *o);

/* Compile cache, implemented by the caller (the history database) so core needs no SQLite. */
struct compile_cache {
	void *ctx;
	/* 0 on a hit: *image and *log are malloc'd and owned by the caller. */
	int (*get)(void *ctx, const char *key, void **image, size_t *size, char **log);
	void (*put)(void *ctx, const char *key, const char *arch, const char *options,
		    const void *image, size_t size, const char *log);
};

/* Compile src for sm_<arch> into the cache exactly as a run would (same key), unless it is there
 * already; nothing else. `kbx eval` compiles the next items on the CPU this way while the GPU runs
 * the current one, so that its worker finds them compiled. */
enum kbx_status engine_precompile(const char *src, const char *name, int arch, const char *tasks_root,
				  const struct compile_cache *cache);

/* Run `source` (named `source_name` in diagnostics) as a candidate for task t. Returns KBX_OK
 * when the run reached a verdict (reported through ev->done), an error only when kbx itself
 * failed. *sticky is set when the CUDA context is poisoned (the worker must exit). */
enum kbx_status engine_run(const struct task *t, const char *source, const char *source_name,
			   const struct engine_options *o, const struct compile_cache *cache,
			   const struct run_events *ev, int *sticky);

#endif
