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

/* Sorts a copy; xs untouched. */
void stats_summarize(const double *xs, int n, struct sample_stats *out);
double stats_quantile_sorted(const double *sorted, int n, double q);

/* Kolmogorov-Smirnov statistic of samples against U(0, 1), and its asymptotic p-value. */
double stats_ks_uniform(const double *xs, size_t n, double *p_value);

#endif
