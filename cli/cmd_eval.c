/*
 * kbx eval SOURCE --out DIR: evaluate many candidates (core/eval.h), one worker per GPU.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/eval.h"
#include "../core/gpu.h"
#include "../core/gpucompare.h"
#include "../core/util.h"
#include "../core/worker.h"
#include "../db/db.h"
#include "../db/recorder.h"
#include "cli.h"

#define MAX_GPUS 64

static const char eval_usage[] =
	"usage: kbx eval SOURCE --out DIR [options]\n"
	"\n"
	"Evaluate many candidates: SOURCE is a predictions.jsonl (one {\"file\": \"Category/name.py\",\n"
	"\"predict\": CODE} per line, markdown fences stripped), a folder of .cu and .py files named after\n"
	"their tasks, or one file. A Python item (a KernelBenchX candidate: Triton kernels and the task's\n"
	"entry function; told by its name or content) runs in the Python worker, CUDA items as usual.\n"
	"Every item is compiled, verified and timed like `kbx run`, recorded in the history, and\n"
	"appended to DIR/progress.jsonl; running again with the same DIR resumes, skipping finished\n"
	"items whose source is unchanged. At the end: DIR/metrics.json (per item), DIR/summary.json\n"
	"(overall and per category) and a per-category table. Without a GPU every item\n"
	"still gets its compile (call) result.\n"
	"\n"
	"options:\n"
	"  --out DIR          where progress and reports go (created)\n"
	"  --gpus LIST        one worker per GPU, e.g. 0,1 (default 0)\n"
	"  --shard I/N        only items I, I+N, I+2N, ... (0-based), for job arrays\n"
	"  --no-perf          verify only\n"
	"  --rows N           time only the last N perf rows (no speedup vs golden then)\n"
	"  --seed N           input seed (default 0)\n"
	"  --launch-timeout S limit per kernel launch (default 10)\n"
	"  --quiet            no progress bar\n"
	"  --sanitize auto    racecheck and initcheck on each item's smallest case first (CUDA items,\n"
	"                     when compute-sanitizer is installed): findings make the item wrong\n"
	"  --python PATH      the interpreter for Python items (default $KBX_PYTHON, else python3)\n"
	"  --compare host|gpu|both  where perf rows compare outputs: host (default), gpu (on the\n"
	"                     device), both (the host judges, the GPU's report must equal it)\n"
	"  --reuse-worker     one `kbx worker` per GPU serves every CUDA item, so the driver and the\n"
	"                     CUDA context are set up once, not per item (a crash or a lost context\n"
	"                     starts a fresh one); by default each CUDA item has a fresh worker\n"
	"\n";

struct eval_ctx {
	const struct cli *c;
	const struct worker_request *base;
	int gpus[MAX_GPUS];
	struct db *dbs[MAX_GPUS];       /* one history connection per worker thread */
	struct worker_keep *keeps[MAX_GPUS]; /* one Python worker per GPU, kept between items */
	FILE *progress;
	const char *name;               /* the evaluation, as runs record it: its --out folder */
	int quiet, tty;
	int pass, wrong, impossible, other;
	int started;                    /* items taken by the workers, in queue order (atomic) */
	double t0;
};

/* What the events of one run come to. */
struct collect {
	struct eval_record *rec;
	int compiled;
	double last_gbps, last_tflops;
	double last_bw_fraction, last_flop_fraction;
};

static void c_compile(void *ctx, const struct compile_result *cr)
{
	((struct collect *)ctx)->compiled = cr->ok;
}

static void c_case(void *ctx, const struct case_result *c)
{
	eval_record_triage(((struct collect *)ctx)->rec, c);
}

static void c_perf(void *ctx, const struct perf_result *p)
{
	struct collect *k = ctx;

	k->last_gbps = p->gbps;
	k->last_tflops = p->tflops;
	k->last_bw_fraction = p->bw_fraction;
	k->last_flop_fraction = p->flop_fraction;
	k->rec->ref_kept_rows += p->ref_kept;
	k->rec->ref_outputs_kept += p->ref_outputs_kept;
}

