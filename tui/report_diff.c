/*
 * report_diff.c - the diff screen's parts (report.h): its header, the worst elements, the error
 * heatmap and histogram, and the quantization lens.
 */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "layout.h"
#include "report_int.h"
#include "theme.h"

/* ---- diff -------------------------------------------------------------------------------- */

void report_diff_header(struct doc *d, const struct task *t, const struct case_result *c,
			const struct output_result *o, int width)
{
	char up[32], a[32], b[32], u[32];
	size_t i;

	snprintf(up, sizeof(up), "%s", verdict_name(c->verdict));
	for (i = 0; up[i]; i++)
		up[i] = (char)(up[i] >= 'a' && up[i] <= 'z' ? up[i] - 32 : up[i]);
	doc_add(d, ROLE_HEADING, t ? t->name : "");
	doc_add(d, ROLE_DIM, glyphs()->mid);
	doc_add(d, ROLE_NORMAL, "case ");
	doc_add(d, ROLE_ACCENT, c->name);
	if (o) {
		doc_add(d, ROLE_DIM, glyphs()->mid);
		doc_add(d, ROLE_NORMAL, o == c->stage ? "stage " : "output ");
		doc_add(d, ROLE_ACCENT, o->arg);
	}
	doc_add(d, ROLE_DIM, glyphs()->mid);
	doc_add(d, report_verdict_role(c->verdict), up);
	if (o && o->cmp.n)
		doc_addf(d, report_verdict_role(c->verdict), " %zu/%zu (%.1f%%)", o->cmp.mismatches, o->cmp.n,
			 100.0 * (double)o->cmp.mismatches / (double)o->cmp.n);
	doc_newline(d);
	if (*c->first_wrong_stage) {
		doc_add(d, ROLE_LABEL, "first wrong stage: ");
		doc_add(d, ROLE_FAIL, c->first_wrong_stage);
		doc_add(d, ROLE_NORMAL, "   ");
	} else if (t && !strcmp(t->category, "Fusion") && c->verdict == V_WRONG) {
		doc_add(d, ROLE_LABEL, "first wrong stage: ");
		doc_add(d, ROLE_DIM, "none found (no shared scratch buffer differs)   ");
	}
	if (o) {
		fmt_num(o->cmp.max_abs, 0, a, sizeof(a));
		fmt_num(o->cmp.max_rel, 0, b, sizeof(b));
		fmt_num(o->cmp.max_ulp, 0, u, sizeof(u));
		doc_add(d, ROLE_LABEL, "max abs ");
		doc_add(d, ROLE_NUMBER, a);
		doc_add(d, ROLE_LABEL, "  max rel ");
		doc_add(d, ROLE_NUMBER, b);
		doc_add(d, ROLE_LABEL, "  ULP ");
		doc_add(d, ROLE_NUMBER, u);
		if (o->cmp.cand_nonfinite || o->cmp.ref_nonfinite || o->cmp.nan_mismatches || o->cmp.inf_mismatches) {
			doc_newline(d);
			report_nonfinite_line(d, &o->cmp, "");
		}
	} else if (c->message) {
		doc_addn(d, ROLE_FAIL, c->message, strcspn(c->message, "\n"));
	}
	doc_newline(d);
	/* how the first wrong stage differs (a rounding mode, a constant factor, coarser scales) */
	if (*c->stage_diagnosis) {
		doc_add(d, ROLE_LABEL, "stage: ");
		doc_wrap(d, ROLE_NORMAL, c->stage_diagnosis, width, 7);
	}
}

static void coord_text(const struct cmp_elem *e, char *buf, size_t len)
{
	size_t off = 0;

	off += (size_t)snprintf(buf + off, len - off, "[");
	for (int i = 0; i < e->ndim && i < CMP_MAX_DIMS && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%lld", i ? "," : "", e->coord[i]);
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off, "]%s", e->component ? ".im" : "");
}

