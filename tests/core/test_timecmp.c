/*
 * Tests for core/timecmp.c: both sides of every threshold of the SAME / FASTER / SLOWER /
 * UNCLEAR rule, clocks and throttling, unusable timings, garbage, and the run-level verdict.
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

#include "core/timecmp.h"

/* A run of n samples with median m and its p20..p80 at m * (1 -+ spread). No clocks. */
static struct timing_obs run(double m, double spread, int n)
{
	struct timing_obs o;

	memset(&o, 0, sizeof(o));
	o.s.median = m;
	o.s.p20 = m * (1 - spread);
	o.s.p80 = m * (1 + spread);
	o.s.min = o.s.p20;
	o.s.max = o.s.p80;
	o.s.mean = m;
	o.s.stddev = m * spread;
	o.s.n = n;
	return o;
}

/* A tight run (p20..p80 within 0.1%, 1000 samples) at SM clock mhz with reasons. */
static struct timing_obs clocked(double m, double mhz, unsigned long long reasons)
{
	struct timing_obs o = run(m, 0.001, 1000);

	o.sm_mhz = mhz;
	o.reasons = reasons;
	o.clocks_valid = 1;
	return o;
}

static char why[256];

static enum timing_change cmp(struct timing_obs now, struct timing_obs best)
{
	enum timing_change c;

	memset(why, 'x', sizeof(why));
	c = timing_compare(&now, &best, why, sizeof(why));
	/* every answer comes with a one-line reason */
	assert_true(strlen(why) > 0 && strlen(why) < sizeof(why));
	assert_null(strchr(why, '\n'));
	return c;
}

#define assert_why(s) \
	do { \
		if (!strstr(why, (s))) \
			fail_msg("why '%s' lacks '%s'", why, (s)); \
	} while (0)

static void test_equal_runs(void **state)
{
	(void)state;
	assert_int_equal(cmp(run(1, 0.001, 1000), run(1, 0.001, 1000)), TC_SAME);
	assert_string_equal(why, "no change, within the noise band of 1.0%; clocks not recorded");
	assert_int_equal(cmp(clocked(1, 1980, 0), clocked(1, 1980, 0)), TC_SAME);
	assert_string_equal(why, "no change, within the noise band of 1.0%");
	/* one sample each, equal */
	assert_int_equal(cmp(run(2, 0, 1), run(2, 0, 1)), TC_SAME);
}

/* The 1% floor, both sides, both directions, on runs whose spread is far below it. */
static void test_noise_floor(void **state)
{
	(void)state;
	assert_int_equal(cmp(run(1.009, 0.001, 1000), run(1, 0.001, 1000)), TC_SAME);
	assert_why("0.9% slower, within the noise band of 1.0%");
	assert_int_equal(cmp(run(1.012, 0.001, 1000), run(1, 0.001, 1000)), TC_SLOWER);
	assert_why("1.2% slower, outside the noise band of 1.0%");
	assert_int_equal(cmp(run(0.991, 0.001, 1000), run(1, 0.001, 1000)), TC_SAME);
	assert_why("0.9% faster");
	assert_int_equal(cmp(run(0.988, 0.001, 1000), run(1, 0.001, 1000)), TC_FASTER);
	assert_why("1.2% faster, outside the noise band of 1.0%");
	/* tiny differences keep a digit more */
	assert_int_equal(cmp(run(1.0004, 0.001, 1000), run(1, 0.001, 1000)), TC_SAME);
	assert_why("0.04% slower");
}

