/*
 * timecmp.c - the SAME / FASTER / SLOWER / UNCLEAR rule of timecmp.h.
 */
#include "timecmp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *timing_change_name(enum timing_change c)
{
	switch (c) {
#define TIMING_CHANGE_CASE(id, name) case id: return name;
	TIMING_CHANGE_LIST(TIMING_CHANGE_CASE)
#undef TIMING_CHANGE_CASE
	}
	return "unknown";
}

int timing_change_parse(const char *name, enum timing_change *out)
{
	if (!name)
		return 0;
#define TIMING_CHANGE_PARSE(id, text) \
	if (!strcasecmp(name, text)) { \
		*out = id; \
		return 1; \
	}
	TIMING_CHANGE_LIST(TIMING_CHANGE_PARSE)
#undef TIMING_CHANGE_PARSE
	return 0;
}

void timing_obs_set(struct timing_obs *o, const struct sample_stats *s, const struct clock_summary *c)
{
	memset(o, 0, sizeof(*o));
	if (s)
		o->s = *s;
	if (c && c->valid && c->sm_mhz > 0) {
		o->sm_mhz = c->sm_mhz;
		o->reasons = c->reasons_valid ? c->reasons : 0;
		o->clocks_valid = 1;
	}
}

/* ---- the rule ----------------------------------------------------------------------------- */

/* Width of a normal distribution's p20..p80 in standard deviations: 2 * 0.8416. */
#define P20_P80_SIGMAS 1.6832
/* Standard error of a sample median over that of a mean, for a normal distribution: sqrt(pi/2). */
#define MEDIAN_SE_FACTOR 1.2533

/* A run's timing, checked and made consistent, in the terms the rule uses. */
struct run {
	double median, lo, hi;   /* lo <= median <= hi: the p20..p80 range */
	double se;               /* standard error of the median over the median */
	int n;
	int clocks;              /* SM clock known and positive */
	double mhz;
	unsigned long long slow; /* slowdown reasons, when clocks */
};

static int finite_positive(double x)
{
	return isfinite(x) && x > 0;
}

static void run_from(const struct timing_obs *o, struct run *r)
{
	const struct sample_stats *s = &o->s;

	memset(r, 0, sizeof(*r));
	r->median = s->median;
	r->n = s->n;
	/* Missing or inconsistent quantiles collapse onto the median rather than invent a spread. */
	r->lo = isfinite(s->p20) && s->p20 < s->median ? s->p20 : s->median;
	r->hi = isfinite(s->p80) && s->p80 > s->median ? s->p80 : s->median;
	if (r->n >= 2)
		r->se = MEDIAN_SE_FACTOR * ((r->hi - r->lo) / P20_P80_SIGMAS) / sqrt((double)r->n) / r->median;
	r->clocks = o->clocks_valid && finite_positive(o->sm_mhz);
	if (r->clocks) {
		r->mhz = o->sm_mhz;
		r->slow = o->reasons & CLOCK_REASONS_SLOWDOWN;
	}
}

/* "3.1%", "0.04%": enough digits to tell a small difference from none. */
static void fmt_pct(double frac, char *buf, size_t len)
{
	double p = fabs(frac) * 100;

	snprintf(buf, len, p < 0.1 ? "%.2f%%" : "%.1f%%", p);
}

/* "3.1% slower", "12.4% faster", "2.5x slower"; ratio = now / best. */
static void fmt_change(double ratio, char *buf, size_t len)
{
	char pct[32];

	if (ratio >= 2)
		snprintf(buf, len, "%.1fx slower", ratio);
	else if (ratio <= 0.5)
		snprintf(buf, len, "%.1fx faster", 1 / ratio);
	else if (ratio == 1)
		snprintf(buf, len, "no change");
	else {
		fmt_pct(ratio - 1, pct, sizeof(pct));
		snprintf(buf, len, "%s %s", pct, ratio > 1 ? "slower" : "faster");
	}
}

/*
 * What the two runs' conditions could do to the time of this run relative to the best:
 * make it up to `slower` (a fraction) slower, or up to `faster` faster. Each also says which
 * conditions are behind it, as bits: CLOCKS for a clock difference in that direction, NOW and
 * BEST for a run throttled (differently from the other).
 */
