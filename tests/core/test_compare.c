/* Tests for core/compare.c: the element rules, the metrics, the worst list and the tile map. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/compare.h"

static const struct tolerance default_tol = { .rtol = -1, .atol = -1,
			   .metric = 0, .cosine_sim = -1, .l1_relative = -1, .rmse = -1, .atol_scale = 0 };

static struct cmp_result *cmp_f32(const float *c, const float *r, const long long *shape, int ndim,
				  const struct tolerance *tol)
{
	static struct cmp_result res;

	compare_buffers(DT_F32, c, r, shape, ndim, tol, &res);
	return &res;
}

static void test_tolerance_defaults(void **state)
{
	struct tolerance t = { .rtol = 1e-3, .atol = -1,
				   .metric = 0, .cosine_sim = -1, .l1_relative = -1, .rmse = -1, .atol_scale = 0 };
	double rtol, atol;

	(void)state;
	compare_tolerance(NULL, DT_F32, &rtol, &atol);
	assert_true(rtol == 1e-5 && atol == 1e-5);
	compare_tolerance(&default_tol, DT_F64, &rtol, &atol);
	assert_true(rtol == 1e-5 && atol == 1e-5);
	compare_tolerance(&default_tol, DT_C64, &rtol, &atol);
	assert_true(rtol == 1e-5 && atol == 1e-5);
	compare_tolerance(&default_tol, DT_F16, &rtol, &atol);
	assert_true(rtol == 5e-3 && atol == 5e-3);
	compare_tolerance(&default_tol, DT_BF16, &rtol, &atol);
	assert_true(rtol == 5e-3 && atol == 5e-3);
	/* a task value replaces the default, per key */
	compare_tolerance(&t, DT_F16, &rtol, &atol);
	assert_true(rtol == 1e-3 && atol == 5e-3);
	t.atol = 0;
	compare_tolerance(&t, DT_F32, &rtol, &atol);
	assert_true(rtol == 1e-3 && atol == 0);
	/* integers are exact whatever the task says */
	compare_tolerance(&t, DT_I32, &rtol, &atol);
	assert_true(rtol == 0 && atol == 0);
	compare_tolerance(&default_tol, DT_BOOL, &rtol, &atol);
	assert_true(rtol == 0 && atol == 0);
	/* a perf row's bound ([tolerance.perf]) is a floor: it loosens, never tightens, and leaves
	 * integers exact */
	t.atol = 1e-5;
	t.perf_atol = 3e-4;
	t.perf_rtol = 1e-4;
	compare_tolerance(&t, DT_F32, &rtol, &atol);
	assert_true(rtol == 1e-3 && atol == 3e-4);
	compare_tolerance(&t, DT_F16, &rtol, &atol);
	assert_true(rtol == 1e-3 && atol == 3e-4);
	t.perf_atol = 1e-6;
	compare_tolerance(&t, DT_F32, &rtol, &atol);
	assert_true(atol == 1e-5);
	compare_tolerance(&t, DT_I64, &rtol, &atol);
	assert_true(rtol == 0 && atol == 0);
}

static void test_f32_boundary(void **state)
{
	/* default tolerance: |c - r| <= 1e-5 + 1e-5 * |r| */
	float r[4] = { 0.0f, 0.0f, 1000.0f, 1000.0f };
	float c[4] = { 9e-6f, -9e-6f, 1000.0090f, 999.9910f };   /* tol at 1000 is ~1.001e-2 */
	long long shape[1] = { 4 };
	struct cmp_result *res;

	(void)state;
	res = cmp_f32(c, r, shape, 1, &default_tol);
	assert_int_equal(res->mismatches, 0);
	assert_true(res->pass);
	assert_int_equal(res->n, 4);
	assert_true(res->rtol == 1e-5 && res->atol == 1e-5);

	c[0] = 1.1e-5f;         /* just past atol */
	c[3] = 999.9895f;       /* |err| 1.05e-2 > 1.001e-2 */
	res = cmp_f32(c, r, shape, 1, &default_tol);
	assert_int_equal(res->mismatches, 2);
	assert_false(res->pass);
	assert_int_equal(res->nan_mismatches, 0);
	assert_int_equal(res->inf_mismatches, 0);
	assert_true(fabs(res->max_abs - (1000.0 - (double)999.9895f)) < 1e-9);
	/* rel error against a zero reference is infinite */
	assert_true(isinf(res->max_rel));
	/* worst first: element 0 scores 1.1e-5/1e-5 = 1.1, element 3 about 1.049 */
	assert_int_equal(res->nworst, 4);
	assert_int_equal(res->worst[0].coord[0], 0);
	assert_int_equal(res->worst[1].coord[0], 3);
	assert_true(res->worst[0].score > res->worst[1].score);
	assert_true(res->worst[1].score > 1 && res->worst[2].score <= 1);

	/* a task tolerance is applied as given */
	{
		struct tolerance t = { .rtol = 0, .atol = 2e-5,
					   .metric = 0, .cosine_sim = -1, .l1_relative = -1, .rmse = -1, .atol_scale = 0 };
		res = cmp_f32(c, r, shape, 1, &t);
		assert_int_equal(res->mismatches, 2);  /* 1000 +- 1e-2 now far outside */
		c[2] = 1000.0f, c[3] = 1000.0f;
		res = cmp_f32(c, r, shape, 1, &t);
		assert_int_equal(res->mismatches, 0);
		assert_true(res->atol == 2e-5 && res->rtol == 0);
	}
}

