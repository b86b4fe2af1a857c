/*
 * Tests for core/devgen.c: the GPU input generator compiles (NVRTC, no GPU needed) without a
 * warning, covers the generators it says it does, and, where a CUDA device is present, draws
 * what the host draws (inputs.c gen_fill; randn and outlier in f64 to within 4 ulp, the last bits
 * of log and cos; the matrix generators spd, diagdom and symmetric on batched shapes) and finds a
 * modified element.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/devgen.h"
#include "core/gpu.h"
#include "core/nvrtc.h"

#ifndef KBX_SRCDIR
#define KBX_SRCDIR "."
#endif

static char kbx_include[4096];

static int setup(void **state)
{
	const char *s = getenv("KBX_SRCDIR");

	(void)state;
	snprintf(kbx_include, sizeof(kbx_include), "%s/tasks/include", s && *s ? s : KBX_SRCDIR);
	return 0;
}

static int compile(int arch, struct nvrtc_output *out)
{
	if (nvrtc_compile(devgen_source(), "kbx_devgen.cu", arch, NULL, kbx_include, out))
		fail_msg("nvrtc_compile: %s", kbx_last_error());
	if (!out->ok)
		fail_msg("the generator does not compile for sm_%d:\n%s", arch, out->log ? out->log : "");
	for (int i = 0; i < out->ndiags; i++)
		fail_msg("sm_%d: %s line %d: %s", arch, out->diags[i].severity, out->diags[i].line, out->diags[i].message);
	return 0;
}

/* The generator compiled for device 0 and loaded there; 0 when there is no GPU (or no NVRTC). */
static int open_generator(struct gpu **g, struct devgen **d)
{
	struct nvrtc_output out;

	if (!nvrtc_built() || gpu_open(0, g) != KBX_OK)
		return 0;
	compile(gpu_get_info(*g)->cc_major * 10 + gpu_get_info(*g)->cc_minor, &out);
	if (devgen_open(*g, out.cubin, d))
		fail_msg("devgen_open: %s", kbx_last_error());
	nvrtc_output_free(&out);
	return 1;
}

/* devgen_check finds buf (n elements, a copy of them in host) as drawn, then, with byte `at`
 * changed, finds it changed. */
static void check_finds_change(struct gpu *g, struct devgen *d, const struct gen_spec *spec, enum dtype dt,
			       gpu_ptr buf, unsigned char *host, size_t n, const long long *shape, int ndim, uint64_t key,
			       size_t at)
{
	int differs = -1;

	assert_int_equal(devgen_check(d, spec, dt, buf, n, shape, ndim, key, &differs), KBX_OK);
	assert_int_equal(differs, 0);
	host[at] ^= 0x5A;
	assert_int_equal(gpu_upload(g, buf, host, n * dtype_size(dt)), KBX_OK);
	assert_int_equal(devgen_check(d, spec, dt, buf, n, shape, ndim, key, &differs), KBX_OK);
	assert_int_equal(differs, 1);
}

static void test_compiles(void **state)
{
	struct nvrtc_output out;

	(void)state;
	if (!nvrtc_built())
		skip();
	compile(90, &out);
	nvrtc_output_free(&out);
	compile(80, &out);
	nvrtc_output_free(&out);
}

static void test_supports(void **state)
{
	static const char *const yes[] = { "randn", "randn * 3", "uniform(0, 1)", "outlier(0.001, 10)", "randint(0, 7)",
					   "bool(0.5)", "zeros", "ones", "full(2.5)", "arange(1, 0.5)" };
	static const char *const no[] = { "values(1, 2, 3)", "special" };
	static const char *const matrices[] = { "spd", "spd(0.5)", "diagdom(2)", "symmetric", "symmetric(-1, 1)" };
	struct gen_spec g;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (gen_parse(yes[i], &g))
			fail_msg("%s: %s", yes[i], kbx_last_error());
		assert_true(devgen_supports(&g, DT_F32));
		assert_true(devgen_supports(&g, DT_BF16));
		gen_spec_free(&g);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		if (gen_parse(no[i], &g))
			fail_msg("%s: %s", no[i], kbx_last_error());
		assert_false(devgen_supports(&g, DT_F32));
		gen_spec_free(&g);
	}
	/* the matrix generators: real floats, as gen_check allows */
	for (i = 0; i < sizeof(matrices) / sizeof(matrices[0]); i++) {
		if (gen_parse(matrices[i], &g))
			fail_msg("%s: %s", matrices[i], kbx_last_error());
		assert_true(devgen_supports(&g, DT_F32));
		assert_true(devgen_supports(&g, DT_F64));
		assert_true(devgen_supports(&g, DT_BF16));
		assert_false(devgen_supports(&g, DT_C64));
		assert_false(devgen_supports(&g, DT_I32));
		gen_spec_free(&g);
	}
}