enum { COND_CLOCKS = 1, COND_NOW = 2, COND_BEST = 4 };

struct conditions {
	double slower, faster;
	int slower_why, faster_why;
	int clocks_differ, both_clocks;
};

static void conditions_of(const struct run *now, const struct run *best, struct conditions *c)
{
	int same_slowdown;

	memset(c, 0, sizeof(*c));
	c->both_clocks = now->clocks && best->clocks;
	if (c->both_clocks && fabs(now->mhz / best->mhz - 1) > TC_CLOCK_TOL) {
		/* A fully clock-bound kernel's time goes as 1 / clock: ratio of times best / now. */
		double q = best->mhz / now->mhz;

		c->clocks_differ = 1;
		if (q > 1) {
			c->slower = q - 1;
			c->slower_why |= COND_CLOCKS;
		} else {
			c->faster = 1 - q;
			c->faster_why |= COND_CLOCKS;
		}
	}
	same_slowdown = now->slow && now->slow == best->slow;
	if (now->slow && !same_slowdown) {
		c->slower = fmax(c->slower, TC_THROTTLE_SLACK);
		c->slower_why |= COND_NOW;
	}
	if (best->slow && !same_slowdown) {
		c->faster = fmax(c->faster, TC_THROTTLE_SLACK);
		c->faster_why |= COND_BEST;
	}
}

/* "clocks differ (this run 1755 MHz, best 1980 MHz) and this run was throttled (power cap)" */
static void fmt_conditions(int why, const struct run *now, const struct run *best, char *buf, size_t len)
{
	char a[96], b[96];
	size_t used = 0;
	int k;

	buf[0] = '\0';
	if (why & COND_CLOCKS) {
		k = snprintf(buf, len, "clocks differ (this run %.0f MHz, best %.0f MHz)", now->mhz, best->mhz);
		used = k < 0 ? len : (size_t)k;
	}
	clock_reasons_text(now->slow, a, sizeof(a));
	clock_reasons_text(best->slow, b, sizeof(b));
	if (used < len && (why & COND_NOW) && (why & COND_BEST))
		snprintf(buf + used, len - used, "%sboth runs were throttled (this run %s; best %s)", used ? " and " : "",
			 a, b);
	else if (used < len && (why & COND_NOW))
		snprintf(buf + used, len - used, "%sthis run was throttled (%s)", used ? " and " : "", a);
	else if (used < len && (why & COND_BEST))
		snprintf(buf + used, len - used, "%sthe best run was throttled (%s)", used ? " and " : "", b);
}

static enum timing_change say(char *why, size_t whylen, enum timing_change c, const char *fmt, ...)
	KBX_PRINTF(4, 5);

static enum timing_change say(char *why, size_t whylen, enum timing_change c, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return c;
}

/* The reason a run's timing cannot be used, or NULL when it can. */
static const char *unusable(const struct timing_obs *o)
{
	if (!o)
		return "no timing";
	if (o->s.n <= 0)
		return "no samples";
	if (isnan(o->s.median))
		return "no median";
	if (!isfinite(o->s.median))
		return "an infinite median";
	if (o->s.median <= 0)
		return "a median that is not positive";
	return NULL;
}

