/* Tests for core/events.c (the worker's JSON lines) and core/result.c (names, free). */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/events.h"
#include "core/util.h"

/* ---- sample results ------------------------------------------------------------------------ */

/* Valid UTF-8 with everything JSON must escape. */
static const char weird[] = "line 1\nline 2\r\t\"quoted\" \\back\\slash\x01\x1f\x7f "
			    "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xe2\x80\xa8 {\"ev\":\"done\"}";
/* Invalid UTF-8 (stray bytes, a truncated sequence, an overlong, a surrogate) and what it must
 * come back as. */
static const char invalid[] = "bad\xff\xfe tail \xc3 x\xc0\xaf y\xed\xa0\x80 z\xf4\x90\x80\x80";
#define FFFD "\xef\xbf\xbd"
static const char invalid_fixed[] = "bad" FFFD FFFD " tail " FFFD " x" FFFD FFFD " y" FFFD FFFD FFFD
				    " z" FFFD FFFD FFFD FFFD;

static void make_cmp(struct cmp_result *c, int variant)
{
	memset(c, 0, sizeof(*c));
	c->n = 123456789012ULL + (size_t)variant;
	c->mismatches = 17;
	c->nan_mismatches = 2;
	c->inf_mismatches = 3;
	c->cand_nonfinite = 4;
	c->ref_nonfinite = 1;
	c->finite = c->n - 9 - (size_t)variant;
	c->max_abs = 0.1 + variant;
	c->max_rel = INFINITY;
	c->max_ulp = 9e6;
	c->cosine = 0.99999999999999989;
	c->l1_relative = NAN;
	c->rmse = 1e-300;
	c->rtol = 1e-5;
	c->atol = -0.0;
	c->pass = variant & 1;
	c->nworst = 3;
	for (int i = 0; i < 3; i++) {
		struct cmp_elem *e = &c->worst[i];
		e->ndim = i + 1;
		for (int d = 0; d < e->ndim; d++)
			e->coord[d] = (long long)(i * 1000 + d) * 1000003LL;
		e->component = i & 1;
		e->cand = i == 0 ? NAN : 0.8123 * i;
		e->ref = i == 1 ? -INFINITY : 0.5021;
		e->abs_err = i == 0 ? NAN : 3.1e-1;
		e->rel_err = 2.4;
		e->ulp = i == 0 ? INFINITY : 9e6;
		e->score = INFINITY;
	}
	c->tile_rows = 3;
	c->tile_cols = 5;
	c->tile_h = 11;
	c->tile_w = 7;
	for (int i = 0; i < 15; i++)
		c->tiles[i] = i == 7 ? INFINITY : (float)i * 0.3f;
	/* beyond rows * cols nothing travels */
}

static void make_case(struct case_result *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "random_outlier");
	c->index = 3;
	c->verdict = V_WRONG;
	c->message = xstrdup(weird);
	snprintf(c->oob_arg, sizeof(c->oob_arg), "y");
	snprintf(c->modified_arg, sizeof(c->modified_arg), "%s", "x\xc3\xa9");
	c->nondeterministic = 1;
	snprintf(c->first_wrong_stage, sizeof(c->first_wrong_stage), "rmsnorm");
	snprintf(c->stage_diagnosis, sizeof(c->stage_diagnosis), "every value 0.498 (127/255) times the reference's");
	c->seconds = 0.25;
	c->noutputs = 2;
	c->outputs = xcalloc(2, sizeof(*c->outputs));
	snprintf(c->outputs[0].arg, sizeof(c->outputs[0].arg), "y");
	make_cmp(&c->outputs[0].cmp, 0);
	snprintf(c->outputs[1].arg, sizeof(c->outputs[1].arg), "z");
	make_cmp(&c->outputs[1].cmp, 1);
	c->stage = xcalloc(1, sizeof(*c->stage));
	snprintf(c->stage->arg, sizeof(c->stage->arg), "rmsnorm");
	make_cmp(&c->stage->cmp, 1);
}

static void make_perf(struct perf_result *p)
{
	memset(p, 0, sizeof(*p));
	p->row = 7;
	p->input_size = xstrdup("{\"n\": 1048576, \"dtype\": \"f32\"}");
	p->cand = (struct sample_stats){ 0.5, 0.4, 0.6, 0.3, 0.9, 0.51, 0.02, 100 };
	p->ref = (struct sample_stats){ NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0 };
	p->has_ref = 0;
	p->golden_ms = -1;
	p->bytes = 8.0 * 1048576;
	p->flops = -1;
	p->gbps = 1.6e4;
	p->tflops = -INFINITY;
	p->correct = 1;
	p->message = NULL;
}

static void make_compile(struct compile_result *c)
{
	memset(c, 0, sizeof(*c));
	c->ok = 0;
	c->cached = 1;
	c->seconds = 1.5;
	c->log = xstrdup(invalid);
	c->options = NULL;
	snprintf(c->arch, sizeof(c->arch), "sm_90a");
	c->ndiags = 2;
	c->diags = xcalloc(2, sizeof(*c->diags));
	c->diags[0] = (struct compile_diag){ 12, 5, "error", xstrdup("expected a \";\"") };
	c->diags[1] = (struct compile_diag){ 0, 0, "warning", xstrdup(weird) };
}

static void make_summary(struct run_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->verdict = V_PASS;
	s->warnings = WARN(W_NONDETERMINISTIC) | WARN(W_NO_GOLDEN);
	s->message = xstrdup("every case matched");
	s->cases_total = 5;
	s->cases_passed = 5;
	s->perf_unchecked = 1;
	s->speedup_golden = -1;
	s->speedup_ref = 1.42;
	s->cand_ms_sum = 3.25;
	s->ref_ms_sum = 4.5;
	s->golden_ms_sum = NAN;
	snprintf(s->gpu, sizeof(s->gpu), "NVIDIA H200");
	snprintf(s->golden_table, sizeof(s->golden_table), "h200");
	s->driver_version = 12080;
	s->seconds = 12.75;
	s->split = (struct time_split){ .compile_s = 0.5, .inputs_s = 1.25, .verify_s = 3, .timing_s = 8,
					.launch_s = 0.75, .transfer_s = 0.375 };
}

