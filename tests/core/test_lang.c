/* Which language a candidate is (core/lang.h), markdown fences, and the static rules on
 * Python sources (core/rules.h: lang = python, comments and strings blanked Python's way). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
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

/* The Python rules of tasks/rules.ini: KernelBenchX-style candidates raise nothing, disguised
 * cheats raise their rule, on their line. */
static int count_rule(const struct ruleset *rs, const char *src, const char *id, int *line)
{
	struct finding *f = NULL;
	int n = rules_scan_lang(rs, src, RULES_PYTHON, &f), i, hits = 0;

	for (i = 0; i < n; i++)
		if (!strcmp(f[i].rule->id, id)) {
			if (!hits && line)
				*line = f[i].line;
			hits++;
		}
	free(f);
	return hits;
}

static void test_python_rules_of_the_catalogue(void **state)
{
	const char *root = getenv("KBX_TASKS");
	char path[4096];
	struct ruleset rs;
	struct finding *f = NULL;
	int line = 0, n;
	const char *clean =
		"import torch\nimport triton\nimport triton.language as tl\n\n"
		"@triton.autotune(configs=[triton.Config({'BLOCK': 128}, num_warps=4)], key=['n'])\n@triton.jit\n"
		"def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr = 1024):\n    pid = tl.program_id(0)\n"
		"    offs = pid * BLOCK + tl.arange(0, BLOCK)\n    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)\n"
		"    tl.store(y_ptr + offs, x, mask=offs < n)\n\n"
		"def gelu(input, approximate='none'):\n    torch.backends.cuda.matmul.allow_tf32 = False\n"
		"    x = input.contiguous().to(torch.float32)\n    y = torch.empty_like(x)\n"
		"    if x.dtype == torch.float32:\n        pass\n    k[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel())\n"
		"    # time.sleep(1) and os.system('x') in a comment\n    s = 'open(\"f\")'\n    return y.view(input.shape)\n";

	(void)state;
	snprintf(path, sizeof(path), "%s/rules.ini", root && *root ? root : KBX_SRCDIR "/tasks");
	assert_int_equal(rules_load(path, &rs), KBX_OK);
	n = rules_scan_lang(&rs, clean, RULES_PYTHON, &f);
	if (n)
		fprintf(stderr, "unexpected finding: %s line %d\n", f[0].rule->id, f[0].line);
	assert_int_equal(n, 0);
	free(f);
	assert_int_equal(count_rule(&rs, "import time\nt0 = time . perf_counter()\n", "py_time_read", &line), 1);
	assert_int_equal(line, 2);
	assert_int_equal(count_rule(&rs, "from time import sleep\nsleep(0.5)\n", "py_sleep", NULL), 1);
	assert_int_equal(count_rule(&rs, "import os\nos.system('nvidia-smi')\n", "py_subprocess", NULL), 1);
	assert_int_equal(count_rule(&rs, "import subprocess as sp\n", "py_subprocess", NULL), 1);
	assert_int_equal(count_rule(&rs, "m = __import__('subprocess')\n", "py_subprocess", NULL), 1);
	assert_int_equal(count_rule(&rs, "from urllib.request import urlopen\n", "py_network", NULL), 1);
	assert_int_equal(count_rule(&rs, "with open('/tmp/cache.bin', 'wb') as f:\n    pass\n", "py_file_access", NULL), 1);
	assert_int_equal(count_rule(&rs, "torch.save(y, 'y.pt')\n", "py_file_access", NULL), 1);
	assert_int_equal(count_rule(&rs, "import torch.nn.functional as F\nF.gelu = lambda x, **k: x\n", "py_monkey_patch",
				    &line), 1);
	assert_int_equal(line, 2);
	assert_int_equal(count_rule(&rs, "setattr(torch, 'matmul', mine)\n", "py_monkey_patch", NULL), 1);
	assert_int_equal(count_rule(&rs, "exec(code)\n", "py_monkey_patch", NULL), 1);
	assert_int_equal(count_rule(&rs, "model.eval()\n", "py_monkey_patch", NULL), 0);
	assert_int_equal(count_rule(&rs, "_memo = {}\ndef f(x):\n    global _memo\n", "py_global_state", NULL), 1);
	assert_int_equal(count_rule(&rs, "@functools.lru_cache(None)\ndef g(n): pass\n", "py_global_state", NULL), 1);
	/* the CUDA rules never see Python, nor the reverse */
	assert_int_equal(count_rule(&rs, "while (1) { }\n", "spin_forever", NULL), 0);
	rules_free(&rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_fences),
		cmocka_unit_test(test_python_blanking),
		cmocka_unit_test(test_python_rules_only_for_python),
		cmocka_unit_test(test_python_rules_of_the_catalogue),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