void report_worst(struct doc *d, const struct cmp_result *c, int width)
{
	/* coordinates take what the numbers leave */
	int coordw = width - 2 - 11 * 2 - 9 * 3;

	if (coordw < 10)
		coordw = 10;
	doc_add(d, ROLE_DIM, " ");
	doc_addcol(d, ROLE_DIM, "element", coordw, 0);
	doc_addcol(d, ROLE_DIM, "candidate", 11, 1);
	doc_addcol(d, ROLE_DIM, "reference", 11, 1);
	doc_addcol(d, ROLE_DIM, "abs err", 9, 1);
	doc_addcol(d, ROLE_DIM, "rel err", 9, 1);
	doc_addcol(d, ROLE_DIM, "ULP", 9, 1);
	doc_newline(d);
	if (!c->nworst) {
		doc_add(d, ROLE_DIM, c->n ? " every element matches" : " nothing was compared");
		doc_newline(d);
		return;
	}
	for (int i = 0; i < c->nworst && i < CMP_WORST; i++) {
		const struct cmp_elem *e = &c->worst[i];
		char co[128];
		int role = layout_heat_level(e->score) >= 3 ? ROLE_FAIL : ROLE_NORMAL;

		coord_text(e, co, sizeof(co));
		doc_add(d, ROLE_NORMAL, " ");
		doc_addcol(d, ROLE_ACCENT, co, coordw, 0);
		report_num_col(d, role, e->cand, 11, 0);
		report_num_col(d, ROLE_NUMBER, e->ref, 11, 0);
		report_num_col(d, role, e->abs_err, 9, 0);
		report_num_col(d, ROLE_NUMBER, e->rel_err, 9, 0);
		report_num_col(d, ROLE_NUMBER, e->ulp, 9, 0);
		doc_tag(d, i);
		doc_newline(d);
	}
}

static const int heat_roles[5] = { ROLE_HEAT0, ROLE_HEAT1, ROLE_HEAT2, ROLE_HEAT3, ROLE_HEAT4 };

void report_heatmap(struct doc *d, const struct cmp_result *c, int w, int h)
{
	float cells[CMP_TILES * CMP_TILES];
	int gr, gc, cw, rows = c->tile_rows, cols = c->tile_cols, far = 0, relative = 0;
	double worst = 0;

	if (rows <= 0 || cols <= 0 || rows > CMP_TILES || cols > CMP_TILES) {
		doc_add(d, ROLE_DIM, "no tile map for this output");
		doc_newline(d);
		return;
	}
	if (h < 3)
		h = 3;
	/* two lines for the legend */
	layout_heat_resample(c->tiles, rows, cols, h - 2, w, cells, &gr, &gc);
	/* When nearly every tile is far outside tolerance the absolute scale shows one colour;
	 * then show where it is worst instead, relative to the worst finite tile. */
	for (int i = 0; i < gr * gc; i++) {
		far += layout_heat_level(cells[i]) == 4;
		if (isfinite(cells[i]) && cells[i] > worst)
			worst = cells[i];
	}
	relative = gr * gc > 1 && far * 10 >= gr * gc * 9 && worst > 0;
	/* with room to spare, each tile is drawn 2 or 3 cells wide (cells are taller than wide) */
	cw = gc ? w / gc : 1;
	cw = cw < 1 ? 1 : cw > 3 ? 3 : cw;
	for (int r = 0; r < gr; r++) {
		for (int k = 0; k < gc; k++) {
			double v = cells[r * gc + k];
			int lv = relative ? layout_heat_relative(v, worst) : layout_heat_level(v);

			for (int x = 0; x < cw; x++)
				doc_add(d, heat_roles[lv], glyphs()->heat[lv]);
		}
		doc_newline(d);
	}
	doc_addf(d, ROLE_DIM, "%dx%d tiles of %lldx%lld", rows, cols, c->tile_h, c->tile_w);
	if (gr != rows || gc != cols)
		doc_addf(d, ROLE_DIM, ", shown %dx%d (worst)", gr, gc);
	doc_newline(d);
	if (relative) {
		static const char *const names[5] = { "0", "<1%", "<10%", "<50%", ">=50%" };
		char wb[32];

		for (int lv = 0; lv < 5; lv++) {
			doc_add(d, heat_roles[lv], glyphs()->heat[lv]);
			doc_addf(d, ROLE_DIM, "%s ", names[lv]);
		}
		fmt_num(worst, 0, wb, sizeof(wb));
		doc_addf(d, ROLE_WARN, "of the worst tile (%sx tol): all far out", wb);
		doc_newline(d);
		return;
	}
	{
		static const char *const names[5] = { "exact", "<0.1", "<1", "<10", ">=10" };

		for (int lv = 0; lv < 5; lv++) {
			doc_add(d, heat_roles[lv], glyphs()->heat[lv]);
			doc_addf(d, ROLE_DIM, "%s ", names[lv]);
		}
		doc_add(d, ROLE_DIM, "|err|/tol");
		doc_newline(d);
	}
}

