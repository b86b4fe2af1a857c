/*
 * reftime.h - the reference's timings kept across runs.
 *
 * Every candidate of a task is timed against the same reference at the same perf rows; timing
 * the reference again for each of them doubles an evaluation's timing for nothing. A perf row's
 * reference timing is kept in the history (db/reftimes.c) under a key made of everything it
 * depends on: the GPU (UUID and name), the driver, kbx's version, the task, the reference's
 * compiled image, the row and its sizes, the seed and the timing method. A later run reuses it
 * when it is at most REFTIME_MAX_AGE_S old and the GPU's clocks around the candidate's timing
 * now match those around the reference's then (REFTIME_CLOCK_SLACK); otherwise, or with
 * --retime-reference, the reference is timed live and the new timing kept.
 */
#ifndef KBX_REFTIME_H
#define KBX_REFTIME_H
#include <stddef.h>

#include "nvml.h"
#include "stats.h"

#define REFTIME_MAX_AGE_S (24.0 * 3600)   /* a day: long enough for an evaluation and its reruns */
#define REFTIME_CLOCK_SLACK 0.02          /* SM and memory clocks within 2 % */

struct ref_timing {
	struct sample_stats s;        /* ms per call */
	struct clock_summary clocks;  /* around that timing (valid = 0: none, never reused) */
	double measured_at;           /* seconds since the epoch */
};

/* What a reference timing depends on; every field is part of the key. */
struct reftime_id {
	const char *gpu_uuid, *gpu_name;
	int driver_version;
	const char *kbx_version;
	const char *task_id;
	const char *ref_image_hash;   /* sha256 of the reference's compiled image, hex */
	int row;                      /* 0-based */
	const char *input_size;       /* the row's sizes as JSON text */
	unsigned long long seed;
	const char *method;           /* the timing method (reftime_method) */
};

/* Kept timings: get returns 0 and fills *out on a hit; put replaces. Either may be NULL. */
struct ref_timing_cache {
	void *ctx;
	int (*get)(void *ctx, const char *key, struct ref_timing *out);
	void (*put)(void *ctx, const char *key, const char *task_id, const char *gpu_name, int row,
		    const struct ref_timing *t);
};

/* The timing method as text: mode, warm-up and repetition budgets, caps, latency hiding. */
struct bench_options;
void reftime_method(const struct bench_options *o, char *out, size_t n);

/* The key of id: 64 hex digits. */
void reftime_key(const struct reftime_id *id, char out[65]);

/* 1 when `kept` may stand for a live timing taken now (`now_s`, with the clocks `now` read
 * around the candidate's timing at this row); 0 with the reason in why. */
int reftime_usable(const struct ref_timing *kept, const struct clock_summary *now, double now_s, double max_age_s,
		   char *why, size_t whylen);

/* "42 s", "3 min", "2 h 5 min": an age for people. */
void reftime_age_text(double seconds, char *out, size_t n);

#endif
