/* Options shared by several commands: numbers, and how perf rows are timed (run, eval). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../core/gpucompare.h"
#include "../core/worker.h"

const char cli_timing_usage[] =
	"timing (each perf row; doc/timing.md):\n"
	"  --warmup MS            warm-up per row (default 25)\n"
	"  --rep MS               fixed mode: time this much of calls per row (default 100)\n"
	"  --timing MODE          fixed (triton.testing.do_bench's method, the default) or noise:\n"
	"                         time until the samples' relative standard deviation is at most\n"
	"                         --rsd, after --min-samples and --min-time, at most --max-time\n"
	"  --rsd PCT              noise mode's target in percent (default 0.5)\n"
	"  --min-samples N        noise mode: at least N samples (default 10)\n"
	"  --min-time MS          noise mode: time for at least MS (default 10)\n"
	"  --max-time MS          noise mode: stop after MS whatever the noise (default 1000)\n"
	"  --hide-latency         queue each batch of calls behind a spinning kernel, so that the\n"
	"                         host's launch overhead never shows in the events (tiny kernels)\n"
	"  --retime-reference     time and run the reference live at every perf row; otherwise a\n"
	"                         timing of it kept in the history from the last day, on this GPU\n"
	"                         at the same clocks, stands in (the log says so, with its age),\n"
	"                         and so do its outputs where they cost more to compute than to\n"
	"                         load (same reference, GPU model and inputs; a candidate that\n"
	"                         differs from them is judged again against it run live)\n";

double cli_num(const char *s, const char *what, int *bad)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !(v >= 0) || v > 1e15) {
		cli_fail(2, "%s expects a non-negative number, not '%s'", what, s);
		*bad = 1;
		return 0;
	}
	return v;
}

unsigned long long cli_seed(const char *s, const char *what, int *bad)
{
	char *end;
	unsigned long long v;

	errno = 0;
	/* strtoull takes "-1" as 2^64 - 1: a sign is refused before it gets there */
	v = strtoull(s, &end, 0);
	if (!*s || *end || strchr(s, '-') || strchr(s, '+') || errno == ERANGE) {
		cli_fail(2, "%s expects a whole number from 0 to 18446744073709551615, not '%s'", what, s);
		*bad = 1;
		return 0;
	}
	return v;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kbx%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see kbx%s%s --help)\n", cmd ? " " : "", cmd ? cmd : "");
	return 2;
}

int cli_bad_option(const char *cmd, int opt, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	if (opt == ':') {
		if (!strncmp(arg, "--", 2))
			return cli_usage_error(cmd, "option '%s' needs a value", arg);
		return cli_usage_error(cmd, "option '-%c' needs a value", optopt);
	}
	if (optopt && (strncmp(arg, "--", 2) || !arg[2]))
		return cli_usage_error(cmd, "unknown option '-%c'", optopt);
	return cli_usage_error(cmd, "unknown option '%s'", arg);
}

int cli_count(const char *s, const char *what, int *bad)
{
	double v = cli_num(s, what, bad);

	if (!*bad && (v != (int)v || v > 1e9)) {
		cli_fail(2, "%s expects a whole number, not '%s'", what, s);
		*bad = 1;
	}
	return *bad ? 0 : (int)v;
}

int cli_compare(const char *s, int *bad)
{
	int m = compare_mode_parse(s);

	if (m < 0) {
		cli_fail(2, "--compare expects host, gpu or both, not '%s'", s);
		*bad = 1;
		return COMPARE_HOST;
	}
	return m;
}

int cli_timing_option(int opt, const char *arg, struct worker_request *req, int *bad)
{
	struct bench_options *b = &req->bench;
	int m;

	switch (opt) {
	case CLI_OPT_WARMUP: b->warmup_ms = cli_num(arg, "--warmup", bad); return 1;
	case CLI_OPT_REP: b->rep_ms = cli_num(arg, "--rep", bad); return 1;
	case CLI_OPT_TIMING:
		m = bench_mode_parse(arg);
		if (m < 0) {
			cli_fail(2, "--timing expects fixed or noise, not '%s'", arg);
			*bad = 1;
		} else {
			b->mode = (enum bench_mode)m;
		}
		return 1;
	case CLI_OPT_RSD:
		b->rsd_target = cli_num(arg, "--rsd", bad) / 100;
		if (!*bad && !(b->rsd_target > 0)) {
			cli_fail(2, "--rsd expects a percentage above 0, not '%s'", arg);
			*bad = 1;
		}
		return 1;
	case CLI_OPT_MIN_SAMPLES: b->min_samples = cli_count(arg, "--min-samples", bad); return 1;
	case CLI_OPT_MIN_TIME: b->min_ms = cli_num(arg, "--min-time", bad); return 1;
	case CLI_OPT_MAX_TIME: b->max_ms = cli_num(arg, "--max-time", bad); return 1;
	case CLI_OPT_HIDE_LATENCY: b->hide_latency = 1; return 1;
	case CLI_OPT_RETIME_REFERENCE: req->retime_reference = 1; return 1;
	default: return 0;
	}
}

int cli_timing_check(const struct bench_options *b)
{
	if (b->mode == BENCH_NOISE && b->max_ms < b->min_ms)
		return cli_fail(2, "--max-time (%g ms) is below --min-time (%g ms)", b->max_ms, b->min_ms);
	return 0;
}
