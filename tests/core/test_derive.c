/* Derived cases (core/derive.h): which cases a task gets, that their names rebuild them, that
 * scaled generators draw scaled values, fuzz draws and shrinking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/derive.h"
#include "core/inputs.h"
#include "core/problem.h"
#include "core/util.h"

static struct task *parse(const char *ini)
{
	struct task *t = NULL;

	if (task_parse_text(ini, "mem/task.ini", "Cat", "t", &t) != KBX_OK)
		fail_msg("task did not parse: %s", kbx_last_error());
	return t;
}

static const char one_d[] =
	"[task]\nname = t\ncategory = Cat\ndifficulty = 1\nsummary = s\n"
	"[args]\nx = in f32 [n]\ny = out f32 [n]\nn = i64\n"
	"[inputs]\nx = randn\n"
	"[case.fixed]\nn = 4\nx = values(1, 2, 3, 4)\n"
	"[case.small]\nn = 100\n"
	"[case.big]\nn = 5000\n";

static int has(const struct task_case *c, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return 1;
	return 0;
}

static void test_one_d_task(void **state)
{
	struct task *t = parse(one_d);
	struct task_case *c;
	int n, i;

	(void)state;
	assert_int_equal(derive_auto(t, &c, &n), KBX_OK);
	/* values(...) is not scaled: the base is the first case drawing from randn, 'small' */
	assert_true(has(c, n, "auto:scale=3"));
	assert_true(has(c, n, "auto:scale=0.01"));
	assert_true(has(c, n, "auto:scale=-1"));
	assert_true(has(c, n, "auto:n=1"));
	assert_true(has(c, n, "auto:n=97"));
	assert_true(has(c, n, "auto:n=4097"));
	assert_true(has(c, n, "auto:n=10007"));      /* cap: 4 x 5000 */
	assert_false(has(c, n, "auto:n=65537"));
	assert_false(has(c, n, "auto:n=100"));       /* the base's own size */
	for (i = 0; i < n; i++) {
		struct problem pb;
		struct task_case again;

		assert_int_equal(problem_from_case_spec(t, &c[i], &pb), KBX_OK);
		problem_free(&pb);
		/* the name alone rebuilds the same bindings */
		assert_int_equal(derive_case(t, c[i].name, &again), KBX_OK);
		assert_int_equal(again.nb, c[i].nb);
		for (int j = 0; j < again.nb; j++) {
			assert_string_equal(again.b[j].key, c[i].b[j].key);
			assert_string_equal(again.b[j].value, c[i].b[j].value);
		}
		derive_case_free(&again);
	}
	derive_cases_free(c, n);
	task_free(t);
}

static void test_scaled_case_draws_scaled_values(void **state)
{
	struct task *t = parse(one_d);
	struct task_case c;
	struct problem pb;
	struct gen_spec plain, scaled;
	float a[64], b[64];
	const long long shape[1] = { 64 };
	int i;

	(void)state;
	assert_int_equal(derive_case(t, "auto:scale=-0.01", &c), KBX_OK);
	assert_string_equal(binding_get(c.b, c.nb, "x"), "randn * -0.01");
	assert_int_equal(problem_from_case_spec(t, &c, &pb), KBX_OK);
	assert_string_equal(pb.bufs[0].gen, "randn * -0.01");
	assert_int_equal(gen_parse("randn", &plain), KBX_OK);
	assert_int_equal(gen_parse(pb.bufs[0].gen, &scaled), KBX_OK);
	assert_int_equal(gen_fill(&plain, DT_F32, a, 64, shape, 1, 7), KBX_OK);
	assert_int_equal(gen_fill(&scaled, DT_F32, b, 64, shape, 1, 7), KBX_OK);
	for (i = 0; i < 64; i++)
		assert_float_equal(b[i], (float)(a[i] * -0.01), fabsf(a[i]) * 1e-6f + 1e-12f);
	gen_spec_free(&plain);
	gen_spec_free(&scaled);
	problem_free(&pb);
	derive_case_free(&c);
	task_free(t);
}

