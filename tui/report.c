/*
 * report.c - tasks, runs, diffs and history as role-tagged lines.
 */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../core/lang.h"
#include "../core/problem.h"
#include "../core/reftime.h"
#include "../core/util.h"
#include "keys.h"
#include "layout.h"
#include "syntax.h"
#include "report_int.h"
#include "textdiff.h"
#include "theme.h"

/* ---- small pieces ------------------------------------------------------------------------ */

int report_verdict_role(enum verdict v)
{
	switch (v) {
	case V_PASS: return ROLE_PASS;
	case V_WRONG: return ROLE_FAIL;
	case V_IMPOSSIBLE_TIMING: return ROLE_FAIL;
	case V_NOT_RUN: return ROLE_NOTRUN;
	case V_COMPILE_ERROR:
	case V_ABI_ERROR:
	case V_RUNTIME_ERROR:
	case V_TIMEOUT:
	case V_ERROR:
	case V_COUNT:
		break;
	}
	return ROLE_ERROR;
}

/* Verdicts in 9 columns or fewer, for narrow lists. */
static const char *verdict_short(enum verdict v)
{
	switch (v) {
	case V_COMPILE_ERROR: return "compile";
	case V_ABI_ERROR: return "abi";
	case V_RUNTIME_ERROR: return "runtime";
	case V_NOT_RUN: return "not run";
	case V_IMPOSSIBLE_TIMING: return "too fast";
	default: return verdict_name(v);
	}
}

static const char *verdict_glyph(enum verdict v)
{
	switch (v) {
	case V_PASS: return glyphs()->pass;
	case V_NOT_RUN: return glyphs()->untried;
	case V_WRONG:
	case V_IMPOSSIBLE_TIMING: return glyphs()->fail;
	default: return glyphs()->err;
	}
}

int report_hist_role(const struct task_hist *h, const char **glyph)
{
	if (!h || h->attempts <= 0) {
		*glyph = glyphs()->untried;
		return ROLE_NOTRUN;
	}
	*glyph = verdict_glyph(h->last);
	return report_verdict_role(h->last);
}

/* A timing verdict against the best earlier attempt, coloured like the verdicts it resembles. */
static int change_role(enum timing_change c)
{
	switch (c) {
	case TC_FASTER: return ROLE_PASS;
	case TC_SLOWER: return ROLE_FAIL;
	case TC_UNCLEAR: return ROLE_WARN;
	case TC_SAME: break;
	}
	return ROLE_NORMAL;
}

static void heading(struct doc *d, const char *text)
{
	doc_add(d, ROLE_HEADING, text);
	doc_newline(d);
}

static void label(struct doc *d, const char *name, int width)
{
	doc_addcol(d, ROLE_LABEL, name, width, 0);
}

/* ---- browser ----------------------------------------------------------------------------- */

void report_category_line(struct doc *d, const char *name, int ntasks, const struct db_category_stat *st,
			  int matches, int width)
{
	char num[16], rate[16];
	int namew = width - 4 - 5 - 2;

	if (namew < 4)
		namew = 4;
	doc_add(d, ROLE_NORMAL, " ");
	doc_addcol(d, matches == 0 ? ROLE_DIM : ROLE_NORMAL, name, namew, 0);
	snprintf(num, sizeof(num), "%d", matches >= 0 ? matches : ntasks);
	doc_addcol(d, matches >= 0 ? ROLE_ACCENT : ROLE_NUMBER, num, 4, 1);
	if (st && st->attempts > 0) {
		int pct = (int)floor(100.0 * st->passes / st->attempts + 0.5);

		snprintf(rate, sizeof(rate), "%d%%", pct);
		doc_addcol(d, pct >= 50 ? ROLE_PASS : pct > 0 ? ROLE_WARN : ROLE_FAIL, rate, 5, 1);
	} else {
		doc_addcol(d, ROLE_DIM, "-", 5, 1);
	}
	doc_pad(d, ROLE_NORMAL, width);
}

/* The task list shows summaries once the name column can be as wide as the catalogue's longest
 * name (46 columns; 53 with its category) and leave the summary REPORT_SUMMARY_MIN columns. */
#define REPORT_SUMMARY_NAMEW(with_category) ((with_category) ? 54 : 47)
#define REPORT_SUMMARY_MIN 30

void report_task_line(struct doc *d, const struct task *t, const struct task_hist *h, double now,
		      int show_category, int width)
{
	const char *g;
	int role = report_hist_role(h, &g), namew;
	char stars[64], result[32], ago[32];
	char *name = show_category ? xasprintf("%s/%s", t->category, t->name) : xstrdup(t->name);

	/* " ✓ name ... ★★☆☆☆  1.42x   2m ago", then the summary when the pane has room for it */
	namew = width - 3 - 7 - 9 - 9;
	if (namew >= REPORT_SUMMARY_NAMEW(show_category) + 2 + REPORT_SUMMARY_MIN)
		namew = REPORT_SUMMARY_NAMEW(show_category);
	if (namew < 8)
		namew = 8;
	doc_add(d, ROLE_NORMAL, " ");
	doc_add(d, role, g);
	doc_add(d, ROLE_NORMAL, " ");
	doc_addcol(d, ROLE_NORMAL, name, namew, 0);
	fmt_stars(t->difficulty, stars, sizeof(stars));
	doc_add(d, ROLE_NORMAL, " ");
	doc_addcol(d, ROLE_STAR, stars, 5, 0);
	doc_add(d, ROLE_NORMAL, " ");
	if (h && h->attempts > 0) {
		if (h->best_speedup >= 0) {
			fmt_speedup(h->best_speedup, result, sizeof(result));
			doc_addcol(d, ROLE_NUMBER, result, 9, 1);
		} else {
			doc_addcol(d, report_verdict_role(h->last), verdict_short(h->last), 9, 1);
		}
		fmt_ago(now, h->last_at, ago, sizeof(ago));
		doc_add(d, ROLE_NORMAL, " ");
		doc_addcol(d, ROLE_DIM, ago, 8, 1);
	} else {
		doc_addcol(d, ROLE_DIM, "-", 9, 1);
		doc_pad(d, ROLE_NORMAL, 3 + namew + 7 + 18);
	}
	if (t->summary && width - (3 + namew + 7 + 18) >= REPORT_SUMMARY_MIN + 2) {
		int room = width - (3 + namew + 7 + 18) - 2;

		doc_add(d, ROLE_NORMAL, "  ");
		doc_addcol(d, ROLE_DIM, t->summary, room, 0);
	}
	doc_pad(d, ROLE_NORMAL, width);
	free(name);
}

/* ---- task -------------------------------------------------------------------------------- */

static char *shape_text(const struct task_arg *a)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_adds(&sb, "[");
	for (int i = 0; i < a->ndim; i++)
		sbuf_addf(&sb, "%s%s", i ? ", " : "", a->shape[i]);
	sbuf_adds(&sb, "]");
	return sbuf_detach(&sb);
}

