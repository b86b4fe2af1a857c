#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/problem.h"
#include "core/util.h"

static char root[256];

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* tasks/<cat>/<name>/{task.ini,reference.cu} under the temporary root */
static void write_task(const char *cat, const char *name, const char *ini)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, cat);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", root, cat, name);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s/reference.cu", root, cat, name);
	write_text(path, "// reference\n");
	snprintf(path, sizeof(path), "%s/%s/%s/task.ini", root, cat, name);
	write_text(path, ini);
}

static struct task *load_ok(const char *name, const char *ini)
{
	struct task *t;

	write_task("Math", name, ini);
	if (task_load(root, "Math", name, &t) != KBX_OK)
		fail_msg("task_load '%s': %s", name, kbx_last_error());
	return t;
}

static const char *load_fail(const char *name, const char *ini)
{
	struct task *t;

	write_task("Math", name, ini);
	if (task_load(root, "Math", name, &t) == KBX_OK) {
		task_free(t);
		fail_msg("task '%s' loaded but should not", name);
	}
	return kbx_last_error();
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/kbx_test_problem_XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *const matmul_ini =
	"[task]\n"
	"name = mm\n"
	"category = Math\n"
	"difficulty = 3\n"
	"summary = a small matrix product.\n"
	"\n"
	"[args]\n"
	"a = in f32 [m, k]\n"
	"b = in f16 [k, cdiv(n, 2) * 2]\n"
	"idx = in i64 [m]\n"
	"c = out f32 [m, n]\n"
	"alpha = f32\n"
	"mode = i32\n"
	"\n"
	"[inputs]\n"
	"a = randn\n"
	"b = uniform(-1, 1)\n"
	"idx = randint(0, k)\n"
	"\n"
	"[case.small]\n"
	"m = 3\n"
	"k = m * 2\n"
	"n = k + 1\n"
	"alpha = 1\n"
	"mode = 4 / 2\n"
	"a = values(1, 2, 3)\n"
	"\n"
	"[case.empty]\n"
	"m = 0\n"
	"k = 5\n"
	"n = 3\n"
	"alpha = 0.5\n"
	"mode = 0\n"
	"\n"
	"[perf]\n"
	"m = pow2(2..4)\n"
	"k = 3, 5,\n"
	"  7\n"
	"n = range(10..30:10)\n"
	"alpha = 1.5\n"
	"mode = 1\n"
	"a = uniform(0, 1)\n"
	"bytes = 4 * (m * k + k * n + m * n)\n"
	"flops = 2.0 * m * n * k\n"
	"input_size = [[m, k], [k, n], alpha, true, null, \"<class 'int'>\", []]\n";

static void test_case_expansion(void **state)
{
	struct task *t = load_ok("mm", matmul_ini);
	struct problem p;
	const struct expr_value *v;

	assert_int_equal(t->ncases, 2);
	assert_int_equal(problem_from_case(t, 0, &p), KBX_OK);
	assert_string_equal(p.name, "small");
	/* bindings in order, each using the earlier ones */
	assert_int_equal(expr_env_get(&p.env, "k")->i, 6);
	assert_int_equal(expr_env_get(&p.env, "n")->i, 7);
	/* an f32 scalar is a float even when written as an integer; i32 stays an integer */
	v = expr_env_get(&p.env, "alpha");
	assert_true(v->is_float && v->f == 1.0);
	v = expr_env_get(&p.env, "mode");
	assert_true(!v->is_float && v->i == 2);
	/* buffers in arg order */
	assert_int_equal(p.nbufs, 4);
	assert_string_equal(p.bufs[0].arg->name, "a");
	assert_int_equal(p.bufs[0].ndim, 2);
	assert_int_equal(p.bufs[0].shape[0], 3);
	assert_int_equal(p.bufs[0].shape[1], 6);
	assert_int_equal(p.bufs[0].numel, 18);
	assert_int_equal(p.bufs[0].bytes, 72);
	assert_string_equal(p.bufs[0].gen, "values(1, 2, 3)");     /* the case's own */
	assert_int_equal(p.bufs[1].shape[1], 8);                     /* cdiv(7, 2) * 2 */
	assert_int_equal(p.bufs[1].bytes, 6 * 8 * 2);
	assert_string_equal(p.bufs[1].gen, "uniform(-1, 1)");      /* from [inputs] */
	assert_string_equal(p.bufs[2].gen, "randint(0, 6)");       /* evaluated against the case */
	assert_null(p.bufs[3].gen);                                  /* outputs have none */
	assert_int_equal(p.bufs[3].numel, 21);
	assert_true(p.bytes < 0 && p.flops < 0);
	assert_null(p.input_size);
	problem_free(&p);

	assert_int_equal(problem_from_case(t, 1, &p), KBX_OK);
	assert_int_equal(p.bufs[0].numel, 0);
	assert_int_equal(p.bufs[0].bytes, 0);
	assert_string_equal(p.bufs[2].gen, "randint(0, 5)");
	problem_free(&p);

	assert_int_not_equal(problem_from_case(t, 2, &p), KBX_OK);
	assert_int_not_equal(problem_from_case(t, -1, &p), KBX_OK);
	task_free(t);
}

static void test_perf_expansion(void **state)
{
	struct task *t = load_ok("mm", matmul_ini);
	struct problem p;
	static const long long ms[] = { 4, 8, 16 }, ks[] = { 3, 5, 7 }, ns[] = { 10, 20, 30 };
	int r;

	/* three lists of three, zipped (not multiplied) */
	assert_int_equal(t->perf.nrows, 3);
	for (r = 0; r < 3; r++) {
		char want[200];
		double m = (double)ms[r], k = (double)ks[r], n = (double)ns[r];

		assert_int_equal(problem_from_perf(t, r, &p), KBX_OK);
		snprintf(want, sizeof(want), "perf[%d]", r);
		assert_string_equal(p.name, want);
		assert_int_equal(expr_env_get(&p.env, "m")->i, ms[r]);
		assert_int_equal(expr_env_get(&p.env, "k")->i, ks[r]);
		assert_int_equal(expr_env_get(&p.env, "n")->i, ns[r]);
		assert_true(expr_env_get(&p.env, "alpha")->f == 1.5);
		assert_true(p.bytes == 4 * (m * k + k * n + m * n));
		assert_true(p.flops == 2 * m * n * k);
		assert_string_equal(p.bufs[0].gen, "uniform(0, 1)");
		assert_string_equal(p.bufs[1].gen, "uniform(-1, 1)");
		snprintf(want, sizeof(want), "[[%lld,%lld],[%lld,%lld],1.5,true,null,\"<class 'int'>\",[]]", ms[r], ks[r],
			 ks[r], ns[r]);
		assert_string_equal(p.input_size, want);
		problem_free(&p);
	}
	assert_int_not_equal(problem_from_perf(t, 3, &p), KBX_OK);
	task_free(t);
}

static void test_perf_mismatched_lists(void **state)
{
	char *ini = xstrdup(matmul_ini);
	char *k = strstr(ini, "k = 3, 5,\n  7\n");
	const char *msg;

	/* four values for k, three for m and n */
	memcpy(k, "k = 3, 5, 9, 1", 14);
	msg = load_fail("mm", ini);
	assert_non_null(strstr(msg, "mm/task.ini' line 37 "));
	assert_non_null(strstr(msg, "(line 36)"));
	assert_non_null(strstr(msg, "'k'"));
	assert_non_null(strstr(msg, "'m'"));
	assert_non_null(strstr(msg, "same length"));
	free(ini);
}

static void test_perf_generator_is_not_a_list(void **state)
{
	struct task *t = load_ok("g",
				 "[task]\nname = g\ncategory = Math\ndifficulty = 1\nsummary = s\n"
				 "[args]\nx = in f32 [n]\ny = out f32 [n]\n"
				 "[inputs]\nx = randn\n"
				 "[case.one]\nn = 1\n"
				 "[perf]\nn = 8, 16\nx = values(1, 2, 3)\n");
	struct problem p;

	assert_int_equal(t->perf.nrows, 2);
	assert_int_equal(problem_from_perf(t, 1, &p), KBX_OK);
	assert_string_equal(p.bufs[0].gen, "values(1, 2, 3)");
	assert_int_equal(p.bufs[0].numel, 16);
	assert_null(p.input_size);
	assert_true(p.bytes < 0);
	problem_free(&p);
	task_free(t);
}

static void test_no_perf(void **state)
{
	struct task *t = load_ok("np",
				 "[task]\nname = np\ncategory = Math\ndifficulty = 1\nsummary = s\n"
				 "[args]\ny = out f32 [4]\n[case.one]\n");
	struct problem p;

	assert_int_equal(t->perf.nrows, 0);
	assert_int_not_equal(problem_from_perf(t, 0, &p), KBX_OK);
	assert_int_equal(problem_from_case(t, 0, &p), KBX_OK);
	assert_int_equal(p.bufs[0].numel, 4);
	problem_free(&p);
	task_free(t);
}

static void test_problem_errors(void **state)
{
	const char *msg;

	/* a scalar that needs an integer */
	msg = load_fail("e1", "[task]\nname = e1\ncategory = Math\ndifficulty = 1\nsummary = s\n"
			      "[args]\ny = out f32 [n]\nn = i64\n[case.c]\nn = 2.5\n");
	assert_non_null(strstr(msg, "line 10"));
	assert_non_null(strstr(msg, "needs an integer"));
	/* i32 overflow */
	msg = load_fail("e2", "[task]\nname = e2\ncategory = Math\ndifficulty = 1\nsummary = s\n"
			      "[args]\ny = out f32 [2]\nn = i32\n[case.c]\nn = 3000000000\n");
	assert_non_null(strstr(msg, "does not fit i32"));
	/* negative dimension */
	msg = load_fail("e3", "[task]\nname = e3\ncategory = Math\ndifficulty = 1\nsummary = s\n"
			      "[args]\ny = out f32 [n - 5]\n[case.c]\nn = 2\n");
	assert_non_null(strstr(msg, "-3"));
	assert_non_null(strstr(msg, "case 'c'"));
	/* a perf formula that does not evaluate */
	msg = load_fail("e4", "[task]\nname = e4\ncategory = Math\ndifficulty = 1\nsummary = s\n"
			      "[args]\ny = out f32 [n]\n[case.c]\nn = 2\n[perf]\nn = 4\nbytes = 4 * q\n");
	assert_non_null(strstr(msg, "'bytes'"));
	assert_non_null(strstr(msg, "line 12"));
	assert_non_null(strstr(msg, "'q'"));
	/* a bad input_size template */
	msg = load_fail("e5", "[task]\nname = e5\ncategory = Math\ndifficulty = 1\nsummary = s\n"
			      "[args]\ny = out f32 [n]\n[case.c]\nn = 2\n[perf]\nn = 4\ninput_size = [n, [n]\n");
	assert_non_null(strstr(msg, "'input_size'"));
	assert_non_null(strstr(msg, "line 12"));
	/* a generator that does not fit the buffer */
	msg = load_fail("e6", "[task]\nname = e6\ncategory = Math\ndifficulty = 1\nsummary = s\n"
			      "[args]\nx = in i32 [n]\ny = out f32 [n]\n[case.c]\nn = 2\nx = special\n");
	assert_non_null(strstr(msg, "'x'"));
	assert_non_null(strstr(msg, "line 11"));
	assert_non_null(strstr(msg, "float dtype"));
}

/* ---- lists ------------------------------------------------------------------------------- */

static void check_list(const char *value, const char *want)
{
	char **items;
	int n, i;
	struct sbuf sb = SBUF_INIT;

	if (perf_list_expand(value, &items, &n) != KBX_OK)
		fail_msg("'%s': %s", value, kbx_last_error());
	for (i = 0; i < n; i++)
		sbuf_addf(&sb, "%s%s", i ? "|" : "", items[i]);
	if (strcmp(sb.buf ? sb.buf : "", want) != 0)
		fail_msg("'%s' expanded to '%s', wanted '%s'", value, sb.buf, want);
	sbuf_release(&sb);
	perf_list_free(items, n);
}

static void check_list_fails(const char *value, const char *want)
{
	char **items = (char **)1;
	int n = 7;

	if (perf_list_expand(value, &items, &n) == KBX_OK)
		fail_msg("'%s' expanded", value);
	assert_null(items);
	assert_int_equal(n, 0);
	if (!strstr(kbx_last_error(), want))
		fail_msg("'%s': message '%s' lacks '%s'", value, kbx_last_error(), want);
}

static void test_list_expand(void **state)
{
	check_list("pow2(12..14)", "4096|8192|16384");
	check_list("pow2( 0 .. 0 )", "1");
	check_list("range(1..10:3)", "1|4|7|10");
	check_list("range(1..11:3)", "1|4|7|10");
	check_list("range(5..7)", "5|6|7");
	check_list("range(-2..2:2)", "-2|0|2");
	check_list("1, 2, max(3, 4)", "1|2|max(3, 4)");
	check_list("pow2(3)", "pow2(3)");
	check_list("pow2(1)+pow2(2)", "pow2(1)+pow2(2)");
	check_list("pow2(1..2), 100, range(7..8)", "2|4|100|7|8");
	check_list("  n * 2  ", "n * 2");
	check_list("uniform(0, 1)", "uniform(0, 1)");
	check_list("[1, 2]", "[1, 2]");
	check_list_fails("pow2(5..3)", "pow2(a..b)");
	check_list_fails("pow2(1..70)", "pow2(a..b)");
	check_list_fails("pow2(1..3:1)", "no step");
	check_list_fails("range(1..5:0)", "step > 0");
	check_list_fails("range(5..1)", "a <= b");
	check_list_fails("range(1)", "range(a..b)");
	check_list_fails("range(1..x)", "'x'");
	check_list_fails("1,,2", "empty item");
	check_list_fails("", "empty item");
	check_list_fails("1, 2,", "empty item");
	check_list_fails("range(0..1000000000)", "too long");
	/* no overflow at the ends of the integer range */
	check_list("range(-9223372036854775807..9223372036854775807:4611686018427387904)",
		   "-9223372036854775807|-4611686018427387903|1|4611686018427387905");
}

/* ---- input_size ------------------------------------------------------------------------------- */

static void check_input_size(const char *tmpl, const char *want_json)
{
	struct expr_env env = { 0 };
	struct expr_value half = { .is_float = 1, .f = 0.5 };
	json_error_t jerr;
	json_t *j = json_loads(want_json, JSON_DECODE_ANY, &jerr);
	char *want, *got;

	assert_non_null(j);
	/* golden.c keeps input_size as jansson's compact dump: so must we, number for number */
	want = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(j);
	expr_env_set_int(&env, "n", 4096);
	expr_env_set_int(&env, "m", 3);
	expr_env_set(&env, "p", half);
	if (problem_input_size(tmpl, &env, &got) != KBX_OK)
		fail_msg("'%s': %s", tmpl, kbx_last_error());
	if (strcmp(got, want) != 0)
		fail_msg("'%s' gave '%s', wanted '%s'", tmpl, got, want);
	free(got);
	free(want);
	expr_env_free(&env);
}

static void test_input_size(void **state)
{
	struct expr_env env = { 0 };
	char *out;

	check_input_size("[n]", "[4096]");
	check_input_size("[[n], [n]]", "[[4096],[4096]]");
	check_input_size(" [ [ 1 , m , n / 64 , 8 ] , 0 , [ m ] , p , 65536 ] ", "[[1,3,64,8],0,[3],0.5,65536]");
	check_input_size("[[1, 64, 8, 8], [64], false, 0.1, 1e-05, false]", "[[1,64,8,8],[64],false,0.1,1e-05,false]");
	check_input_size("[[[n], [n]], 2.0]", "[[[4096],[4096]],2.0]");
	check_input_size("[[4096], [4096], [], [4096]]", "[[4096],[4096],[],[4096]]");
	check_input_size("[\"<class 'int'>\"]", "[\"<class 'int'>\"]");
	check_input_size("[null, true, max(m, 7)]", "[null,true,7]");
	check_input_size("n", "4096");
	check_input_size("[]", "[]");
	assert_int_equal(problem_input_size("[n", &env, &out), KBX_EPARSE);
	assert_null(out);
	assert_non_null(strstr(kbx_last_error(), "'[n'"));
	assert_int_not_equal(problem_input_size("[n,]", &env, &out), KBX_OK);
	assert_int_not_equal(problem_input_size("[q]", &env, &out), KBX_OK);
	assert_non_null(strstr(kbx_last_error(), "'q'"));
	assert_int_not_equal(problem_input_size("[1] x", &env, &out), KBX_OK);
	assert_int_not_equal(problem_input_size("[\"abc]", &env, &out), KBX_OK);
	assert_int_not_equal(problem_input_size("", &env, &out), KBX_OK);
	assert_int_not_equal(problem_input_size("[1.0 / 0]", &env, &out), KBX_OK);
	expr_env_free(&env);
}

/* ---- garbage ------------------------------------------------------------------------------------ */

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static uint32_t next_rand(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

static void random_text(char *buf, size_t cap, const char *alphabet)
{
	size_t len = next_rand() % cap, k, na = strlen(alphabet);

	for (k = 0; k < len; k++)
		buf[k] = alphabet[next_rand() % na];
	buf[len] = '\0';
}

static void test_garbage(void **state)
{
	static const char *const seeds[] = { "pow2(12..27)", "range(1..10:3), 5", "1, max(2, 3), pow2(1..2)",
					     "[[n, m], [n], 0.5, \"s\", true]", "[[[1]], [], null]" };
	struct expr_env env = { 0 };
	int iter;

	expr_env_set_int(&env, "n", 5);
	expr_env_set_int(&env, "m", 7);
	for (iter = 0; iter < 20000; iter++) {
		char text[80];
		char **items, *json;
		int n;

		if (iter % 2) {
			random_text(text, sizeof(text), "pow2range(..)..:,,[]\"0123456789nm -+*/ \ttruefalsenull");
		} else {
			size_t len, k;

			snprintf(text, sizeof(text), "%s", seeds[next_rand() % 5]);
			len = strlen(text);
			for (k = 1 + next_rand() % 3; k > 0; k--)
				text[next_rand() % len] = "().,:[]\"0-9 n\x01\xff"[next_rand() % 16];
		}
		if (perf_list_expand(text, &items, &n) == KBX_OK) {
			assert_true(n >= 1 && n <= 256);
			perf_list_free(items, n);
		} else {
			assert_true(kbx_last_error()[0] != '\0');
		}
		if (problem_input_size(text, &env, &json) == KBX_OK) {
			json_error_t jerr;
			json_t *j = json_loads(json, JSON_DECODE_ANY, &jerr);

			/* what comes out is JSON */
			if (!j)
				fail_msg("'%s' gave '%s', not JSON", text, json);
			json_decref(j);
			free(json);
		} else {
			assert_null(json);
		}
	}
	expr_env_free(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_case_expansion),
		cmocka_unit_test(test_perf_expansion),
		cmocka_unit_test(test_perf_mismatched_lists),
		cmocka_unit_test(test_perf_generator_is_not_a_list),
		cmocka_unit_test(test_no_perf),
		cmocka_unit_test(test_problem_errors),
		cmocka_unit_test(test_list_expand),
		cmocka_unit_test(test_input_size),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