static void test_bad_recipes(void **state)
{
	struct task *t = parse(one_d);
	struct task_case c;

	(void)state;
	assert_int_equal(derive_case(t, "auto:m=3", &c), KBX_EPARSE);
	assert_non_null(strstr(kbx_last_error(), "'m' is not a size"));
	assert_int_equal(derive_case(t, "auto:n=-3", &c), KBX_EPARSE);
	assert_int_equal(derive_case(t, "auto:scale=0", &c), KBX_EPARSE);
	assert_int_equal(derive_case(t, "auto:scale=nan", &c), KBX_EPARSE);
	assert_int_equal(derive_case(t, "auto:n", &c), KBX_EPARSE);
	assert_int_equal(derive_case(t, "small", &c), KBX_ENOTFOUND);
	assert_false(derive_is_name("small"));
	assert_true(derive_is_name("fuzz:n=3"));
	task_free(t);
}

static void test_generator_scale_rules(void **state)
{
	struct gen_spec g;
	char *s;

	(void)state;
	assert_int_equal(gen_parse("outlier(0.001, 10) * 3", &g), KBX_OK);
	assert_true(g.scale == 3);
	s = gen_format(&g);
	assert_string_equal(s, "outlier(0.001, 10) * 3");
	free(s);
	gen_spec_free(&g);
	/* bounded generators describe a domain: no scaling */
	assert_int_equal(gen_parse("uniform(0, 1) * 3", &g), KBX_EPARSE);
	assert_int_equal(gen_parse("randn * 0", &g), KBX_EPARSE);
	assert_int_equal(gen_parse("randn *", &g), KBX_EPARSE);
	assert_int_equal(gen_parse("randn * x", &g), KBX_EPARSE);
}

static void test_fuzz_and_shrink(void **state)
{
	struct task *t = parse(one_d);
	struct task_case a, b;
	char **smaller;
	int n, i;

	(void)state;
	assert_int_equal(derive_fuzz(t, 5, 0, &a), KBX_OK);
	assert_int_equal(derive_fuzz(t, 5, 0, &b), KBX_OK);
	assert_string_equal(a.name, b.name);                     /* same seed, same draw */
	assert_true(!strncmp(a.name, "fuzz:n=", 7));
	assert_non_null(strstr(a.name, "scale="));
	derive_case_free(&b);
	assert_int_equal(derive_fuzz(t, 6, 0, &b), KBX_OK);
	derive_case_free(&b);
	for (i = 0; i < 20; i++) {                               /* sizes stay within [1, cap] */
		long long v;

		assert_int_equal(derive_fuzz(t, 9, i, &b), KBX_OK);
		v = atoll(binding_get(b.b, b.nb, "n"));
		assert_true(v >= 1 && v <= 20000);
		derive_case_free(&b);
	}
	derive_case_free(&a);

	assert_int_equal(derive_shrink(t, "fuzz:n=37,scale=-0.251", &smaller, &n), KBX_OK);
	assert_int_equal(n, 5);
	assert_string_equal(smaller[0], "fuzz:n=1,scale=-0.251");
	assert_string_equal(smaller[1], "fuzz:n=18,scale=-0.251");
	assert_string_equal(smaller[2], "fuzz:n=36,scale=-0.251");
	assert_string_equal(smaller[3], "fuzz:n=37,scale=-1");
	assert_string_equal(smaller[4], "fuzz:n=37");
	derive_names_free(smaller, n);
	assert_int_equal(derive_shrink(t, "fuzz:n=1,scale=1", &smaller, &n), KBX_OK);
	assert_int_equal(n, 1);                                  /* only: drop the scale */
	derive_names_free(smaller, n);
	task_free(t);
}

/* The cap counts a case's size as its binding evaluates, however it is written, and never stops
 * short of 4097 (past a block of 1,024 threads and a tile of 4,096) unless the task says so. */
