#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/util.h"

static struct expr_env env;

static int setup_env(void **state)
{
	struct expr_value alpha = { .is_float = 1, .f = 0.5 };

	memset(&env, 0, sizeof(env));
	expr_env_set_int(&env, "n", 1024);
	expr_env_set_int(&env, "m", 3);
	expr_env_set_int(&env, "sms", 132);
	expr_env_set_int(&env, "zero", 0);
	expr_env_set(&env, "alpha", alpha);
	return 0;
}

static int teardown_env(void **state)
{
	expr_env_free(&env);
	return 0;
}

static void check_int(const char *src, long long want)
{
	struct expr_value v;
	int col = -1;
	enum kbx_status st = expr_eval(src, &env, &v, &col);

	if (st != KBX_OK)
		fail_msg("'%s': %s", src, kbx_last_error());
	if (v.is_float)
		fail_msg("'%s': float result %g, wanted integer %lld", src, v.f, want);
	if (v.i != want)
		fail_msg("'%s' = %lld, wanted %lld", src, v.i, want);
}

static void check_float(const char *src, double want)
{
	struct expr_value v;
	enum kbx_status st = expr_eval(src, &env, &v, NULL);

	if (st != KBX_OK)
		fail_msg("'%s': %s", src, kbx_last_error());
	if (!v.is_float)
		fail_msg("'%s': integer result %lld, wanted float %g", src, v.i, want);
	if (!(v.f == want || fabs(v.f - want) <= 1e-15 * fabs(want)))
		fail_msg("'%s' = %.17g, wanted %.17g", src, v.f, want);
}

/* An error with this status, at this 0-based column, whose message contains `part`. */
static void check_error(const char *src, enum kbx_status want, int want_col, const char *part)
{
	struct expr_value v;
	int col = -7;
	enum kbx_status st = expr_eval(src, &env, &v, &col);

	if (st == KBX_OK)
		fail_msg("'%s' should fail (%s) but gave %s", src, part, v.is_float ? "a float" : "an integer");
	if (st != want)
		fail_msg("'%s': status %s, wanted %s (%s)", src, kbx_status_str(st), kbx_status_str(want),
			 kbx_last_error());
	if (col != want_col)
		fail_msg("'%s': column %d, wanted %d (%s)", src, col, want_col, kbx_last_error());
	if (!strstr(kbx_last_error(), part))
		fail_msg("'%s': message '%s' lacks '%s'", src, kbx_last_error(), part);
}

static void test_precedence(void **state)
{
	check_int("2 + 3 * 4", 14);
	check_int("(2 + 3) * 4", 20);
	check_int("2 * 3 + 4", 10);
	check_int("10 - 4 - 3", 3);
	check_int("100 / 10 / 5", 2);
	check_int("7 % 4 * 2", 6);
	check_int("2 * 7 % 4", 2);
	check_int("1 + 2 * 3 - 4 / 2", 5);
	check_int("-2 * 3", -6);
	check_int("2 * -3", -6);
	check_int("- -3", 3);
	check_int("--3", 3);
	check_int("-(2 + 3)", -5);
	check_int("+4", 4);
	check_int("((((7))))", 7);
	check_int("  42  ", 42);
	check_int("\t1+\t2\n", 3);
	check_int("0", 0);
	check_int("007", 7);
}

static void test_int_vs_float(void **state)
{
	check_int("8 / 3", 2);
	check_int("-7 / 2", -3); /* C truncation */
	check_int("-7 % 2", -1);
	check_int("7 % -2", 1);
	check_float("7.0 / 2", 3.5);
	check_float("7 / 2.0", 3.5);
	check_float("1.5 * 2", 3.0);
	check_float("3 * 1.0", 3.0);
	check_float(".5 + 1", 1.5);
	check_float("1.", 1.0);
	check_float("1e-5", 1e-5);
	check_float("1e3", 1000.0);
	check_float("1E+2", 100.0);
	check_float("2.5e-3 * 4", 0.01);
	check_float("7.5 % 2", 1.5);
	check_float("-0.25", -0.25);
	check_float("1 / 4 + 0.0", 0.0); /* the integer division happens first */
	check_float("alpha * 4", 2.0);
	check_float("n * alpha", 512.0);
	check_float("0.1", 0.1);
}

