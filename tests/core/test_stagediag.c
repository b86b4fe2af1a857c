/* Tests for core/stagediag.c: how a wrong stage differs, on synthetic buffers (no GPU): one-step
 * rounding of int8 values (toward zero, down, up, both ways), saturation, values beyond the
 * range, a constant factor on float scales (127/255, 7/8), coarser scales (per batch instead of
 * per row), and the plain fallbacks; garbage (NaN, empty, a zero-length buffer) too. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/stagediag.h"

#define N 256

static uint64_t rng_state;

static double urand(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

static char line[256];

static const char *diag(enum dtype dt, const void *cand, const void *ref, size_t n)
{
	stage_diagnose(dt, cand, ref, n, line, sizeof(line));
	return line;
}

#define HAS(text) assert_non_null(strstr(line, (text)))
#define LACKS(text) assert_null(strstr(line, (text)))

/* int8 quantization of N values in [-2, 2] at scale 2/127 by the rule given. */
static void quantize(int8_t *q, const float *v, double (*round_fn)(double))
{
	for (int i = 0; i < N; i++) {
		double x = round_fn(v[i] / (2.0 / 127));

		q[i] = (int8_t)(x > 127 ? 127 : x < -127 ? -127 : x);
	}
}

static void values(float *v)
{
	rng_state = 7;
	for (int i = 0; i < N; i++)
		v[i] = (float)(4 * urand() - 2);
	v[0] = 2; /* the largest |v|, at 127 as a dynamic scale puts it */
}

static void test_truncation(void **state)
{
	float v[N];
	int8_t ref[N], cand[N];

	(void)state;
	values(v);
	quantize(ref, v, nearbyint);
	quantize(cand, v, trunc);
	diag(DT_I8, cand, ref, N);
	HAS("the rounding mode differs");
	HAS("truncation toward zero");
	HAS("0 farther");
}

static void test_floor_and_ceil(void **state)
{
	float v[N];
	int8_t ref[N], cand[N];

	(void)state;
	values(v);
	quantize(ref, v, nearbyint);
	quantize(cand, v, floor);
	diag(DT_I8, cand, ref, N);
	HAS("the rounding mode differs");
	HAS("floor");
	quantize(cand, v, ceil);
	diag(DT_I8, cand, ref, N);
	HAS("ceil");
}

static void test_one_step_both_ways(void **state)
{
	int8_t ref[N], cand[N];

	(void)state;
	rng_state = 3;
	for (int i = 0; i < N; i++) {
		ref[i] = (int8_t)(urand() * 200 - 100);
		cand[i] = (int8_t)(ref[i] + (i % 3 == 0 ? 1 : i % 3 == 1 ? -1 : 0));
	}
	diag(DT_I8, cand, ref, N);
	HAS("one step off");
	HAS("the rounding mode differs");
	LACKS("truncation");
	LACKS("floor");
}

/* A scale half the reference's: the larger half of the values clamp at 127. */
static void test_saturation(void **state)
{
	float v[N];
	int8_t ref[N], cand[N];

	(void)state;
	values(v);
	quantize(ref, v, nearbyint);
	for (int i = 0; i < N; i++) {
		double x = nearbyint(v[i] / (1.0 / 127));

		cand[i] = (int8_t)(x > 127 ? 127 : x < -127 ? -127 : x);
	}
	diag(DT_I8, cand, ref, N);
	HAS("saturated");
	HAS("+-127");
}

/* The same, unclamped, in i32: values beyond the range. */
static void test_beyond_range(void **state)
{
	float v[N];
	int32_t ref[N], cand[N];

	(void)state;
	values(v);
	for (int i = 0; i < N; i++) {
		ref[i] = (int32_t)nearbyint(v[i] / (2.0 / 127));
		cand[i] = (int32_t)nearbyint(v[i] / (1.0 / 127));
	}
	diag(DT_I32, cand, ref, N);
	HAS("beyond the reference's largest |v|");
	HAS("no clamp");
}

