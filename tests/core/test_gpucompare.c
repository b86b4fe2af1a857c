/*
 * Tests for core/gpucompare.c: the comparison kernel compiles (NVRTC, no GPU needed) without a
 * diagnostic; the host emulation of its block decomposition gives compare_buffers' result
 * (every dtype, NaN/inf mixes, partial tiles, sizes off the block, empty, one element, folded
 * dims); bad arguments are refused; and, where a CUDA device is present, the kernel gives the
 * emulation's result bit for bit and compare_buffers' to the rounding of the metric sums.
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

#include "core/compare.h"
#include "core/dtype.h"
#include "core/gpu.h"
#include "core/gpucompare.h"
#include "core/nvrtc.h"

static void compile(int arch, struct nvrtc_output *out)
{
	if (nvrtc_compile(gpucompare_source(), "kbx_gpucompare.cu", arch, NULL, NULL, out))
		fail_msg("nvrtc_compile: %s", kbx_last_error());
	if (!out->ok)
		fail_msg("the comparison kernel does not compile for sm_%d:\n%s", arch, out->log ? out->log : "");
	for (int i = 0; i < out->ndiags; i++)
		fail_msg("sm_%d: %s line %d: %s", arch, out->diags[i].severity, out->diags[i].line, out->diags[i].message);
}

/* The comparison module on g, compiled for its architecture as the engine compiles it. */
static struct gpucompare *open_on(struct gpu *g)
{
	const struct gpu_info *info = gpu_get_info(g);
	struct nvrtc_output out;
	struct gpucompare *gc = NULL;

	memset(&out, 0, sizeof(out));
	compile(info->cc_major * 10 + info->cc_minor, &out);
	if (gpucompare_open(g, out.cubin, &gc))
		fail_msg("gpucompare_open: %s", kbx_last_error());
	nvrtc_output_free(&out);
	return gc;
}

static void test_compiles(void **state)
{
	struct nvrtc_output out;

	(void)state;
	if (!nvrtc_built())
		skip();
	compile(90, &out);
	assert_true(out.cubin_size > 0);
	nvrtc_output_free(&out);
}

/* ---- buffers ------------------------------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static double urand(void)
{
	return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * A reference value and a candidate near it: mostly within tolerance, some exact, some far off,
 * some NaN/inf on either side (mix selects how many), some equal scores (duplicated pairs).
 */
static void pair(int mix, double *c, double *r)
{
	double u = urand(), v = (urand() - 0.5) * 8;

	*r = v;
	if (u < 0.2)
		*c = v;
	else if (u < 0.8)
		*c = v + (urand() - 0.5) * 1e-5;
	else if (u < 0.95)
		*c = v * (1 + (urand() - 0.5) * 0.1);
	else
		*c = v + 3;
	if (mix && urand() < 0.02 * mix) {
		static const double special[] = { NAN, INFINITY, -INFINITY, 0.0, 1.0 };
		double sc = special[rnd() % 5], sr = special[rnd() % 5];

		switch (rnd() % 3) {
		case 0: *c = sc; break;
		case 1: *r = sr; break;
		default: *c = sc; *r = sr; break;
		}
	}
}

static void fill(enum dtype dt, void *cand, void *ref, size_t n, int mix, int dup)
{
	int comps = dtype_components(dt);

	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < comps; k++) {
			double c, r;

			if (dup && i >= 7 && rnd() % 4 == 0) {
				/* the same pair as element i - 7: equal keys, index order decides */
				c = dtype_get(dt, cand, i - 7, k);
				r = dtype_get(dt, ref, i - 7, k);
			} else {
				pair(mix, &c, &r);
			}
			if (!dtype_is_float(dt)) {
				if (!isfinite(c))
					c = 0;
				if (!isfinite(r))
					r = 0;
				c = floor(c * 16);
				r = floor(r * 16);
				if (dt == DT_BOOL || dt == DT_U8) {
					c = fabs(c);
					r = fabs(r);
				}
				if (dt == DT_BOOL && rnd() % 3) {
					c = r = (double)(rnd() % 2);
					if (rnd() % 50 == 0)
						c = 0xA5;       /* a byte the kernel never wrote */
				}
			}
			dtype_set(dt, cand, i, k, c);
			dtype_set(dt, ref, i, k, r);
		}
	}
}

/* ---- comparing two results ------------------------------------------------------------------ */

