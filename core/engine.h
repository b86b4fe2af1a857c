/*
 * engine.h - compile, verify and time one candidate against a task's reference.
 *
 * engine_run does all GPU work of one run and reports through struct run_events (events.h).
 * It runs inside the worker process (worker.h), never in the TUI or CLI process: a candidate
 * can hang or poison the CUDA context. Steps (README.md "How a run works"; the timing in
 * doc/timing.md):
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
#include "expr.h"
#include "calibrate.h"
#include "events.h"
#include "refout.h"
#include "reftime.h"
#include "result.h"
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
	int export_perf_row;          /* with export_dir: instead of the cases, perf row N (1-based) under
				       * DIR/perfN/, its inputs drawn on the host (timing nothing) */
	int no_derived;               /* skip the derived cases (core/derive.h) */
	int fuzz;                     /* draw this many more cases; shrink the first that fails */
	int sanitize;                 /* running under compute-sanitizer: no guard zones */
	const char *triton_dir;       /* the candidate is this Triton cache entry (triton.h), not source */
	const char *triton_launch;    /* its launch line; NULL: DIR/kbx-launch.txt */
	const struct host_candidate *host; /* the candidate runs in a host (Python), not NVRTC */
	const struct calibration *calib; /* this GPU's stored calibration for the timing ceilings
	                               * (ceiling.h), or NULL: the datasheet figures alone */
	int compare_gpu;              /* --compare (enum compare_mode, gpucompare.h): COMPARE_GPU: perf
				       * rows compare the outputs on the device (gpucompare_route says
				       * which), copying them to the host only for a failing output's
				       * message; COMPARE_HOST (0): on the host; COMPARE_BOTH: on the
				       * host, and on the device too wherever the route allows, cases
				       * included, any difference an error */
	const struct ref_timing_cache *ref_timings; /* the reference's kept timings (reftime.h), or NULL:
				       * every perf row times the reference live and keeps nothing */
	const struct ref_output_cache *ref_outputs; /* the reference's kept outputs at perf rows
				       * (refout.h), or NULL: it runs at every check */
	int retime_reference;         /* --retime-reference: time it and run it live at every perf
				       * row (neither its kept timing nor its kept outputs), and keep
				       * what it gives */
	int allow_pytorch;            /* --allow-pytorch: a host candidate's outputs may come from
				       * PyTorch ops (a task cross-checked against KernelBenchX's own
				       * function, tools/crosscheck.py); never a candidate's verdict */
};

/*
 * A candidate whose calls go to a host instead of NVRTC kernels and launch lines: the Python
 * worker (pyhost.h) fills this in. The engine treats it like any candidate (its buffers are
 * poisoned and guarded, its inputs checked, its outputs compared, it is timed) except that
 * "compiling" is load and "launching" is call. Handles name one set of bound device buffers.
 */
enum host_outcome {
	HOST_OK,
	HOST_FAILED,        /* it raised: runtime_error */
	HOST_WRONG,         /* its outputs cannot be right (missing, wrong dtype, written by PyTorch
			     * ops alone, an allocation's guard zone damaged): wrong */
	HOST_COMPILE,       /* a kernel did not compile at its first call: compile_error */
	HOST_SKIP,          /* this case cannot be checked for this candidate */
	HOST_UNCALLED       /* ... and its function was not even called: nothing ran, nothing to time */
};

struct host_buffer {
	const char *name, *dir, *dtype;  /* "x", "in" | "out" | "inout", "f32" */
	const long long *shape;
	int ndim;
	unsigned long long ptr, bytes;   /* device address and size */
	unsigned long long ref_ptr;      /* out/inout: the reference's output on the device, 0 if none */
};

struct host_binding {
	unsigned long long stream;       /* the engine's CUstream */
	const struct host_buffer *bufs;
	int nbufs;
	const struct expr_env *env;      /* every binding of the problem */
};

struct host_candidate {
	void *ctx;
	/* Load the candidate (the compile step). V_PASS when it loaded; else the verdict
	 * (V_COMPILE_ERROR with diagnostics in cr, V_ABI_ERROR, V_NOT_RUN, V_ERROR) and why. */
	enum verdict (*load)(void *ctx, const struct task *t, const char *source, const char *name, int device,
			     int has_gpu, int allow_pytorch, struct compile_result *cr, char *why, size_t whylen);
	/* A handle >= 0 for these buffers, or -1 with why. */
	int (*bind)(void *ctx, const struct host_binding *b, char *why, size_t whylen);
	void (*unbind)(void *ctx, int handle);
	/* One call: checked (outputs copied into the bound buffers, synchronised, allocations
	 * checked) or timed (the call alone). HOST_OK, or the outcome with why and the candidate's
	 * line (0 unknown). */
	enum host_outcome (*call)(void *ctx, int handle, int checked, char *why, size_t whylen, int *line);
	/* log lines of the last call, or NULL (may be NULL) */
	const char *(*last_log)(void *ctx);
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