/* The error histogram over every element (cmp_result.hist, see CMP_HIST), largest errors first. */
static void histogram_all(struct doc *d, const struct cmp_result *c, int w, int h)
{
	static const char *const labels[CMP_HIST] = {
		"exact", "<1e-6", "1e-6", "1e-5", "1e-4", "1e-3", "1e-2", "1e-1", "1", "1e1", "1e2", "1e3", "1e4", "1e5",
		">=1e6", "NaN/Inf",
	};
	unsigned long long total = 0, maxc = 1;
	int lo = -1, hi = -1, barw = w - 22, rows;

	for (int i = 0; i < CMP_HIST; i++) {
		total += c->hist[i];
		if (c->hist[i] > maxc)
			maxc = c->hist[i];
		if (c->hist[i]) {
			hi = i;
			if (lo < 0)
				lo = i;
		}
	}
	doc_addf(d, ROLE_DIM, "|err|/tol over all %llu elements (1 and up fail)", total);
	doc_newline(d);
	if (barw < 4)
		barw = 4;
	rows = h - 1;
	/* Only the bins that hold elements, so that the extremes always fit. */
	for (int i = hi; i >= lo && rows > 0; i--) {
		int lv = i == 0 ? 0 : i < 5 ? 1 : i < 8 ? 2 : i < 11 ? 3 : 4;

		if (!c->hist[i])
			continue;
		rows--;

		doc_addcol(d, ROLE_LABEL, labels[i], 8, 1);
		doc_add(d, ROLE_NORMAL, " ");
		/* Bars on a log scale: a handful of bad elements among millions must still show. */
		for (int k = 0; k < layout_bar_cells(c->hist[i] ? log10((double)c->hist[i]) + 1 : 0, log10((double)maxc) + 1,
						     barw); k++)
			doc_add(d, heat_roles[lv], glyphs()->hist);
		doc_addf(d, ROLE_NUMBER, " %llu", c->hist[i]);
		doc_newline(d);
	}
}

