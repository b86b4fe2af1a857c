/*
 * Run output for the terminal (text_printer) and for scripts (json_printer).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/calibrate.h"
#include "../core/util.h"
#include "../db/vsbest.h"
#include "cli.h"

/* ------------------------------------------------------------------- text ---- */

static const char *paint(const struct text_printer *p, const char *code)
{
	return p->color ? code : "";
}

#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"
#define C_DIM "\033[2m"
#define C_BOLD "\033[1m"
#define C_OFF "\033[0m"

/* A measurement, or "-" when it is not known (negative or NaN). */
static void fmt_measure(char *buf, size_t len, double v)
{
	if (v < 0 || isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.4g", v);
}

static void tp_phase(void *ctx, const char *what, double limit_s)
{
	(void)ctx;
	(void)what;
	(void)limit_s;
}

static void tp_log(void *ctx, const char *text)
{
	struct text_printer *p = ctx;

	fprintf(p->out, "%snote      %s%s\n", paint(p, C_DIM), text, paint(p, C_OFF));
}

static void tp_compile(void *ctx, const struct compile_result *c)
{
	struct text_printer *p = ctx;
	int i;

	if (!strcmp(c->arch, "python"))    /* a module loaded by the Python worker, not compiled */
		fprintf(p->out, "load      %s%s%s  %.2f s  Python worker\n", paint(p, c->ok ? C_GREEN : C_RED),
			c->ok ? "ok" : "failed", paint(p, C_OFF), c->seconds);
	else if (c->ok)
		fprintf(p->out, "compile   %sok%s  %.2f s  %s%s\n", paint(p, C_GREEN), paint(p, C_OFF), c->seconds, c->arch,
			c->cached ? "  (cached)" : "");
	else
		fprintf(p->out, "compile   %sfailed%s  %s\n", paint(p, C_RED), paint(p, C_OFF), c->arch);
	for (i = 0; i < c->ndiags; i++) {
		const struct compile_diag *d = &c->diags[i];

		if (c->ok && strcmp(d->severity, "error") && !p->verbose && i >= 5)
			break;
		fprintf(p->out, "          line %d", d->line);
		if (d->col)
			fprintf(p->out, ":%d", d->col);
		fprintf(p->out, "  %s%s%s: %s\n", !strcmp(d->severity, "error") ? paint(p, C_RED) : paint(p, C_YELLOW),
			d->severity, paint(p, C_OFF), d->message);
	}
	if (!c->ok && !c->ndiags && c->log && *c->log)
		fprintf(p->out, "%s\n", c->log);
}

static void print_coord(FILE *out, const struct cmp_elem *e)
{
	int d;

	fputc('[', out);
	for (d = 0; d < e->ndim; d++)
		fprintf(out, "%s%lld", d ? "," : "", e->coord[d]);
	fputc(']', out);
	if (e->component)
		fputs(".imag", out);
}

/* Up to max of a comparison's worst elements, one a line, under a label of 7 columns. */
static void print_worst(FILE *out, const struct cmp_result *m, const char *label, int max)
{
	for (int j = 0; j < m->nworst && j < max; j++) {
		const struct cmp_elem *e = &m->worst[j];

		fprintf(out, "          %-7s", j ? "" : label);
		print_coord(out, e);
		fprintf(out, "  cand %-12.6g ref %-12.6g abs %-9.3g rel %-9.3g ulp %.3g\n", e->cand, e->ref, e->abs_err,
			e->rel_err, e->ulp);
	}
}

/* The quantization lens of one output: the diagnosis, the histogram in steps, the worst row and
 * column, saturation. */
static void print_quant(struct text_printer *p, const struct quant_result *q)
{
	const struct quant_profile *prof[2] = { &q->rows, &q->cols };
	size_t evidence;
	const char *conclusion;

	if (!q->valid)
		return;
	/* the conclusion first, as the explorer shows it, and what it rests on dimmed under it */
	conclusion = quant_conclusion(q->diagnosis, &evidence);
	fprintf(p->out, "          quantization: %s\n", conclusion);
	if (evidence)
		fprintf(p->out, "          %sseen:         %.*s%s\n", paint(p, C_DIM), (int)evidence, q->diagnosis,
			paint(p, C_OFF));
	fprintf(p->out, "          error in steps:");
	for (int b = 0; b < QB_COUNT; b++)
		fprintf(p->out, "  %s %llu", quant_bin_label((enum quant_bin)b), q->hist[b]);
	fprintf(p->out, "  (max %.3g, mean %.3g%s)\n", q->max_steps, q->mean_steps, q->skipped ? ", some left out" : "");
	for (int k = 0; k < 2; k++) {
		if (!prof[k]->nworst)
			continue;
		fprintf(p->out, "          worst %ss:", prof[k]->name);
		for (int w = 0; w < prof[k]->nworst; w++)
			fprintf(p->out, "%s %lld (mean %.3g, max %.3g)", w ? "," : "", prof[k]->worst[w], prof[k]->worst_mean[w],
				prof[k]->worst_max[w]);
		fprintf(p->out, "; median mean %.3g over %d\n", prof[k]->median_mean, prof[k]->n);
	}
	if (q->has_saturation)
		fprintf(p->out, "          saturation [%g, %g]: reference %llu at the ends, candidate %llu at the ends, "
			"%llu beyond, %llu missed\n", q->qmin, q->qmax, q->ref_at_end, q->cand_at_end, q->cand_beyond,
			q->cand_missed);
}

static void tp_case(void *ctx, const struct case_result *c)
{
	struct text_printer *p = ctx;
	int i;

	p->cases++;
	if (c->verdict == V_PASS) {
		double max_abs = 0, max_ulp = 0;

		for (i = 0; i < c->noutputs; i++) {
			if (c->outputs[i].cmp.max_abs > max_abs)
				max_abs = c->outputs[i].cmp.max_abs;
			if (c->outputs[i].cmp.max_ulp > max_ulp)
				max_ulp = c->outputs[i].cmp.max_ulp;
		}
		fprintf(p->out, "case      %-28s %spass%s   max abs %-9.3g ulp %-8.3g%s\n", c->name, paint(p, C_GREEN),
			paint(p, C_OFF), max_abs, max_ulp, c->nondeterministic ? "  nondeterministic" : "");
		if (!p->verbose)
			return;
	} else {
		p->cases_failed++;
		fprintf(p->out, "case      %-28s %s%s%s  %s\n", c->name, paint(p, C_RED), verdict_name(c->verdict),
			paint(p, C_OFF), c->message ? c->message : "");
	}
	if (c->first_wrong_stage[0]) {
		fprintf(p->out, "          first wrong stage: %s%s%s\n", c->first_wrong_stage,
			*c->stage_diagnosis ? ": " : "", c->stage_diagnosis);
		/* where the stage goes wrong (its buffer is flat: the places are indices) */
		if (c->stage)
			print_worst(p->out, &c->stage->cmp, "stage", 4);
	}
	for (i = 0; i < c->noutputs; i++) {
		const struct cmp_result *m = &c->outputs[i].cmp;

		if (m->pass && !p->verbose)
			continue;
		fprintf(p->out, "          output '%s': %zu elements, %zu outside tolerance (rtol %.3g atol %.3g), "
			"of which %zu NaN and %zu Inf mismatches\n", c->outputs[i].arg, m->n, m->mismatches, m->rtol, m->atol,
			m->nan_mismatches, m->inf_mismatches);
		fprintf(p->out, "          max abs %.3g  max rel %.3g  max ulp %.3g  cosine %.6f  l1_rel %.3g  rmse %.3g\n",
			m->max_abs, m->max_rel, m->max_ulp, m->cosine, m->l1_relative, m->rmse);
		{
			char note[256];

			compare_nonfinite_note(m, note, sizeof(note));
			if (note[0])
				fprintf(p->out, "          %s%s%s\n", paint(p, C_RED), note, paint(p, C_OFF));
		}
		print_quant(p, &c->outputs[i].quant);
		print_worst(p->out, m, "worst", 8);
	}
}

/* The clock conditions over the timed rows, for the line after the verdict. */
static void note_clocks(struct text_printer *p, const struct perf_result *r)
{
	const struct clock_summary *c = &r->clocks;
	double low;

	if (r->cand.n <= 0 || c->valid <= 0 || !(c->sm_mhz > 0))
		return;
	low = c->min_sm_mhz > 0 ? c->min_sm_mhz : c->sm_mhz;
	if (!p->clock_rows || low < p->clock_low_mhz)
		p->clock_low_mhz = low;
	if (c->max_sm_mhz > p->clock_max_mhz)
		p->clock_max_mhz = c->max_sm_mhz;
	if (c->reasons_valid)
		p->clock_reasons |= c->reasons;
	p->clock_rows++;
}

static void tp_perf(void *ctx, const struct perf_result *r)
{
	struct text_printer *p = ctx;
	char g[32], gb[48], tf[48], ref[32];

	note_clocks(p, r);

	/* GB/s and TFLOP/s carry their share of the GPU's calibration when it has one (calibrate.h). */
	if (!p->perf_header_done) {
		fprintf(p->out, "perf      %-4s %-24s %10s %10s %10s %10s %14s %14s\n", "row", "input_size", "ms", "p20-p80 %",
			"ref ms", "golden ms", "GB/s", "TFLOP/s");
		p->perf_header_done = 1;
	}
	if (!r->correct) {
		fprintf(p->out, "          %-4d %-24s %s%s%s\n", r->row + 1, r->input_size ? r->input_size : "",
			paint(p, C_RED), r->message ? r->message : "wrong", paint(p, C_OFF));
		return;
	}
	fmt_measure(g, sizeof(g), r->golden_ms);
	calibrate_format_rate(gb, sizeof(gb), r->gbps, r->bw_fraction);
	calibrate_format_rate(tf, sizeof(tf), r->tflops, r->flop_fraction);
	/* The reference run as the candidate is timed once: its column would repeat the number. */
	if (r->ref_is_cand)
		snprintf(ref, sizeof(ref), "(same)");
	else   /* '*': a timing kept from an earlier run (reftime.h); the notes say how old */
		snprintf(ref, sizeof(ref), "%.4g%s", r->ref.median, r->ref_kept ? "*" : "");
	fprintf(p->out, "          %-4d %-24s %10.4g %10.1f %10s %10s %14s %14s\n", r->row + 1,
		r->input_size ? r->input_size : "", r->cand.median,
		r->cand.median > 0 ? 100 * (r->cand.p80 - r->cand.p20) / r->cand.median : 0, ref, g, gb, tf);
	if (r->impossible)
		fprintf(p->out, "          %s%-4s impossible timing: %s%s\n", paint(p, C_RED), "",
			r->message ? r->message : "above a ceiling", paint(p, C_OFF));
	if (!strcmp(r->bench_stop, "cap"))
		fprintf(p->out, "          %s%-4s noise %.2f%% after %d samples: stopped at --max-time above the target%s\n",
			paint(p, C_YELLOW), "", 100 * r->cand_rsd, r->cand.n, paint(p, C_OFF));
	else if (p->verbose && r->bench_stop[0])
		fprintf(p->out, "          %-4s %s timing, %d samples, rsd %.2f%%%s\n", "", r->bench_mode, r->cand.n,
			100 * r->cand_rsd, r->hide_latency ? ", launch latency hidden" : "");
}

static void tp_done(void *ctx, const struct run_summary *s)
{
	struct text_printer *p = ctx;
	char *w = warnings_string(s->warnings);

	p->verdict = s->verdict;
	fprintf(p->out, "verdict   %s%s%s%s", paint(p, C_BOLD),
		s->verdict == V_PASS ? paint(p, C_GREEN) : paint(p, C_RED), verdict_name(s->verdict), paint(p, C_OFF));
	if (s->cases_total)
		fprintf(p->out, " · %d/%d cases", s->cases_passed, s->cases_total);
	if (s->perf_unchecked)
		fprintf(p->out, " · %sperf sizes not checked (--no-perf)%s", paint(p, C_RED), paint(p, C_OFF));
	if (s->speedup_golden >= 0)
		fprintf(p->out, " · %.3gx vs golden (%s)", s->speedup_golden, s->golden_table);
	else if (s->verdict == V_PASS && s->ref_ms_sum > 0)
		fprintf(p->out, " · no golden speedup%s", s->golden_table[0] ? "" : " (no table for this GPU)");
	if (s->speedup_ref >= 0)
		fprintf(p->out, " · %.3gx vs reference", s->speedup_ref);
	if (*w)
		fprintf(p->out, " · warnings: %s", w);
	fputc('\n', p->out);
	if (s->message && *s->message)
		fprintf(p->out, "          %s\n", s->message);
	free(w);
}

struct run_events text_printer_events(struct text_printer *p)
{
	struct run_events ev = { p, tp_phase, tp_compile, tp_case, tp_perf, tp_log, tp_done };

	p->verdict = V_ERROR;
	return ev;
}

static const char *change_color(enum timing_change c)
{
	switch (c) {
	case TC_FASTER: return C_GREEN;
	case TC_SLOWER: return C_RED;
	case TC_UNCLEAR: return C_YELLOW;
	case TC_SAME: break;
	}
	return "";
}

/* "2026-11-30", the day a run was recorded, in local time; "-" when unknown. */
static void fmt_day(double at, char *buf, size_t len)
{
	time_t t = (time_t)at;
	struct tm tm;

	if (!(at > 0) || !localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d", &tm))
		snprintf(buf, len, "-");
}

void text_printer_epilogue(struct text_printer *p, const struct vsbest *vb)
{
	char day[32], why[128];

	if (vb && vb->found) {
		fmt_day(vb->best_at, day, sizeof(day));
		fprintf(p->out, "vs best   %s%s%s · run #%lld (%s): %s\n", p->color ? change_color(vb->change) : "",
			vsbest_label(vb->change), paint(p, C_OFF), vb->best_id, day, vb->why);
	}
	/* Only when it matters: a slowdown reason says the figures above may read slow. */
	if (p->clock_rows && clock_reasons_slowdown(p->clock_reasons)) {
		clock_reasons_text(p->clock_reasons, why, sizeof(why));
		fprintf(p->out, "clocks    %s%.0f MHz", paint(p, C_YELLOW), p->clock_low_mhz);
		if (p->clock_max_mhz > 0)
			fprintf(p->out, " of %.0f", p->clock_max_mhz);
		fprintf(p->out, ", %s%s\n", why, paint(p, C_OFF));
	}
}

/* ------------------------------------------------------------------- json ---- */

struct json_printer {
	json_t *doc, *cases, *perf, *logs;
	enum verdict verdict;
};

static void add_parsed(json_t *dst_array, json_t *dst_obj, const char *key, char *text)
{
	json_t *v = text ? json_loads(text, 0, NULL) : NULL;

	free(text);
	if (!v)
		v = json_null();
	if (dst_array)
		json_array_append_new(dst_array, v);
	else
		json_object_set_new(dst_obj, key, v);
}

static void jp_phase(void *ctx, const char *what, double limit_s)
{
	(void)ctx;
	(void)what;
	(void)limit_s;
}

static void jp_compile(void *ctx, const struct compile_result *c)
{
	struct json_printer *p = ctx;

	add_parsed(NULL, p->doc, "compile", compile_result_to_json(c));
}

static void jp_case(void *ctx, const struct case_result *c)
{
	struct json_printer *p = ctx;

	add_parsed(p->cases, NULL, NULL, case_result_to_json(c));
}

static void jp_perf(void *ctx, const struct perf_result *r)
{
	struct json_printer *p = ctx;

	add_parsed(p->perf, NULL, NULL, perf_result_to_json(r));
}

static void jp_log(void *ctx, const char *text)
{
	struct json_printer *p = ctx;

	json_t *s = json_string(text);

	/* A log line is not always valid UTF-8 (a compile log can carry anything). */
	json_array_append_new(p->logs, s ? s : json_stringn_nocheck(text, strlen(text)));
}

static void jp_done(void *ctx, const struct run_summary *s)
{
	struct json_printer *p = ctx;

	p->verdict = s->verdict;
	json_object_set_new(p->doc, "verdict", json_string(verdict_name(s->verdict)));
	add_parsed(NULL, p->doc, "summary", run_summary_to_json(s));
}

struct json_printer *json_printer_new(const char *task_id)
{
	struct json_printer *p = xcalloc(1, sizeof(*p));

	p->doc = json_object();
	p->cases = json_array();
	p->perf = json_array();
	p->logs = json_array();
	p->verdict = V_ERROR;
	json_object_set_new(p->doc, "task", json_string(task_id));
	json_object_set(p->doc, "cases", p->cases);
	json_object_set(p->doc, "perf", p->perf);
	json_object_set(p->doc, "logs", p->logs);
	return p;
}

struct run_events json_printer_events(struct json_printer *p)
{
	struct run_events ev = { p, jp_phase, jp_compile, jp_case, jp_perf, jp_log, jp_done };

	return ev;
}

enum verdict json_printer_verdict(const struct json_printer *p)
{
	return p->verdict;
}

void json_printer_vs_best(struct json_printer *p, const struct vsbest *vb)
{
	json_t *o, *rows;

	if (!vb || !vb->found) {
		json_object_set_new(p->doc, "vs_best", json_null());
		return;
	}
	rows = json_array();
	for (int i = 0; i < vb->nrows; i++) {
		const struct vsbest_row *r = &vb->rows[i];

		json_array_append_new(rows, json_pack("{s:i, s:o, s:s, s:s, s:f, s:f}", "row", r->row, "input_size",
						      r->input_size ? json_string(r->input_size) : json_null(),
						      "verdict", timing_change_name(r->change), "why", r->why, "ms",
						      r->now_ms, "best_ms", r->best_ms));
	}
	o = json_pack("{s:s, s:I, s:f, s:s, s:i, s:i, s:o}", "verdict", timing_change_name(vb->change), "run",
		      (json_int_t)vb->best_id, "created_at", vb->best_at, "why", vb->why, "timed", vb->timed,
		      "shared", vb->shared, "rows", rows);
	json_object_set_new(p->doc, "vs_best", o ? o : json_null());
}

void json_printer_dump(struct json_printer *p, FILE *out)
{
	json_dumpf(p->doc, out, JSON_INDENT(2));
	fputc('\n', out);
}

void json_printer_free(struct json_printer *p)
{
	if (!p)
		return;
	json_decref(p->cases);
	json_decref(p->perf);
	json_decref(p->logs);
	json_decref(p->doc);
	free(p);
}
