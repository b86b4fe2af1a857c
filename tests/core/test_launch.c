#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launch.h"
#include "core/util.h"

#ifndef KBX_SRCDIR
#define KBX_SRCDIR "."
#endif

static struct kernel_spec parse_ok(const char *src)
{
	struct kernel_spec spec;
	enum kbx_status st = launch_parse_source(src, "test.cu", &spec);

	if (st != KBX_OK)
		fail_msg("parse failed: %s\n--- source ---\n%s", kbx_last_error(), src);
	return spec;
}

/* The message must start "'test.cu' line L column C: " and contain `part`. */
static void parse_err(const char *src, int line, int col, const char *part)
{
	struct kernel_spec spec;
	char prefix[64];
	enum kbx_status st;

	memset(&spec, 0x5a, sizeof(spec));
	st = launch_parse_source(src, "test.cu", &spec);
	if (st == KBX_OK) {
		kernel_spec_free(&spec);
		fail_msg("'%s' should fail (%s)", src, part);
	}
	assert_int_equal(st, KBX_EPARSE);
	/* the output is left empty */
	assert_null(spec.launches);
	assert_int_equal(spec.nlaunches, 0);
	assert_null(spec.scratch);
	assert_int_equal(spec.nscratch, 0);
	snprintf(prefix, sizeof(prefix), "'test.cu' line %d column %d: ", line, col);
	if (strncmp(kbx_last_error(), prefix, strlen(prefix)) != 0)
		fail_msg("'%s': message '%s' does not start with '%s'", src, kbx_last_error(), prefix);
	if (!strstr(kbx_last_error(), part))
		fail_msg("'%s': message '%s' lacks '%s'", src, kbx_last_error(), part);
}

static void assert_dims(char *const d[3], const char *x, const char *y, const char *z)
{
	assert_string_equal(d[0], x);
	assert_string_equal(d[1], y);
	assert_string_equal(d[2], z);
}

static void assert_name_arg(const struct launch_arg *a, const char *name, int col)
{
	assert_non_null(a->name);
	assert_string_equal(a->name, name);
	assert_null(a->expr);
	assert_int_equal(a->col, col);
}

/* ---- the examples of doc/task-format.md ---- */

static void test_doc_examples(void **state)
{
	const char *src = "// @kbx scratch rowmax f32 [m]\n"
			  "// @kbx launch row_max<<<m, 256, 256 * 4>>>(x, rowmax, m, n)\n"
			  "// @kbx launch softmax_out<<<dim3(cdiv(n, 256), m), 256>>>(x, rowmax, y, m, n)\n"
			  "// @kbx launch solve<<<sms, 512>>>(a, b, x, n) cooperative\n";
	struct kernel_spec spec = parse_ok(src);
	const struct launch *l;

	assert_int_equal(spec.nscratch, 1);
	assert_string_equal(spec.scratch[0].name, "rowmax");
	assert_int_equal(spec.scratch[0].dtype, DT_F32);
	assert_int_equal(spec.scratch[0].ndim, 1);
	assert_string_equal(spec.scratch[0].shape[0], "m");
	assert_int_equal(spec.scratch[0].line, 1);

	assert_int_equal(spec.nlaunches, 3);
	l = &spec.launches[0];
	assert_string_equal(l->kernel, "row_max");
	assert_dims(l->grid, "m", "1", "1");
	assert_dims(l->block, "256", "1", "1");
	assert_string_equal(l->smem, "256 * 4");
	assert_int_equal(l->nargs, 4);
	assert_name_arg(&l->args[0], "x", 45);
	assert_name_arg(&l->args[1], "rowmax", 48);
	assert_name_arg(&l->args[2], "m", 56);
	assert_name_arg(&l->args[3], "n", 59);
	assert_false(l->cooperative);
	assert_int_equal(l->line, 2);

	l = &spec.launches[1];
	assert_string_equal(l->kernel, "softmax_out");
	assert_dims(l->grid, "cdiv(n, 256)", "m", "1");
	assert_dims(l->block, "256", "1", "1");
	assert_string_equal(l->smem, "0");
	assert_int_equal(l->nargs, 5);
	assert_name_arg(&l->args[4], "n", 77);
	assert_int_equal(l->line, 3);

	l = &spec.launches[2];
	assert_string_equal(l->kernel, "solve");
	assert_dims(l->grid, "sms", "1", "1");
	assert_dims(l->block, "512", "1", "1");
	assert_int_equal(l->nargs, 4);
	assert_true(l->cooperative);
	assert_int_equal(l->line, 4);
	kernel_spec_free(&spec);
	assert_null(spec.launches);
	assert_int_equal(spec.nlaunches, 0);
	kernel_spec_free(&spec); /* twice is harmless */
}