/* On a GPU: every supported generator x dtype, device against host, bit for bit (randn and
 * outlier rounded to f32 or narrower may differ in the last bit of a rare element: at most 1 in
 * 2^20 here; in f64, within 4 ulp), and devgen_check sees one changed element. */
static void test_device_matches_host(void **state)
{
	static const char *const gens[] = { "randn", "randn * -0.01", "uniform(-2, 3)", "uniform(0, 1)", "outlier(0.01, 10)",
					    "randint(-5, 9)", "bool(0.3)", "zeros", "ones", "full(-1.25)", "arange(-3, 0.25)" };
	static const enum dtype dts[] = { DT_F32, DT_F64, DT_F16, DT_BF16, DT_C64, DT_I8, DT_U8, DT_I16, DT_I32, DT_I64,
					  DT_BOOL };
	const size_t n = (1 << 20) + 3;
	struct gpu *g = NULL;
	struct devgen *d = NULL;
	int count = 0;

	(void)state;
	if (!open_generator(&g, &d))
		skip();
	for (size_t gi = 0; gi < sizeof(gens) / sizeof(gens[0]); gi++) {
		for (size_t di = 0; di < sizeof(dts) / sizeof(dts[0]); di++) {
			struct gen_spec spec;
			size_t bytes = n * dtype_size(dts[di]), es = dtype_size(dts[di]) / (size_t)dtype_components(dts[di]);
			unsigned char *host = malloc(bytes), *dev = malloc(bytes);
			uint64_t key = 0x1234567890abcdefULL + gi * 131 + di;
			size_t diff = 0, i;
			gpu_ptr buf;

			assert_non_null(host);
			assert_non_null(dev);
			assert_int_equal(gen_parse(gens[gi], &spec), KBX_OK);
			if (gen_check(&spec, dts[di], NULL, 0) != KBX_OK) {
				gen_spec_free(&spec);
				free(host);
				free(dev);
				continue;
			}
			assert_int_equal(gen_fill(&spec, dts[di], host, n, NULL, 0, key), KBX_OK);
			assert_int_equal(gpu_alloc(g, bytes, &buf), KBX_OK);
			assert_int_equal(devgen_fill(d, &spec, dts[di], buf, n, NULL, 0, key), KBX_OK);
			assert_int_equal(gpu_download(g, dev, buf, bytes), KBX_OK);
			for (i = 0; i < bytes / es; i++) {
				if (!memcmp(host + i * es, dev + i * es, es))
					continue;
				diff++;
				/* f64 keeps the last bit of log and cos, where CUDA's and the C library's
				 * differ by an ulp for many arguments: at most 4 ulp apart */
				if (dts[di] == DT_F64 && dtype_ulp_distance(DT_F64, dtype_get(DT_F64, host, i, 0),
									      dtype_get(DT_F64, dev, i, 0)) > 4)
					fail_msg("%s as f64: element %zu is %.17g on the host, %.17g on the device", gens[gi], i,
						 dtype_get(DT_F64, host, i, 0), dtype_get(DT_F64, dev, i, 0));
			}
			if (dts[di] == DT_F64 && (spec.kind == GEN_RANDN || spec.kind == GEN_OUTLIER)) {
				print_message("%s as f64: %zu of %zu elements differ by 1 to 4 ulp\n", gens[gi], diff,
					      bytes / es);
			} else if (spec.kind == GEN_RANDN || spec.kind == GEN_OUTLIER) {
				if (diff > bytes / es / (1 << 20) + 1)
					fail_msg("%s as %s: %zu of %zu elements differ from the host's", gens[gi],
						 dtype_name(dts[di]), diff, bytes / es);
			} else if (diff) {
				fail_msg("%s as %s: %zu of %zu elements differ from the host's", gens[gi], dtype_name(dts[di]),
					 diff, bytes / es);
			}
			/* one element changed, near the end */
			check_finds_change(g, d, &spec, dts[di], buf, dev, n, NULL, 0, key, bytes - es);
			gpu_free(g, buf);
			gen_spec_free(&spec);
			free(host);
			free(dev);
			count++;
		}
	}
	print_message("device and host generators agree on %d generator x dtype pairs\n", count);
	devgen_close(d);
	gpu_close(g);
}

