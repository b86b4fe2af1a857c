/*
 * test_reftime.c - the reference's kept timings (core/reftime.c): the key changes with every
 * field it is made of and with nothing else; when a kept timing may stand in for a live one
 * (age, clocks, clock readings, samples); the timing method's text; ages for people.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/bench.h"
#include "core/reftime.h"

static struct reftime_id base_id(void)
{
	struct reftime_id id;

	memset(&id, 0, sizeof(id));
	id.gpu_uuid = "GPU-aaaaaaaa-0000-0000-0000-000000000000";
	id.gpu_name = "NVIDIA H200";
	id.driver_version = 13000;
	id.kbx_version = "0.1.0";
	id.task_id = "Activation/gelu";
	id.ref_image_hash = "e6f8ccfc";
	id.row = 3;
	id.input_size = "[[1048576]]";
	id.seed = 0;
	id.method = "fixed warmup=25 rep=100";
	return id;
}

static void test_key_fields(void **state)
{
	struct reftime_id a = base_id(), b;
	char ka[65], kb[65];

	(void)state;
	reftime_key(&a, ka);
	assert_int_equal(strlen(ka), 64);
	b = base_id();
	reftime_key(&b, kb);
	assert_string_equal(ka, kb);            /* the same id, the same key */

#define CHANGED(stmt) do { b = base_id(); stmt; reftime_key(&b, kb); assert_string_not_equal(ka, kb); } while (0)
	CHANGED(b.gpu_uuid = "GPU-bbbbbbbb-0000-0000-0000-000000000000");
	CHANGED(b.gpu_name = "NVIDIA H100");
	CHANGED(b.driver_version = 12080);
	CHANGED(b.kbx_version = "0.1.1");
	CHANGED(b.task_id = "Activation/gelu_fp16");
	CHANGED(b.ref_image_hash = "e6f8ccfd");
	CHANGED(b.row = 4);
	CHANGED(b.input_size = "[[1048577]]");
	CHANGED(b.seed = 1);
	CHANGED(b.method = "noise rsd=0.005");
	/* a field's text cannot run into the next one's */
	CHANGED((b.task_id = "Activation/gelu\nref ", b.ref_image_hash = "e6f8ccfc"));
	CHANGED(b.gpu_uuid = NULL);
#undef CHANGED
}

static struct ref_timing kept_at(double at, double sm, double mem)
{
	struct ref_timing t;

	memset(&t, 0, sizeof(t));
	t.s.median = 0.6114;
	t.s.n = 120;
	t.clocks.valid = 2;
	t.clocks.sm_mhz = sm;
	t.clocks.mem_mhz = mem;
	t.measured_at = at;
	return t;
}

static void test_usable(void **state)
{
	struct clock_summary now;
	struct ref_timing k;
	char why[256];
	double t = 1.8e9;

	(void)state;
	memset(&now, 0, sizeof(now));
	now.valid = 2;
	now.sm_mhz = 1980;
	now.mem_mhz = 3201;

	k = kept_at(t - 3600, 1980, 3201);
	assert_int_equal(reftime_usable(&k, &now, t, REFTIME_MAX_AGE_S, why, sizeof(why)), 1);
	k = kept_at(t - 3600, 1980 * 1.015, 3201);  /* within the slack */
	assert_int_equal(reftime_usable(&k, &now, t, REFTIME_MAX_AGE_S, why, sizeof(why)), 1);

	k = kept_at(t - REFTIME_MAX_AGE_S - 1, 1980, 3201);
	assert_int_equal(reftime_usable(&k, &now, t, REFTIME_MAX_AGE_S, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "old (kept for 1 d 0 h)"));
	k = kept_at(t + 3600, 1980, 3201);         /* the clock went back: not trusted */
	assert_int_equal(reftime_usable(&k, &now, t, REFTIME_MAX_AGE_S, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "in the future"));

	k = kept_at(t - 60, 1755, 3201);           /* the GPU ran slower then */
	assert_int_equal(reftime_usable(&k, &now, t, REFTIME_MAX_AGE_S, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "SM 1755 MHz then, 1980 now"));
	k = kept_at(t - 60, 1980, 2619);
	assert_int_equal(reftime_usable(&k, &now, t, REFTIME_MAX_AGE_S, why, sizeof(why)), 0);
	k = kept_at(t - 60, 0, 3201);              /* a reading of 0 is no reading */
	assert_int_equal(reftime_usable(&k, &now, t, REFTIME_MAX_AGE_S, why, sizeof(why)), 0);

	k = kept_at(t - 60, 1980, 3201);
	k.clocks.valid = 0;
	assert_int_equal(reftime_usable(&k, &now, t, REFTIME_MAX_AGE_S, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "no clock readings"));
	k = kept_at(t - 60, 1980, 3201);
	assert_int_equal(reftime_usable(&k, NULL, t, REFTIME_MAX_AGE_S, why, sizeof(why)), 0);
	now.valid = 0;
	assert_int_equal(reftime_usable(&k, &now, t, REFTIME_MAX_AGE_S, why, sizeof(why)), 0);
	now.valid = 2;

	k = kept_at(t - 60, 1980, 3201);
	k.s.n = 0;
	assert_int_equal(reftime_usable(&k, &now, t, REFTIME_MAX_AGE_S, why, sizeof(why)), 0);
	k = kept_at(t - 60, 1980, 3201);
	k.s.median = 0;
	assert_int_equal(reftime_usable(&k, &now, t, REFTIME_MAX_AGE_S, why, sizeof(why)), 0);
}

static void test_method(void **state)
{
	struct bench_options a, b;
	char ma[256], mb[256];

	(void)state;
	bench_options_default(&a);
	b = a;
	reftime_method(&a, ma, sizeof(ma));
	reftime_method(&b, mb, sizeof(mb));
	assert_string_equal(ma, mb);
	assert_non_null(strstr(ma, "fixed warmup=25 rep=100"));
	b.rep_ms = 200;
	reftime_method(&b, mb, sizeof(mb));
	assert_string_not_equal(ma, mb);
	b = a;
	b.hide_latency = 1;
	reftime_method(&b, mb, sizeof(mb));
	assert_string_not_equal(ma, mb);
	b = a;
	b.mode = BENCH_NOISE;
	reftime_method(&b, mb, sizeof(mb));
	assert_string_not_equal(ma, mb);
}

static void test_age_text(void **state)
{
	char s[32];

	(void)state;
	reftime_age_text(42.4, s, sizeof(s));
	assert_string_equal(s, "42 s");
	reftime_age_text(-3, s, sizeof(s));
	assert_string_equal(s, "0 s");
	reftime_age_text(180, s, sizeof(s));
	assert_string_equal(s, "3 min");
	reftime_age_text(2 * 3600 + 5 * 60, s, sizeof(s));
	assert_string_equal(s, "2 h 5 min");
	reftime_age_text(86400 + 7200, s, sizeof(s));
	assert_string_equal(s, "1 d 2 h");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_fields),
		cmocka_unit_test(test_usable),
		cmocka_unit_test(test_method),
		cmocka_unit_test(test_age_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
