#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/nvrtc.h"
#include "core/util.h"

#ifndef KBX_SRCDIR
#define KBX_SRCDIR "."
#endif

static char kbx_include[4096];

static const char *srcdir(void)
{
	const char *s = getenv("KBX_SRCDIR");

	return s && *s ? s : KBX_SRCDIR;
}

static int setup(void **state)
{
	snprintf(kbx_include, sizeof(kbx_include), "%s/tasks/include", srcdir());
	return 0;
}

static const struct nvrtc_diag *find_diag(const struct nvrtc_output *o, const char *severity, int line)
{
	int i;

	for (i = 0; i < o->ndiags; i++)
		if (!strcmp(o->diags[i].severity, severity) && (line < 0 || o->diags[i].line == line))
			return &o->diags[i];
	return NULL;
}

static void compile(const char *src, struct nvrtc_output *out)
{
	enum kbx_status st = nvrtc_compile(src, "cand.cu", 90, NULL, kbx_include, out);

	if (st)
		fail_msg("nvrtc_compile: %s", kbx_last_error());
}

/* ------------------------------------------------------------------ compiling ---- */

static void test_compiles_cubin(void **state)
{
	struct nvrtc_output o;

	compile("extern \"C\" __global__ void scale(float *x, float a, long long n)\n"
		"{\n"
		"\tlong long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
		"\tif (i < n)\n"
		"\t\tx[i] *= a;\n"
		"}\n", &o);
	assert_int_equal(o.ok, 1);
	assert_non_null(o.cubin);
	assert_true(o.cubin_size > 64);
	assert_memory_equal(o.cubin, "\x7f" "ELF", 4);
	assert_non_null(o.log);
	assert_int_equal(find_diag(&o, "error", -1) != NULL, 0);
	assert_true(o.seconds > 0);
	nvrtc_output_free(&o);
	assert_null(o.cubin);
	assert_null(o.log);
}

static void test_error_on_known_line(void **state)
{
	struct nvrtc_output o;
	const struct nvrtc_diag *d;

	compile("extern \"C\" __global__ void k(float *x)\n"
		"{\n"
		"\tint i = threadIdx.x;\n"
		"\tx[i] = undefined_thing(x[i]);\n"
		"}\n", &o);
	assert_int_equal(o.ok, 0);
	assert_null(o.cubin);
	assert_non_null(strstr(o.log, "undefined_thing"));
	d = find_diag(&o, "error", 4);
	assert_non_null(d);
	assert_string_equal(d->file, "cand.cu");
	assert_non_null(strstr(d->message, "identifier \"undefined_thing\" is undefined"));
	/* "\tx[i] = undefined_thing": the caret is under byte 9 */
	assert_int_equal(d->col, 9);
	assert_null(find_diag(&o, "error", 3));
	nvrtc_output_free(&o);
}

static void test_warning(void **state)
{
	struct nvrtc_output o;
	const struct nvrtc_diag *d;

	compile("extern \"C\" __global__ void k(float *x)\n"
		"{\n"
		"\tint unused_var;\n"
		"\tx[0] = 1.0f;\n"
		"}\n", &o);
	assert_int_equal(o.ok, 1);
	assert_non_null(o.cubin);
	d = find_diag(&o, "warning", 3);
	assert_non_null(d);
	assert_non_null(strstr(d->message, "\"unused_var\" was declared but never referenced"));
	assert_non_null(strstr(d->message, "[#177-D]"));
	assert_int_equal(d->col, 6);
	assert_null(find_diag(&o, "error", -1));
	nvrtc_output_free(&o);
}