/* On a GPU: the matrix generators against the host's, on shapes with several matrices, sizes that
 * are not a multiple of the tile and (spd) more matrices than one chunk of the scratch holds.
 * symmetric gives the host's bits; diagdom and spd go through randn, whose f64 last bits may
 * differ (test_device_matches_host): in f64 within a relative 1e-12, rounded to a narrower dtype
 * at most 1 ulp apart in a rare element. The device's spd and symmetric are exactly symmetric,
 * and devgen_check finds one changed element. */
static void test_device_matrices(void **state)
{
	static const char *const gens[] = { "spd(0.5)", "diagdom(1)", "symmetric(-2, 3)" };
	static const enum dtype dts[] = { DT_F32, DT_F64, DT_F16, DT_BF16 };
	static const long long shapes[][3] = { { 3, 70, 70 }, { 1, 200, 200 }, { 70000, 8, 8 } };
	struct gpu *g = NULL;
	struct devgen *d = NULL;
	int count = 0;

	(void)state;
	if (!open_generator(&g, &d))
		skip();
	for (size_t gi = 0; gi < sizeof(gens) / sizeof(gens[0]); gi++)
		for (size_t di = 0; di < sizeof(dts) / sizeof(dts[0]); di++)
			for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
				const long long *shape = shapes[si];
				size_t m = (size_t)shape[2], n = (size_t)shape[0] * m * m, es = dtype_size(dts[di]);
				size_t bytes = n * es, diff = 0, i;
				unsigned char *host, *dev;
				uint64_t key = 0xfeedface12345678ULL + gi * 977 + di * 31 + si;
				struct gen_spec spec;
				gpu_ptr buf;

				/* the many small matrices: spd in f32 only (its chunks are what they test) */
				if (si == 2 && (gi != 0 || dts[di] != DT_F32))
					continue;
				host = malloc(bytes);
				dev = malloc(bytes);
				assert_non_null(host);
				assert_non_null(dev);
				assert_int_equal(gen_parse(gens[gi], &spec), KBX_OK);
				assert_int_equal(gen_fill(&spec, dts[di], host, n, shape, 3, key), KBX_OK);
				assert_int_equal(gpu_alloc(g, bytes, &buf), KBX_OK);
				if (devgen_fill(d, &spec, dts[di], buf, n, shape, 3, key))
					fail_msg("%s: %s", gens[gi], kbx_last_error());
				assert_int_equal(gpu_download(g, dev, buf, bytes), KBX_OK);
				for (i = 0; i < n; i++) {
					double h = dtype_get(dts[di], host, i, 0), v = dtype_get(dts[di], dev, i, 0);
					size_t in = i % (m * m), r = in / m, c = in % m;

					if (spec.kind != GEN_DIAGDOM &&
					    memcmp(dev + i * es, dev + (i - in + c * m + r) * es, es))
						fail_msg("%s as %s: element (%zu, %zu) of matrix %zu is not its mirror's",
							 gens[gi], dtype_name(dts[di]), r, c, i / (m * m));
					if (!memcmp(host + i * es, dev + i * es, es))
						continue;
					diff++;
					if (spec.kind == GEN_SYMMETRIC ||
					    (dts[di] == DT_F64 ? fabs(v - h) > 1e-12 * (1 + fabs(h))
							       : dtype_ulp_distance(dts[di], h, v) > 1))
						fail_msg("%s as %s, shape [%lld, %lld, %lld]: element %zu is %.17g on the host, "
							 "%.17g on the device", gens[gi], dtype_name(dts[di]), shape[0],
							 shape[1], shape[2], i, h, v);
				}
				if (dts[di] != DT_F64 && diff > n / (1 << 16) + 2)
					fail_msg("%s as %s: %zu of %zu elements differ from the host's", gens[gi],
						 dtype_name(dts[di]), diff, n);
				print_message("%s as %s [%lld, %lld, %lld]: %zu of %zu elements differ from the host's\n",
					      gens[gi], dtype_name(dts[di]), shape[0], shape[1], shape[2], diff, n);
				/* one element changed, in the last matrix */
				check_finds_change(g, d, &spec, dts[di], buf, dev, n, shape, 3, key, bytes - 3 * es);
				gpu_free(g, buf);
				gen_spec_free(&spec);
				free(host);
				free(dev);
				count++;
			}
	print_message("device and host matrix generators agree on %d cases\n", count);
	devgen_close(d);
	gpu_close(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compiles),
		cmocka_unit_test(test_supports),
		cmocka_unit_test(test_device_matches_host),
		cmocka_unit_test(test_device_matrices),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