void report_histogram(struct doc *d, const struct cmp_result *c, int w, int h)
{
	int any = 0;

	for (int i = 0; i < CMP_HIST; i++)
		any |= c->hist[i] != 0;
	if (any) {
		histogram_all(d, c, w, h);
		return;
	}
	/* Results recorded before the histogram existed: draw it from the worst elements. */
	double v[CMP_WORST];
	int bins[16], lo, zeros, nonfinite, nb, n = 0, maxc = 1, barw;

	for (int i = 0; i < c->nworst && i < CMP_WORST; i++)
		v[n++] = c->worst[i].abs_err;
	doc_addf(d, ROLE_DIM, "log10 |err| of the %d worst elements", n);
	doc_newline(d);
	if (!n) {
		doc_add(d, ROLE_DIM, "(no differing elements)");
		doc_newline(d);
		return;
	}
	nb = layout_log_histogram(v, n, bins, 16, &lo, &zeros, &nonfinite);
	for (int i = 0; i < nb; i++)
		if (bins[i] > maxc)
			maxc = bins[i];
	if (nonfinite > maxc)
		maxc = nonfinite;
	if (h - 1 < nb + (nonfinite > 0) + (zeros > 0)) {
		/* too few rows for a bar per decade: one column of 3 cells per decade instead */
		double lv[16];

		for (int i = 0; i < nb; i++)
			lv[i] = (double)bins[i] / maxc;
		for (int i = 0; i < nb; i++) {
			char g[32];

			layout_sparkline(&lv[i], 1, g, sizeof(g));
			doc_addf(d, heat_roles[lo + i >= 0 ? 4 : lo + i >= -2 ? 3 : 2], "%s%s%s", g, g, g);
		}
		if (nonfinite)
			doc_addf(d, ROLE_HEAT4, " %d NaN/Inf", nonfinite);
		doc_newline(d);
		doc_addf(d, ROLE_LABEL, "1e%+d", lo);
		doc_pad(d, ROLE_NORMAL, nb * 3 > 8 ? nb * 3 - 4 : 5);
		doc_addf(d, ROLE_LABEL, " 1e%+d", lo + nb - 1);
		doc_newline(d);
		return;
	}
	barw = w - 14;
	if (barw < 4)
		barw = 4;
	if (nonfinite) {
		doc_addcol(d, ROLE_LABEL, "NaN/Inf", 8, 1);
		doc_add(d, ROLE_NORMAL, " ");
		for (int k = 0; k < layout_bar_cells(nonfinite, maxc, barw); k++)
			doc_add(d, ROLE_HEAT4, glyphs()->hist);
		doc_addf(d, ROLE_NUMBER, " %d", nonfinite);
		doc_newline(d);
	}
	for (int i = nb - 1; i >= 0; i--) {
		char lab[16];
		int lv = lo + i >= 0 ? 4 : lo + i >= -2 ? 3 : 2;

		snprintf(lab, sizeof(lab), "1e%+d", lo + i);
		doc_addcol(d, ROLE_LABEL, lab, 8, 1);
		doc_add(d, ROLE_NORMAL, " ");
		for (int k = 0; k < layout_bar_cells(bins[i], maxc, barw); k++)
			doc_add(d, heat_roles[lv], glyphs()->hist);
		doc_addf(d, ROLE_NUMBER, " %d", bins[i]);
		doc_newline(d);
	}
	if (zeros) {
		doc_addcol(d, ROLE_LABEL, "0", 8, 1);
		doc_addf(d, ROLE_NUMBER, "  %d", zeros);
		doc_newline(d);
	}
}

/* The lens's lines are label (14 columns) then items: an item that would pass width starts a
 * continuation line under the first item (or, when it is too long for that, under the label)
 * instead of being cut at the box's edge. */
#define LENS_INDENT 14

/* Room for cols more columns on the line, on a continuation line if need be; an empty line is
 * indented as one (1: the item begins a line). */
static int lens_room(struct doc *d, int cols, int width)
{
	int cur = doc_cur(d)->width;

	if (cur && (cur <= LENS_INDENT || cur + cols <= width))
		return 0;
	if (cur)
		doc_newline(d);
	doc_pad(d, ROLE_NORMAL, LENS_INDENT + cols <= width ? LENS_INDENT : 4);
	return 1;
}

static void lens_flow(struct doc *d, int role, const char *item, int width)
{
	size_t lead = strspn(item, " ");

	if (lens_room(d, text_width(item + lead, strlen(item + lead)), width))
		item += lead;   /* a continuation line starts with the item itself */
	doc_add(d, role, item);
}

/* Heat level of a mean or max |error| in quantization steps. */
static int step_level(double steps)
{
	return steps <= 0.5 ? 0 : steps <= 1 ? 1 : steps <= 4 ? 2 : steps <= 16 ? 3 : 4;
}

/* One profile (quant.h): a spark line of each cell's largest mean |error| in steps, coloured by
 * its max, then the worst entries. */
