/*
 * kbx run TASK [FILE]: verify and time a candidate in a worker, print, record in history.
 * kbx worker: the worker side (reads a request on stdin, writes events on stdout).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/calibrate.h"
#include "../core/engine.h"
#include "../core/gpu.h"
#include "../core/lang.h"
#include "../core/problem.h"
#include "../core/sanitizer.h"
#include "../core/serve.h"
#include "../core/triton.h"
#include "../core/util.h"
#include "../core/worker.h"
#include "../db/db.h"
#include "../db/recorder.h"
#include "../db/vsbest.h"
#include "cli.h"

static const char run_usage[] =
	"usage: kbx run TASK [FILE] [options]\n"
	"\n"
	"Compile FILE (default: the task's reference) with NVRTC, verify it against the reference on\n"
	"every case, time it on every perf row, and record the attempt in the history. FILE may also\n"
	"be a KernelBenchX candidate: a Python module (cand.py) with Triton kernels and the task's\n"
	"entry function, run by the Python worker (needs PyTorch and Triton).\n"
	"Exit status: 0 pass, 1 any other verdict, 2 usage or set-up error.\n"
	"\n"
	"options:\n"
	"  --json                 one JSON document with every result\n"
	"  --seed N               input seed (default 0)\n"
	"  --no-perf              verify only\n"
	"  --rows N               time only the last (largest) N perf rows\n"
	"  --case NAME            run only this correctness case (no perf); a derived case by its\n"
	"                         recipe, e.g. 'auto:n=97' or 'fuzz:n=37,scale=-0.251'\n"
	"  --no-derived           skip the derived cases (scaled, negated, boundary sizes)\n"
	"  --fuzz N               draw N more cases; the first that fails is shrunk and reported\n"
	"  --sanitize auto        first racecheck and initcheck on the smallest case (when\n"
	"                         compute-sanitizer is installed), then the run as usual; findings\n"
	"                         on the candidate's lines mark it sanitizer and, had it passed, wrong\n"
	"  --sanitize TOOL        run under compute-sanitizer (memcheck, racecheck, initcheck,\n"
	"                         synccheck): findings on the candidate's lines; implies --no-perf\n"
	"                         and 20x the launch timeout\n"
	"  --device N             CUDA device ordinal (default 0)\n"
	"  --launch-timeout S     limit per kernel launch (default 10)\n"
	"  --compile-timeout S    limit for compiling (default 60)\n"
	"  --no-history           do not record this run\n"
	"  --save-cubin FILE      write the candidate's compiled cubin to FILE\n"
	"  --triton DIR           the candidate is a Triton cache entry (~/.triton/cache/<hash>/),\n"
	"                         instead of FILE: its cubin or PTX runs, no NVRTC\n"
	"  --launch LINE          its launch line, e.g. 'k<<<cdiv(n, 1024)>>>(x, y, i32(n))'; block\n"
	"                         and shared memory come from its metadata (default: the line\n"
	"                         in DIR/kbx-launch.txt)\n"
	"  --python PATH          the interpreter for a Python candidate (default $KBX_PYTHON, else\n"
	"                         the one found at configure time, else python3 on $PATH)\n"
	"  --compare host|gpu|both  where perf rows compare the outputs with the reference's: host\n"
	"                         (the default) or gpu, on the device (qr's property figures, eig's\n"
	"                         eigenvector independence and rand's statistics too), copying them\n"
	"                         to the host only to describe a failing output (not yet the\n"
	"                         default); both: the host judges and the GPU's report must equal it\n"
	"  --allow-pytorch        a Python FILE's outputs may come from PyTorch ops: checks a task\n"
	"                         against a PyTorch function (tools/crosscheck.py --perf); implies\n"
	"                         --no-history\n"
	"  -v, --verbose          every case's details, also when it passes\n"
	"\n";

/*
 * The run just recorded as `id` against the best earlier attempt at its task (db/vsbest.h):
 * vb stays empty when the run did not pass. A history that cannot be read costs the comparison,
 * not the run: the message goes to stderr.
 */
