/*
 * test_print.c - kbx run's terminal output (cli/print.c) of a wrong case: the quantization lens's
 * conclusion first and what it rests on under it, the first wrong stage, the output's figures.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/result.h"

/* What the printer writes for case c, in a string the caller frees. */
static char *printed(const struct case_result *c, int verbose)
{
	struct text_printer p;
	struct run_events ev;
	char *text = NULL;
	size_t len = 0;

	memset(&p, 0, sizeof(p));
	p.out = open_memstream(&text, &len);
	assert_non_null(p.out);
	p.verbose = verbose;
	ev = text_printer_events(&p);
	ev.case_done(ev.ctx, c);
	fclose(p.out);
	return text;
}

/* A wrong case with one output 'y', all else zero. */
static void wrong_case(struct case_result *c, struct output_result *out)
{
	memset(out, 0, sizeof(*out));
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "random_outlier");
	c->verdict = V_WRONG;
	c->outputs = out;
	c->noutputs = 1;
	snprintf(out->arg, sizeof(out->arg), "y");
}

static void test_quant_conclusion_first(void **state)
{
	struct output_result out;
	struct case_result c;
	char *text;

	(void)state;
	wrong_case(&c, &out);
	out.cmp.n = 4096;
	out.cmp.mismatches = 3112;
	out.quant.valid = 1;
	out.quant.n = 4096;
	out.quant.hist[QB_MORE] = 4096;
	snprintf(out.quant.diagnosis, sizeof(out.quant.diagnosis),
		 "error constant along each row (worst row 3: 11 steps), different across rows: the row scales differ");
	snprintf(c.first_wrong_stage, sizeof(c.first_wrong_stage), "w_scale");
	text = printed(&c, 0);
	assert_non_null(strstr(text, "first wrong stage: w_scale\n"));
	assert_non_null(strstr(text, "output 'y': 4096 elements, 3112 outside tolerance"));
	assert_non_null(strstr(text, "          quantization: the row scales differ\n"
				     "          seen:         error constant along each row (worst row 3: 11 steps), "
				     "different across rows\n"));
	assert_non_null(strstr(text, "error in steps:  exact 0"));
	free(text);
	/* a diagnosis without evidence is printed whole, with nothing under it */
	snprintf(out.quant.diagnosis, sizeof(out.quant.diagnosis), "no element has a quantization step to measure "
		 "against (3 left out: a scale of 0 or a NaN/Inf)");
	text = printed(&c, 0);
	assert_non_null(strstr(text, "quantization: no element has a quantization step to measure against (3 left out: "
				     "a scale of 0 or a NaN/Inf)\n"));
	assert_null(strstr(text, "seen:"));
	free(text);
	/* no lens, no quantization line */
	out.quant.valid = 0;
	text = printed(&c, 0);
	assert_null(strstr(text, "quantization:"));
	free(text);
}

/* The first wrong stage, how it differs, and where: its worst elements (flat indices) under it. */
static void test_stage_worst(void **state)
{
	struct output_result out, stage;
	struct case_result c;
	char *text;

	(void)state;
	wrong_case(&c, &out);
	memset(&stage, 0, sizeof(stage));
	snprintf(c.first_wrong_stage, sizeof(c.first_wrong_stage), "x_q");
	snprintf(c.stage_diagnosis, sizeof(c.stage_diagnosis), "40 of 4096 values one step off");
	snprintf(stage.arg, sizeof(stage.arg), "x_q");
	stage.cmp.nworst = 5;
	for (int i = 0; i < 5; i++) {
		stage.cmp.worst[i].ndim = 1;
		stage.cmp.worst[i].coord[0] = 17 + i;
		stage.cmp.worst[i].cand = 12;
		stage.cmp.worst[i].ref = 13;
		stage.cmp.worst[i].abs_err = 1;
	}
	c.stage = &stage;
	text = printed(&c, 0);
	assert_non_null(strstr(text, "          first wrong stage: x_q: 40 of 4096 values one step off\n"
				     "          stage  [17]  cand 12           ref 13           abs 1"));
	assert_non_null(strstr(text, "                 [20]  cand 12"));
	assert_null(strstr(text, "[21]"));     /* four of them */
	free(text);
	/* no comparison kept: the line alone */
	c.stage = NULL;
	text = printed(&c, 0);
	assert_null(strstr(text, "stage  ["));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quant_conclusion_first),
		cmocka_unit_test(test_stage_worst),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