static void test_nan(void **state)
{
	float r[3] = { NAN, 1.0f, NAN };
	float c[3] = { NAN, 1.0f, -NAN };
	long long shape[1] = { 3 };
	struct cmp_result *res;

	(void)state;
	res = cmp_f32(c, r, shape, 1, &default_tol);
	assert_true(res->pass);
	assert_int_equal(res->mismatches, 0);
	assert_int_equal(res->nworst, 0);

	c[1] = NAN;             /* NaN where the reference has a number */
	c[2] = 5.0f;            /* a number where the reference has NaN */
	res = cmp_f32(c, r, shape, 1, &default_tol);
	assert_false(res->pass);
	assert_int_equal(res->mismatches, 2);
	assert_int_equal(res->nan_mismatches, 2);
	assert_int_equal(res->nworst, 2);
	assert_true(isinf(res->worst[0].score));
	assert_int_equal(res->worst[0].coord[0], 1);   /* ties keep index order */
	assert_int_equal(res->worst[1].coord[0], 2);
	assert_true(isnan(res->worst[0].cand));
	assert_true(res->worst[0].ref == 1.0);
	/* NaN pairs are left out of the maxima and the metrics */
	assert_true(res->max_abs == 0);
	assert_true(res->rmse == 0);
}

/* A softmax without the max shift: inf/inf = NaN in some rows, the rest exact. The figures over
 * the finite pairs are perfect, so the result must count the hidden ones and say so. */
static void test_nonfinite_counted_both_ways(void **state)
{
	float r[8] = { 0.25f, 0.25f, 0.5f, 0.0f, 1.0f, INFINITY, NAN, 2.0f };
	float c[8] = { 0.25f, 0.25f, 0.5f, 0.0f, 1.0f, INFINITY, NAN, 2.0f };
	long long shape[1] = { 8 };
	struct cmp_result *res;
	char note[256];

	(void)state;
	res = cmp_f32(c, r, shape, 1, &default_tol);
	assert_true(res->pass);
	compare_nonfinite_note(res, note, sizeof(note));
	assert_string_equal(note, "");  /* matching NaN and inf hide nothing */

	c[0] = INFINITY;        /* candidate inf, reference finite */
	c[3] = -INFINITY;
	c[4] = NAN;
	c[5] = 7.0f;            /* candidate finite, reference inf */
	res = cmp_f32(c, r, shape, 1, &default_tol);
	assert_false(res->pass);
	assert_int_equal(res->cand_nonfinite, 3);   /* c[0], c[3] and the NaN at c[4] */
	assert_int_equal(res->ref_nonfinite, 1);
	assert_int_equal(res->finite, 3);
	assert_true(res->max_abs == 0 && res->cosine == 1 && res->rmse == 0 && res->l1_relative == 0);
	compare_nonfinite_note(res, note, sizeof(note));
	assert_string_equal(note, "3 NaN/inf in the candidate where the reference is finite, 1 finite in the "
			    "candidate where the reference is NaN/inf; max abs and metrics over 3 of 8 finite pairs");
	/* a short buffer is cut, never overrun */
	compare_nonfinite_note(res, note, 10);
	assert_int_equal(strlen(note), 9);

	/* an inf against the other inf is neither way round, but the figures still leave it out */
	memcpy(c, r, sizeof(c));
	c[5] = -INFINITY;
	res = cmp_f32(c, r, shape, 1, &default_tol);
	assert_int_equal(res->cand_nonfinite, 0);
	assert_int_equal(res->ref_nonfinite, 0);
	compare_nonfinite_note(res, note, sizeof(note));
	assert_string_equal(note, "max abs and metrics over 6 of 8 finite pairs");
}

/* Chunks (several threads) count the same as one pass. */
static void test_nonfinite_counted_across_chunks(void **state)
{
	size_t n = 3 * ((size_t)1 << 20) + 7, i;
	long long shape[1] = { (long long)n };
	float *r = malloc(n * sizeof(*r)), *c = malloc(n * sizeof(*c));
	struct cmp_result *res;

	(void)state;
	assert_non_null(r);
	assert_non_null(c);
	for (i = 0; i < n; i++)
		r[i] = c[i] = (float)(i % 97);
	for (i = 0; i < n; i += 100003)
		c[i] = NAN;
	r[n - 1] = INFINITY;
	res = cmp_f32(c, r, shape, 1, &default_tol);
	assert_int_equal(res->cand_nonfinite, (n + 100002) / 100003);
	assert_int_equal(res->ref_nonfinite, 1);
	assert_int_equal(res->finite, n - res->cand_nonfinite - 1);
	free(r);
	free(c);
}

static void test_inf(void **state)
{
	float r[4] = { INFINITY, -INFINITY, INFINITY, 2.0f };
	float c[4] = { INFINITY, -INFINITY, INFINITY, 2.0f };
	long long shape[1] = { 4 };
	struct cmp_result *res;

	(void)state;
	res = cmp_f32(c, r, shape, 1, &default_tol);
	assert_true(res->pass);
	assert_int_equal(res->inf_mismatches, 0);

	c[0] = -INFINITY;       /* +inf vs -inf */
	c[2] = 3.4e38f;         /* finite vs inf */
	c[3] = INFINITY;        /* inf vs finite */
	res = cmp_f32(c, r, shape, 1, &default_tol);
	assert_false(res->pass);
	assert_int_equal(res->inf_mismatches, 3);
	assert_int_equal(res->nan_mismatches, 0);
	assert_int_equal(res->mismatches, 3);
	assert_true(isinf(res->worst[0].ulp));
	assert_true(isinf(res->worst[0].score));
	assert_int_equal(res->worst[0].coord[0], 0);
	assert_true(res->max_abs == 0);
}

static uint16_t f16_bits(float f)
{
	return f32_to_f16(f);
}