static void test_gelu_reference_file(void **state)
{
	const char *dir = getenv("KBX_SRCDIR") ? getenv("KBX_SRCDIR") : KBX_SRCDIR;
	char *path = xasprintf("%s/tasks/Activation/gelu/reference.cu", dir), *src;
	struct kernel_spec spec;

	if (read_file(path, &src, NULL) != KBX_OK) {
		free(path);
		skip();
	}
	assert_int_equal(launch_parse_source(src, path, &spec), KBX_OK);
	assert_int_equal(spec.nlaunches, 1);
	assert_string_equal(spec.launches[0].kernel, "gelu_f32");
	assert_true(str_starts_with(spec.launches[0].grid[0], "max(1, cdiv(n, "));
	assert_string_equal(spec.launches[0].grid[1], "1");
	assert_string_equal(spec.launches[0].block[2], "1");
	assert_int_equal(spec.launches[0].nargs, 4);
	assert_string_equal(spec.launches[0].args[3].name, "approximate");
	assert_int_equal(spec.nscratch, 0);
	kernel_spec_free(&spec);
	free(src);
	free(path);
}

static void test_casts(void **state)
{
	const char *src = "// @kbx launch k<<<1, 1>>>(i32(n * k), i64(n), f32(1.0 / n), f64( alpha ), x, i32 (cdiv(n, 2)))";
	struct kernel_spec spec = parse_ok(src);
	const struct launch *l = &spec.launches[0];

	assert_int_equal(l->nargs, 6);
	assert_null(l->args[0].name);
	assert_int_equal(l->args[0].cast, DT_I32);
	assert_string_equal(l->args[0].expr, "n * k");
	assert_int_equal(l->args[0].col, 28);
	assert_int_equal(l->args[1].cast, DT_I64);
	assert_string_equal(l->args[1].expr, "n");
	assert_int_equal(l->args[2].cast, DT_F32);
	assert_string_equal(l->args[2].expr, "1.0 / n");
	assert_int_equal(l->args[3].cast, DT_F64);
	assert_string_equal(l->args[3].expr, "alpha");
	assert_int_equal(l->args[0].expr_col, 32);
	assert_int_equal(l->args[3].expr_col, 67); /* after the blank in "f64( alpha )" */
	assert_int_equal(l->args[5].expr_col, 84);
	assert_int_equal(l->args[4].expr_col, 0);
	assert_name_arg(&l->args[4], "x", 76);
	assert_null(l->args[5].name);
	assert_int_equal(l->args[5].cast, DT_I32);
	assert_string_equal(l->args[5].expr, "cdiv(n, 2)");
	kernel_spec_free(&spec);
}