static void tolerance_lines(struct doc *d, const struct tolerance *tol)
{
	label(d, "tolerance", 12);
	if (tol->metric) {
		int any = 0;

		if (tol->cosine_sim >= 0) {
			doc_addf(d, ROLE_NUMBER, "cosine >= %g", tol->cosine_sim);
			any = 1;
		}
		if (tol->l1_relative >= 0) {
			doc_addf(d, ROLE_NUMBER, "%sl1_relative <= %g", any ? ", " : "", tol->l1_relative);
			any = 1;
		}
		if (tol->rmse >= 0)
			doc_addf(d, ROLE_NUMBER, "%srmse <= %g", any ? ", " : "", tol->rmse);
		doc_add(d, ROLE_DIM, "  (metrics replace the elementwise test)");
	} else if (tol->rtol >= 0 || tol->atol >= 0) {
		doc_addf(d, ROLE_NUMBER, "rtol %g, atol %g", tol->rtol >= 0 ? tol->rtol : 0.0,
			 tol->atol >= 0 ? tol->atol : 0.0);
		doc_add(d, ROLE_DIM, "  |c - r| <= atol + rtol * |r|");
	} else {
		doc_add(d, ROLE_NORMAL, "by output dtype: f16/bf16 5e-3, f32/f64 1e-5, integers exact");
	}
	doc_newline(d);
}

/* The golden availability, wrapped at the width: a long device name or note and the list of
 * tables go on below rather than off the edge. */
static void golden_lines(struct doc *d, const struct golden_info *g, int width)
{
	struct sbuf sb = SBUF_INIT;
	int role = ROLE_WARN;

	label(d, "golden", 12);
	if (!g) {
		doc_add(d, ROLE_DIM, "unknown");
		doc_newline(d);
		return;
	}
	if (g->gpu && g->table && g->rows_here > 0) {
		role = ROLE_PASS;
		sbuf_addf(&sb, "%s: table %s, %d rows for this task", g->gpu, g->table, g->rows_here);
	} else if (g->gpu && g->table) {
		sbuf_addf(&sb, "%s: table %s has no rows for this task", g->gpu, g->table);
	} else if (g->gpu) {
		sbuf_addf(&sb, "%s: no golden table for this GPU (no speedup vs golden)", g->gpu);
	} else {
		sbuf_addf(&sb, "%s (speedups vs golden need a GPU with a table)", g->gpu_note ? g->gpu_note : "no CUDA device");
	}
	doc_wrap(d, role, sb.buf, width, 12);
	sbuf_reset(&sb);
	if (g->ntables) {
		sbuf_adds(&sb, "tables: ");
		for (int i = 0; i < g->ntables; i++) {
			if (g->rows[i] > 0)
				sbuf_addf(&sb, "%s%s (%d)", i ? ", " : "", g->tables[i], g->rows[i]);
			else
				sbuf_addf(&sb, "%s%s (-)", i ? ", " : "", g->tables[i]);
		}
		label(d, "", 12);
		doc_wrap(d, ROLE_DIM, sb.buf, width, 12);
	}
	sbuf_release(&sb);
}

static void perf_lines(struct doc *d, const struct task *t, int width)
{
	label(d, "perf", 12);
	if (!t->perf.nrows) {
		doc_add(d, ROLE_DIM, "no perf workload");
		doc_newline(d);
		return;
	}
	doc_addf(d, ROLE_NUMBER, "%d rows", t->perf.nrows);
	{
		struct problem p;

		if (problem_from_perf(t, 0, &p) == KBX_OK) {
			doc_add(d, ROLE_NORMAL, "  from ");
			doc_add(d, ROLE_NUMBER, p.input_size ? p.input_size : "?");
			problem_free(&p);
		}
		if (t->perf.nrows > 1 && problem_from_perf(t, t->perf.nrows - 1, &p) == KBX_OK) {
			doc_add(d, ROLE_NORMAL, " to ");
			doc_add(d, ROLE_NUMBER, p.input_size ? p.input_size : "?");
			problem_free(&p);
		}
	}
	doc_newline(d);
	for (int i = 0; i < t->perf.nb; i++) {
		label(d, "", 14);
		doc_add(d, ROLE_NORMAL, t->perf.b[i].key);
		doc_add(d, ROLE_DIM, " = ");
		doc_add(d, ROLE_NORMAL, t->perf.b[i].value);
		doc_newline(d);
	}
	if (t->perf.bytes) {
		label(d, "", 14);
		doc_add(d, ROLE_LABEL, "bytes");
		doc_add(d, ROLE_DIM, " = ");
		doc_add(d, ROLE_NORMAL, t->perf.bytes);
		doc_newline(d);
	}
	if (t->perf.flops) {
		label(d, "", 14);
		doc_add(d, ROLE_LABEL, "flops");
		doc_add(d, ROLE_DIM, " = ");
		doc_add(d, ROLE_NORMAL, t->perf.flops);
		doc_newline(d);
	}
	(void)width;
}

/* The first line of an example says what it shows: "// @kbx expect wrong". */
static char *example_expect(const char *path)
{
	char *text, *res = NULL;
	size_t len;

	if (read_file(path, &text, &len) != KBX_OK) {
		kbx_clear_error();
		return NULL;
	}
	{
		const char *p = strstr(text, "@kbx expect");

		if (p) {
			p += strlen("@kbx expect");
			while (*p == ' ')
				p++;
			res = xstrndup(p, strcspn(p, "\n"));
		}
	}
	free(text);
	return res;
}

void report_source(struct doc *d, const char *src, int width)
{
	const char *p = src ? src : "";
	int line = 1, in_comment = 0, nlines = 1, numw, python = lang_of_text(p) == LANG_PYTHON;

	for (const char *q = p; *q; q++)
		nlines += *q == '\n';
	numw = nlines >= 10000 ? 5 : nlines >= 1000 ? 4 : 3;
	while (*p) {
		size_t n = strcspn(p, "\n");
		size_t len = n;

		if (len && p[len - 1] == '\r')
			len--;
		doc_addf(d, ROLE_LINENR, "%*d ", numw, line);
		syntax_line_lang(d, p, len, &in_comment, python);
		doc_tag(d, line);
		doc_newline(d);
		p += n;
		if (*p)
			p++;
		line++;
	}
	(void)width;
}

