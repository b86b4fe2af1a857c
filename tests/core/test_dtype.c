#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/dtype.h"

static uint32_t fbits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float bitsf(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	/* splitmix64: fixed seed, reproducible */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* ---- names ---- */

static void test_parse_name_size(void **state)
{
	static const struct {
		const char *name;
		enum dtype dt;
		size_t size;
		int is_float, comps;
	} all[] = {
		{ "f32", DT_F32, 4, 1, 1 }, { "f64", DT_F64, 8, 1, 1 },  { "f16", DT_F16, 2, 1, 1 },
		{ "bf16", DT_BF16, 2, 1, 1 }, { "i8", DT_I8, 1, 0, 1 },   { "u8", DT_U8, 1, 0, 1 },
		{ "i16", DT_I16, 2, 0, 1 },  { "i32", DT_I32, 4, 0, 1 },  { "i64", DT_I64, 8, 0, 1 },
		{ "bool", DT_BOOL, 1, 0, 1 }, { "c64", DT_C64, 8, 1, 2 },
	};
	static const char *bad[] = { "", "F32", "f23", "float", "f32 ", " f32", "c128", "bf", "i", "boolean" };
	size_t i;
	enum dtype dt;

	assert_int_equal(DT_COUNT, 11);
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		dt = DT_COUNT;
		assert_int_equal(dtype_parse(all[i].name, &dt), KBX_OK);
		assert_int_equal(dt, all[i].dt);
		assert_string_equal(dtype_name(dt), all[i].name);
		assert_int_equal(dtype_size(dt), all[i].size);
		assert_int_equal(dtype_is_float(dt), all[i].is_float);
		assert_int_equal(dtype_components(dt), all[i].comps);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[64];

		dt = DT_F64;
		assert_int_equal(dtype_parse(bad[i], &dt), KBX_EPARSE);
		assert_int_equal(dt, DT_F64); /* untouched */
		snprintf(want, sizeof(want), "unknown dtype '%s'", bad[i]);
		assert_true(strncmp(kbx_last_error(), want, strlen(want)) == 0);
	}
	assert_string_equal(dtype_name(DT_COUNT), "?");
	assert_int_equal(dtype_size(DT_COUNT), 0);
}

/* ---- f16 ---- */

static double f16_reference(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	double v;

	if (e == 31)
		return m ? NAN : ((h & 0x8000) ? -INFINITY : INFINITY);
	v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
	return (h & 0x8000) ? -v : v;
}

static uint16_t set_f16(double v)
{
	uint16_t h = 0xdead;

	dtype_set(DT_F16, &h, 0, 0, v);
	return h;
}

static uint16_t set_bf16(double v)
{
	uint16_t h = 0xdead;

	dtype_set(DT_BF16, &h, 0, 0, v);
	return h;
}