static void compare_with_best(struct db *db, long long id, struct vsbest *vb)
{
	struct db_run_detail now;

	memset(vb, 0, sizeof(*vb));
	if (db_run_get(db, id, &now) != KBX_OK) {
		cli_fail(0, "cannot compare with earlier attempts: %s", kbx_last_error());
		return;
	}
	if (now.row.verdict == V_PASS && vsbest_find(db, &now, vb) != KBX_OK)
		cli_fail(0, "cannot compare with earlier attempts: %s", kbx_last_error());
	db_run_detail_free(&now);
}

int cmd_run(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "seed", required_argument, NULL, 's' },
		{ "no-perf", no_argument, NULL, 'P' }, { "rows", required_argument, NULL, 'r' },
		{ "device", required_argument, NULL, 'D' }, CLI_TIMING_LONG_OPTIONS,
		{ "launch-timeout", required_argument, NULL, 'L' },
		{ "compile-timeout", required_argument, NULL, 'C' }, { "no-history", no_argument, NULL, 'n' },
		{ "save-cubin", required_argument, NULL, 'S' }, { "case", required_argument, NULL, 'c' },
		{ "no-derived", no_argument, NULL, 'N' }, { "fuzz", required_argument, NULL, 'F' },
		{ "sanitize", required_argument, NULL, 'Z' }, { "verbose", no_argument, NULL, 'v' }, { "help", no_argument, NULL, 'h' },
		{ "triton", required_argument, NULL, 'T' }, { "launch", required_argument, NULL, 'l' },
		{ "python", required_argument, NULL, 'Y' }, { "compare", required_argument, NULL, 'K' },
		{ "allow-pytorch", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 }
	};
	struct worker_request req;
	struct text_printer tp = { 0 };
	struct json_printer *jp = NULL;
	struct run_events text_ev, json_ev, rec_ev, tee_ev;
	enum verdict verdict;
	struct run_events_tee tee = { { NULL } };
	struct recorder *rec = NULL;
	struct vsbest vb;
	struct db *db = NULL;
	const struct task *t;
	const char *file;
	char *source = NULL;
	size_t len;
	int opt, json = 0, bad = 0, rc;
	const char *save_cubin = NULL, *triton = NULL, *launch = NULL;
	char cubin_path[4096], triton_path[PATH_MAX];
	enum kbx_status st;

	worker_request_default(&req);
	while ((opt = getopt_long(argc, argv, ":hv", opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = 1; break;
		case 's': req.seed = cli_seed(optarg, "--seed", &bad); break;
		case 'P': req.no_perf = 1; break;
		case 'r': req.max_perf_rows = cli_count(optarg, "--rows", &bad); break;
		case 'D': req.device = cli_count(optarg, "--device", &bad); break;
		case 'L': req.launch_limit_s = cli_num(optarg, "--launch-timeout", &bad); break;
		case 'C': req.compile_limit_s = cli_num(optarg, "--compile-timeout", &bad); break;
		case 'n': c->no_history = 1; break;
		case 'v': tp.verbose = 1; break;
		case 'S': save_cubin = optarg; break;
		case 'c': req.only_case = optarg; break;
		case 'N': req.no_derived = 1; break;
		case 'F': req.fuzz = cli_count(optarg, "--fuzz", &bad); break;
		case 'Z': req.sanitize = optarg; break;
		case 'T': triton = optarg; break;
		case 'l': launch = optarg; break;
		case 'Y': req.python_exe = optarg; break;
		case 'A':
			/* a cross-check of the task, not a candidate's run: never in the history */
			req.allow_pytorch = 1;
			c->no_history = 1;
			break;
		case 'K': req.compare_gpu = cli_compare(optarg, &bad); break;
		case 'h': fputs(run_usage, stdout); fputs(cli_timing_usage, stdout); return 0;
		default:
			if (cli_timing_option(opt, optarg, &req, &bad))
				break;
			return cli_bad_option("run", opt, argv);
		}
	}
	if (bad || cli_timing_check(&req.bench))
		return 2;
	if (optind >= argc)
		return cli_usage_error("run", "expected a TASK");
	if (argc - optind > 2)
		return cli_usage_error("run", "expected TASK [FILE], not also '%s'", argv[optind + 2]);
	if (triton && argc - optind > 1)
		return cli_fail(2, "--triton DIR is the candidate: give no FILE with it");
	if (launch && !triton)
		return cli_fail(2, "--launch goes with --triton DIR (a CUDA candidate has its launch lines in its source)");
	if (req.sanitize && !strcmp(req.sanitize, "auto")) {
		/* the run as usual, after racecheck and initcheck on one case (worker.h) */
	} else if (req.sanitize) {
		if (!sanitizer_tool_ok(req.sanitize))
			return cli_fail(2, "--sanitize expects auto, memcheck, racecheck, initcheck or synccheck, not '%s'",
					req.sanitize);
		/* Timings under a sanitizer mean nothing, and every launch is many times slower. */
		req.no_perf = 1;
		req.launch_limit_s *= 20;
	}
	t = cli_task(c, argv[optind]);
	if (!t)
		return 2;
	file = optind + 1 < argc ? argv[optind + 1] : t->reference_path;
	if (triton) {
		/* The worker runs in its own directory: hand it an absolute path. */
		if (!realpath(triton, triton_path))
			return cli_fail(2, "cannot open Triton cache entry '%s': %s", triton, strerror(errno));
		file = triton_path;
		req.triton_dir = triton_path;
		req.triton_launch = (char *)launch;
		/* what history records as the source; fails early on a broken entry or no launch line */
		if (triton_source_text(triton_path, launch, &source))
			return cli_fail(2, "%s", kbx_last_error());
	} else if (lang_read_source(file, &source, &len)) {
		/* a binary file or one over the size limit: refused before anything runs or is stored */
		return cli_fail(2, "%s", kbx_last_error());
	}

	req.task_id = t->id;
	req.source = source;
	req.source_name = (char *)file;
	req.python = !triton && lang_detect(file, source) == LANG_PYTHON;
	if (req.allow_pytorch && !req.python) {
		free(source);
		return cli_usage_error("run", "--allow-pytorch is for a Python file ('%s' is not one)", file);
	}
	req.tasks_root = c->cat.root;
	if (save_cubin) {
		/* The worker runs in its own directory: hand it an absolute path. */
		if (save_cubin[0] == '/')
			snprintf(cubin_path, sizeof(cubin_path), "%s", save_cubin);
		else if (getcwd(cubin_path, sizeof(cubin_path) - strlen(save_cubin) - 2))
			snprintf(cubin_path + strlen(cubin_path), sizeof(cubin_path) - strlen(cubin_path), "/%s", save_cubin);
		else
			return cli_fail(2, "cannot resolve '%s'", save_cubin);
		req.save_cubin = cubin_path;
	}
	if (!c->no_history) {
		st = db_open(c->db_path, &db);
		if (st) {
			cli_fail(0, "history disabled: %s", kbx_last_error());
			db = NULL;
		} else if (db_readonly(db)) {
			cli_fail(0, "history '%s' is read-only: this run is not recorded", c->db_path);
			db_close(db);
			db = NULL;
		}
	}
	req.db_path = db ? (char *)c->db_path : NULL;
	/* Read even with --no-history: the fractions need only the stored calibration. */
	req.calib_db = (char *)c->db_path;

	if (json) {
		jp = json_printer_new(t->id);
		json_ev = json_printer_events(jp);
		tee.to[0] = &json_ev;
	} else {
		tp.out = stdout;
		tp.color = isatty(1) && !getenv("NO_COLOR");
		text_ev = text_printer_events(&tp);
		tee.to[0] = &text_ev;
		printf("%s · %s\n", t->id, file);
	}
	if (db) {
		rec = recorder_new(db, t->id, t->category, source, file, req.seed);
		rec_ev = recorder_events(rec);
		tee.to[1] = &rec_ev;
	}
	tee_ev = events_tee(&tee);

	st = worker_run(NULL, &req, &tee_ev, NULL, NULL);
	rc = st ? cli_fail(2, "%s", kbx_last_error()) : 0;
	memset(&vb, 0, sizeof(vb));
	if (!st && rec && recorder_status(rec) == KBX_OK && recorder_run_id(rec) > 0)
		compare_with_best(db, recorder_run_id(rec), &vb);
	if (json) {
		json_printer_vs_best(jp, &vb);
		json_printer_dump(jp, stdout);
	} else if (!st) {
		text_printer_epilogue(&tp, &vb);
	}
	vsbest_free(&vb);
	if (!st) {
		if (rec && recorder_status(rec))
			cli_fail(0, "the run was not recorded: %s", kbx_last_error());
		verdict = json ? json_printer_verdict(jp) : tp.verdict;
		rc = verdict == V_PASS ? 0 : 1;
	}
	recorder_free(rec);
	json_printer_free(jp);
	db_close(db);
	free(source);
	return rc;
}