void report_task(struct doc *d, const struct task *t, const struct golden_info *g, int width)
{
	char stars[64];

	fmt_stars(t->difficulty, stars, sizeof(stars));
	doc_add(d, ROLE_HEADING, t->id);
	doc_add(d, ROLE_NORMAL, "  ");
	doc_add(d, ROLE_STAR, stars);
	if (t->mirrors) {
		doc_add(d, ROLE_DIM, "  mirrors KernelBenchX ");
		doc_add(d, ROLE_DIM, t->mirrors);
	}
	doc_newline(d);
	doc_newline(d);
	doc_wrap(d, ROLE_NORMAL, t->summary ? t->summary : "(no summary)", width, 0);
	doc_newline(d);

	heading(d, "contract");
	for (int i = 0; i < t->nargs; i++) {
		const struct task_arg *a = &t->args[i];

		doc_add(d, ROLE_NORMAL, "  ");
		doc_addcol(d, ROLE_NORMAL, a->name, 16, 0);
		doc_addcol(d, a->dir == ARG_SCALAR ? ROLE_DIM : ROLE_KEYWORD, arg_dir_name(a->dir), 7, 0);
		doc_addcol(d, ROLE_TYPE, dtype_name(a->dtype), 6, 0);
		if (a->dir != ARG_SCALAR) {
			char *sh = shape_text(a);

			doc_add(d, ROLE_NUMBER, sh);
			free(sh);
		}
		doc_newline(d);
	}
	doc_newline(d);
	label(d, "verifier", 12);
	doc_add(d, ROLE_NORMAL, t->verifier ? t->verifier : "elementwise");
	doc_newline(d);
	tolerance_lines(d, &t->tol);
	perf_lines(d, t, width);
	golden_lines(d, g, width);
	doc_newline(d);

	doc_addf(d, ROLE_HEADING, "cases (%d)", t->ncases);
	doc_newline(d);
	for (int i = 0; i < t->ncases; i++) {
		struct sbuf sb = SBUF_INIT;

		for (int j = 0; j < t->cases[i].nb; j++)
			sbuf_addf(&sb, "%s%s=%s", j ? " " : "", t->cases[i].b[j].key, t->cases[i].b[j].value);
		doc_add(d, ROLE_NORMAL, "  ");
		doc_addcol(d, ROLE_LABEL, t->cases[i].name, 28, 0);
		doc_add(d, ROLE_NORMAL, " ");
		doc_addcol(d, ROLE_DIM, sb.buf ? sb.buf : "", width - 31 > 10 ? width - 31 : 10, 0);
		doc_newline(d);
		sbuf_release(&sb);
	}
	doc_newline(d);

	doc_addf(d, ROLE_HEADING, "examples (%d)", t->nexamples);
	doc_add(d, ROLE_DIM, t->nexamples ? "  press 1-9 to load one as the candidate" : "");
	doc_newline(d);
	for (int i = 0; i < t->nexamples; i++) {
		const char *base = strrchr(t->examples[i], '/');
		char *expect = example_expect(t->examples[i]);
		enum verdict v;

		doc_addf(d, ROLE_KEY, "  %d ", i + 1);
		doc_addcol(d, ROLE_NORMAL, base ? base + 1 : t->examples[i], 36, 0);
		if (expect) {
			size_t vl = strcspn(expect, " ");
			char vname[32];

			snprintf(vname, sizeof(vname), "%.*s", (int)(vl < 31 ? vl : 31), expect);
			doc_add(d, ROLE_DIM, " expect ");
			doc_add(d, verdict_parse(vname, &v) ? report_verdict_role(v) : ROLE_NORMAL, vname);
		}
		doc_tag(d, REPORT_TAG_EXAMPLE + i);
		doc_newline(d);
		free(expect);
	}
	doc_newline(d);

	doc_add(d, ROLE_HEADING, "reference");
	doc_add(d, ROLE_DIM, "  ");
	{
		/* A long path keeps its end (the task's folder and file) and loses its start. */
		size_t len = strlen(t->reference_path), avail = width > 14 ? (size_t)width - 11 : 3;

		if (len > avail) {
			doc_add(d, ROLE_DIM, "...");
			doc_add(d, ROLE_DIM, t->reference_path + len - (avail - 3));
		} else {
			doc_add(d, ROLE_DIM, t->reference_path);
		}
	}
	doc_newline(d);
	{
		char *src;
		size_t len;

		if (read_file(t->reference_path, &src, &len) == KBX_OK) {
			size_t at = (size_t)d->n;

			report_source(d, src, width);
			/* the reference's line tags would read as example tags: drop them */
			for (int i = (int)at; i < d->n; i++)
				d->lines[i].tag = -1;
			free(src);
		} else {
			doc_add(d, ROLE_ERROR, kbx_last_error());
			doc_newline(d);
			kbx_clear_error();
		}
	}
}

/* ---- results ----------------------------------------------------------------------------- */

struct case_sum {
	double max_abs, max_rel, max_ulp, cosine, l1, rmse;
	unsigned long long mism, n;
	unsigned long long nonfinite;   /* NaN/inf against a finite value, either way round */
};

static void case_sum(const struct case_result *c, struct case_sum *s)
{
	memset(s, 0, sizeof(*s));
	s->cosine = 1;
	for (int i = 0; i < c->noutputs; i++) {
		const struct cmp_result *m = &c->outputs[i].cmp;

		if (m->max_abs > s->max_abs || isnan(m->max_abs))
			s->max_abs = m->max_abs;
		if (m->max_rel > s->max_rel || isnan(m->max_rel))
			s->max_rel = m->max_rel;
		if (m->max_ulp > s->max_ulp || isnan(m->max_ulp))
			s->max_ulp = m->max_ulp;
		s->mism += m->mismatches;
		s->n += m->n;
		s->nonfinite += m->cand_nonfinite + m->ref_nonfinite;
	}
}

/* What the figures of an output leave out (compare_nonfinite_note), on a line of its own;
 * nothing when they leave out nothing. */
void report_nonfinite_line(struct doc *d, const struct cmp_result *m, const char *indent)
{
	char note[256];

	compare_nonfinite_note(m, note, sizeof(note));
	if (!note[0])
		return;
	doc_add(d, ROLE_NORMAL, indent);
	doc_add(d, ROLE_FAIL, note);
	doc_newline(d);
}

/* A figure right-aligned in width columns, the first of them a space so that neighbours never
 * touch; a negative value is shown as absent ("-") when it is a "not available" sentinel. */
void report_num_col(struct doc *d, int role, double v, int width, int negative_absent)
{
	char buf[32];

	fmt_num(v, negative_absent, buf, sizeof(buf));
	doc_add(d, role, " ");
	doc_addcol(d, role, buf, width - 1, 1);
}

/* A time in ms, right-aligned; mark (may be "") follows the number. */
static void ms_col_marked(struct doc *d, double ms, int width, const char *mark)
{
	char buf[32];

	if (!(ms >= 0))
		snprintf(buf, sizeof(buf), "-");
	else if (ms >= 100)
		snprintf(buf, sizeof(buf), "%.1f%s", ms, mark);
	else if (ms >= 1)
		snprintf(buf, sizeof(buf), "%.3f%s", ms, mark);
	else
		snprintf(buf, sizeof(buf), "%.4f%s", ms, mark);
	doc_addcol(d, ms >= 0 ? ROLE_NUMBER : ROLE_DIM, buf, width, 1);
}

static void ms_col(struct doc *d, double ms, int width)
{
	ms_col_marked(d, ms, width, "");
}