static void test_allowed_includes(void **state)
{
	struct nvrtc_output o;

	compile("#include <cuda_fp16.h>\n"
		"#include \"kbx/rng.h\"\n"
		"extern \"C\" __global__ void k(__half *y, unsigned long long seed, int n)\n"
		"{\n"
		"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"\tif (i < n)\n"
		"\t\ty[i] = __float2half(kbx_uniform(seed, i));\n"
		"}\n", &o);
	if (!o.ok)
		fail_msg("include of cuda_fp16.h and kbx/rng.h failed:\n%s", o.log);
	assert_memory_equal(o.cubin, "\x7f" "ELF", 4);
	nvrtc_output_free(&o);

	/* the toolkit's headers include their siblings in quotes (mma.h -> "mma.hpp") */
	compile("#include <mma.h>\n"
		"#include <cooperative_groups/reduce.h>\n"
		"extern \"C\" __global__ void k(int *x) { x[0] = 1; }\n", &o);
	if (!o.ok)
		fail_msg("include of mma.h failed:\n%s", o.log);
	nvrtc_output_free(&o);

	/* CUDA 13 keeps libcu++ (needed by cooperative groups) under include/cccl */
	compile("#include <cooperative_groups.h>\n"
		"extern \"C\" __global__ void k(int *x)\n"
		"{\n"
		"\tcooperative_groups::this_grid().sync();\n"
		"\tx[0] = 1;\n"
		"}\n", &o);
	if (!o.ok)
		fail_msg("include of cooperative_groups.h failed:\n%s", o.log);
	nvrtc_output_free(&o);

	/* the same header in angle brackets, and spacing/comments inside the directive */
	compile("  #  /* c */ include <kbx/rng.h> // trailing\n"
		"extern \"C\" __global__ void k(float *y) { y[0] = kbx_uniform(1, 2); }\n", &o);
	if (!o.ok)
		fail_msg("include <kbx/rng.h> failed:\n%s", o.log);
	nvrtc_output_free(&o);
}

/* A rejected include: one error diagnostic on the line, and NVRTC never ran. */
static void assert_gated(const char *src, int line, const char *reason)
{
	struct nvrtc_output o;
	char *why = NULL;

	compile(src, &o);
	if (o.ok || o.ndiags != 1)
		fail_msg("not rejected (ok %d, %d diags):\n%s\nlog:\n%s", o.ok, o.ndiags, src, o.log);
	assert_null(o.cubin);
	assert_string_equal(o.diags[0].severity, "error");
	assert_string_equal(o.diags[0].file, "cand.cu");
	if (o.diags[0].line != line)
		fail_msg("rejected on line %d, expected %d: %s", o.diags[0].line, line, o.diags[0].message);
	if (!strstr(o.diags[0].message, reason))
		fail_msg("reason '%s' does not mention '%s'", o.diags[0].message, reason);
	assert_non_null(strstr(o.log, "NVRTC was not run"));
	/* /etc/passwd's first line would show in NVRTC's log had it been read */
	assert_null(strstr(o.log, "root:"));
	nvrtc_output_free(&o);

	assert_int_equal(nvrtc_source_includes_ok(src, &why), 0);
	assert_non_null(why);
	assert_true(strncmp(why, "line ", 5) == 0);
	free(why);
	assert_int_equal(nvrtc_source_includes_ok(src, NULL), 0);
}