static void test_scratch_shapes(void **state)
{
	const char *src = "// @kbx scratch s0 f32 []\n"
			  "// @kbx scratch norm bf16 [b, cdiv(n, 32), p]\n"
			  "// @kbx scratch flags bool [n]\n"
			  "\t// @kbx scratch z c64 [ b * n , min(p, 4) ]\n"
			  "// @kbx scratch counts i64 [pow2(3)]\n"
			  "// @kbx launch k<<<1, 1>>>(s0, norm, flags, z, counts)\n";
	struct kernel_spec spec = parse_ok(src);

	assert_int_equal(spec.nscratch, 5);
	assert_string_equal(spec.scratch[0].name, "s0");
	assert_int_equal(spec.scratch[0].ndim, 0);
	assert_non_null(spec.scratch[0].shape);
	assert_int_equal(spec.scratch[1].dtype, DT_BF16);
	assert_int_equal(spec.scratch[1].ndim, 3);
	assert_string_equal(spec.scratch[1].shape[0], "b");
	assert_string_equal(spec.scratch[1].shape[1], "cdiv(n, 32)");
	assert_string_equal(spec.scratch[1].shape[2], "p");
	assert_int_equal(spec.scratch[2].dtype, DT_BOOL);
	assert_int_equal(spec.scratch[3].dtype, DT_C64);
	assert_int_equal(spec.scratch[3].ndim, 2);
	assert_string_equal(spec.scratch[3].shape[0], "b * n");
	assert_string_equal(spec.scratch[3].shape[1], "min(p, 4)");
	assert_int_equal(spec.scratch[3].line, 4);
	assert_int_equal(spec.scratch[4].dtype, DT_I64);
	assert_int_equal(spec.scratch[4].pack_bits, 0);
	assert_int_equal(spec.launches[0].nargs, 5);
	assert_int_equal(spec.launches[0].line, 6);
	kernel_spec_free(&spec);
}

static void test_scratch_packs(void **state)
{
	const char *src = "// @kbx scratch w i32 [n, cdiv(k, 8)] packs s4\n"
			  "// @kbx scratch b u8 [n]\tpacks  u1  \n"
			  "// @kbx scratch h i64 [n] packs s16\n"
			  "// @kbx launch k<<<1, 1>>>(w, b, h)\n";
	struct kernel_spec spec = parse_ok(src);

	(void)state;
	assert_int_equal(spec.nscratch, 3);
	assert_int_equal(spec.scratch[0].pack_bits, 4);
	assert_int_equal(spec.scratch[0].pack_signed, 1);
	assert_int_equal(spec.scratch[0].ndim, 2);
	assert_string_equal(spec.scratch[0].shape[1], "cdiv(k, 8)");
	assert_int_equal(spec.scratch[1].pack_bits, 1);
	assert_int_equal(spec.scratch[1].pack_signed, 0);
	assert_int_equal(spec.scratch[2].pack_bits, 16);
	kernel_spec_free(&spec);
}

static void test_dims_and_spacing(void **state)
{
	const char *src = "// @kbx expect wrong\n"
			  "// reads one past the end\n"
			  "//@kbx launch  a <<< dim3(x, y, z) , dim3(32, 8) , smem >>> ( p ) cooperative  \r\n"
			  "\t  // @kbx launch b<<<dim3 (4), 128>>>()\r\n"
			  "   x = 1; // @kbx launch ignored<<<\n"
			  "/* @kbx launch ignored_too */\n"
			  "// kbx launch not_a_directive\n"
			  "// @kbx launch a<<<1,1>>>(p)  untimed\t cooperative"; /* last line without newline, same kernel again */
	struct kernel_spec spec = parse_ok(src);
	const struct launch *l;

	assert_int_equal(spec.nlaunches, 3);
	l = &spec.launches[0];
	assert_string_equal(l->kernel, "a");
	assert_dims(l->grid, "x", "y", "z");
	assert_dims(l->block, "32", "8", "1");
	assert_string_equal(l->smem, "smem");
	assert_int_equal(l->nargs, 1);
	assert_name_arg(&l->args[0], "p", 63);
	assert_true(l->cooperative);
	assert_false(l->untimed);
	assert_int_equal(l->line, 3);
	l = &spec.launches[1];
	assert_string_equal(l->kernel, "b");
	assert_dims(l->grid, "4", "1", "1");
	assert_int_equal(l->nargs, 0);
	assert_false(l->cooperative);
	assert_int_equal(l->line, 4);
	l = &spec.launches[2];
	assert_dims(l->grid, "1", "1", "1");
	assert_true(l->untimed);
	assert_true(l->cooperative);
	assert_int_equal(l->line, 8);
	kernel_spec_free(&spec);
}

