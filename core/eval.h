/*
 * eval.h - batch evaluation (`kbx eval`): what to run, who runs it, what it came to.
 *
 * Items come from a KernelBenchX-style predictions.jsonl (one object per line, "file":
 * "Category/name.py" naming the task and "predict" holding the candidate, markdown fences
 * stripped), from a folder of candidates named after their tasks (gelu.cu, Activation/gelu.cu,
 * Activation__gelu.cu) or from one such file. Each item has a stable id (the line number or the
 * path) and the sha256 of its source, so that an evaluation can resume: every finished item is
 * appended as one JSON line to DIR/progress.jsonl (flushed and fsync'd), and a later run with the
 * same DIR skips the items recorded there with the same source.
 *
 * eval_schedule runs items on several workers (one per GPU) that take the next item from a
 * shared queue: each item runs exactly once, on whichever worker is free. The run function is
 * the caller's (cli/cmd_eval.c runs a kbx worker; tests pass a fake), so the scheduling is
 * tested without a GPU.
 *
 * eval_write_reports turns the records into DIR/metrics.json (per item: call = compiled, exe =
 * every case passed, perf = timed, verdict, speedups vs golden and vs the reference, ms, GB/s,
 * TFLOP/s, bw_fraction and flop_fraction of the GPU's calibration (null without one), message) and DIR/summary.json (overall and per category: items, call and exe rates,
 * mean and geometric-mean speedup vs golden over correct timed items, and the share of those
 * slower than golden PyTorch), as KernelBenchX reports them.
 */
#ifndef KBX_EVAL_H
#define KBX_EVAL_H

#include <stdio.h>

#include "result.h"
#include "status.h"
#include "task.h"

struct eval_item {
	char *id;               /* "line 12" of a jsonl, or the file's path */
	char *task_id;          /* "Category/name" when the catalogue knows it, else NULL */
	char *task_hint;        /* what the item said ("Activation/gelu.py", "gelu.cu") */
	char *source;
	char *source_name;      /* for diagnostics: the file, or "predictions.jsonl:12" */
	char sha[65];
	int python;             /* a Python module (lang.h: by the file's name, else its content) */
	char *refused;          /* why the source cannot be a candidate (binary, too large: lang.h), or
				 * NULL; such an item ends as an error without running */
};

/* What one item came to (one line of progress.jsonl). */
struct eval_record {
	char *id;
	char *task_id;          /* NULL when the item named no known task */
	char *category;
	char sha[65];
	char verdict[32];
	char *message;
	int call, exe, perf;    /* compiled; every case passed; timed */
	int cases_passed, cases_total;
	double speedup_golden, speedup_ref; /* < 0 when not available */
	double ms, ref_ms, golden_ms;       /* sums over the timed rows; < 0 when not timed */
	double gbps, tflops;    /* of the largest timed row; < 0 when unknown */
	double bw_fraction, flop_fraction; /* the same as fractions of the GPU's calibration; < 0 none */
	int device;             /* the worker (GPU ordinal) that ran it */
	int ref_kept_rows;      /* perf rows whose reference timing was kept from before (reftime.h) */
	int ref_outputs_kept;   /* perf-row checks that took the reference's kept outputs (refout.h) */
	double seconds;
	double started;         /* when the item began, in seconds from the evaluation's start (its
	                         * gaps and start-up show beside the items); < 0 when unknown */
	/* the worker's split of its time (run_summary); 0 when unknown (items that never reached
	 * a worker, records from before the split) */
	struct time_split split;
	/* the triage of a wrong item, from its first wrong case: the case, the first wrong stage
	 * (staged tasks), and the conclusion of the quantization lens on its first failing output,
	 * else of the stage's diagnosis (quant_conclusion); NULL where there is none */
	char *failed_case, *failed_stage, *diagnosis;
};

enum kbx_status eval_items_load(const char *source, const struct catalogue *cat, struct eval_item **items, int *n);
void eval_items_free(struct eval_item *items, int n);
/* "I/N" -> 0 <= I < N; errors name what was expected. */
enum kbx_status eval_parse_shard(const char *text, int *index, int *count);
/* Keep the items of shard I of N (every N-th, from the I-th, in load order); returns the new n. */
int eval_shard(struct eval_item *items, int n, int index, int count);
/* "0,1,3" -> ordinals; at most max of them. */
enum kbx_status eval_parse_gpus(const char *text, int *gpus, int max, int *n);

/* Note case c in r's triage when it is r's first wrong case (eval_record's failed_case, ...);
 * passing and not-run cases, and any after the first wrong one, leave r as it is. */
struct case_result;
void eval_record_triage(struct eval_record *r, const struct case_result *c);

char *eval_record_to_json(const struct eval_record *r);
enum kbx_status eval_record_from_json(const char *line, struct eval_record *r);
void eval_record_free(struct eval_record *r);
/* Read DIR/progress.jsonl (missing: none). A torn last line (a crash mid-write) is ignored. */
enum kbx_status eval_progress_load(const char *path, struct eval_record **recs, int *n);
/* Whether an item already has a record with the same id and source. */
int eval_done(const struct eval_record *recs, int n, const struct eval_item *item);

/* Run each item once on `nworkers` threads; run(item, worker, ctx, out) fills *out. done() is
 * called under a lock after each item (append to progress, draw the progress bar). */
typedef void (*eval_run_fn)(const struct eval_item *item, int worker, void *ctx, struct eval_record *out);
typedef void (*eval_done_fn)(const struct eval_record *rec, int finished, int total, void *ctx);
enum kbx_status eval_schedule(struct eval_item *const *items, int n, int nworkers, eval_run_fn run,
			      eval_done_fn done, void *ctx);

/* metrics.json and summary.json under dir; the per-category table on out (may be NULL). */
enum kbx_status eval_write_reports(const char *dir, const struct eval_record *recs, int n,
				   const struct catalogue *cat, FILE *out);

#endif