/* "vs best     FASTER · run #41 · 2d ago", then why, wrapped under it. */
static void vs_best_lines(struct doc *d, const struct vsbest *vb, int width)
{
	char ago[32];

	if (!vb->found)
		return;
	label(d, "vs best", 12);
	doc_add(d, change_role(vb->change), vsbest_label(vb->change));
	fmt_ago((double)time(NULL), vb->best_at, ago, sizeof(ago));
	doc_addf(d, ROLE_DIM, "%srun #%lld%s%s", glyphs()->mid, vb->best_id, glyphs()->mid, ago);
	doc_newline(d);
	doc_wrap(d, ROLE_DIM, vb->why, width, 12);
}

static void summary_lines(struct doc *d, const struct run_record *r, int width)
{
	const struct run_summary *s = &r->summary;
	char buf[64];
	enum verdict v = run_record_verdict(r);
	char up[32];
	size_t i;

	snprintf(up, sizeof(up), "%s", verdict_name(v));
	for (i = 0; up[i]; i++)
		up[i] = (char)(up[i] >= 'a' && up[i] <= 'z' ? up[i] - 32 : up[i]);
	doc_addf(d, report_verdict_role(v), "%s %s", verdict_glyph(v), up);
	doc_add(d, ROLE_NORMAL, "  ");
	{
		const char *m = r->have_summary && s->message && *s->message ? s->message : verdict_description(v);

		/* the first line here; a compile error's echo of the source is in the compile log */
		doc_addn(d, ROLE_NORMAL, m, strcspn(m, "\n"));
	}
	doc_newline(d);
	if (!r->have_summary) {
		doc_add(d, ROLE_DIM, r->state == RUN_RUNNING ? "running..." : "no summary");
		doc_newline(d);
		return;
	}
	label(d, "cases", 12);
	if (s->cases_total)
		doc_addf(d, s->cases_passed == s->cases_total ? ROLE_PASS : ROLE_FAIL, "%d/%d passed", s->cases_passed,
			 s->cases_total);
	else
		doc_add(d, ROLE_DIM, "none ran");
	if (s->perf_unchecked) {
		doc_add(d, ROLE_DIM, glyphs()->mid);
		doc_add(d, ROLE_FAIL, "perf sizes not checked (--no-perf)");
	}
	doc_add(d, ROLE_DIM, glyphs()->mid);
	doc_add(d, ROLE_LABEL, "vs golden ");
	fmt_speedup(s->speedup_golden, buf, sizeof(buf));
	doc_add(d, s->speedup_golden >= 0 ? ROLE_NUMBER : ROLE_DIM, buf);
	doc_add(d, ROLE_DIM, glyphs()->mid);
	doc_add(d, ROLE_LABEL, "vs reference ");
	fmt_speedup(s->speedup_ref, buf, sizeof(buf));
	doc_add(d, s->speedup_ref >= 0 ? ROLE_NUMBER : ROLE_DIM, buf);
	if (s->seconds > 0) {
		fmt_elapsed(s->seconds, buf, sizeof(buf));
		doc_add(d, ROLE_DIM, glyphs()->mid);
		doc_add(d, ROLE_DIM, buf);
	}
	doc_newline(d);
	vs_best_lines(d, &r->vs_best, width);
	label(d, "device", 12);
	doc_add(d, ROLE_NORMAL, *s->gpu ? s->gpu : "none");
	if (*s->golden_table) {
		doc_add(d, ROLE_DIM, glyphs()->mid);
		doc_addf(d, ROLE_NORMAL, "golden %s", s->golden_table);
	}
	if (s->driver_version > 0)
		doc_addf(d, ROLE_DIM, "%sdriver %d.%d", glyphs()->mid, s->driver_version / 1000,
			 (s->driver_version % 1000) / 10);
	doc_newline(d);
	if (r->have_compile) {
		/* a Python module is loaded, not compiled: its kernels compile at their first call,
		 * inside the first case's time */
		int python = !strcmp(r->compile.arch, "python");

		label(d, python ? "load" : "compile", 12);
		doc_add(d, r->compile.ok ? ROLE_PASS : ROLE_ERROR, r->compile.ok ? "ok" : "failed");
		fmt_elapsed(r->compile.seconds, buf, sizeof(buf));
		doc_addf(d, ROLE_DIM, " in %s%s", buf, r->compile.cached ? " (cached)" : "");
		if (python)
			doc_add(d, ROLE_DIM, " (Python worker; Triton compiles each kernel at its first call)");
		else if (*r->compile.arch)
			doc_addf(d, ROLE_DIM, " for %s", r->compile.arch);
		if (r->compile.ndiags)
			doc_addf(d, ROLE_WARN, "  %d diagnostic%s (L: compile log)", r->compile.ndiags,
				 r->compile.ndiags == 1 ? "" : "s");
		doc_newline(d);
	}
	if (s->warnings) {
		for (unsigned b = 0; warning_name(b); b++) {
			if (!(s->warnings & (1u << b)))
				continue;
			label(d, "warning", 12);
			doc_add(d, ROLE_WARN, warning_name(b));
			doc_add(d, ROLE_DIM, ": ");
			doc_add(d, ROLE_DIM, warning_description(b));
			doc_newline(d);
		}
	}
	if (*r->error) {
		label(d, "note", 12);
		doc_add(d, ROLE_WARN, r->error);
		doc_newline(d);
	}
}

/* A column as wide as its widest entry plus a gap (never less than its heading's), within
 * what the other columns leave. */
static int fit_col(int widest, int heading, int room)
{
	int w = (widest > heading ? widest : heading) + 2;

	if (w > room)
		w = room;
	return w < 8 ? 8 : w;
}

