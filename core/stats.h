/*
 * stats.h - summary statistics of timing samples and the distribution verifier's tests.
 *
 * Quantiles use linear interpolation between order statistics, as torch.quantile does (and so
 * triton.testing.do_bench).
 */
#ifndef KBX_STATS_H
#define KBX_STATS_H

#include <stddef.h>

struct sample_stats {
	double median, p20, p80, min, max, mean, stddev;
	int n;
};

/* Sorts a copy; xs untouched. stddev is the sample one (n - 1), 0 for one sample; with no
 * samples every figure is NaN and n is 0. */
void stats_summarize(const double *xs, int n, struct sample_stats *out);
/* q clamped to [0, 1]; NaN when n <= 0. */
double stats_quantile_sorted(const double *sorted, int n, double q);
/* qsort's comparison of doubles, ascending, NaN last (a consistent order whatever they hold). */
int stats_cmp_double(const void *a, const void *b);
/* " (p/q)" when x > 0 is within 1e-4 of p/q for q among the ranges quantization divides by (1 to
 * 8, 15, 16, 127, 128, 255, 256) and p <= 1024, the smallest such q; "" otherwise (and for q = 1). */
void stats_usual_ratio(double x, char *buf, size_t len);

/* Kolmogorov-Smirnov statistic D of samples against U(0, 1) (exact, over the sorted samples;
 * values outside [0, 1] count as 0 or 1), and, when p_value is not NULL, its asymptotic p-value
 * Q_KS((sqrt(n) + 0.12 + 0.11/sqrt(n)) D) (Stephens' correction). No samples: D = 0, p = 1;
 * any NaN sample: D = 1, p = 0. */
double stats_ks_uniform(const double *xs, size_t n, double *p_value);

#endif
