/* Which language a candidate is (core/lang.h), markdown fences, and the static rules on
 * Python sources (core/rules.h: lang = python, comments and strings blanked Python's way). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/lang.h"
#include "core/rules.h"

static const char py_module[] =
	"import torch\nimport triton\nimport triton.language as tl\n\n@triton.jit\n"
	"def k(x_ptr, n, B: tl.constexpr):\n    pass\n\ndef gelu(input, approximate='none'):\n    return input\n";
static const char cuda_kernel[] =
	"// @kbx launch k<<<1, 32>>>(x, n)\nextern \"C\" __global__ void k(float *x, long long n) {}\n";

static void test_detect(void **state)
{
	(void)state;
	assert_int_equal(lang_detect("cand.py", cuda_kernel), LANG_PYTHON);    /* the name decides */
	assert_int_equal(lang_detect("cand.cu", py_module), LANG_CUDA);
	assert_int_equal(lang_detect(NULL, py_module), LANG_PYTHON);
	assert_int_equal(lang_detect("predictions.jsonl:3", py_module), LANG_PYTHON);
	assert_int_equal(lang_detect(NULL, cuda_kernel), LANG_CUDA);
	/* CUDA that mentions Python words in comments, and Python with "from x import y" only */
	assert_int_equal(lang_of_text("#include <cuda_fp16.h>\n// import this\n"), LANG_CUDA);
	assert_int_equal(lang_of_text("from triton import jit\nx = 1\n"), LANG_PYTHON);
	assert_int_equal(lang_of_text("importance = 1;\n"), LANG_CUDA);
	assert_int_equal(lang_of_text(""), LANG_CUDA);
	assert_string_equal(lang_name(LANG_PYTHON), "python");
}

static void test_fences(void **state)
{
	char *s;

	(void)state;
	s = lang_strip_fences("Here it is:\n```python\nimport torch\n```\nthanks");
	assert_string_equal(s, "import torch\n");
	free(s);
	s = lang_strip_fences("no fence");
	assert_string_equal(s, "no fence");
	free(s);
	s = lang_strip_fences("```\nopen to the end");
	assert_string_equal(s, "open to the end");
	free(s);
	s = lang_strip_fences("```");
	assert_string_equal(s, "");
	free(s);
}

static void test_python_blanking(void **state)
{
	const char *src = "x = 'time.time()'  # time.sleep(1)\ny = \"\"\"doc\nos.system('ls')\n\"\"\"\nz = r'\\''\nimport os\n";
	char *code = rules_code_only_python(src);

	(void)state;
	assert_int_equal(strlen(code), strlen(src));
	assert_null(strstr(code, "time"));
	assert_null(strstr(code, "system"));
	assert_non_null(strstr(code, "import os"));
	assert_int_equal(code[strlen(src) - 1], '\n');
	assert_int_equal(strchr(code, '\n') - code, strchr(src, '\n') - src);   /* newlines kept */
	free(code);
}

static void test_python_rules_only_for_python(void **state)
{
	const char *rules = "[rule.py_sleep]\nlang = python\npattern = \\btime\\.sleep\\s*\\(\nmessage = sleeps\n"
			    "[rule.cu_clock]\npattern = \\bclock64\\s*\\(\nmessage = reads a clock\n";
	const char *py = "import time\n# time.sleep(1) in a comment\ntime.sleep(0.1)\nclock64()\n";
	struct ruleset rs;
	struct finding *f = NULL;
	int n;

	(void)state;
	assert_int_equal(rules_parse(rules, "t.ini", &rs), KBX_OK);
	assert_int_equal(rs.rules[0].lang, RULES_PYTHON);
	assert_int_equal(rs.rules[1].lang, RULES_CUDA);
	n = rules_scan_lang(&rs, py, RULES_PYTHON, &f);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].rule->id, "py_sleep");
	assert_int_equal(f[0].line, 3);
	free(f);
	n = rules_scan(&rs, py, &f);            /* the CUDA rules only */
	assert_int_equal(n, 1);
	assert_string_equal(f[0].rule->id, "cu_clock");
	free(f);
	rules_free(&rs);
	assert_int_equal(rules_parse("[rule.a]\nlang = rust\npattern = x\nmessage = m\n", "t.ini", &rs), KBX_EPARSE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_fences),
		cmocka_unit_test(test_python_blanking),
		cmocka_unit_test(test_python_rules_only_for_python),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