static void test_many_launches(void **state)
{
	struct sbuf sb = SBUF_INIT;
	struct kernel_spec spec;
	int i;

	for (i = 0; i < 100; i++) {
		sbuf_addf(&sb, "__global__ void k%d(float *x) {}\n", i);
		sbuf_addf(&sb, "// @kbx scratch t%d f32 [n, %d]\n", i, i + 1);
		sbuf_addf(&sb, "// @kbx launch k%d<<<cdiv(n, %d), 256>>>(x, t%d, i32(%d))\n", i, i + 1, i, i);
	}
	spec = parse_ok(sb.buf);
	assert_int_equal(spec.nlaunches, 100);
	assert_int_equal(spec.nscratch, 100);
	assert_string_equal(spec.launches[57].kernel, "k57");
	assert_string_equal(spec.launches[57].grid[0], "cdiv(n, 58)");
	assert_string_equal(spec.launches[57].args[2].expr, "57");
	assert_int_equal(spec.launches[57].line, 57 * 3 + 3);
	assert_string_equal(spec.scratch[99].shape[1], "100");
	assert_int_equal(spec.scratch[99].line, 99 * 3 + 2);
	kernel_spec_free(&spec);
	sbuf_release(&sb);
}

/* ---- errors ---- */

static void test_no_launch(void **state)
{
	struct kernel_spec spec;

	assert_int_equal(launch_parse_source("", "empty.cu", &spec), KBX_EPARSE);
	assert_string_equal(kbx_last_error(),
			    "'empty.cu': no launch line (expected '// @kbx launch KERNEL<<<GRID, BLOCK>>>(ARGS)')");
	assert_int_equal(launch_parse_source("// @kbx scratch t f32 [n]\n// @kbx expect pass\n__global__ void k() {}\n",
					     "s.cu", &spec),
			 KBX_EPARSE);
	assert_true(str_starts_with(kbx_last_error(), "'s.cu': no launch line"));
	assert_null(spec.scratch);
	/* the metadata of tests/adversarial is read past, whatever follows it */
	spec = parse_ok("// @kbx task Reduce/sum\n// @kbx expect wrong\n// @kbx because case [a-z_]+: output 'y'\n"
			"// @kbx args --rows 2 --launch-timeout 3\n// @kbx launch k<<<1, 1>>>(x)\n");
	assert_int_equal(spec.nlaunches, 1);
	assert_int_equal(spec.launches[0].line, 5);
	kernel_spec_free(&spec);
	/* and an example's verdict over every perf row */
	spec = parse_ok("// @kbx expect pass\n// @kbx perf_expect timeout: one thread scans 2^27 values\n"
			"// @kbx launch k<<<1, 1>>>(x)\n");
	assert_int_equal(spec.launches[0].line, 3);
	kernel_spec_free(&spec);
	parse_err("// @kbx perf-expect timeout", 1, 9, "unknown directive 'perf'");
	/* no path given */
	assert_int_equal(launch_parse_source("x", NULL, &spec), KBX_EPARSE);
	assert_true(str_starts_with(kbx_last_error(), "'<source>': no launch line"));
}

static void test_directive_errors(void **state)
{
	parse_err("// @kbx", 1, 8, "expected a directive (launch, scratch or expect) but found the end of the line");
	parse_err("// @kbx   ", 1, 11, "expected a directive");
	parse_err("// @kbx lunch k<<<1,1>>>()", 1, 9, "unknown directive 'lunch' (expected launch, scratch or expect)");
	parse_err("// @kbx launches k<<<1,1>>>()", 1, 9, "unknown directive 'launches'");
	parse_err("// @kbx Launch k<<<1,1>>>()", 1, 9, "unknown directive 'Launch'");
	parse_err("// @kbx 42", 1, 9, "expected a directive");
	parse_err("// @kbxlaunch k<<<1,1>>>()", 1, 4, "unknown directive '@kbxlaunch'");
	parse_err("// @kbx: launch", 1, 4, "unknown directive");
	parse_err("// @kbx launch: k<<<1,1>>>()", 1, 15, "expected a space after 'launch' but found ':'");
	parse_err("// @kbx expect=pass", 1, 15, "expected a space after 'expect'");
	parse_err("// @kbx because: x\n// @kbx launch k<<<1,1>>>()", 1, 16, "expected a space after 'because' but found ':'");
	parse_err("// @kbx tasks A/b\n// @kbx launch k<<<1,1>>>()", 1, 9, "unknown directive 'tasks'");
	/* later lines get their own numbers */
	parse_err("// @kbx launch k<<<1, 1>>>(x)\n\n\n  // @kbx scrach t f32 [n]\n", 4, 11, "unknown directive 'scrach'");
	parse_err("a\r\nb\r\n// @kbx launch k<<<1>>>(x)\r\n", 3, 21, "expected ',' and a block size but found '>'");
}

