#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int stats_cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a > b) - (a < b);
}

void stats_usual_ratio(double x, char *buf, size_t len)
{
	static const int qs[] = { 1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 127, 128, 255, 256 };
	size_t k;

	if (!len)
		return;
	*buf = '\0';
	for (k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		double p = nearbyint(x * qs[k]);

		if (p >= 1 && p <= 1024 && fabs(p / qs[k] - x) <= 1e-4 * x) {
			if (qs[k] > 1)
				snprintf(buf, len, " (%.0f/%d)", p, qs[k]);
			return;
		}
	}
}

double stats_quantile_sorted(const double *sorted, int n, double q)
{
	double pos, frac;
	int lo, hi;

	if (n <= 0 || isnan(q))
		return NAN;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	pos = q * (n - 1);
	lo = (int)floor(pos);
	hi = lo + 1 < n ? lo + 1 : n - 1;
	frac = pos - lo;
	return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

void stats_summarize(const double *xs, int n, struct sample_stats *out)
{
	double *s, sum = 0, ss = 0;
	int i;

	memset(out, 0, sizeof(*out));
	out->n = n > 0 ? n : 0;
	if (n <= 0) {
		out->median = out->p20 = out->p80 = NAN;
		out->min = out->max = out->mean = out->stddev = NAN;
		return;
	}
	s = xmalloc((size_t)n * sizeof(*s));
	memcpy(s, xs, (size_t)n * sizeof(*s));
	qsort(s, (size_t)n, sizeof(*s), stats_cmp_double);
	out->median = stats_quantile_sorted(s, n, 0.5);
	out->p20 = stats_quantile_sorted(s, n, 0.2);
	out->p80 = stats_quantile_sorted(s, n, 0.8);
	out->min = s[0];
	out->max = s[n - 1];
	for (i = 0; i < n; i++)
		sum += s[i];
	out->mean = sum / n;
	/* Two passes: the textbook one-pass formula loses everything when samples are close. */
	for (i = 0; i < n; i++)
		ss += (s[i] - out->mean) * (s[i] - out->mean);
	out->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0;
	free(s);
}

/*
 * Q_KS(lambda) = 2 sum_{j>=1} (-1)^(j-1) exp(-2 j^2 lambda^2). The alternating series converges
 * fast for large lambda only; below 1.18 the equivalent theta-function form
 * 1 - sqrt(2 pi)/lambda sum_{j>=1} exp(-(2j-1)^2 pi^2 / (8 lambda^2)) is used (Numerical Recipes,
 * 3rd ed., 6.14).
 */
static double kolmogorov_q(double lambda)
{
	double sum = 0;
	int j;

	if (!(lambda > 0))
		return 1;
	if (lambda < 1.18) {
		double y = exp(-M_PI * M_PI / (8 * lambda * lambda));
		for (j = 1; j <= 20; j++) {
			double term = pow(y, (double)((2 * j - 1) * (2 * j - 1)));
			sum += term;
			if (term < 1e-17 * sum)
				break;
		}
		return 1 - sqrt(2 * M_PI) / lambda * sum;
	}
	for (j = 1; j <= 100; j++) {
		double term = exp(-2.0 * j * j * lambda * lambda);
		sum += (j % 2 ? 2 : -2) * term;
		if (term < 1e-17)
			break;
	}
	return sum;
}

/* xs sorted as qsort with stats_cmp_double would (NaN last), in O(n) for values spread over
 * [0, 1]: a counting sort into n buckets of width 1 / n (below 0 and NaN in the first and last),
 * then each bucket sorted, by insertion where it is small. A KS test of 4 M values spent most of
 * its time in qsort (Random/rand on the H200, 2026-12-03). */
#define SORT_UNIT_SMALL 32

static size_t unit_bucket(double x, size_t n)
{
	if (isnan(x) || x >= 1)
		return n - 1;
	if (!(x > 0))
		return 0;
	return (size_t)(x * (double)n) < n ? (size_t)(x * (double)n) : n - 1;
}

static double *sort_unit(const double *xs, size_t n)
{
	double *s = xmalloc(n * sizeof(*s));
	size_t *start = xcalloc(n + 1, sizeof(*start)), *fill, i, b;

	for (i = 0; i < n; i++)
		start[unit_bucket(xs[i], n) + 1]++;
	for (b = 0; b < n; b++)
		start[b + 1] += start[b];
	fill = xmalloc(n * sizeof(*fill));
	memcpy(fill, start, n * sizeof(*fill));
	for (i = 0; i < n; i++)
		s[fill[unit_bucket(xs[i], n)]++] = xs[i];
	free(fill);
	for (b = 0; b < n; b++) {
		size_t lo = start[b], hi = start[b + 1], j;

		if (hi - lo > SORT_UNIT_SMALL) {
			qsort(s + lo, hi - lo, sizeof(*s), stats_cmp_double);
			continue;
		}
		for (i = lo + 1; i < hi; i++) {
			double v = s[i];

			for (j = i; j > lo && stats_cmp_double(&s[j - 1], &v) > 0; j--)
				s[j] = s[j - 1];
			s[j] = v;
		}
	}
	free(start);
	return s;
}

double stats_ks_uniform(const double *xs, size_t n, double *p_value)
{
	double *s, d = 0, en, p;
	size_t i;

	if (n == 0) {
		if (p_value)
			*p_value = 1;
		return 0;
	}
	s = sort_unit(xs, n);
	if (isnan(s[n - 1])) {
		/* A NaN is no draw from U(0, 1) at all. */
		free(s);
		if (p_value)
			*p_value = 0;
		return 1;
	}
	for (i = 0; i < n; i++) {
		double f = s[i] < 0 ? 0 : s[i] > 1 ? 1 : s[i];
		double above = (double)(i + 1) / (double)n - f;
		double below = f - (double)i / (double)n;
		if (above > d)
			d = above;
		if (below > d)
			d = below;
	}
	free(s);
	if (p_value) {
		en = sqrt((double)n);
		p = kolmogorov_q((en + 0.12 + 0.11 / en) * d);
		*p_value = p < 0 ? 0 : p > 1 ? 1 : p;
	}
	return d;
}
