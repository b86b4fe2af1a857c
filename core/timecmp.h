/*
 * timecmp.h - did a kernel get faster, slower, or stay the same? Telling a change from noise.
 *
 * Compares this run's timing of one perf row with the best earlier attempt's, using what each
 * run kept: the sample summary (median, p20, p80, n) and the SM clock and slowdown reasons read
 * around the timed block (core/nvml.h). The answer is one of
 *
 *     SAME     the medians differ by less than the noise band
 *     FASTER   this run is faster by more than the band, and the two runs' middle samples
 *     SLOWER   (their p20..p80 ranges) do not overlap: the other way round
 *     UNCLEAR  anything else: beyond the band but overlapping; conditions (clock, throttling)
 *              that differ enough to explain or hide the difference; a timing missing
 *
 * The rule, in the order it is applied (the constants below):
 *
 * 1. Either median not a positive finite number, or no samples: UNCLEAR.
 * 2. d = now / best - 1 (negative: faster). The noise band is the largest of
 *      - TC_NOISE_FLOOR (1%): what varies from run to run and not within one run, so that no
 *        single run's spread shows it: the L2 and TLB state the kernel meets, where its buffers
 *        landed, the clock level, neighbours on the host;
 *        TC_FEW_FLOOR (3%) instead when either run has fewer than TC_FEW_SAMPLES samples,
 *        because then its spread says nothing;
 *      - TC_ABS_FLOOR_MS (0.5 us) over the best median: CUDA events resolve about half a
 *        microsecond, and below ~10 us the launch's fixed cost moves from run to run;
 *      - TC_SE_K (3) times the combined standard error of the two medians, each
 *        1.2533 sigma / sqrt(n), with sigma taken robustly from the spread,
 *        (p80 - p20) / 1.6832 (the width of a normal's p20..p80), so that one preempted
 *        repetition does not widen the band as the standard deviation would.
 *    |d| <= band: SAME. Beyond it: FASTER or SLOWER when the p20..p80 ranges do not overlap,
 *    UNCLEAR when they do (a median moved, but most samples of the two runs are alike).
 * 3. Conditions, when clocks were read: the SM clocks differ when their ratio is off 1 by more
 *    than TC_CLOCK_TOL (3%); a run was throttled when a slowdown reason (power cap, thermal,
 *    power brake, hw slowdown) was set. A kernel's time scales at most with 1 / SM clock, so a
 *    run at a lower clock can be up to best_mhz / now_mhz - 1 slower for that reason alone, and
 *    a throttled run up to TC_THROTTLE_SLACK (10%) or that much, whichever is more (a slowdown
 *    between the two readings lowers the clock the readings do not show). Both runs throttled
 *    for the same reasons at the same clock ran under the same conditions and explain nothing.
 *    - SLOWER becomes UNCLEAR when what makes this run slower could explain TC_FAR (2) times
 *      the difference or more; FASTER likewise with what made the best run slower. A change
 *      against the conditions (faster at a lower clock) stands.
 *    - SAME becomes UNCLEAR when the conditions could hide more than the band: a kernel that
 *      got 10% faster and ran at a 10% lower clock reads the same.
 *    Clocks missing on one side: the comparison rests on the timings, and the why says so; a
 *    slowdown reason known on one side still counts.
 *
 * Comparing against the *best* earlier attempt favours the best: it is the luckiest of several
 * draws, so a repeat of it tends to read a little slower. The floor absorbs most of that;
 * SLOWER by a hair over the floor against a best of many attempts deserves a second run.
 */
#ifndef KBX_TIMECMP_H
#define KBX_TIMECMP_H

#include <stddef.h>

#include "nvml.h"
#include "stats.h"

#define TC_NOISE_FLOOR 0.01
#define TC_FEW_SAMPLES 5
#define TC_FEW_FLOOR 0.03
#define TC_ABS_FLOOR_MS 0.0005
#define TC_SE_K 3.0
#define TC_CLOCK_TOL 0.03
#define TC_THROTTLE_SLACK 0.10
#define TC_FAR 2.0

/* X(id, name) */
#define TIMING_CHANGE_LIST(X) \
	X(TC_SAME, "same") \
	X(TC_FASTER, "faster") \
	X(TC_SLOWER, "slower") \
	X(TC_UNCLEAR, "unclear")

enum timing_change {
#define TIMING_CHANGE_ENUM(id, name) id,
	TIMING_CHANGE_LIST(TIMING_CHANGE_ENUM)
#undef TIMING_CHANGE_ENUM
};

/* "same", "faster", "slower", "unclear"; "unknown" outside the list. */
const char *timing_change_name(enum timing_change c);
/* 1 and *out set when name is one of those names (any case), else 0. */
int timing_change_parse(const char *name, enum timing_change *out);

/* One run's timing of one perf row and the conditions it ran under (times in ms). */
struct timing_obs {
	struct sample_stats s;
	double sm_mhz;                /* mean SM clock over the timed block */
	unsigned long long reasons;   /* union of clocks event reasons (CLOCK_REASON_*) */
	int clocks_valid;             /* sm_mhz and reasons were read */
};

/* Fill an observation from a sample summary and the clock summary of its window (c may be NULL:
 * no clocks). */
void timing_obs_set(struct timing_obs *o, const struct sample_stats *s, const struct clock_summary *c);

/*
 * Compare `now` with `best` by the rule above. When why is not NULL it receives one line saying
 * why: "12.4% faster, outside the noise band of 1.8%", "3.1% slower but clocks differ
 * (1980 vs 1755 MHz)".
 */
enum timing_change timing_compare(const struct timing_obs *now, const struct timing_obs *best, char *why,
				  size_t whylen);

/*
 * One verdict for a run from its rows' verdicts. Rows with nothing to compare should be left
 * out rather than passed as UNCLEAR.
 *   - no rows: UNCLEAR
 *   - any FASTER and any SLOWER: UNCLEAR (mixed)
 *   - FASTER (or SLOWER) rows, none the other way: FASTER (SLOWER) when they outnumber the
 *     UNCLEAR rows, else UNCLEAR; SAME rows count for neither
 *   - no FASTER or SLOWER: SAME when the SAME rows outnumber the UNCLEAR ones, else UNCLEAR
 * why, when not NULL, counts them: "3 faster, 12 same, 1 unclear".
 */
enum timing_change timing_combine(const enum timing_change *rows, size_t n, char *why, size_t whylen);

#endif
