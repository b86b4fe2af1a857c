/*
 * stagediag.c - how a wrong stage differs (see stagediag.h).
 */
#include "stagediag.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats.h"

/* Distinct values are counted (a sort) only up to this many elements: scale buffers are small,
 * and a stage diff of a large work buffer should not take seconds. */
#define DISTINCT_MAX ((size_t)1 << 20)

struct diffs {
	size_t n, differ;
	size_t nearer, farther, lower, higher; /* of the differing: |c| < |r|, |c| > |r|, c < r, c > r */
	size_t nonfinite;                      /* differing where either is NaN or infinite */
	double max_abs, max_rel, sum_abs;
	int within_one;                        /* every difference at most 1 */
};

static int same(double c, double r)
{
	return c == r || (isnan(c) && isnan(r));
}

static void count_diffs(enum dtype dt, const void *cand, const void *ref, size_t n, struct diffs *d)
{
	size_t i;

	*d = (struct diffs){ .n = n, .within_one = 1 };
	for (i = 0; i < n; i++) {
		double c = dtype_get(dt, cand, i, 0), r = dtype_get(dt, ref, i, 0), a = fabs(c - r);

		if (same(c, r))
			continue;
		d->differ++;
		d->nearer += fabs(c) < fabs(r);
		d->farther += fabs(c) > fabs(r);
		d->lower += c < r;
		d->higher += c > r;
		if (!(a <= 1.0))
			d->within_one = 0;
		if (!isfinite(a)) {
			d->nonfinite++;
		} else {
			d->max_abs = fmax(d->max_abs, a);
			d->sum_abs += a;
			if (r != 0 && a / fabs(r) > d->max_rel)
				d->max_rel = a / fabs(r);
		}
	}
}

/* The rounding line for integers all within one of the reference's. */
static void rounding_line(const struct diffs *d, char *buf, size_t len)
{
	const char *how = "";

	if (d->nearer == d->differ)
		how = " (truncation toward zero instead of rounding to the nearest?)";
	else if (d->lower == d->differ)
		how = " (floor instead of rounding to the nearest?)";
	else if (d->higher == d->differ)
		how = " (ceil instead of rounding to the nearest?)";
	snprintf(buf, len, "%zu of %zu values one step off (%zu nearer zero, %zu farther), none more: the rounding "
		 "mode differs%s", d->differ, d->n, d->nearer, d->farther, how);
}

/* Integers: how many sit at the reference's largest magnitude, and beyond it. Returns 1 when
 * that tells the story. */
static int range_line(enum dtype dt, const void *cand, const void *ref, size_t n, char *buf, size_t len)
{
	double top = 0;
	size_t i, at_c = 0, at_r = 0, beyond = 0;

	for (i = 0; i < n; i++)
		top = fmax(top, fabs(dtype_get(dt, ref, i, 0)));
	if (top == 0)
		return 0;
	for (i = 0; i < n; i++) {
		double c = fabs(dtype_get(dt, cand, i, 0));

		at_c += c == top;
		at_r += fabs(dtype_get(dt, ref, i, 0)) == top;
		beyond += c > top;
	}
	if (beyond) {
		snprintf(buf, len, "%zu of %zu values beyond the reference's largest |v| %g: a wider range (no clamp, "
			 "or a scale too small?)", beyond, n, top);
		return 1;
	}
	if (at_c >= 2 * at_r + 2 && at_c - at_r >= n / 100) {
		snprintf(buf, len, "%zu of %zu values at +-%g, the end of the reference's range, where it has %zu: "
			 "saturated (a scale too small for the values?)", at_c, n, top, at_r);
		return 1;
	}
	return 0;
}