/* ------------------------------------------------------------------ export ---- */

static const char export_usage[] =
	"usage: kbx export TASK [FILE] --dir DIR [--case NAME | --perf-row N [--max-bytes B]] [--seed N]\n"
	"\n"
	"Run FILE (default: the reference) on the task's cases and write, for each case,\n"
	"DIR/<case>/<arg>.npy (initial inputs), ref_<arg>.npy and cand_<arg>.npy (outputs of the\n"
	"reference and of FILE) and manifest.json (bindings, shapes, dtypes, the rtol and atol each\n"
	"output is held to; bf16 is widened to float32). Needs a GPU for the outputs.\n"
	"\n"
	"--perf-row N writes perf row N (1-based) instead, as DIR/perfN/, with the perf-size bound\n"
	"([tolerance.perf]) it is held to. Its inputs are drawn on the host: --max-bytes B refuses\n"
	"(exit 3, before anything runs) a row whose inputs and two copies of its outputs exceed B bytes.\n";

/* Host bytes `kbx export --perf-row` holds for row (1-based): inputs, reference and candidate
 * outputs; -1 when the row does not evaluate. */
static double perf_row_host_bytes(const struct task *t, int row)
{
	struct problem p;
	double bytes = 0;
	int i;

	if (row < 1 || row > t->perf.nrows || problem_from_perf(t, row - 1, &p) != KBX_OK)
		return -1;
	for (i = 0; i < p.nbufs; i++)
		bytes += (double)p.bufs[i].bytes * (p.bufs[i].arg->dir == ARG_IN ? 1 : p.bufs[i].arg->dir == ARG_OUT ? 2 : 3);
	problem_free(&p);
	return bytes;
}