/* ---- equality ------------------------------------------------------------------------------ */

static int num_eq(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return a == b && signbit(a) == signbit(b);
}

#define EQN(a, b) assert_true(num_eq((a), (b)))

static void str_eq(const char *a, const char *b)
{
	if (!a || !b) {
		assert_null(a);
		assert_null(b);
		return;
	}
	assert_string_equal(a, b);
}

static void cmp_eq(const struct cmp_result *a, const struct cmp_result *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->mismatches, b->mismatches);
	assert_int_equal(a->nan_mismatches, b->nan_mismatches);
	assert_int_equal(a->inf_mismatches, b->inf_mismatches);
	assert_int_equal(a->cand_nonfinite, b->cand_nonfinite);
	assert_int_equal(a->ref_nonfinite, b->ref_nonfinite);
	assert_int_equal(a->finite, b->finite);
	EQN(a->max_abs, b->max_abs);
	EQN(a->max_rel, b->max_rel);
	EQN(a->max_ulp, b->max_ulp);
	EQN(a->cosine, b->cosine);
	EQN(a->l1_relative, b->l1_relative);
	EQN(a->rmse, b->rmse);
	EQN(a->rtol, b->rtol);
	EQN(a->atol, b->atol);
	assert_int_equal(a->pass, b->pass);
	assert_int_equal(a->nworst, b->nworst);
	for (int i = 0; i < a->nworst; i++) {
		const struct cmp_elem *x = &a->worst[i], *y = &b->worst[i];
		assert_int_equal(x->ndim, y->ndim);
		for (int d = 0; d < x->ndim; d++)
			assert_int_equal(x->coord[d], y->coord[d]);
		assert_int_equal(x->component, y->component);
		EQN(x->cand, y->cand);
		EQN(x->ref, y->ref);
		EQN(x->abs_err, y->abs_err);
		EQN(x->rel_err, y->rel_err);
		EQN(x->ulp, y->ulp);
		EQN(x->score, y->score);
	}
	assert_int_equal(a->tile_rows, b->tile_rows);
	assert_int_equal(a->tile_cols, b->tile_cols);
	assert_int_equal(a->tile_h, b->tile_h);
	assert_int_equal(a->tile_w, b->tile_w);
	for (int i = 0; i < a->tile_rows * a->tile_cols; i++)
		EQN(a->tiles[i], b->tiles[i]);
}

static void case_eq(const struct case_result *a, const struct case_result *b)
{
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->index, b->index);
	assert_int_equal(a->verdict, b->verdict);
	str_eq(a->message, b->message);
	assert_string_equal(a->oob_arg, b->oob_arg);
	assert_string_equal(a->modified_arg, b->modified_arg);
	assert_int_equal(a->nondeterministic, b->nondeterministic);
	assert_string_equal(a->first_wrong_stage, b->first_wrong_stage);
	assert_string_equal(a->stage_diagnosis, b->stage_diagnosis);
	EQN(a->seconds, b->seconds);
	assert_int_equal(a->noutputs, b->noutputs);
	for (int i = 0; i < a->noutputs; i++) {
		assert_string_equal(a->outputs[i].arg, b->outputs[i].arg);
		cmp_eq(&a->outputs[i].cmp, &b->outputs[i].cmp);
	}
	assert_int_equal(!a->stage, !b->stage);
	if (a->stage) {
		assert_string_equal(a->stage->arg, b->stage->arg);
		cmp_eq(&a->stage->cmp, &b->stage->cmp);
	}
}

static void stats_eq(const struct sample_stats *a, const struct sample_stats *b)
{
	EQN(a->median, b->median);
	EQN(a->p20, b->p20);
	EQN(a->p80, b->p80);
	EQN(a->min, b->min);
	EQN(a->max, b->max);
	EQN(a->mean, b->mean);
	EQN(a->stddev, b->stddev);
	assert_int_equal(a->n, b->n);
}

static void perf_eq(const struct perf_result *a, const struct perf_result *b)
{
	assert_int_equal(a->row, b->row);
	str_eq(a->input_size, b->input_size);
	stats_eq(&a->cand, &b->cand);
	stats_eq(&a->ref, &b->ref);
	assert_int_equal(a->has_ref, b->has_ref);
	EQN(a->golden_ms, b->golden_ms);
	EQN(a->bytes, b->bytes);
	EQN(a->flops, b->flops);
	EQN(a->gbps, b->gbps);
	EQN(a->tflops, b->tflops);
	assert_int_equal(a->correct, b->correct);
	str_eq(a->message, b->message);
	assert_int_equal(a->ref_kept, b->ref_kept);
	if (a->ref_kept)
		EQN(a->ref_age_s, b->ref_age_s);
	assert_int_equal(a->ref_outputs_kept, b->ref_outputs_kept);
}

/* A reference timing kept from an earlier run says so, with its age; a live one says nothing,
 * and a row from before kept timings reads as live. */
static void test_perf_ref_kept(void **state)
{
	struct perf_result p, back;
	char *t;

	(void)state;
	make_perf(&p);
	p.has_ref = 1;
	p.ref = (struct sample_stats){ 0.6, 0.59, 0.61, 0.58, 0.7, 0.6, 0.01, 90 };
	snprintf(p.bench_mode, sizeof(p.bench_mode), "fixed");
	snprintf(p.bench_stop, sizeof(p.bench_stop), "count");
	t = perf_result_to_json(&p);
	assert_null(strstr(t, "ref_kept"));
	assert_null(strstr(t, "ref_outputs_kept"));
	assert_int_equal(perf_result_from_json(t, &back), KBX_OK);
	assert_int_equal(back.ref_kept, 0);
	assert_int_equal(back.ref_outputs_kept, 0);
	perf_result_free(&back);
	free(t);

	/* the checks that took the reference's kept outputs (refout.h) */
	p.ref_outputs_kept = 2;
	t = perf_result_to_json(&p);
	assert_non_null(strstr(t, "\"ref_outputs_kept\":2"));
	assert_int_equal(perf_result_from_json(t, &back), KBX_OK);
	perf_eq(&p, &back);
	perf_result_free(&back);
	free(t);

	p.ref_kept = 1;
	p.ref_age_s = 7512.5;
	t = perf_result_to_json(&p);
	assert_non_null(strstr(t, "\"ref_kept\":true"));
	assert_non_null(strstr(t, "\"ref_age_s\":7512.5"));
	assert_int_equal(perf_result_from_json(t, &back), KBX_OK);
	perf_eq(&p, &back);
	assert_true(back.ref.median == 0.6);
	perf_result_free(&back);
	free(t);
	perf_result_free(&p);
}

