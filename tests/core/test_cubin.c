/*
 * Tests for core/cubin.c (and core/abi.c on top of it): parameter sizes read from images NVRTC
 * compiles here, kernels without parameters, missing kernels, and images cut short or not ELF at
 * all, which must give an error and never a wrong answer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/cubin.h"
#include "core/nvrtc.h"

#ifndef KBX_SRCDIR
#define KBX_SRCDIR "."
#endif

static const char source[] =
	"extern \"C\" __global__ void seven(float *a, int b, double c, char d, long long e, unsigned short f, float g)\n"
	"{ if (b < 0) a[0] = c + d + e + f + g; }\n"
	"extern \"C\" __global__ void none() { }\n"
	"struct pair { double x, y; };\n"
	"extern \"C\" __global__ void by_value(pair p, float *out) { out[0] = p.x + p.y; }\n";

static struct nvrtc_output out;

static int setup(void **state)
{
	char inc[4096];
	const char *s = getenv("KBX_SRCDIR");

	(void)state;
	memset(&out, 0, sizeof(out));
	if (!nvrtc_built())
		return 0;
	snprintf(inc, sizeof(inc), "%s/tasks/include", s && *s ? s : KBX_SRCDIR);
	if (nvrtc_compile(source, "cubin_test.cu", 90, NULL, inc, &out) || !out.ok)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	nvrtc_output_free(&out);
	return 0;
}

static void test_sizes(void **state)
{
	size_t sizes[16];
	int count = -1;

	(void)state;
	if (!out.cubin)
		skip();
	assert_int_equal(cubin_kernel_params(out.cubin, out.cubin_size, "seven", sizes, 16, &count), KBX_OK);
	assert_int_equal(count, 7);
	assert_int_equal(sizes[0], 8);
	assert_int_equal(sizes[1], 4);
	assert_int_equal(sizes[2], 8);
	assert_int_equal(sizes[3], 1);
	assert_int_equal(sizes[4], 8);
	assert_int_equal(sizes[5], 2);
	assert_int_equal(sizes[6], 4);
	assert_int_equal(cubin_kernel_params(out.cubin, out.cubin_size, "none", sizes, 16, &count), KBX_OK);
	assert_int_equal(count, 0);
	assert_int_equal(cubin_kernel_params(out.cubin, out.cubin_size, "by_value", sizes, 16, &count), KBX_OK);
	assert_int_equal(count, 2);
	assert_int_equal(sizes[0], 16);
	assert_int_equal(sizes[1], 8);
	/* fewer slots than parameters: the count is still right */
	assert_int_equal(cubin_kernel_params(out.cubin, out.cubin_size, "seven", sizes, 2, &count), KBX_OK);
	assert_int_equal(count, 7);
}

static void test_missing(void **state)
{
	size_t sizes[4];
	int count = -1;

	(void)state;
	if (!out.cubin)
		skip();
	/* names that are prefixes or extensions of a real one are other kernels */
	assert_int_equal(cubin_kernel_params(out.cubin, out.cubin_size, "seve", sizes, 4, &count), KBX_ENOTFOUND);
	assert_int_equal(cubin_kernel_params(out.cubin, out.cubin_size, "sevens", sizes, 4, &count), KBX_ENOTFOUND);
	assert_int_equal(cubin_kernel_params(out.cubin, out.cubin_size, "", sizes, 4, &count), KBX_ENOTFOUND);
	assert_int_equal(count, 0);
}

static void test_garbage(void **state)
{
	unsigned char *img;
	size_t sizes[8], cut;
	int count, ok_seen = 0, i;

	(void)state;
	assert_int_equal(cubin_kernel_params(NULL, 0, "k", sizes, 8, &count), KBX_EPARSE);
	assert_int_equal(cubin_kernel_params("not an image at all, just text that goes on for a while", 56, "k",
					     sizes, 8, &count), KBX_EPARSE);
	if (!out.cubin)
		skip();
	/* every prefix of a real image: an error or the right answer, never a wrong one */
	for (cut = 0; cut <= out.cubin_size; cut += cut < 256 ? 1 : 61) {
		enum kbx_status st;

		img = malloc(cut ? cut : 1);
		assert_non_null(img);
		memcpy(img, out.cubin, cut);
		count = -1;
		st = cubin_kernel_params(img, cut, "seven", sizes, 8, &count);
		if (st == KBX_OK) {
			assert_int_equal(count, 7);
			ok_seen++;
		} else {
			assert_int_equal(count, 0);
		}
		free(img);
	}
	assert_true(ok_seen >= 1);
	/* one byte flipped anywhere: no crash (ASan watches), a count within bounds when it succeeds */
	img = malloc(out.cubin_size);
	assert_non_null(img);
	for (i = 0; i < 4000; i++) {
		size_t at = (size_t)rand() % out.cubin_size;

		memcpy(img, out.cubin, out.cubin_size);
		img[at] ^= (unsigned char)(1 + rand() % 255);
		count = -1;
		if (cubin_kernel_params(img, out.cubin_size, "seven", sizes, 8, &count) == KBX_OK)
			assert_true(count >= 0 && count <= 4096);
		else
			assert_int_equal(count, 0);
	}
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_garbage),
	};

	srand(7);
	return cmocka_run_group_tests(tests, setup, teardown);
}