/* exact: 1 for every figure bit for bit, 0 for the metric sums within 1e-12 relative */
static void same_result(const struct cmp_result *a, const struct cmp_result *b, int exact, const char *ctx)
{
	char why[512];

	if (compare_results_differ(a, b, exact ? 0 : 1e-12, 0, why, sizeof(why)))
		fail_msg("%s: %s", ctx, why);
}

/* ---- the emulation against compare_buffers ---------------------------------------------------- */

static const enum dtype all_dtypes[] = { DT_F32, DT_F64, DT_F16, DT_BF16, DT_C64, DT_I8, DT_U8, DT_I16, DT_I32, DT_I64,
					 DT_BOOL };

struct shape_case {
	int ndim;
	long long dims[10];
};

static const struct shape_case shapes[] = {
	{ 0, { 0 } },                   /* 0-d: one element */
	{ 1, { 1 } },
	{ 1, { 0 } },                   /* empty */
	{ 2, { 3, 0 } },
	{ 1, { 255 } },
	{ 1, { 4097 } },                /* one element past 16 per thread */
	{ 1, { 100003 } },
	{ 2, { 33, 33 } },              /* partial tiles both ways */
	{ 2, { 1, 5000 } },
	{ 2, { 5000, 1 } },             /* a wrap on every step */
	{ 2, { 70, 1000 } },
	{ 3, { 3, 65, 31 } },           /* a leading dim: max over the planes */
	{ 4, { 2, 3, 97, 129 } },
	{ 10, { 2, 1, 2, 1, 2, 3, 5, 7, 11, 13 } },     /* folded past CMP_MAX_DIMS */
	{ 2, { 1031, 1031 } },          /* more than one chunk on the host, many blocks */
};

static size_t numel(const struct shape_case *s)
{
	size_t n = 1;

	for (int i = 0; i < s->ndim; i++)
		n *= (size_t)s->dims[i];
	return n;
}

static void test_emulation_matches_host(void **state)
{
	struct tolerance metric;
	int count = 0;

	(void)state;
	memset(&metric, 0, sizeof(metric));
	metric.rtol = metric.atol = -1;
	metric.metric = 1;
	metric.cosine_sim = 0.99;
	metric.l1_relative = 0.05;
	metric.rmse = -1;
	rng_state = 0x9e3779b97f4a7c15ULL;
	for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
		for (size_t di = 0; di < sizeof(all_dtypes) / sizeof(all_dtypes[0]); di++) {
			for (int mix = 0; mix < 3; mix++) {
				enum dtype dt = all_dtypes[di];
				size_t n = numel(&shapes[si]), bytes = (n ? n : 1) * dtype_size(dt);
				void *c = malloc(bytes), *r = malloc(bytes);
				struct cmp_result *host = malloc(sizeof(*host)), *emu = malloc(sizeof(*emu));
				char ctx[128];

				assert_non_null(c);
				assert_non_null(r);
				assert_non_null(host);
				assert_non_null(emu);
				fill(dt, c, r, n, mix, mix == 2);
				snprintf(ctx, sizeof(ctx), "%s shape %zu mix %d", dtype_name(dt), si, mix);
				compare_buffers(dt, c, r, shapes[si].dims, shapes[si].ndim, mix == 1 ? &metric : NULL, host);
				assert_int_equal(gpucompare_emulate(dt, c, r, shapes[si].dims, shapes[si].ndim,
								    mix == 1 ? &metric : NULL, emu), KBX_OK);
				same_result(host, emu, 0, ctx);
				/* the mixes must reach what they are for */
				if (mix && n > 1000 && dtype_is_float(dt))
					assert_true(host->nan_mismatches + host->inf_mismatches > 0);
				if (n > 1000 && dt != DT_BOOL && host->nworst != CMP_WORST)
					fail_msg("%s: %d worst elements, want a full list", ctx, host->nworst);
				free(c);
				free(r);
				free(host);
				free(emu);
				count++;
			}
		}
	}
	print_message("emulation and compare_buffers agree on %d buffers\n", count);
}