/* The band from the medians' standard errors, on few samples with a wide spread. */
static void test_standard_error_band(void **state)
{
	const double s = 0.02;
	const int n = 5;
	/* each run: 1.2533 * (2 s / 1.6832) / sqrt(n); two of them in quadrature, times 3 */
	double se = 1.2533 * (2 * s / 1.6832) / sqrt((double)n);
	double band = 3.0 * sqrt(2.0) * se;

	(void)state;
	assert_true(band > 0.05 && band < 0.06);
	/* beyond the p20..p80 overlap (4.1%) but inside the band: the band decides */
	assert_int_equal(cmp(run(1 + band * 0.98, s, n), run(1, s, n)), TC_SAME);
	assert_why("within the noise band of 5.7%");
	assert_int_equal(cmp(run(1 + band * 1.02, s, n), run(1, s, n)), TC_SLOWER);
	assert_why("outside the noise band of 5.7%");
	/* the same spread over many samples: the floor is the band again */
	assert_int_equal(cmp(run(1.045, s, 100000), run(1, s, 100000)), TC_SLOWER);
	assert_why("outside the noise band of 1.0%");
}

/* Beyond the band but with the middle samples overlapping: UNCLEAR. */
static void test_overlap(void **state)
{
	(void)state;
	/* +-5% spreads, many samples: band 1%, ranges overlap until about 10.5% */
	assert_int_equal(cmp(run(1.03, 0.05, 100000), run(1, 0.05, 100000)), TC_UNCLEAR);
	assert_why("3.0% slower, beyond the noise band of 1.0%, but the p20-p80 ranges overlap");
	assert_int_equal(cmp(run(0.97, 0.05, 100000), run(1, 0.05, 100000)), TC_UNCLEAR);
	assert_int_equal(cmp(run(1.10, 0.05, 100000), run(1, 0.05, 100000)), TC_UNCLEAR);
	assert_int_equal(cmp(run(1.11, 0.05, 100000), run(1, 0.05, 100000)), TC_SLOWER);
	assert_int_equal(cmp(run(0.90, 0.05, 100000), run(1, 0.05, 100000)), TC_FASTER);
	/* ranges that just touch overlap */
	{
		struct timing_obs now = run(1.1, 0, 100000), best = run(1, 0, 100000);

		now.s.p20 = 1.05;
		best.s.p80 = 1.05;
		assert_int_equal(cmp(now, best), TC_UNCLEAR);
		best.s.p80 = 1.0499;
		assert_int_equal(cmp(now, best), TC_SLOWER);
	}
}

/* One sample (a long kernel) or a handful: their spread says nothing, the floor is 3%. */
static void test_few_samples(void **state)
{
	(void)state;
	assert_int_equal(cmp(run(1.029, 0, 1), run(1, 0, 1)), TC_SAME);
	assert_why("within the noise band of 3.0%");
	assert_int_equal(cmp(run(1.031, 0, 1), run(1, 0, 1)), TC_SLOWER);
	assert_int_equal(cmp(run(0.969, 0, 1), run(1, 0, 1)), TC_FASTER);
	/* few on one side is enough */
	assert_int_equal(cmp(run(1.02, 0.001, 1000), run(1, 0, 4)), TC_SAME);
	assert_int_equal(cmp(run(1.02, 0, 4), run(1, 0.001, 1000)), TC_SAME);
	/* five samples are not few */
	assert_int_equal(cmp(run(1.02, 0.001, 5), run(1, 0.001, 5)), TC_SLOWER);
}

/* Half a microsecond is the least difference believed, whatever the relative floor. */
static void test_short_kernels(void **state)
{
	(void)state;
	/* 5 us: the band is 0.5 / 5 = 10% */
	assert_int_equal(cmp(run(0.00545, 0.001, 10000), run(0.005, 0.001, 10000)), TC_SAME);
	assert_why("9.0% slower, within the noise band of 10.0%");
	assert_int_equal(cmp(run(0.00555, 0.001, 10000), run(0.005, 0.001, 10000)), TC_SLOWER);
	assert_int_equal(cmp(run(0.00455, 0.001, 10000), run(0.005, 0.001, 10000)), TC_SAME);
	assert_int_equal(cmp(run(0.00445, 0.001, 10000), run(0.005, 0.001, 10000)), TC_FASTER);
	/* at 100 us it no longer matters */
	assert_int_equal(cmp(run(0.1012, 0.001, 10000), run(0.1, 0.001, 10000)), TC_SLOWER);
}