/* The compile log comes back sanitised; everything else as it was. */
static void compile_eq(const struct compile_result *a, const struct compile_result *b, const char *log)
{
	assert_int_equal(a->ok, b->ok);
	assert_int_equal(a->cached, b->cached);
	EQN(a->seconds, b->seconds);
	str_eq(log, b->log);
	str_eq(a->options, b->options);
	assert_string_equal(a->arch, b->arch);
	assert_int_equal(a->ndiags, b->ndiags);
	for (int i = 0; i < a->ndiags; i++) {
		assert_int_equal(a->diags[i].line, b->diags[i].line);
		assert_int_equal(a->diags[i].col, b->diags[i].col);
		assert_string_equal(a->diags[i].severity, b->diags[i].severity);
		str_eq(a->diags[i].message, b->diags[i].message);
	}
}

static void summary_eq(const struct run_summary *a, const struct run_summary *b)
{
	assert_int_equal(a->verdict, b->verdict);
	assert_int_equal(a->warnings, b->warnings);
	str_eq(a->message, b->message);
	assert_int_equal(a->cases_total, b->cases_total);
	assert_int_equal(a->cases_passed, b->cases_passed);
	assert_int_equal(a->perf_unchecked, b->perf_unchecked);
	EQN(a->speedup_golden, b->speedup_golden);
	EQN(a->speedup_ref, b->speedup_ref);
	EQN(a->cand_ms_sum, b->cand_ms_sum);
	EQN(a->ref_ms_sum, b->ref_ms_sum);
	EQN(a->golden_ms_sum, b->golden_ms_sum);
	assert_string_equal(a->gpu, b->gpu);
	assert_string_equal(a->golden_table, b->golden_table);
	assert_int_equal(a->driver_version, b->driver_version);
	EQN(a->seconds, b->seconds);
#define SPLIT_EQ(f, required) EQN(a->split.f, b->split.f);
	TIME_SPLIT_LIST(SPLIT_EQ)
#undef SPLIT_EQ
}

/* ---- a run_events that checks what arrives against what was sent ---------------------------- */

struct expect {
	const char *phase_what;
	double phase_limit;
	const struct compile_result *compile;
	const char *compile_log;
	const struct case_result *cs;
	const struct perf_result *perf;
	const char *log_text;
	const struct run_summary *done;
	int calls[6];
};

static void x_phase(void *ctx, const char *what, double limit_s)
{
	struct expect *x = ctx;

	assert_string_equal(what, x->phase_what);
	EQN(limit_s, x->phase_limit);
	x->calls[0]++;
}

static void x_compile(void *ctx, const struct compile_result *c)
{
	struct expect *x = ctx;

	compile_eq(x->compile, c, x->compile_log);
	x->calls[1]++;
}

static void x_case(void *ctx, const struct case_result *c)
{
	struct expect *x = ctx;

	case_eq(x->cs, c);
	x->calls[2]++;
}

static void x_perf(void *ctx, const struct perf_result *p)
{
	struct expect *x = ctx;

	perf_eq(x->perf, p);
	x->calls[3]++;
}

static void x_log(void *ctx, const char *text)
{
	struct expect *x = ctx;

	assert_string_equal(text, x->log_text);
	x->calls[4]++;
}

static void x_done(void *ctx, const struct run_summary *s)
{
	struct expect *x = ctx;

	summary_eq(x->done, s);
	x->calls[5]++;
}

static struct run_events expect_events(struct expect *x)
{
	return (struct run_events){ x, x_phase, x_compile, x_case, x_perf, x_log, x_done };
}

struct samples {
	struct compile_result compile;
	struct case_result cs;
	struct perf_result perf;
	struct run_summary done;
};

static void make_samples(struct samples *s, struct expect *x)
{
	make_compile(&s->compile);
	make_case(&s->cs);
	make_perf(&s->perf);
	make_summary(&s->done);
	memset(x, 0, sizeof(*x));
	x->phase_what = "case corner launch 1";
	x->phase_limit = 10;
	x->compile = &s->compile;
	x->compile_log = invalid_fixed;
	x->cs = &s->cs;
	x->perf = &s->perf;
	x->log_text = weird;
	x->done = &s->done;
}

static void free_samples(struct samples *s)
{
	compile_result_free(&s->compile);
	case_result_free(&s->cs);
	perf_result_free(&s->perf);
	run_summary_free(&s->done);
}

static void emit_all(const struct run_events *w, const struct samples *s, const struct expect *x)
{
	w->phase(w->ctx, x->phase_what, x->phase_limit);
	w->compile(w->ctx, &s->compile);
	w->case_done(w->ctx, &s->cs);
	w->perf_row(w->ctx, &s->perf);
	w->log(w->ctx, x->log_text);
	w->done(w->ctx, &s->done);
}

/* Writes every event to a memory stream; returns the text (caller frees). */
static char *write_all_events(const struct samples *s, const struct expect *x)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct run_events w;

	assert_non_null(f);
	w = events_json_writer(f);
	emit_all(&w, s, x);
	fclose(f);
	return buf;
}

/* ---- tests --------------------------------------------------------------------------------- */

static void test_round_trip_memstream(void **state)
{
	struct samples s;
	struct expect x;
	struct run_events ev;
	char *text, *line, *save = NULL;
	int nlines = 0;

	(void)state;
	make_samples(&s, &x);
	ev = expect_events(&x);
	text = write_all_events(&s, &x);
	/* one JSON object per line, "ev" first */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_true(strncmp(line, "{\"ev\":\"", 7) == 0);
		assert_int_equal(events_json_dispatch(line, &ev), KBX_OK);
		nlines++;
	}
	assert_int_equal(nlines, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(x.calls[i], 1);
	free(text);
	free_samples(&s);
}