static void test_f16_known(void **state)
{
	assert_int_equal(f32_to_f16(1.0f), 0x3c00);
	assert_int_equal(f32_to_f16(-2.0f), 0xc000);
	assert_int_equal(f32_to_f16(0.0f), 0x0000);
	assert_int_equal(f32_to_f16(-0.0f), 0x8000);
	assert_int_equal(f32_to_f16(65504.0f), 0x7bff);
	assert_int_equal(f32_to_f16(0.333333333f), 0x3555);
	assert_int_equal(f32_to_f16(INFINITY), 0x7c00);
	assert_int_equal(f32_to_f16(-INFINITY), 0xfc00);
	/* overflow: 65520 is the tie between 65504 and 65536, which is out of range: infinity */
	assert_int_equal(f32_to_f16(65519.0f), 0x7bff);
	assert_int_equal(f32_to_f16(65520.0f), 0x7c00);
	assert_int_equal(f32_to_f16(1e10f), 0x7c00);
	assert_int_equal(f32_to_f16(-1e10f), 0xfc00);
	/* denormals */
	assert_int_equal(f32_to_f16(ldexpf(1, -24)), 0x0001);
	assert_int_equal(f32_to_f16(-ldexpf(1, -24)), 0x8001);
	assert_int_equal(f32_to_f16(ldexpf(1023, -24)), 0x03ff);
	assert_int_equal(f32_to_f16(ldexpf(1, -14)), 0x0400);
	assert_int_equal(f32_to_f16(ldexpf(1, -25)), 0x0000);             /* tie to even: 0 */
	assert_int_equal(f32_to_f16(ldexpf(1.0000001f, -25)), 0x0001);    /* just above the tie */
	assert_int_equal(f32_to_f16(ldexpf(3, -25)), 0x0002);             /* tie 1|2: even 2 */
	assert_int_equal(f32_to_f16(ldexpf(5, -25)), 0x0002);             /* tie 2|3: even 2 */
	assert_int_equal(f32_to_f16(ldexpf(2047, -25)), 0x0400);          /* largest denormal rounds up to normal */
	assert_int_equal(f32_to_f16(1e-30f), 0x0000);
	assert_int_equal(f32_to_f16(-1e-30f), 0x8000);
	/* ties between normals */
	assert_int_equal(f32_to_f16(1.0f + ldexpf(1, -11)), 0x3c00);     /* 1 | 1+ulp: even 1 */
	assert_int_equal(f32_to_f16(1.0f + ldexpf(3, -11)), 0x3c02);     /* 1+ulp | 1+2ulp: even */
	assert_int_equal(f32_to_f16(1.0f + ldexpf(1, -11) + ldexpf(1, -20)), 0x3c01);
	assert_int_equal(f32_to_f16(2047.0f + 0.5f), 0x6800);              /* 2047.5 -> 2048 (ulp 1 at 1024..2048) */
	assert_int_equal(f32_to_f16(2049.0f), 0x6800);                     /* ulp 2: tie 2048|2050 -> 2048 */
	assert_int_equal(f32_to_f16(2051.0f), 0x6802);                     /* tie 2050|2052 -> 2052 */
}

static void test_f16_set_rounds_once(void **state)
{
	/* 1 + 2^-11 + 2^-40 is just above a tie; through f32 it would become the tie itself
	 * (2^-40 is below f32 precision there) and round down. set must round up. */
	double v = 1.0 + ldexp(1, -11) + ldexp(1, -40);

	assert_int_equal(f32_to_f16((float)v), 0x3c00);
	assert_int_equal(set_f16(v), 0x3c01);
	assert_int_equal(set_f16(-v), 0xbc01);
	/* same for bf16: 1 + 2^-8 + 2^-40 */
	v = 1.0 + ldexp(1, -8) + ldexp(1, -40);
	assert_int_equal(f32_to_bf16((float)v), 0x3f80);
	assert_int_equal(set_bf16(v), 0x3f81);
	/* double denormals and tiny values go to zero with their sign */
	assert_int_equal(set_f16(5e-324), 0x0000);
	assert_int_equal(set_f16(-5e-324), 0x8000);
	assert_int_equal(set_bf16(-1e-300), 0x8000);
	assert_int_equal(set_f16(1e300), 0x7c00);
	assert_int_equal(set_bf16(-1e300), 0xff80);
}

static void test_f16_exhaustive_roundtrip(void **state)
{
	uint32_t h;

	for (h = 0; h < 65536; h++) {
		float f = f16_to_f32((uint16_t)h);
		double ref = f16_reference((uint16_t)h), got;
		uint16_t back = 0;

		if (isnan(ref)) {
			assert_true(isnan(f));
			assert_int_equal(signbit(f) != 0, (h & 0x8000) != 0);
			back = f32_to_f16(f);
			assert_int_equal(back & 0x7c00, 0x7c00);
			assert_true(back & 0x03ff);
			assert_int_equal(back & 0x8000, h & 0x8000);
			continue;
		}
		assert_true((double)f == ref);
		assert_int_equal(signbit(f) != 0, (h & 0x8000) != 0);
		assert_int_equal(f32_to_f16(f), h);
		dtype_set(DT_F16, &back, 0, 0, ref);
		assert_int_equal(back, h);
		got = dtype_get(DT_F16, &back, 0, 0);
		assert_true(got == ref);
	}
}

static void test_bf16_exhaustive_roundtrip(void **state)
{
	uint32_t h;

	for (h = 0; h < 65536; h++) {
		float f = bf16_to_f32((uint16_t)h);
		uint16_t back;

		assert_int_equal(fbits(f), h << 16);
		back = f32_to_bf16(f);
		if (isnan(f)) {
			assert_int_equal(back & 0x7f80, 0x7f80);
			assert_true(back & 0x7f);
			assert_int_equal(back & 0x8000, h & 0x8000);
		} else {
			assert_int_equal(back, h);
			assert_true(dtype_get(DT_BF16, &back, 0, 0) == (double)f);
		}
	}
}