static void c_done(void *ctx, const struct run_summary *s)
{
	struct collect *k = ctx;
	struct eval_record *r = k->rec;

	snprintf(r->verdict, sizeof(r->verdict), "%s", verdict_name(s->verdict));
	free(r->message);
	r->message = xstrdup(s->message ? s->message : "");
	r->call = k->compiled && s->verdict != V_COMPILE_ERROR;
	r->exe = s->verdict == V_PASS;
	r->perf = r->exe && s->cand_ms_sum > 0;
	r->cases_passed = s->cases_passed;
	r->cases_total = s->cases_total;
	r->speedup_golden = s->speedup_golden;
	r->speedup_ref = s->speedup_ref;
	r->ms = r->perf ? s->cand_ms_sum : -1;
	r->ref_ms = r->perf ? s->ref_ms_sum : -1;
	r->golden_ms = r->perf && s->golden_ms_sum > 0 ? s->golden_ms_sum : -1;
	r->gbps = r->perf ? k->last_gbps : -1;
	r->tflops = r->perf ? k->last_tflops : -1;
	r->bw_fraction = r->perf && k->last_bw_fraction > 0 ? k->last_bw_fraction : -1;
	r->flop_fraction = r->perf && k->last_flop_fraction > 0 ? k->last_flop_fraction : -1;
	r->split = s->split;
}

static void run_item(const struct eval_item *item, int worker, void *ctxp, struct eval_record *out)
{
	struct eval_ctx *ctx = ctxp;
	const struct task *t = item->task_id ? catalogue_find(&ctx->c->cat, item->task_id) : NULL;
	struct worker_request req = *ctx->base;
	struct collect k = { out, 0, -1, -1, -1, -1 };
	struct run_events cev = { &k, NULL, c_compile, c_case, c_perf, NULL, c_done };
	struct run_events rev, tee_ev;
	struct run_events_tee tee = { { NULL } };
	struct recorder *rec = NULL;
	double t0 = now_seconds();

	__atomic_fetch_add(&ctx->started, 1, __ATOMIC_RELAXED);
	out->id = xstrdup(item->id);
	out->started = t0 - ctx->t0;
	memcpy(out->sha, item->sha, sizeof(out->sha));
	out->device = ctx->gpus[worker];
	out->speedup_golden = out->speedup_ref = -1;
	out->ms = out->ref_ms = out->golden_ms = out->gbps = out->tflops = -1;
	out->bw_fraction = out->flop_fraction = -1;
	snprintf(out->verdict, sizeof(out->verdict), "error");
	if (!t) {
		out->message = xasprintf("no task named '%s' in the catalogue", item->task_hint);
		out->seconds = now_seconds() - t0;
		return;
	}
	out->task_id = xstrdup(t->id);
	out->category = xstrdup(t->category);
	if (item->refused) {
		/* binary or too large (core/lang.h): nothing runs, nothing is recorded */
		out->message = xstrdup(item->refused);
		out->seconds = now_seconds() - t0;
		return;
	}
	req.task_id = t->id;
	req.source = item->source;
	req.source_name = item->source_name;
	req.python = item->python;
	req.device = ctx->gpus[worker];
	tee.to[0] = &cev;
	if (ctx->dbs[worker]) {
		rec = recorder_new(ctx->dbs[worker], t->id, t->category, item->source, item->source_name, req.seed);
		recorder_set_context(rec, req.device, ctx->name);
		rev = recorder_events(rec);
		tee.to[1] = &rev;
	}
	tee_ev = events_tee(&tee);
	if (worker_run_kept(ctx->keeps[worker], NULL, &req, &tee_ev, NULL, NULL) != KBX_OK) {
		free(out->message);
		out->message = xstrdup(kbx_last_error());
	}
	recorder_free(rec);
	out->seconds = now_seconds() - t0;
}

