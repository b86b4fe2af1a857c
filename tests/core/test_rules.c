/* Static rules: the rules file parser (with garbage), comment/string blanking, positions, and the
 * real tasks/rules.ini on real sources. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/rules.h"
#include "core/util.h"

static const char *root(void)
{
	const char *r = getenv("KBX_TASKS");

	return r ? r : KBX_SRCDIR "/tasks";
}

static void test_parse_ok(void **state)
{
	struct ruleset rs;
	const char *text = "; comment\n[rule.a]\nkind = fatal\npattern = \\bfoo\\s*\\(\nmessage = calls foo; # not a comment\n"
			   "\n[rule.b]\npattern = bar\nmessage = mentions bar\n";

	(void)state;
	assert_int_equal(rules_parse(text, "t.ini", &rs), KBX_OK);
	assert_int_equal(rs.n, 2);
	assert_int_equal(rs.rules[0].kind, RULE_FATAL);
	assert_string_equal(rs.rules[0].message, "calls foo; # not a comment");
	assert_int_equal(rs.rules[1].kind, RULE_WARNING);       /* the default */
	assert_int_equal(rs.rules[1].line, 7);
	assert_non_null(rules_find(&rs, "b"));
	assert_null(rules_find(&rs, "c"));
	rules_free(&rs);
}

static void test_parse_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "pattern = x\n", "line 1: expected '[rule.NAME]' first" },
		{ "[rule.a]\nkind = loud\npattern = x\nmessage = m\n", "line 2: unknown kind 'loud'" },
		{ "[rule.a]\npattern = (x\nmessage = m\n", "line 1: bad pattern at offset" },
		{ "[rule.a]\npattern = x\n", "expected 'pattern' and 'message'" },
		{ "[rule.a]\npattern = x\nmessage = m\n[rule.a]\n", "line 4: rule 'a' defined twice" },
		{ "[rules.a]\n", "line 1: expected '[rule.NAME]'" },
		{ "[rule.]\n", "line 1: expected '[rule.NAME]'" },
		{ "[rule.a]\ncolour = red\n", "line 2: unknown key 'colour'" },
		{ "[rule.a]\njust words\n", "line 2: expected 'key = value'" },
		{ "[rule.a]\nkind = warning\nevidence_of = b\npattern = x\nmessage = m\n", "'evidence_of' goes with kind = evidence" },
	};
	struct ruleset rs;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(rules_parse(bad[i].text, "t.ini", &rs), KBX_EPARSE);
		if (!strstr(kbx_last_error(), bad[i].want) || !strstr(kbx_last_error(), "'t.ini'")) {
			fprintf(stderr, "case %zu: got '%s', wanted '%s'\n", i, kbx_last_error(), bad[i].want);
			fail();
		}
		assert_int_equal(rs.n, 0);
	}
}

static void test_code_only(void **state)
{
	const char *src = "int a; // clock()\n/* while(1) \n */ char *s = \"clock(\\\"x\";\nchar c = '\\'';\n";
	char *code = rules_code_only(src);

	(void)state;
	assert_int_equal(strlen(code), strlen(src));
	assert_null(strstr(code, "clock"));
	assert_null(strstr(code, "while"));
	assert_non_null(strstr(code, "int a;"));
	assert_non_null(strstr(code, "char *s ="));
	assert_non_null(strstr(code, "char c ="));
	assert_int_equal(code[strlen(src) - 1], '\n');
	free(code);
}

static void test_scan_positions(void **state)
{
	struct ruleset rs;
	struct finding *f;
	const char *src = "ok\n  t = clock();  clock64();\n// clock()\nx = clock();\nscale\nscale\n";
	int n;

	(void)state;
	assert_int_equal(rules_parse("[rule.clk]\npattern = \\bclock(64)?\\s*\\(\nmessage = m\n"
				     "[rule.ev]\nkind = evidence\npattern = scale\nmessage = e\n", "t", &rs), KBX_OK);
	n = rules_scan(&rs, src, &f);
	assert_int_equal(n, 3);         /* line 2 once (one per rule per line), line 4, evidence once */
	assert_string_equal(f[0].rule->id, "clk");
	assert_int_equal(f[0].line, 2);
	assert_int_equal(f[0].col, 7);
	assert_int_equal(f[1].line, 4);
	assert_string_equal(f[2].rule->id, "ev");
	assert_int_equal(f[2].line, 5);
	free(f);
	rules_free(&rs);
}

static int has(const struct finding *f, int n, const char *id)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(f[i].rule->id, id))
			return 1;
	return 0;
}