/* ---- typed events (run_event) ----------------------------------------------------------------- */

struct collected {
	struct run_event *ev[16];
	int n;
};

static void keep(struct collected *c, struct run_event *e)
{
	assert_true(c->n < 16);
	c->ev[c->n++] = e;
}

static void k_phase(void *ctx, const char *what, double limit_s)
{
	keep(ctx, run_event_new_phase(what, limit_s));
}

static void k_compile(void *ctx, const struct compile_result *c)
{
	keep(ctx, run_event_new_compile(c));
}

static void k_case(void *ctx, const struct case_result *c)
{
	keep(ctx, run_event_new_case(c));
}

static void k_perf(void *ctx, const struct perf_result *p)
{
	keep(ctx, run_event_new_perf(p));
}

static void k_log(void *ctx, const char *text)
{
	keep(ctx, run_event_new_log(text));
}

static void k_done(void *ctx, const struct run_summary *s)
{
	keep(ctx, run_event_new_done(s));
}

/* The JSON of a typed event's struct, as the old path's second decode would have had it: the
 * event written as a wire line and decoded again. */
static char *json_of(const struct run_event *e)
{
	switch (e->kind) {
	case RUN_EVENT_COMPILE:
		return compile_result_to_json(&e->compile);
	case RUN_EVENT_CASE:
		return case_result_to_json(&e->kase);
	case RUN_EVENT_PERF:
		return perf_result_to_json(&e->perf);
	case RUN_EVENT_DONE:
		return run_summary_to_json(&e->summary);
	case RUN_EVENT_PHASE:
	case RUN_EVENT_LOG:
		break;
	}
	return xasprintf("%s %.17g", e->text, e->limit_s);
}

struct rewire {
	char *json;
};

static void r_phase(void *ctx, const char *what, double limit_s)
{
	((struct rewire *)ctx)->json = xasprintf("%s %.17g", what, limit_s);
}

static void r_log(void *ctx, const char *text)
{
	((struct rewire *)ctx)->json = xasprintf("%s %.17g", text, 0.0);
}

static void r_compile(void *ctx, const struct compile_result *c)
{
	((struct rewire *)ctx)->json = compile_result_to_json(c);
}

static void r_case(void *ctx, const struct case_result *c)
{
	((struct rewire *)ctx)->json = case_result_to_json(c);
}

static void r_perf(void *ctx, const struct perf_result *p)
{
	((struct rewire *)ctx)->json = perf_result_to_json(p);
}

static void r_done(void *ctx, const struct run_summary *s)
{
	((struct rewire *)ctx)->json = run_summary_to_json(s);
}

/* Decoded once into typed events: they own their structs after the decoder has freed its own,
 * carry what the JSON said, and are exactly what encoding them again and decoding a second time
 * (the explorer's old path) gave. */
static void test_typed_events(void **state)
{
	static const enum run_event_kind order[6] = { RUN_EVENT_PHASE, RUN_EVENT_COMPILE, RUN_EVENT_CASE,
						      RUN_EVENT_PERF, RUN_EVENT_LOG, RUN_EVENT_DONE };
	struct samples s;
	struct expect x;
	struct collected c = { { NULL }, 0 };
	struct run_events kept = { &c, k_phase, k_compile, k_case, k_perf, k_log, k_done }, ev;
	char *text, *line, *save = NULL;

	(void)state;
	make_samples(&s, &x);
	text = write_all_events(&s, &x);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		assert_int_equal(events_json_dispatch(line, &kept), KBX_OK);
	assert_int_equal(c.n, 6);
	ev = expect_events(&x);
	for (int i = 0; i < 6; i++) {
		char *wire = NULL, *direct, *again;
		struct rewire rw = { NULL };
		struct run_events re = { &rw, r_phase, r_compile, r_case, r_perf, r_log, r_done };
		FILE *f;
		size_t len = 0;

		assert_int_equal(c.ev[i]->kind, order[i]);
		assert_null(c.ev[i]->next);
		run_event_dispatch(c.ev[i], &ev);
		assert_int_equal(x.calls[i], 1);
		/* the old path: written on the explorer's pipe and decoded again */
		f = open_memstream(&wire, &len);
		assert_non_null(f);
		{
			struct run_events w = events_json_writer(f);

			run_event_dispatch(c.ev[i], &w);
		}
		fclose(f);
		assert_int_equal(events_json_dispatch(wire, &re), KBX_OK);
		direct = json_of(c.ev[i]);
		again = rw.json;
		assert_non_null(again);
		assert_string_equal(direct, again);
		free(direct);
		free(again);
		free(wire);
	}
	/* a NULL callback skips its event; NULL listeners skip them all */
	{
		struct run_events none = { 0 };

		for (int i = 0; i < 6; i++) {
			run_event_dispatch(c.ev[i], &none);
			run_event_dispatch(c.ev[i], NULL);
		}
	}
	for (int i = 0; i < 6; i++)
		run_event_free(c.ev[i]);
	run_event_free(NULL);
	free(text);
	free_samples(&s);
}

/* The strings the parent makes up: cleaned of invalid UTF-8 as the wire cleaned them; the
 * others are copied as they are. */