static void test_large_changes(void **state)
{
	(void)state;
	assert_int_equal(cmp(run(3, 0.01, 1000), run(1, 0.01, 1000)), TC_SLOWER);
	assert_why("3.0x slower");
	assert_int_equal(cmp(run(0.25, 0.01, 1000), run(1, 0.01, 1000)), TC_FASTER);
	assert_why("4.0x faster");
	assert_int_equal(cmp(run(0.876, 0.01, 1000), run(1, 0.01, 1000)), TC_FASTER);
	assert_why("12.4% faster, outside the noise band of 1.0%");
}

static void test_unusable(void **state)
{
	struct timing_obs good = run(1, 0.01, 1000), bad;

	(void)state;
	bad = run(0, 0, 1000);
	assert_int_equal(cmp(bad, good), TC_UNCLEAR);
	assert_string_equal(why, "this run has a median that is not positive");
	assert_int_equal(cmp(good, bad), TC_UNCLEAR);
	assert_string_equal(why, "the best run has a median that is not positive");
	bad = run(-1, 0.01, 1000);
	assert_int_equal(cmp(good, bad), TC_UNCLEAR);
	assert_why("not positive");
	bad = run(1, 0.01, 0);
	assert_int_equal(cmp(bad, good), TC_UNCLEAR);
	assert_string_equal(why, "this run has no samples");
	bad = run(1, 0.01, -3);
	assert_int_equal(cmp(good, bad), TC_UNCLEAR);
	assert_string_equal(why, "the best run has no samples");
	bad = run(NAN, 0, 10);
	assert_int_equal(cmp(bad, good), TC_UNCLEAR);
	assert_string_equal(why, "this run has no median");
	bad = run(INFINITY, 0, 10);
	assert_int_equal(cmp(good, bad), TC_UNCLEAR);
	assert_string_equal(why, "the best run has an infinite median");
	/* no observation at all, and no room for a reason */
	assert_int_equal(timing_compare(NULL, &good, why, sizeof(why)), TC_UNCLEAR);
	assert_int_equal(timing_compare(&good, NULL, NULL, 0), TC_UNCLEAR);
	assert_int_equal(timing_compare(&good, &good, NULL, 0), TC_SAME);
}

/* Quantiles that are missing or out of order collapse onto the median. */
static void test_odd_quantiles(void **state)
{
	struct timing_obs now = run(1.02, 0, 1000), best = run(1, 0, 1000);

	(void)state;
	now.s.p20 = now.s.p80 = NAN;
	best.s.p20 = NAN;
	best.s.p80 = INFINITY;
	assert_int_equal(cmp(now, best), TC_SLOWER);
	now.s.p20 = 5;     /* above the median */
	now.s.p80 = -5;    /* below it */
	assert_int_equal(cmp(now, best), TC_SLOWER);
	/* a negative p20 is only a wide spread, and a wide band */
	best.s.p20 = -1;
	best.s.p80 = 1;
	assert_int_equal(cmp(now, best), TC_SAME);
	assert_why("within the noise band of 14.");
}