static void test_launch_errors(void **state)
{
	parse_err("// @kbx launch", 1, 15, "expected a kernel name but found the end of the line");
	parse_err("// @kbx launch 1k<<<1,1>>>()", 1, 16, "expected a kernel name but found '1'");
	parse_err("// @kbx launch <<<1,1>>>()", 1, 16, "expected a kernel name but found '<'");
	parse_err("// @kbx launch k<<1,1>>>()", 1, 17, "expected '<<<' but found '<'");
	parse_err("// @kbx launch k-x<<<1,1>>>()", 1, 17, "expected '<<<' but found '-'");
	parse_err("// @kbx launch k(x)", 1, 17, "expected '<<<'");
	parse_err("// @kbx launch k<<<1,1>>(x)", 1, 28, "expected '>>>' but found the end of the line");
	parse_err("// @kbx launch k<<<1>>>(x)", 1, 21, "expected ',' and a block size");
	parse_err("// @kbx launch k<<<>>>(x)", 1, 20, "expected a grid size but found '>'");
	parse_err("// @kbx launch k<<<, 2>>>(x)", 1, 20, "expected a grid size but found ','");
	parse_err("// @kbx launch k<<<1, >>>(x)", 1, 23, "expected a block size");
	parse_err("// @kbx launch k<<<1, 2, >>>(x)", 1, 26, "expected a shared memory size");
	parse_err("// @kbx launch k<<<1, 2, 3, 4>>>(x)", 1, 27, "expected '>>>' after the shared memory size");
	parse_err("// @kbx launch k<<<cdiv(n, 256, 256>>>(x)", 1, 24, "unclosed '('");
	parse_err("// @kbx launch k<<<n), 1>>>(x)", 1, 21, "unbalanced ')'");
	parse_err("// @kbx launch k<<<(n], 1>>>(x)", 1, 22, "']' closes the '(' at column 20");
	parse_err("// @kbx launch k<<<n +, 1>>>(x)", 1, 23, "expected a number, a name or '(' but found the end");
	parse_err("// @kbx launch k<<<foo(n), 1>>>(x)", 1, 20, "unknown function 'foo'");
	parse_err("// @kbx launch k<<<1, cdiv(n)>>>(x)", 1, 23, "'cdiv' takes 2 arguments, not 1");
	parse_err("// @kbx launch k<<<1, 2n>>>(x)", 1, 23, "malformed number '2n'");
	parse_err("// @kbx launch k<<<n * 256 * 99999999999999999999, 1>>>(x)", 1, 30, "integer literal too large");
	parse_err("// @kbx launch k<<<dim3(), 1>>>(x)", 1, 20, "dim3 takes 1 to 3 sizes, not 0");
	parse_err("// @kbx launch k<<<dim3(1, 2, 3, 4), 1>>>(x)", 1, 20, "not 4");
	parse_err("// @kbx launch k<<<dim3(1) * 2, 1>>>(x)", 1, 28, "expected ',' or '>>>' after 'dim3(...)' but found '*'");
	parse_err("// @kbx launch k<<<dim3(1, ), 1>>>(x)", 1, 28, "expected a grid size (dimension y)");
	parse_err("// @kbx launch k<<<1, dim3(32, 8 +)>>>(x)", 1, 35, "found the end in expression '8 +'");
}