static void test_names_and_functions(void **state)
{
	check_int("n", 1024);
	check_int("cdiv(n, 256) * m", 12);
	check_int("max(1, cdiv(n, 1024))", 1);
	check_int("cdiv(10, 3)", 4);
	check_int("cdiv(9, 3)", 3);
	check_int("cdiv(0, 5)", 0);
	check_int("cdiv(1, 5)", 1);
	check_int("cdiv(-7, 2)", -3);
	check_int("cdiv(7, -2)", -3);
	check_int("cdiv(-7, -2)", 4);
	check_float("cdiv(7.0, 2)", 4.0);
	check_int("min(3, -2)", -2);
	check_int("max(3, -2)", 3);
	check_int("min(max(1, 2), 3)", 2);
	check_float("max(3, 2.5)", 3.0);
	check_float("min(3, 2.5)", 2.5);
	check_int("pow2(10)", 1024);
	check_int("pow2(0)", 1);
	check_int("pow2(62)", 4611686018427387904LL);
	check_float("pow2(0.5)", sqrt(2.0));
	check_float("sqrt(16)", 4.0);
	check_float("1e-5 * sqrt(8192)", 1e-5 * sqrt(8192.0));
	check_float("sqrt(0)", 0.0);
	check_float("log2(1024)", 10.0);
	check_float("log2(3.0)", log2(3.0));
	check_int("  cdiv ( n ,256 )  ", 4);
	check_int("sms * 2", 264);
	check_int("pow2(m) * cdiv(n, pow2(8))", 32);
	check_int("n - 1024 * zero", 1024);
}

static void test_env(void **state)
{
	struct expr_env e = { 0 };
	struct expr_value fv = { .is_float = 1, .f = 2.5 };
	const struct expr_value *v;
	long long r;
	int i;

	assert_null(expr_env_get(&e, "x"));
	assert_null(expr_env_get(NULL, "x"));
	expr_env_set_int(&e, "x", 1);
	expr_env_set_int(&e, "y", 2);
	expr_env_set_int(&e, "x", 3); /* shadows */
	v = expr_env_get(&e, "x");
	assert_non_null(v);
	assert_false(v->is_float);
	assert_int_equal(v->i, 3);
	assert_int_equal(expr_eval_int("x * 10 + y", &e, &r, NULL), KBX_OK);
	assert_int_equal(r, 32);
	expr_env_set(&e, "y", fv);
	assert_true(expr_env_get(&e, "y")->is_float);
	/* growth keeps everything */
	for (i = 0; i < 100; i++) {
		char name[16];

		snprintf(name, sizeof(name), "v%d", i);
		expr_env_set_int(&e, name, i);
	}
	assert_int_equal(expr_env_get(&e, "v77")->i, 77);
	assert_int_equal(expr_env_get(&e, "x")->i, 3);
	/* names are copied */
	{
		char *tmp = xstrdup("zz");

		expr_env_set_int(&e, tmp, 9);
		free(tmp);
		assert_int_equal(expr_env_get(&e, "zz")->i, 9);
	}
	expr_env_free(&e);
	assert_int_equal(e.n, 0);
	assert_null(e.names);
	expr_env_free(&e);
	/* no env at all: numbers work, names do not */
	assert_int_equal(expr_eval_int("2 * 3", NULL, &r, NULL), KBX_OK);
	assert_int_equal(r, 6);
	assert_int_equal(expr_eval_int("n", NULL, &r, NULL), KBX_EPARSE);
}

