/*
 * fuzz_expr.c - expressions (core/expr.c) and the small languages built on them: perf lists
 * (problem.c perf_list_expand), input_size templates (problem_input_size) and generators
 * (inputs.c gen_parse, gen_format). Each input goes through all of them: they are cheap, and
 * libFuzzer keeps whatever reaches new code in any one.
 *
 * Properties checked, beyond not crashing:
 *   - what expr_eval accepts, expr_check accepts; what expr_check rejects, expr_eval rejects;
 *     err_col is a column of the text
 *   - expr_eval_int / expr_eval_float agree with expr_eval
 *   - gen_format's text reads back to the same spec, bit for bit (inputs.h promises it)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/expr.h"
#include "../core/inputs.h"
#include "../core/problem.h"
#include "fuzz.h"

static struct expr_env env;

static void init_env(void)
{
	struct expr_value half = { .is_float = 1, .f = 0.5 };

	if (env.n)
		return;
	expr_env_set_int(&env, "n", 1024);
	expr_env_set_int(&env, "m", 3);
	expr_env_set_int(&env, "k", 7);
	expr_env_set_int(&env, "zero", 0);
	expr_env_set_int(&env, "big", 9223372036854775807LL);
	expr_env_set_int(&env, "sms", 132);
	expr_env_set(&env, "p", half);
}

static void check_col(int col, size_t len)
{
	if (col < 0 || (size_t)col > len)
		abort();
}

static void fuzz_expressions(const char *text, size_t len)
{
	struct expr_value v;
	enum kbx_status st_eval, st_check;
	long long i;
	double f;
	int col = -1;

	st_eval = expr_eval(text, &env, &v, &col);
	check_col(col, len);
	col = -1;
	st_check = expr_check(text, &col);
	check_col(col, len);
	if (st_eval == KBX_OK && st_check != KBX_OK)
		abort();
	if (expr_eval_int(text, &env, &i, NULL) == KBX_OK) {
		if (st_eval != KBX_OK || (!v.is_float && v.i != i) || (v.is_float && (double)i != v.f))
			abort();
	}
	if (expr_eval_float(text, &env, &f, NULL) == KBX_OK) {
		if (st_eval != KBX_OK || memcmp(&f, &(double){ expr_as_double(v) }, sizeof(f)) != 0)
			abort();
	}
	/* without an env every name is unknown, but the syntax verdict stays */
	if (expr_eval(text, NULL, &v, NULL) == KBX_OK && st_check != KBX_OK)
		abort();
}

static int same_spec(const struct gen_spec *a, const struct gen_spec *b)
{
	return a->kind == b->kind && memcmp(&a->a, &b->a, sizeof(a->a)) == 0 &&
	       memcmp(&a->b, &b->b, sizeof(a->b)) == 0 && a->nvalues == b->nvalues &&
	       (a->nvalues == 0 || memcmp(a->values, b->values, (size_t)a->nvalues * sizeof(*a->values)) == 0);
}

static void fuzz_generator(const char *text)
{
	struct gen_spec g, g2;
	char *f, *f2;

	if (gen_parse_env(text, &env, &g) != KBX_OK)
		return;
	f = gen_format(&g);
	if (gen_parse(f, &g2) != KBX_OK)
		abort();
	f2 = gen_format(&g2);
	if (strcmp(f, f2) != 0 || !same_spec(&g, &g2))
		abort();
	free(f);
	free(f2);
	gen_spec_free(&g);
	gen_spec_free(&g2);
}

static void fuzz_perf_list(const char *text)
{
	char **items = NULL;
	int n = 0;

	if (perf_list_expand(text, &items, &n) != KBX_OK)
		return;
	if (n < 1)
		abort();
	for (int j = 0; j < n; j++)
		if (!items[j])
			abort();
	perf_list_free(items, n);
}

static void fuzz_input_size(const char *text)
{
	char *json = NULL;

	if (problem_input_size(text, &env, &json) == KBX_OK) {
		if (!json)
			abort();
		free(json);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);

	init_env();
	fuzz_expressions(text, strlen(text));
	fuzz_generator(text);
	fuzz_perf_list(text);
	fuzz_input_size(text);
	free(text);
	return 0;
}