/* Round to nearest even by the usual bit trick, as PyTorch's c10::BFloat16 does. */
static uint16_t bf16_reference(float f)
{
	uint32_t u = fbits(f);

	if (isnan(f))
		return (uint16_t)((u >> 16) | 0x40);
	return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

static void test_bf16_known_and_random(void **state)
{
	int i;

	assert_int_equal(f32_to_bf16(1.0f), 0x3f80);
	assert_int_equal(f32_to_bf16(bitsf(0x3f808000)), 0x3f80); /* tie, even down */
	assert_int_equal(f32_to_bf16(bitsf(0x3f818000)), 0x3f82); /* tie, odd up */
	assert_int_equal(f32_to_bf16(bitsf(0x3f808001)), 0x3f81);
	assert_int_equal(f32_to_bf16(bitsf(0x3f807fff)), 0x3f80);
	assert_int_equal(f32_to_bf16(FLT_MAX), 0x7f80);           /* rounds up to infinity */
	assert_int_equal(f32_to_bf16(bitsf(0x7f7f7fff)), 0x7f7f);
	assert_int_equal(f32_to_bf16(bitsf(0x00010000)), 0x0001); /* denormal */
	assert_int_equal(f32_to_bf16(bitsf(0x00008000)), 0x0000); /* tie to even zero */
	assert_int_equal(f32_to_bf16(bitsf(0x00018000)), 0x0002);
	assert_int_equal(f32_to_bf16(-0.0f), 0x8000);
	/* a NaN whose payload sits in the low bits must stay NaN, not become infinity */
	assert_int_equal(f32_to_bf16(bitsf(0x7f800001)) & 0xffc0, 0x7fc0);
	assert_int_equal(f32_to_bf16(bitsf(0xff800001)) & 0xffc0, 0xffc0);
	for (i = 0; i < 1000000; i++) {
		float f = bitsf((uint32_t)rng());

		if (isnan(f))
			continue;
		assert_int_equal(f32_to_bf16(f), bf16_reference(f));
	}
}

#if defined(__FLT16_MAX__)
/* GCC's _Float16 conversions (libgcc, round to nearest even) as an independent reference. */
static void test_f16_random_against_float16(void **state)
{
	int i;

	for (i = 0; i < 1000000; i++) {
		uint64_t r = rng();
		float f = bitsf((uint32_t)r);
		double d;
		_Float16 hf;
		uint16_t want;

		if (!isnan(f)) {
			hf = (_Float16)f;
			memcpy(&want, &hf, 2);
			assert_int_equal(f32_to_f16(f), want);
		}
		/* doubles near the f16 range, with bits below f32 precision */
		d = ldexp(1.0 + (double)(r >> 12) * 0x1p-52, (int)(r % 48) - 30);
		if (r & 1)
			d = -d;
		hf = (_Float16)d;
		memcpy(&want, &hf, 2);
		assert_int_equal(set_f16(d), want);
	}
}
#else
static void test_f16_random_against_float16(void **state)
{
	skip();
}
#endif

/* ---- get/set for every dtype ---- */

static void test_get_set_every_dtype(void **state)
{
	static const double values[] = { 0, 1, -1, 2, 100, -100, 0.5, 127, -128, 255 };
	unsigned char buf[64];
	int dt;
	size_t i;

	for (dt = 0; dt < DT_COUNT; dt++) {
		for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
			double v = values[i], want = v, got;
			int c;

			/* what each type can hold of these */
			if (!dtype_is_float((enum dtype)dt))
				want = trunc(v);
			if (dt == DT_I8)
				want = fmin(fmax(want, -128), 127);
			if (dt == DT_U8)
				want = fmin(fmax(want, 0), 255);
			if (dt == DT_BOOL)
				want = v != 0;
			for (c = 0; c < dtype_components((enum dtype)dt); c++) {
				memset(buf, 0x5a, sizeof(buf));
				dtype_set((enum dtype)dt, buf, 3, c, v);
				got = dtype_get((enum dtype)dt, buf, 3, c);
				assert_true(got == want);
				/* element 3 only: neighbours untouched */
				assert_int_equal(buf[0], 0x5a);
				assert_int_equal(buf[3 * dtype_size((enum dtype)dt) - 1], 0x5a);
				assert_int_equal(buf[4 * dtype_size((enum dtype)dt)], 0x5a);
			}
		}
	}
}