static void test_f16_bf16_default(void **state)
{
	/* f16 near 1 has a spacing of 2^-10; the default tolerance at 1 is 5e-3 + 5e-3 = 1e-2 */
	uint16_t r[2] = { f16_bits(1.0f), f16_bits(-2.0f) };
	uint16_t c[2] = { (uint16_t)(f16_bits(1.0f) + 10), f16_bits(-2.0f) };  /* 9.77e-3 */
	uint16_t br[1] = { 0x3F80 }, bc[1] = { 0x3F81 };                      /* 1 and 1 + 2^-7 */
	long long shape[1] = { 2 }, one[1] = { 1 };
	struct cmp_result res;

	(void)state;
	compare_buffers(DT_F16, c, r, shape, 1, &default_tol, &res);
	assert_true(res.pass);
	assert_true(res.rtol == 5e-3 && res.atol == 5e-3);
	assert_true(res.max_ulp == 10);
	c[0] = (uint16_t)(f16_bits(1.0f) + 11);  /* 1.07e-2 > 1e-2 */
	c[1] = f16_bits(-2.03f);
	compare_buffers(DT_F16, c, r, shape, 1, &default_tol, &res);
	assert_false(res.pass);
	assert_int_equal(res.mismatches, 2);
	assert_true(res.max_ulp == 15);         /* -2.03 is 15.4 steps of 2^-9 from -2 */
	/* scores: 2.93e-2 / 1.5e-2 for element 1, 1.07e-2 / 1e-2 for element 0 */
	assert_int_equal(res.worst[0].coord[0], 1);
	assert_true(res.worst[0].cand == (double)f16_to_f32(c[1]));
	assert_int_equal(res.worst[1].coord[0], 0);

	compare_buffers(DT_BF16, bc, br, one, 1, &default_tol, &res);
	assert_true(res.pass);                  /* 7.8e-3 <= 1e-2 */
	assert_true(res.max_ulp == 1);
	bc[0] = 0x3F82;                         /* 1.56e-2 */
	compare_buffers(DT_BF16, bc, br, one, 1, &default_tol, &res);
	assert_false(res.pass);
	assert_true(fabs(res.max_abs - 2.0 / 128) < 1e-12);
	assert_true(res.max_ulp == 2);
}

static void test_ints_exact(void **state)
{
	int32_t r[4] = { 1, 2, 3, -7 }, c[4] = { 1, 2, 4, -7 };
	int64_t r64[2] = { (1LL << 60), 5 }, c64v[2] = { (1LL << 60) + 1, 5 };
	uint8_t rb[3] = { 1, 0, 1 }, cb[3] = { 1, 0, 0xA5 };
	int8_t r8[2] = { -128, 127 }, c8[2] = { 127, 127 };
	struct tolerance loose = { .rtol = 1, .atol = 10,
				   .metric = 0, .cosine_sim = -1, .l1_relative = -1, .rmse = -1, .atol_scale = 0 };
	long long s4[1] = { 4 }, s2[1] = { 2 }, s3[1] = { 3 };
	struct cmp_result res;

	(void)state;
	compare_buffers(DT_I32, c, r, s4, 1, &loose, &res);
	assert_false(res.pass);
	assert_int_equal(res.mismatches, 1);
	assert_true(res.max_abs == 1);
	assert_true(fabs(res.max_rel - 1.0 / 3) < 1e-15);
	assert_true(isinf(res.worst[0].score));
	assert_int_equal(res.worst[0].coord[0], 2);
	assert_true(res.worst[0].cand == 4 && res.worst[0].ref == 3);
	assert_true(res.rtol == 0 && res.atol == 0);
	assert_true(res.max_ulp == 0);

	/* beyond 2^53 a double cannot tell these apart; the raw comparison can */
	compare_buffers(DT_I64, c64v, r64, s2, 1, &default_tol, &res);
	assert_int_equal(res.mismatches, 1);
	assert_false(res.pass);

	/* an unwritten bool byte (poison) is not "true" */
	compare_buffers(DT_BOOL, cb, rb, s3, 1, &default_tol, &res);
	assert_int_equal(res.mismatches, 1);
	assert_int_equal(res.worst[0].coord[0], 2);

	compare_buffers(DT_I8, c8, r8, s2, 1, &default_tol, &res);
	assert_int_equal(res.mismatches, 1);
	assert_true(res.max_abs == 255);
	compare_buffers(DT_I8, r8, r8, s2, 1, &default_tol, &res);
	assert_true(res.pass);
	assert_true(res.cosine > 0.999999);
	assert_int_equal(res.nworst, 0);
}

static void test_c64(void **state)
{
	float r[6] = { 1, 2, 3, 4, 5, 6 };
	float c[6] = { 1, 2, 3, 4.1f, NAN, 6 };
	long long shape[1] = { 3 };
	struct cmp_result res;

	(void)state;
	compare_buffers(DT_C64, c, r, shape, 1, &default_tol, &res);
	assert_int_equal(res.n, 6);
	assert_int_equal(res.mismatches, 2);
	assert_int_equal(res.nan_mismatches, 1);
	assert_int_equal(res.nworst, 2);
	/* the NaN first: element 2, real part */
	assert_int_equal(res.worst[0].coord[0], 2);
	assert_int_equal(res.worst[0].component, 0);
	assert_int_equal(res.worst[1].coord[0], 1);
	assert_int_equal(res.worst[1].component, 1);
	assert_true(fabs(res.max_abs - ((double)4.1f - 4)) < 1e-12);
	assert_true(res.max_ulp > 0);
	assert_int_equal(res.tile_rows, 1);
	assert_int_equal(res.tile_cols, 3);
	assert_true(isinf(res.tiles[2]));
	assert_true(res.tiles[1] > 1 && isfinite(res.tiles[1]));
	assert_true(res.tiles[0] == 0);
}

