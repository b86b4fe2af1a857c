/* The model code behind the screens, on plain text: browser lines, the task page, results with
 * their speedups, the worst-element table, heatmap, histogram, quantization lens, compile log,
 * history rows, the attempt comparison, and the help page generated from the key table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tui/keys.h"
#include "tui/report.h"
#include "tui/theme.h"

static struct catalogue cat;

static const char *root(void)
{
	const char *r = getenv("KBX_TASKS");

	return r && *r ? r : KBX_SRCDIR "/tasks";
}

static int setup(void **state)
{
	(void)state;
	setlocale(LC_ALL, "C.UTF-8");
	glyphs_set(1);
	if (catalogue_load(root(), &cat) != KBX_OK) {
		fprintf(stderr, "%s\n", kbx_last_error());
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	catalogue_free(&cat);
	return 0;
}

/* The index of the first line containing s, or -1. */
static int find(const struct doc *d, const char *s)
{
	for (int i = 0; i < d->n; i++)
		if (strstr(d->lines[i].text, s))
			return i;
	return -1;
}

static void must_find(const struct doc *d, const char *s)
{
	if (find(d, s) < 0) {
		for (int i = 0; i < d->n; i++)
			print_error("%3d|%s\n", i, d->lines[i].text);
		fail_msg("no line with '%s'", s);
	}
}

/* The role of the first occurrence of s. */
static int role_at(const struct doc *d, const char *s)
{
	int i = find(d, s);
	size_t off;

	if (i < 0)
		return -1;
	off = (size_t)(strstr(d->lines[i].text, s) - d->lines[i].text);
	for (int k = 0; k < d->lines[i].nsegs; k++)
		if (off >= d->lines[i].segs[k].off && off < d->lines[i].segs[k].off + d->lines[i].segs[k].len)
			return d->lines[i].segs[k].role;
	return -1;
}

static void test_browser_lines(void **state)
{
	const struct task *t = catalogue_find(&cat, "Activation/gelu");
	struct task_hist h = { 3, 1, V_WRONG, 1000, 1.42 }, none = { 0 };
	struct db_category_stat st = { "Activation", 10, 4, 3, 2, 1.5, 1.1, 0, 0 };
	struct doc d;

	(void)state;
	doc_init(&d);
	report_task_line(&d, t, &h, 1000 + 120, 0, 60);
	assert_int_equal(d.lines[0].width, 60);
	must_find(&d, "gelu");
	must_find(&d, "1.42x");
	must_find(&d, "2m ago");
	doc_newline(&d);
	report_task_line(&d, t, &none, 0, 1, 60);
	assert_int_equal(d.lines[1].width, 60);
	must_find(&d, "Activation/gelu");
	doc_newline(&d);
	h.best_speedup = -1;
	h.last = V_COMPILE_ERROR;
	report_task_line(&d, t, &h, 2000, 0, 60);
	must_find(&d, "compile");
	assert_int_equal(role_at(&d, "compile"), ROLE_ERROR);
	doc_newline(&d);
	report_category_line(&d, "Activation", 14, &st, -1, 26);
	assert_int_equal(d.lines[3].width, 26);
	must_find(&d, "40%");
	doc_newline(&d);
	report_category_line(&d, "Convolution", 2, NULL, 0, 26);
	assert_int_equal(role_at(&d, "Convolution"), ROLE_DIM); /* no search match */
	doc_free(&d);
}