static void test_include_tricks_rejected(void **state)
{
	assert_gated("#include \"/etc/passwd\"\n", 1, "absolute path");
	assert_gated("// header\n#include </etc/passwd>\n", 2, "absolute path");
	assert_gated("#include \"kbx/../../../../../../etc/passwd\"\n", 1, "'..'");
	assert_gated("#include <../../../../../../../etc/passwd>\n", 1, "'..'");
	assert_gated("#include <cuda_fp16.h>\n#include <kbx/..>\n", 2, "'..'");
	assert_gated("#define F \"/etc/passwd\"\n#include F\n", 2, "computed");
	assert_gated("#define F(x) #x\n#include F(/etc/passwd)\n", 2, "computed");
	assert_gated("#\\\ninclude \"/etc/passwd\"\n", 1, "absolute path");
	assert_gated("int a;\n#inc\\\nlude \"/etc/passwd\"\n", 2, "absolute path");
	assert_gated("#include \\\n\"/etc/passwd\"\n", 1, "absolute path");
	assert_gated("#include \"/et\\\nc/passwd\"\n", 1, "absolute path");
	assert_gated("# /* comment */ include \"/etc/passwd\"\n", 1, "absolute path");
	assert_gated("#/* a comment\n over lines */include \"/etc/passwd\"\n", 1, "absolute path");
	assert_gated("  /* lead */ # include \"/etc/passwd\"\n", 1, "absolute path");
	assert_gated("%:include \"/etc/passwd\"\n", 1, "absolute path");
	assert_gated("#include_next </etc/passwd>\n", 1, "absolute path");
	assert_gated("#import \"/etc/passwd\"\n", 1, "absolute path");
	assert_gated("#embed \"/etc/passwd\"\n", 1, "absolute path");
	assert_gated("#if __has_include(\"/etc/passwd\")\n#endif\n", 1, "absolute path");
	assert_gated("#if __has_include(</etc/passwd>)\n#endif\n", 1, "absolute path");
	assert_gated("#include \"cuda_fp16.h\"\n", 1, "kbx/");
	assert_gated("#include\n", 1, "without a file name");
	assert_gated("#include \"kbx/rng.h\n", 1, "not terminated");
	assert_gated("#\\u0069nclude \"/etc/passwd\"\n", 1, "escapes");
	assert_gated("#if 0\n#include \"/etc/passwd\"\n#endif\n", 2, "absolute path");
	/* a raw string whose end, seen through a line splice, would hide a comment opener */
	assert_gated("const char *s = R\"x( )x\\\n\" /* )x\";\n#include \"/etc/passwd\"\n// */\n", 3,
		     "absolute path");
	/* a digit separator taken for a quote would open a string and then a comment */
	assert_gated("int x = 1'0 + '\"'; const char *s = \"/*\";\n#include \"/etc/passwd\"\n// */\n", 2,
		     "absolute path");
	/* what the compiler could read differently is refused outright */
	assert_gated("// comment\r#include \"/etc/passwd\"\n", 1, "carriage return");
	assert_gated("int a;\n// comment \\ \n/*\n#include \"/etc/passwd\"\n*/\n", 2, "blanks");
	assert_gated("/* never closed\n#include \"/etc/passwd\"\n", 1, "not terminated");
	assert_gated("const char *s = R\"x(never closed\n", 1, "not terminated");
}

static void test_include_lookalikes_accepted(void **state)
{
	static const char *const ok[] = {
		"/* #include \"/etc/passwd\" */\nint x;\n",
		"// #include \"/etc/passwd\"\nint x;\n",
		"// a line comment continued by a splice \\\n#include \"/etc/passwd\"\nint x;\n",
		"const char *s = \"#include \\\"/etc/passwd\\\"\";\n",
		"const char *s = R\"(\n#include \"/etc/passwd\"\n)\";\n",
		"const char *s = R\"delim(\n)\"\n#include </etc/passwd>\n)delim\";\n",
		"int x = 1'000'000; /* ' \" */\n#include <cuda_fp16.h>\n",
		"#define STR(x) #x\n#define CAT(a, b) a##b\nint y = sizeof(STR(include));\n",
		"int a; # include <cuda_fp16.h>\n",
		"char c = '\"'; /* \" */\n",
		"#include <cuda_fp16.h>\r\n#include \"kbx/rng.h\"\r\n",
		"",
	};
	size_t i;
	char *why;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		why = NULL;
		if (!nvrtc_source_includes_ok(ok[i], &why))
			fail_msg("rejected %zu: %s\n%s", i, why, ok[i]);
		assert_null(why);
	}
}

/* An include hidden in a comment by a splice is never read by NVRTC either. */
static void test_spliced_comment_compiles(void **state)
{
	struct nvrtc_output o;

	compile("// harmless \\\n#include \"/etc/passwd\"\n"
		"extern \"C\" __global__ void k(float *x) { x[0] = 0; }\n", &o);
	if (!o.ok)
		fail_msg("did not compile:\n%s", o.log);
	nvrtc_output_free(&o);
}

static void test_unsupported_arch(void **state)
{
	struct nvrtc_output o;
	enum kbx_status st;

	st = nvrtc_compile("extern \"C\" __global__ void k() {}\n", "a.cu", 91, NULL, kbx_include, &o);
	assert_int_equal(st, KBX_ENVRTC);
	assert_non_null(strstr(kbx_last_error(), "sm_91"));
	assert_non_null(strstr(kbx_last_error(), "sm_90"));
	assert_int_equal(o.ok, 0);
	assert_null(o.log);
	assert_null(o.cubin);
	assert_null(o.diags);
	nvrtc_output_free(&o);
}