/*
 * Compiling ahead: while the GPU runs one item, a thread compiles the items after it into the
 * history's compile cache (engine_precompile: the same key as the worker's): each candidate and
 * then its task's reference (a fresh history has no reference compiled either), and first, with
 * --compare gpu, the comparison kernel. So each worker finds them compiled and NVRTC's time
 * leaves the GPU's critical path. Items a worker has already taken are skipped: it compiles them
 * itself, and compiling them twice at once would only take cores from it. The worker still
 * compiles whatever the thread has not reached; a failure here only means a cache miss.
 */
struct precompile {
	pthread_t tid;
	int started;
	int stop;                       /* set (atomically) when the evaluation has ended */
	struct eval_item **items;
	int n, arch;
	const char *db_path, *tasks_root;
	const struct catalogue *cat;
	const int *taken;               /* eval_ctx.started: items [0, *taken) are the workers' */
	int compare_gpu;                /* --compare gpu: the comparison kernel first */
};

/* The reference of item's task into the cache (a hit costs one lookup once it is there). */
static void precompile_reference(const struct precompile *p, const struct eval_item *item,
				 const struct compile_cache *cache)
{
	const struct task *t = catalogue_find(p->cat, item->task_id);
	char *src = NULL;
	size_t len = 0;

	if (t && read_file(t->reference_path, &src, &len) == KBX_OK)
		engine_precompile(src, "reference.cu", p->arch, p->tasks_root, cache);
	free(src);
}

static void *precompile_main(void *arg)
{
	struct precompile *p = arg;
	struct compile_cache cache;
	struct db *db = NULL;
	int i;

	if (db_open(p->db_path, &db) != KBX_OK)
		return NULL;
	cache = cli_compile_cache(db);
	if (p->compare_gpu)     /* the comparison kernel the first perf row needs (engine_verify.c) */
		engine_precompile(gpucompare_source(), "kbx_gpucompare.cu", p->arch, p->tasks_root, &cache);
	for (i = 0; i < p->n && !__atomic_load_n(&p->stop, __ATOMIC_RELAXED); i++) {
		const struct eval_item *it = p->items[i];

		if (!it->task_id || it->refused || i < __atomic_load_n(p->taken, __ATOMIC_RELAXED))
			continue;
		if (it->source && !it->python)
			engine_precompile(it->source, it->source_name, p->arch, p->tasks_root, &cache);
		precompile_reference(p, it, &cache);
	}
	db_close(db);
	return NULL;
}

static void precompile_start(struct precompile *p, struct eval_item **items, int n, int ordinal, const char *db_path,
			     const struct catalogue *cat, const int *taken, int compare_gpu)
{
	struct gpu_info info;
	int count = 0;

	memset(p, 0, sizeof(*p));
	if (!db_path || n < 2)
		return;
	p->items = items;
	p->n = n;
	p->db_path = db_path;
	p->tasks_root = cat->root;
	p->cat = cat;
	p->taken = taken;
	p->compare_gpu = compare_gpu;
	/* the worker's architecture: its device's, or sm_90 without one (core/engine_compile.c) */
	p->arch = gpu_probe(ordinal, &info, &count) == KBX_OK ? info.cc_major * 10 + info.cc_minor : 90;
	p->started = pthread_create(&p->tid, NULL, precompile_main, p) == 0;
}

static void precompile_stop(struct precompile *p)
{
	if (!p->started)
		return;
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
	pthread_join(p->tid, NULL);
}

static void progress_bar(struct eval_ctx *ctx, int finished, int total)
{
	int width = 30, fill = total ? finished * width / total : width, i;
	double el = now_seconds() - ctx->t0, eta = finished ? el / finished * (total - finished) : 0;

	fputc('\r', stderr);
	fputc('[', stderr);
	for (i = 0; i < width; i++)
		fputc(i < fill ? '#' : '.', stderr);
	fprintf(stderr, "] %d/%d  pass %d  wrong %d  too fast %d  other %d  %.0fs, eta %.0fs ", finished, total,
		ctx->pass, ctx->wrong, ctx->impossible, ctx->other, el, eta);
	if (finished == total)
		fputc('\n', stderr);
	fflush(stderr);
}