static void test_typed_event_strings(void **state)
{
	struct run_event *e;
	struct run_summary sum;
	struct case_result cs;

	(void)state;
	e = run_event_new_log(invalid);
	assert_int_equal(e->kind, RUN_EVENT_LOG);
	assert_string_equal(e->text, invalid_fixed);
	run_event_free(e);
	e = run_event_new_log(NULL);
	assert_string_equal(e->text, "");
	run_event_free(e);
	e = run_event_new_phase(invalid, 2.5);
	assert_string_equal(e->text, invalid_fixed);
	assert_true(e->limit_s == 2.5);
	run_event_free(e);
	e = run_event_new_phase(weird, 0);
	assert_string_equal(e->text, weird);
	run_event_free(e);

	make_summary(&sum);
	free(sum.message);
	sum.message = xstrdup(invalid);
	e = run_event_new_done(&sum);
	assert_string_equal(e->summary.message, invalid_fixed);
	assert_string_equal(sum.message, invalid);      /* the caller's is untouched */
	assert_ptr_not_equal(e->summary.message, sum.message);
	run_event_free(e);
	free(sum.message);
	sum.message = NULL;
	e = run_event_new_done(&sum);
	assert_null(e->summary.message);
	run_event_free(e);
	run_summary_free(&sum);

	make_case(&cs);
	e = run_event_new_case(&cs);
	assert_ptr_not_equal(e->kase.outputs, cs.outputs);
	assert_ptr_not_equal(e->kase.message, cs.message);
	case_result_free(&cs);          /* the event's copy outlives the original */
	assert_string_equal(e->kase.message, weird);
	assert_string_equal(e->kase.outputs[1].arg, "z");
	run_event_free(e);
}

static void test_round_trip_pipe(void **state)
{
	struct samples s;
	struct expect x;
	struct run_events w, ev;
	int fds[2];
	FILE *out, *in;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int nlines = 0;

	(void)state;
	make_samples(&s, &x);
	ev = expect_events(&x);
	assert_int_equal(pipe(fds), 0);
	out = fdopen(fds[1], "w");
	in = fdopen(fds[0], "r");
	assert_non_null(out);
	assert_non_null(in);
	/* small events only: nobody reads the pipe until the writer is done */
	w = events_json_writer(out);
	w.phase(w.ctx, x.phase_what, x.phase_limit);
	w.log(w.ctx, x.log_text);
	w.done(w.ctx, &s.done);
	fclose(out);
	while ((n = getline(&line, &cap, in)) > 0) {
		assert_true(line[n - 1] == '\n');
		assert_int_equal(events_json_dispatch(line, &ev), KBX_OK);
		nlines++;
	}
	assert_int_equal(nlines, 3);
	assert_int_equal(x.calls[0] + x.calls[4] + x.calls[5], 3);
	free(line);
	fclose(in);
	free_samples(&s);
}

static void test_to_json_from_json(void **state)
{
	struct samples s;
	struct expect x;
	struct case_result c2;
	struct perf_result p2;
	struct compile_result k2;
	struct run_summary d2;
	char *t;

	(void)state;
	make_samples(&s, &x);

	t = case_result_to_json(&s.cs);
	assert_null(strstr(t, "\"ev\""));
	assert_null(strchr(t, '\n'));
	assert_non_null(strstr(t, "\"max_rel\":\"inf\""));
	assert_non_null(strstr(t, "\"l1_relative\":\"nan\""));
	assert_int_equal(case_result_from_json(t, &c2), KBX_OK);
	case_eq(&s.cs, &c2);
	case_result_free(&c2);
	free(t);

	t = perf_result_to_json(&s.perf);
	assert_non_null(strstr(t, "\"tflops\":\"-inf\""));
	assert_non_null(strstr(t, "\"message\":null"));
	assert_int_equal(perf_result_from_json(t, &p2), KBX_OK);
	perf_eq(&s.perf, &p2);
	perf_result_free(&p2);
	free(t);

	t = compile_result_to_json(&s.compile);
	assert_int_equal(compile_result_from_json(t, &k2), KBX_OK);
	compile_eq(&s.compile, &k2, invalid_fixed);
	compile_result_free(&k2);
	free(t);

	t = run_summary_to_json(&s.done);
	assert_non_null(strstr(t, "\"warnings\":[\"nondeterministic\",\"no-golden\"]"));
	assert_non_null(strstr(t, "\"verdict\":\"pass\""));
	assert_int_equal(run_summary_from_json(t, &d2), KBX_OK);
	summary_eq(&s.done, &d2);
	run_summary_free(&d2);
	free(t);

	/* a failure leaves nothing behind */
	assert_int_equal(case_result_from_json("{\"name\":\"x\"}", &c2), KBX_EPARSE);
	assert_null(c2.outputs);
	assert_null(c2.message);
	assert_non_null(strstr(kbx_last_error(), "'index'"));
	free_samples(&s);
}

/* Fixed-size fields: a full buffer without its NUL, and a long string cut at a character. */
static void test_fixed_fields(void **state)
{
	struct case_result c, c2;
	json_t *o;
	char *t, *t2;
	struct sbuf long_name = SBUF_INIT;

	(void)state;
	memset(&c, 0, sizeof(c));
	memset(c.name, 'a', sizeof(c.name));    /* no NUL */
	c.verdict = V_PASS;
	t = case_result_to_json(&c);
	assert_int_equal(case_result_from_json(t, &c2), KBX_OK);
	assert_int_equal(strlen(c2.name), sizeof(c.name) - 1);
	case_result_free(&c2);

	for (int i = 0; i < 40; i++)
		sbuf_adds(&long_name, "\xc3\xa9");
	o = json_loads(t, 0, NULL);
	assert_non_null(o);
	json_object_set_new(o, "name", json_string(long_name.buf));
	t2 = json_dumps(o, JSON_COMPACT);
	assert_int_equal(case_result_from_json(t2, &c2), KBX_OK);
	assert_int_equal(strlen(c2.name), 62);  /* 31 whole characters, not 63 bytes */
	assert_true(strncmp(c2.name, long_name.buf, 62) == 0);
	case_result_free(&c2);
	free(t2);
	json_decref(o);
	free(t);
	sbuf_release(&long_name);
}

/* A split stored before launch_s and transfer_s existed reads them as 0; one that lacks a part
 * every split has had, or holds a string, is malformed. */
