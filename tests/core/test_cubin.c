/*
 * Tests for core/cubin.c (and core/abi.c on top of it): parameter sizes read from images NVRTC
 * compiles here, kernels without parameters, missing kernels, and images cut short or not ELF at
 * all, which must give an error and never a wrong answer; mutable device globals found in the
 * image however the source spells them, and nothing for __constant__ data or kbx's own headers.
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

/* Disguised mutable globals: none is written `__device__ int x;` at the start of a line. */
static const char globals_source[] =
	"#include <kbx/rng.h>\n"                                               /* 1 */
	"#define STATE(t, n) __device__ t n\n"                                  /* 2 */
	"extern \"C\" __device__ int g;\n"                                      /* 3 */
	"extern \"C\" __device__ int g = 0;\n"                                  /* 4 */
	"__device__ int h = int();\n"                                           /* 5 */
	"static __device__ float s_tab[64];\n"                                  /* 6 */
	"STATE(unsigned long long, via_macro);\n"                               /* 7 */
	"template <typename T> __device__ T tvar;\n"                            /* 8 */
	"namespace ns { __device__ int in_ns; }\n"                              /* 9 */
	"int plain_default_device;\n"                                           /* 10 */
	"__device__ int inited = 42;\n"                                         /* 11 */
	"__constant__ float cst[4] = { 1, 2, 3, 4 };\n"                         /* 12 */
	"__device__ int unused_but_kept;\n"                                     /* 13 */
	"extern \"C\" __global__ void k(float *y, int n)\n"                     /* 14 */
	"{\n"
	"\t__shared__ float sh[32];\n"
	"\tsh[threadIdx.x % 32] = n;\n"
	"\tg += n; h++; s_tab[0] += 1; via_macro++; tvar<double> += 1; ns::in_ns++;\n"
	"\tplain_default_device++; inited++;\n"
	"\ty[0] = cst[n & 3] + s_tab[1] + sh[0] + kbx_uniform(1, n);\n"
	"}\n";

static const struct cubin_global *global_named(const struct cubin_global *g, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(g[i].name, name))
			return &g[i];
	return NULL;
}

static void test_globals(void **state)
{
	static const struct {
		const char *name;
		size_t size;
		int line;
	} want[] = {
		{ "g", 4, 3 }, { "h", 4, 5 }, { "s_tab", 256, 6 }, { "via_macro", 8, 7 }, { "tvar<...>", 8, 8 },
		{ "ns::in_ns", 4, 9 }, { "plain_default_device", 4, 10 }, { "inited", 4, 11 }, { "unused_but_kept", 4, 13 },
	};
	struct nvrtc_output o;
	struct cubin_global *g = NULL;
	char inc[4096];
	const char *s = getenv("KBX_SRCDIR");
	size_t i;
	int n = -1;

	(void)state;
	if (!nvrtc_built())
		skip();
	snprintf(inc, sizeof(inc), "%s/tasks/include", s && *s ? s : KBX_SRCDIR);
	memset(&o, 0, sizeof(o));
	assert_int_equal(nvrtc_compile(globals_source, "globals.cu", 90, NULL, inc, &o), KBX_OK);
	if (!o.ok)
		fprintf(stderr, "%s\n", o.log ? o.log : "");
	assert_true(o.ok);
	assert_int_equal(cubin_globals(o.cubin, o.cubin_size, &g, &n), KBX_OK);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct cubin_global *x = global_named(g, n, want[i].name);

		if (!x)
			fail_msg("global '%s' not found", want[i].name);
		assert_int_equal(x->size, want[i].size);
		assert_int_equal(cubin_global_line(globals_source, x->name), want[i].line);
	}
	/* only those: not __constant__ data, not shared memory, nothing from kbx/rng.h */
	assert_int_equal(n, (int)(sizeof(want) / sizeof(want[0])));
	assert_null(global_named(g, n, "cst"));
	assert_string_equal(global_named(g, n, "inited")->section, ".nv.global.init");
	assert_int_equal(global_named(g, n, "inited")->init[0], 42);
	assert_string_equal(global_named(g, n, "h")->section, ".nv.global");
	assert_int_equal(global_named(g, n, "h")->init[0], 0);
	cubin_globals_free(g, n);
	/* cut short anywhere: an error, or at most the globals of the whole image */
	for (i = 0; i <= o.cubin_size; i += i < 512 ? 7 : 97) {
		enum kbx_status st = cubin_globals(o.cubin, i, &g, &n);

		if (st == KBX_OK)
			assert_true(n <= (int)(sizeof(want) / sizeof(want[0])));
		else
			assert_true(n == 0 && g == NULL);
		cubin_globals_free(g, n);
	}
	nvrtc_output_free(&o);
}