void report_results(struct doc *d, const struct run_record *r, const struct task *t, double peak_gbps, int width)
{
	int namew, sizew, widest = 0, kept_rows = 0;
	double kept_oldest = 0;

	for (int i = 0; i < r->ncases; i++)
		if (text_width(r->cases[i].name, (size_t)-1) > widest)
			widest = text_width(r->cases[i].name, (size_t)-1);
	namew = fit_col(widest, 4, width - 2 - 13 - 9 * 3 - 15 - 1);
	widest = 0;
	for (int i = 0; i < r->nperf; i++)
		if (r->perf[i].input_size && text_width(r->perf[i].input_size, (size_t)-1) > widest)
			widest = text_width(r->perf[i].input_size, (size_t)-1);
	/* the size column starts with a space, and its entries are cut one short of it */
	sizew = fit_col(widest + 1, 11, width - 3 - 9 * 3 - 7 * 2 - 8 - 9 - 6 - 1);
	summary_lines(d, r, width);
	doc_newline(d);
	doc_addf(d, ROLE_HEADING, "cases (%d)", r->ncases);
	doc_add(d, ROLE_DIM, r->ncases ? "  Enter: diff of the selected case" : "");
	doc_newline(d);
	if (r->ncases) {
		doc_add(d, ROLE_DIM, "  ");
		doc_addcol(d, ROLE_DIM, "case", namew, 0);
		doc_addcol(d, ROLE_DIM, "verdict", 13, 0);
		doc_addcol(d, ROLE_DIM, "max abs", 9, 1);
		doc_addcol(d, ROLE_DIM, "max rel", 9, 1);
		doc_addcol(d, ROLE_DIM, "ULP", 9, 1);
		doc_addcol(d, ROLE_DIM, "mismatches", 15, 1);
		doc_newline(d);
	} else {
		doc_add(d, ROLE_DIM, "  no case ran");
		doc_newline(d);
	}
	for (int i = 0; i < r->ncases; i++) {
		const struct case_result *c = &r->cases[i];
		struct case_sum s;
		char mm[48];

		case_sum(c, &s);
		doc_add(d, report_verdict_role(c->verdict), verdict_glyph(c->verdict));
		doc_add(d, ROLE_NORMAL, " ");
		doc_addcol(d, ROLE_NORMAL, c->name, namew, 0);
		doc_addcol(d, report_verdict_role(c->verdict), verdict_name(c->verdict), 13, 0);
		if (c->noutputs) {
			/* max abs covers finite pairs: over a NaN it would read 0 */
			if (s.nonfinite) {
				doc_add(d, ROLE_NORMAL, " ");
				doc_addcol(d, ROLE_FAIL, "NaN/inf", 8, 1);
			} else
				report_num_col(d, ROLE_NUMBER, s.max_abs, 9, 0);
			report_num_col(d, ROLE_NUMBER, s.max_rel, 9, 0);
			report_num_col(d, ROLE_NUMBER, s.max_ulp, 9, 0);
			snprintf(mm, sizeof(mm), "%llu/%llu", s.mism, s.n);
			doc_add(d, ROLE_NORMAL, " ");
			doc_addcol(d, s.mism ? ROLE_FAIL : ROLE_DIM, mm, 14, 1);
		} else if (c->message) {
			doc_add(d, ROLE_NORMAL, " ");
			doc_addcol(d, ROLE_DIM, c->message, width - namew - 16 > 10 ? width - namew - 16 : 10, 0);
		}
		doc_tag(d, i);
		doc_newline(d);
	}
	doc_newline(d);
	doc_addf(d, ROLE_HEADING, "perf (%d rows)", r->nperf);
	doc_newline(d);
	if (!r->nperf) {
		doc_add(d, ROLE_DIM, t && !t->perf.nrows ? "  the task has no perf workload"
				     : "  not timed (needs a GPU and every case passing)");
		doc_newline(d);
	} else {
		doc_add(d, ROLE_DIM, "  #");
		doc_addcol(d, ROLE_DIM, " input size", sizew, 0);
		doc_addcol(d, ROLE_DIM, "cand ms", 9, 1);
		doc_addcol(d, ROLE_DIM, "ref ms", 9, 1);
		doc_addcol(d, ROLE_DIM, "golden", 9, 1);
		doc_addcol(d, ROLE_DIM, "xgold", 7, 1);
		doc_addcol(d, ROLE_DIM, "xref", 7, 1);
		doc_addcol(d, ROLE_DIM, "GB/s", 8, 1);
		doc_addcol(d, ROLE_DIM, "TFLOP/s", 9, 1);
		doc_addcol(d, ROLE_DIM, "%bw", 6, 1);
		doc_newline(d);
	}
	for (int i = 0; i < r->nperf; i++) {
		const struct perf_result *p = &r->perf[i];
		char buf[32];
		double c = p->cand.median;

		doc_addf(d, p->correct && !p->impossible ? ROLE_NUMBER : ROLE_FAIL, "%3d", p->row);
		doc_add(d, ROLE_NORMAL, " ");
		doc_addcol(d, ROLE_NORMAL, p->input_size ? p->input_size : "", sizew - 1, 0);
		ms_col(d, c, 9);
		/* '*': the reference's timing was kept from an earlier run (core/reftime.h) */
		ms_col_marked(d, p->has_ref ? p->ref.median : -1, 9, p->ref_kept ? "*" : "");
		if (p->ref_kept && (kept_rows++ == 0 || p->ref_age_s > kept_oldest))
			kept_oldest = p->ref_age_s;
		ms_col(d, p->golden_ms, 9);
		/* an impossible timing has no speedup (ceiling.h): its columns say so instead */
		if (p->impossible) {
			doc_addcol(d, ROLE_FAIL, "too", 7, 1);
			doc_addcol(d, ROLE_FAIL, "fast", 7, 1);
		} else {
			fmt_speedup(p->golden_ms > 0 && c > 0 ? p->golden_ms / c : -1, buf, sizeof(buf));
			doc_addcol(d, ROLE_NUMBER, buf, 7, 1);
			fmt_speedup(p->has_ref && c > 0 ? p->ref.median / c : -1, buf, sizeof(buf));
			doc_addcol(d, ROLE_NUMBER, buf, 7, 1);
		}
		report_num_col(d, ROLE_NUMBER, p->gbps, 8, 1);
		report_num_col(d, ROLE_NUMBER, p->tflops, 9, 1);
		/* the share of the copy bandwidth kbx doctor --calibrate measured on this GPU (the
		 * run's own figure), else of the theoretical bandwidth, marked with a ~ */
		if (p->bw_fraction > 0 && p->gbps >= 0)
			snprintf(buf, sizeof(buf), "%.0f%%", 100.0 * p->bw_fraction);
		else if (peak_gbps > 0 && p->gbps >= 0)
			snprintf(buf, sizeof(buf), "~%.0f%%", 100.0 * p->gbps / peak_gbps);
		else
			snprintf(buf, sizeof(buf), "-");
		doc_addcol(d, ROLE_NUMBER, buf, 6, 1);
		if (!p->correct || p->message) {
			doc_newline(d);
			doc_add(d, ROLE_NORMAL, "    ");
			doc_add(d, p->correct && !p->impossible ? ROLE_DIM : ROLE_FAIL, p->message ? p->message : "wrong at this size");
		}
		doc_newline(d);
	}
	if (kept_rows) {
		char age[32];

		reftime_age_text(kept_oldest, age, sizeof(age));
		doc_addf(d, ROLE_DIM, "  * the reference's timing kept from an earlier run on this GPU (%d row%s, the oldest "
			 "%s old); --retime-reference times it live", kept_rows, kept_rows == 1 ? "" : "s", age);
		doc_newline(d);
	}
	if (r->nlogs) {
		doc_newline(d);
		heading(d, "worker log");
		for (int i = 0; i < r->nlogs; i++) {
			doc_add(d, ROLE_DIM, "  ");
			doc_add(d, ROLE_DIM, r->logs[i]);
			doc_newline(d);
		}
	}
}