static void test_split_versions(void **state)
{
	struct run_summary s, d;
	json_t *o, *split;
	char *t;

	(void)state;
	make_summary(&s);
	t = run_summary_to_json(&s);
	o = json_loads(t, 0, NULL);
	free(t);
	assert_non_null(o);
	split = json_object_get(o, "split");
	json_object_del(split, "launch_s");
	json_object_del(split, "transfer_s");
	t = json_dumps(o, JSON_COMPACT);
	assert_int_equal(run_summary_from_json(t, &d), KBX_OK);
	assert_true(d.split.timing_s == s.split.timing_s && d.split.compile_s == s.split.compile_s);
	assert_true(d.split.launch_s == 0 && d.split.transfer_s == 0);
	run_summary_free(&d);
	free(t);

	json_object_set_new(split, "inputs_s", json_string("1.25"));
	t = json_dumps(o, JSON_COMPACT);
	assert_int_equal(run_summary_from_json(t, &d), KBX_EPARSE);
	free(t);
	json_object_del(split, "inputs_s");
	t = json_dumps(o, JSON_COMPACT);
	assert_int_equal(run_summary_from_json(t, &d), KBX_EPARSE);
	free(t);

	/* a summary from before the split has none at all: every part 0 */
	json_object_del(o, "split");
	t = json_dumps(o, JSON_COMPACT);
	assert_int_equal(run_summary_from_json(t, &d), KBX_OK);
	assert_true(d.split.compile_s == 0 && d.split.verify_s == 0);
	run_summary_free(&d);
	free(t);

	/* a summary from before perf_unchecked reads as checked */
	json_object_del(o, "perf_unchecked");
	t = json_dumps(o, JSON_COMPACT);
	assert_int_equal(run_summary_from_json(t, &d), KBX_OK);
	assert_int_equal(d.perf_unchecked, 0);
	run_summary_free(&d);
	free(t);
	json_decref(o);
	run_summary_free(&s);
}

/* A case written before the non-finite counts: none of either kind, every pair finite. */
static void test_nonfinite_counts_optional(void **state)
{
	struct samples s;
	struct expect x;
	struct case_result back;
	json_t *o, *out0;
	char *t;

	(void)state;
	make_samples(&s, &x);
	t = case_result_to_json(&s.cs);
	o = json_loads(t, 0, NULL);
	free(t);
	assert_non_null(o);
	out0 = json_array_get(json_object_get(o, "outputs"), 0);
	assert_int_equal(json_integer_value(json_object_get(out0, "cand_nonfinite")), 4);
	json_object_del(out0, "cand_nonfinite");
	json_object_del(out0, "ref_nonfinite");
	json_object_del(out0, "finite");
	t = json_dumps(o, JSON_COMPACT);
	assert_int_equal(case_result_from_json(t, &back), KBX_OK);
	assert_int_equal(back.outputs[0].cmp.cand_nonfinite, 0);
	assert_int_equal(back.outputs[0].cmp.ref_nonfinite, 0);
	assert_int_equal(back.outputs[0].cmp.finite, back.outputs[0].cmp.n);
	case_result_free(&back);
	free(t);
	json_decref(o);
	free_samples(&s);
}

static int total_calls(const struct expect *x)
{
	int n = 0;

	for (int i = 0; i < 6; i++)
		n += x->calls[i];
	return n;
}

/* A valid "case" line with one field replaced. */
static char *case_line_with(const struct case_result *c, const char *path, json_t *value)
{
	char *t = case_result_to_json(c), *out;
	json_t *o = json_loads(t, 0, NULL), *target = o;

	assert_non_null(o);
	json_object_set_new(o, "ev", json_string("case"));
	if (strncmp(path, "out0.", 5) == 0) {
		target = json_array_get(json_object_get(o, "outputs"), 0);
		path += 5;
	}
	if (strncmp(path, "w0.", 3) == 0) {
		target = json_array_get(json_object_get(target, "worst"), 0);
		path += 3;
	}
	if (value)
		json_object_set_new(target, path, value);
	else
		json_object_del(target, path);
	out = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	free(t);
	return out;
}

static void test_malformed(void **state)
{
	static const char *const lines[] = {
		"", "   ", "{", "}", "[]", "42", "\"x\"", "null", "{}", "{\"ev\":3}", "{\"ev\":null}",
		"{\"ev\":\"nope\"}", "{\"ev\":\"phase\"}", "{\"ev\":\"phase\",\"what\":1,\"limit_s\":2}",
		"{\"ev\":\"phase\",\"what\":\"x\",\"limit_s\":\"fast\"}",
		"{\"ev\":\"phase\",\"what\":\"x\",\"limit_s\":\"infinity\"}",
		"{\"ev\":\"log\",\"text\":null}", "{\"ev\":\"log\",\"text\":\"a\\u0000b\"}",
		"{\"ev\":\"log\",\"text\":\"x\"} trailing", "{\"ev\":\"log\",\"text\":\"\xff\"}",
		"{\"ev\":\"done\"}", "{\"ev\":\"case\"}", "{\"ev\":\"perf\"}", "{\"ev\":\"compile\"}",
		"{\"ev\":\"compile\",\"ok\":true,\"cached\":false,\"seconds\":1,\"log\":\"\",\"options\":null,"
		"\"arch\":\"sm_90\",\"diags\":[1]}",
	};
	struct samples s;
	struct expect x;
	struct run_events ev;
	struct {
		const char *path;
		json_t *value;
	} edits[] = {
		{ "verdict", json_string("bogus") },
		{ "verdict", NULL },
		{ "index", json_real(1e10) },
		{ "index", json_integer(1LL << 40) },
		{ "nondeterministic", json_integer(1) },
		{ "outputs", json_object() },
		{ "outputs", json_pack("[i]", 1) },
		{ "name", json_integer(5) },
		{ "message", json_true() },
		{ "seconds", json_string("soon") },
		{ "out0.n", json_integer(-1) },
		{ "out0.cand_nonfinite", json_integer(-2) },
		{ "out0.finite", json_string("most") },
		{ "out0.tile_rows", json_integer(CMP_TILES + 1) },
		{ "out0.tile_cols", json_integer(4) },  /* tiles no longer rows * cols long */
		{ "out0.tiles", json_pack("[f]", 1.0) },
		{ "out0.worst", json_pack("[iiiiiiiiiiiiiiiii]", 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1) },
		{ "out0.worst", json_pack("[i]", 1) },
		{ "out0.pass", NULL },
		{ "out0.w0.coord", json_pack("[iiiiiiiii]", 1, 2, 3, 4, 5, 6, 7, 8, 9) },
		{ "out0.w0.coord", json_pack("[s]", "1") },
		{ "out0.w0.cand", json_string("NaN") },
		{ "out0.w0.score", json_null() },
	};

	(void)state;
	make_samples(&s, &x);
	ev = expect_events(&x);
	assert_int_equal(events_json_dispatch(NULL, &ev), KBX_EPARSE);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		if (events_json_dispatch(lines[i], &ev) != KBX_EPARSE)
			fail_msg("accepted '%s'", lines[i]);
		assert_true(kbx_last_error()[0] != '\0');
	}
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		char *line = case_line_with(&s.cs, edits[i].path, edits[i].value);
		if (events_json_dispatch(line, &ev) != KBX_EPARSE)
			fail_msg("accepted edit of '%s': %s", edits[i].path, line);
		free(line);
	}
	assert_int_equal(total_calls(&x), 0);

	/* the unedited line is fine, and an unknown warning name is skipped, not fatal */
	{
		char *line = case_line_with(&s.cs, "extra_key", json_integer(1));
		assert_int_equal(events_json_dispatch(line, &ev), KBX_OK);
		assert_int_equal(x.calls[2], 1);
		free(line);
	}
	{
		struct run_summary d;
		char *t = run_summary_to_json(&s.done);
		json_t *o = json_loads(t, 0, NULL);
		json_array_append_new(json_object_get(o, "warnings"), json_string("from-the-future"));
		free(t);
		t = json_dumps(o, JSON_COMPACT);
		assert_int_equal(run_summary_from_json(t, &d), KBX_OK);
		assert_int_equal(d.warnings, s.done.warnings);
		run_summary_free(&d);
		free(t);
		json_decref(o);
	}
	free_samples(&s);
}