static void test_syntax_errors(void **state)
{
	check_error("", KBX_EPARSE, 0, "empty expression");
	check_error("   ", KBX_EPARSE, 3, "empty expression");
	check_error("n * ", KBX_EPARSE, 4, "expected a number, a name or '(' but found the end");
	check_error("n * ", KBX_EPARSE, 4, "in expression 'n * '");
	check_error("2 +* 3", KBX_EPARSE, 3, "found '*'");
	check_error("(1 + 2", KBX_EPARSE, 6, "expected ')'");
	check_error("1 + 2)", KBX_EPARSE, 5, "expected an operator or the end but found ')'");
	check_error("1 2", KBX_EPARSE, 2, "found '2'");
	check_error("n m", KBX_EPARSE, 2, "found 'm'");
	check_error("3 $ 4", KBX_EPARSE, 2, "found '$'");
	check_error("3 \x01", KBX_EPARSE, 2, "byte 0x01");
	check_error("()", KBX_EPARSE, 1, "found ')'");
	check_error("max(1, 2", KBX_EPARSE, 8, "expected ',' or ')'");
	check_error("min(,1)", KBX_EPARSE, 4, "found ','");
	check_error("min(1 2)", KBX_EPARSE, 6, "expected ',' or ')' but found '2'");
	check_error("2n", KBX_EPARSE, 0, "malformed number '2n'");
	check_error("1 + 1.2.3", KBX_EPARSE, 4, "malformed number '1.2.3'");
	check_error("1e", KBX_EPARSE, 0, "malformed number '1e'");
	check_error("1e+", KBX_EPARSE, 0, "malformed number");
	check_error("0x10", KBX_EPARSE, 0, "malformed number '0x10'");
	check_error("n < 3", KBX_EPARSE, 2, "found '<'");
	check_error("n == 3", KBX_EPARSE, 2, "found '='");
	check_error("[n]", KBX_EPARSE, 0, "found '['");
}

static void test_name_errors(void **state)
{
	check_error("foo + 1", KBX_EPARSE, 0, "unknown name 'foo'");
	check_error("n + bar", KBX_EPARSE, 4, "unknown name 'bar'");
	check_error("N", KBX_EPARSE, 0, "unknown name 'N'"); /* case-sensitive */
	check_error("sqr(4)", KBX_EPARSE, 0, "unknown function 'sqr'");
	check_error("1 + foo(n)", KBX_EPARSE, 4, "unknown function 'foo' (expected cdiv, min, max, pow2, sqrt or log2)");
	check_error("cdiv(1)", KBX_EPARSE, 0, "'cdiv' takes 2 arguments, not 1");
	check_error("cdiv(1, 2, 3)", KBX_EPARSE, 0, "not 3");
	check_error("pow2()", KBX_EPARSE, 0, "'pow2' takes 1 argument, not 0");
	check_error("2 * max(1, 2, 3, 4, 5, 6)", KBX_EPARSE, 4, "not 6");
	check_error("n(2)", KBX_EPARSE, 0, "unknown function 'n'");
}

static void test_value_errors(void **state)
{
	check_error("1 / 0", KBX_EINVAL, 2, "division by zero");
	check_error("1 % 0", KBX_EINVAL, 2, "division by zero");
	check_error("1.0 / 0", KBX_EINVAL, 4, "division by zero");
	check_error("1.5 % 0.0", KBX_EINVAL, 4, "division by zero");
	check_error("n / (m - 3)", KBX_EINVAL, 2, "division by zero in expression 'n / (m - 3)'");
	check_error("n / zero", KBX_EINVAL, 2, "division by zero");
	check_error("3 + cdiv(5, 0)", KBX_EINVAL, 4, "division by zero");
	check_error("pow2(-1)", KBX_EINVAL, 0, "pow2 of a negative number");
	check_error("sqrt(-1)", KBX_EINVAL, 0, "sqrt of a negative number");
	check_error("log2(0)", KBX_EINVAL, 0, "log2 of a number <= 0");
	check_error("sqrt(1, 2)", KBX_EPARSE, 0, "'sqrt' takes 1 argument, not 2");
}