/* Every element the same error: the worst list is decided by index alone, on both paths. */
static void test_equal_scores(void **state)
{
	const size_t n = 300000;
	float *c = malloc(n * sizeof(float)), *r = malloc(n * sizeof(float));
	struct cmp_result *host = malloc(sizeof(*host)), *emu = malloc(sizeof(*emu));
	long long shape[1] = { (long long)n };

	(void)state;
	assert_non_null(c);
	assert_non_null(r);
	assert_non_null(host);
	assert_non_null(emu);
	for (size_t i = 0; i < n; i++) {
		r[i] = 1.0f;
		c[i] = i % 1000 == 999 ? NAN : 1.5f;
	}
	compare_buffers(DT_F32, c, r, shape, 1, NULL, host);
	assert_int_equal(gpucompare_emulate(DT_F32, c, r, shape, 1, NULL, emu), KBX_OK);
	same_result(host, emu, 0, "equal scores");
	/* the NaN mismatches first, in index order, then the rest */
	assert_int_equal(host->nworst, CMP_WORST);
	for (int i = 0; i < CMP_WORST; i++)
		assert_int_equal(host->worst[i].coord[0], 999 + 1000 * i);
	free(c);
	free(r);
	free(host);
	free(emu);
}

static void test_refuses_bad_arguments(void **state)
{
	float c[4] = { 0 }, r[4] = { 0 };
	long long shape[2] = { 2, 2 }, neg[2] = { 2, -2 }, huge[3] = { 1LL << 40, 1LL << 40, 1LL << 40 };
	struct cmp_result out;

	(void)state;
	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(gpucompare_emulate(DT_COUNT, c, r, shape, 2, NULL, &out), KBX_EINVAL);
	assert_int_equal(out.n, 0);
	assert_non_null(strstr(kbx_last_error(), "dtype"));
	assert_int_equal(gpucompare_emulate((enum dtype)-3, c, r, shape, 2, NULL, &out), KBX_EINVAL);
	assert_int_equal(gpucompare_emulate(DT_F32, c, r, shape, -1, NULL, &out), KBX_EINVAL);
	assert_int_equal(gpucompare_emulate(DT_F32, c, r, shape, GPUCOMPARE_MAX_NDIM + 1, NULL, &out), KBX_EINVAL);
	assert_int_equal(gpucompare_emulate(DT_F32, c, r, NULL, 2, NULL, &out), KBX_EINVAL);
	assert_int_equal(gpucompare_emulate(DT_F32, c, r, neg, 2, NULL, &out), KBX_EINVAL);
	assert_non_null(strstr(kbx_last_error(), "-2"));
	assert_int_equal(gpucompare_emulate(DT_F32, c, r, huge, 3, NULL, &out), KBX_EINVAL);
	assert_non_null(strstr(kbx_last_error(), "overflow"));
	assert_int_equal(gpucompare_emulate(DT_F32, NULL, r, shape, 2, NULL, &out), KBX_EINVAL);
	assert_int_equal(gpucompare_emulate(DT_F32, c, NULL, shape, 2, NULL, &out), KBX_EINVAL);
	/* no elements: no buffers needed */
	shape[1] = 0;
	assert_int_equal(gpucompare_emulate(DT_F32, NULL, NULL, shape, 2, NULL, &out), KBX_OK);
	assert_int_equal(out.n, 0);
	assert_int_equal(gpucompare_emulate(DT_F32, c, r, NULL, 0, NULL, &out), KBX_OK);
	assert_int_equal(out.n, 1);
	assert_int_equal(gpucompare_buffers(NULL, DT_F32, 1, 1, shape, 2, NULL, &out), KBX_EINVAL);
}

/* ---- on a GPU ------------------------------------------------------------------------------ */

