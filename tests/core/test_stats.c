/* Tests for core/stats.c: quantiles as torch.quantile / numpy's "linear", the KS test. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/stats.h"

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static void test_summarize_odd(void **state)
{
	double xs[5] = { 5, 1, 4, 2, 3 };
	struct sample_stats st;

	(void)state;
	stats_summarize(xs, 5, &st);
	assert_int_equal(st.n, 5);
	assert_near(st.median, 3, 1e-15);
	assert_near(st.p20, 1.8, 1e-15);        /* position 0.8 between 1 and 2 */
	assert_near(st.p80, 4.2, 1e-15);        /* position 3.2 between 4 and 5 */
	assert_near(st.min, 1, 0);
	assert_near(st.max, 5, 0);
	assert_near(st.mean, 3, 1e-15);
	assert_near(st.stddev, sqrt(2.5), 1e-15);  /* sample (n - 1) */
	/* the input is left as it was */
	assert_true(xs[0] == 5 && xs[1] == 1 && xs[4] == 3);
}

static void test_summarize_even(void **state)
{
	/* numpy.quantile([10, 20, 30, 40, 50, 60, 70, 80], [.2, .5, .8]) = [24, 45, 66] */
	double xs[8] = { 80, 10, 70, 20, 60, 30, 50, 40 };
	double ys[4] = { 4, 3, 2, 1 };
	struct sample_stats st;

	(void)state;
	stats_summarize(xs, 8, &st);
	assert_near(st.p20, 24, 1e-12);
	assert_near(st.median, 45, 1e-12);
	assert_near(st.p80, 66, 1e-12);
	assert_near(st.mean, 45, 1e-12);
	assert_near(st.stddev, sqrt(600.0), 1e-12);
	stats_summarize(ys, 4, &st);
	assert_near(st.median, 2.5, 1e-15);
	assert_near(st.p20, 1.6, 1e-15);
	assert_near(st.p80, 3.4, 1e-15);
}

static void test_summarize_small(void **state)
{
	double one = 0.125;
	struct sample_stats st;

	(void)state;
	stats_summarize(&one, 1, &st);
	assert_int_equal(st.n, 1);
	assert_true(st.median == 0.125 && st.p20 == 0.125 && st.p80 == 0.125);
	assert_true(st.min == 0.125 && st.max == 0.125 && st.mean == 0.125);
	assert_true(st.stddev == 0);
	stats_summarize(NULL, 0, &st);
	assert_int_equal(st.n, 0);
	assert_true(isnan(st.median) && isnan(st.mean));
}

/* Timings that differ only in the last digits: a one-pass variance would lose them. */
static void test_stddev_close_values(void **state)
{
	double xs[4] = { 1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4 };
	struct sample_stats st;

	(void)state;
	stats_summarize(xs, 4, &st);
	assert_near(st.stddev, sqrt(5.0 / 3), 1e-6);
	assert_near(st.median, 1e9 + 2.5, 1e-6);
}

static void test_quantile_sorted(void **state)
{
	double s[7] = { 10, 20, 30, 40, 50, 60, 70 };

	(void)state;
	assert_near(stats_quantile_sorted(s, 7, 0), 10, 0);
	assert_near(stats_quantile_sorted(s, 7, 1), 70, 0);
	assert_near(stats_quantile_sorted(s, 7, 0.2), 22, 1e-12);   /* position 1.2 */
	assert_near(stats_quantile_sorted(s, 7, 0.5), 40, 1e-12);
	assert_near(stats_quantile_sorted(s, 7, 0.9), 64, 1e-12);   /* position 5.4 */
	assert_near(stats_quantile_sorted(s, 7, -1), 10, 0);
	assert_near(stats_quantile_sorted(s, 7, 2), 70, 0);
	assert_true(isnan(stats_quantile_sorted(s, 0, 0.5)));
}

/* The usual ratios are named with their smallest denominator; others, and whole numbers, not. */
static void test_usual_ratio(void **state)
{
	char b[24];

	(void)state;
	stats_usual_ratio(127.0 / 255.0, b, sizeof(b));
	assert_string_equal(b, " (127/255)");
	stats_usual_ratio(0.875, b, sizeof(b));
	assert_string_equal(b, " (7/8)");
	stats_usual_ratio(0.5 * (1 + 1e-5), b, sizeof(b));
	assert_string_equal(b, " (1/2)");
	stats_usual_ratio(2, b, sizeof(b));
	assert_string_equal(b, "");
	stats_usual_ratio(0.9812, b, sizeof(b));
	assert_string_equal(b, "");
	stats_usual_ratio(NAN, b, sizeof(b));
	assert_string_equal(b, "");
	stats_usual_ratio(0.5, b, 0);            /* no room: nothing written */
}