void report_metric_line(struct doc *d, const char *name, double v, double thr, int ge, int width)
{
	char vb[32], tb[32];
	int ok = ge ? v >= thr : v <= thr;

	fmt_num(v, 0, vb, sizeof(vb));
	doc_add(d, ROLE_NORMAL, "  ");
	label(d, name, 12);
	doc_addcol(d, ROLE_NUMBER, vb, 9, 1);
	if (thr >= 0) {
		snprintf(tb, sizeof(tb), "%s %g", ge ? ">=" : "<=", thr);
		doc_add(d, ROLE_NORMAL, "  ");
		doc_addcol(d, ROLE_DIM, tb, 9, 0);
		doc_add(d, ok ? ROLE_PASS : ROLE_FAIL, ok ? glyphs()->pass : glyphs()->fail);
	}
	doc_newline(d);
	(void)width;
}

void report_case_detail(struct doc *d, const struct case_result *c, const struct task *t, int width)
{
	char buf[64];

	doc_add(d, ROLE_HEADING, c->name);
	doc_add(d, ROLE_NORMAL, "  ");
	doc_add(d, report_verdict_role(c->verdict), verdict_name(c->verdict));
	if (c->seconds > 0) {
		fmt_elapsed(c->seconds, buf, sizeof(buf));
		doc_addf(d, ROLE_DIM, "  %s", buf);
	}
	doc_newline(d);
	if (c->message) {
		doc_wrap(d, c->verdict == V_PASS ? ROLE_NORMAL : ROLE_FAIL, c->message, width, 2);
	}
	if (*c->oob_arg) {
		doc_add(d, ROLE_FAIL, "  wrote outside buffer ");
		doc_addf(d, ROLE_ACCENT, "'%s'", c->oob_arg);
		doc_newline(d);
	}
	if (*c->modified_arg) {
		doc_add(d, ROLE_FAIL, "  modified input ");
		doc_addf(d, ROLE_ACCENT, "'%s'", c->modified_arg);
		doc_newline(d);
	}
	if (c->nondeterministic) {
		doc_add(d, ROLE_WARN, "  nondeterministic: a second run gave different bits");
		doc_newline(d);
		doc_add(d, ROLE_NORMAL, "  a race or an uninitialised read? ");
		doc_add(d, ROLE_KEY, "S");
		doc_add(d, ROLE_NORMAL, " runs it again after compute-sanitizer's racecheck and initcheck");
		doc_newline(d);
	}
	if (*c->first_wrong_stage) {
		doc_add(d, ROLE_LABEL, "  first wrong stage ");
		doc_add(d, ROLE_ACCENT, c->first_wrong_stage);
		doc_newline(d);
		if (*c->stage_diagnosis)
			doc_wrap(d, ROLE_NORMAL, c->stage_diagnosis, width, 4);
	}
	for (int i = 0; i < c->noutputs; i++) {
		const struct cmp_result *m = &c->outputs[i].cmp;
		char a[32], b[32], u[32];

		doc_add(d, ROLE_NORMAL, "  ");
		doc_addf(d, ROLE_ACCENT, "%s", c->outputs[i].arg);
		doc_addf(d, m->pass ? ROLE_PASS : ROLE_FAIL, "  %s  %zu/%zu mismatches", m->pass ? "ok" : "differs",
			 m->mismatches, m->n);
		if (m->nan_mismatches || m->inf_mismatches)
			doc_addf(d, ROLE_FAIL, " (%zu NaN, %zu Inf)", m->nan_mismatches, m->inf_mismatches);
		doc_newline(d);
		report_nonfinite_line(d, m, "    ");
		fmt_num(m->max_abs, 0, a, sizeof(a));
		fmt_num(m->max_rel, 0, b, sizeof(b));
		fmt_num(m->max_ulp, 0, u, sizeof(u));
		doc_add(d, ROLE_NORMAL, "    ");
		doc_addf(d, ROLE_DIM, "max abs %s  max rel %s  ULP %s  (rtol %g, atol %g)", a, b, u, m->rtol, m->atol);
		doc_newline(d);
		report_metric_line(d, "cosine", m->cosine, t && t->tol.metric ? t->tol.cosine_sim : -1, 1, width);
		report_metric_line(d, "l1_relative", m->l1_relative, t && t->tol.metric ? t->tol.l1_relative : -1, 0, width);
		report_metric_line(d, "rmse", m->rmse, t && t->tol.metric ? t->tol.rmse : -1, 0, width);
	}
}

/* ---- compile log ------------------------------------------------------------------------- */

void report_compile_log(struct doc *d, const struct compile_result *c, int width)
{
	int errors = 0, warnings = 0;
	char buf[32];

	for (int i = 0; i < c->ndiags; i++) {
		if (!strcmp(c->diags[i].severity, "error"))
			errors++;
		else
			warnings++;
	}
	doc_add(d, c->ok ? ROLE_PASS : ROLE_ERROR, c->ok ? "compiled" : "compile failed");
	doc_addf(d, ROLE_NORMAL, "%s%d error%s, %d other diagnostic%s", glyphs()->mid, errors, errors == 1 ? "" : "s",
		 warnings, warnings == 1 ? "" : "s");
	fmt_elapsed(c->seconds, buf, sizeof(buf));
	doc_addf(d, ROLE_DIM, "%s%s%s", glyphs()->mid, buf, c->cached ? " (cached)" : "");
	if (*c->arch)
		doc_addf(d, ROLE_DIM, "%s%s", glyphs()->mid, c->arch);
	doc_newline(d);
	if (c->options) {
		doc_add(d, ROLE_LABEL, "options ");
		doc_addcol(d, ROLE_DIM, c->options, width - 8 > 10 ? width - 8 : 10, 0);
		doc_newline(d);
	}
	doc_newline(d);
	doc_add(d, ROLE_HEADING, "diagnostics");
	doc_add(d, ROLE_DIM, c->ndiags ? "  Enter: jump to the line in the candidate" : "  none");
	doc_newline(d);
	for (int i = 0; i < c->ndiags; i++) {
		const struct compile_diag *g = &c->diags[i];
		int role = !strcmp(g->severity, "error") ? ROLE_ERROR : ROLE_WARN;
		const char *msg = g->message ? g->message : "";
		size_t first = strcspn(msg, "\n");
		char where[32];

		doc_add(d, ROLE_NORMAL, " ");
		doc_addcol(d, role, g->severity, 8, 0);
		if (g->line > 0 && g->col > 0)
			snprintf(where, sizeof(where), "line %d:%d", g->line, g->col);
		else if (g->line > 0)
			snprintf(where, sizeof(where), "line %d", g->line);
		else
			snprintf(where, sizeof(where), "-");
		doc_addcol(d, ROLE_LINENR, where, 13, 0);
		doc_addn(d, ROLE_NORMAL, msg, first);
		doc_tag(d, i);
		doc_newline(d);
		/* NVRTC's echo of the source line and the caret, under the message */
		for (const char *p = msg + first; *p;) {
			size_t k;

			p++;
			k = strcspn(p, "\n");
			if (k) {
				doc_add(d, ROLE_NORMAL, "                      ");
				doc_addn(d, ROLE_DIM, p, k);
				doc_tag(d, -1);
				doc_newline(d);
			}
			p += k;
		}
	}
	doc_newline(d);
	heading(d, "log");
	if (!c->log || !*c->log) {
		doc_add(d, ROLE_DIM, "  (empty)");
		doc_newline(d);
		return;
	}
	for (const char *p = c->log; *p;) {
		size_t k = strcspn(p, "\n");

		doc_add(d, ROLE_NORMAL, "  ");
		doc_addn(d, ROLE_CODE, p, k);
		doc_newline(d);
		p += k;
		if (*p)
			p++;
	}
}