static void test_overflow(void **state)
{
	check_int("9223372036854775807", LLONG_MAX);
	check_int("-9223372036854775807 - 1", LLONG_MIN);
	check_int("(-9223372036854775807 - 1) % -1", 0);
	check_int("pow2(31) * pow2(31)", 4611686018427387904LL);
	check_error("9223372036854775807 + 1", KBX_EINVAL, 20, "integer overflow");
	check_error("9223372036854775808", KBX_EINVAL, 0, "integer literal too large");
	check_error("1 + 99999999999999999999999", KBX_EINVAL, 4, "too large");
	check_error("-9223372036854775807 - 2", KBX_EINVAL, 21, "integer overflow");
	check_error("(-9223372036854775807 - 1) / -1", KBX_EINVAL, 27, "integer overflow");
	check_error("-(-9223372036854775807 - 1)", KBX_EINVAL, 0, "integer overflow");
	check_error("4611686018427387904 * 2", KBX_EINVAL, 20, "integer overflow");
	check_error("pow2(40) * pow2(30)", KBX_EINVAL, 9, "integer overflow");
	check_error("pow2(63)", KBX_EINVAL, 0, "integer overflow");
	check_error("cdiv(-9223372036854775807 - 1, -1)", KBX_EINVAL, 0, "integer overflow");
	check_error("1e308 * 10", KBX_EINVAL, 6, "floating-point overflow");
	check_error("1e999", KBX_EINVAL, 0, "out of range");
	check_error("pow2(2000.0)", KBX_EINVAL, 0, "overflow");
}

static void test_eval_int_float(void **state)
{
	long long i = -1;
	double d = -1;
	int col = -1;

	assert_int_equal(expr_eval_int("10 / 4", &env, &i, &col), KBX_OK);
	assert_int_equal(i, 2);
	assert_int_equal(expr_eval_int("1e6", &env, &i, NULL), KBX_OK); /* integral float accepted */
	assert_int_equal(i, 1000000);
	assert_int_equal(expr_eval_int("n * 0.5", &env, &i, NULL), KBX_OK);
	assert_int_equal(i, 512);
	assert_int_equal(expr_eval_int("-3.0", &env, &i, NULL), KBX_OK);
	assert_int_equal(i, -3);
	i = 77;
	assert_int_equal(expr_eval_int("2.5", &env, &i, NULL), KBX_EINVAL);
	assert_non_null(strstr(kbx_last_error(), "'2.5' is not an integer"));
	assert_int_equal(i, 77);
	assert_int_equal(expr_eval_int("1e300", &env, &i, NULL), KBX_EINVAL);
	assert_int_equal(expr_eval_int("alpha", &env, &i, NULL), KBX_EINVAL);
	assert_int_equal(expr_eval_int("n +", &env, &i, &col), KBX_EPARSE);
	assert_int_equal(col, 3);

	assert_int_equal(expr_eval_float("1 / 4", &env, &d, NULL), KBX_OK);
	assert_true(d == 0.0);
	assert_int_equal(expr_eval_float("1.0 / 4", &env, &d, NULL), KBX_OK);
	assert_true(d == 0.25);
	assert_int_equal(expr_eval_float("n", &env, &d, NULL), KBX_OK);
	assert_true(d == 1024.0);
	assert_int_equal(expr_eval_float("1 / 0", &env, &d, &col), KBX_EINVAL);
	assert_int_equal(col, 2);
}

static void test_check_only(void **state)
{
	int col = -1;

	assert_int_equal(expr_check("cdiv(n, 256)", &col), KBX_OK);
	assert_int_equal(expr_check("n / 0", &col), KBX_OK); /* nothing is computed */
	assert_int_equal(expr_check("pow2(99) * unknown_name", NULL), KBX_OK);
	assert_int_equal(expr_check("foo(1)", &col), KBX_EPARSE);
	assert_int_equal(col, 0);
	assert_int_equal(expr_check("n +", &col), KBX_EPARSE);
	assert_int_equal(col, 3);
	assert_int_equal(expr_check("min(1)", &col), KBX_EPARSE);
	assert_int_equal(expr_check("99999999999999999999", &col), KBX_EINVAL);
	assert_int_equal(expr_check("", &col), KBX_EPARSE);
}