static void test_task_page(void **state)
{
	const struct task *t = catalogue_find(&cat, "Activation/gelu");
	char *tables[] = { "a100", "h200" };
	int rows[] = { 16, 16 };
	struct golden_info g = { "NVIDIA H200", NULL, "h200", 16, tables, rows, 2 };
	struct doc d;
	char buf[64];

	(void)state;
	doc_init(&d);
	report_task(&d, t, &g, 80);
	must_find(&d, "Activation/gelu");
	must_find(&d, "contract");
	must_find(&d, "approximate");
	must_find(&d, "[n]");
	must_find(&d, "table h200, 16 rows for this task");
	must_find(&d, "a100 (16)");
	snprintf(buf, sizeof(buf), "cases (%d)", t->ncases);
	must_find(&d, buf);
	must_find(&d, t->cases[0].name);
	must_find(&d, "@kbx launch");  /* the reference source */
	for (int i = 0; i < t->nexamples; i++)
		assert_true(doc_find_tag(&d, REPORT_TAG_EXAMPLE + i) >= 0);
	for (int i = 0; i < d.n; i++)
		assert_true(d.lines[i].width <= 80 || strstr(d.lines[i].text, "@kbx") || d.lines[i].text[0] == ' ');
	doc_clear(&d);
	/* however long the catalogue's path, the reference line keeps its end and fits */
	report_task(&d, t, &g, 40);
	for (int i = 0; i < d.n; i++)
		if (strstr(d.lines[i].text, "reference.cu")) {
			assert_true(d.lines[i].width <= 40);
			assert_non_null(strstr(d.lines[i].text, "gelu/reference.cu"));
		}
	doc_clear(&d);
	/* the golden lines wrap: a long device note and every table stay inside the width */
	{
		char *many[] = { "4090", "5090", "a100", "h20", "h200", "h800", "l20", "rtx6000-ada-generation" };
		int nrows[] = { 16, 16, 16, 16, 16, 16, 16, -1 };
		struct golden_info wide = { NULL, "no CUDA device: cuInit failed with CUDA_ERROR_NO_DEVICE (no CUDA-capable "
					  "device is detected) on this host", NULL, -1, many, nrows, 8 };
		int golden = -1;

		report_task(&d, t, &wide, 60);
		for (int i = 0; i < d.n; i++) {
			if (strstr(d.lines[i].text, "golden "))
				golden = i;
			if (golden >= 0 && i >= golden && i <= golden + 4)
				assert_true(d.lines[i].width <= 60);
		}
		assert_true(golden >= 0);
		must_find(&d, "rtx6000-ada-generation (-)");
		must_find(&d, "this host");
		doc_clear(&d);
	}
	/* no GPU: says so, and still lists the tables */
	g.gpu = NULL;
	g.gpu_note = "no CUDA device";
	g.table = NULL;
	report_task(&d, t, &g, 80);
	must_find(&d, "no CUDA device");
	must_find(&d, "h200 (16)");
	doc_free(&d);
}

static void fill_case(struct case_result *c, const char *name, enum verdict v)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->verdict = v;
	c->noutputs = 1;
	c->outputs = xcalloc(1, sizeof(*c->outputs));
	snprintf(c->outputs[0].arg, sizeof(c->outputs[0].arg), "y");
	c->outputs[0].cmp.n = 4096;
	c->outputs[0].cmp.rtol = c->outputs[0].cmp.atol = 1e-5;
	if (v == V_PASS)
		return;
	c->message = xstrdup("312 of 4096 elements differ");
	c->outputs[0].cmp.mismatches = 312;
	c->outputs[0].cmp.max_abs = 0.31;
	c->outputs[0].cmp.max_rel = 2.4;
	c->outputs[0].cmp.max_ulp = 9e6;
	c->outputs[0].cmp.cosine = 0.93;
	c->outputs[0].cmp.l1_relative = 0.04;
	c->outputs[0].cmp.rmse = 0.3;
	c->outputs[0].cmp.nworst = 3;
	for (int i = 0; i < 3; i++) {
		struct cmp_elem *e = &c->outputs[0].cmp.worst[i];

		e->ndim = 3;
		e->coord[0] = 1;
		e->coord[1] = 17;
		e->coord[2] = 63 - i;
		e->cand = 0.8123;
		e->ref = 0.5021;
		e->abs_err = i == 2 ? 2e-4 : 0.31;
		e->rel_err = 0.6;
		e->ulp = 9e6;
		e->score = e->abs_err / 1e-5;
	}
	c->outputs[0].cmp.tile_rows = 2;
	c->outputs[0].cmp.tile_cols = 3;
	c->outputs[0].cmp.tile_h = 16;
	c->outputs[0].cmp.tile_w = 32;
	c->outputs[0].cmp.tiles[2] = 0.5f;
	c->outputs[0].cmp.tiles[5] = 3e4f;
	snprintf(c->first_wrong_stage, sizeof(c->first_wrong_stage), "norm");
	snprintf(c->stage_diagnosis, sizeof(c->stage_diagnosis), "120 of 4096 values one step off (120 nearer zero, 0 "
		 "farther), none more: the rounding mode differs (truncation toward zero instead of rounding to the "
		 "nearest?)");
}

