#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/problem.h"
#include "core/task.h"
#include "core/util.h"

#ifndef KBX_SRCDIR
#define KBX_SRCDIR "."
#endif

static char root[256];

static void write_bytes(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void write_text(const char *path, const char *text)
{
	write_bytes(path, text, strlen(text));
}

static void make_dir(const char *fmt, ...) KBX_PRINTF(1, 2);
static void make_dir(const char *fmt, ...)
{
	char path[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	mkdir(path, 0755);
}

/* <root>/<cat>/<name>/task.ini (+ reference.cu) and returns the ini's path (static buffer) */
static const char *write_task_at(const char *r, const char *cat, const char *name, const char *ini, size_t len,
				 int with_reference)
{
	static char path[600];

	make_dir("%s", r);
	make_dir("%s/%s", r, cat);
	make_dir("%s/%s/%s", r, cat, name);
	if (with_reference) {
		snprintf(path, sizeof(path), "%s/%s/%s/reference.cu", r, cat, name);
		write_text(path, "// @kbx launch k<<<1, 1>>>(x, y, n)\n");
	}
	snprintf(path, sizeof(path), "%s/%s/%s/task.ini", r, cat, name);
	write_bytes(path, ini, len);
	return path;
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/kbx_test_task_XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* The valid task the broken ones are made from; '@' stands for the task's name. */
static const char *const base_lines[] = {
	/*  1 */ "[task]",
	/*  2 */ "name = @",
	/*  3 */ "category = Math",
	/*  4 */ "difficulty = 2",
	/*  5 */ "summary = first line of the summary,",
	/*  6 */ "  second line;",
	/*  7 */ "\tthird line.",
	/*  8 */ "mirrors = Math/x.py",
	/*  9 */ "",
	/* 10 */ "[args]",
	/* 11 */ "x = in f32 [n]",
	/* 12 */ "y = out f32 [n]",
	/* 13 */ "n = i64",
	/* 14 */ "alpha = f32   ; a scale",
	/* 15 */ "",
	/* 16 */ "[inputs]",
	/* 17 */ "x = randn",
	/* 18 */ "",
	/* 19 */ "[case.basic]",
	/* 20 */ "n = 4",
	/* 21 */ "alpha = 0.5",
	/* 22 */ "",
	/* 23 */ "[perf]",
	/* 24 */ "n = pow2(4..6)",
	/* 25 */ "alpha = 1",
	/* 26 */ "bytes = 8 * n",
};
#define NBASE ((int)(sizeof(base_lines) / sizeof(base_lines[0])))

/* The base task with line `la` replaced by `ta` and line `lb` by `tb` (0: none), plus `append`. */
static char *make_ini(const char *name, int la, const char *ta, int lb, const char *tb, const char *append)
{
	struct sbuf sb = SBUF_INIT;
	int i;

	for (i = 1; i <= NBASE; i++) {
		const char *line = i == la ? ta : i == lb ? tb : base_lines[i - 1];
		const char *at = strchr(line, '@');

		if (at) {
			sbuf_add(&sb, line, (size_t)(at - line));
			sbuf_adds(&sb, name);
			sbuf_adds(&sb, at + 1);
		} else {
			sbuf_adds(&sb, line);
		}
		sbuf_adds(&sb, "\n");
	}
	if (append)
		sbuf_adds(&sb, append);
	return sbuf_detach(&sb);
}

/* msg names "path' line N" with exactly N */
static int names_line(const char *msg, const char *path, int line)
{
	char want[700];
	const char *p;
	size_t n;

	snprintf(want, sizeof(want), "%s' line %d", path, line);
	n = strlen(want);
	for (p = strstr(msg, want); p; p = strstr(p + 1, want))
		if (p[n] < '0' || p[n] > '9')
			return 1;
	return 0;
}

/* ---- a valid task ---------------------------------------------------------------------------- */

static void test_valid_task(void **state)
{
	char *ini = make_ini("good", 0, NULL, 0, NULL, NULL);
	struct task *t;
	char path[600];

	write_task_at(root, "Math", "good", ini, strlen(ini), 1);
	make_dir("%s/Math/good/examples", root);
	snprintf(path, sizeof(path), "%s/Math/good/examples/b_wrong.cu", root);
	write_text(path, "// @kbx expect wrong\n");
	snprintf(path, sizeof(path), "%s/Math/good/examples/a_pass.cu", root);
	write_text(path, "// @kbx expect pass\n");
	snprintf(path, sizeof(path), "%s/Math/good/examples/notes.txt", root);
	write_text(path, "not a kernel\n");
	make_dir("%s/Math/good/examples/c_dir.cu", root);

	if (task_load(root, "Math", "good", &t) != KBX_OK)
		fail_msg("%s", kbx_last_error());
	assert_string_equal(t->id, "Math/good");
	assert_string_equal(t->name, "good");
	assert_string_equal(t->category, "Math");
	assert_int_equal(t->difficulty, 2);
	/* continuation lines joined with one space; ';' without a space before it is text */
	assert_string_equal(t->summary, "first line of the summary, second line; third line.");
	assert_string_equal(t->mirrors, "Math/x.py");
	assert_string_equal(t->verifier, "elementwise");
	snprintf(path, sizeof(path), "%s/Math/good", root);
	assert_string_equal(t->dir, path);
	snprintf(path, sizeof(path), "%s/Math/good/task.ini", root);
	assert_string_equal(t->ini_path, path);
	snprintf(path, sizeof(path), "%s/Math/good/reference.cu", root);
	assert_string_equal(t->reference_path, path);

	assert_int_equal(t->nargs, 4);
	assert_string_equal(t->args[0].name, "x");
	assert_int_equal(t->args[0].dir, ARG_IN);
	assert_int_equal(t->args[0].dtype, DT_F32);
	assert_int_equal(t->args[0].ndim, 1);
	assert_string_equal(t->args[0].shape[0], "n");
	assert_int_equal(t->args[0].line, 11);
	assert_int_equal(t->args[1].dir, ARG_OUT);
	assert_int_equal(t->args[2].dir, ARG_SCALAR);
	assert_int_equal(t->args[2].dtype, DT_I64);
	/* the inline comment is gone */
	assert_int_equal(t->args[3].dtype, DT_F32);
	assert_ptr_equal(task_find_arg(t, "alpha"), &t->args[3]);
	assert_null(task_find_arg(t, "beta"));

	assert_true(t->tol.rtol < 0 && t->tol.atol < 0 && !t->tol.metric);
	assert_true(t->tol.cosine_sim < 0 && t->tol.l1_relative < 0 && t->tol.rmse < 0);
	assert_int_equal(t->ninputs, 1);
	assert_string_equal(binding_get(t->inputs, t->ninputs, "x"), "randn");

	assert_int_equal(t->ncases, 1);
	assert_string_equal(t->cases[0].name, "basic");
	assert_int_equal(t->cases[0].line, 19);
	assert_int_equal(t->cases[0].nb, 2);
	assert_string_equal(t->cases[0].b[1].key, "alpha");
	assert_string_equal(t->cases[0].b[1].value, "0.5");
	assert_int_equal(t->cases[0].b[1].line, 21);

	assert_int_equal(t->perf.nrows, 3);
	assert_int_equal(t->perf.line, 23);
	assert_int_equal(t->perf.nb, 2);
	assert_string_equal(t->perf.bytes, "8 * n");
	assert_int_equal(t->perf.bytes_line, 26);
	assert_null(t->perf.flops);
	assert_null(t->perf.input_size);

	/* examples: *.cu files only, sorted */
	assert_int_equal(t->nexamples, 2);
	assert_non_null(strstr(t->examples[0], "/examples/a_pass.cu"));
	assert_non_null(strstr(t->examples[1], "/examples/b_wrong.cu"));
	task_free(t);
	free(ini);
}

static void test_tolerance_and_verifier(void **state)
{
	char *ini = make_ini("tol", 9, "verifier = distribution", 0, NULL,
			     "[tolerance]\nrtol = 5e-3\natol = 1e-2\ncosine_sim = 0.95\nl1_relative = 0.05\nrmse = 0.1\n"
			     "[verifier]\noutput = y\nlaw = uniform01\nseed_arg = n\n");
	struct task *t;

	write_task_at(root, "Math", "tol", ini, strlen(ini), 1);
	if (task_load(root, "Math", "tol", &t) != KBX_OK)
		fail_msg("%s", kbx_last_error());
	assert_true(t->tol.rtol == 5e-3 && t->tol.atol == 1e-2);
	assert_true(t->tol.metric);
	assert_true(t->tol.cosine_sim == 0.95 && t->tol.l1_relative == 0.05 && t->tol.rmse == 0.1);
	assert_string_equal(t->verifier, "distribution");
	assert_int_equal(t->nverifier_params, 3);
	assert_string_equal(binding_get(t->verifier_params, t->nverifier_params, "law"), "uniform01");
	task_free(t);
	free(ini);

	/* rtol and atol alone are not metrics */
	ini = make_ini("tol2", 0, NULL, 0, NULL, "[tolerance]\nrtol = 1e-4\n");
	write_task_at(root, "Math", "tol2", ini, strlen(ini), 1);
	assert_int_equal(task_load(root, "Math", "tol2", &t), KBX_OK);
	assert_true(t->tol.rtol == 1e-4 && t->tol.atol < 0 && !t->tol.metric);
	task_free(t);
	free(ini);
}

/* [tolerance.perf]: evaluated per perf row, a floor on the float tolerance, described for messages. */
static void test_perf_tolerance(void **state)
{
	char *ini = make_ini("ptol", 0, NULL, 0, NULL,
			     "[tolerance]\nrtol = 1e-5\n[tolerance.perf]\n; 1e-5 per sqrt of the length\n"
			     "atol = 1e-5 * sqrt(n)\nrtol = 2e-5\n");
	struct task *t;
	struct problem p;
	struct tolerance tol;
	char why[256];
	int row;

	write_task_at(root, "Math", "ptol", ini, strlen(ini), 1);
	if (task_load(root, "Math", "ptol", &t) != KBX_OK)
		fail_msg("%s", kbx_last_error());
	assert_string_equal(t->perf_tol.atol, "1e-5 * sqrt(n)");
	assert_int_equal(t->perf_tol.atol_line, 31);
	for (row = 0; row < t->perf.nrows; row++) {
		long long n = 16LL << row;
		char want[128];

		assert_int_equal(problem_from_perf(t, row, &p), KBX_OK);
		assert_int_equal(task_perf_tolerance(t, &p.env, &tol, why, sizeof(why)), KBX_OK);
		assert_true(fabs(tol.perf_atol - 1e-5 * sqrt((double)n)) < 1e-15);
		assert_true(tol.perf_rtol == 2e-5);
		/* the case tolerance is kept; the floors come on top */
		assert_true(tol.rtol == 1e-5 && tol.atol < 0);
		snprintf(want, sizeof(want), "rtol 2e-05 (2e-5), atol %.3g (1e-5 * sqrt(n), n = %lld)", 1e-5 * sqrt((double)n), n);
		assert_string_equal(why, want);
		problem_free(&p);
	}
	task_free(t);
	free(ini);

	/* without the section: the task's tolerance and no description */
	ini = make_ini("ptol_none", 0, NULL, 0, NULL, NULL);
	write_task_at(root, "Math", "ptol_none", ini, strlen(ini), 1);
	assert_int_equal(task_load(root, "Math", "ptol_none", &t), KBX_OK);
	assert_int_equal(problem_from_perf(t, 0, &p), KBX_OK);
	why[0] = 'x';
	assert_int_equal(task_perf_tolerance(t, &p.env, &tol, why, sizeof(why)), KBX_OK);
	assert_string_equal(why, "");
	assert_true(tol.perf_atol == 0 && tol.perf_rtol == 0);
	problem_free(&p);
	task_free(t);
	free(ini);
}

/* Long values over indented lines: a values() list split over three lines. */
static void test_continuation_lines(void **state)
{
	char *ini = make_ini("cont", 22, "x = values(1, 2,", 0, NULL, NULL);
	struct task *t;
	struct problem p;
	char *fixed;

	/* lines 23.. are [perf]; put the continuation right after line 22 */
	fixed = xasprintf("%.*s  3, 4,\n\t  5)\n%s", (int)(strstr(ini, "[perf]") - ini), ini, strstr(ini, "[perf]"));
	write_task_at(root, "Math", "cont", fixed, strlen(fixed), 1);
	if (task_load(root, "Math", "cont", &t) != KBX_OK)
		fail_msg("%s", kbx_last_error());
	assert_string_equal(binding_get(t->cases[0].b, t->cases[0].nb, "x"), "values(1, 2, 3, 4, 5)");
	assert_int_equal(t->cases[0].b[2].line, 22);
	/* the lines after the continuation keep their true numbers */
	assert_int_equal(t->perf.line, 25);
	assert_int_equal(problem_from_case(t, 0, &p), KBX_OK);
	assert_string_equal(p.bufs[0].gen, "values(1, 2, 3, 4, 5)");
	problem_free(&p);
	task_free(t);
	free(ini);
	free(fixed);
}

/* Debian's inih cuts lines at 200 bytes: such a line is an error, not half a value. */
static void test_long_lines(void **state)
{
	char longline[260], *ini;
	const char *path;
	struct task *t;

	/* 198 characters is the most that fits */
	memset(longline, 'x', sizeof(longline));
	memcpy(longline, "  ", 2);
	longline[198] = '\0';
	ini = make_ini("long_ok", 6, longline, 0, NULL, NULL);
	write_task_at(root, "Math", "long_ok", ini, strlen(ini), 1);
	if (task_load(root, "Math", "long_ok", &t) != KBX_OK)
		fail_msg("%s", kbx_last_error());
	assert_int_equal(strlen(t->summary), strlen("first line of the summary,") + 1 + 196 + 1 + strlen("third line."));
	task_free(t);
	free(ini);

	longline[198] = 'x';
	longline[199] = '\0';
	ini = make_ini("long_bad", 6, longline, 0, NULL, NULL);
	path = write_task_at(root, "Math", "long_bad", ini, strlen(ini), 1);
	assert_int_equal(task_load(root, "Math", "long_bad", &t), KBX_EPARSE);
	assert_true(names_line(kbx_last_error(), path, 6));
	assert_non_null(strstr(kbx_last_error(), "line too long"));
	assert_non_null(strstr(kbx_last_error(), "199 characters"));
	free(ini);

	/* CRLF line endings do not count against the limit, and load as well */
	longline[198] = '\0';
	ini = make_ini("long_crlf", 6, longline, 0, NULL, NULL);
	{
		struct sbuf sb = SBUF_INIT;
		const char *p;

		for (p = ini; *p; p++) {
			if (*p == '\n')
				sbuf_adds(&sb, "\r");
			sbuf_add(&sb, p, 1);
		}
		write_task_at(root, "Math", "long_crlf", sb.buf, sb.len, 1);
		sbuf_release(&sb);
	}
	if (task_load(root, "Math", "long_crlf", &t) != KBX_OK)
		fail_msg("%s", kbx_last_error());
	assert_string_equal(t->mirrors, "Math/x.py");
	task_free(t);
	free(ini);

	/* a long line far down, in a case */
	memset(longline, '1', 250);
	memcpy(longline, "n = ", 4);
	longline[250] = '\0';
	ini = make_ini("long_case", 20, longline, 0, NULL, NULL);
	path = write_task_at(root, "Math", "long_case", ini, strlen(ini), 1);
	assert_int_equal(task_load(root, "Math", "long_case", &t), KBX_EPARSE);
	assert_true(names_line(kbx_last_error(), path, 20));
	free(ini);
}

/* [python]: the entry and its signature, a long signature joined over indented lines; without
 * the section both are NULL. */
static void test_python_section(void **state)
{
	char *ini = make_ini("py", 0, NULL, 0, NULL,
			     "\n[python]\n; KernelBenchX's entry\nentry = _fused_gelu2\n"
			     "signature = (input, other, *,\n  approximate='none',\n\teps=1e-05, out=None)\n");
	struct task *t;

	write_task_at(root, "Math", "py", ini, strlen(ini), 1);
	if (task_load(root, "Math", "py", &t) != KBX_OK)
		fail_msg("%s", kbx_last_error());
	assert_string_equal(t->py_entry, "_fused_gelu2");
	assert_string_equal(t->py_signature, "(input, other, *, approximate='none', eps=1e-05, out=None)");
	/* the sections before it are read as before */
	assert_int_equal(t->perf.nrows, 3);
	task_free(t);
	free(ini);

	/* anywhere in the file, not only at the end; an empty parameter list */
	ini = make_ini("py_mid", 0, NULL, 0, NULL, NULL);
	{
		char *mid = xasprintf("%.*s[python]\nentry = rand\nsignature = ()\n\n%s", (int)(strstr(ini, "[perf]") - ini),
				      ini, strstr(ini, "[perf]"));

		write_task_at(root, "Math", "py_mid", mid, strlen(mid), 1);
		free(mid);
	}
	if (task_load(root, "Math", "py_mid", &t) != KBX_OK)
		fail_msg("%s", kbx_last_error());
	assert_string_equal(t->py_entry, "rand");
	assert_string_equal(t->py_signature, "()");
	assert_int_equal(t->perf.nrows, 3);
	task_free(t);
	free(ini);

	ini = make_ini("no_py", 0, NULL, 0, NULL, NULL);
	write_task_at(root, "Math", "no_py", ini, strlen(ini), 1);
	if (task_load(root, "Math", "no_py", &t) != KBX_OK)
		fail_msg("%s", kbx_last_error());
	assert_null(t->py_entry);
	assert_null(t->py_signature);
	task_free(t);
	free(ini);
}

/* ---- broken tasks, one per kind of error ------------------------------------------------------- */

struct broken {
	const char *name;
	int la;
	const char *ta;
	int lb;
	const char *tb;
	const char *append;
	int want_line;          /* 0: no line to name */
	const char *want;
};

static const struct broken broken[] = {
	{ "unknown_section", 0, NULL, 0, NULL, "[foo]\nx = 1\n", 27, "unknown section '[foo]'" },
	{ "empty_unknown_section", 0, NULL, 0, NULL, "[bar]\n", 27, "unknown section '[bar]'" },
	{ "unknown_task_key", 9, "colour = red", 0, NULL, NULL, 9, "unknown key 'colour' in [task]" },
	{ "launch_limit_zero", 9, "launch_limit = 0", 0, NULL, NULL, 9, "expected seconds from 1 to 600" },
	{ "launch_limit_text", 9, "launch_limit = long", 0, NULL, NULL, 9, "expected seconds from 1 to 600" },
	{ "launch_limit_big", 9, "launch_limit = 601", 0, NULL, NULL, 9, "expected seconds from 1 to 600" },
	{ "launch_limit_nan", 9, "launch_limit = nan", 0, NULL, NULL, 9, "expected seconds from 1 to 600" },
	{ "stages_outside", 9, "stages = ../other/reference.cu", 0, NULL, NULL, 9, "expected examples/NAME.cu" },
	{ "stages_nested", 9, "stages = examples/a/b.cu", 0, NULL, NULL, 9, "expected examples/NAME.cu" },
	{ "stages_up", 9, "stages = examples/../reference.cu", 0, NULL, NULL, 9, "expected examples/NAME.cu" },
	{ "stages_not_cu", 9, "stages = examples/staged.py", 0, NULL, NULL, 9, "expected examples/NAME.cu" },
	{ "stages_bare", 9, "stages = examples/.cu", 0, NULL, NULL, 9, "expected examples/NAME.cu" },
	{ "stages_missing", 9, "stages = examples/staged.cu", 0, NULL, NULL, 9, "no such file" },
	{ "name_mismatch", 2, "name = other", 0, NULL, NULL, 2, "does not match its folder 'name_mismatch'" },
	{ "category_mismatch", 3, "category = Fusion", 0, NULL, NULL, 3, "does not match its folder 'Math'" },
	{ "difficulty", 4, "difficulty = 7", 0, NULL, NULL, 4, "expected 1, 2, 3, 4 or 5" },
	{ "difficulty_text", 4, "difficulty = hard", 0, NULL, NULL, 4, "expected 1, 2, 3, 4 or 5" },
	{ "missing_name", 2, "; no name", 0, NULL, NULL, 1, "missing 'name' in [task]" },
	{ "bad_verifier", 9, "verifier = fuzzy", 0, NULL, NULL, 9, "unknown verifier 'fuzzy'" },
	{ "bad_direction", 11, "x = inn f32 [n]", 0, NULL, NULL, 11, "expected 'in', 'out', 'inout' or a scalar dtype" },
	{ "unknown_dtype", 11, "x = in f23 [n]", 0, NULL, NULL, 11, "unknown dtype 'f23'" },
	{ "no_brackets", 11, "x = in f32 n", 0, NULL, NULL, 11, "expected a shape in brackets" },
	{ "empty_dim", 11, "x = in f32 [n, ]", 0, NULL, NULL, 11, "empty dimension 2" },
	{ "unbalanced_shape", 11, "x = in f32 [max(n, 2]", 0, NULL, NULL, 11, "unbalanced" },
	{ "too_many_dims", 11, "x = in f32 [1, 1, 1, 1, 1, 1, 1, 1, n]", 0, NULL, NULL, 11, "more than 8 dimensions" },
	{ "scalar_shape", 13, "n = i64 [3]", 0, NULL, NULL, 13, "takes a dtype only" },
	{ "scalar_dtype", 14, "alpha = f16", 0, NULL, NULL, 14, "scalar dtype (i32, i64, f32, f64)" },
	{ "bad_arg_name", 13, "n-1 = i64", 0, NULL, NULL, 13, "bad argument name 'n-1'" },
	{ "reserved_arg", 13, "bytes = i64", 0, NULL, NULL, 13, "'bytes'" },
	{ "no_output", 12, "z = in f32 [n]", 0, NULL, NULL, 10, "no 'out' or 'inout' buffer" },
	{ "unbound_scalar", 21, "", 0, NULL, NULL, 19, "does not bind scalar 'alpha'" },
	{ "unbound_shape_name", 12, "y = out f32 [m]", 0, NULL, NULL, 19, "shape of 'y' (line 12)" },
	{ "no_generator", 17, "", 0, NULL, NULL, 19, "no generator for input 'x' in case 'basic'" },
	{ "generator_for_output", 22, "y = randn", 0, NULL, NULL, 22, "'y' in [case.basic]" },
	{ "unknown_generator", 17, "x = gaussian", 0, NULL, NULL, 17, "unknown generator 'gaussian'" },
	{ "bad_case_binding", 20, "n = 4 *", 0, NULL, NULL, 20, "cannot evaluate 'n' in case 'basic'" },
	{ "inputs_not_input", 17, "y = randn", 0, NULL, NULL, 17, "'y' in [inputs]" },
	{ "perf_lists", 25, "alpha = 1, 2", 0, NULL, NULL, 25, "has 2 values but 'n' (line 24) has 3" },
	{ "perf_bad_list", 24, "n = pow2(6..4)", 0, NULL, NULL, 24, "pow2(a..b)" },
	{ "perf_output", 25, "y = ones", 0, NULL, NULL, 25, "'y' in [perf]" },
	{ "perf_bytes", 26, "bytes = 8 * q", 0, NULL, NULL, 26, "cannot evaluate 'bytes' in perf row 0" },
	{ "duplicate_key", 22, "n = 5", 0, NULL, NULL, 22, "duplicate key 'n' in [case.basic]" },
	{ "duplicate_section", 0, NULL, 0, NULL, "[case.basic]\nn = 1\nalpha = 1\n", 27, "duplicate section '[case.basic]'" },
	{ "no_equals", 9, "just some words", 0, NULL, NULL, 9, "expected 'key = value' or '[section]'" },
	{ "open_section", 10, "[args", 0, NULL, NULL, 10, "expected ']'" },
	{ "text_after_section", 10, "[args] x", 0, NULL, NULL, 10, "unexpected text after the section header" },
	{ "key_before_section", 1, "stray = 1", 0, NULL, NULL, 1, "before any section" },
	{ "bad_case_name", 19, "[case.a-b]", 0, NULL, NULL, 19, "bad case name 'a-b'" },
	{ "empty_case_name", 19, "[case.]", 0, NULL, NULL, 19, "bad case name ''" },
	{ "tolerance_key", 0, NULL, 0, NULL, "[tolerance]\nrtool = 1e-5\n", 28, "unknown key 'rtool' in [tolerance] of" },
	{ "tolerance_negative", 0, NULL, 0, NULL, "[tolerance]\natol = -1e-5\n", 28, "out of range" },
	{ "tolerance_text", 0, NULL, 0, NULL, "[tolerance]\natol = tiny\n", 28, "expected a number for 'atol'" },
	{ "verifier_needs_distribution", 0, NULL, 0, NULL, "[verifier]\noutput = y\n", 27, "needs 'verifier = distribution'" },
	{ "verifier_law", 9, "verifier = distribution", 0, NULL, "[verifier]\noutput = y\nlaw = normal\nseed_arg = n\n",
	  29, "unknown law 'normal'" },
	{ "verifier_output", 9, "verifier = distribution", 0, NULL, "[verifier]\noutput = x\nlaw = uniform01\n", 28,
	  "output 'x' in [verifier]" },
	{ "verifier_seed", 9, "verifier = distribution", 0, NULL, "[verifier]\noutput = y\nlaw = uniform01\nseed_arg = alpha\n",
	  30, "seed_arg 'alpha'" },
	{ "verifier_missing_seed", 9, "verifier = distribution", 0, NULL, "[verifier]\noutput = y\nlaw = uniform01\n", 27,
	  "missing 'seed_arg' in [verifier]" },
	{ "verifier_key", 9, "verifier = distribution", 0, NULL, "[verifier]\noutput = y\nlawn = x\n", 29,
	  "unknown key 'lawn' in [verifier]" },
	{ "distribution_without_verifier", 9, "verifier = distribution", 0, NULL, NULL, 0, "needs a [verifier] section" },
	{ "integer_scalar", 20, "n = 4.5", 0, NULL, NULL, 20, "needs an integer" },
	{ "spd_not_square", 17, "x = spd", 0, NULL, NULL, 17, "square matrix" },
	{ "exact_not_identifier", 0, NULL, 0, NULL, "[tolerance]\nrmse = 0.1\nexact = y-exact\n", 29,
	  "exact = 'y-exact' in [tolerance]" },
	{ "exact_elementwise", 0, NULL, 0, NULL, "[tolerance]\nrtol = 1e-5\nexact = y_exact\n", 29,
	  "is for metric thresholds" },
	{ "exact_two_outputs", 11, "x = inout f32 [n]", 0, NULL, "[tolerance]\nrmse = 0.1\nexact = y_exact\n", 29,
	  "is for a task with one output (this one has 2)" },
	{ "perf_tol_key", 0, NULL, 0, NULL, "[tolerance.perf]\natol = 1e-5\ncosine_sim = 0.9\n", 29,
	  "unknown key 'cosine_sim' in [tolerance.perf]" },
	{ "perf_tol_syntax", 0, NULL, 0, NULL, "[tolerance.perf]\natol = 1e-5 * sqrt(n\n", 28, "[tolerance.perf]" },
	{ "perf_tol_function", 0, NULL, 0, NULL, "[tolerance.perf]\natol = 1e-5 * root(n)\n", 28, "unknown function 'root'" },
	{ "perf_tol_name", 0, NULL, 0, NULL, "[tolerance.perf]\natol = 1e-5 * sqrt(k)\n", 28, "unknown name 'k'" },
	{ "perf_tol_negative", 0, NULL, 0, NULL, "[tolerance.perf]\nrtol = 1e-5 * (8 - n)\n", 28,
	  "expected a finite value >= 0" },
	{ "perf_tol_sqrt_negative", 0, NULL, 0, NULL, "[tolerance.perf]\natol = sqrt(40 - n)\n", 28,
	  "sqrt of a negative number" },
	{ "perf_tol_empty_value", 0, NULL, 0, NULL, "[tolerance.perf]\natol =\n", 28, "expected an expression for 'atol'" },
	{ "perf_tol_empty", 0, NULL, 0, NULL, "[tolerance.perf]\n", 27, "has neither rtol nor atol" },
	{ "perf_tol_metric", 0, NULL, 0, NULL, "[tolerance]\ncosine_sim = 0.9\n[tolerance.perf]\natol = 1e-3\n", 29,
	  "metric thresholds" },
	{ "perf_tol_distribution", 9, "verifier = distribution", 0, NULL,
	  "[verifier]\noutput = y\nlaw = uniform01\nseed_arg = n\n[tolerance.perf]\natol = 1e-3\n", 31,
	  "is for the elementwise verifier" },
	{ "python_entry_not_identifier", 0, NULL, 0, NULL, "[python]\nentry = my-gelu\nsignature = (x)\n", 28,
	  "entry = 'my-gelu' in [python]" },
	{ "python_entry_digit", 0, NULL, 0, NULL, "[python]\nentry = 2gelu\nsignature = (x)\n", 28,
	  "expected a Python identifier" },
	{ "python_entry_empty", 0, NULL, 0, NULL, "[python]\nentry =\nsignature = (x)\n", 28,
	  "expected a Python identifier" },
	{ "python_signature_no_parens", 0, NULL, 0, NULL, "[python]\nentry = gelu\nsignature = input, approximate\n",
	  29, "signature = 'input, approximate' in [python]" },
	{ "python_signature_unclosed", 0, NULL, 0, NULL, "[python]\nentry = gelu\nsignature = (input,\n", 29,
	  "expected the parameters in parentheses" },
	{ "python_signature_def", 0, NULL, 0, NULL, "[python]\nentry = gelu\nsignature = def gelu(x)\n", 29,
	  "expected the parameters in parentheses" },
	{ "python_unknown_key", 0, NULL, 0, NULL, "[python]\nentry = gelu\nsignature = (x)\nfile = gelu.py\n", 30,
	  "unknown key 'file' in [python]" },
	{ "python_no_signature", 0, NULL, 0, NULL, "[python]\nentry = gelu\n", 27, "needs both entry and signature" },
	{ "python_twice", 0, NULL, 0, NULL, "[python]\nentry = a\nsignature = (x)\n[python]\nentry = b\nsignature = (x)\n",
	  30, "duplicate section '[python]'" },
};

static void test_broken_tasks(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		const struct broken *b = &broken[i];
		char *ini = make_ini(b->name, b->la, b->ta, b->lb, b->tb, b->append);
		const char *path = write_task_at(root, "Math", b->name, ini, strlen(ini), 1);
		struct task *t = (struct task *)1;
		const char *msg;

		kbx_clear_error();
		if (task_load(root, "Math", b->name, &t) == KBX_OK)
			fail_msg("broken task '%s' loaded", b->name);
		assert_null(t);
		msg = kbx_last_error();
		if (getenv("KBX_TEST_VERBOSE"))
			print_message("%s\n", msg);
		if (!strstr(msg, path))
			fail_msg("'%s': message '%s' does not name '%s'", b->name, msg, path);
		if (b->want_line && !names_line(msg, path, b->want_line))
			fail_msg("'%s': message '%s' does not name line %d", b->name, msg, b->want_line);
		if (!strstr(msg, b->want))
			fail_msg("'%s': message '%s' does not say '%s'", b->name, msg, b->want);
		free(ini);
	}
}

/* [task] stages names one of the task's examples: loaded, its path resolved in the task's folder. */
static void test_stages(void **state)
{
	char *ini = make_ini("staged", 9, "stages = examples/staged.cu", 0, NULL, NULL);
	char ex[700];
	struct task *t;

	(void)state;
	write_task_at(root, "Math", "staged", ini, strlen(ini), 1);
	make_dir("%s/Math/staged/examples", root);
	snprintf(ex, sizeof(ex), "%s/Math/staged/examples/staged.cu", root);
	write_text(ex, "// @kbx expect pass\n// @kbx launch k<<<1, 1>>>(x, y, n)\n");
	assert_int_equal(task_load(root, "Math", "staged", &t), KBX_OK);
	assert_string_equal(t->stages_path, ex);
	assert_int_equal(t->stages_line, 9);
	task_free(t);
	free(ini);

	ini = make_ini("unstaged", 0, NULL, 0, NULL, NULL);
	write_task_at(root, "Math", "unstaged", ini, strlen(ini), 1);
	assert_int_equal(task_load(root, "Math", "unstaged", &t), KBX_OK);
	assert_null(t->stages_path);
	task_free(t);
	free(ini);
}

static void test_missing_files(void **state)
{
	char *ini = make_ini("noref", 0, NULL, 0, NULL, NULL);
	struct task *t;

	write_task_at(root, "Math", "noref", ini, strlen(ini), 0);
	assert_int_equal(task_load(root, "Math", "noref", &t), KBX_ENOTFOUND);
	assert_non_null(strstr(kbx_last_error(), "Math/noref/reference.cu"));
	free(ini);

	assert_int_equal(task_load(root, "Math", "nothere", &t), KBX_ENOTFOUND);
	assert_non_null(strstr(kbx_last_error(), "Math/nothere/task.ini"));
	assert_int_not_equal(task_load(root, "..", "x", &t), KBX_OK);
	assert_int_not_equal(task_load(root, "Math", "a/b", &t), KBX_OK);
}

static void test_nul_byte_and_no_cases(void **state)
{
	char *ini = make_ini("nul", 0, NULL, 0, NULL, NULL), *p;
	const char *path;
	struct task *t;

	p = strstr(ini, "mirrors");
	p[2] = '\0';
	path = write_task_at(root, "Math", "nul", ini, strlen(ini) + 1 + strlen(p + 3), 1);
	assert_int_equal(task_load(root, "Math", "nul", &t), KBX_EPARSE);
	assert_true(names_line(kbx_last_error(), path, 8));
	assert_non_null(strstr(kbx_last_error(), "NUL"));
	free(ini);

	ini = xstrdup("[task]\nname = nocase\ncategory = Math\ndifficulty = 1\nsummary = s\n[args]\ny = out f32 [4]\n");
	path = write_task_at(root, "Math", "nocase", ini, strlen(ini), 1);
	assert_int_equal(task_load(root, "Math", "nocase", &t), KBX_EPARSE);
	assert_non_null(strstr(kbx_last_error(), path));
	assert_non_null(strstr(kbx_last_error(), "no [case.NAME] section"));
	free(ini);
}

/* ---- the catalogue ------------------------------------------------------------------------------- */

static void test_catalogue(void **state)
{
	char r[400], path[600];
	struct catalogue cat;
	static const char *const tasks[][2] = { { "Zeta", "t1" }, { "Alpha", "t2" }, { "Alpha", "t1" } };
	size_t i;

	snprintf(r, sizeof(r), "%s/cat", root);
	for (i = 0; i < 3; i++) {
		char *line = xasprintf("category = %s", tasks[i][0]);
		char *ini = make_ini(tasks[i][1], 3, line, 0, NULL, NULL);

		write_task_at(r, tasks[i][0], tasks[i][1], ini, strlen(ini), 1);
		free(ini);
		free(line);
	}
	/* not categories: include/, golden/, files, hidden folders */
	make_dir("%s/include", r);
	make_dir("%s/include/kbx", r);
	make_dir("%s/golden", r);
	make_dir("%s/.git", r);
	snprintf(path, sizeof(path), "%s/golden/h200.json", r);
	write_text(path, "{}");
	snprintf(path, sizeof(path), "%s/README.md", r);
	write_text(path, "tasks\n");
	snprintf(path, sizeof(path), "%s/Alpha/notes.txt", r);
	write_text(path, "not a task\n");

	if (catalogue_load(r, &cat) != KBX_OK)
		fail_msg("%s", kbx_last_error());
	assert_string_equal(cat.root, r);
	assert_int_equal(cat.ntasks, 3);
	assert_string_equal(cat.tasks[0]->id, "Alpha/t1");
	assert_string_equal(cat.tasks[1]->id, "Alpha/t2");
	assert_string_equal(cat.tasks[2]->id, "Zeta/t1");
	assert_ptr_equal(catalogue_find(&cat, "Alpha/t2"), cat.tasks[1]);
	assert_ptr_equal(catalogue_find(&cat, "Zeta/t1"), cat.tasks[2]);
	assert_ptr_equal(catalogue_find(&cat, "t2"), cat.tasks[1]);
	assert_null(catalogue_find(&cat, "t1"));        /* in two categories */
	assert_null(catalogue_find(&cat, "Beta/t1"));
	assert_null(catalogue_find(&cat, "nope"));
	catalogue_free(&cat);

	/* one broken task is skipped, the others load, and its message names its file and line */
	{
		char *ini = make_ini("bad", 3, "category = Beta", 4, "difficulty = 9", NULL);

		write_task_at(r, "Beta", "bad", ini, strlen(ini), 1);
		free(ini);
	}
	assert_int_equal(catalogue_load(r, &cat), KBX_OK);
	assert_int_equal(cat.ntasks, 3);
	assert_int_equal(cat.nerrors, 1);
	assert_non_null(strstr(cat.errors[0], "cannot load task 'Beta/bad'"));
	snprintf(path, sizeof(path), "%s/Beta/bad/task.ini' line 4", r);
	assert_non_null(strstr(cat.errors[0], path));
	assert_null(catalogue_find(&cat, "Beta/bad"));
	catalogue_free(&cat);

	snprintf(path, sizeof(path), "%s/nowhere", root);
	assert_int_equal(catalogue_load(path, &cat), KBX_ENOTFOUND);
	assert_non_null(strstr(kbx_last_error(), path));
}

static void test_default_root(void **state)
{
	char *saved = getenv("KBX_TASKS") ? xstrdup(getenv("KBX_TASKS")) : NULL;
	struct stat st;

	setenv("KBX_TASKS", "/some/where/tasks", 1);
	assert_string_equal(task_default_root(), "/some/where/tasks");
	unsetenv("KBX_TASKS");
	if (stat(KBX_SRCDIR "/tasks", &st) == 0 && S_ISDIR(st.st_mode))
		assert_string_equal(task_default_root(), KBX_SRCDIR "/tasks");
	if (saved) {
		setenv("KBX_TASKS", saved, 1);
		free(saved);
	}
}

/* The real catalogue under $KBX_SRCDIR/tasks loads, whatever tasks it has by now. */
static void test_real_catalogue(void **state)
{
	const char *src = getenv("KBX_SRCDIR") && *getenv("KBX_SRCDIR") ? getenv("KBX_SRCDIR") : KBX_SRCDIR;
	char *r = xasprintf("%s/tasks", src);
	struct catalogue cat;
	struct stat st;
	int i, rows = 0, cases = 0;

	if (stat(r, &st) != 0 || !S_ISDIR(st.st_mode)) {
		free(r);
		skip();
	}
	if (catalogue_load(r, &cat) != KBX_OK)
		fail_msg("%s", kbx_last_error());
	if (cat.nerrors)
		fail_msg("%s", cat.errors[0]);
	for (i = 0; i < cat.ntasks; i++) {
		const struct task *t = cat.tasks[i];

		if (i > 0) {
			const struct task *prev = cat.tasks[i - 1];
			int c = strcmp(prev->category, t->category);

			assert_true(c < 0 || (c == 0 && strcmp(prev->name, t->name) < 0));
		}
		assert_ptr_equal(catalogue_find(&cat, t->id), t);
		assert_true(t->ncases > 0);
		/* tools/python_entries.py gave every task KernelBenchX's entry function */
		if (!t->py_entry || !t->py_signature)
			fail_msg("task '%s' has no [python] entry and signature", t->id);
		cases += t->ncases;
		rows += t->perf.nrows;
	}
	print_message("real catalogue: %d tasks, %d cases, %d perf rows\n", cat.ntasks, cases, rows);
	catalogue_free(&cat);
	free(r);
}

/* ---- garbage ------------------------------------------------------------------------------------ */

static uint64_t rng_state = 0xD1B54A32D192ED03ULL;

static uint32_t next_rand(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

static void test_garbage(void **state)
{
	static const char alphabet[] = "[]=:;# \t\n\r.,()-+*/0123456789nxyalphaouti_\"\x01\xc3\xff";
	char *base = make_ini("garbage", 9, "", 0, NULL,
			      "[tolerance]\nrtol = 1e-5\n[case.more]\nn = 1024 * 3\nalpha = -1\nx = values(1,\n  2, 3)\n");
	int iter, loaded = 0;

	{
		struct task *t;

		write_task_at(root, "Math", "garbage", base, strlen(base), 1);
		if (task_load(root, "Math", "garbage", &t) != KBX_OK)
			fail_msg("%s", kbx_last_error());
		task_free(t);
	}
	for (iter = 0; iter < 3000; iter++) {
		struct sbuf sb = SBUF_INIT;
		struct task *t;
		size_t len, k;
		int edits;

		sbuf_add(&sb, base, strlen(base));
		for (edits = 1 + (int)(next_rand() % 4); edits > 0; edits--) {
			len = sb.len;
			k = next_rand() % len;
			switch (next_rand() % 5) {
			case 0:
			case 1:
				sb.buf[k] = alphabet[next_rand() % (sizeof(alphabet) - 1)];
				break;
			case 2: /* delete a run */
				len = next_rand() % 12;
				if (k + len > sb.len)
					len = sb.len - k;
				memmove(sb.buf + k, sb.buf + k + len, sb.len - k - len + 1);
				sb.len -= len;
				break;
			case 3: /* duplicate a run somewhere else */
			{
				size_t n = next_rand() % 40, at = next_rand() % sb.len;
				char *copy;

				if (k + n > sb.len)
					n = sb.len - k;
				copy = xmalloc(n + 1);
				memcpy(copy, sb.buf + k, n);
				{
					struct sbuf nb = SBUF_INIT;

					sbuf_add(&nb, sb.buf, at);
					sbuf_add(&nb, copy, n);
					sbuf_add(&nb, sb.buf + at, sb.len - at);
					sbuf_release(&sb);
					sb = nb;
				}
				free(copy);
				break;
			}
			default: /* a NUL or a very long run */
				if (next_rand() % 2) {
					sb.buf[k] = '\0';
				} else {
					struct sbuf nb = SBUF_INIT;
					char run[300];

					memset(run, 'n', sizeof(run));
					sbuf_add(&nb, sb.buf, k);
					sbuf_add(&nb, run, 150 + next_rand() % 150);
					sbuf_add(&nb, sb.buf + k, sb.len - k);
					sbuf_release(&sb);
					sb = nb;
				}
				break;
			}
			if (sb.len == 0)
				sbuf_adds(&sb, "x");
		}
		write_task_at(root, "Math", "garbage", sb.buf, sb.len, 1);
		kbx_clear_error();
		if (task_load(root, "Math", "garbage", &t) == KBX_OK) {
			struct problem p;
			int i;

			loaded++;
			for (i = 0; i < t->ncases; i++) {
				assert_int_equal(problem_from_case(t, i, &p), KBX_OK);
				problem_free(&p);
			}
			task_free(t);
		} else if (!strstr(kbx_last_error(), "garbage/")) {
			fail_msg("message '%s' does not name the file (iteration %d)", kbx_last_error(), iter);
		}
		sbuf_release(&sb);
	}
	print_message("garbage: %d of 3000 mutated files still loaded\n", loaded);
	free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_task),
		cmocka_unit_test(test_tolerance_and_verifier),
		cmocka_unit_test(test_perf_tolerance),
		cmocka_unit_test(test_continuation_lines),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_python_section),
		cmocka_unit_test(test_broken_tasks),
		cmocka_unit_test(test_stages),
		cmocka_unit_test(test_missing_files),
		cmocka_unit_test(test_nul_byte_and_no_cases),
		cmocka_unit_test(test_catalogue),
		cmocka_unit_test(test_default_root),
		cmocka_unit_test(test_real_catalogue),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