static void test_args_errors(void **state)
{
	parse_err("// @kbx launch k<<<1, 1>>> x", 1, 28, "expected '(' and the kernel arguments after '>>>' but found 'x'");
	parse_err("// @kbx launch k<<<1, 1>>>", 1, 27, "expected '(' and the kernel arguments");
	parse_err("// @kbx launch k<<<1, 1>>>(x, y", 1, 32, "expected ')' closing the argument list but found the end");
	parse_err("// @kbx launch k<<<1, 1>>>(x, (y", 1, 31, "unclosed '('");
	parse_err("// @kbx launch k<<<1, 1>>>(x, (y)", 1, 34, "expected ')' closing the argument list");
	parse_err("// @kbx launch k<<<1, 1>>>(x,, y)", 1, 30, "expected an argument but found ','");
	parse_err("// @kbx launch k<<<1, 1>>>(x, )", 1, 31, "expected an argument but found ')'");
	parse_err("// @kbx launch k<<<1, 1>>>(, x)", 1, 28, "expected an argument");
	parse_err("// @kbx launch k<<<1, 1>>>(x, n * 2)", 1, 33, "expected ',' or ')' after argument 'n' but found '*'");
	parse_err("// @kbx launch k<<<1, 1>>>(x y)", 1, 30, "after argument 'x' but found 'y'");
	parse_err("// @kbx launch k<<<1, 1>>>(u8(n))", 1, 28, "unknown cast 'u8' (expected i32, i64, f32 or f64)");
	parse_err("// @kbx launch k<<<1, 1>>>(x, I32(n))", 1, 31, "unknown cast 'I32'");
	parse_err("// @kbx launch k<<<1, 1>>>(i32(n) + 1)", 1, 35, "expected ',' or ')' after the cast but found '+'");
	parse_err("// @kbx launch k<<<1, 1>>>(i32())", 1, 32, "expected an expression to cast but found ')'");
	parse_err("// @kbx launch k<<<1, 1>>>(i64(n +))", 1, 35, "found the end");
	parse_err("// @kbx launch k<<<1, 1>>>(f32(1.0 / / n))", 1, 38, "found '/'");
	parse_err("// @kbx launch k<<<1, 1>>>(2)", 1, 28, "expected an argument name or a cast (i32, i64, f32, f64) but found '2'");
	parse_err("// @kbx launch k<<<1, 1>>>(&x)", 1, 28, "found '&'");
	parse_err("// @kbx launch k<<<1, 1>>>(x[0])", 1, 29, "found '['");
	parse_err("// @kbx launch k<<<1, 1>>>(x]", 1, 29, "unbalanced ']'");
	parse_err("// @kbx launch k<<<1, 1>>>(x) coop", 1, 31, "expected 'cooperative', 'untimed' or the end of the line but found 'coop'");
	parse_err("// @kbx launch k<<<1, 1>>>(x) cooperativeX", 1, 31, "found 'cooperativeX'");
	parse_err("// @kbx launch k<<<1, 1>>>(x) cooperative extra", 1, 43, "expected 'untimed' or the end of the line but found 'extra'");
	parse_err("// @kbx launch k<<<1, 1>>>(x) untimed untimed", 1, 39, "expected 'cooperative' or the end of the line but found 'untimed'");
	parse_err("// @kbx launch k<<<1, 1>>>(x) untimed cooperative cooperative", 1, 51, "expected the end of the line but found 'cooperative'");
	parse_err("// @kbx launch k<<<1, 1>>>(x) untimedX", 1, 31, "found 'untimedX'");
	parse_err("// @kbx launch k<<<1, 1>>>(x) // note", 1, 31, "found '/'");
	parse_err("// @kbx launch k<<<1, 1>>>(x);", 1, 30, "found ';'");
}