int report_static_line(const char *why)
{
	int line = 0;

	if (why && sscanf(why, "line %d", &line) == 1 && line > 0)
		return line;
	return 0;
}

/* ---- help ------------------------------------------------------------------------------- */

void report_help(struct doc *d, const char *theme_name, char *const *themes, int nthemes, int width)
{
	for (int sc = 0; sc < KS_COUNT; sc++) {
		int any = 0;

		for (int a = 1; a < ACT_COUNT; a++) {
			if (keys_scope((enum action)a) != (enum key_scope)sc)
				continue;
			if (!any) {
				doc_add(d, ROLE_HEADING, keys_scope_title((enum key_scope)sc));
				doc_newline(d);
				any = 1;
			}
			doc_add(d, ROLE_NORMAL, "  ");
			doc_addcol(d, ROLE_KEY, keys_spec((enum action)a), 16, 0);
			doc_add(d, ROLE_NORMAL, " ");
			doc_addcol(d, ROLE_NORMAL, keys_help((enum action)a), width - 19 > 20 ? width - 19 : 20, 0);
			doc_newline(d);
		}
		if (any)
			doc_newline(d);
	}
	heading(d, "verdicts");
	for (int v = 0; v < V_COUNT; v++) {
		doc_add(d, ROLE_NORMAL, "  ");
		doc_add(d, report_verdict_role((enum verdict)v), verdict_glyph((enum verdict)v));
		doc_add(d, ROLE_NORMAL, " ");
		doc_addcol(d, report_verdict_role((enum verdict)v), verdict_name((enum verdict)v), 15, 0);
		doc_add(d, ROLE_NORMAL, verdict_description((enum verdict)v));
		doc_newline(d);
	}
	doc_add(d, ROLE_NORMAL, "  ");
	doc_add(d, ROLE_NOTRUN, glyphs()->untried);
	doc_add(d, ROLE_NORMAL, " ");
	doc_addcol(d, ROLE_NOTRUN, "untried", 15, 0);
	doc_add(d, ROLE_NORMAL, "no attempt in the history");
	doc_newline(d);
	doc_newline(d);
	heading(d, "themes");
	doc_add(d, ROLE_NORMAL, "  current: ");
	doc_add(d, ROLE_ACCENT, theme_name);
	doc_add(d, ROLE_NORMAL, "; t cycles through: ");
	for (int i = 0; i < nthemes; i++)
		doc_addf(d, ROLE_NORMAL, "%s%s", i ? ", " : "", themes[i]);
	if (!nthemes)
		doc_add(d, ROLE_DIM, "(no theme files found)");
	doc_newline(d);
	doc_add(d, ROLE_DIM, "  NO_COLOR in the environment turns colours off; KBX_THEME=NAME (kbx --theme NAME) picks one at start.");
	doc_newline(d);
}

/* ---- history ----------------------------------------------------------------------------- */

void report_history_category(struct doc *d, const struct db_category_stat *st, int ntasks, const double *series,
			     int nseries, int width)
{
	char buf[64], spark[256];
	int namew = width - 1 - 7 - 6 - 2 - nseries - 9 - 9 - 9;

	if (namew < 8)
		namew = 8;
	doc_add(d, ROLE_NORMAL, " ");
	doc_addcol(d, ROLE_NORMAL, st->category, namew, 0);
	snprintf(buf, sizeof(buf), "%d", st->attempts);
	doc_addcol(d, ROLE_NUMBER, buf, 7, 1);
	if (st->attempts) {
		int pct = (int)floor(100.0 * st->passes / st->attempts + 0.5);

		snprintf(buf, sizeof(buf), "%d%%", pct);
		doc_addcol(d, pct >= 50 ? ROLE_PASS : pct ? ROLE_WARN : ROLE_FAIL, buf, 6, 1);
	} else {
		doc_addcol(d, ROLE_DIM, "-", 6, 1);
	}
	doc_add(d, ROLE_NORMAL, "  ");
	if (series)
		layout_sparkline(series, nseries, spark, sizeof(spark));
	else
		spark[0] = '\0';
	doc_addcol(d, ROLE_SPARK, spark, nseries, 0);
	fmt_speedup(st->best_speedup, buf, sizeof(buf));
	doc_addcol(d, ROLE_NUMBER, buf, 9, 1);
	fmt_speedup(st->median_speedup, buf, sizeof(buf));
	doc_addcol(d, ROLE_NUMBER, buf, 9, 1);
	snprintf(buf, sizeof(buf), "%d/%d", st->tasks_passed, ntasks > 0 ? ntasks : st->tasks_tried);
	doc_addcol(d, ROLE_DIM, buf, 9, 1);
	doc_pad(d, ROLE_NORMAL, width);
}

static int history_taskw(int width)
{
	int taskw = width - 2 - 7 - 9 - 14 - 8 - 10 - 8 - 1;

	return taskw < 8 ? 8 : taskw;
}

void report_history_run_header(struct doc *d, int show_task, int width)
{
	doc_add(d, ROLE_DIM, " ");
	doc_addcol(d, ROLE_DIM, "run", 7, 0);
	doc_addcol(d, ROLE_DIM, "when", 9, 0);
	doc_addcol(d, ROLE_DIM, show_task ? "task" : "gpu", history_taskw(width), 0);
	doc_add(d, ROLE_DIM, " ");
	doc_addcol(d, ROLE_DIM, "verdict", 14, 0);
	doc_addcol(d, ROLE_DIM, "speedup", 8, 1);
	doc_add(d, ROLE_DIM, " ");
	doc_addcol(d, ROLE_DIM, "vs best", 7, 0);
	doc_addcol(d, ROLE_DIM, "time", 10, 1);
}