static void test_cap_evaluates_expressions(void **state)
{
	static const char written[] =
		"[task]\nname = t\ncategory = Cat\ndifficulty = 1\nsummary = s\n"
		"[args]\nx = in f32 [m, n]\ny = out f32 [m]\nm = i64\nn = i64\n"
		"[inputs]\nx = randn\n"
		"[derive]\nsizes = m, n\n"
		"[case.small]\nm = 3\nn = 8\n"
		"[case.product]\nm = 2\nn = 512 * 512\n"
		"[case.pow]\nm = pow2(18) + 3\nn = 4\n"
		"[case.follows]\nm = 5\nn = m * 4\n";
	static const char small[] =
		"[task]\nname = t\ncategory = Cat\ndifficulty = 1\nsummary = s\n"
		"[args]\nx = in f32 [n]\ny = out f32 [n]\nn = i64\n"
		"[inputs]\nx = randn\n"
		"[case.a]\nn = 10\n";
	static const char limited[] =
		"[task]\nname = t\ncategory = Cat\ndifficulty = 1\nsummary = s\n"
		"[args]\nx = in f32 [n]\ny = out f32 [n]\nn = i64\n"
		"[inputs]\nx = randn\n"
		"[derive]\nlimit = 300\n"
		"[case.a]\nn = 10\n";
	struct task *t = parse(written);
	struct task_case *c;
	int n;

	(void)state;
	assert_int_equal(derive_auto(t, &c, &n), KBX_OK);
	/* n: 4 x 262144 = 1048576, so 65537 but not 1048577 */
	assert_true(has(c, n, "auto:n=65537"));
	assert_false(has(c, n, "auto:n=1048577"));
	/* m: 4 x 262147, past 1048577 (the base keeps n = 8: 8 MiB of inputs) */
	assert_true(has(c, n, "auto:m=1048577"));
	derive_cases_free(c, n);
	task_free(t);

	t = parse(small);
	assert_int_equal(derive_auto(t, &c, &n), KBX_OK);
	assert_true(has(c, n, "auto:n=1025"));
	assert_true(has(c, n, "auto:n=4097"));
	assert_false(has(c, n, "auto:n=10007"));
	derive_cases_free(c, n);
	task_free(t);

	t = parse(limited);
	assert_int_equal(derive_auto(t, &c, &n), KBX_OK);
	assert_true(has(c, n, "auto:n=257"));
	assert_false(has(c, n, "auto:n=1000"));
	derive_cases_free(c, n);
	task_free(t);
}

static void test_opt_in_and_out(void **state)
{
	static const char two_d[] =
		"[task]\nname = t\ncategory = Cat\ndifficulty = 1\nsummary = s\n"
		"[args]\nx = in f32 [m, n]\ny = out f32 [m]\nm = i64\nn = i64\n"
		"[inputs]\nx = uniform(0, 1)\n"
		"[case.a]\nm = 3\nn = 40\n";
	static const char opted[] =
		"[task]\nname = t\ncategory = Cat\ndifficulty = 1\nsummary = s\n"
		"[args]\nx = in f32 [m, n]\ny = out f32 [m]\nm = i64\nn = i64\n"
		"[inputs]\nx = randn\n"
		"[derive]\nsizes = n\nvalues = off: the kernel's contract is about magnitudes\n"
		"[case.a]\nm = 3\nn = 40\n";
	struct task *t = parse(two_d);
	struct task_case *c, one;
	int n;

	(void)state;
	/* two sizes and no unbounded input: nothing to derive, and fuzz says why */
	assert_int_equal(derive_auto(t, &c, &n), KBX_OK);
	assert_int_equal(n, 0);
	assert_int_equal(derive_fuzz(t, 1, 0, &one), KBX_EINVAL);
	assert_non_null(strstr(kbx_last_error(), "nothing kbx can vary"));
	task_free(t);

	t = parse(opted);
	assert_int_equal(derive_auto(t, &c, &n), KBX_OK);
	assert_true(n > 3);
	assert_true(has(c, n, "auto:n=33"));
	assert_false(has(c, n, "auto:scale=3"));
	assert_false(has(c, n, "auto:m=1"));
	derive_cases_free(c, n);
	task_free(t);
}

static void test_distribution_tasks_get_none(void **state)
{
	static const char ini[] =
		"[task]\nname = t\ncategory = Cat\ndifficulty = 1\nsummary = s\nverifier = distribution\n"
		"[args]\ny = out f32 [n]\nn = i64\nseed = i64\n"
		"[verifier]\noutput = y\nlaw = uniform01\nseed_arg = seed\n"
		"[case.a]\nn = 1000\nseed = 1\n";
	struct task *t = parse(ini);
	struct task_case *c;
	int n;

	(void)state;
	assert_int_equal(derive_auto(t, &c, &n), KBX_OK);
	assert_int_equal(n, 0);
	task_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_d_task),
		cmocka_unit_test(test_scaled_case_draws_scaled_values),
		cmocka_unit_test(test_bad_recipes),
		cmocka_unit_test(test_generator_scale_rules),
		cmocka_unit_test(test_fuzz_and_shrink),
		cmocka_unit_test(test_cap_evaluates_expressions),
		cmocka_unit_test(test_opt_in_and_out),
		cmocka_unit_test(test_distribution_tasks_get_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