static void test_clocks_differ(void **state)
{
	(void)state;
	/* 1755 vs 1980 MHz: up to 12.8% slower from the clock alone; believed beyond twice that */
	assert_int_equal(cmp(clocked(1.031, 1755, 0), clocked(1, 1980, 0)), TC_UNCLEAR);
	assert_string_equal(why, "3.1% slower but clocks differ (this run 1755 MHz, best 1980 MHz)");
	assert_int_equal(cmp(clocked(1.25, 1755, 0), clocked(1, 1980, 0)), TC_UNCLEAR);
	assert_int_equal(cmp(clocked(1.26, 1755, 0), clocked(1, 1980, 0)), TC_SLOWER);
	assert_why("26.0% slower, outside the noise band of 1.0%; clocks differ (this run 1755 MHz, best 1980 MHz)");
	/* faster at a lower clock: the clock works against it, so it stands */
	assert_int_equal(cmp(clocked(0.95, 1755, 0), clocked(1, 1980, 0)), TC_FASTER);
	assert_why("5.0% faster, outside the noise band of 1.0%; clocks differ");
	/* the same time at a lower clock could hide a real gain */
	assert_int_equal(cmp(clocked(1.005, 1755, 0), clocked(1, 1980, 0)), TC_UNCLEAR);
	assert_string_equal(why, "0.5% slower but clocks differ (this run 1755 MHz, best 1980 MHz)");

	/* the other way: this run had the higher clock, so faster is what it explains */
	assert_int_equal(cmp(clocked(0.95, 1980, 0), clocked(1, 1755, 0)), TC_UNCLEAR);
	assert_why("5.0% faster but clocks differ (this run 1980 MHz, best 1755 MHz)");
	assert_int_equal(cmp(clocked(0.77, 1980, 0), clocked(1, 1755, 0)), TC_FASTER);
	assert_int_equal(cmp(clocked(1.05, 1980, 0), clocked(1, 1755, 0)), TC_SLOWER);
}

/* Clocks within 3% are the same clocks. */
static void test_clock_tolerance(void **state)
{
	(void)state;
	assert_int_equal(cmp(clocked(1.005, 1980 * 0.971, 0), clocked(1, 1980, 0)), TC_SAME);
	assert_int_equal(cmp(clocked(1.005, 1980 * 0.969, 0), clocked(1, 1980, 0)), TC_UNCLEAR);
	assert_int_equal(cmp(clocked(1.005, 1980 * 1.029, 0), clocked(1, 1980, 0)), TC_SAME);
	assert_int_equal(cmp(clocked(1.005, 1980 * 1.031, 0), clocked(1, 1980, 0)), TC_UNCLEAR);
	/* a small clock difference explains only a small change */
	assert_int_equal(cmp(clocked(1.05, 1980 * 0.969, 0), clocked(1, 1980, 0)), TC_UNCLEAR);
	assert_int_equal(cmp(clocked(1.07, 1980 * 0.969, 0), clocked(1, 1980, 0)), TC_SLOWER);
}

static void test_clocks_missing(void **state)
{
	struct timing_obs now = clocked(1.05, 1755, 0), best = clocked(1, 1980, 0);

	(void)state;
	now.clocks_valid = 0;
	assert_int_equal(cmp(now, best), TC_SLOWER);
	assert_why("outside the noise band of 1.0%; clocks not recorded for this run");
	now = clocked(1.005, 1755, 0);
	best.clocks_valid = 0;
	assert_int_equal(cmp(now, best), TC_SAME);
	assert_why("within the noise band of 1.0%; clocks not recorded for the best run");
	/* valid but unusable clocks count as missing */
	best = clocked(1, NAN, 0);
	assert_int_equal(cmp(now, best), TC_SAME);
	best = clocked(1, 0, 0);
	assert_int_equal(cmp(now, best), TC_SAME);
	best = clocked(1, -1980, 0);
	assert_int_equal(cmp(now, best), TC_SAME);
	/* reasons come with clocks: without them they are not read */
	now = clocked(1.05, 1980, CLOCK_REASON_SW_POWER_CAP);
	now.clocks_valid = 0;
	assert_int_equal(cmp(now, clocked(1, 1980, 0)), TC_SLOWER);
}

