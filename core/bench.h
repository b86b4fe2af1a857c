/*
 * bench.h - timing one call sequence on the GPU: triton.testing.do_bench's method and two
 * options beyond it.
 *
 * A "call" is whatever the caller times (the engine: a program's whole launch sequence), a
 * "prepare" what must precede every call, warm-up included (the engine: reset the outputs and
 * scratch of the next of several input sets, so that nothing a call leaves behind serves the
 * next), a "flush" what must precede each timed call (the engine: an L2 flush); both outside
 * the events. Every timed repetition is: prepare, flush, start event, call, end event; the
 * samples are the events' elapsed times. What differs between the modes is how many repetitions are timed and how they
 * are fed to the GPU (doc/timing.md has the whole method):
 *
 *   BENCH_FIXED   do_bench: estimate from 5 flushed calls, warm up for warmup_ms, then time
 *                 rep_ms worth of calls (capped at 100000), all enqueued before one sync.
 *   BENCH_NOISE   the same estimate and warm-up, then batches until the samples' relative
 *                 standard deviation is at most rsd_target, with at least min_samples samples
 *                 and min_ms spent timing; at max_ms (the cap) it stops whatever the noise,
 *                 and says so (stop = "cap").
 *
 * hide_latency (either mode): each batch of repetitions (64 at first) is queued behind a kernel that spins
 * until the host has enqueued the whole batch (a flag in mapped host memory), so no repetition
 * waits for the host's launch overhead; that matters for kernels of a few microseconds, whose
 * events otherwise also measure the host. The spinning kernel gives up after 2 s (the launch
 * queue filled before the batch was queued): that batch is thrown away and the next is half
 * the size, and so does every later row of the same run: the batch that fit is kept in the run's
 * struct bench_memory (bench_options.memory), never in the process, so one run's full launch
 * queue does not shrink the batches of the runs after it.
 */
#ifndef KBX_BENCH_H
#define KBX_BENCH_H

#include "gpu.h"
#include "nvml.h"
#include "stats.h"
#include "status.h"

enum bench_mode { BENCH_FIXED, BENCH_NOISE };

/* What one run's timing learns from row to row; zeroed by whoever starts the run, and owned by
 * it (one per run, never shared between runs). */
struct bench_memory {
	int hold_batch;               /* hide_latency: the batch that last fit into the launch queue;
	                               * 0 = not learnt yet (64) */
};

struct bench_options {
	enum bench_mode mode;
	double warmup_ms, rep_ms;     /* do_bench's 25 and 100 */
	int max_rep;                  /* BENCH_FIXED cap, 100000 */
	double rsd_target;            /* BENCH_NOISE: e.g. 0.005 for 0.5 % */
	int min_samples;              /* BENCH_NOISE, default 10 */
	double min_ms, max_ms;        /* BENCH_NOISE: time spent timing (host clock, flushes and
	                               * syncs included) before it may stop, and when it must */
	int hide_latency;
	struct bench_memory *memory;  /* the run's, updated by bench_run; NULL: each call starts
	                               * afresh (not part of a request: never serialised) */
};

struct bench_call {
	void *ctx;
	enum kbx_status (*call)(void *ctx);
	enum kbx_status (*flush)(void *ctx);   /* may be NULL */
	struct nvml *nvml;                     /* clock readings before and after, or NULL */
	double hint_ms;                        /* one call took this long before (0: unknown) */
	enum kbx_status (*prepare)(void *ctx); /* may be NULL; before every call, flush or not */
};

struct bench_result {
	struct sample_stats s;        /* ms per call */
	double est_ms;                /* the 5-call estimate per call, flushes included */
	double rsd;                   /* stddev / mean of the samples */
	double wall_s;                /* host time spent, estimate to last sample */
	const char *stop;             /* "count" (fixed), "noise" (target met), "cap" (max_ms) */
	int batches_dropped;          /* hide_latency: batches whose spin timed out */
	struct clock_summary clocks;  /* read after the warm-up and after the last sample */
};

void bench_options_default(struct bench_options *o);

/* Parse a mode name: "fixed" or "noise"; -1 when unknown. */
int bench_mode_parse(const char *s);
const char *bench_mode_name(enum bench_mode m);

/* Time c on g. Errors from c->call or c->flush end the measurement and are returned. */
enum kbx_status bench_run(struct gpu *g, const struct bench_call *c, const struct bench_options *o,
			  struct bench_result *out);

/* An upper bound of the seconds bench_run spends on calls of est_ms or less (for watchdogs):
 * warm-up plus repetitions, or the noise mode's cap. */
double bench_budget_s(const struct bench_options *o);

/* The number of repetitions do_bench would time for a per-call estimate of est_ms: rep_ms /
 * est_ms, at least 1 and at most cap (exposed for tests). */
int bench_fixed_count(double rep_ms, double est_ms, int cap);
/* Whether BENCH_NOISE stops after n samples with relative standard deviation rsd and elapsed_ms
 * spent timing; *why gets "noise" or "cap" when it does (exposed for tests). */
int bench_noise_done(const struct bench_options *o, int n, double rsd, double elapsed_ms, const char **why);
/* The hide_latency batch a row of o's run starts from: what o->memory learnt, else 64 (exposed
 * for tests). */
int bench_hold_batch(const struct bench_options *o);
/* A batch of *batch repetitions was dropped (its hold timed out): *dropped counts it, *batch is
 * halved and o->memory keeps the new size for the run's later rows; KBX_ETIMEOUT once even one
 * repetition cannot be queued in time, or after 20 drops (exposed for tests). */
enum kbx_status bench_batch_dropped(const struct bench_options *o, int *batch, int *dropped);

#endif