static void make_record(struct run_record *r)
{
	run_record_init(r, "Fusion/fused_add_gelu", "// a\n", "x.cu");
	r->state = RUN_DONE;
	r->ncases = 2;
	r->cases = xcalloc(2, sizeof(*r->cases));
	fill_case(&r->cases[0], "corner", V_PASS);
	fill_case(&r->cases[1], "random_outlier", V_WRONG);
	r->nperf = 1;
	r->perf = xcalloc(1, sizeof(*r->perf));
	r->perf[0].row = 3;
	r->perf[0].input_size = xstrdup("[[4096],[4096]]");
	r->perf[0].cand.median = 0.5;
	r->perf[0].ref.median = 1.0;
	r->perf[0].has_ref = 1;
	r->perf[0].golden_ms = 0.75;
	r->perf[0].gbps = 2400;
	r->perf[0].tflops = 0.5;
	r->perf[0].correct = 1;
	r->have_summary = 1;
	r->summary.verdict = V_WRONG;
	r->summary.message = xstrdup("case 'random_outlier': 312 of 4096 elements differ\nsecond line");
	r->summary.cases_total = 2;
	r->summary.cases_passed = 1;
	r->summary.speedup_golden = r->summary.speedup_ref = -1;
	r->summary.warnings = WARN(W_NONDETERMINISTIC);
	snprintf(r->summary.gpu, sizeof(r->summary.gpu), "NVIDIA H200");
}

static void test_results(void **state)
{
	const struct task *t = catalogue_find(&cat, "Fusion/fused_add_gelu");
	struct run_record r;
	struct doc d;

	(void)state;
	make_record(&r);
	doc_init(&d);
	report_results(&d, &r, t, 4800, 100);
	must_find(&d, "WRONG");
	assert_int_equal(find(&d, "second line"), -1); /* one line of the message */
	must_find(&d, "1/2 passed");
	must_find(&d, "nondeterministic");
	must_find(&d, "312/4096");
	assert_int_equal(role_at(&d, "312/4096"), ROLE_FAIL);
	/* case lines carry their index, for the diff */
	assert_int_equal(doc_find_tag(&d, 0), find(&d, "corner"));
	assert_int_equal(doc_find_tag(&d, 1), find(&d, "random_outlier "));
	/* per row: vs golden 0.75/0.5, vs reference 1.0/0.5, 50% of a 4800 GB/s peak */
	must_find(&d, "1.50x");
	must_find(&d, "2.00x");
	must_find(&d, "50%");
	must_find(&d, "[[4096],[4096]]");
	/* no earlier attempt: no line for it */
	assert_int_equal(find(&d, "vs best"), -1);
	/* a CUDA candidate is compiled for its arch; a Python module is loaded */
	doc_clear(&d);
	r.have_compile = 1;
	r.compile.ok = 1;
	snprintf(r.compile.arch, sizeof(r.compile.arch), "sm_90");
	report_results(&d, &r, t, 4800, 100);
	must_find(&d, "for sm_90");
	snprintf(r.compile.arch, sizeof(r.compile.arch), "python");
	doc_clear(&d);
	report_results(&d, &r, t, 4800, 100);
	must_find(&d, "(Python worker; Triton compiles each kernel at its first call)");
	assert_int_equal(find(&d, "for python"), -1);
	r.have_compile = 0;
	doc_clear(&d);
	report_results(&d, &r, t, 4800, 100);
	/* a live reference timing carries no mark; a kept one a '*' and a line saying how old */
	assert_int_equal(find(&d, "1.000*"), -1);
	assert_int_equal(find(&d, "kept from an earlier run"), -1);
	doc_clear(&d);
	r.perf[0].ref_kept = 1;
	r.perf[0].ref_age_s = 7500;
	report_results(&d, &r, t, 4800, 100);
	must_find(&d, "1.000*");
	must_find(&d, "the reference's timing kept from an earlier run on this GPU (1 row, the oldest 2 h 5 min old)");
	r.perf[0].ref_kept = 0;
	doc_clear(&d);
	/* against the best earlier attempt: the verdict in its colour, the run, and why */
	r.vs_best.found = 1;
	r.vs_best.best_id = 41;
	r.vs_best.best_at = 1000;
	r.vs_best.change = TC_FASTER;
	snprintf(r.vs_best.why, sizeof(r.vs_best.why), "12.4%% faster, outside the noise band of 1.8%%");
	report_results(&d, &r, t, 4800, 100);
	must_find(&d, "vs best");
	assert_int_equal(role_at(&d, "FASTER"), ROLE_PASS);
	must_find(&d, "run #41");
	must_find(&d, "outside the noise band of 1.8%");
	doc_clear(&d);
	r.vs_best.change = TC_UNCLEAR;
	report_results(&d, &r, t, 4800, 100);
	assert_int_equal(role_at(&d, "UNCLEAR"), ROLE_WARN);
	doc_clear(&d);
	/* figures never run into each other, however wide they get */
	r.cases[1].outputs[0].cmp.max_rel = 0.002063;
	r.cases[1].outputs[0].cmp.max_ulp = 19730;
	r.cases[1].outputs[0].cmp.mismatches = 259216;
	r.cases[1].outputs[0].cmp.n = 259313;
	report_results(&d, &r, t, -1, 80);
	must_find(&d, "0.002063 1.97e+04  259216/259313");
	doc_clear(&d);
	report_case_detail(&d, &r.cases[1], t, 60);
	must_find(&d, "first wrong stage norm");
	/* how the stage differs, wrapped under it at the screen's width */
	must_find(&d, "    120 of 4096 values one step off (120 nearer zero, 0");
	must_find(&d, "    farther), none more: the rounding mode differs");
	for (int i = 0; i < d.n; i++)
		assert_true(strlen(d.lines[i].text) <= 60 || !strstr(d.lines[i].text, "step off"));
	must_find(&d, "259216/259313 mismatches");
	doc_clear(&d);
	/* a nondeterministic case offers the sanitizers (S) */
	r.cases[1].nondeterministic = 1;
	report_case_detail(&d, &r.cases[1], t, 100);
	must_find(&d, "racecheck and initcheck");
	assert_int_equal(role_at(&d, "S"), ROLE_KEY);
	doc_free(&d);
	run_record_free(&r);
}