static void test_defaults(void **state)
{
	struct nvrtc_output o;

	/* no name, no arch: "candidate.cu" and sm_90 */
	assert_int_equal(nvrtc_compile("extern \"C\" __global__ void k(int *p) { *p = nope; }\n", NULL, 0, NULL,
				       NULL, &o), KBX_OK);
	assert_int_equal(o.ok, 0);
	assert_true(o.ndiags >= 1);
	assert_string_equal(o.diags[0].file, "candidate.cu");
	assert_int_equal(o.diags[0].line, 1);
	nvrtc_output_free(&o);
}

static void test_log_truncated(void **state)
{
	struct sbuf sb = SBUF_INIT;
	struct nvrtc_output o;
	int i;

	/* thousands of warnings (EDG stops errors at 100, not warnings) */
	sbuf_adds(&sb, "extern \"C\" __global__ void k(float *x)\n{\n");
	for (i = 0; i < 3000; i++)
		sbuf_addf(&sb, "\tint unused_variable_number_%d;\n", i);
	sbuf_adds(&sb, "\tx[0] = 1;\n}\n");
	compile(sb.buf, &o);
	sbuf_release(&sb);
	assert_int_equal(o.ok, 1);
	assert_true(strlen(o.log) <= 64 * 1024 + 200);
	assert_true(strlen(o.log) > 32 * 1024);
	assert_non_null(strstr(o.log, "[kbx: compile log truncated: "));
	assert_true(o.ndiags > 100);
	assert_string_equal(o.diags[0].severity, "warning");
	assert_int_equal(o.diags[0].line, 3);
	nvrtc_output_free(&o);
}

static void test_options_and_version(void **state)
{
	char *s = nvrtc_options_string(90, "/cuda/include", "/kbx/tasks/include");
	const char *v = nvrtc_version();
	int major = 0, minor = -1;

	assert_string_equal(s, "-arch=sm_90 -std=c++17 -default-device "
			    "--include-path=/cuda/include --include-path=/kbx/tasks/include -lineinfo");
	free(s);
	s = nvrtc_options_string(0, NULL, "");
	assert_string_equal(s, "-arch=sm_90 -std=c++17 -default-device -lineinfo");
	free(s);
	s = nvrtc_options_string(120, "", NULL);
	assert_non_null(strstr(s, "-arch=sm_120 "));
	free(s);
	assert_int_equal(sscanf(v, "%d.%d", &major, &minor), 2);
	assert_true(major >= 11 && minor >= 0);
}

static void test_cuda_include(void **state)
{
	setenv("KBX_CUDA_INCLUDE", "/somewhere/include", 1);
	assert_string_equal(nvrtc_cuda_include(), "/somewhere/include");
	unsetenv("KBX_CUDA_INCLUDE");
#ifdef KBX_CUDA_INCLUDE
	assert_string_equal(nvrtc_cuda_include(), KBX_CUDA_INCLUDE);
#endif
}

/* ---------------------------------------------------------------- log parsing ---- */

static const char canned_log[] =
	"cand.cu(5): error: identifier \"foo\" is undefined\n"
	"  \tif (i < n) x[i] = foo(x[i]);\n"
	"  \t                  ^\n"
	"\n"
	"cand.cu(6): error: identifier \"bar\" is undefined\n"
	"    \t  x[0] = bar;\n"
	"    \t         ^\n"
	"\n"
	"cand.cu(3): warning #177-D: variable \"unused\" was declared but never referenced\n"
	"  \tint unused;\n"
	"  \t    ^\n"
	"\n"
	"Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
	"\n"
	"cand.cu(8): error: expression must have class type but it has type \"int\"\n"
	"  template <class T> __device__ T add(T a, T b) { return a.q + b; }\n"
	"                                                         ^\n"
	"          detected during instantiation of \"T add(T, T) [with T=int]\" at line 9\n"
	"\n"
	"odd (name).cu(12): catastrophic error: cannot open source file \"nothere.h\"\n"
	"  #include \"nothere.h\"\n"
	"                      ^\n"
	"\n"
	"At end of source: error: expected a \";\"\n"
	"\n"
	"nvrtc: error: invalid value for --gpu-architecture (-arch)\n"
	"ptxas error   : Entry function 'k' uses too much shared data (0x3a980 bytes, 0xc000 max)\n"
	"ptxas info    : 0 bytes gmem\n"
	"ptxas application ptx input, line 25; error   : Unknown modifier '.instr'\n"
	"ptxas fatal   : Ptx assembly aborted due to errors\n"
	"4 errors detected in the compilation of \"cand.cu\".\n"
	"Compilation terminated.\n";

