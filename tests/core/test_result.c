/* Deep copies of result structs (core/result.c): a copy owns everything it points to, so it stays
 * whole when its source is scribbled over and freed, and it carries every field. Each fixture fills
 * every field (a null in its JSON fails the test, so a new pointer field must be filled here) and
 * compares the serialised copy with the serialised source. Under ASan a pointer the copy shares
 * with its source is also a use after free. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/events.h"
#include "core/result.h"
#include "core/util.h"

/* Number of nulls anywhere in the JSON text: a field the fixture left empty. */
static int count_nulls(const json_t *j)
{
	const char *key;
	json_t *v;
	size_t i;
	int n = 0;

	if (json_is_null(j))
		return 1;
	if (json_is_object(j))
		json_object_foreach((json_t *)j, key, v)
			n += count_nulls(v);
	if (json_is_array(j))
		json_array_foreach(j, i, v)
			n += count_nulls(v);
	return n;
}

static void assert_no_nulls(const char *text)
{
	json_t *j = json_loads(text, 0, NULL);

	assert_non_null(j);
	if (count_nulls(j))
		fail_msg("the fixture leaves a field empty: %s", text);
	json_decref(j);
}

/* What a source's owned memory holds after it is scribbled over: nothing the copy may show. */
static void scribble(char *s)
{
	if (s)
		memset(s, '#', strlen(s));
}

static void fill_case(struct case_result *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "random_outlier");
	c->index = 3;
	c->verdict = V_WRONG;
	c->message = xstrdup("312 of 4096 elements differ");
	snprintf(c->oob_arg, sizeof(c->oob_arg), "y");
	snprintf(c->modified_arg, sizeof(c->modified_arg), "x");
	c->nondeterministic = 1;
	snprintf(c->first_wrong_stage, sizeof(c->first_wrong_stage), "norm");
	c->seconds = 0.25;
	c->noutputs = 2;
	c->outputs = xcalloc(2, sizeof(*c->outputs));
	for (int i = 0; i < 2; i++) {
		struct cmp_result *m = &c->outputs[i].cmp;

		snprintf(c->outputs[i].arg, sizeof(c->outputs[i].arg), "out%d", i);
		m->n = 4096;
		m->mismatches = 312 + (size_t)i;
		m->max_abs = 0.31;
		m->nworst = 1;
		m->worst[0].ndim = 2;
		m->worst[0].coord[0] = 17;
		m->worst[0].coord[1] = 63;
		m->worst[0].abs_err = 0.31;
		m->tile_rows = 2;
		m->tile_cols = 3;
		m->tiles[5] = 12.5f;
	}
}

static void fill_perf(struct perf_result *p)
{
	memset(p, 0, sizeof(*p));
	p->row = 2;
	p->input_size = xstrdup("[[4096, 4096]]");
	p->cand.median = 0.5;
	p->cand.n = 100;
	p->ref.median = 0.75;
	p->has_ref = 1;
	p->golden_ms = 0.6;
	p->bytes = p->flops = 1e9;
	p->gbps = 2000;
	p->tflops = 2;
	p->correct = 1;
	p->message = xstrdup("below the bandwidth ceiling");
	p->bw_fraction = 0.4;
	p->flop_fraction = 0.1;
	snprintf(p->bench_mode, sizeof(p->bench_mode), "noise");
	snprintf(p->bench_stop, sizeof(p->bench_stop), "cap");
	p->cand_rsd = 0.01;
}

static void fill_compile(struct compile_result *c)
{
	memset(c, 0, sizeof(*c));
	c->seconds = 0.5;
	c->log = xstrdup("x.cu(5): error: expected an expression");
	c->options = xstrdup("--gpu-architecture=sm_90 -std=c++17");
	snprintf(c->arch, sizeof(c->arch), "sm_90");
	c->ndiags = 2;
	c->diags = xcalloc(2, sizeof(*c->diags));
	for (int i = 0; i < 2; i++) {
		c->diags[i].line = 5 + i;
		c->diags[i].col = 3;
		snprintf(c->diags[i].severity, sizeof(c->diags[i].severity), "error");
		c->diags[i].message = xasprintf("expected an expression (%d)", i);
	}
}