static void test_throttled(void **state)
{
	const unsigned long long cap = CLOCK_REASON_SW_POWER_CAP, hot = CLOCK_REASON_SW_THERMAL;

	(void)state;
	/* this run power-capped at the same clock reading: up to 10% slower is explained, 2x believed */
	assert_int_equal(cmp(clocked(1.05, 1980, cap), clocked(1, 1980, 0)), TC_UNCLEAR);
	assert_string_equal(why, "5.0% slower but this run was throttled (power cap)");
	assert_int_equal(cmp(clocked(1.19, 1980, cap), clocked(1, 1980, 0)), TC_UNCLEAR);
	assert_int_equal(cmp(clocked(1.21, 1980, cap), clocked(1, 1980, 0)), TC_SLOWER);
	assert_why("; this run was throttled (power cap)");
	assert_int_equal(cmp(clocked(0.95, 1980, cap), clocked(1, 1980, 0)), TC_FASTER);
	assert_int_equal(cmp(clocked(1.005, 1980, cap), clocked(1, 1980, 0)), TC_UNCLEAR);
	assert_why("but this run was throttled (power cap)");

	/* the best run throttled: its time flattered this one */
	assert_int_equal(cmp(clocked(0.95, 1980, 0), clocked(1, 1980, hot)), TC_UNCLEAR);
	assert_string_equal(why, "5.0% faster but the best run was throttled (thermal)");
	assert_int_equal(cmp(clocked(1.05, 1980, 0), clocked(1, 1980, hot)), TC_SLOWER);

	/* both capped the same way at the same clock: same conditions */
	assert_int_equal(cmp(clocked(1.05, 1980, cap), clocked(1, 1980, cap)), TC_SLOWER);
	assert_int_equal(cmp(clocked(1.005, 1980, cap), clocked(1, 1980, cap)), TC_SAME);
	/* ... and idle or applications clocks alongside change nothing */
	assert_int_equal(cmp(clocked(1.05, 1980, cap | CLOCK_REASON_GPU_IDLE), clocked(1, 1980, cap)), TC_SLOWER);
	/* for different reasons, either direction is suspect */
	assert_int_equal(cmp(clocked(1.05, 1980, cap), clocked(1, 1980, hot)), TC_UNCLEAR);
	assert_string_equal(why, "5.0% slower but this run was throttled (power cap)");
	assert_int_equal(cmp(clocked(0.95, 1980, cap), clocked(1, 1980, hot)), TC_UNCLEAR);
	assert_int_equal(cmp(clocked(1.005, 1980, cap), clocked(1, 1980, hot)), TC_UNCLEAR);
	assert_why("both runs were throttled (this run power cap; best thermal)");

	/* reasons that are no slowdown do nothing */
	assert_int_equal(cmp(clocked(1.05, 1980, CLOCK_REASON_GPU_IDLE | CLOCK_REASON_APP_CLOCKS),
			     clocked(1, 1980, CLOCK_REASON_SYNC_BOOST)), TC_SLOWER);

	/* throttled and at a lower clock: the larger explanation counts, both are named */
	assert_int_equal(cmp(clocked(1.20, 1755, cap), clocked(1, 1980, 0)), TC_UNCLEAR);
	assert_string_equal(why, "20.0% slower but clocks differ (this run 1755 MHz, best 1980 MHz) and this run was "
			    "throttled (power cap)");
	assert_int_equal(cmp(clocked(1.26, 1755, cap), clocked(1, 1980, 0)), TC_SLOWER);
}

static void test_short_why(void **state)
{
	struct timing_obs now = clocked(1.20, 1755, CLOCK_REASON_SW_POWER_CAP), best = clocked(1, 1980, 0);
	char small[12];
	size_t len;

	(void)state;
	for (len = 1; len <= sizeof(small); len++) {
		memset(small, 'x', sizeof(small));
		assert_int_equal(timing_compare(&now, &best, small, len), TC_UNCLEAR);
		assert_true(strlen(small) == len - 1);
	}
}