static void test_gpu_matches_host(void **state)
{
	struct gpucompare *gc = NULL;
	struct gpu *g = NULL;
	struct tolerance metric;
	int count = 0;

	(void)state;
	if (!nvrtc_built() || gpu_open(0, &g) != KBX_OK)
		skip();
	gc = open_on(g);
	memset(&metric, 0, sizeof(metric));
	metric.rtol = metric.atol = -1;
	metric.metric = 1;
	metric.cosine_sim = 0.99;
	metric.l1_relative = 0.05;
	metric.rmse = -1;
	rng_state = 0x123456789abcdefULL;
	for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
		for (size_t di = 0; di < sizeof(all_dtypes) / sizeof(all_dtypes[0]); di++) {
			for (int mix = 0; mix < 3; mix++) {
				enum dtype dt = all_dtypes[di];
				size_t n = numel(&shapes[si]), bytes = (n ? n : 1) * dtype_size(dt);
				void *c = malloc(bytes), *r = malloc(bytes);
				struct cmp_result *host = malloc(sizeof(*host)), *emu = malloc(sizeof(*emu)),
						  *dev = malloc(sizeof(*dev));
				const struct tolerance *tol = mix == 1 ? &metric : NULL;
				gpu_ptr dc, dr;
				char ctx[128];

				assert_non_null(c);
				assert_non_null(r);
				assert_non_null(host);
				assert_non_null(emu);
				assert_non_null(dev);
				fill(dt, c, r, n, mix, mix == 2);
				assert_int_equal(gpu_alloc(g, bytes, &dc), KBX_OK);
				assert_int_equal(gpu_alloc(g, bytes, &dr), KBX_OK);
				assert_int_equal(gpu_upload(g, dc, c, bytes), KBX_OK);
				assert_int_equal(gpu_upload(g, dr, r, bytes), KBX_OK);
				snprintf(ctx, sizeof(ctx), "GPU %s shape %zu mix %d", dtype_name(dt), si, mix);
				if (gpucompare_buffers(gc, dt, dc, dr, shapes[si].dims, shapes[si].ndim, tol, dev))
					fail_msg("%s: %s", ctx, kbx_last_error());
				compare_buffers(dt, c, r, shapes[si].dims, shapes[si].ndim, tol, host);
				assert_int_equal(gpucompare_emulate(dt, c, r, shapes[si].dims, shapes[si].ndim, tol, emu),
						 KBX_OK);
				same_result(emu, dev, 1, ctx);
				same_result(host, dev, 0, ctx);
				gpu_free(g, dc);
				gpu_free(g, dr);
				free(c);
				free(r);
				free(host);
				free(emu);
				free(dev);
				count++;
			}
		}
	}
	print_message("GPU, emulation and compare_buffers agree on %d buffers\n", count);
	gpucompare_close(gc);
	gpu_close(g);
}

/* ---- where the engine compares (--compare gpu) ------------------------------------------- */

static void test_route(void **state)
{
	static struct task t;
	char quant_stub[8], key[] = "property", value[8] = "qr";
	struct binding kind = { key, value, 1 };

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(gpucompare_route(&t, 0, 1, 0), GPUCOMPARE_HOST_OPTION);
	assert_int_equal(gpucompare_route(&t, 1, 0, 0), GPUCOMPARE_HOST_CASE);
	assert_int_equal(gpucompare_route(&t, 1, 1, 0), GPUCOMPARE_ON_GPU);
	assert_int_equal(gpucompare_route(&t, 1, 1, 1), GPUCOMPARE_HOST_NO_KERNEL);
	t.verifier = "elementwise";
	assert_int_equal(gpucompare_route(&t, 1, 1, 0), GPUCOMPARE_ON_GPU);
	t.verifier = "property";
	assert_int_equal(gpucompare_route(&t, 1, 1, 0), GPUCOMPARE_HOST_VERIFIER);
	/* the qr property's figures and eig's independence are computed on the GPU (gpuprop.h); svd
	 * stays on the host */
	t.verifier_params = &kind;
	t.nverifier_params = 1;
	assert_int_equal(gpucompare_route(&t, 1, 1, 0), GPUCOMPARE_ON_GPU);
	assert_int_equal(gpucompare_route(&t, 1, 0, 0), GPUCOMPARE_HOST_CASE);
	assert_int_equal(gpucompare_route(&t, 1, 1, 1), GPUCOMPARE_HOST_NO_KERNEL);
	memcpy(value, "eig", 4);
	assert_int_equal(gpucompare_route(&t, 1, 1, 0), GPUCOMPARE_ON_GPU);
	memcpy(value, "svd", 4);
	assert_int_equal(gpucompare_route(&t, 1, 1, 0), GPUCOMPARE_HOST_VERIFIER);
	t.verifier_params = NULL;
	t.nverifier_params = 0;
	t.verifier = "distribution";
	assert_int_equal(gpucompare_route(&t, 1, 1, 0), GPUCOMPARE_ON_GPU);
	assert_int_equal(gpucompare_route(&t, 1, 0, 0), GPUCOMPARE_HOST_CASE);
	assert_int_equal(gpucompare_route(&t, 0, 1, 0), GPUCOMPARE_HOST_OPTION);
	t.verifier = NULL;
	/* a [quant] lens or an exact result: on the GPU (a failing output is judged on the host) */
	t.quant = (struct quant_spec *)quant_stub;
	assert_int_equal(gpucompare_route(&t, COMPARE_GPU, 1, 0), GPUCOMPARE_ON_GPU);
	assert_int_equal(gpucompare_route(&t, COMPARE_BOTH, 1, 0), GPUCOMPARE_ON_GPU);
	t.quant = NULL;
	t.exact_buf = "exact";
	assert_int_equal(gpucompare_route(&t, COMPARE_GPU, 1, 0), GPUCOMPARE_ON_GPU);
	assert_int_equal(gpucompare_route(&t, COMPARE_BOTH, 1, 0), GPUCOMPARE_HOST_EXACT);
	assert_int_equal(gpucompare_route(&t, COMPARE_GPU, 0, 0), GPUCOMPARE_HOST_CASE);
	for (int h = GPUCOMPARE_ON_GPU; h <= GPUCOMPARE_HOST_NO_KERNEL; h++)
		assert_string_not_equal(gpucompare_route_why((enum gpucompare_route)h), "?");
}