/* The quantization lens draws core/quant.c's figures: a row-scaled error on a 4 x 6 output. */
static void must_find_lens_figures(struct doc *d, const struct task *q, struct case_result *c)
{
	double cand[24], ref[24], step[24];
	size_t shape[2] = { 4, 6 };

	report_quant_lens(d, q, c, &c->outputs[0], NULL, 0, 80);
	must_find(d, "no error in quantization steps");
	doc_clear(d);
	for (int i = 0; i < 24; i++) {
		step[i] = 0.1;
		ref[i] = 0.1 * (i % 7);
		cand[i] = ref[i] + 0.1 * (2 + i / 6 * 3);   /* row r off by 2 + 3r steps */
	}
	quant_analyse(q->quant, cand, ref, step, shape, 2, &c->outputs[0].quant);
	report_quant_lens(d, q, c, &c->outputs[0], NULL, 0, 80);
	must_find(d, "error constant along each row");
	must_find(d, "> 1 step");
	must_find(d, "per row");
	must_find(d, "worst row 3: 11 mean");
	must_find(d, "per column");
	/* the conclusion on the first line, its evidence dimmed under it, both above the metrics: the
	 * diff screen's box is small */
	assert_int_equal(find(d, "the row scales differ"), 0);
	assert_int_equal(role_at(d, "the row scales differ"), ROLE_WARN);
	assert_true(find(d, "error constant along each row") > 0);
	assert_int_equal(role_at(d, "error constant along each row"), ROLE_DIM);
	assert_true(find(d, "cosine") > find(d, "error constant along each row"));
	doc_clear(d);
	/* in a narrow box every line fits: the worst rows and columns go on continuation lines under
	 * the first, each whole */
	report_quant_lens(d, q, c, &c->outputs[0], NULL, 0, 40);
	for (int i = 0; i < d->n; i++)
		assert_true(d->lines[i].width <= 40);
	must_find(d, "    worst row 3: 11 mean, 11 max");
	must_find(d, "              row 2: 8 mean, 8 max");
	doc_clear(d);
	/* the split is the first ": " outside parentheses; without one the line stays whole */
	snprintf(c->outputs[0].quant.diagnosis, sizeof(c->outputs[0].quant.diagnosis), "error differs across tokens "
		 "(worst token 3: 5 steps) and across dims: the token scales differ (the steps keep no dim scale: that "
		 "pattern follows the values)");
	report_quant_lens(d, q, c, &c->outputs[0], NULL, 0, 200);
	assert_int_equal(find(d, "the token scales differ (the steps keep no dim scale: that pattern follows the values)"),
			 0);
	assert_int_equal(find(d, "error differs across tokens (worst token 3: 5 steps) and across dims"), 1);
	doc_clear(d);
	snprintf(c->outputs[0].quant.diagnosis, sizeof(c->outputs[0].quant.diagnosis), "no element has a "
		 "quantization step to measure against (3 left out: a scale of 0 or a NaN/Inf)");
	report_quant_lens(d, q, c, &c->outputs[0], NULL, 0, 200);
	assert_int_equal(find(d, "no element has a quantization step to measure against (3 left out"), 0);
	doc_clear(d);
	memset(&c->outputs[0].quant, 0, sizeof(c->outputs[0].quant));
}