static void test_metrics_and_metric_mode(void **state)
{
	float r[2] = { 1, 0 }, c[2] = { 1, 1 };
	float z[2] = { 0, 0 };
	long long shape[1] = { 2 };
	struct tolerance t = { .rtol = -1, .atol = -1,
				   .metric = 1, .cosine_sim = 0.7, .l1_relative = -1, .rmse = -1, .atol_scale = 0 };
	struct cmp_result *res;

	(void)state;
	res = cmp_f32(c, r, shape, 1, &default_tol);
	assert_true(fabs(res->cosine - 1 / sqrt(2)) < 1e-15);
	assert_true(fabs(res->l1_relative - 1) < 1e-15);
	assert_true(fabs(res->rmse - sqrt(0.5)) < 1e-15);
	assert_false(res->pass);

	/* metric mode: the elementwise mismatch no longer decides */
	res = cmp_f32(c, r, shape, 1, &t);
	assert_int_equal(res->mismatches, 1);
	assert_true(res->pass);                 /* 0.707 >= 0.7 */
	t.cosine_sim = 0.71;
	res = cmp_f32(c, r, shape, 1, &t);
	assert_false(res->pass);
	t.cosine_sim = -1;
	t.l1_relative = 1.0;
	assert_true(cmp_f32(c, r, shape, 1, &t)->pass);
	t.l1_relative = 0.99;
	assert_false(cmp_f32(c, r, shape, 1, &t)->pass);
	t.l1_relative = -1;
	t.rmse = 0.71;
	assert_true(cmp_f32(c, r, shape, 1, &t)->pass);
	t.rmse = 0.70;
	assert_false(cmp_f32(c, r, shape, 1, &t)->pass);
	/* a scaled derived case moves the absolute rmse bound as it moves atol; cosine and
	 * l1_relative are scale-free and stay */
	t.atol_scale = 9;
	t.rmse = 0.71 / 9 + 1e-9;
	assert_true(cmp_f32(c, r, shape, 1, &t)->pass);
	t.rmse = 0.70 / 9;
	assert_false(cmp_f32(c, r, shape, 1, &t)->pass);
	t.atol_scale = 0;

	/* a NaN mismatch fails metric mode even when the metrics hold */
	{
		float r3[3] = { 1, 2, 3 }, c3[3] = { 1, 2, NAN };
		long long s3[1] = { 3 };
		struct tolerance m = { .rtol = -1, .atol = -1,
					   .metric = 1, .cosine_sim = 0.5, .l1_relative = -1, .rmse = -1, .atol_scale = 0 };

		res = cmp_f32(c3, r3, s3, 1, &m);
		assert_true(fabs(res->cosine - 1) < 1e-15);  /* over the finite pairs */
		assert_false(res->pass);
		c3[2] = 3;
		assert_true(cmp_f32(c3, r3, s3, 1, &m)->pass);
	}

	/* zero vectors */
	res = cmp_f32(z, z, shape, 1, &default_tol);
	assert_true(res->cosine == 1);
	assert_true(res->l1_relative == 0);
	assert_true(res->pass);
	res = cmp_f32(c, z, shape, 1, &default_tol);
	assert_true(res->cosine == 0);
	assert_true(isinf(res->l1_relative));
	res = cmp_f32(z, c, shape, 1, &default_tol);
	assert_true(res->cosine == 0);
	assert_true(res->l1_relative == 1);
}

static void test_worst_3d(void **state)
{
	enum { B = 2, M = 3, N = 4 };
	float r[B * M * N], c[B * M * N];
	long long shape[3] = { B, M, N };
	struct cmp_result *res;

	(void)state;
	for (int i = 0; i < B * M * N; i++)
		r[i] = c[i] = (float)i;
	c[1 * 12 + 2 * 4 + 3] += 1.0f;          /* [1,2,3] */
	c[0 * 12 + 1 * 4 + 0] += 0.5f;          /* [0,1,0] */
	c[1 * 12 + 0 * 4 + 2] += 2.0f;          /* [1,0,2] */
	c[0 * 12 + 2 * 4 + 1] = INFINITY;       /* [0,2,1] */
	res = cmp_f32(c, r, shape, 3, &default_tol);
	assert_int_equal(res->mismatches, 4);
	assert_int_equal(res->inf_mismatches, 1);
	assert_int_equal(res->nworst, 4);
	{
		long long want[4][3] = { { 0, 2, 1 }, { 1, 0, 2 }, { 0, 1, 0 }, { 1, 2, 3 } };
		for (int i = 0; i < 4; i++) {
			assert_int_equal(res->worst[i].ndim, 3);
			for (int d = 0; d < 3; d++)
				assert_int_equal(res->worst[i].coord[d], want[i][d]);
		}
	}
	assert_true(fabs(res->worst[1].abs_err - 2) < 1e-6);
	assert_true(res->worst[1].ref == 14 && res->worst[1].cand == 16);
	assert_true(fabs(res->worst[1].rel_err - 2.0 / 14) < 1e-6);
	assert_true(res->worst[2].score > res->worst[3].score);
	assert_true(res->max_abs == 2);
}