static void fill_summary(struct run_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->verdict = V_WRONG;
	s->warnings = WARN(W_NONDETERMINISTIC);
	s->message = xstrdup("an output differs from the reference");
	s->cases_total = 4;
	s->cases_passed = 3;
	s->speedup_golden = 1.5;
	s->speedup_ref = 1.25;
	s->cand_ms_sum = 1;
	s->ref_ms_sum = 1.25;
	s->golden_ms_sum = 1.5;
	snprintf(s->gpu, sizeof(s->gpu), "NVIDIA H200");
	snprintf(s->golden_table, sizeof(s->golden_table), "h200");
	s->driver_version = 12080;
	s->seconds = 3;
	s->split.compile_s = 0.5;
}

static void test_case_copy(void **state)
{
	struct case_result src, dst;
	char *before, *after;

	(void)state;
	fill_case(&src);
	before = case_result_to_json(&src);
	assert_no_nulls(before);
	case_result_copy(&dst, &src);
	scribble(src.message);
	memset(src.outputs, 0x5a, sizeof(*src.outputs) * (size_t)src.noutputs);
	case_result_free(&src);
	after = case_result_to_json(&dst);
	assert_string_equal(after, before);
	case_result_free(&dst);
	free(before);
	free(after);
}

static void test_perf_copy(void **state)
{
	struct perf_result src, dst;
	char *before, *after;

	(void)state;
	fill_perf(&src);
	before = perf_result_to_json(&src);
	assert_no_nulls(before);
	perf_result_copy(&dst, &src);
	scribble(src.input_size);
	scribble(src.message);
	perf_result_free(&src);
	after = perf_result_to_json(&dst);
	assert_string_equal(after, before);
	perf_result_free(&dst);
	free(before);
	free(after);
}

static void test_compile_copy(void **state)
{
	struct compile_result src, dst;
	char *before, *after;

	(void)state;
	fill_compile(&src);
	before = compile_result_to_json(&src);
	assert_no_nulls(before);
	compile_result_copy(&dst, &src);
	scribble(src.log);
	scribble(src.options);
	for (int i = 0; i < src.ndiags; i++) {
		scribble(src.diags[i].message);
		scribble(src.diags[i].severity);
		src.diags[i].line = src.diags[i].col = -1;
	}
	compile_result_free(&src);
	after = compile_result_to_json(&dst);
	assert_string_equal(after, before);
	compile_result_free(&dst);
	free(before);
	free(after);
}

static void test_summary_copy(void **state)
{
	struct run_summary src, dst;
	char *before, *after;

	(void)state;
	fill_summary(&src);
	before = run_summary_to_json(&src);
	assert_no_nulls(before);
	run_summary_copy(&dst, &src);
	scribble(src.message);
	run_summary_free(&src);
	after = run_summary_to_json(&dst);
	assert_string_equal(after, before);
	run_summary_free(&dst);
	free(before);
	free(after);
}

/* Empty and absent parts stay empty and absent: no array for no outputs, NULL for NULL. */
static void test_copy_empty(void **state)
{
	struct case_result c = { 0 }, cc;
	struct compile_result k = { 0 }, kc;
	struct perf_result p = { 0 }, pc;
	struct run_summary s = { 0 }, sc;

	(void)state;
	c.noutputs = 3; /* a count without an array counts as none */
	case_result_copy(&cc, &c);
	assert_null(cc.outputs);
	assert_int_equal(cc.noutputs, 0);
	assert_null(cc.message);
	compile_result_copy(&kc, &k);
	assert_null(kc.diags);
	assert_null(kc.log);
	assert_null(kc.options);
	perf_result_copy(&pc, &p);
	assert_null(pc.input_size);
	assert_null(pc.message);
	run_summary_copy(&sc, &s);
	assert_null(sc.message);
	case_result_free(&cc);
	compile_result_free(&kc);
	perf_result_free(&pc);
	run_summary_free(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_case_copy),
		cmocka_unit_test(test_perf_copy),
		cmocka_unit_test(test_compile_copy),
		cmocka_unit_test(test_summary_copy),
		cmocka_unit_test(test_copy_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