static void test_diff_parts(void **state)
{
	const struct task *t = catalogue_find(&cat, "Fusion/fused_add_gelu");
	struct case_result c;
	struct doc d;

	(void)state;
	fill_case(&c, "random_outlier", V_WRONG);
	doc_init(&d);
	report_diff_header(&d, t, &c, &c.outputs[0], 80);
	must_find(&d, "WRONG 312/4096 (7.6%)");
	must_find(&d, "first wrong stage: norm");
	must_find(&d, "stage: 120 of 4096 values one step off");
	must_find(&d, "       the rounding mode differs (truncation toward zero");
	doc_clear(&d);
	report_worst(&d, &c.outputs[0].cmp, 78);
	must_find(&d, "candidate");
	must_find(&d, "[1,17,63]");
	must_find(&d, "[1,17,61]");
	must_find(&d, "0.8123");
	assert_int_equal(doc_find_tag(&d, 2), find(&d, "[1,17,61]"));
	doc_clear(&d);
	/* negative values are values, not "not available" */
	c.outputs[0].cmp.worst[0].cand = -0.75;
	c.outputs[0].cmp.worst[0].ref = -1.5e-7;
	report_worst(&d, &c.outputs[0].cmp, 78);
	must_find(&d, " -0.75 ");
	must_find(&d, " -1.50e-07 ");
	for (int i = 0; i < d.n; i++)
		assert_true(d.lines[i].width <= 78);
	doc_clear(&d);
	report_heatmap(&d, &c.outputs[0].cmp, 3, 8);
	/* 2 x 3 tiles: exact, exact, inside tolerance / exact, exact, far outside */
	assert_string_equal(doc_text(&d, 0), "\u00b7\u00b7\u2592");
	assert_string_equal(doc_text(&d, 1), "\u00b7\u00b7\u2588");
	doc_clear(&d);
	/* with room, each tile is drawn wider (at most 3 cells) */
	report_heatmap(&d, &c.outputs[0].cmp, 30, 8);
	assert_string_equal(doc_text(&d, 1), "\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u2588\u2588\u2588");
	assert_int_equal(d.lines[1].segs[d.lines[1].nsegs - 1].role, ROLE_HEAT4);
	must_find(&d, "2x3 tiles of 16x32");
	must_find(&d, "|err|/tol");
	doc_clear(&d);
	/* every tile far out: the scale becomes relative to the worst tile, to show where */
	{
		struct cmp_result far = c.outputs[0].cmp;

		for (int i = 0; i < 6; i++)
			far.tiles[i] = 1e4f;
		far.tiles[4] = 2e3f;
		far.tiles[5] = 1e6f;
		report_heatmap(&d, &far, 3, 8);
		assert_string_equal(doc_text(&d, 0), "\u2592\u2592\u2592");
		assert_string_equal(doc_text(&d, 1), "\u2592\u2591\u2588");
		must_find(&d, "of the worst tile (1.00e+06x tol)");
		doc_clear(&d);
	}
	report_histogram(&d, &c.outputs[0].cmp, 30, 8);
	must_find(&d, "3 worst");
	must_find(&d, "1e-1 ");
	must_find(&d, "1e-4 ");
	assert_int_equal(role_at(&d, "1 worst") < 0, 1);
	doc_clear(&d);
	/* with the engine's histogram over every element: those counts, largest errors first */
	{
		struct cmp_result all = c.outputs[0].cmp;

		memset(all.hist, 0, sizeof(all.hist));
		all.hist[0] = 1000000;
		all.hist[3] = 40;
		all.hist[9] = 7;
		all.hist[15] = 2;
		report_histogram(&d, &all, 40, 8);
		must_find(&d, "over all 1000049 elements");
		must_find(&d, "NaN/Inf");
		must_find(&d, " 1000000");
		assert_true(role_at(&d, "NaN/Inf") >= 0);
		assert_true(strstr(doc_text(&d, 1), "NaN/Inf") != NULL);   /* worst first */
		doc_clear(&d);
	}
	/* Quantization: metrics against the task's thresholds, and evidence */
	{
		const struct task *q = catalogue_find(&cat, "Quantization/matmul_w8a8");
		struct rule rules[2] = { { .id = "int8_storage", .kind = RULE_EVIDENCE },
					 { .id = "clamp_to_range", .kind = RULE_EVIDENCE } };
		struct finding f[2] = { { &rules[0], 3, 1 }, { &rules[1], 9, 1 } };

		assert_non_null(q);
		report_quant_lens(&d, q, &c, &c.outputs[0], f, 2, 40);
		/* the evidence flows onto continuation lines, each mark with its rule */
		for (int i = 0; i < d.n; i++)
			assert_true(d.lines[i].width <= 40);
		must_find(&d, "cosine");
		assert_int_equal(role_at(&d, "\u2717"), ROLE_FAIL);   /* cosine 0.93 < 0.95 */
		must_find(&d, ">= 0.95");
		must_find(&d, "<= 0.05");
		must_find(&d, "int8_storage");
		doc_clear(&d);
		report_quant_lens(&d, q, &c, &c.outputs[0], NULL, 0, 40);
		if (q->nstatic_require)
			assert_int_equal(role_at(&d, q->static_require[0]) >= 0, 1);
		else
			must_find(&d, "no evidence rule matched");
		doc_clear(&d);
		/* without figures the lens says why; with them: the diagnosis, the bins, the profiles */
		must_find_lens_figures(&d, q, &c);
	}
	doc_free(&d);
	case_result_free(&c);
}