static void test_constant_factor(void **state)
{
	float ref[N], cand[N];

	(void)state;
	rng_state = 11;
	for (int i = 0; i < N; i++) {
		float amax = (float)(0.1 + 10 * urand());

		ref[i] = amax / 127.0f;
		cand[i] = amax / 255.0f;
	}
	diag(DT_F32, cand, ref, N);
	HAS("a constant factor");
	HAS("(127/255)");
	for (int i = 0; i < N; i++)
		cand[i] = ref[i] * 127.0f / 8.0f / (127.0f / 7.0f);
	diag(DT_F32, cand, ref, N);
	HAS("(7/8)");
	/* a factor that is no usual ratio is said without one */
	for (int i = 0; i < N; i++)
		cand[i] = ref[i] * 0.6180339f;
	diag(DT_F32, cand, ref, N);
	HAS("0.618");
	LACKS("/");
	/* as near 1 as Bessel's correction at n = 1000: a factor still, printed as one */
	for (int i = 0; i < N; i++)
		cand[i] = (float)((double)ref[i] * 1000.0 / 999.0);
	diag(DT_F32, cand, ref, N);
	HAS("a constant factor");
	HAS("every value 1.001001");
	/* a narrower dtype on the way (fp16 rounding): ratios spread around 1, no factor */
	for (int i = 0; i < N; i++)
		cand[i] = (float)(ref[i] * (1.0 + ((i % 7) - 3) * 1e-5));
	diag(DT_F32, cand, ref, N);
	LACKS("constant factor");
	HAS("values differ");
	/* all a little above 1 but spread as wide as that: rounding, not a factor */
	for (int i = 0; i < N; i++)
		cand[i] = (float)(ref[i] * (1.0 + (1 + i % 5) * 1e-5));
	diag(DT_F32, cand, ref, N);
	LACKS("constant factor");
}

/* One scale per batch of 16 rows instead of one per row: 4 distinct values where the reference
 * has 64. */
static void test_coarser(void **state)
{
	float ref[64], cand[64];

	(void)state;
	rng_state = 5;
	for (int b = 0; b < 4; b++) {
		float m = 0;

		for (int r = 0; r < 16; r++) {
			ref[b * 16 + r] = (float)(0.01 + urand());
			m = fmaxf(m, ref[b * 16 + r]);
		}
		for (int r = 0; r < 16; r++)
			cand[b * 16 + r] = m;
	}
	diag(DT_F32, cand, ref, 64);
	HAS("4 distinct values where the reference has 64");
	HAS("coarser");
}

static void test_fallbacks(void **state)
{
	float ref[N], cand[N];
	int8_t qr[N], qc[N];

	(void)state;
	rng_state = 9;
	for (int i = 0; i < N; i++) {
		ref[i] = (float)urand();
		cand[i] = i % 2 ? ref[i] : (float)urand();
		qr[i] = (int8_t)(i % 50);
		qc[i] = (int8_t)(i % 7 ? i % 50 : (i % 50) / 3);
	}
	diag(DT_F32, cand, ref, N);
	HAS("128 of 256 values differ");
	HAS("max rel");
	diag(DT_I8, qc, qr, N);
	HAS("values differ, by up to");
	LACKS("rounding");
}

static void test_garbage(void **state)
{
	float ref[4] = { 1, NAN, 3, 4 }, cand[4] = { 1, NAN, 3, 4 }, odd[4] = { NAN, 2, INFINITY, 0 };
	int8_t q[4] = { 1, 2, 3, 4 };
	char tiny[1] = { 'x' };

	(void)state;
	assert_string_equal(diag(DT_F32, cand, ref, 4), "");      /* NaN where NaN: the same */
	assert_string_equal(diag(DT_F32, cand, ref, 0), "");      /* nothing to compare */
	assert_string_equal(diag(DT_I8, q, q, 4), "");
	diag(DT_F32, odd, ref, 4);                                 /* NaN, Inf and 0: no ratio */
	HAS("4 of 4 values differ (max abs 4, max rel 1; 3 where either is NaN or infinite)");
	LACKS("constant");
	stage_diagnose(DT_F32, odd, ref, 4, tiny, sizeof(tiny));   /* cut to the buffer */
	assert_int_equal(tiny[0], '\0');
	tiny[0] = 'x';
	stage_diagnose(DT_F32, odd, ref, 4, tiny, 0);              /* no room at all: untouched */
	assert_int_equal(tiny[0], 'x');
}

