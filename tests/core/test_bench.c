/* Tests for core/bench.c's decisions (the GPU part runs in tests/gpu/timing.sh). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/bench.h"

static void test_defaults_are_do_bench(void **state)
{
	struct bench_options o;

	(void)state;
	bench_options_default(&o);
	assert_int_equal(o.mode, BENCH_FIXED);
	assert_true(o.warmup_ms == 25 && o.rep_ms == 100);
	assert_int_equal(o.max_rep, 100000);
	assert_int_equal(o.hide_latency, 0);
	assert_true(bench_budget_s(&o) == 0.125);
	o.mode = BENCH_NOISE;
	assert_true(bench_budget_s(&o) == (25 + o.max_ms) / 1000);
}

static void test_fixed_count(void **state)
{
	(void)state;
	/* do_bench: max(1, int(rep / est)) */
	assert_int_equal(bench_fixed_count(100, 1, 100000), 100);
	assert_int_equal(bench_fixed_count(100, 0.3, 100000), 333);
	assert_int_equal(bench_fixed_count(100, 250, 100000), 1);
	assert_int_equal(bench_fixed_count(100, 99.9, 100000), 1);
	/* a zero, negative or NaN estimate counts as 1e-4 ms, then the cap */
	assert_int_equal(bench_fixed_count(100, 0, 100000), 100000);
	assert_int_equal(bench_fixed_count(100, -5, 50), 50);
	assert_int_equal(bench_fixed_count(100, NAN, 7), 7);
	assert_int_equal(bench_fixed_count(0, 1, 100), 1);
	assert_int_equal(bench_fixed_count(1e300, 1e-300, 100000), 100000);
}

static void test_noise_stop(void **state)
{
	struct bench_options o;
	const char *why = NULL;

	(void)state;
	bench_options_default(&o);
	o.mode = BENCH_NOISE;
	o.rsd_target = 0.01;
	o.min_samples = 10;
	o.min_ms = 10;
	o.max_ms = 1000;
	/* quiet enough but too few samples, or too little time */
	assert_false(bench_noise_done(&o, 9, 0.001, 50, &why));
	assert_false(bench_noise_done(&o, 100, 0.001, 9.9, &why));
	/* every condition met */
	assert_true(bench_noise_done(&o, 10, 0.01, 10, &why));
	assert_string_equal(why, "noise");
	/* too noisy: goes on until the cap */
	assert_false(bench_noise_done(&o, 5000, 0.0101, 999, &why));
	assert_true(bench_noise_done(&o, 5000, 0.5, 1000, &why));
	assert_string_equal(why, "cap");
	/* the cap wins even with too few samples (a call longer than max_ms) */
	assert_true(bench_noise_done(&o, 1, INFINITY, 2000, &why));
	assert_string_equal(why, "cap");
	/* an undefined deviation (fewer than 2 samples) never meets the target */
	assert_false(bench_noise_done(&o, 1, NAN, 20, &why));
}

static void test_mode_names(void **state)
{
	(void)state;
	assert_int_equal(bench_mode_parse("fixed"), BENCH_FIXED);
	assert_int_equal(bench_mode_parse("noise"), BENCH_NOISE);
	assert_int_equal(bench_mode_parse(""), -1);
	assert_int_equal(bench_mode_parse("Noise"), -1);
	assert_int_equal(bench_mode_parse("noise "), -1);
	assert_string_equal(bench_mode_name(BENCH_FIXED), "fixed");
	assert_string_equal(bench_mode_name(BENCH_NOISE), "noise");
}

/* A run that fills the launch queue shrinks its own later batches and nobody else's: the batch
 * that fit lives in the run's bench_memory, not in the process. */
static void test_hold_batch_is_per_run(void **state)
{
	struct bench_memory first = { 0 }, second = { 0 };
	struct bench_options a, b, none;
	int batch, dropped = 0;

	(void)state;
	bench_options_default(&a);
	bench_options_default(&b);
	bench_options_default(&none);
	assert_null(none.memory);
	a.memory = &first;
	b.memory = &second;
	assert_int_equal(bench_hold_batch(&a), 64);
	/* run a: two batches dropped, its later rows start at 16 */
	batch = bench_hold_batch(&a);
	assert_int_equal(bench_batch_dropped(&a, &batch, &dropped), KBX_OK);
	assert_int_equal(bench_batch_dropped(&a, &batch, &dropped), KBX_OK);
	assert_int_equal(batch, 16);
	assert_int_equal(dropped, 2);
	assert_int_equal(bench_hold_batch(&a), 16);
	/* a later run, and a call without a memory, start from 64 */
	assert_int_equal(bench_hold_batch(&b), 64);
	assert_int_equal(bench_hold_batch(&none), 64);
	batch = 8;
	dropped = 0;
	assert_int_equal(bench_batch_dropped(&none, &batch, &dropped), KBX_OK);
	assert_int_equal(batch, 4);
	assert_int_equal(bench_hold_batch(&none), 64);
	assert_int_equal(bench_hold_batch(&a), 16);
	assert_int_equal(bench_hold_batch(&b), 64);
}

/* A batch of one that still times out, or a 21st drop, ends the measurement. */
static void test_hold_batch_gives_up(void **state)
{
	struct bench_memory m = { 0 };
	struct bench_options o;
	int batch = 1, dropped = 0;

	(void)state;
	bench_options_default(&o);
	o.memory = &m;
	assert_int_equal(bench_batch_dropped(&o, &batch, &dropped), KBX_ETIMEOUT);
	batch = 1 << 30;
	dropped = 20;
	assert_int_equal(bench_batch_dropped(&o, &batch, &dropped), KBX_ETIMEOUT);
	assert_int_equal(dropped, 21);
	assert_int_equal(bench_hold_batch(&o), 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_are_do_bench),
		cmocka_unit_test(test_fixed_count),
		cmocka_unit_test(test_noise_stop),
		cmocka_unit_test(test_mode_names),
		cmocka_unit_test(test_hold_batch_is_per_run),
		cmocka_unit_test(test_hold_batch_gives_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