static void test_compile_log(void **state)
{
	struct compile_result c;
	struct doc d;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.log = xstrdup("candidate.cu(5): error: expected an expression\n        y[i] = x[i] +* ;\n");
	c.options = xstrdup("-arch=sm_90");
	c.ndiags = 2;
	c.diags = xcalloc(2, sizeof(*c.diags));
	c.diags[0].line = 5;
	c.diags[0].col = 17;
	snprintf(c.diags[0].severity, sizeof(c.diags[0].severity), "error");
	c.diags[0].message = xstrdup("expected an expression\n        y[i] = x[i] +* ;\n                ^");
	c.diags[1].line = 0;
	snprintf(c.diags[1].severity, sizeof(c.diags[1].severity), "warning");
	c.diags[1].message = xstrdup("ptxas: something");
	doc_init(&d);
	report_compile_log(&d, &c, 80);
	must_find(&d, "compile failed");
	must_find(&d, "1 error, 1 other diagnostic");
	assert_int_equal(doc_find_tag(&d, 0), find(&d, "line 5:17"));
	assert_true(doc_find_tag(&d, 1) > doc_find_tag(&d, 0));
	must_find(&d, "candidate.cu(5): error");
	assert_int_equal(report_static_line("line 3: #include \"/etc/passwd\": absolute path"), 3);
	assert_int_equal(report_static_line("no line"), 0);
	doc_free(&d);
	compile_result_free(&c);
}

static void test_help(void **state)
{
	char *themes[] = { "default", "mono" };
	struct doc d;

	(void)state;
	doc_init(&d);
	report_help(&d, "default", themes, 2, 120);
	/* every bound action is on the help page, with the keys the table binds */
	for (int a = 1; a < ACT_COUNT; a++) {
		int i = find(&d, keys_help((enum action)a));

		if (i < 0 || !strstr(d.lines[i].text, keys_spec((enum action)a)))
			fail_msg("help lacks '%s' (%s)", keys_help((enum action)a), keys_spec((enum action)a));
	}
	/* a heading for every scope that binds keys of its own */
	for (int a = 1; a < ACT_COUNT; a++)
		must_find(&d, keys_scope_title(keys_scope((enum action)a)));
	for (int v = 0; v < V_COUNT; v++)
		must_find(&d, verdict_description((enum verdict)v));
	must_find(&d, "default, mono");
	doc_free(&d);
}