/* More wrong elements than the list holds: it keeps the CMP_WORST largest, in order. */
static void test_worst_truncated(void **state)
{
	enum { N = 1000 };
	static float r[N], c[N];
	long long shape[1] = { N };
	struct cmp_result *res;

	(void)state;
	for (int i = 0; i < N; i++) {
		r[i] = 1;
		/* errors rise then fall: the largest are in the middle, around 600 */
		c[i] = 1 + 1e-3f * (float)(i < 600 ? i : 1200 - i);
	}
	res = cmp_f32(c, r, shape, 1, &default_tol);
	assert_int_equal(res->nworst, CMP_WORST);
	assert_int_equal(res->worst[0].coord[0], 600);
	for (int i = 1; i < CMP_WORST; i++)
		assert_true(res->worst[i - 1].score >= res->worst[i].score);
	/* 600, then 599 and 601 (equal error, index order), 598, 602, ... */
	assert_int_equal(res->worst[1].coord[0], 599);
	assert_int_equal(res->worst[2].coord[0], 601);
	assert_true(res->worst[CMP_WORST - 1].abs_err > 0.59 - 1e-4);
}

static void test_tiles(void **state)
{
	enum { H = 64, W = 100 };
	static float r[H * W], c[H * W];
	long long shape[2] = { H, W };
	struct cmp_result *res;

	(void)state;
	for (int i = 0; i < H * W; i++)
		r[i] = c[i] = 0.25f;
	/* a kernel that gets the tail columns of every row wrong */
	for (int y = 0; y < H; y++)
		for (int x = 96; x < W; x++)
			c[y * W + x] = 0.5f;
	res = cmp_f32(c, r, shape, 2, &default_tol);
	assert_int_equal(res->mismatches, H * 4);
	assert_int_equal(res->tile_h, 2);
	assert_int_equal(res->tile_w, 4);
	assert_int_equal(res->tile_rows, 32);
	assert_int_equal(res->tile_cols, 25);
	for (int ty = 0; ty < res->tile_rows; ty++)
		for (int tx = 0; tx < res->tile_cols; tx++) {
			float v = res->tiles[ty * res->tile_cols + tx];
			if (tx == 24)
				assert_true(v > 1000);
			else
				assert_true(v == 0);
		}

	/* a 3-D output: the tile map is over the last two dims, max over the batch */
	{
		static float r3[3 * 5 * 70], c3[3 * 5 * 70];
		long long s3[3] = { 3, 5, 70 };

		for (int i = 0; i < 3 * 5 * 70; i++)
			r3[i] = c3[i] = 1;
		c3[2 * 350 + 4 * 70 + 69] = 1.5f;       /* [2,4,69] */
		res = cmp_f32(c3, r3, s3, 3, &default_tol);
		assert_int_equal(res->tile_rows, 5);
		assert_int_equal(res->tile_h, 1);
		assert_int_equal(res->tile_w, 3);
		assert_int_equal(res->tile_cols, 24);
		for (int i = 0; i < res->tile_rows * res->tile_cols; i++)
			assert_true((i == 4 * 24 + 23) ? res->tiles[i] > 1 : res->tiles[i] == 0);
		assert_int_equal(res->worst[0].coord[0], 2);
		assert_int_equal(res->worst[0].coord[1], 4);
		assert_int_equal(res->worst[0].coord[2], 69);
	}

	/* 1-D: one row of tiles */
	{
		static float r1[1000], c1[1000];
		long long s1[1] = { 1000 };

		for (int i = 0; i < 1000; i++)
			r1[i] = c1[i] = 3;
		c1[999] = 4;
		res = cmp_f32(c1, r1, s1, 1, &default_tol);
		assert_int_equal(res->tile_rows, 1);
		assert_int_equal(res->tile_cols, 32);
		assert_int_equal(res->tile_w, 32);
		assert_true(res->tiles[31] > 1);
		assert_true(res->tiles[30] == 0);
	}

	/* 0-d: one tile */
	{
		float r0 = 1, c0 = 2;
		res = cmp_f32(&c0, &r0, NULL, 0, &default_tol);
		assert_int_equal(res->n, 1);
		assert_int_equal(res->tile_rows, 1);
		assert_int_equal(res->tile_cols, 1);
		assert_true(res->tiles[0] > 1);
		assert_int_equal(res->worst[0].ndim, 0);
	}

	/* empty */
	{
		long long s0[2] = { 0, 5 };
		res = cmp_f32(NULL, NULL, s0, 2, &default_tol);
		assert_int_equal(res->n, 0);
		assert_true(res->pass);
		assert_int_equal(res->tile_rows * res->tile_cols, 0);
	}
}

static void test_ulp(void **state)
{
	float r[3] = { 1.0f, -0.0f, 1e-30f };
	float c[3];
	double rd[1] = { 1.0 }, cd[1];
	long long s3[1] = { 3 }, s1[1] = { 1 };
	struct cmp_result res;

	(void)state;
	c[0] = nextafterf(nextafterf(1.0f, 2.0f), 2.0f);   /* 2 ulp */
	c[1] = 0.0f;                                         /* -0 == +0 */
	c[2] = 1e-30f;
	compare_buffers(DT_F32, c, r, s3, 1, &default_tol, &res);
	assert_true(res.max_ulp == 2);
	assert_true(res.pass);
	c[2] = nextafterf(nextafterf(nextafterf(1e-30f, 0), 0), 0);
	compare_buffers(DT_F32, c, r, s3, 1, &default_tol, &res);
	assert_true(res.max_ulp == 3);
	assert_true(res.worst[0].ulp == 3 || res.worst[1].ulp == 3);

	cd[0] = nextafter(nextafter(nextafter(nextafter(1.0, 0), 0), 0), 0);
	compare_buffers(DT_F64, cd, rd, s1, 1, &default_tol, &res);
	assert_true(res.max_ulp == 4);
	assert_true(res.worst[0].ulp == 4);
}