/* Floats: the one ratio cand / ref where there is one; 0 when there is none. */
static double constant_ratio(enum dtype dt, const void *cand, const void *ref, size_t n)
{
	double k = 0, lo = 0, hi = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double c = dtype_get(dt, cand, i, 0), r = dtype_get(dt, ref, i, 0), q;

		if (!isfinite(c) || !isfinite(r) || (c == 0) != (r == 0))
			return 0;
		if (r == 0)
			continue;
		q = c / r;
		if (k == 0) {
			k = lo = hi = q;
			continue;
		}
		if (fabs(q - k) > 1e-4 * fabs(k))
			return 0;
		lo = fmin(lo, q);
		hi = fmax(hi, q);
	}
	/* Ratios that straddle 1 or spread as wide as their distance from it are rounding (another
	 * summation order, a narrower dtype on the way), not a factor; a factor as near 1 as
	 * n / (n - 1) stands well clear of its spread. */
	if (lo <= 1 && hi >= 1)
		return 0;
	if (fabs(k - 1) <= 4 * (hi - lo))
		return 0;
	return k;
}

/* Distinct values of a buffer (NaNs count as one); 0 when too large to count. */
static size_t distinct(enum dtype dt, const void *base, size_t n)
{
	double *v;
	size_t i, k = 0, nan = 0;

	if (n > DISTINCT_MAX)
		return 0;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return 0;
	for (i = 0; i < n; i++) {
		double x = dtype_get(dt, base, i, 0);

		if (isnan(x))
			nan = 1;
		else
			v[k++] = x;
	}
	qsort(v, k, sizeof(*v), stats_cmp_double);
	n = k;
	for (i = k = 0; i < n; i++)
		k += !i || v[i] != v[i - 1];
	free(v);
	return k + nan;
}

void stage_diagnose(enum dtype dt, const void *cand, const void *ref, size_t n, char *buf, size_t len)
{
	struct diffs d;

	if (!len)
		return;
	*buf = '\0';
	if (dtype_components(dt) != 1 || dt == DT_BOOL)
		return;
	count_diffs(dt, cand, ref, n, &d);
	if (!d.differ)
		return;
	if (!dtype_is_float(dt)) {
		if (d.within_one)
			rounding_line(&d, buf, len);
		else if (!range_line(dt, cand, ref, n, buf, len))
			snprintf(buf, len, "%zu of %zu values differ, by up to %g (mean %.3g)", d.differ, n, d.max_abs,
				 d.sum_abs / (double)d.differ);
		return;
	}
	{
		double k = constant_ratio(dt, cand, ref, n);
		size_t dc, dr;
		char frac[24];

		if (k != 0) {
			stats_usual_ratio(fabs(k), frac, sizeof(frac));
			/* near 1, enough digits that it does not print as 1 */
			snprintf(buf, len, "every value %.*g%s times the reference's: a constant factor (another divisor "
				 "or range?)", fabs(k - 1) < 0.01 ? 7 : 4, k, frac);
			return;
		}
		dc = distinct(dt, cand, n);
		dr = distinct(dt, ref, n);
		if (dc && dr >= 4 && 2 * dc <= dr) {
			snprintf(buf, len, "%zu distinct values where the reference has %zu: coarser (one value shared by "
				 "several rows or channels, as one scale per tensor or per batch?)", dc, dr);
			return;
		}
	}
	if (d.nonfinite)
		snprintf(buf, len, "%zu of %zu values differ (max abs %.3g, max rel %.3g; %zu where either is NaN "
			 "or infinite)", d.differ, n, d.max_abs, d.max_rel, d.nonfinite);
	else
		snprintf(buf, len, "%zu of %zu values differ (max abs %.3g, max rel %.3g)", d.differ, n, d.max_abs,
			 d.max_rel);
}

void stage_unpack(const void *src, size_t bytes, int bits, int is_signed, int32_t *dst)
{
	const unsigned char *p = src;
	const uint32_t mask = (1u << bits) - 1, sign = 1u << (bits - 1);
	size_t j, n = bytes * 8 / (size_t)bits;

	for (j = 0; j < n; j++) {
		size_t bit = j * (size_t)bits;
		uint32_t v = bits == 16 ? (uint32_t)p[2 * j] | (uint32_t)p[2 * j + 1] << 8
					: (uint32_t)p[bit / 8] >> (bit % 8) & mask;

		dst[j] = is_signed && (v & sign) ? (int32_t)v - (int32_t)(mask + 1) : (int32_t)v;
	}
}