static void test_scratch_errors(void **state)
{
	const char *l = "// @kbx launch k<<<1, 1>>>(x)\n";
	char *src;

	parse_err("// @kbx scratch", 1, 16, "expected a scratch buffer name but found the end of the line");
	parse_err("// @kbx scratch 9t f32 [n]", 1, 17, "expected a scratch buffer name");
	parse_err("// @kbx scratch tmp", 1, 20, "expected a space and a dtype after the name");
	parse_err("// @kbx scratch tmp[n]", 1, 20, "expected a space and a dtype after the name but found '['");
	parse_err("// @kbx scratch tmp [n]", 1, 21, "expected a dtype (f32, f64");
	parse_err("// @kbx scratch tmp f23 [n]", 1, 21, "unknown dtype 'f23'");
	parse_err("// @kbx scratch tmp F32 [n]", 1, 21, "unknown dtype 'F32'");
	parse_err("// @kbx scratch tmp f32", 1, 24, "expected '[' and a shape such as [m, n] but found the end");
	parse_err("// @kbx scratch tmp f32 (n)", 1, 25, "expected '[' and a shape");
	parse_err("// @kbx scratch tmp f32 [n", 1, 27, "expected ']' closing the shape but found the end of the line");
	parse_err("// @kbx scratch tmp f32 [n,]", 1, 28, "expected a size but found ']'");
	parse_err("// @kbx scratch tmp f32 [, n]", 1, 26, "expected a size but found ','");
	parse_err("// @kbx scratch tmp f32 [n * ]", 1, 29, "expected a number, a name or '('");
	parse_err("// @kbx scratch tmp f32 [cdiv(n, 2]", 1, 35, "']' closes the '(' at column 30");
	parse_err("// @kbx scratch tmp f32 [cdiv(n, 2", 1, 30, "unclosed '('");
	parse_err("// @kbx scratch tmp f32 [n] m", 1, 29, "expected the end of the line after the shape (or 'packs s4') but found 'm'");
	parse_err("// @kbx scratch tmp f32 [n][m]", 1, 28, "found '['");
	parse_err("// @kbx scratch tmp i32 [n] pack s4", 1, 29, "expected the end of the line after the shape (or 'packs s4')");
	parse_err("// @kbx scratch tmp i32 [n] packs", 1, 34, "expected a packed integer type");
	parse_err("// @kbx scratch tmp i32 [n] packs4", 1, 29, "expected the end of the line after the shape");
	parse_err("// @kbx scratch tmp i32 [n] packs i4", 1, 35, "expected a packed integer type: s1, s2, s4");
	parse_err("// @kbx scratch tmp i32 [n] packs s3", 1, 35, "expected a packed integer type");
	parse_err("// @kbx scratch tmp i32 [n] packs s", 1, 35, "expected a packed integer type");
	parse_err("// @kbx scratch tmp i32 [n] packs s4x", 1, 35, "expected a packed integer type");
	parse_err("// @kbx scratch tmp i32 [n] packs s32", 1, 35, "expected a packed integer type");
	parse_err("// @kbx scratch tmp i32 [n] packs s4 s4", 1, 38, "expected the end of the line after the packing");
	parse_err("// @kbx scratch tmp f32 [n] packs s4", 1, 35, "s4 packs into an integer dtype wider than 4 bits, not f32");
	parse_err("// @kbx scratch tmp bool [n] packs u1", 1, 36, "not bool");
	parse_err("// @kbx scratch tmp i8 [n] packs s8", 1, 34, "s8 packs into an integer dtype wider than 8 bits, not i8");
	parse_err("// @kbx scratch tmp i16 [n] packs u16", 1, 35, "not i16");
	/* a duplicate is reported at the second name */
	src = xasprintf("%s// @kbx scratch tmp f32 [n]\n// @kbx scratch other f32 [n]\n// @kbx scratch  tmp f16 [m]\n", l);
	parse_err(src, 4, 18, "scratch buffer 'tmp' declared twice (first on line 2)");
	free(src);
	/* an error after good lines frees what they built (ASan checks the leak) */
	src = xasprintf("%s%s// @kbx scratch a f32 [n]\n// @kbx scratch b f32 [n +]\n", l, l);
	parse_err(src, 4, 27, "expected a number");
	free(src);
}

/* ---- garbage ---- */

static uint64_t rng_state = 0x1234567;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng_state >> 33) % n;
}