static void test_parse_canned(void **state)
{
	struct nvrtc_diag *d;
	int n = nvrtc_parse_log(canned_log, &d);

	assert_int_equal(n, 10);

	assert_string_equal(d[0].file, "cand.cu");
	assert_int_equal(d[0].line, 5);
	assert_int_equal(d[0].col, 20);
	assert_string_equal(d[0].severity, "error");
	assert_string_equal(d[0].message, "identifier \"foo\" is undefined\n"
			    "  \tif (i < n) x[i] = foo(x[i]);\n"
			    "  \t                  ^");

	assert_int_equal(d[1].line, 6);
	assert_int_equal(d[1].col, 13);

	assert_string_equal(d[2].severity, "warning");
	assert_int_equal(d[2].line, 3);
	assert_int_equal(d[2].col, 6);
	assert_true(!strncmp(d[2].message, "variable \"unused\" was declared but never referenced [#177-D]\n", 61));
	assert_null(strstr(d[2].message, "Remark"));

	assert_int_equal(d[3].line, 8);
	assert_int_equal(d[3].col, 56);
	assert_non_null(strstr(d[3].message, "\n          detected during instantiation of"));
	assert_null(strstr(d[3].message, "cannot open"));

	assert_string_equal(d[4].file, "odd (name).cu");
	assert_int_equal(d[4].line, 12);
	assert_string_equal(d[4].severity, "error");
	assert_true(!strncmp(d[4].message, "cannot open source file \"nothere.h\"", 35));
	assert_int_equal(d[4].col, 21);

	assert_string_equal(d[5].file, "");
	assert_int_equal(d[5].line, 0);
	assert_string_equal(d[5].message, "at end of source: expected a \";\"");

	assert_string_equal(d[6].message, "invalid value for --gpu-architecture (-arch)");
	assert_string_equal(d[6].severity, "error");
	assert_string_equal(d[7].message, "Entry function 'k' uses too much shared data (0x3a980 bytes, 0xc000 max)");
	assert_string_equal(d[8].message, "ptx line 25: Unknown modifier '.instr'");
	assert_int_equal(d[8].line, 0);
	assert_string_equal(d[9].severity, "error");
	assert_string_equal(d[9].message, "Ptx assembly aborted due to errors");
	nvrtc_diags_free(d, n);
}

static void test_parse_edge_cases(void **state)
{
	struct nvrtc_diag *d;
	struct sbuf sb = SBUF_INIT;
	int n, i;

	assert_int_equal(nvrtc_parse_log("", &d), 0);
	assert_null(d);
	assert_int_equal(nvrtc_parse_log(NULL, &d), 0);
	assert_int_equal(nvrtc_parse_log("\n\n1 error detected in the compilation of \"x\".\n", &d), 0);

	/* CRLF, no final newline, remark and note */
	n = nvrtc_parse_log("a.cu(2): remark: r1\r\na.cu(3): note: n1", &d);
	assert_int_equal(n, 2);
	assert_string_equal(d[0].severity, "remark");
	assert_string_equal(d[0].message, "r1");
	assert_string_equal(d[1].severity, "note");
	assert_string_equal(d[1].message, "n1");
	nvrtc_diags_free(d, n);

	/* a caret that is not under an echo gives no column; long continuations are capped */
	sbuf_adds(&sb, "a.cu(7): error: many lines follow\n");
	for (i = 0; i < 50; i++)
		sbuf_addf(&sb, "   context line %d\n", i);
	n = nvrtc_parse_log(sb.buf, &d);
	assert_int_equal(n, 1);
	assert_int_equal(d[0].col, 0);
	assert_non_null(strstr(d[0].message, "context line 5"));
	assert_null(strstr(d[0].message, "context line 6"));
	assert_non_null(strstr(d[0].message, "\n..."));
	nvrtc_diags_free(d, n);
	sbuf_release(&sb);

	/* a huge line number is not trusted */
	n = nvrtc_parse_log("a.cu(99999999999): error: x\n", &d);
	for (i = 0; i < n; i++)
		assert_true(d[i].line >= 0);
	nvrtc_diags_free(d, n);
}

