/*
 * report.h - the explorer's model code: tasks, runs, diffs and history turned into role-tagged
 * lines (doc.h) that the screens draw. Nothing here knows about curses or screens; everything
 * here can be tested on plain text.
 */
#ifndef KBX_TUI_REPORT_H
#define KBX_TUI_REPORT_H

#include "../core/result.h"
#include "../core/rules.h"
#include "../core/task.h"
#include "../db/db.h"
#include "doc.h"
#include "model.h"
#include "runstate.h"

/* What is known about golden timings for one task. */
struct golden_info {
	const char *gpu;                /* the local device's name, NULL when none */
	const char *gpu_note;           /* why there is none ("no CUDA device: ..."), or NULL */
	const char *table;              /* matched golden table ("h200"), NULL when none */
	int rows_here;                  /* the task's rows in that table, -1 when none */
	char **tables;                  /* every table ... */
	int *rows;                      /* ... and the task's rows in it (-1: none) */
	int ntables;
};

/* ---- browser ----------------------------------------------------------------------------- */

/* A category line: name, task count, pass rate of its runs ("–" without runs). matches >= 0
 * shows the count of tasks passing the search instead of the catalogue count. */
void report_category_line(struct doc *d, const char *name, int ntasks, const struct db_category_stat *st,
			  int matches, int width);
/* A task line: verdict glyph, name, stars, best speedup or last verdict, when. */
void report_task_line(struct doc *d, const struct task *t, const struct task_hist *h, double now,
		      int show_category, int width);
/* The role and glyph for a task's history. */
int report_hist_role(const struct task_hist *h, const char **glyph);
int report_verdict_role(enum verdict v);

/* ---- task -------------------------------------------------------------------------------- */

/* Summary, contract, tolerance, cases, perf, golden, examples (lines tagged 1000 + example
 * index), then the reference source, coloured. */
void report_task(struct doc *d, const struct task *t, const struct golden_info *g, int width);
#define REPORT_TAG_EXAMPLE 1000

/* A source with line numbers, coloured (tags: line numbers from 1). */
void report_source(struct doc *d, const char *src, int width);

/* ---- results ----------------------------------------------------------------------------- */

/* The verdict line, the summary, the cases (lines tagged with the case index) and the perf rows.
 * Column %bw: a row's share of the calibrated copy bandwidth (bw_fraction), else "~" and its
 * share of peak_gbps, the theoretical bandwidth (<= 0: none). */
void report_results(struct doc *d, const struct run_record *r, const struct task *t, double peak_gbps, int width);
/* What one case says in full: message, guard zones, each output's figures against tolerance. */
void report_case_detail(struct doc *d, const struct case_result *c, const struct task *t, int width);

/* ---- diff -------------------------------------------------------------------------------- */

/* One line of header for a case's output: verdict, mismatches out of n and the maxima. */
void report_diff_header(struct doc *d, const struct task *t, const struct case_result *c,
			const struct output_result *o, int width);
/* The worst elements table: coordinates, candidate, reference, abs, rel, ULP. */
void report_worst(struct doc *d, const struct cmp_result *c, int width);
/* The error heatmap over the output's tiles in at most w x h cells, then a legend. */
void report_heatmap(struct doc *d, const struct cmp_result *c, int w, int h);
/* Histogram of log10 |error| over every compared element (cmp_result.hist, CMP_HIST bins). A
 * result stored before cmp_result carried the histogram (every bin 0) is drawn from its worst
 * elements instead, under a title that says so. */
void report_histogram(struct doc *d, const struct cmp_result *c, int w, int h);
/* Quantization lens: metrics against their thresholds, and the evidence rules (static findings
 * of the run's source, f) that matched or that the task requires. */
void report_quant_lens(struct doc *d, const struct task *t, const struct case_result *c,
		       const struct output_result *o, const struct finding *f, int nf, int width);

/* ---- compile log ------------------------------------------------------------------------- */

/* Diagnostics (lines tagged with the diagnostic's index), then the raw log. */
void report_compile_log(struct doc *d, const struct compile_result *c, int width);
/* Findings of the include check (nvrtc_source_includes_ok) as "line N: why"; returns the line or 0. */
int report_static_line(const char *why);

/* ---- help ------------------------------------------------------------------------------- */

/* Every key of the key table with its meaning, grouped by where it applies, then what the
 * glyphs and colours mean. Generated from keys.h's table, the same one that binds the keys. */
void report_help(struct doc *d, const char *theme_name, char *const *themes, int nthemes, int width);

/* ---- history ----------------------------------------------------------------------------- */

void report_history_category(struct doc *d, const struct db_category_stat *st, int ntasks, const double *series,
			     int nseries, int width);
/* One run: id, when, task or GPU, verdict, speedup, its timing against the best attempt before it
 * (vb: vsbest_for_runs; NULL or not found: "-"), candidate ms. */
/* The column headings over report_history_run's lines. */
void report_history_run_header(struct doc *d, int show_task, int width);
void report_history_run(struct doc *d, const struct db_run_row *r, const struct vsbest *vb, double now, int marked,
			int show_task, int width);
/* Two attempts side by side (verdict, speedups, per-case and per-row changes), then the source
 * diff from a to b. */
void report_compare(struct doc *d, const struct db_run_detail *a, const struct db_run_detail *b, int width);

#endif