static uint64_t rng(void);

/* The comparison reads ULPs off the bits itself; it must agree with dtype_ulp_distance. */
static void test_ulp_matches_dtype(void **state)
{
	long long one[1] = { 1 };
	struct cmp_result res;

	(void)state;
	for (int i = 0; i < 20000; i++) {
		uint64_t x = rng(), y = rng();
		int kind = i % 4;
		/* half the pairs close together, half anywhere, signs mixed */
		if (i % 8 < 4)
			y = x ^ (rng() & 0xFF) ^ ((rng() & 1) << 63);
		switch (kind) {
		case 0: {
			uint32_t a = (uint32_t)x, b = (uint32_t)y;
			float fa, fb;
			memcpy(&fa, &a, 4);
			memcpy(&fb, &b, 4);
			if (!isfinite(fa) || !isfinite(fb))
				continue;
			compare_buffers(DT_F32, &fa, &fb, one, 1, &default_tol, &res);
			assert_true(res.max_ulp == dtype_ulp_distance(DT_F32, fa, fb));
			break;
		}
		case 1: {
			double da, db;
			memcpy(&da, &x, 8);
			memcpy(&db, &y, 8);
			if (!isfinite(da) || !isfinite(db))
				continue;
			compare_buffers(DT_F64, &da, &db, one, 1, &default_tol, &res);
			assert_true(res.max_ulp == dtype_ulp_distance(DT_F64, da, db));
			break;
		}
		case 2:
		case 3: {
			uint16_t a = (uint16_t)x, b = (uint16_t)y;
			enum dtype dt = kind == 2 ? DT_F16 : DT_BF16;
			double va = kind == 2 ? f16_to_f32(a) : bf16_to_f32(a);
			double vb = kind == 2 ? f16_to_f32(b) : bf16_to_f32(b);
			if (!isfinite(va) || !isfinite(vb))
				continue;
			compare_buffers(dt, &a, &b, one, 1, &default_tol, &res);
			assert_true(res.max_ulp == dtype_ulp_distance(dt, va, vb));
			break;
		}
		}
	}
}

static void test_bitwise(void **state)
{
	float a[3] = { 1, 2, NAN }, b[3] = { 1, 2, NAN };

	(void)state;
	assert_true(compare_bitwise(a, b, sizeof(a)));
	b[1] = -2;
	assert_false(compare_bitwise(a, b, sizeof(a)));
	assert_true(compare_bitwise(a, b, 4));
	assert_true(compare_bitwise(NULL, NULL, 0));
}

/* A random output with every kind of element, checked against a plain re-implementation. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static double unit(void)
{
	return (double)(rng() >> 11) / 9007199254740992.0;
}

static void test_random_against_naive(void **state)
{
	enum { H = 37, W = 53, N = 5 * H * W };
	static float r[N], c[N];
	static double scores[N];
	long long shape[3] = { 5, H, W };
	size_t mm = 0, nanmm = 0, infmm = 0;
	double rtol = 1e-5, atol = 1e-5, maxabs = 0;
	struct cmp_result *res;

	(void)state;
	for (int i = 0; i < N; i++) {
		double u = unit();
		r[i] = (float)(unit() * 4 - 2);
		c[i] = r[i];
		if (u < 0.05)
			c[i] = r[i] + (float)((unit() - 0.5) * 1e-4);
		/* few enough non-finite mismatches that finite ones make the list too */
		else if (u < 0.0502)
			c[i] = NAN;
		else if (u < 0.06)
			r[i] = c[i] = NAN;
		else if (u < 0.0602)
			c[i] = INFINITY;
		else if (u < 0.0604)
			r[i] = -INFINITY, c[i] = INFINITY;
		else if (u < 0.07)
			r[i] = c[i] = -INFINITY;
	}
	for (int i = 0; i < N; i++) {
		double cv = c[i], rv = r[i];
		scores[i] = 0;
		if (isnan(cv) || isnan(rv)) {
			if (!(isnan(cv) && isnan(rv)))
				nanmm++, mm++, scores[i] = INFINITY;
			continue;
		}
		if (isinf(cv) || isinf(rv)) {
			if (cv != rv)
				infmm++, mm++, scores[i] = INFINITY;
			continue;
		}
		if (fabs(cv - rv) > atol + rtol * fabs(rv))
			mm++;
		if (fabs(cv - rv) > maxabs)
			maxabs = fabs(cv - rv);
		scores[i] = fabs(cv - rv) / (atol + rtol * fabs(rv));
	}
	res = cmp_f32(c, r, shape, 3, &default_tol);
	assert_int_equal(res->mismatches, mm);
	assert_int_equal(res->nan_mismatches, nanmm);
	assert_int_equal(res->inf_mismatches, infmm);
	assert_true(res->max_abs == maxabs);
	assert_int_equal(res->nworst, CMP_WORST);
	assert_true(nanmm + infmm > 0 && nanmm + infmm < CMP_WORST);
	assert_true(isinf(res->worst[0].score) && isfinite(res->worst[CMP_WORST - 1].score));
	for (int i = 0; i < CMP_WORST; i++) {
		const struct cmp_elem *e = &res->worst[i];
		long long flat = (e->coord[0] * H + e->coord[1]) * W + e->coord[2];
		assert_true(e->score == scores[flat] || (isinf(e->score) && isinf(scores[flat])));
		if (i > 0)
			assert_true(res->worst[i - 1].score >= e->score);
	}
	/* every tile is the max score of its elements */
	for (int ty = 0; ty < res->tile_rows; ty++)
		for (int tx = 0; tx < res->tile_cols; tx++) {
			double m = 0;
			for (int b = 0; b < 5; b++)
				for (long long y = ty * res->tile_h; y < (ty + 1) * res->tile_h && y < H; y++)
					for (long long x = tx * res->tile_w; x < (tx + 1) * res->tile_w && x < W; x++)
						if (scores[(b * H + y) * W + x] > m)
							m = scores[(b * H + y) * W + x];
			assert_true(res->tiles[ty * res->tile_cols + tx] == (float)m);
		}
}