static void quant_profile_line(struct doc *d, const struct quant_profile *p, int width)
{
	float top = 0;
	char label[24];

	if (!p->n)
		return;
	for (int i = 0; i < p->ncells; i++)
		if (p->cell_mean[i] > top)
			top = p->cell_mean[i];
	snprintf(label, sizeof(label), "per %s", p->name);
	doc_add(d, ROLE_NORMAL, "  ");
	doc_addcol(d, ROLE_LABEL, label, 12, 0);
	for (int i = 0; i < p->ncells && i < width - 30; i++) {
		int lv = top > 0 ? (int)(p->cell_mean[i] / top * 7.0f + 0.5f) : 0;

		doc_add(d, heat_roles[step_level(p->cell_max[i])], glyphs()->spark[lv < 0 ? 0 : lv > 7 ? 7 : lv]);
	}
	doc_addf(d, ROLE_DIM, " %d%s", p->n, p->ncells < p->n ? " in cells" : "");
	doc_newline(d);
	if (!p->nworst)
		lens_flow(d, ROLE_DIM, "no error", width);
	for (int w = 0; w < p->nworst; w++) {
		char item[128];

		snprintf(item, sizeof(item), "%s%s %lld: %.3g mean, %.3g max", w ? "  " : "worst ", p->name,
			 p->worst[w], p->worst_mean[w], p->worst_max[w]);
		lens_flow(d, w ? ROLE_DIM : ROLE_NUMBER, item, width);
	}
	{
		char item[48];

		snprintf(item, sizeof(item), "  (median %.3g)", p->median_mean);
		lens_flow(d, ROLE_DIM, item, width);
	}
	doc_newline(d);
}

/* The quantization lens's own figures: the diagnosis, |error| in steps by bin, the row and column
 * profiles, saturation. */
static void quant_figures(struct doc *d, const struct quant_result *q, int width)
{
	unsigned long long top = 1;
	int barw = width - 36;

	if (!q->valid) {
		doc_wrap(d, ROLE_DIM, "no error in quantization steps: the task keeps no scales for this output", width, 2);
		return;
	}
	if (barw < 4)
		barw = 4;
	for (int b = 0; b < QB_COUNT; b++)
		if (q->hist[b] > top)
			top = q->hist[b];
	for (int b = 0; b < QB_COUNT; b++) {
		doc_add(d, ROLE_NORMAL, "  ");
		doc_addcol(d, ROLE_LABEL, quant_bin_label((enum quant_bin)b), 12, 0);
		for (int k = 0; k < layout_bar_cells((double)q->hist[b], (double)top, barw); k++)
			doc_add(d, heat_roles[b == QB_EXACT ? 0 : b + 1], glyphs()->hist);
		doc_addf(d, ROLE_NUMBER, " %llu", q->hist[b]);
		doc_newline(d);
	}
	doc_add(d, ROLE_NORMAL, "  ");
	doc_addcol(d, ROLE_LABEL, "in steps", 12, 0);
	doc_addf(d, ROLE_NORMAL, "max %.3g  mean %.3g", q->max_steps, q->mean_steps);
	if (q->skipped) {
		char item[96];

		snprintf(item, sizeof(item), "  (%llu left out: scale 0 or NaN/Inf)", q->skipped);
		lens_flow(d, ROLE_DIM, item, width);
	}
	doc_newline(d);
	quant_profile_line(d, &q->rows, width);
	quant_profile_line(d, &q->cols, width);
	if (q->has_saturation) {
		char item[96];

		doc_add(d, ROLE_NORMAL, "  ");
		doc_addcol(d, ROLE_LABEL, "saturation", 12, 0);
		snprintf(item, sizeof(item), "[%g, %g]: ", q->qmin, q->qmax);
		lens_flow(d, ROLE_NORMAL, item, width);
		snprintf(item, sizeof(item), "reference %llu at the ends, ", q->ref_at_end);
		lens_flow(d, ROLE_NORMAL, item, width);
		snprintf(item, sizeof(item), "candidate %llu, ", q->cand_at_end);
		lens_flow(d, ROLE_NORMAL, item, width);
		snprintf(item, sizeof(item), "%llu beyond, ", q->cand_beyond);
		lens_flow(d, q->cand_beyond ? ROLE_FAIL : ROLE_NORMAL, item, width);
		snprintf(item, sizeof(item), "%llu missed", q->cand_missed);
		lens_flow(d, q->cand_missed ? ROLE_WARN : ROLE_NORMAL, item, width);
		doc_newline(d);
	}
}