static void test_layouts(void **state)
{
	float c[6] = { 0 };
	int64_t i64[2];
	int32_t i32;
	int16_t i16;
	uint16_t h[2];
	double d;

	dtype_set(DT_C64, c, 1, 0, 3.5);
	dtype_set(DT_C64, c, 1, 1, -4.25);
	assert_true(c[2] == 3.5f && c[3] == -4.25f && c[0] == 0 && c[4] == 0);
	assert_true(dtype_get(DT_C64, c, 1, 1) == -4.25);
	dtype_set(DT_F32, &c[5], 0, 0, 0.1);
	assert_true(c[5] == 0.1f);
	dtype_set(DT_F64, &d, 0, 0, 0.1);
	assert_true(d == 0.1);
	dtype_set(DT_I64, i64, 1, 0, -5);
	assert_true(i64[1] == -5);
	dtype_set(DT_I32, &i32, 0, 0, -70000);
	assert_int_equal(i32, -70000);
	dtype_set(DT_I16, &i16, 0, 0, -300);
	assert_int_equal(i16, -300);
	dtype_set(DT_F16, h, 1, 0, 1.0);
	assert_int_equal(h[1], 0x3c00);
	dtype_set(DT_BF16, h, 0, 0, -1.0);
	assert_int_equal(h[0], 0xbf80);
	/* NaN, infinities and -0 survive every float type */
	{
		const enum dtype fl[] = { DT_F32, DT_F64, DT_F16, DT_BF16, DT_C64 };
		unsigned char buf[16];
		size_t k;

		for (k = 0; k < 5; k++) {
			dtype_set(fl[k], buf, 0, 0, NAN);
			assert_true(isnan(dtype_get(fl[k], buf, 0, 0)));
			dtype_set(fl[k], buf, 0, 0, -INFINITY);
			assert_true(dtype_get(fl[k], buf, 0, 0) == -INFINITY);
			dtype_set(fl[k], buf, 0, 0, -0.0);
			assert_true(dtype_get(fl[k], buf, 0, 0) == 0 && signbit(dtype_get(fl[k], buf, 0, 0)));
			dtype_set(fl[k], buf, 0, 0, -NAN);
			assert_true(signbit(dtype_get(fl[k], buf, 0, 0)));
		}
	}
}

static void test_integer_saturation(void **state)
{
	int8_t i8;
	uint8_t u8;
	int16_t i16;
	int32_t i32;
	int64_t i64;

#define SET(dt, var, v) (dtype_set(dt, &(var), 0, 0, (v)), (var))
	assert_int_equal(SET(DT_I8, i8, 300), 127);
	assert_int_equal(SET(DT_I8, i8, -300), -128);
	assert_int_equal(SET(DT_I8, i8, 3.9), 3);
	assert_int_equal(SET(DT_I8, i8, -3.9), -3);
	assert_int_equal(SET(DT_I8, i8, 127.9), 127);
	assert_int_equal(SET(DT_I8, i8, -128.9), -128);
	assert_int_equal(SET(DT_I8, i8, NAN), 0);
	assert_int_equal(SET(DT_I8, i8, INFINITY), 127);
	assert_int_equal(SET(DT_U8, u8, -1), 0);
	assert_int_equal(SET(DT_U8, u8, -0.9), 0);
	assert_int_equal(SET(DT_U8, u8, 256.5), 255);
	assert_int_equal(SET(DT_U8, u8, 255.99), 255);
	assert_int_equal(SET(DT_U8, u8, -INFINITY), 0);
	assert_int_equal(SET(DT_I16, i16, 40000), 32767);
	assert_int_equal(SET(DT_I16, i16, -40000), -32768);
	assert_int_equal(SET(DT_I32, i32, 3e9), INT32_MAX);
	assert_int_equal(SET(DT_I32, i32, -3e9), INT32_MIN);
	assert_int_equal(SET(DT_I32, i32, -2147483648.0), INT32_MIN);
	assert_int_equal(SET(DT_I32, i32, 2147483647.5), INT32_MAX);
	assert_true(SET(DT_I64, i64, 1e19) == INT64_MAX);
	assert_true(SET(DT_I64, i64, 9223372036854775808.0) == INT64_MAX);
	assert_true(SET(DT_I64, i64, -1e19) == INT64_MIN);
	assert_true(SET(DT_I64, i64, -9223372036854775808.0) == INT64_MIN);
	assert_true(SET(DT_I64, i64, 9007199254740993.0) == 9007199254740992LL);
	assert_true(SET(DT_I64, i64, -7.7) == -7);
	assert_true(SET(DT_I64, i64, NAN) == 0);
	assert_true(SET(DT_I64, i64, INFINITY) == INT64_MAX);
#undef SET
}