static void test_no_globals(void **state)
{
	struct cubin_global *g = (struct cubin_global *)&g;
	int n = -1;

	(void)state;
	if (!out.cubin)
		skip();
	assert_int_equal(cubin_globals(out.cubin, out.cubin_size, &g, &n), KBX_OK);
	assert_int_equal(n, 0);
	assert_null(g);
	assert_int_equal(cubin_globals("not an image", 13, &g, &n), KBX_EPARSE);
	assert_int_equal(n, 0);
}

static void test_demangle(void **state)
{
	static const char *const cases[][2] = {
		{ "g", "g" }, { "_ZN2ns5in_nsE", "ns::in_ns" }, { "_Z4tvarIdE", "tvar<...>" },
		{ "_ZL5s_tab", "s_tab" }, { "_ZN1a1bIiE1cE", "a::b<...>::c" }, { "_ZN4Exit3NIXE", "Exit::NIX" }, { "_ZN7cv_smemILi128EE3CIBE", "cv_smem<...>::CIB" },
		{ "_ZN4cuda3std3__417integral_constantIbLb1EE5valueE", "cuda::std::__4::integral_constant<...>::value" },
		{ "_Z", "_Z" }, { "_ZN2ns", "_ZN2ns" }, { "_Z99x", "_Z99x" }, { "_ZI", "_ZI" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = cubin_demangle(cases[i][0]);

		assert_string_equal(d, cases[i][1]);
		free(d);
	}
	assert_int_equal(cubin_global_line("// g in a comment\nint gg;\nint g;\n", "g"), 3);
	assert_int_equal(cubin_global_line("int x;\n", "ns::nothing"), 0);
}

static int own(const char *src, const char *symbol, int *line)
{
	struct cubin_global g = { 0 };
	int r;

	g.symbol = (char *)symbol;
	g.name = cubin_demangle(symbol);
	r = cubin_global_is_own(src, &g, line);
	free(g.name);
	return r;
}

static void test_own(void **state)
{
	static const char src[] =
		"__device__ const float *last_x;\n"          /* a writable pointer to const */
		"__device__ float *const fixed = 0;\n"
		"struct cfg { static constexpr int TILE = 64; };\n"
		"__device__ const int table[2] = { 1, 2 };\n"
		"__device__ int counter;\n";
	int line = -1;

	(void)state;
	assert_true(own(src, "last_x", &line));
	assert_int_equal(line, 1);
	assert_false(own(src, "fixed", &line));
	assert_false(own(src, "_ZN3cfg4TILEE", &line));
	assert_false(own(src, "table", &line));
	assert_true(own(src, "counter", &line));
	assert_int_equal(line, 5);
	/* toolkit headers' data, however mangled */
	assert_false(own(src, "__cudart_i2opi_f", &line));
	assert_false(own(src, "_ZN4cuda3std3__49is_same_vI6__halfS3_EE", &line));
	assert_false(own(src, "_INTERNAL_00000000_12_reference_cu_2564dce2::cooperative_groups::x", &line));
	/* a name the source never spells (token pasting): still reported, without a line */
	assert_true(own(src, "pasted1", &line));
	assert_int_equal(line, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_globals),
		cmocka_unit_test(test_no_globals),
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_own),
	};

	srand(7);
	return cmocka_run_group_tests(tests, setup, teardown);
}