static void test_ks_exact(void **state)
{
	double xs[3] = { 0.9, 0.1, 0.5 };
	double lin[100];
	double p;

	(void)state;
	/* D = max(1/3 - 0.1, 0.9 - 2/3) = 0.2333; p from Q_KS((sqrt(3) + 0.12 + 0.11/sqrt(3)) D) */
	assert_near(stats_ks_uniform(xs, 3, &p), 0.7 / 3, 1e-15);
	assert_near(p, 0.9883352304122823, 1e-9);
	assert_true(xs[0] == 0.9);

	/* samples squeezed into [0, s]: D = 1 - s. Values from the series summed to 200 terms,
	 * on both sides of the switch between the two forms of Q_KS (lambda = 1.18). */
	{
		static const double cases[][3] = {
			{ 0.8, 0.2, 0.0005433126073938185 },
			{ 0.9, 0.1, 0.2562211850701043 },
			{ 0.885, 0.115, 0.13240416642200814 },
			{ 0.8836, 0.1164, 0.12389209406339519 },
			{ 0.883, 0.117, 0.12038368543713196 },
			{ 0.95, 0.05, 0.9596004458626862 },
			{ 0.99, 0.01, 1.0 },
		};
		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			for (int i = 0; i < 100; i++)
				lin[i] = (double)(i + 1) / 100 * cases[k][0];
			assert_near(stats_ks_uniform(lin, 100, &p), cases[k][1], 1e-12);
			assert_near(p, cases[k][2], 1e-9);
		}
	}

	/* p-value pointer may be NULL; out-of-range samples count as 0 or 1 */
	{
		double out[2] = { -5, 7 };
		assert_near(stats_ks_uniform(out, 2, NULL), 0.5, 1e-15);
	}
	assert_near(stats_ks_uniform(NULL, 0, &p), 0, 0);
	assert_near(p, 1, 0);
	{
		double withnan[3] = { 0.2, NAN, 0.7 };
		assert_near(stats_ks_uniform(withnan, 3, &p), 1, 0);
		assert_near(p, 0, 0);
	}
}

static uint64_t rng_state = 12345;

static double unit(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

static void test_ks_uniform_vs_skewed(void **state)
{
	enum { N = 10000 };
	static double xs[N];
	double p, d;

	(void)state;
	for (int i = 0; i < N; i++)
		xs[i] = unit();
	d = stats_ks_uniform(xs, N, &p);
	assert_true(d < 0.02);
	assert_true(p > 0.01);

	/* u^2 leans towards 0: D -> max(sqrt(x) - x) = 0.25 */
	for (int i = 0; i < N; i++)
		xs[i] = unit() * unit();
	d = stats_ks_uniform(xs, N, &p);
	assert_true(d > 0.2);
	assert_true(p < 1e-12);
	for (int i = 0; i < N; i++) {
		double u = unit();
		xs[i] = u * u;
	}
	d = stats_ks_uniform(xs, N, &p);
	assert_near(d, 0.25, 0.02);
	assert_true(p < 1e-12);

	/* a generator stuck in half the range */
	for (int i = 0; i < N; i++)
		xs[i] = 0.5 * unit();
	d = stats_ks_uniform(xs, N, &p);
	assert_near(d, 0.5, 0.01);
	assert_true(p < 1e-12);

	/* evenly spaced points are as uniform as it gets */
	for (int i = 0; i < N; i++)
		xs[i] = (i + 0.5) / N;
	d = stats_ks_uniform(xs, N, &p);
	assert_near(d, 0.5 / N, 1e-12);
	assert_near(p, 1, 1e-9);
}

/* D by the definition, on a copy sorted with qsort: what stats_ks_uniform's bucket sort must
 * reproduce exactly. */
static double ks_by_qsort(const double *xs, size_t n)
{
	double *s = malloc(n * sizeof(*s)), d = 0;

	assert_non_null(s);
	memcpy(s, xs, n * sizeof(*s));
	qsort(s, n, sizeof(*s), stats_cmp_double);
	for (size_t i = 0; i < n; i++) {
		double f = s[i] < 0 ? 0 : s[i] > 1 ? 1 : s[i];

		d = fmax(d, fmax((double)(i + 1) / (double)n - f, f - (double)i / (double)n));
	}
	free(s);
	return d;
}

/* The bucket sort behind stats_ks_uniform orders as qsort does on what a generator gets wrong:
 * values below 0 and above 1, infinities, signed zeros, ties, everything in one bucket (sorted by
 * qsort there), a descending run, values at the buckets' edges. */
static void test_ks_sort_matches_qsort(void **state)
{
	enum { N = 5000 };
	static double xs[N];
	double p;

	(void)state;
	for (int shape = 0; shape < 7; shape++) {
		for (int i = 0; i < N; i++) {
			double u = unit();

			switch (shape) {
			case 0: xs[i] = 3 * u - 1; break;                            /* -1 .. 2 */
			case 1: xs[i] = i % 7 == 0 ? (i % 2 ? -0.0 : 0.0) : floor(u * 10) / 10; break;  /* ties */
			case 2: xs[i] = 1e-9 * u; break;                             /* one bucket */
			case 3: xs[i] = (double)(N - i) / N; break;                  /* descending, edges */
			case 4: xs[i] = i % 3 == 0 ? INFINITY : i % 3 == 1 ? -INFINITY : u; break;
			case 5: xs[i] = u < 0.5 ? 0.5 - 1e-12 * u : u; break;         /* a crowded middle */
			default: xs[i] = nextafter(1.0, 0) * (i % 2) + u * 1e-300; break;
			}
		}
		assert_near(stats_ks_uniform(xs, N, &p), ks_by_qsort(xs, N), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summarize_odd),
		cmocka_unit_test(test_summarize_even),
		cmocka_unit_test(test_summarize_small),
		cmocka_unit_test(test_stddev_close_values),
		cmocka_unit_test(test_quantile_sorted),
		cmocka_unit_test(test_usual_ratio),
		cmocka_unit_test(test_ks_exact),
		cmocka_unit_test(test_ks_uniform_vs_skewed),
		cmocka_unit_test(test_ks_sort_matches_qsort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