/* The digest sees every byte (the tail's too), where it is, the salt and the size. */
static void test_digest_host(void **state)
{
	unsigned char buf[61], zeros[16];
	uint64_t base;

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 37 + 1);
	memset(zeros, 0, sizeof(zeros));
	base = gpucompare_digest_host(buf, sizeof(buf), 3);
	assert_true(base == gpucompare_digest_host(buf, sizeof(buf), 3));
	assert_true(base != gpucompare_digest_host(buf, sizeof(buf), 4));
	for (size_t i = 0; i < sizeof(buf); i++) {
		buf[i] ^= 0x10;
		assert_true(base != gpucompare_digest_host(buf, sizeof(buf), 3));
		buf[i] ^= 0x10;
	}
	/* two words swapped */
	memcpy(zeros, buf, 16);
	memcpy(buf, zeros + 8, 8);
	memcpy(buf + 8, zeros, 8);
	assert_true(base != gpucompare_digest_host(buf, sizeof(buf), 3));
	memset(zeros, 0, sizeof(zeros));
	assert_true(gpucompare_digest_host(zeros, 8, 0) != gpucompare_digest_host(zeros, 16, 0));
	assert_true(gpucompare_digest_host(zeros, 0, 0) != gpucompare_digest_host(zeros, 1, 0));
	assert_true(gpucompare_digest_host(NULL, 0, 5) == gpucompare_digest_host(zeros, 0, 5));
}

/* The device's digest is the host's, aligned or not, whatever the size. */
static void test_gpu_digest(void **state)
{
	static const size_t sizes[] = { 0, 1, 7, 8, 9, 4096, 4099, 1000003, 3 << 20 };
	struct gpucompare *gc = NULL;
	struct gpu *g = NULL;
	size_t max = 3 << 20;
	unsigned char *h;
	gpu_ptr d;

	(void)state;
	if (!nvrtc_built() || gpu_open(0, &g) != KBX_OK)
		skip();
	gc = open_on(g);
	h = malloc(max + 8);
	assert_non_null(h);
	for (size_t i = 0; i < max + 8; i++)
		h[i] = (unsigned char)(i * 2654435761u >> 13);
	assert_int_equal(gpu_alloc(g, max + 8, &d), KBX_OK);
	assert_int_equal(gpu_upload(g, d, h, max + 8), KBX_OK);
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		for (size_t off = 0; off < 2; off++) {
			uint64_t dev = 0, host = gpucompare_digest_host(h + off, sizes[si], si);

			if (gpucompare_digest(gc, d + off, sizes[si], si, &dev))
				fail_msg("gpucompare_digest: %s", kbx_last_error());
			if (dev != host)
				fail_msg("size %zu offset %zu: device %llx, host %llx", sizes[si], off,
					 (unsigned long long)dev, (unsigned long long)host);
		}
	}
	gpu_free(g, d);
	free(h);
	gpucompare_close(gc);
	gpu_close(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compiles),
		cmocka_unit_test(test_emulation_matches_host),
		cmocka_unit_test(test_equal_scores),
		cmocka_unit_test(test_refuses_bad_arguments),
		cmocka_unit_test(test_gpu_matches_host),
		cmocka_unit_test(test_route),
		cmocka_unit_test(test_digest_host),
		cmocka_unit_test(test_gpu_digest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