/* Callbacks that read everything they are given, so that ASan sees any bad pointer. */
static size_t touched;

static void t_str(const char *s)
{
	if (s)
		touched += strlen(s);
}

static void t_phase(void *ctx, const char *what, double limit_s)
{
	t_str(what);
	touched += limit_s > 0;
}

static void t_compile(void *ctx, const struct compile_result *c)
{
	t_str(c->log);
	t_str(c->options);
	t_str(c->arch);
	for (int i = 0; i < c->ndiags; i++) {
		t_str(c->diags[i].message);
		t_str(c->diags[i].severity);
	}
}

static void t_case(void *ctx, const struct case_result *c)
{
	t_str(c->name);
	t_str(c->message);
	t_str(c->oob_arg);
	t_str(c->modified_arg);
	t_str(c->first_wrong_stage);
	t_str(c->stage_diagnosis);
	if (c->stage) {
		t_str(c->stage->arg);
		assert_true(c->stage->cmp.nworst >= 0 && c->stage->cmp.nworst <= CMP_WORST);
	}
	for (int i = 0; i < c->noutputs; i++) {
		const struct cmp_result *r = &c->outputs[i].cmp;
		t_str(c->outputs[i].arg);
		assert_true(r->nworst >= 0 && r->nworst <= CMP_WORST);
		assert_true(r->tile_rows >= 0 && r->tile_rows <= CMP_TILES);
		assert_true(r->tile_cols >= 0 && r->tile_cols <= CMP_TILES);
		for (int k = 0; k < r->nworst; k++) {
			assert_true(r->worst[k].ndim >= 0 && r->worst[k].ndim <= CMP_MAX_DIMS);
			for (int d = 0; d < r->worst[k].ndim; d++)
				touched += (size_t)r->worst[k].coord[d];
		}
	}
}

static void t_perf(void *ctx, const struct perf_result *p)
{
	t_str(p->input_size);
	t_str(p->message);
}

static void t_log(void *ctx, const char *text)
{
	t_str(text);
}

static void t_done(void *ctx, const struct run_summary *s)
{
	t_str(s->message);
	t_str(s->gpu);
	t_str(s->golden_table);
}

static uint64_t rng_state = 0x1234567ULL;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static void test_garbage(void **state)
{
	static const char alphabet[] = "{}[]\":,0123456789.eE+-tfnul \\\"abcdevphasn\xff\xc3";
	struct run_events ev = { NULL, t_phase, t_compile, t_case, t_perf, t_log, t_done };
	struct samples s;
	struct expect x;
	char *text, *lines[6], *save = NULL;
	int nl = 0, ok = 0;

	(void)state;
	make_samples(&s, &x);
	text = write_all_events(&s, &x);
	for (char *l = strtok_r(text, "\n", &save); l && nl < 6; l = strtok_r(NULL, "\n", &save))
		lines[nl++] = l;
	assert_int_equal(nl, 6);

	for (int iter = 0; iter < 6000; iter++) {
		struct sbuf sb = SBUF_INIT;
		enum kbx_status st;
		int kind = (int)(rng() % 4);

		if (kind == 0) {
			/* random bytes */
			size_t len = rng() % 200;
			for (size_t i = 0; i < len; i++) {
				char ch = (char)(rng() % 255 + 1);
				sbuf_add(&sb, &ch, 1);
			}
		} else if (kind == 1) {
			/* random text from JSON's own alphabet */
			size_t len = rng() % 120;
			sbuf_adds(&sb, "{\"ev\":\"");
			for (size_t i = 0; i < len; i++)
				sbuf_add(&sb, &alphabet[rng() % (sizeof(alphabet) - 1)], 1);
		} else {
			/* a real line, mutated: bytes changed, a cut, a piece repeated */
			const char *src = lines[rng() % 6];
			size_t len = strlen(src);
			sbuf_adds(&sb, src);
			for (int m = (int)(rng() % 4); m >= 0; m--) {
				size_t at = rng() % sb.len;
				switch (rng() % 4) {
				case 0:
					sb.buf[at] = alphabet[rng() % (sizeof(alphabet) - 1)];
					break;
				case 1:
					sb.buf[at] = '\0';
					sb.len = at;
					break;
				case 2: {
					size_t from = rng() % len, n = rng() % 40;
					if (from + n > len)
						n = len - from;
					char *piece = xstrndup(src + from, n);
					sbuf_adds(&sb, piece);
					free(piece);
					break;
				}
				default:
					sb.buf[at] = (char)(rng() % 255 + 1);
					break;
				}
				if (sb.len == 0)
					break;
			}
		}
		st = events_json_dispatch(sb.buf ? sb.buf : "", &ev);
		assert_true(st == KBX_OK || st == KBX_EPARSE);
		ok += st == KBX_OK;
		sbuf_release(&sb);
	}
	/* some mutations leave a valid event (a changed digit), most do not */
	assert_true(ok > 0 && ok < 6000);
	free(text);
	free_samples(&s);
}