/* A lens diagnosis reads "evidence: conclusion" (quant_conclusion). The box is small (at 80 x 24
 * the conclusion of a long line fell below it), so the conclusion goes first, in the verdict's
 * role, and its evidence under it, dimmed; a line without evidence is shown whole. */
static void lens_diagnosis(struct doc *d, const char *diag, int role, int width)
{
	size_t n;
	const char *conclusion = quant_conclusion(diag, &n);
	char *evidence;

	doc_wrap(d, role, conclusion, width, 2);
	if (!n)
		return;
	evidence = xstrndup(diag, n);
	doc_wrap(d, ROLE_DIM, evidence, width, 2);
	free(evidence);
}

void report_quant_lens(struct doc *d, const struct task *t, const struct case_result *c,
		       const struct output_result *o, const struct finding *f, int nf, int width)
{
	int any = 0;

	if (!o) {
		doc_add(d, ROLE_DIM, "no output compared");
		doc_newline(d);
		return;
	}
	/* the conclusion first: the box is small, and the figures below are its evidence */
	if (o->quant.valid)
		lens_diagnosis(d, o->quant.diagnosis,
			       o->quant.hist[QB_ONE] || o->quant.hist[QB_MORE] || o->quant.cand_beyond ? ROLE_WARN : ROLE_PASS,
			       width);
	report_metric_line(d, "cosine", o->cmp.cosine, t->tol.metric ? t->tol.cosine_sim : -1, 1, width);
	report_metric_line(d, "l1_relative", o->cmp.l1_relative, t->tol.metric ? t->tol.l1_relative : -1, 0, width);
	report_metric_line(d, "rmse", o->cmp.rmse, t->tol.metric ? t->tol.rmse : -1, 0, width);
	/* evidence: the rules the task requires, matched or not, then any other evidence found */
	doc_add(d, ROLE_NORMAL, "  ");
	doc_addcol(d, ROLE_LABEL, "evidence", 12, 0);
	for (int i = 0; i < t->nstatic_require; i++) {
		int hit = 0;
		char id[80];

		for (int k = 0; k < nf; k++)
			hit |= !strcmp(f[k].rule->id, t->static_require[i]);
		snprintf(id, sizeof(id), "%s ", t->static_require[i]);
		/* the mark and its rule move to a continuation line together */
		lens_room(d, text_width(id, strlen(id)) + 1, width);
		doc_add(d, hit ? ROLE_PASS : ROLE_FAIL, hit ? glyphs()->pass : glyphs()->fail);
		doc_add(d, ROLE_NORMAL, id);
		any = 1;
	}
	for (int k = 0; k < nf; k++) {
		int required = 0;
		char id[80];

		if (f[k].rule->kind != RULE_EVIDENCE)
			continue;
		for (int i = 0; i < t->nstatic_require; i++)
			required |= !strcmp(f[k].rule->id, t->static_require[i]);
		if (required)
			continue;
		snprintf(id, sizeof(id), "%s ", f[k].rule->id);
		lens_room(d, text_width(id, strlen(id)) + 1, width);
		doc_add(d, ROLE_PASS, glyphs()->pass);
		doc_add(d, ROLE_DIM, id);
		any = 1;
	}
	if (!any)
		doc_add(d, ROLE_WARN, "no evidence rule matched");
	doc_newline(d);
	quant_figures(d, &o->quant, width);
	(void)c;
}

