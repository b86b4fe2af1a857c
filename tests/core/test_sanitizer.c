/* compute-sanitizer reports (core/sanitizer.h): findings, their lines, noise, duplicates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/sanitizer.h"

static const char memcheck_log[] =
	"========= COMPUTE-SANITIZER\n"
	"========= Invalid __global__ write of size 4 bytes\n"
	"=========     at gelu_oob+0x1a0 in /home/u/cand.cu:12\n"
	"=========     by thread (255,0,0) in block (3,0,0)\n"
	"=========     Address 0x7f3a00001000 is out of bounds\n"
	"=========     and is 4 bytes after the nearest allocation at 0x7f3a00000000 of size 4096 bytes\n"
	"=========     Saved host backtrace up to driver entry point at kernel launch time\n"
	"=========         Host Frame: [0x2f3c] in libcuda.so.1\n"
	"========= \n"
	"========= Invalid __global__ write of size 4 bytes\n"
	"=========     at gelu_oob+0x1a0 in /home/u/cand.cu:12\n"
	"=========     by thread (256,0,0) in block (3,0,0)\n"
	"========= \n"
	"========= Invalid __global__ read of size 4 bytes\n"
	"=========     at scale+0x80 in reference.cu:30\n"
	"=========     by thread (1,0,0) in block (0,0,0)\n"
	"========= \n"
	"========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to \"unspecified launch failure\" on CUDA API call to cuCtxSynchronize.\n"
	"=========     Saved host backtrace up to driver entry point at error\n"
	"========= \n"
	"========= ERROR SUMMARY: 3 errors\n";

static void test_memcheck(void **state)
{
	struct san_finding *f;
	int n = sanitizer_parse(memcheck_log, &f);

	(void)state;
	assert_int_equal(n, 2);
	assert_string_equal(f[0].what, "Invalid __global__ write of size 4 bytes");
	assert_string_equal(f[0].file, "/home/u/cand.cu");
	assert_int_equal(f[0].line, 12);
	assert_int_equal(f[0].count, 2);
	assert_string_equal(f[0].where, "thread (255,0,0) in block (3,0,0)");
	assert_true(sanitizer_is_candidate(&f[0], "cand.cu"));
	assert_string_equal(f[1].file, "reference.cu");
	assert_int_equal(f[1].line, 30);
	assert_false(sanitizer_is_candidate(&f[1], "/home/u/cand.cu"));
	/* a candidate run as itself: everything is the candidate's */
	assert_true(sanitizer_is_candidate(&f[1], "tasks/Cat/t/reference.cu"));
	sanitizer_findings_free(f, n);
}

static void test_racecheck_and_initcheck(void **state)
{
	static const char log[] =
		"========= COMPUTE-SANITIZER\n"
		"========= Error: Race reported between Write access at reduce+0x2c0 in sum.cu:41\n"
		"=========     and Read access at reduce+0x300 in sum.cu:44 [512 hazards]\n"
		"========= \n"
		"========= Uninitialized __global__ memory read of size 4 bytes\n"
		"=========     at k+0x40 in sum.cu:7\n"
		"=========     by thread (0,0,0) in block (0,0,0)\n"
		"========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";
	struct san_finding *f;
	int n = sanitizer_parse(log, &f);

	(void)state;
	assert_int_equal(n, 2);
	assert_int_equal(f[0].line, 41);
	assert_string_equal(f[0].file, "sum.cu");
	assert_int_equal(f[1].line, 7);
	sanitizer_findings_free(f, n);
}

static void test_clean_and_garbage(void **state)
{
	struct san_finding *f;
	char buf[512];
	unsigned x = 12345;
	int i, j;

	(void)state;
	assert_int_equal(sanitizer_parse("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n", &f), 0);
	assert_null(f);
	assert_int_equal(sanitizer_parse(NULL, &f), 0);
	assert_int_equal(sanitizer_parse("", &f), 0);
	/* a headline with no location */
	assert_int_equal(sanitizer_parse("========= Something odd\n", &f), 1);
	assert_string_equal(f[0].file, "");
	assert_int_equal(f[0].line, 0);
	sanitizer_findings_free(f, 1);
	for (i = 0; i < 3000; i++) {
		static const char *const parts[] = { "========= ", "=========     at ", " in ", ":", "12", "\n", "x",
						     "by thread ", "=========", " " };
		size_t len = 0;

		for (j = 0; j < 30; j++) {
			const char *p;

			x = x * 1103515245u + 12345u;
			p = parts[(x >> 16) % (sizeof(parts) / sizeof(parts[0]))];
			if (len + strlen(p) + 1 >= sizeof(buf))
				break;
			memcpy(buf + len, p, strlen(p));
			len += strlen(p);
		}
		buf[len] = '\0';
		sanitizer_findings_free(f = NULL, 0);
		sanitizer_findings_free(f, sanitizer_parse(buf, &f));
	}
	assert_true(sanitizer_tool_ok("memcheck"));
	assert_false(sanitizer_tool_ok("rm -rf"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memcheck),
		cmocka_unit_test(test_racecheck_and_initcheck),
		cmocka_unit_test(test_clean_and_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