struct counter {
	int n[6];
};

static void c_phase(void *ctx, const char *what, double limit_s)
{
	((struct counter *)ctx)->n[0]++;
}

static void c_log(void *ctx, const char *text)
{
	((struct counter *)ctx)->n[4]++;
}

static void c_done(void *ctx, const struct run_summary *s)
{
	((struct counter *)ctx)->n[5]++;
}

static void test_tee(void **state)
{
	struct counter a = { { 0 } }, b = { { 0 } };
	struct run_events ea = { &a, c_phase, NULL, NULL, NULL, c_log, c_done };
	struct run_events eb = { &b, c_phase, NULL, NULL, NULL, NULL, c_done };
	struct run_events_tee tee = { { &ea, NULL, &eb, NULL } };
	struct run_events t = events_tee(&tee);
	struct samples s;
	struct expect x;

	(void)state;
	make_samples(&s, &x);
	emit_all(&t, &s, &x);
	t.phase(t.ctx, "again", 0);
	assert_int_equal(a.n[0], 2);
	assert_int_equal(b.n[0], 2);
	assert_int_equal(a.n[4], 1);
	assert_int_equal(b.n[4], 0);
	assert_int_equal(a.n[5], 1);
	assert_int_equal(b.n[5], 1);
	free_samples(&s);
}

/* A tee into the JSON writer and a checker at once: what the writer wrote still parses. */
static void test_tee_writer(void **state)
{
	struct samples s;
	struct expect x, direct;
	struct run_events ev, w, chk, t;
	struct run_events_tee tee;
	char *buf = NULL, *save = NULL;
	size_t len = 0;
	FILE *f;
	int n = 0;

	(void)state;
	make_samples(&s, &x);
	direct = x;
	direct.compile_log = s.compile.log;     /* not through JSON: the raw bytes arrive */
	f = open_memstream(&buf, &len);
	w = events_json_writer(f);
	chk = expect_events(&direct);
	tee = (struct run_events_tee){ { &w, &chk, NULL, NULL } };
	t = events_tee(&tee);
	emit_all(&t, &s, &x);
	fclose(f);
	for (int i = 0; i < 6; i++)
		assert_int_equal(direct.calls[i], 1);
	ev = expect_events(&x);
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save), n++)
		assert_int_equal(events_json_dispatch(l, &ev), KBX_OK);
	assert_int_equal(n, 6);
	free(buf);
	free_samples(&s);
}

static void test_result_names(void **state)
{
	enum verdict v;
	unsigned bit;
	char *w;

	(void)state;
	for (int i = 0; i < V_COUNT; i++) {
		assert_int_equal(verdict_parse(verdict_name((enum verdict)i), &v), 1);
		assert_int_equal(v, i);
		assert_true(strlen(verdict_description((enum verdict)i)) > 10);
	}
	assert_string_equal(verdict_name(V_COMPILE_ERROR), "compile_error");
	assert_string_equal(verdict_name(V_PASS), "pass");
	assert_int_equal(verdict_parse("Pass", &v), 0);
	assert_int_equal(verdict_parse("", &v), 0);
	assert_int_equal(verdict_parse(NULL, &v), 0);
	assert_string_equal(verdict_name(V_COUNT), "unknown");

	assert_string_equal(warning_name(W_NONDETERMINISTIC_BIT), "nondeterministic");
	assert_string_equal(warning_name(W_REVERIFY_FAILED_BIT), "reverify-failed");
	assert_non_null(warning_name(W_SANITIZER_BIT));
	assert_null(warning_name(W_SANITIZER_BIT + 1));
	assert_null(warning_name(1000));
	assert_non_null(warning_description(W_NO_GOLDEN_BIT));
	assert_int_equal(warning_parse("impossible-timing", &bit), 1);
	assert_int_equal(bit, W_IMPOSSIBLE_TIMING_BIT);
	assert_int_equal(warning_parse("impossible", &bit), 0);

	w = warnings_string(0);
	assert_string_equal(w, "");
	free(w);
	w = warnings_string(WARN(W_NONDETERMINISTIC) | WARN(W_NO_GOLDEN));
	assert_string_equal(w, "nondeterministic,no-golden");
	free(w);
	w = warnings_string(WARN(W_REVERIFY_FAILED) | (1u << 30));
	assert_string_equal(w, "reverify-failed");
	free(w);
}

static void test_results_free(void **state)
{
	struct samples s;
	struct expect x;

	(void)state;
	make_samples(&s, &x);
	free_samples(&s);
	/* zeroed, so freeing again is harmless */
	assert_null(s.cs.outputs);
	assert_int_equal(s.compile.ndiags, 0);
	free_samples(&s);
	case_result_free(NULL);
	perf_result_free(NULL);
	compile_result_free(NULL);
	run_summary_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_ref_kept),
		cmocka_unit_test(test_round_trip_memstream),
		cmocka_unit_test(test_round_trip_pipe),
		cmocka_unit_test(test_typed_events),
		cmocka_unit_test(test_typed_event_strings),
		cmocka_unit_test(test_to_json_from_json),
		cmocka_unit_test(test_fixed_fields),
		cmocka_unit_test(test_split_versions),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_nonfinite_counts_optional),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_tee),
		cmocka_unit_test(test_tee_writer),
		cmocka_unit_test(test_result_names),
		cmocka_unit_test(test_results_free),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