static void test_history_and_compare(void **state)
{
	struct db_category_stat st = { "Fusion", 20, 5, 4, 2, 1.42, 1.1, 0, 0 };
	double series[4] = { 0, 0.5, -1, 1 };
	struct db_run_row row = { 0 };
	struct db_run_detail a = { 0 }, b = { 0 };
	char *na[] = { "corner", "rnd" }, *nb[] = { "corner", "rnd" };
	enum verdict va[] = { V_PASS, V_WRONG }, vb[] = { V_PASS, V_PASS };
	struct db_perf pa = { 0 }, pb = { 0 };
	struct doc d;

	(void)state;
	doc_init(&d);
	report_history_category(&d, &st, 60, series, 4, 80);
	assert_int_equal(d.lines[0].width, 80);
	must_find(&d, "25%");
	must_find(&d, "\u2581\u2585 \u2588");
	must_find(&d, "1.42x");
	must_find(&d, "2/60");
	doc_newline(&d);
	row.id = 12;
	snprintf(row.task_id, sizeof(row.task_id), "Fusion/fused_add_gelu");
	row.verdict = V_PASS;
	row.speedup_golden = 1.5;
	row.cand_ms = 0.25;
	row.created_at = 1000;
	report_history_run(&d, &row, NULL, 1000 + 7200, 1, 1, 80);
	must_find(&d, "#12");
	must_find(&d, "2h ago");
	must_find(&d, "fused_add_gelu");
	must_find(&d, "1.50x");
	assert_int_equal(role_at(&d, "*"), ROLE_MARK);
	doc_clear(&d);
	{
		/* the timing against the best attempt before it, beside the speedup, coloured */
		struct vsbest best = { 0 };

		best.found = 1;
		best.change = TC_SLOWER;
		report_history_run(&d, &row, &best, 1000 + 7200, 0, 1, 80);
		assert_int_equal(role_at(&d, "SLOWER"), ROLE_FAIL);
		must_find(&d, "1.50x SLOWER");
		must_find(&d, "0.25 ms");
		assert_int_equal(d.lines[0].width, 80);
		doc_clear(&d);
	}

	a.row.id = 1;
	b.row.id = 2;
	snprintf(a.row.task_id, sizeof(a.row.task_id), "Fusion/fused_add_gelu");
	snprintf(b.row.task_id, sizeof(b.row.task_id), "Fusion/fused_add_gelu");
	a.row.verdict = V_WRONG;
	b.row.verdict = V_PASS;
	a.row.speedup_golden = a.row.speedup_ref = a.row.cand_ms = -1;
	b.row.speedup_golden = 1.25;
	b.row.speedup_ref = b.row.cand_ms = -1;
	a.source = "a\nold line\nc\n";
	b.source = "a\nnew line\nc\n";
	a.case_names = na;
	a.case_verdicts = va;
	a.ncases = 2;
	b.case_names = nb;
	b.case_verdicts = vb;
	b.ncases = 2;
	pa.row = pb.row = 0;
	pa.cand_ms = 1.0;
	pb.cand_ms = 0.5;
	pa.input_size = pb.input_size = "[[4096]]";
	a.perf = &pa;
	b.perf = &pb;
	a.nperf = b.nperf = 1;
	report_compare(&d, &a, &b, 80);
	must_find(&d, "wrong");
	assert_int_equal(role_at(&d, "pass"), ROLE_PASS);
	must_find(&d, "case rnd");
	assert_int_equal(find(&d, "case corner"), -1); /* unchanged cases are not listed */
	must_find(&d, "(-50.0%)");
	must_find(&d, "+1 -1 lines");
	must_find(&d, "-old line");
	must_find(&d, "+new line");
	doc_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_browser_lines),
		cmocka_unit_test(test_task_page),
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_diff_parts),
		cmocka_unit_test(test_compile_log),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_history_and_compare),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