static void test_deep_nesting(void **state)
{
	struct sbuf sb = SBUF_INIT;
	int i, col;
	long long r;

	for (i = 0; i < 150; i++)
		sbuf_adds(&sb, "(");
	sbuf_adds(&sb, "1");
	for (i = 0; i < 150; i++)
		sbuf_adds(&sb, ")");
	assert_int_equal(expr_eval_int(sb.buf, &env, &r, NULL), KBX_OK);
	assert_int_equal(r, 1);
	sbuf_reset(&sb);
	for (i = 0; i < 100000; i++)
		sbuf_adds(&sb, "(");
	assert_int_equal(expr_eval_int(sb.buf, &env, &r, &col), KBX_EPARSE);
	assert_non_null(strstr(kbx_last_error(), "nested too deeply"));
	sbuf_reset(&sb);
	for (i = 0; i < 100000; i++)
		sbuf_adds(&sb, "-");
	sbuf_adds(&sb, "1");
	assert_int_equal(expr_eval_int(sb.buf, &env, &r, &col), KBX_EPARSE);
	sbuf_reset(&sb);
	for (i = 0; i < 100000; i++)
		sbuf_adds(&sb, "max(1, ");
	assert_int_equal(expr_eval_int(sb.buf, &env, &r, &col), KBX_EPARSE);
	sbuf_release(&sb);
}

static void test_locale_independent(void **state)
{
	const char *locales[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "ru_RU.UTF-8" };
	size_t i;
	int found = 0;

	for (i = 0; i < sizeof(locales) / sizeof(locales[0]) && !found; i++)
		found = setlocale(LC_ALL, locales[i]) != NULL;
	if (!found) {
		setlocale(LC_ALL, "C");
		skip();
	}
	check_float("1.5 * 2", 3.0);
	check_float("1e-5", 1e-5);
	setlocale(LC_ALL, "C");
}

/* ---- garbage ---- */

static uint64_t rng_state = 12345;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng_state >> 33) % n;
}

static void check_garbage(const char *s)
{
	struct expr_value v;
	int col = -1;
	enum kbx_status st = expr_eval(s, &env, &v, &col);

	if (st == KBX_OK)
		return;
	assert_true(st == KBX_EPARSE || st == KBX_EINVAL);
	assert_true(col >= 0 && (size_t)col <= strlen(s));
	assert_true(strlen(kbx_last_error()) > 0);
	st = expr_check(s, &col);
	assert_true(st == KBX_OK || st == KBX_EPARSE || st == KBX_EINVAL);
}

static void test_garbage(void **state)
{
	static const char alphabet[] = "0123456789 +-*/%().,eE_nmzalphcdivmaxpow2\t$[]";
	static const char *seeds[] = {
		"cdiv(n, 256) * m", "max(1, cdiv(n, 1024))", "pow2(m) * (n - 1) % 7", "1.5e-3 * alpha + -n",
		"min(n / zero, 9223372036854775807 + 1)",
	};
	char buf[128];
	int i, k, len;

	for (i = 0; i < 20000; i++) {
		len = (int)rnd(40);
		for (k = 0; k < len; k++)
			buf[k] = alphabet[rnd(sizeof(alphabet) - 1)];
		buf[len] = '\0';
		check_garbage(buf);
	}
	for (i = 0; i < 5000; i++) {
		len = (int)rnd(60);
		for (k = 0; k < len; k++)
			buf[k] = (char)(1 + rnd(255));
		buf[len] = '\0';
		check_garbage(buf);
	}
	for (i = 0; i < 20000; i++) {
		const char *s = seeds[rnd(sizeof(seeds) / sizeof(seeds[0]))];
		int n = (int)strlen(s), edits = 1 + (int)rnd(4);

		memcpy(buf, s, (size_t)n + 1);
		for (k = 0; k < edits; k++) {
			int at = (int)rnd((uint32_t)n + 1), what = (int)rnd(3);

			if (what == 0 && n > 0 && at < n) { /* delete */
				memmove(buf + at, buf + at + 1, (size_t)(n - at));
				n--;
			} else if (what == 1 && n < 100) { /* insert */
				memmove(buf + at + 1, buf + at, (size_t)(n - at) + 1);
				buf[at] = alphabet[rnd(sizeof(alphabet) - 1)];
				n++;
			} else if (at < n) { /* replace */
				buf[at] = alphabet[rnd(sizeof(alphabet) - 1)];
			}
		}
		check_garbage(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_int_vs_float),
		cmocka_unit_test(test_names_and_functions),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_name_errors),
		cmocka_unit_test(test_value_errors),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_eval_int_float),
		cmocka_unit_test(test_check_only),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_locale_independent),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, setup_env, teardown_env);
}
