/* kbx history: past runs, per category, per task, or every attempt of one task. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/jsonget.h"
#include "../core/util.h"
#include "../db/db.h"
#include "../db/vsbest.h"
#include "cli.h"

static const char history_usage[] =
	"usage: kbx history [--category C] [--task T] [--limit N] [--json]\n"
	"\n"
	"Without filters: attempts, pass rate and best/median speedup per category.\n"
	"  --category C   the tasks of C with their attempts and the latest runs\n"
	"  --task T       every attempt at task T (id Category/name or a unique name); \"vs best\" is a\n"
	"                 passing run's timing against the best attempt before it on the same GPU:\n"
	"                 SAME, FASTER, SLOWER or UNCLEAR (doc/timing.md)\n"
	"  --limit N      at most N runs (default 20; 0 = all)\n"
	"  --json         machine-readable output\n";

static void when(double at, char *buf, size_t len)
{
	time_t t = (time_t)at;
	struct tm tm;

	if (at <= 0 || !localtime_r(&t, &tm))
		snprintf(buf, len, "-");
	else
		strftime(buf, len, "%Y-%m-%d %H:%M", &tm);
}

static void speed(double v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3gx", v);
}

/* A passing run against the best attempt before it: {"verdict", "run", "why"}, or null. */
static json_t *vs_best_json(const struct vsbest *vb)
{
	json_t *o;

	if (!vb || !vb->found)
		return json_null();
	o = json_pack("{s:s, s:I, s:s}", "verdict", timing_change_name(vb->change), "run", (json_int_t)vb->best_id,
		      "why", vb->why);
	return o ? o : json_null();
}

static int print_runs(struct db *db, const char *category, const char *task, int limit, int json)
{
	struct db_run_row *rows;
	struct vsbest *vb;
	int n, i;

	if (db_runs_list(db, category, task, limit, &rows, &n))
		return cli_fail(2, "%s", kbx_last_error());
	/* each passing run against the best attempt before it; without it the list still stands */
	vb = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*vb));
	if (vsbest_for_runs(db, rows, n, vb))
		cli_fail(0, "cannot compare runs with earlier attempts: %s", kbx_last_error());
	if (json) {
		json_t *a = json_array();

		for (i = 0; i < n; i++) {
			json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:o, s:o, s:f, s:s}", "id",
					      (json_int_t)rows[i].id, "task", rows[i].task_id, "gpu", rows[i].gpu,
					      "verdict", verdict_name(rows[i].verdict), "warnings", rows[i].warnings,
					      "speedup_golden", jsonget_measure_or_null(rows[i].speedup_golden), "speedup_ref",
					      jsonget_measure_or_null(rows[i].speedup_ref), "created_at", rows[i].created_at,
					      "source_hash", rows[i].source_hash);

			/* which GPU of the host and which evaluation, where the run recorded them */
			json_object_set_new(o, "device", rows[i].device >= 0 ? json_integer(rows[i].device) : json_null());
			json_object_set_new(o, "eval", rows[i].eval[0] ? json_string(rows[i].eval) : json_null());
			json_object_set_new(o, "vs_best", vs_best_json(&vb[i]));
			json_array_append_new(a, o);
		}
		json_dumpf(a, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(a);
	} else {
		printf("%-6s %-16s %-40s %-14s %9s %9s  %-7s  %s\n", "run", "when", "task", "verdict", "vs golden", "vs ref",
		       "vs best", "gpu");
		for (i = 0; i < n; i++) {
			char w[32], sg[16], sr[16];

			when(rows[i].created_at, w, sizeof(w));
			speed(rows[i].speedup_golden, sg, sizeof(sg));
			speed(rows[i].speedup_ref, sr, sizeof(sr));
			printf("%-6lld %-16s %-40s %-14s %9s %9s  %-7s  %s\n", rows[i].id, w, rows[i].task_id,
			       verdict_name(rows[i].verdict), sg, sr, vb[i].found ? vsbest_label(vb[i].change) : "-",
			       rows[i].gpu);
		}
		if (!n)
			printf("no runs yet\n");
	}
	for (i = 0; i < n; i++)
		vsbest_free(&vb[i]);
	free(vb);
	free(rows);
	return 0;
}