static void test_bool(void **state)
{
	uint8_t b[4] = { 0xa5, 0xa5, 0xa5, 0xa5 };

	dtype_set(DT_BOOL, b, 0, 0, 0.5);
	dtype_set(DT_BOOL, b, 1, 0, 0);
	dtype_set(DT_BOOL, b, 2, 0, -0.0);
	dtype_set(DT_BOOL, b, 3, 0, -3);
	assert_int_equal(b[0], 1);
	assert_int_equal(b[1], 0);
	assert_int_equal(b[2], 0);
	assert_int_equal(b[3], 1);
	dtype_set(DT_BOOL, b, 1, 0, NAN);
	assert_int_equal(b[1], 1);
	/* get returns the stored byte, so poison or a stray 2 never reads as a valid "true" */
	b[2] = 0xa5;
	assert_true(dtype_get(DT_BOOL, b, 2, 0) == 165.0);
	assert_true(dtype_get(DT_BOOL, b, 0, 0) == 1.0);
}

/* ---- ULP ---- */

static void test_ulp_f32(void **state)
{
	float one_up = nextafterf(1.0f, 2.0f);

	assert_true(dtype_ulp_distance(DT_F32, 1.0, 1.0) == 0);
	assert_true(dtype_ulp_distance(DT_F32, 1.0, one_up) == 1);
	assert_true(dtype_ulp_distance(DT_F32, one_up, 1.0) == 1);
	assert_true(dtype_ulp_distance(DT_F32, 1.0, nextafterf(1.0f, 0.0f)) == 1);
	assert_true(dtype_ulp_distance(DT_F32, 1.0, 2.0) == 8388608.0);
	assert_true(dtype_ulp_distance(DT_F32, -1.0, -2.0) == 8388608.0);
	/* across zero: -min_denorm, -0, +0, +min_denorm */
	assert_true(dtype_ulp_distance(DT_F32, -0.0, 0.0) == 0);
	assert_true(dtype_ulp_distance(DT_F32, -FLT_TRUE_MIN, 0.0) == 1);
	assert_true(dtype_ulp_distance(DT_F32, -FLT_TRUE_MIN, FLT_TRUE_MIN) == 2);
	assert_true(dtype_ulp_distance(DT_F32, -1.0, 1.0) == 2.0 * 0x3f800000);
	assert_true(dtype_ulp_distance(DT_F32, -FLT_MIN, FLT_MIN) == 2.0 * 0x00800000);
	/* specials */
	assert_true(dtype_ulp_distance(DT_F32, NAN, NAN) == 0);
	assert_true(isinf(dtype_ulp_distance(DT_F32, NAN, 1.0)));
	assert_true(isinf(dtype_ulp_distance(DT_F32, 0.0, NAN)));
	assert_true(isinf(dtype_ulp_distance(DT_F32, INFINITY, -INFINITY)));
	assert_true(dtype_ulp_distance(DT_F32, INFINITY, INFINITY) == 0);
	assert_true(dtype_ulp_distance(DT_F32, FLT_MAX, INFINITY) == 1);
	/* values are rounded to f32 first: 1e39 is +inf in f32 */
	assert_true(isinf(dtype_ulp_distance(DT_F32, 1e39, -INFINITY)));
	assert_true(dtype_ulp_distance(DT_F32, 1.0, 1.0 + 1e-12) == 0);
	/* c64 components are f32 */
	assert_true(dtype_ulp_distance(DT_C64, 1.0, one_up) == 1);
	assert_true(dtype_ulp_distance(DT_C64, 1.0, 2.0) == 8388608.0);
}