/* Random and extreme inputs: an answer in range, a terminated reason, and the claims hold. */
static void test_garbage(void **state)
{
	static const double special[] = { NAN, INFINITY, -INFINITY, 0, -0.0, -1, 1e-300, 1e300, 5e-324, 1, 0.001,
					  1e-6, 2.5 };
	unsigned seed = 777;
	int iter;

	(void)state;
	for (iter = 0; iter < 100000; iter++) {
		struct timing_obs o[2];
		double *fields[2][3];
		enum timing_change c;
		int k, f;

		for (k = 0; k < 2; k++) {
			seed = seed * 1103515245u + 12345u;
			o[k] = run(0.5 + (seed >> 8) % 1000 / 1000.0, (seed >> 4) % 7 / 100.0, (int)((seed >> 12) % 2000) - 2);
			o[k].sm_mhz = 1500 + (seed >> 3) % 500;
			o[k].clocks_valid = (seed >> 20) & 1;
			o[k].reasons = (seed >> 21) & 1 ? 1ULL << ((seed >> 22) % 64) : 0;
			fields[k][0] = &o[k].s.median;
			fields[k][1] = &o[k].s.p20;
			fields[k][2] = &o[k].s.p80;
			/* now and then one figure is replaced by an extreme one */
			for (f = 0; f < 3; f++) {
				seed = seed * 1103515245u + 12345u;
				if ((seed >> 16) % 8 == 0)
					*fields[k][f] = special[(seed >> 8) % (sizeof(special) / sizeof(special[0]))];
			}
			seed = seed * 1103515245u + 12345u;
			if ((seed >> 16) % 16 == 0)
				o[k].sm_mhz = special[(seed >> 8) % (sizeof(special) / sizeof(special[0]))];
		}
		memset(why, 'x', sizeof(why));
		c = timing_compare(&o[0], &o[1], why, sizeof(why));
		assert_true(c == TC_SAME || c == TC_FASTER || c == TC_SLOWER || c == TC_UNCLEAR);
		assert_true(strlen(why) > 0 && strlen(why) < sizeof(why));
		if (c == TC_FASTER)
			assert_true(o[0].s.median < o[1].s.median);
		if (c == TC_SLOWER)
			assert_true(o[0].s.median > o[1].s.median);
		if (c == TC_FASTER || c == TC_SLOWER)
			assert_true(fabs(o[0].s.median / o[1].s.median - 1) > TC_NOISE_FLOOR);
		if (c != TC_UNCLEAR)
			assert_true(o[0].s.n > 0 && o[1].s.n > 0 && o[0].s.median > 0 && o[1].s.median > 0);
	}
}

static void test_obs_set(void **state)
{
	struct sample_stats s = { .median = 1, .p20 = 0.9, .p80 = 1.1, .n = 10 };
	struct clock_summary c;
	struct timing_obs o;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.sm_mhz = 1900;
	c.reasons = CLOCK_REASON_SW_POWER_CAP;
	c.reasons_valid = 1;
	c.valid = 2;
	timing_obs_set(&o, &s, &c);
	assert_true(o.s.median == 1 && o.s.n == 10 && o.sm_mhz == 1900 && o.clocks_valid);
	assert_true(o.reasons == CLOCK_REASON_SW_POWER_CAP);
	c.reasons_valid = 0;
	timing_obs_set(&o, &s, &c);
	assert_true(o.reasons == 0 && o.clocks_valid);
	c.valid = 0;
	timing_obs_set(&o, &s, &c);
	assert_true(!o.clocks_valid && o.sm_mhz == 0);
	timing_obs_set(&o, &s, NULL);
	assert_true(!o.clocks_valid && o.s.median == 1);
	timing_obs_set(&o, NULL, NULL);
	assert_true(o.s.n == 0);
}