static void export_log(void *ctx, const char *text)
{
	(void)ctx;
	fprintf(stderr, "kbx: %s\n", text);
}

static void export_done(void *ctx, const struct run_summary *s)
{
	*(enum verdict *)ctx = s->verdict;
	if (s->verdict == V_ERROR || s->verdict == V_NOT_RUN || s->verdict == V_COMPILE_ERROR)
		fprintf(stderr, "kbx: %s: %s\n", verdict_name(s->verdict), s->message ? s->message : "");
}

int cmd_export(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' }, { "case", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' }, { "perf-row", required_argument, NULL, 'p' },
		{ "max-bytes", required_argument, NULL, 'm' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	double max_bytes = 0, need;
	int bad = 0;
	enum verdict v = V_ERROR;
	struct run_events ev = { &v, NULL, NULL, NULL, NULL, export_log, export_done };
	struct worker_request req;
	const struct task *t;
	const char *file, *dir = NULL;
	char *source = NULL, abs_dir[4096];
	size_t len;
	int opt;

	worker_request_default(&req);
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'd': dir = optarg; break;
		case 'c': req.only_case = optarg; break;
		case 's': req.seed = cli_seed(optarg, "--seed", &bad); break;
		case 'p':
			req.export_perf_row = cli_count(optarg, "--perf-row", &bad);
			if (!bad && req.export_perf_row < 1)
				bad = cli_fail(1, "--perf-row counts from 1, not '%s'", optarg);
			break;
		case 'm': max_bytes = cli_num(optarg, "--max-bytes", &bad); break;
		case 'h': fputs(export_usage, stdout); return 0;
		default: return cli_bad_option("export", opt, argv);
		}
	}
	if (bad)
		return 2;
	if (!dir)
		return cli_usage_error("export", "expected --dir DIR");
	if (optind >= argc)
		return cli_usage_error("export", "expected a TASK");
	if (argc - optind > 2)
		return cli_usage_error("export", "expected TASK [FILE], not also '%s'", argv[optind + 2]);
	if (req.only_case && req.export_perf_row)
		return cli_usage_error("export", "--case and --perf-row go one at a time");
	if (max_bytes > 0 && !req.export_perf_row)
		return cli_usage_error("export", "--max-bytes goes with --perf-row");
	t = cli_task(c, argv[optind]);
	if (!t)
		return 2;
	if (req.export_perf_row) {
		need = perf_row_host_bytes(t, req.export_perf_row);
		if (need < 0)
			return cli_fail(2, "task '%s' has %d perf row(s), not a row %d", t->id, t->perf.nrows,
					req.export_perf_row);
		if (max_bytes > 0 && need > max_bytes)
			return cli_fail(3, "perf row %d of '%s' needs %.3g bytes on the host, above --max-bytes %.3g: not exported",
					req.export_perf_row, t->id, need, max_bytes);
	}
	file = optind + 1 < argc ? argv[optind + 1] : t->reference_path;
	if (lang_read_source(file, &source, &len))
		return cli_fail(2, "%s", kbx_last_error());
	if (dir[0] == '/')
		snprintf(abs_dir, sizeof(abs_dir), "%s", dir);
	else if (!getcwd(abs_dir, sizeof(abs_dir) - strlen(dir) - 2))
		return cli_fail(2, "cannot resolve '%s'", dir);
	else
		snprintf(abs_dir + strlen(abs_dir), sizeof(abs_dir) - strlen(abs_dir), "/%s", dir);
	req.task_id = t->id;
	req.source = source;
	req.source_name = (char *)file;
	req.python = lang_detect(file, source) == LANG_PYTHON;
	req.tasks_root = c->cat.root;
	req.no_perf = 1;
	req.no_derived = 1;     /* the task's own cases; --case may still name a derived one */
	req.export_dir = abs_dir;
	if (worker_run(NULL, &req, &ev, NULL, NULL)) {
		free(source);
		return cli_fail(2, "%s", kbx_last_error());
	}
	free(source);
	if (v == V_ERROR || v == V_NOT_RUN || v == V_COMPILE_ERROR || v == V_ABI_ERROR)
		return 1;
	printf("%s\n", abs_dir);
	return 0;
}

/* ------------------------------------------------------------------ worker ---- */

struct compile_cache cli_compile_cache(struct db *db)
{
	return db_compile_cache(db);
}

int cmd_worker(struct cli *c, int argc, char **argv)
{
	struct serve_env env;

	db_serve_env(&env, c->tasks_root, NULL);
	/* --kept: a worker kept for run after run (kbx eval --reuse-worker) holds the CUDA context
	 * between them; otherwise each run's context goes with it, as always */
	if (argc > 1 && !strcmp(argv[1], "--kept"))
		gpu_keep_contexts();
	return worker_serve(stdin, stdout, &env);
}