int cmd_history(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "category", required_argument, NULL, 'c' },
		{ "task", required_argument, NULL, 't' }, { "limit", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	const char *category = NULL, *task = NULL;
	int opt, json = 0, limit = 20, rc = 0, i, n, bad = 0;
	struct db *db;

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = 1; break;
		case 'c': category = optarg; break;
		case 't': task = optarg; break;
		case 'l': limit = cli_count(optarg, "--limit", &bad); break;
		case 'h': fputs(history_usage, stdout); return 0;
		default: return cli_bad_option("history", opt, argv);
		}
	}
	if (bad)
		return 2;
	if (optind < argc)
		return cli_usage_error("history", "takes no arguments ('%s')", argv[optind]);
	if (task) {
		const struct task *t = cli_task(c, task);

		if (!t)
			return 2;
		task = t->id;
	}
	if (db_open(c->db_path, &db))
		return cli_fail(2, "%s", kbx_last_error());
	/* a damaged history is still listed, with a warning first */
	if (db_check(db) != KBX_OK)
		cli_fail(0, "%s", kbx_last_error());
	if (task) {
		rc = print_runs(db, NULL, task, limit, json);
	} else if (category) {
		struct db_task_stat *ts;

		if (db_task_stats(db, category, &ts, &n)) {
			rc = cli_fail(2, "%s", kbx_last_error());
		} else if (json) {
			json_t *a = json_array();

			for (i = 0; i < n; i++)
				json_array_append_new(a, json_pack("{s:s, s:i, s:i, s:i, s:s, s:o, s:f}", "task", ts[i].task_id,
								   "attempts", ts[i].attempts, "passes", ts[i].passes,
								   "impossible_timing", ts[i].impossible,
								   "last_verdict", verdict_name(ts[i].last_verdict),
								   "best_speedup", jsonget_measure_or_null(ts[i].best_speedup),
								   "last_at", ts[i].last_at));
			json_dumpf(a, stdout, JSON_INDENT(2));
			putchar('\n');
			json_decref(a);
			free(ts);
		} else {
			printf("%-40s %8s %6s %8s %-17s %9s  %s\n", "task", "attempts", "passes", "too fast", "last", "best",
			       "when");
			for (i = 0; i < n; i++) {
				char w[32], b[16];

				when(ts[i].last_at, w, sizeof(w));
				speed(ts[i].best_speedup, b, sizeof(b));
				printf("%-40s %8d %6d %8d %-17s %9s  %s\n", ts[i].task_id, ts[i].attempts, ts[i].passes,
				       ts[i].impossible, verdict_name(ts[i].last_verdict), b, w);
			}
			free(ts);
			printf("\n");
			rc = print_runs(db, category, NULL, limit, 0);
		}
	} else {
		struct db_category_stat *cs;

		if (db_category_stats(db, &cs, &n)) {
			rc = cli_fail(2, "%s", kbx_last_error());
		} else if (json) {
			json_t *a = json_array();

			for (i = 0; i < n; i++)
				json_array_append_new(a, json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:o, s:o}", "category",
								   cs[i].category, "attempts", cs[i].attempts, "passes",
								   cs[i].passes, "impossible_timing", cs[i].impossible,
								   "tasks_tried", cs[i].tasks_tried,
								   "tasks_passed", cs[i].tasks_passed, "best_speedup",
								   jsonget_measure_or_null(cs[i].best_speedup), "median_speedup",
								   jsonget_measure_or_null(cs[i].median_speedup)));
			json_dumpf(a, stdout, JSON_INDENT(2));
			putchar('\n');
			json_decref(a);
			free(cs);
		} else {
			printf("%-16s %8s %9s %8s %12s %9s %9s\n", "category", "attempts", "pass rate", "too fast",
			       "tasks passed", "best", "median");
			for (i = 0; i < n; i++) {
				char b[16], m[16];

				speed(cs[i].best_speedup, b, sizeof(b));
				speed(cs[i].median_speedup, m, sizeof(m));
				printf("%-16s %8d %8.0f%% %8d %6d/%-5d %9s %9s\n", cs[i].category, cs[i].attempts,
				       cs[i].attempts ? 100.0 * cs[i].passes / cs[i].attempts : 0.0, cs[i].impossible,
				       cs[i].tasks_passed, cs[i].tasks_tried, b, m);
			}
			if (!n)
				printf("no runs yet: try `kbx run Activation/gelu`\n");
			free(cs);
		}
	}
	db_close(db);
	return rc;
}