void report_history_run(struct doc *d, const struct db_run_row *r, const struct vsbest *vb, double now, int marked,
			int show_task, int width)
{
	char ago[32], sp[32], ms[32], id[32];
	const char *slash = strchr(r->task_id, '/');
	int taskw = history_taskw(width);

	doc_add(d, marked ? ROLE_MARK : ROLE_NORMAL, marked ? "*" : " ");
	snprintf(id, sizeof(id), "#%lld", r->id);
	doc_addcol(d, ROLE_DIM, id, 7, 0);
	fmt_ago(now, r->created_at, ago, sizeof(ago));
	doc_addcol(d, ROLE_DIM, ago, 9, 0);
	if (show_task)
		doc_addcol(d, ROLE_NORMAL, slash ? slash + 1 : r->task_id, taskw, 0);
	else
		doc_addcol(d, ROLE_DIM, *r->gpu ? r->gpu : "-", taskw, 0);
	doc_add(d, ROLE_NORMAL, " ");
	doc_addcol(d, report_verdict_role(r->verdict), verdict_name(r->verdict), 14, 0);
	fmt_speedup(r->speedup_golden >= 0 ? r->speedup_golden : r->speedup_ref, sp, sizeof(sp));
	doc_addcol(d, ROLE_NUMBER, sp, 8, 1);
	/* the timing against the best attempt before it, next to the speedup it qualifies */
	doc_add(d, ROLE_NORMAL, " ");
	if (vb && vb->found)
		doc_addcol(d, change_role(vb->change), vsbest_label(vb->change), 7, 0);
	else
		doc_addcol(d, ROLE_DIM, "-", 7, 0);
	if (r->cand_ms >= 0)
		snprintf(ms, sizeof(ms), "%.4g ms", r->cand_ms);
	else
		snprintf(ms, sizeof(ms), "-");
	doc_addcol(d, ROLE_DIM, ms, 10, 1);
	doc_pad(d, ROLE_NORMAL, width);
}

static void cmp_row(struct doc *d, const char *name, const char *a, int ra, const char *b, int rb, int colw)
{
	doc_add(d, ROLE_NORMAL, " ");
	label(d, name, 14);
	doc_addcol(d, ra, a, colw, 0);
	doc_add(d, ROLE_DIM, " ");
	doc_add(d, ROLE_DIM, glyphs()->arrow);
	doc_add(d, ROLE_DIM, " ");
	doc_addcol(d, rb, b, colw, 0);
	doc_newline(d);
}

void report_compare(struct doc *d, const struct db_run_detail *a, const struct db_run_detail *b, int width)
{
	char x[96], y[96], ax[32], by[32];
	double now = (double)time(NULL);
	int colw = (width - 18) / 2, changed = 0;

	if (colw < 12)
		colw = 12;
	fmt_ago(now, a->row.created_at, ax, sizeof(ax));
	fmt_ago(now, b->row.created_at, by, sizeof(by));
	snprintf(x, sizeof(x), "#%lld %s", a->row.id, ax);
	snprintf(y, sizeof(y), "#%lld %s", b->row.id, by);
	doc_add(d, ROLE_HEADING, a->row.task_id);
	if (strcmp(a->row.task_id, b->row.task_id)) {
		doc_add(d, ROLE_DIM, " vs ");
		doc_add(d, ROLE_HEADING, b->row.task_id);
	}
	doc_newline(d);
	cmp_row(d, "attempt", x, ROLE_NORMAL, y, ROLE_NORMAL, colw);
	cmp_row(d, "verdict", verdict_name(a->row.verdict), report_verdict_role(a->row.verdict),
		verdict_name(b->row.verdict), report_verdict_role(b->row.verdict), colw);
	fmt_speedup(a->row.speedup_golden, x, sizeof(x));
	fmt_speedup(b->row.speedup_golden, y, sizeof(y));
	cmp_row(d, "vs golden", x, ROLE_NUMBER, y, ROLE_NUMBER, colw);
	fmt_speedup(a->row.speedup_ref, x, sizeof(x));
	fmt_speedup(b->row.speedup_ref, y, sizeof(y));
	cmp_row(d, "vs reference", x, ROLE_NUMBER, y, ROLE_NUMBER, colw);
	fmt_num(a->row.cand_ms, 1, x, sizeof(x));
	fmt_num(b->row.cand_ms, 1, y, sizeof(y));
	cmp_row(d, "cand ms", x, ROLE_NUMBER, y, ROLE_NUMBER, colw);
	cmp_row(d, "gpu", *a->row.gpu ? a->row.gpu : "-", ROLE_DIM, *b->row.gpu ? b->row.gpu : "-", ROLE_DIM, colw);
	if (strcmp(a->row.warnings, b->row.warnings))
		cmp_row(d, "warnings", *a->row.warnings ? a->row.warnings : "-", ROLE_WARN,
			*b->row.warnings ? b->row.warnings : "-", ROLE_WARN, colw);
	doc_newline(d);
	heading(d, "what changed");
	/* cases by name: a case may exist in only one of them when the task changed */
	for (int i = 0; i < b->ncases; i++) {
		int j;

		for (j = 0; j < a->ncases; j++)
			if (!strcmp(a->case_names[j], b->case_names[i]))
				break;
		if (j < a->ncases && a->case_verdicts[j] == b->case_verdicts[i])
			continue;
		doc_add(d, ROLE_NORMAL, "  case ");
		doc_addcol(d, ROLE_ACCENT, b->case_names[i], 28, 0);
		if (j < a->ncases)
			doc_add(d, report_verdict_role(a->case_verdicts[j]), verdict_name(a->case_verdicts[j]));
		else
			doc_add(d, ROLE_DIM, "(absent)");
		doc_addf(d, ROLE_DIM, " %s ", glyphs()->arrow);
		doc_add(d, report_verdict_role(b->case_verdicts[i]), verdict_name(b->case_verdicts[i]));
		doc_newline(d);
		changed++;
	}
	for (int i = 0; i < b->nperf; i++) {
		int j;
		double ca, cb;

		for (j = 0; j < a->nperf; j++)
			if (a->perf[j].row == b->perf[i].row)
				break;
		if (j == a->nperf)
			continue;
		ca = a->perf[j].cand_ms;
		cb = b->perf[i].cand_ms;
		if (!(ca > 0 && cb > 0))
			continue;
		doc_addf(d, ROLE_NORMAL, "  row %-3d ", b->perf[i].row);
		doc_addcol(d, ROLE_DIM, b->perf[i].input_size ? b->perf[i].input_size : "", 22, 0);
		doc_addf(d, ROLE_NUMBER, " %.4g %s %.4g ms ", ca, glyphs()->arrow, cb);
		doc_addf(d, cb < ca ? ROLE_PASS : cb > ca ? ROLE_FAIL : ROLE_DIM, "(%+.1f%%)", 100.0 * (cb - ca) / ca);
		doc_newline(d);
		changed++;
	}
	if (!changed) {
		doc_add(d, ROLE_DIM, "  no case changed its verdict; no perf rows to compare");
		doc_newline(d);
	}
	doc_newline(d);
	{
		int na, nb, nops, add, del;
		char **la = text_lines(a->source, &na), **lb = text_lines(b->source, &nb);
		struct td_op *ops;

		nops = textdiff(la, na, lb, nb, &ops);
		textdiff_stat(ops, nops, &add, &del);
		free(ops);
		text_lines_free(la, na);
		text_lines_free(lb, nb);
		doc_add(d, ROLE_HEADING, "source");
		doc_addf(d, ROLE_DIM, "  ");
		doc_addf(d, ROLE_DIFF_ADD, "+%d", add);
		doc_add(d, ROLE_DIM, " ");
		doc_addf(d, ROLE_DIFF_DEL, "-%d", del);
		doc_add(d, ROLE_DIM, " lines");
		doc_newline(d);
	}
	textdiff_doc(d, a->source, b->source, 3);
}