static void item_done(const struct eval_record *rec, int finished, int total, void *ctxp)
{
	struct eval_ctx *ctx = ctxp;
	char *line = eval_record_to_json(rec);

	/* One line per finished item, on disk before the next starts: an interrupted evaluation
	 * resumes from here. */
	fprintf(ctx->progress, "%s\n", line);
	fflush(ctx->progress);
	fsync(fileno(ctx->progress));
	free(line);
	if (!strcmp(rec->verdict, "pass"))
		ctx->pass++;
	else if (!strcmp(rec->verdict, "wrong"))
		ctx->wrong++;
	else if (!strcmp(rec->verdict, "impossible_timing"))
		ctx->impossible++;
	else
		ctx->other++;
	if (ctx->quiet)
		return;
	if (ctx->tty)
		progress_bar(ctx, finished, total);
	else {
		const char *m = rec->message ? rec->message : "";

		fprintf(stderr, "%d/%d %s %s: %.*s\n", finished, total, rec->task_id ? rec->task_id : rec->id,
			rec->verdict, (int)strcspn(m, "\n"), m);
	}
}

int cmd_eval(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' }, { "gpus", required_argument, NULL, 'g' },
		{ "shard", required_argument, NULL, 'S' }, { "no-perf", no_argument, NULL, 'P' },
		{ "rows", required_argument, NULL, 'r' }, { "seed", required_argument, NULL, 's' },
		{ "launch-timeout", required_argument, NULL, 'L' }, { "quiet", no_argument, NULL, 'q' },
		{ "sanitize", required_argument, NULL, 'Z' },
		{ "python", required_argument, NULL, 'Y' }, { "compare", required_argument, NULL, 'K' },
		{ "reuse-worker", no_argument, NULL, 'W' },
		CLI_TIMING_LONG_OPTIONS, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	struct eval_ctx ctx;
	struct precompile pre;
	struct worker_request req;
	struct eval_item *items = NULL, **todo = NULL;
	struct eval_record *recs = NULL, *done_recs = NULL;
	const char *out = NULL, *gpus = "0", *shard = NULL;
	char *progress_path = NULL;
	int n = 0, nall = 0, nrecs = 0, ndone = 0, ngpus = 0, sidx = 0, scount = 1, opt, i, ntodo = 0, rc = 0, bad = 0;
	int reuse_worker = 0;
	enum kbx_status st;

	memset(&ctx, 0, sizeof(ctx));
	worker_request_default(&req);
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'g': gpus = optarg; break;
		case 'S': shard = optarg; break;
		case 'P': req.no_perf = 1; break;
		case 'r': req.max_perf_rows = cli_count(optarg, "--rows", &bad); break;
		case 's': req.seed = cli_seed(optarg, "--seed", &bad); break;
		case 'L': req.launch_limit_s = cli_num(optarg, "--launch-timeout", &bad); break;
		case 'q': ctx.quiet = 1; break;
		case 'Z':
			if (strcmp(optarg, "auto"))
				return cli_usage_error("eval", "--sanitize takes only 'auto' here, not '%s'", optarg);
			req.sanitize = "auto";
			break;
		case 'Y': req.python_exe = optarg; break;
		case 'K': req.compare_gpu = cli_compare(optarg, &bad); break;
		case 'W': reuse_worker = 1; break;
		case 'h': fputs(eval_usage, stdout); fputs(cli_timing_usage, stdout); return 0;
		default:
			if (cli_timing_option(opt, optarg, &req, &bad))
				break;
			return cli_bad_option("eval", opt, argv);
		}
	}
	if (bad || cli_timing_check(&req.bench))
		return 2;
	if (!out)
		return cli_usage_error("eval", "expected --out DIR");
	if (optind >= argc)
		return cli_usage_error("eval", "expected a SOURCE (predictions.jsonl, a folder or a file)");
	if (optind != argc - 1)
		return cli_usage_error("eval", "expected one SOURCE, not also '%s'", argv[optind + 1]);
	if (eval_parse_gpus(gpus, ctx.gpus, MAX_GPUS, &ngpus) ||
	    (shard && eval_parse_shard(shard, &sidx, &scount)))
		return cli_fail(2, "%s", kbx_last_error());
	if (cli_catalogue(c))
		return 2;
	st = eval_items_load(argv[optind], &c->cat, &items, &n);
	if (st)
		return cli_fail(2, "%s", kbx_last_error());
	nall = n;
	n = eval_shard(items, n, sidx, scount);
	if (make_dirs(out, 0755) != KBX_OK) {
		eval_items_free(items, nall);
		return cli_fail(2, "%s", kbx_last_error());
	}
	progress_path = xasprintf("%s/progress.jsonl", out);
	st = eval_progress_load(progress_path, &done_recs, &ndone);
	if (st) {
		rc = cli_fail(2, "%s", kbx_last_error());
		goto out;
	}
	todo = xcalloc((size_t)n + 1, sizeof(*todo));
	for (i = 0; i < n; i++)
		if (!eval_done(done_recs, ndone, &items[i]))
			todo[ntodo++] = &items[i];
	if (ntodo < n && !ctx.quiet)
		fprintf(stderr, "kbx: resuming: %d of %d items already done in %s\n", n - ntodo, n, progress_path);
	ctx.progress = fopen(progress_path, "a");
	if (!ctx.progress) {
		rc = cli_fail(2, "cannot write '%s'", progress_path);
		goto out;
	}
	req.tasks_root = c->cat.root;
	/* Each worker reads its GPU's calibration from the history, for the fractions. */
	req.calib_db = (char *)c->db_path;
	ctx.c = c;
	ctx.base = &req;
	ctx.name = out;
	ctx.tty = isatty(2);
	ctx.t0 = now_seconds();
	for (i = 0; i < ngpus && !c->no_history; i++) {
		if (db_open(c->db_path, &ctx.dbs[i]) != KBX_OK) {
			cli_fail(0, "history disabled: %s", kbx_last_error());
			ctx.dbs[i] = NULL;
		}
	}
	req.db_path = ctx.dbs[0] ? (char *)c->db_path : NULL;
	precompile_start(&pre, todo, ntodo, ctx.gpus[0], req.db_path, &c->cat, &ctx.started, req.compare_gpu);
	for (i = 0; i < ngpus; i++) {
		ctx.keeps[i] = worker_keep_new();
		worker_keep_cuda(ctx.keeps[i], reuse_worker);
	}
	st = eval_schedule(todo, ntodo, ngpus, run_item, item_done, &ctx);
	for (i = 0; i < ngpus; i++)
		worker_keep_free(ctx.keeps[i]);
	precompile_stop(&pre);
	fclose(ctx.progress);
	for (i = 0; i < ngpus; i++)
		db_close(ctx.dbs[i]);
	if (st) {
		rc = cli_fail(2, "%s", kbx_last_error());
		goto out;
	}
	/* The reports cover every item of this shard: the ones run now and the ones resumed. */
	eval_progress_load(progress_path, &recs, &nrecs);
	{
		struct eval_record *mine = xcalloc((size_t)nrecs + 1, sizeof(*mine));
		int k = 0;

		for (i = 0; i < nrecs; i++) {
			int j, keep = 0;

			for (j = 0; j < n && !keep; j++)
				keep = !strcmp(items[j].id, recs[i].id) && !strcmp(items[j].sha, recs[i].sha);
			if (keep)
				mine[k++] = recs[i];
		}
		st = eval_write_reports(out, mine, k, &c->cat, stdout);
		free(mine);
	}
	if (st)
		rc = cli_fail(2, "%s", kbx_last_error());
	else
		printf("reports: %s/metrics.json, %s/summary.json\n", out, out);
out:
	for (i = 0; i < nrecs; i++)
		eval_record_free(&recs[i]);
	free(recs);
	for (i = 0; i < ndone; i++)
		eval_record_free(&done_recs[i]);
	free(done_recs);
	free(todo);
	free(progress_path);
	eval_items_free(items, nall);
	return rc;
}