/* --------------------------------------------------------------- garbage input ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static char *mutate(const char *seed, const char *alphabet, size_t maxlen)
{
	size_t len = strlen(seed), alen = strlen(alphabet), i, edits;
	char *s = xmalloc(maxlen + 1);

	if (len > maxlen)
		len = maxlen;
	memcpy(s, seed, len);
	edits = 1 + rnd() % 12;
	for (i = 0; i < edits; i++) {
		size_t at = len ? rnd() % (len + 1) : 0;
		int op = (int)(rnd() % 3);
		char c = (rnd() % 8) ? alphabet[rnd() % alen] : (char)(1 + rnd() % 255);

		if (op == 0 && len < maxlen) {  /* insert */
			memmove(s + at + 1, s + at, len - at);
			s[at] = c;
			len++;
		} else if (op == 1 && at < len) {  /* replace */
			s[at] = c;
		} else if (at < len) {  /* delete */
			memmove(s + at, s + at + 1, len - at - 1);
			len--;
		}
	}
	s[len] = '\0';
	return s;
}

static void test_garbage_logs(void **state)
{
	static const char alphabet[] = "()0123456789:#-^ \t\n\rerrorwarningptxas line;At end of source.cu\"";
	struct nvrtc_diag *d;
	int iter, n, i;

	for (iter = 0; iter < 4000; iter++) {
		char *s;

		if (iter % 4 == 0) {
			size_t len = rnd() % 400, k;

			s = xmalloc(len + 1);
			for (k = 0; k < len; k++)
				s[k] = (rnd() % 3) ? alphabet[rnd() % (sizeof(alphabet) - 1)] : (char)(1 + rnd() % 255);
			s[len] = '\0';
		} else {
			s = mutate(canned_log, alphabet, sizeof(canned_log) + 64);
		}
		n = nvrtc_parse_log(s, &d);
		assert_true(n >= 0);
		for (i = 0; i < n; i++) {
			assert_non_null(d[i].file);
			assert_non_null(d[i].severity);
			assert_non_null(d[i].message);
			assert_true(d[i].line >= 0 && d[i].col >= 0);
		}
		nvrtc_diags_free(d, n);
		free(s);
	}
}

static void test_garbage_sources(void **state)
{
	static const char alphabet[] = "#/*\"'\\\n\r R()<>%:includeu8kbx/.._has 0123456789";
	static const char *const seeds[] = {
		"#include <kbx/rng.h>\nint x = 1'000; // c\n/* c */ const char *s = R\"d(x)d\";\n",
		"# /* c */ include \"kbx/rng.h\"\n#if __has_include(<cuda_fp16.h>)\n#endif\n%:define A 1\n",
		"char c = '\\''; const char *s = \"a\\\"b\"; int y = 0x1'2p+3; \\\n#include <x.h>\n",
	};
	int iter;

	for (iter = 0; iter < 6000; iter++) {
		char *s = mutate(seeds[iter % 3], alphabet, 512), *why = NULL;
		int ok = nvrtc_source_includes_ok(s, &why);

		assert_true(ok == 0 || ok == 1);
		assert_true(ok ? why == NULL : why != NULL);
		free(why);
		free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compiles_cubin),
		cmocka_unit_test(test_error_on_known_line),
		cmocka_unit_test(test_warning),
		cmocka_unit_test(test_allowed_includes),
		cmocka_unit_test(test_include_tricks_rejected),
		cmocka_unit_test(test_include_lookalikes_accepted),
		cmocka_unit_test(test_spliced_comment_compiles),
		cmocka_unit_test(test_unsupported_arch),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_log_truncated),
		cmocka_unit_test(test_options_and_version),
		cmocka_unit_test(test_cuda_include),
		cmocka_unit_test(test_parse_canned),
		cmocka_unit_test(test_parse_edge_cases),
		cmocka_unit_test(test_garbage_logs),
		cmocka_unit_test(test_garbage_sources),
	};

	if (!nvrtc_built()) {
		printf("SKIP: NVRTC support was not built\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, NULL);
}