/* Buffers of several chunks (compare.c CMP_CHUNK, compared on threads) give what one pass gives:
 * every count and maximum, the worst list in order with ties to the earlier element, the tiles. */
static void check_chunked(const long long *shape, int ndim, size_t n)
{
	float *r = malloc(n * sizeof(*r)), *c = malloc(n * sizeof(*c));
	double *scores = malloc(n * sizeof(*scores)), maxabs = 0, rtol = 1e-5, atol = 1e-5;
	size_t mm = 0, nanmm = 0, i, tie_a = n / 7, tie_b = n - 3;
	struct cmp_result *res;

	assert_non_null(r);
	assert_non_null(c);
	assert_non_null(scores);
	for (i = 0; i < n; i++) {
		double u = unit();

		r[i] = (float)(unit() * 4 - 2);
		c[i] = r[i];
		if (u < 0.001)
			c[i] = r[i] + (float)((unit() - 0.5) * 1e-3);
		else if (u < 0.001002)
			c[i] = NAN;
	}
	/* two equal worst errors far apart (in different chunks): the earlier one is listed first */
	r[tie_a] = r[tie_b] = 1.0f;
	c[tie_a] = c[tie_b] = 1.5f;
	for (i = 0; i < n; i++) {
		double cv = c[i], rv = r[i];

		scores[i] = 0;
		if (isnan(cv) || isnan(rv)) {
			if (!(isnan(cv) && isnan(rv)))
				nanmm++, mm++, scores[i] = INFINITY;
			continue;
		}
		if (fabs(cv - rv) > atol + rtol * fabs(rv))
			mm++;
		if (fabs(cv - rv) > maxabs)
			maxabs = fabs(cv - rv);
		scores[i] = fabs(cv - rv) / (atol + rtol * fabs(rv));
	}
	res = cmp_f32(c, r, shape, ndim, &default_tol);
	assert_int_equal(res->n, n);
	assert_int_equal(res->mismatches, mm);
	assert_int_equal(res->nan_mismatches, nanmm);
	assert_true(res->max_abs == maxabs);
	assert_int_equal(res->nworst, CMP_WORST);
	for (int k = 0; k < CMP_WORST; k++) {
		const struct cmp_elem *e = &res->worst[k];
		long long flat = 0;

		for (int d = 0; d < e->ndim; d++)
			flat = flat * shape[d] + e->coord[d];
		assert_true(e->score == scores[flat] || (isinf(e->score) && isinf(scores[flat])));
		if (k > 0)
			assert_true(res->worst[k - 1].score >= e->score);
		/* the first finite entry is the earlier of the two tied ones, the next the later */
		if (isfinite(e->score) && (k == 0 || isinf(res->worst[k - 1].score))) {
			const struct cmp_elem *next = &res->worst[k + 1];
			long long flat_next = 0;

			assert_true(k + 1 < CMP_WORST);
			for (int d = 0; d < next->ndim; d++)
				flat_next = flat_next * shape[d] + next->coord[d];
			assert_int_equal(flat, (long long)tie_a);
			assert_int_equal(flat_next, (long long)tie_b);
		}
	}
	{
		long long h = ndim >= 2 ? shape[ndim - 2] : 1, w = shape[ndim - 1];
		float *want = calloc((size_t)res->tile_rows * (size_t)res->tile_cols, sizeof(*want));

		assert_non_null(want);
		for (i = 0; i < n; i++) {
			long long x = (long long)(i % (size_t)w), y = (long long)(i / (size_t)w % (size_t)h);
			float *t = &want[y / res->tile_h * res->tile_cols + x / res->tile_w];

			if ((float)scores[i] > *t)
				*t = (float)scores[i];
		}
		for (int k = 0; k < res->tile_rows * res->tile_cols; k++)
			assert_true(res->tiles[k] == want[k]);
		free(want);
	}
	{
		/* the same buffers again: the same result, to the bit (the chunks do not depend on
		 * how the threads fell) */
		struct cmp_result *again = malloc(sizeof(*again));

		assert_non_null(again);
		compare_buffers(DT_F32, c, r, shape, ndim, &default_tol, again);
		assert_memory_equal(again, res, sizeof(*again));
		free(again);
	}
	free(r);
	free(c);
	free(scores);
}

static void test_chunked_like_one_pass(void **state)
{
	long long two_d[2] = { 1237, 4241 };
	long long one_d[1] = { 3 * (1 << 20) + 12345 };
	long long three_d[3] = { 3, 1031, 1500 };

	(void)state;
	check_chunked(two_d, 2, (size_t)two_d[0] * (size_t)two_d[1]);
	check_chunked(one_d, 1, (size_t)one_d[0]);
	check_chunked(three_d, 3, (size_t)three_d[0] * (size_t)three_d[1] * (size_t)three_d[2]);
}