static void test_real_rules(void **state)
{
	char *path = xasprintf("%s/rules.ini", root());
	const char *spin = "extern \"C\" __global__ void k(float *y) { while (1) { } }\n";
	const char *timer = "__device__ int calls;\nextern \"C\" __global__ void k(float *y) { y[0] = clock64(); }\n";
	const char *quant = "signed char q = (signed char)rintf(fminf(v / scale, 127.0f)); int acc = __dp4a(a, b, acc);\n";
	const char *fp32 = "extern \"C\" __global__ void mm(const float *a, float *c) { float acc = 0; c[0] = acc; }\n";
	struct ruleset rs;
	struct finding *f;
	int n;

	(void)state;
	assert_int_equal(rules_load(path, &rs), KBX_OK);
	assert_true(rs.n >= 8);
	n = rules_scan(&rs, spin, &f);
	assert_true(has(f, n, "spin_forever"));
	free(f);
	n = rules_scan(&rs, timer, &f);
	assert_true(has(f, n, "clock_read"));
	free(f);
	n = rules_scan(&rs, quant, &f);
	assert_true(has(f, n, "int8_storage") && has(f, n, "round_to_int") && has(f, n, "clamp_to_range") &&
		    has(f, n, "scale_derivation") && has(f, n, "int_accumulate"));
	free(f);
	n = rules_scan(&rs, fp32, &f);
	assert_false(has(f, n, "int8_storage") || has(f, n, "round_to_int") || has(f, n, "clamp_to_range"));
	free(f);
	rules_free(&rs);
	/* A missing file is an empty set, not an error. */
	assert_int_equal(rules_load("/nonexistent/rules.ini", &rs), KBX_OK);
	assert_int_equal(rs.n, 0);
	free(path);
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A source of `size` bytes made of `line` repeated. */
static char *repeat(const char *line, size_t size)
{
	size_t n = strlen(line), off = 0;
	char *s = xmalloc(size + n + 1);

	while (off < size) {
		memcpy(s + off, line, n);
		off += n;
	}
	s[off] = '\0';
	return s;
}

/* The scan is linear in the source: 4 MB with a finding on every line (walking from the start
 * for each finding took a minute at 6 MB) walks each byte at most once per rule, and the real
 * rules finish 4 MB in well under the bound (a fraction of a second here). */
static void test_scan_linear(void **state)
{
	char *path = xasprintf("%s/rules.ini", root());
	static const char *const lines[] = {
		"int8_t q = clock(); float s = scale * 127.0f; while (1) {}\n",
		"__device__ float a\n",
		"    \n",
	};
	struct ruleset rs;

	(void)state;
	assert_int_equal(rules_load(path, &rs), KBX_OK);
	for (size_t k = 0; k < sizeof(lines) / sizeof(lines[0]); k++) {
		size_t small = 256 * 1024, big = 4 * 1024 * 1024;
		char *a = repeat(lines[k], small), *b = repeat(lines[k], big);
		struct rules_scan_stats sa, sb;
		struct finding *f;
		double t0 = seconds(), dt;
		int na, nb;

		na = rules_scan_stats(&rs, a, RULES_CUDA, &f, &sa);
		free(f);
		nb = rules_scan_stats(&rs, b, RULES_CUDA, &f, &sb);
		free(f);
		dt = seconds() - t0;
		/* the operation count: each rule walks the source at most once */
		assert_true(sb.steps <= (size_t)rs.n * strlen(b));
		assert_int_equal(sb.limited, 0);
		/* 16 times the source, about 16 times the findings and the work (not 256 times) */
		assert_true(nb >= 15 * na && nb <= 17 * na + 16);
		assert_true(sb.steps <= 17 * sa.steps + 16 * 1024);
		assert_true(dt < 20.0);
		fprintf(stderr, "linear scan '%.*s': %d findings, %zu steps in %.2f s\n", (int)strcspn(lines[k], "\n"),
			lines[k], nb, sb.steps, dt);
		free(a);
		free(b);
	}
	rules_free(&rs);
	free(path);
}

/* Whether rule `id` of the real rules finds evidence in src. */
static int evidence(const struct ruleset *rs, const char *id, const char *src)
{
	struct finding *f;
	int n = rules_scan(rs, src, &f), r = has(f, n, id);

	free(f);
	return r;
}

/* Quantization evidence (issue 17): disguised variants of each rule, that must and must not count. */
static void test_quant_evidence(void **state)
{
	static const char *const rounds[] = {
		"int q = __float2int_rn(v * inv);",
		"float q = rintf(v / s);",
		"long q = lrintf(v / s);",
		"float q = nearbyintf(v / s);",
		"float q = roundf (x * 127.0f / amax);",
		"double q = std::rint(v);",
		"int q = (int)floorf(v / s + 0.5f);",
		"asm(\"cvt.rni.s32.f32 %0, %1;\" : \"=r\"(q) : \"f\"(v));",
	};
	static const char *const truncates[] = {
		"int q = __float2int_rz(v * inv);",
		"int q = __float2int_rd(v * inv); int r = __float2int_ru(v);",
		"int q = (int)(v / s);",
		"float q = truncf(v / s);",
		"int q = (int)floorf(v / s);",
		"asm(\"cvt.rzi.s32.f32 %0, %1;\" : \"=r\"(q) : \"f\"(v));",
		"// rintf(v) in a comment only\nint q = (int)v;",
		"int rintf_count = 0; int q = my_round_down(v);",
	};
	static const char *const clamps[] = {
		"q = fminf(fmaxf(q, -127.0f), 127.0f);",
		"return max(-128, min(127, q));",
		"signed char c = (signed char)(int)fminf(fmaxf(rintf(v / s), -127.0f), 127.0f);",
		"q = q > 127 ? 127 : q;",
		"q = (q < -8) ? -8 : q;",
		"int v = fmaxf(q, QMIN);",
		"q = min(max(q, (-127)), 127);",
		"int y = clamp(q, -7, 7);",
		"__nv_fp8_storage_t b = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);",
		"asm(\"cvt.rni.sat.s8.f32 %0, %1;\" : \"=h\"(q) : \"f\"(v));",
	};
	static const char *const not_clamps[] = {
		"const float scale = amax / 127.0f;",
		"float inv = 127.0f / amax; int q = __float2int_rn(v * inv);",
		"if (q > 127) { } int y = q;",
		"(void)(q > 127); y[i] = q;",
		"bool over = q > 127; y[i] = q;",
		"fmaxf(q, -127.0f); y[i] = q;",
		"amax = fmaxf(amax, fabsf(x[i]));",
		"int lanes = min(n, 1024); int w = max(warps, 1);",
		"// q = fminf(q, 127.0f);\ny[i] = q;",
		"q = q > 127 ? q : q;",
	};
	char *path = xasprintf("%s/rules.ini", root());
	struct ruleset rs;
	size_t i;

	(void)state;
	assert_int_equal(rules_load(path, &rs), KBX_OK);
	for (i = 0; i < sizeof(rounds) / sizeof(rounds[0]); i++)
		if (!evidence(&rs, "round_to_int", rounds[i]))
			fail_msg("round_to_int missed: %s", rounds[i]);
	for (i = 0; i < sizeof(truncates) / sizeof(truncates[0]); i++)
		if (evidence(&rs, "round_to_int", truncates[i]))
			fail_msg("round_to_int took truncation for rounding: %s", truncates[i]);
	for (i = 0; i < sizeof(clamps) / sizeof(clamps[0]); i++)
		if (!evidence(&rs, "clamp_to_range", clamps[i]))
			fail_msg("clamp_to_range missed: %s", clamps[i]);
	for (i = 0; i < sizeof(not_clamps) / sizeof(not_clamps[0]); i++)
		if (evidence(&rs, "clamp_to_range", not_clamps[i]))
			fail_msg("clamp_to_range took this for a clamp: %s", not_clamps[i]);
	rules_free(&rs);
	free(path);
}

/* Whether the evidence standing for `id` in Python (evidence_of) is found in a Python source. */
static int py_evidence(const struct ruleset *rs, const char *id, const char *src)
{
	struct finding *f;
	int n, i, r = 0;

	assert_non_null(rules_find_evidence(rs, id, RULES_PYTHON));
	n = rules_scan_lang(rs, src, RULES_PYTHON, &f);
	for (i = 0; i < n; i++)
		r |= rules_stands_for(f[i].rule, id, RULES_PYTHON);
	free(f);
	return r;
}

/* The same evidence in Python/Triton candidates: KernelBenchX's way (PyTorch ops that round,
 * clamp and cast to int8) and Triton's (libdevice.rint, tl.minimum/tl.maximum, an int32 dot)
 * count; an fp32 matmul, a clamp of a scale away from zero, a truncating cast and words in
 * comments or strings do not. CUDA's rules never read Python, nor the reverse. */
static void test_python_evidence(void **state)
{
	static const struct {
		const char *id, *src;
		int found;
	} cases[] = {
		{ "round_to_int", "xq = (xg / sx).round_().clamp_(-127, 127).to(torch.int8)\n", 1 },
		{ "round_to_int", "q = torch.round(x / s)\n", 1 },
		{ "round_to_int", "q = libdevice.rint(x / scale)\n", 1 },
		{ "round_to_int", "q = tl.extra.cuda.libdevice.nearbyint(v)\n", 1 },
		{ "round_to_int", "q = tl.floor(x / s + 0.5)\n", 1 },
		{ "round_to_int", "q = torch.quantize_per_tensor(x, s, 0, torch.qint8)\n", 1 },
		{ "round_to_int", "r = tl.where(v >= 0, v + 0.5, v - 0.5)\nq = r.to(tl.int32)\n", 1 },
		{ "round_to_int", "q = tl.inline_asm_elementwise(\"cvt.rni.s32.f32 $0, $1;\", \"=r,r\", [v], "
				  "dtype=tl.int32, is_pure=True, pack=1)\n", 1 },
		{ "round_to_int", "q = (x / s).to(tl.int8)\n", 0 },
		{ "round_to_int", "y = 0.5 * x * (1 + tl.erf(x / 1.41))\nn = y.to(tl.float32)\n", 0 },
		{ "round_to_int", "q = tl.floor(x / s)\n", 0 },
		{ "round_to_int", "# q = torch.round(x)\nq = x.trunc()\n", 0 },
		{ "round_to_int", "msg = 'round(x)'\nq = my_round_down(x)\n", 0 },
		{ "clamp_to_range", "xq = (xg / sx).round_().clamp_(-127, 127)\n", 1 },
		{ "clamp_to_range", "q = tl.minimum(tl.maximum(q, -127.0), 127.0)\n", 1 },
		{ "clamp_to_range", "q = torch.clamp(v, min=-128, max=127)\n", 1 },
		{ "clamp_to_range", "q = tl.clamp(q, -8, 7)\n", 1 },
		{ "clamp_to_range", "q = q.clip(QMIN, QMAX)\n", 1 },
		{ "clamp_to_range", "q = tl.where(q > 127, 127, q)\nq = tl.where(q < -127, -127, q)\n", 1 },
		{ "clamp_to_range", "m = tl.where(x > 0, x, 0.0)\n", 0 },
		{ "clamp_to_range", "sx = x.abs().amax(dim=1, keepdim=True).clamp(min=1e-8) / 127.0\n", 0 },
		{ "clamp_to_range", "s = amax / 127.0\nq = x / s\n", 0 },
		{ "clamp_to_range", "amax = tl.maximum(amax, tl.abs(x))\n", 0 },
		{ "clamp_to_range", "n = max(n, 1)\n", 0 },
		{ "int_accumulate", "acc = tl.zeros((BM, BN), dtype=tl.int32)\n", 1 },
		{ "int_accumulate", "acc += tl.dot(a, b, out_dtype=tl.int32)\n", 1 },
		{ "int_accumulate", "q = v.to(torch.int8)\n", 1 },
		{ "int_accumulate", "y = torch._int_mm(a, b)\n", 1 },
		{ "int_accumulate", "acc = tl.zeros((BM, BN), dtype=tl.float32)\nacc += tl.dot(a, b)\n", 0 },
		{ "int_accumulate", "\"\"\"int8 in a docstring: torch.int8\"\"\"\nacc = a @ b\n", 0 },
		{ "scale_derivation", "sx = x.abs().amax(dim=1)\n", 1 },
		{ "int4_storage", "lo = packed & 0xF\nhi = (packed >> 4) & 0xF\n", 1 },
		{ "int4_storage", "w = w.to(torch.float16)\n", 0 },
	};
	char *path = xasprintf("%s/rules.ini", root());
	struct ruleset rs;
	struct finding *f;
	size_t i;
	int n, k;

	(void)state;
	assert_int_equal(rules_load(path, &rs), KBX_OK);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (py_evidence(&rs, cases[i].id, cases[i].src) != cases[i].found)
			fail_msg("%s %s in: %s", cases[i].id, cases[i].found ? "missed" : "found", cases[i].src);
	/* each language reads its own: the CUDA reading of an id is not the Python one */
	assert_ptr_not_equal(rules_find_evidence(&rs, "round_to_int", RULES_CUDA),
			     rules_find_evidence(&rs, "round_to_int", RULES_PYTHON));
	assert_int_equal(rules_find_evidence(&rs, "round_to_int", RULES_CUDA)->lang, RULES_CUDA);
	assert_null(rules_find_evidence(&rs, "int8_storage", RULES_PYTHON));
	n = rules_scan(&rs, "q = torch.round(x).clamp(-127, 127).to(torch.int8)\n", &f);
	for (k = 0; k < n; k++)
		assert_int_not_equal(f[k].rule->lang, RULES_PYTHON);
	free(f);
	rules_free(&rs);
	free(path);
}

/* The Triton candidates of tests/triton/ for w8a8 tasks: the passing one shows every evidence
 * its task requires; the fp32 one lacks all four. */
static void test_python_candidates(void **state)
{
	static const struct {
		const char *file;
		const char *missing;   /* the required ids it lacks, in task.ini's order */
	} cands[] = {
		{ "matmul_w8a8_pass.py", "" },
		{ "matmul_w8a8_fp32_no_quant.py", "round_to_int clamp_to_range scale_derivation int_accumulate " },
	};
	static const char *const required[] = { "round_to_int", "clamp_to_range", "scale_derivation", "int_accumulate" };
	char *path = xasprintf("%s/rules.ini", root());
	struct ruleset rs;
	size_t i, k;

	(void)state;
	assert_int_equal(rules_load(path, &rs), KBX_OK);
	for (i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		char *file = xasprintf("%s/tests/triton/%s", KBX_SRCDIR, cands[i].file), *src = NULL;
		struct sbuf missing = SBUF_INIT;
		size_t len;

		assert_int_equal(read_file(file, &src, &len), KBX_OK);
		for (k = 0; k < sizeof(required) / sizeof(required[0]); k++)
			if (!py_evidence(&rs, required[k], src))
				sbuf_addf(&missing, "%s ", required[k]);
		if (strcmp(missing.buf ? missing.buf : "", cands[i].missing))
			fail_msg("%s lacks '%s', expected '%s'", cands[i].file, missing.buf ? missing.buf : "",
				 cands[i].missing);
		sbuf_release(&missing);
		free(src);
		free(file);
	}
	rules_free(&rs);
	free(path);
}

static void test_keep_strings(void **state)
{
	static const char text[] = "[rule.a]\nkind = evidence\nstrings = keep\npattern = cvt\\.rni\nmessage = m\n"
				   "[rule.b]\nkind = evidence\npattern = cvt\\.rni\nmessage = m\n";
	const char *src = "asm(\"cvt.rni.s32.f32 %0, %1;\");\n// cvt.rni\n";
	struct ruleset rs;
	struct finding *f;
	int n;

	(void)state;
	assert_int_equal(rules_parse(text, "t.ini", &rs), KBX_OK);
	n = rules_scan(&rs, src, &f);
	assert_true(has(f, n, "a"));
	assert_false(has(f, n, "b"));  /* strings blanked by default, comments always */
	assert_int_equal(f[0].line, 1);
	free(f);
	rules_free(&rs);
	assert_int_equal(rules_parse("[rule.c]\nstrings = maybe\npattern = x\nmessage = m\n", "t.ini", &rs), KBX_EPARSE);
}

static void test_garbage(void **state)
{
	static const char alphabet[] = "[]=.;#\\()*+?{}|^$ \n\tabcdefkindpatternmessagerule.fatal";
	uint64_t x = 0x9E3779B97F4A7C15ULL;
	char buf[256];
	int i, j, ok = 0;

	(void)state;
	for (i = 0; i < 5000; i++) {
		struct ruleset rs;
		struct finding *f;
		int len;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		len = (int)(x % (sizeof(buf) - 1));
		for (j = 0; j < len; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			buf[j] = alphabet[x % (sizeof(alphabet) - 1)];
		}
		buf[len] = '\0';
		if (rules_parse(buf, "g", &rs) == KBX_OK) {
			ok++;
			if (rules_scan(&rs, buf, &f) >= 0)
				free(f);
			rules_free(&rs);
		}
		{
			char *c = rules_code_only(buf);

			assert_int_equal(strlen(c), strlen(buf));
			free(c);
		}
	}
	fprintf(stderr, "garbage: %d of 5000 parsed\n", ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_code_only),
		cmocka_unit_test(test_scan_positions),
		cmocka_unit_test(test_real_rules),
		cmocka_unit_test(test_scan_linear),
		cmocka_unit_test(test_quant_evidence),
		cmocka_unit_test(test_python_evidence),
		cmocka_unit_test(test_python_candidates),
		cmocka_unit_test(test_keep_strings),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
