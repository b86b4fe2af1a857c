/*
 * cli.h - the command-line interface: one function per command, shared options, printers.
 */
#ifndef KBX_CLI_H
#define KBX_CLI_H

#include <stdio.h>

#include "../core/bench.h"
#include "../core/engine.h"
#include "../core/events.h"
#include "../core/task.h"

struct cli {
	const char *db_path;        /* --db, else db_default_path() */
	const char *tasks_root;     /* --tasks, else task_default_root() */
	int no_history;             /* --no-history */
	struct catalogue cat;
	int cat_loaded;
};

/* Load the catalogue once; prints the error and returns nonzero on failure. */
int cli_catalogue(struct cli *c);
/* Find a task or print "unknown task" with close matches; NULL when not found. */
const struct task *cli_task(struct cli *c, const char *id);
/* Print "kbx: message" to stderr; returns the exit status to use. */
int cli_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int cmd_list(struct cli *c, int argc, char **argv);
int cmd_show(struct cli *c, int argc, char **argv);
int cmd_starter(struct cli *c, int argc, char **argv);
int cmd_run(struct cli *c, int argc, char **argv);
int cmd_export(struct cli *c, int argc, char **argv);
int cmd_eval(struct cli *c, int argc, char **argv);
int cmd_worker(struct cli *c, int argc, char **argv);
int cmd_history(struct cli *c, int argc, char **argv);
int cmd_db(struct cli *c, int argc, char **argv);
int cmd_doctor(struct cli *c, int argc, char **argv);

/* Numbers on the command line (options.c): non-negative, whole for counts; on garbage they
 * print "kbx: --what expects ..." and set *bad. */
double cli_num(const char *s, const char *what, int *bad);
int cli_count(const char *s, const char *what, int *bad);
/* --compare host|gpu|both (run, eval): enum compare_mode (core/gpucompare.h); anything else sets
 * *bad with a message. */
int cli_compare(const char *s, int *bad);
/* A seed: a whole number that fits 64 bits (decimal, or 0x hex); no sign, nothing after it. */
unsigned long long cli_seed(const char *s, const char *what, int *bad);

/*
 * Usage errors, in one line that says what was wrong and where the usage is:
 *   kbx run: unknown option '--frob' (see kbx run --help)
 * cli_usage_error prints one (cmd NULL: the global options) and returns 2. cli_bad_option turns
 * what getopt_long returned for a bad option ('?' unknown, ':' a missing value: optstrings start
 * with ':' so that getopt itself prints nothing) into one.
 */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cli_bad_option(const char *cmd, int opt, char **argv);

/* The timing options of run and eval: add CLI_TIMING_LONG_OPTIONS to the getopt table, pass
 * every option to cli_timing_option (1 when it was one of them), print cli_timing_usage. */
enum {
	CLI_OPT_WARMUP = 0x200, CLI_OPT_REP, CLI_OPT_TIMING, CLI_OPT_RSD, CLI_OPT_MIN_SAMPLES,
	CLI_OPT_MIN_TIME, CLI_OPT_MAX_TIME, CLI_OPT_HIDE_LATENCY, CLI_OPT_RETIME_REFERENCE
};
#define CLI_TIMING_LONG_OPTIONS \
	{ "warmup", required_argument, NULL, CLI_OPT_WARMUP }, { "rep", required_argument, NULL, CLI_OPT_REP }, \
	{ "timing", required_argument, NULL, CLI_OPT_TIMING }, { "rsd", required_argument, NULL, CLI_OPT_RSD }, \
	{ "min-samples", required_argument, NULL, CLI_OPT_MIN_SAMPLES }, \
	{ "min-time", required_argument, NULL, CLI_OPT_MIN_TIME }, \
	{ "max-time", required_argument, NULL, CLI_OPT_MAX_TIME }, \
	{ "hide-latency", no_argument, NULL, CLI_OPT_HIDE_LATENCY }, \
	{ "retime-reference", no_argument, NULL, CLI_OPT_RETIME_REFERENCE }
extern const char cli_timing_usage[];
struct worker_request;
int cli_timing_option(int opt, const char *arg, struct worker_request *req, int *bad);
/* Consistency of the options together; prints and returns 2 when they disagree, else 0. */
int cli_timing_check(const struct bench_options *b);

/* The compile cache of the history db (engine.h), for the engine's use (cmd_run.c). */
struct db;
struct compile_cache cli_compile_cache(struct db *db);

/* Human-readable run output on `out` (print.c). */
struct text_printer {
	FILE *out;
	int color;
	int verbose;
	int cases, cases_failed;
	int perf_header_done;
	enum verdict verdict;       /* V_ERROR until the done event */
	/* the clocks over the timed rows: lowest SM clock, the device's maximum, the slowdown
	 * reasons seen; clock_rows counts the rows with readings */
	double clock_low_mhz, clock_max_mhz;
	unsigned long long clock_reasons;
	int clock_rows;
};
struct run_events text_printer_events(struct text_printer *p);
/*
 * After the run (print.c): the comparison with the best earlier attempt (db/vsbest.h; NULL or
 * nothing found: no line), "vs best   FASTER · run #41 (2026-11-30): why", then the clock
 * conditions when NVML gave readings and a slowdown reason was active,
 * "clocks    1755 MHz of 1980, power cap".
 */
struct vsbest;
void text_printer_epilogue(struct text_printer *p, const struct vsbest *vb);

/* Collects a whole run as one JSON document (print.c); json_printer_dump prints it. */
struct json_printer;
struct json_printer *json_printer_new(const char *task_id);
struct run_events json_printer_events(struct json_printer *p);
enum verdict json_printer_verdict(const struct json_printer *p);
/* "vs_best": {"verdict", "run", "created_at", "why", "rows": [...]}, or null when vb is NULL
 * or found nothing. */
void json_printer_vs_best(struct json_printer *p, const struct vsbest *vb);
void json_printer_dump(struct json_printer *p, FILE *out);
void json_printer_free(struct json_printer *p);

/* "★★☆☆☆" for a difficulty (ASCII "**---" when the locale is not UTF-8). */
const char *cli_stars(int difficulty, char *buf, size_t len);
int cli_utf8(void);

#endif