/* Packed int4 in 32-bit words (linear_w4a16's w_packed: element 8 i + e in nibble e of word i):
 * unpacked, a truncated nibble is one step nearer zero, not a word millions off; every width,
 * signed and unsigned, round-trips; 16 bits read two bytes, little-endian. */
static void test_unpack(void **state)
{
	int8_t q[64], t[64];
	uint32_t wq[8] = { 0 }, wt[8] = { 0 };
	int32_t uq[64], ut[64], v[16];
	unsigned char bytes[4] = { 0x8f, 0x07, 0x34, 0x12 };
	int i;

	(void)state;
	rng_state = 11;
	for (i = 0; i < 64; i++) {
		double x = (urand() * 2 - 1) * 7.4;

		q[i] = (int8_t)fmax(-8, fmin(7, nearbyint(x)));
		t[i] = (int8_t)fmax(-8, fmin(7, trunc(x)));
		wq[i / 8] |= (uint32_t)(q[i] & 15) << (4 * (i % 8));
		wt[i / 8] |= (uint32_t)(t[i] & 15) << (4 * (i % 8));
	}
	stage_unpack(wq, sizeof(wq), 4, 1, uq);
	stage_unpack(wt, sizeof(wt), 4, 1, ut);
	for (i = 0; i < 64; i++) {
		assert_int_equal(uq[i], q[i]);
		assert_int_equal(ut[i], t[i]);
	}
	diag(DT_I32, ut, uq, 64);
	HAS("one step off");
	HAS("truncation toward zero");
	LACKS("beyond");
	/* the words themselves read as a range far beyond the reference's */
	diag(DT_I32, wt, wq, 8);
	LACKS("truncation");

	stage_unpack(bytes, 1, 4, 1, v);  /* 0x8f: low nibble 15 = -1, high 8 = -8 */
	assert_int_equal(v[0], -1);
	assert_int_equal(v[1], -8);
	stage_unpack(bytes, 1, 4, 0, v);
	assert_int_equal(v[0], 15);
	assert_int_equal(v[1], 8);
	stage_unpack(bytes, 1, 1, 0, v);  /* 0x8f = 1000 1111 */
	assert_int_equal(v[0] + v[1] + v[2] + v[3], 4);
	assert_int_equal(v[4] + v[5] + v[6], 0);
	assert_int_equal(v[7], 1);
	stage_unpack(bytes, 1, 2, 1, v);  /* 11 11 00 10 from the low end: -1 -1 0 -2 */
	assert_int_equal(v[0], -1);
	assert_int_equal(v[1], -1);
	assert_int_equal(v[2], 0);
	assert_int_equal(v[3], -2);
	stage_unpack(bytes, 2, 8, 1, v);
	assert_int_equal(v[0], -113);
	assert_int_equal(v[1], 7);
	stage_unpack(bytes, 4, 16, 1, v);
	assert_int_equal(v[0], 0x078f);
	assert_int_equal(v[1], 0x1234);
	bytes[3] = 0xff;
	stage_unpack(bytes, 4, 16, 1, v);
	assert_int_equal(v[1], (int16_t)0xff34);
	stage_unpack(bytes, 4, 16, 0, v);
	assert_int_equal(v[1], 0xff34);
	v[0] = 42;
	stage_unpack(bytes, 0, 4, 1, v);  /* nothing to unpack, nothing written */
	assert_int_equal(v[0], 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_floor_and_ceil),
		cmocka_unit_test(test_one_step_both_ways),
		cmocka_unit_test(test_saturation),
		cmocka_unit_test(test_beyond_range),
		cmocka_unit_test(test_constant_factor),
		cmocka_unit_test(test_coarser),
		cmocka_unit_test(test_fallbacks),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_unpack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