enum timing_change timing_compare(const struct timing_obs *now, const struct timing_obs *best, char *why,
				  size_t whylen)
{
	struct run n, b;
	struct conditions cond;
	const char *bad;
	double ratio, d, band, floor_rel;
	char change[48], bandtxt[32], condtxt[256];
	const char *clocknote;
	int overlap;

	if ((bad = unusable(now)))
		return say(why, whylen, TC_UNCLEAR, "this run has %s", bad);
	if ((bad = unusable(best)))
		return say(why, whylen, TC_UNCLEAR, "the best run has %s", bad);
	run_from(now, &n);
	run_from(best, &b);

	ratio = n.median / b.median;
	d = ratio - 1;
	floor_rel = n.n < TC_FEW_SAMPLES || b.n < TC_FEW_SAMPLES ? TC_FEW_FLOOR : TC_NOISE_FLOOR;
	band = fmax(floor_rel, TC_ABS_FLOOR_MS / b.median);
	band = fmax(band, TC_SE_K * sqrt(n.se * n.se + b.se * b.se));
	overlap = n.lo <= b.hi && b.lo <= n.hi;
	conditions_of(&n, &b, &cond);

	fmt_change(ratio, change, sizeof(change));
	fmt_pct(band, bandtxt, sizeof(bandtxt));
	clocknote = !n.clocks && !b.clocks ? "; clocks not recorded"
		    : !n.clocks ? "; clocks not recorded for this run"
		    : !b.clocks ? "; clocks not recorded for the best run" : "";

	if (fabs(d) <= band) {
		/* Conditions that could hide more than the band make "no change" a guess. */
		if (fmax(cond.slower, cond.faster) > band) {
			fmt_conditions(cond.slower_why | cond.faster_why, &n, &b, condtxt, sizeof(condtxt));
			return say(why, whylen, TC_UNCLEAR, "%s but %s", change, condtxt);
		}
		return say(why, whylen, TC_SAME, "%s, within the noise band of %s%s", change, bandtxt, clocknote);
	}
	if (overlap)
		return say(why, whylen, TC_UNCLEAR, "%s, beyond the noise band of %s, but the p20-p80 ranges overlap%s",
			   change, bandtxt, clocknote);
	if (d > 0) {
		if (cond.slower > 0 && d <= TC_FAR * cond.slower) {
			fmt_conditions(cond.slower_why, &n, &b, condtxt, sizeof(condtxt));
			return say(why, whylen, TC_UNCLEAR, "%s but %s", change, condtxt);
		}
		fmt_conditions(cond.slower_why | cond.faster_why, &n, &b, condtxt, sizeof(condtxt));
		return say(why, whylen, TC_SLOWER, "%s, outside the noise band of %s%s%s%s", change, bandtxt,
			   condtxt[0] ? "; " : "", condtxt, clocknote);
	}
	if (cond.faster > 0 && -d <= TC_FAR * cond.faster) {
		fmt_conditions(cond.faster_why, &n, &b, condtxt, sizeof(condtxt));
		return say(why, whylen, TC_UNCLEAR, "%s but %s", change, condtxt);
	}
	fmt_conditions(cond.slower_why | cond.faster_why, &n, &b, condtxt, sizeof(condtxt));
	return say(why, whylen, TC_FASTER, "%s, outside the noise band of %s%s%s%s", change, bandtxt,
		   condtxt[0] ? "; " : "", condtxt, clocknote);
}

/* ---- several rows ------------------------------------------------------------------------- */

enum timing_change timing_combine(const enum timing_change *rows, size_t n, char *why, size_t whylen)
{
	size_t count[4] = { 0, 0, 0, 0 }, i, used = 0;
	static const enum timing_change order[4] = { TC_FASTER, TC_SLOWER, TC_SAME, TC_UNCLEAR };
	enum timing_change c;
	int k;

	for (i = 0; i < n && rows; i++) {
		switch (rows[i]) {
		case TC_SAME:
		case TC_FASTER:
		case TC_SLOWER:
		case TC_UNCLEAR:
			count[rows[i]]++;
			break;
		default:
			/* A value from a damaged history row is no evidence either way. */
			count[TC_UNCLEAR]++;
			break;
		}
	}
	if (why && whylen) {
		why[0] = '\0';
		for (i = 0; i < 4; i++) {
			if (!count[order[i]] || used >= whylen)
				continue;
			k = snprintf(why + used, whylen - used, "%s%zu %s", used ? ", " : "", count[order[i]],
				     timing_change_name(order[i]));
			used = k < 0 ? whylen : used + (size_t)k;
		}
		if (!n || !rows)
			snprintf(why, whylen, "no rows to compare");
	}
	if (!n || !rows)
		return TC_UNCLEAR;
	if (count[TC_FASTER] && count[TC_SLOWER])
		c = TC_UNCLEAR;
	else if (count[TC_FASTER])
		c = count[TC_FASTER] > count[TC_UNCLEAR] ? TC_FASTER : TC_UNCLEAR;
	else if (count[TC_SLOWER])
		c = count[TC_SLOWER] > count[TC_UNCLEAR] ? TC_SLOWER : TC_UNCLEAR;
	else
		c = count[TC_SAME] > count[TC_UNCLEAR] ? TC_SAME : TC_UNCLEAR;
	return c;
}