static void test_names(void **state)
{
	enum timing_change c = TC_SAME;

	(void)state;
	assert_string_equal(timing_change_name(TC_SAME), "same");
	assert_string_equal(timing_change_name(TC_FASTER), "faster");
	assert_string_equal(timing_change_name(TC_SLOWER), "slower");
	assert_string_equal(timing_change_name(TC_UNCLEAR), "unclear");
	assert_string_equal(timing_change_name((enum timing_change)42), "unknown");
	assert_true(timing_change_parse("slower", &c) && c == TC_SLOWER);
	assert_true(timing_change_parse("FASTER", &c) && c == TC_FASTER);
	assert_true(timing_change_parse("Unclear", &c) && c == TC_UNCLEAR);
	assert_true(timing_change_parse("same", &c) && c == TC_SAME);
	c = TC_SAME;
	assert_false(timing_change_parse("fast", &c));
	assert_false(timing_change_parse("", &c));
	assert_false(timing_change_parse("same ", &c));
	assert_false(timing_change_parse(NULL, &c));
	assert_int_equal(c, TC_SAME);
}

static enum timing_change combine(const char *rows)
{
	enum timing_change v[32];
	size_t n = 0;

	for (; *rows; rows++)
		v[n++] = *rows == 'S' ? TC_SAME : *rows == 'F' ? TC_FASTER : *rows == 'L' ? TC_SLOWER
			 : *rows == 'U' ? TC_UNCLEAR : (enum timing_change)99;
	memset(why, 'x', sizeof(why));
	return timing_combine(v, n, why, sizeof(why));
}

static void test_combine(void **state)
{
	(void)state;
	assert_int_equal(combine(""), TC_UNCLEAR);
	assert_string_equal(why, "no rows to compare");
	assert_int_equal(timing_combine(NULL, 3, why, sizeof(why)), TC_UNCLEAR);
	assert_int_equal(combine("SSS"), TC_SAME);
	assert_string_equal(why, "3 same");
	assert_int_equal(combine("S"), TC_SAME);
	assert_int_equal(combine("FSS"), TC_FASTER);
	assert_string_equal(why, "1 faster, 2 same");
	assert_int_equal(combine("LSS"), TC_SLOWER);
	assert_int_equal(combine("FL"), TC_UNCLEAR);
	assert_int_equal(combine("FFFFL"), TC_UNCLEAR);
	assert_string_equal(why, "4 faster, 1 slower");
	/* unclear rows must be outnumbered */
	assert_int_equal(combine("FFU"), TC_FASTER);
	assert_int_equal(combine("FU"), TC_UNCLEAR);
	assert_int_equal(combine("FUSSSS"), TC_UNCLEAR);
	assert_int_equal(combine("LLUS"), TC_SLOWER);
	assert_int_equal(combine("LUU"), TC_UNCLEAR);
	assert_int_equal(combine("SSU"), TC_SAME);
	assert_string_equal(why, "2 same, 1 unclear");
	assert_int_equal(combine("SU"), TC_UNCLEAR);
	assert_int_equal(combine("UUU"), TC_UNCLEAR);
	/* a value outside the enum counts as unclear */
	assert_int_equal(combine("SS?"), TC_SAME);
	assert_string_equal(why, "2 same, 1 unclear");
	assert_int_equal(combine("S?"), TC_UNCLEAR);
	/* no room for a reason */
	{
		enum timing_change v[2] = { TC_FASTER, TC_SAME };
		char small[5];

		assert_int_equal(timing_combine(v, 2, NULL, 0), TC_FASTER);
		assert_int_equal(timing_combine(v, 2, small, sizeof(small)), TC_FASTER);
		assert_string_equal(small, "1 fa");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equal_runs),
		cmocka_unit_test(test_noise_floor),
		cmocka_unit_test(test_standard_error_band),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_few_samples),
		cmocka_unit_test(test_short_kernels),
		cmocka_unit_test(test_large_changes),
		cmocka_unit_test(test_unusable),
		cmocka_unit_test(test_odd_quantiles),
		cmocka_unit_test(test_clocks_differ),
		cmocka_unit_test(test_clock_tolerance),
		cmocka_unit_test(test_clocks_missing),
		cmocka_unit_test(test_throttled),
		cmocka_unit_test(test_short_why),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_obs_set),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_combine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