/* Error histogram: one element per bin we can place exactly. Tolerance at r = 0 is 1e-5. */
static void test_histogram(void **state)
{
	float r[7] = { 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
	float c[7] = { 1.0f, 1e-12f, 5e-6f, 5e-5f, 5.0f, 1e3f, NAN };
	long long shape[1] = { 7 };
	struct cmp_result *res;
	unsigned long long total = 0;
	int i;

	(void)state;
	res = cmp_f32(c, r, shape, 1, &default_tol);
	assert_int_equal(res->hist[0], 1);      /* exact */
	assert_int_equal(res->hist[1], 1);      /* 1e-7 of the tolerance */
	assert_int_equal(res->hist[7], 1);      /* 0.5 of it: [0.1, 1) */
	assert_int_equal(res->hist[8], 1);      /* 5 times: [1, 10), fails */
	assert_int_equal(res->hist[13], 1);     /* 5e5 times: [1e5, 1e6) */
	assert_int_equal(res->hist[14], 1);     /* 1e8 times */
	assert_int_equal(res->hist[15], 1);     /* NaN where the reference is 0 */
	for (i = 0; i < CMP_HIST; i++)
		total += res->hist[i];
	assert_int_equal(total, 7);
}

/* Two reports of one comparison: what must be equal, what may be a few ulps apart. */
static void test_results_differ(void **state)
{
	float c[64], r[64];
	long long shape[2] = { 8, 8 };
	struct cmp_result a, b;
	char why[512];

	(void)state;
	for (int i = 0; i < 64; i++) {
		r[i] = (float)i * 0.25f - 3.0f;
		c[i] = r[i] + (i % 5 == 0 ? 1e-3f : 0.0f);
	}
	c[9] = NAN;
	compare_buffers(DT_F32, c, r, shape, 2, NULL, &a);
	b = a;
	assert_int_equal(compare_results_differ(&a, &b, 0, 0, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	/* a count */
	b.mismatches++;
	assert_int_equal(compare_results_differ(&a, &b, 0, 0, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "counts differ"));
	b = a;
	/* a maximum one ulp apart: a difference bit for bit, none at 2 ulps */
	b.max_rel = nextafter(a.max_rel, INFINITY);
	assert_int_equal(compare_results_differ(&a, &b, 0, 0, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "maxima differ"));
	assert_int_equal(compare_results_differ(&a, &b, 0, 2, why, sizeof(why)), 0);
	b.max_rel = a.max_rel * (1 + 1e-12);
	assert_int_equal(compare_results_differ(&a, &b, 0, 2, why, sizeof(why)), 1);
	b = a;
	/* a tile, in float ulps */
	b.tiles[3] = nextafterf(a.tiles[3], INFINITY);
	assert_int_equal(compare_results_differ(&a, &b, 0, 0, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "tile 3"));
	assert_int_equal(compare_results_differ(&a, &b, 0, 2, why, sizeof(why)), 0);
	b = a;
	/* metric sums: within metric_rtol relative (0: exactly) */
	b.rmse = a.rmse * (1 + 1e-13);
	assert_int_equal(compare_results_differ(&a, &b, 1e-12, 0, why, sizeof(why)), 0);
	assert_int_equal(compare_results_differ(&a, &b, 0, 0, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "metrics differ"));
	b.rmse = a.rmse * (1 + 1e-8);
	assert_int_equal(compare_results_differ(&a, &b, 1e-9, 0, why, sizeof(why)), 1);
	b = a;
	/* a cosine near 0 (an uncorrelated candidate) is held absolutely: its rounding is not */
	a.cosine = 1e-14;
	b.cosine = 3e-14;
	assert_int_equal(compare_results_differ(&a, &b, 1e-12, 0, why, sizeof(why)), 0);
	b.cosine = 1e-3;
	assert_int_equal(compare_results_differ(&a, &b, 1e-9, 0, why, sizeof(why)), 1);
	b = a;
	/* the worst elements: places and values exactly, whatever the ulps */
	assert_true(a.nworst > 1);
	b.worst[1].coord[1]++;
	assert_int_equal(compare_results_differ(&a, &b, 0, 2, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "worst element 1"));
	b = a;
	b.worst[1].cand = nextafter(a.worst[1].cand, INFINITY);   /* worst[0] is the NaN */
	assert_int_equal(compare_results_differ(&a, &b, 0, 2, why, sizeof(why)), 1);
	b = a;
	/* -0 and +0 are one value; an infinity is never near a finite maximum */
	a.max_abs = 0.0;
	b.max_abs = -0.0;
	assert_int_equal(compare_results_differ(&a, &b, 0, 0, why, sizeof(why)), 0);
	b.max_abs = INFINITY;
	a.max_abs = DBL_MAX;
	assert_int_equal(compare_results_differ(&a, &b, 0, 2, why, sizeof(why)), 1);
	/* a short buffer still ends the text */
	assert_int_equal(compare_results_differ(&a, &b, 0, 2, why, 8), 1);
	assert_int_equal(strlen(why), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tolerance_defaults),
		cmocka_unit_test(test_f32_boundary),
		cmocka_unit_test(test_nan),
		cmocka_unit_test(test_inf),
		cmocka_unit_test(test_nonfinite_counted_both_ways),
		cmocka_unit_test(test_nonfinite_counted_across_chunks),
		cmocka_unit_test(test_f16_bf16_default),
		cmocka_unit_test(test_ints_exact),
		cmocka_unit_test(test_c64),
		cmocka_unit_test(test_metrics_and_metric_mode),
		cmocka_unit_test(test_worst_3d),
		cmocka_unit_test(test_worst_truncated),
		cmocka_unit_test(test_tiles),
		cmocka_unit_test(test_ulp),
		cmocka_unit_test(test_ulp_matches_dtype),
		cmocka_unit_test(test_bitwise),
		cmocka_unit_test(test_random_against_naive),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_chunked_like_one_pass),
		cmocka_unit_test(test_results_differ),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