static void check_garbage(const char *src)
{
	struct kernel_spec spec;
	enum kbx_status st = launch_parse_source(src, "garbage.cu", &spec);
	int i, k;

	if (st != KBX_OK) {
		assert_int_equal(st, KBX_EPARSE);
		assert_true(str_starts_with(kbx_last_error(), "'garbage.cu'"));
		assert_null(spec.launches);
		return;
	}
	assert_true(spec.nlaunches >= 1);
	for (i = 0; i < spec.nlaunches; i++) {
		const struct launch *l = &spec.launches[i];

		assert_non_null(l->kernel);
		assert_non_null(l->smem);
		for (k = 0; k < 3; k++) {
			assert_true(l->grid[k] && l->grid[k][0]);
			assert_true(l->block[k] && l->block[k][0]);
		}
		for (k = 0; k < l->nargs; k++) {
			assert_true((l->args[k].name != NULL) != (l->args[k].expr != NULL));
			assert_true(l->args[k].col >= 1);
		}
	}
	for (i = 0; i < spec.nscratch; i++)
		for (k = 0; k < spec.scratch[i].ndim; k++)
			assert_true(spec.scratch[i].shape[k][0]);
	kernel_spec_free(&spec);
}

static void test_garbage(void **state)
{
	static const char alphabet[] = "<<<>>>(),[] \tabnxyz0123*+-/%dim3i32f64 cooperative untimed@kbx//\n";
	static const char *seeds[] = {
		"// @kbx launch softmax_out<<<dim3(cdiv(n, 256), m), 256>>>(x, rowmax, y, i32(m * n), n)",
		"// @kbx scratch norm bf16 [b, cdiv(n, 32), p]\n// @kbx launch k<<<1, 1, 8>>>(norm) cooperative",
		"// @kbx expect wrong\n//@kbx launch a<<<dim3(x, y, z), dim3(32, 8), smem>>>(f32(1.0 / n))\r\n",
	};
	char buf[512];
	int i, k, len;

	for (i = 0; i < 20000; i++) {
		int pre = (int)rnd(3);

		len = 0;
		if (pre == 0)
			len = snprintf(buf, sizeof(buf), "// @kbx launch ");
		else if (pre == 1)
			len = snprintf(buf, sizeof(buf), "// @kbx scratch ");
		for (k = (int)rnd(60); k > 0; k--)
			buf[len++] = alphabet[rnd(sizeof(alphabet) - 1)];
		buf[len] = '\0';
		check_garbage(buf);
	}
	for (i = 0; i < 3000; i++) {
		len = snprintf(buf, sizeof(buf), "// @kbx launch ");
		for (k = (int)rnd(80); k > 0; k--)
			buf[len++] = (char)(1 + rnd(255));
		buf[len] = '\0';
		check_garbage(buf);
	}
	for (i = 0; i < 20000; i++) {
		const char *s = seeds[rnd(sizeof(seeds) / sizeof(seeds[0]))];
		int n = (int)strlen(s), edits = 1 + (int)rnd(5);

		memcpy(buf, s, (size_t)n + 1);
		for (k = 0; k < edits; k++) {
			int at = (int)rnd((uint32_t)n + 1), what = (int)rnd(3);

			if (what == 0 && at < n) {
				memmove(buf + at, buf + at + 1, (size_t)(n - at));
				n--;
			} else if (what == 1 && n < 400) {
				memmove(buf + at + 1, buf + at, (size_t)(n - at) + 1);
				buf[at] = alphabet[rnd(sizeof(alphabet) - 1)];
				n++;
			} else if (at < n) {
				buf[at] = alphabet[rnd(sizeof(alphabet) - 1)];
			}
		}
		check_garbage(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doc_examples),
		cmocka_unit_test(test_gelu_reference_file),
		cmocka_unit_test(test_casts),
		cmocka_unit_test(test_scratch_shapes),
		cmocka_unit_test(test_scratch_packs),
		cmocka_unit_test(test_dims_and_spacing),
		cmocka_unit_test(test_many_launches),
		cmocka_unit_test(test_no_launch),
		cmocka_unit_test(test_directive_errors),
		cmocka_unit_test(test_launch_errors),
		cmocka_unit_test(test_args_errors),
		cmocka_unit_test(test_scratch_errors),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