static void test_ulp_f64(void **state)
{
	assert_true(dtype_ulp_distance(DT_F64, 1.0, nextafter(1.0, 2.0)) == 1);
	assert_true(dtype_ulp_distance(DT_F64, 1.0, 1.0 + 1e-12) > 4000);
	assert_true(dtype_ulp_distance(DT_F64, 1.0, 2.0) == 4503599627370496.0);
	assert_true(dtype_ulp_distance(DT_F64, -DBL_TRUE_MIN, DBL_TRUE_MIN) == 2);
	assert_true(dtype_ulp_distance(DT_F64, -0.0, DBL_TRUE_MIN) == 1);
	/* the widest span, which does not fit in int64 */
	assert_true(dtype_ulp_distance(DT_F64, -DBL_MAX, DBL_MAX) == (double)(2 * 0x7fefffffffffffffULL));
	assert_true(dtype_ulp_distance(DT_F64, -INFINITY, DBL_MAX) > 1.8e19);
	assert_true(isinf(dtype_ulp_distance(DT_F64, -INFINITY, INFINITY)));
	assert_true(isinf(dtype_ulp_distance(DT_F64, NAN, INFINITY)));
	assert_true(dtype_ulp_distance(DT_F64, -NAN, NAN) == 0);
}

static void test_ulp_narrow_and_ints(void **state)
{
	assert_true(dtype_ulp_distance(DT_F16, 1.0, 1.0009765625) == 1);
	assert_true(dtype_ulp_distance(DT_F16, 1.0, 2.0) == 1024);
	assert_true(dtype_ulp_distance(DT_F16, 1.0, 1.0001) == 0); /* both round to 1 */
	assert_true(dtype_ulp_distance(DT_F16, -ldexp(1, -24), ldexp(1, -24)) == 2);
	assert_true(dtype_ulp_distance(DT_F16, 65504, INFINITY) == 1);
	assert_true(isinf(dtype_ulp_distance(DT_F16, 1e6, -1e6))); /* both overflow to ±inf */
	assert_true(dtype_ulp_distance(DT_F16, -1.0, 1.0) == 2.0 * 0x3c00);
	assert_true(dtype_ulp_distance(DT_BF16, 1.0, 2.0) == 128);
	assert_true(dtype_ulp_distance(DT_BF16, 1.0, 1.0078125) == 1);
	assert_true(dtype_ulp_distance(DT_BF16, -1.0, 1.0) == 2.0 * 0x3f80);
	assert_true(isinf(dtype_ulp_distance(DT_BF16, NAN, 0)));
	/* integer types: 0 by definition */
	assert_true(dtype_ulp_distance(DT_I32, 1, 5) == 0);
	assert_true(dtype_ulp_distance(DT_I64, -1e18, 1e18) == 0);
	assert_true(dtype_ulp_distance(DT_BOOL, 0, 1) == 0);
	assert_true(dtype_ulp_distance(DT_U8, NAN, 1) == 0);
}

/* The ordered mapping agrees with counting nextafter steps. */
static void test_ulp_matches_nextafter(void **state)
{
	int i, k;

	for (i = 0; i < 2000; i++) {
		float a = bitsf((uint32_t)rng()), b = a;
		int steps = (int)(rng() % 50);

		if (!isfinite(a))
			continue;
		for (k = 0; k < steps; k++)
			b = nextafterf(b, (i & 1) ? INFINITY : -INFINITY);
		if (isinf(b))
			continue;
		/* nextafter passes through -0 and +0 as two steps; the mapping counts them as one value */
		if (signbit(a) != signbit(b) || a == 0 || b == 0)
			continue;
		assert_true(dtype_ulp_distance(DT_F32, a, b) == steps);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_name_size),
		cmocka_unit_test(test_f16_known),
		cmocka_unit_test(test_f16_set_rounds_once),
		cmocka_unit_test(test_f16_exhaustive_roundtrip),
		cmocka_unit_test(test_bf16_exhaustive_roundtrip),
		cmocka_unit_test(test_bf16_known_and_random),
		cmocka_unit_test(test_f16_random_against_float16),
		cmocka_unit_test(test_get_set_every_dtype),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_integer_saturation),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_ulp_f32),
		cmocka_unit_test(test_ulp_f64),
		cmocka_unit_test(test_ulp_narrow_and_ints),
		cmocka_unit_test(test_ulp_matches_nextafter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
