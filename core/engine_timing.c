/*
 * The run engine: timing sets, perf rows and the check after timing (engine_int.h; the method in
 * doc/timing.md).
 */
#include "engine_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "devgen.h"
#include "gpucompare.h"
#include "inputs.h"

/* Timed calls rotate among this many complete buffer sets (different inputs, own outputs and
 * scratch), where device memory allows: see timing_sets_open. */
#define TIMING_SETS 3
/* Device memory left free when adding timing sets: the larger of 1 GiB and this share. */
#define TIMING_RESERVE_SHARE 0.05

/* ------------------------------------------------------------------ timing ---- */

/* One timed call: the program's launches without synchronisation. */
static enum kbx_status call_program(struct run *r, const struct program *p, const struct dev_set *s,
				    const struct problem *pb)
{
	char why[1024];
	enum kbx_status st = engine_run_launches(r, p, s, pb, 0, "perf", why, sizeof(why));

	if (st)
		return kbx_error(st, "%s", why);
	return KBX_OK;
}

static enum kbx_status flush_l2(struct run *r)
{
	return gpu_memset32(r->gpu, r->flush, 0, r->flush_bytes / 4);
}

/*
 * The buffer sets one program's timed calls rotate through. Set 0 is the problem's own (verified,
 * and checked again after timing); the others are allocated for the timing only, with inputs
 * drawn on the GPU under their own keys (the same keys for candidate and reference, so both are
 * timed on the same data) and their own outputs and scratch. Before every call (outside the
 * events) the next set's outputs and scratch are reset, poisoned for the candidate and zeroed for
 * the reference as engine_set_prepare does: nothing a call leaves in its buffers, and no input it has
 * seen the call before, serves the next call. inout buffers are not restored (they carry state
 * from call to call, as optimizer steps do).
 */
struct timing_sets {
	struct dev_set *own;        /* set 0 */
	struct dev_set extra[TIMING_SETS - 1];
	int n;                      /* sets in use, 1 .. TIMING_SETS */
	int next;                   /* the set the next call uses */
	int current;                /* the set prepared last */
	int poison;
};

static const struct dev_set *timing_set(const struct timing_sets *ts, int i)
{
	return i == 0 ? ts->own : &ts->extra[i - 1];
}

/* Bytes one more set takes on the device: buffers, scratch and guard zones. */
static double set_bytes(const struct run *r, const struct dev_set *s, const struct problem *pb)
{
	double bytes = 0;
	int i;

	for (i = 0; i < pb->nbufs; i++)
		bytes += (double)pb->bufs[i].bytes + 2.0 * (double)engine_guard_bytes(r);
	for (i = 0; i < s->nscratch; i++)
		bytes += (double)s->scratch_bytes[i] + 2.0 * (double)engine_guard_bytes(r);
	return bytes;
}

/* Input b of extra set k: drawn on the GPU under the key "<row key>-set<k>" where the generator
 * covers it, else a copy of set 0's (same values, another address); *copied is set then. */
static enum kbx_status timing_input(struct run *r, const struct case_ctx *c, const struct problem_buf *b,
				    const struct dev_buf *from, const struct dev_buf *to, int k, int *copied)
{
	struct gen_spec g;
	enum kbx_status st;
	char key[64];

	if (!c->dev_key[0] || !b->gen || !r->devgen || gen_parse(b->gen, &g) != KBX_OK) {
		kbx_clear_error();
		*copied = 1;
		return gpu_copy(r->gpu, to->ptr, from->ptr, to->bytes);
	}
	if (!devgen_supports(&g, b->arg->dtype)) {
		gen_spec_free(&g);
		*copied = 1;
		return gpu_copy(r->gpu, to->ptr, from->ptr, to->bytes);
	}
	snprintf(key, sizeof(key), "%s-set%d", c->dev_key, k);
	st = devgen_fill(r->devgen, &g, b->arg->dtype, to->ptr, b->numel, b->shape, b->ndim,
			 gen_key(r->o->seed, r->t->id, key, b->arg->name));
	gen_spec_free(&g);
	return st;
}

static void timing_sets_close(struct run *r, struct timing_sets *ts)
{
	int i;

	for (i = 1; i < ts->n; i++)
		engine_set_free(r, &ts->extra[i - 1], r->t);
	ts->n = 1;
}

/* Log what the timing of a row rotates through when it differs from what was last said. */
static void timing_sets_say(struct run *r, const char *label, int n, double need, const char *copied)
{
	if (n < TIMING_SETS)
		engine_log(r, "%s: timed calls rotate among %d input set(s): %d more of %.2f GiB each do not fit in device "
			   "memory", label, n, TIMING_SETS - n, need / (1 << 30));
	else if (r->sets_said != n)
		engine_log(r, "timed calls rotate among %d input sets, outputs and scratch reset before each call", n);
	if (copied[0] && n > 1)
		engine_log(r, "%s: input(s) %s repeat the first set's values in the other sets (no GPU generator for them)",
			   label, copied);
	r->sets_said = n;
}

/* Allocate and fill the extra sets of program p at problem c (its set 0 is `own`, prepared). */
static enum kbx_status timing_sets_open(struct run *r, struct case_ctx *c, const struct program *p, struct dev_set *own,
					int poison, const char *label, struct timing_sets *ts)
{
	const struct problem *pb = &c->pb;
	double need = set_bytes(r, own, pb), t0 = now_seconds();
	size_t free_b = 0, total_b = 0;
	char copied[256] = "";
	enum kbx_status st = KBX_OK;
	int k, i;

	memset(ts, 0, sizeof(*ts));
	ts->own = own;
	ts->n = 1;
	ts->poison = poison;
	if (gpu_mem_info(r->gpu, &free_b, &total_b) != KBX_OK) {
		kbx_clear_error();
		free_b = 0;
	}
	for (k = 1; k < TIMING_SETS && !st; k++) {
		double reserve = fmax((double)(1u << 30), TIMING_RESERVE_SHARE * (double)total_b);
		struct dev_set *s = &ts->extra[k - 1];

		if ((double)free_b < need + reserve)
			break;
		/* an allocation that fails although the memory looked free: time with what there is */
		if ((st = engine_set_alloc(r, s, pb, p)) != KBX_OK) {
			engine_set_free(r, s, r->t);
			if (gpu_is_sticky(r->gpu))
				break;
			kbx_clear_error();
			st = KBX_OK;
			break;
		}
		ts->n++;
		free_b -= (size_t)need;
		for (i = 0; i < pb->nbufs && !st; i++) {
			const struct problem_buf *b = &pb->bufs[i];
			int ai = (int)(b->arg - r->t->args), was = 0;

			if (b->arg->dir == ARG_OUT || !b->bytes)
				continue;
			st = timing_input(r, c, b, &own->args[ai], &s->args[ai], k, &was);
			if (was && !strstr(copied, b->arg->name) && strlen(copied) + strlen(b->arg->name) + 4 < sizeof(copied))
				snprintf(copied + strlen(copied), sizeof(copied) - strlen(copied), "%s'%s'", copied[0] ? ", " : "",
					 b->arg->name);
		}
	}
	if (!st)
		st = gpu_sync(r->gpu);
	/* A host candidate gets every set's buffers now: binding is not part of a timed call. */
	for (k = 0; p->host && k < ts->n && !st; k++) {
		char why[512];

		st = engine_host_bind(r, k ? &ts->extra[k - 1] : ts->own, NULL, pb, why, sizeof(why));
	}
	r->sum.split.inputs_s += now_seconds() - t0;
	if (!st)
		timing_sets_say(r, label, ts->n, need, copied);
	return st;
}

/* Reset the outputs and scratch of the next set and make it current (before every call). */
static enum kbx_status timing_sets_prepare(struct run *r, const struct program *p, const struct problem *pb,
					   struct timing_sets *ts)
{
	const struct dev_set *s = timing_set(ts, ts->next);
	enum kbx_status st = KBX_OK;
	int i;

	for (i = 0; i < pb->nbufs && !st; i++) {
		const struct problem_buf *b = &pb->bufs[i];

		if (b->arg->dir == ARG_OUT)
			st = gpu_memset8(r->gpu, s->args[b->arg - r->t->args].ptr, ts->poison ? engine_poison_byte(b->arg->dtype) : 0,
					 b->bytes);
	}
	for (i = 0; i < s->nscratch && !st; i++)
		st = gpu_memset8(r->gpu, s->scratch[i].ptr, ts->poison ? engine_poison_byte(p->spec.scratch[i].dtype) : 0,
				 s->scratch_bytes[i]);
	ts->current = ts->next;
	ts->next = (ts->next + 1) % ts->n;
	return st;
}

struct bench_ctx {
	struct run *r;
	const struct program *p;
	struct timing_sets *sets;
	const struct problem *pb;
};

static enum kbx_status bench_call_program(void *ctx)
{
	struct bench_ctx *b = ctx;

	return call_program(b->r, b->p, timing_set(b->sets, b->sets->current), b->pb);
}

static enum kbx_status bench_flush(void *ctx)
{
	return flush_l2(((struct bench_ctx *)ctx)->r);
}

static enum kbx_status bench_prepare(void *ctx)
{
	struct bench_ctx *b = ctx;

	return timing_sets_prepare(b->r, b->p, b->pb, b->sets);
}

/* Time one program at one perf row (bench.h: do_bench's method unless asked otherwise), its calls
 * rotating through the sets of timing_sets_open; set 0 is s, prepared by the caller. */
static enum kbx_status time_program(struct run *r, const struct program *p, struct case_ctx *c, struct dev_set *s,
				    const char *label, struct bench_result *out)
{
	struct timing_sets ts;
	struct bench_ctx b = { r, p, &ts, &c->pb };
	struct bench_call bc = { &b, bench_call_program, bench_flush, r->nvml, r->last_call_ms[p == &r->ref],
				 bench_prepare };
	enum kbx_status st = timing_sets_open(r, c, p, s, p != &r->ref, label, &ts);

	memset(out, 0, sizeof(*out));
	if (!st)
		st = bench_run(r->gpu, &bc, &r->o->bench, out);
	timing_sets_close(r, &ts);
	r->sum.split.timing_s += out->wall_s;
	return st;
}

/* The largest |err| / bound over the outputs that failed their comparison: inf for NaN or Inf
 * where the reference has none, and so for elements left unwritten (poison). */
static double worst_score(const struct case_result *cr)
{
	double worst = 0;
	int i;

	for (i = 0; i < cr->noutputs; i++) {
		const struct cmp_result *m = &cr->outputs[i].cmp;

		if (m->pass)
			continue;
		if (m->nan_mismatches || m->inf_mismatches)
			return INFINITY;
		if (m->nworst && m->worst[0].score > worst)
			worst = m->worst[0].score;
	}
	return worst;
}

/* What a failed comparison at a perf row was held to, appended to its message: the perf-size
 * bound ([tolerance.perf], `bound` as task_perf_tolerance describes it) or the cases' own. */
static char *with_bound(const struct run *r, const char *message, const struct case_result *cr, const char *bound)
{
	int i;

	for (i = 0; i < cr->noutputs && cr->outputs[i].cmp.pass; i++)
		;
	if (i == cr->noutputs || r->t->tol.metric || engine_is_property(r->t))
		return xstrdup(message);
	if (bound[0])
		return xasprintf("%s: outside the perf-size bound %s", message, bound);
	return xasprintf("%s: outside the cases' tolerance rtol %.3g, atol %.3g (the task declares no [tolerance.perf])",
			 message, cr->outputs[i].cmp.rtol, cr->outputs[i].cmp.atol);
}

/* 1 when every out/inout buffer of a and b holds the same bytes. */
static int same_outputs(const struct problem *pb, void *const *a, void *const *b)
{
	int i;

	for (i = 0; i < pb->nbufs; i++)
		if (pb->bufs[i].arg->dir != ARG_IN && !compare_bitwise(a[i], b[i], pb->bufs[i].bytes))
			return 0;
	return 1;
}

/* Errors this many times the bound, or NaN, Inf and unwritten elements, are not rounding. */
#define GROSS_SCORE 100.0

/* After timing, fresh inputs: the candidate must still match the reference, so a kernel that
 * replays a result it computed once (or keys on the call count) is caught. Such a kernel is
 * named as one only on evidence: its outputs are those it gave on the inputs before timing, they
 * change when run again on the same inputs, or they are far (GROSS_SCORE) outside the bound. A
 * small deviation on the fresh inputs is a tolerance miss at this size, reported with the bound.
 * before: the digest of the candidate's outputs on the row's inputs before timing. */
static enum kbx_status check_after_timing(struct run *r, struct case_ctx *c, int row, const char *label,
					  const char *bound, uint64_t before, struct perf_result *pr)
{
	struct case_result cr, again;
	enum kbx_status st;
	char key[48];
	void **first = NULL, **second = NULL;
	const char *suspect = NULL;
	double worst;

	memset(&cr, 0, sizeof(cr));
	memset(&again, 0, sizeof(again));
	engine_host_free(c->in, c->pb.nbufs);
	engine_host_free(c->ref_out, c->pb.nbufs);
	c->in = c->ref_out = NULL;
	snprintf(key, sizeof(key), "perf%d-after-timing", row);
	engine_phase(r, r->launch_limit_s * 4 + 30, "%s: check after timing", label);
	/* compared on the GPU: the reference's outputs come to the host only if the host path runs */
	c->gpu_cmp = c->gpu_cmp && engine_gpu_compare(r);
	st = engine_perf_inputs(r, c, key);
	if (!st)
		st = engine_set_prepare(r, &c->rs, c, &r->ref, 0);
	if (!st)
		st = engine_reference_outputs(r, c, key, label);
	if (!st)
		st = engine_judge_candidate(r, c, label, &cr, &first);
	if (st || cr.verdict == V_PASS || cr.verdict == V_NOT_RUN)
		goto out;
	pr->correct = 0;
	worst = worst_score(&cr);
	if (cr.verdict != V_WRONG || worst > GROSS_SCORE || cr.oob_arg[0] || cr.modified_arg[0]) {
		suspect = "";
	} else {
		/* judged on the GPU with every output right (wrong for a device global's state): the
		 * host copies the evidence below reads */
		if (!first && (st = engine_fetch_outputs(r, &c->cs, &c->pb, &first)))
			goto out;
		if (engine_host_digest(&c->pb, first) == before) {
			suspect = "its outputs are the ones it gave on the inputs before timing: ";
		} else {
			/* once more on the same inputs: a replayed result does not come out the same twice */
			st = engine_judge_candidate(r, c, label, &again, &second);
			if (!st && !second)
				st = engine_fetch_outputs(r, &c->cs, &c->pb, &second);
			if (st)
				goto out;
			if (!same_outputs(&c->pb, first, second))
				suspect = "its outputs on the same inputs differ from one run to the next: ";
		}
	}
	if (suspect) {
		r->sum.warnings |= WARN(W_REVERIFY_FAILED);
		pr->message = xasprintf("wrong on fresh inputs after timing (a replayed or cached result?): %s%s", suspect,
					cr.message ? cr.message : verdict_name(cr.verdict));
	} else {
		char *m = with_bound(r, cr.message ? cr.message : verdict_name(cr.verdict), &cr, bound);

		pr->message = xasprintf("wrong on fresh inputs after timing (within %.3g times the bound: a tolerance miss "
					"at this size, not a replay): %s", worst, m);
		free(m);
	}
out:
	engine_host_free(first, c->pb.nbufs);
	engine_host_free(second, c->pb.nbufs);
	case_result_free(&cr);
	case_result_free(&again);
	return st;
}

/* A run of the reference's own image (a sweep of the references) checks nothing after timing,
 * but every later candidate of the task is checked on the fresh inputs drawn there. Where the
 * reference is slow enough for its outputs to be kept (refout_worth_keeping), it runs once on
 * those inputs now and they are kept under the key those checks look for, so that a bulk
 * evaluation after a sweep runs it at neither check (refout.h). One decision per row, by the wall
 * time of its call before timing: the row keeps outputs at both checks or at neither (the
 * timing's median, and this call's own time, once fell on either side of the bound for a row
 * whose before-timing outputs were kept). */
static enum kbx_status keep_after_timing_outputs(struct run *r, struct case_ctx *c, int row, const char *label)
{
	enum kbx_status st;
	char key[48], rkey[65], why[1024];

	if (!r->o->ref_outputs || r->o->retime_reference || r->ref.host ||
	    !refout_worth_keeping(c->ref_call_s, refout_output_bytes(&c->pb, NULL)))
		return KBX_OK;
	engine_host_free(c->in, c->pb.nbufs);
	c->in = NULL;
	snprintf(key, sizeof(key), "perf%d-after-timing", row);
	engine_phase(r, r->launch_limit_s * 4 + 30, "%s: the reference on the inputs after timing, kept", label);
	st = engine_perf_inputs(r, c, key);
	if (!st)
		st = engine_set_prepare(r, &c->cs, c, &r->cand, 1);
	if (st || !engine_refout_key(r, c, &c->cs, key, rkey))
		return st;
	if ((st = engine_run_launches(r, &r->cand, &c->cs, &c->pb, 1, label, why, sizeof(why)))) {
		if (gpu_is_sticky(r->gpu))
			r->sticky = 1;
		return kbx_error(st, "the reference failed on %s's inputs after timing: %s", label, why);
	}
	engine_refout_keep(r, c, &c->cs, NULL, rkey, c->ref_call_s);
	return KBX_OK;
}

/* Check the candidate at a perf row before timing it: the reference's own image runs once, a
 * distribution is tested, anything else is judged against the reference (*digest: its outputs). */
static enum kbx_status check_perf_row(struct run *r, struct case_ctx *c, const char *key, const char *label,
				      struct case_result *cr, uint64_t *digest)
{
	enum kbx_status st;
	void **before = NULL;

	if (r->ref_is_cand) {
		char why[1024];

		/* The candidate is the reference's own image: comparing them at this size would compare
		 * the code with itself. One synchronised call checks that it runs here (and tells the
		 * timing how long a call is); the cases have verified it. */
		char rkey[65];
		int keyed = 0;
		double t0;

		cr->verdict = V_PASS;
		st = engine_perf_inputs(r, c, key);
		if (!st)
			st = engine_set_alloc(r, &c->cs, &c->pb, &r->cand);
		if (!st)
			st = engine_set_prepare(r, &c->cs, c, &r->cand, 1);
		if (!st)
			keyed = engine_refout_key(r, c, &c->cs, key, rkey);
		t0 = now_seconds();
		if (!st && engine_run_launches(r, &r->cand, &c->cs, &c->pb, 1, label, why, sizeof(why))) {
			cr->verdict = V_RUNTIME_ERROR;
			cr->message = xstrdup(why);
			if (gpu_is_sticky(r->gpu))
				r->sticky = 1;
		} else if (!st) {
			c->ref_call_s = now_seconds() - t0;
			/* its outputs are the reference's: kept for the candidates that come after (a
			 * sweep of the references fills the history for an evaluation) */
			if (keyed)
				engine_refout_keep(r, c, &c->cs, NULL, rkey, c->ref_call_s);
		}
	} else if (r->t->verifier && !strcmp(r->t->verifier, "distribution")) {
		/* with --compare gpu f32 draws are tested on the device (engine_verify_distribution) */
		c->gpu_cmp = r->o->compare_gpu == COMPARE_GPU && engine_gpu_compare(r);
		st = engine_make_inputs(r, &c->pb, key, 0, &c->in);
		if (!st)
			st = engine_set_alloc(r, &c->cs, &c->pb, &r->cand);
		if (!st)
			st = engine_set_alloc(r, &c->rs, &c->pb, &r->ref);
		if (!st)
			st = engine_set_prepare(r, &c->rs, c, &r->ref, 0);
		if (!st)
			st = engine_verify_distribution(r, c, label, cr);
	} else {
		/* with --compare both the host judges, and engine_judge_candidate has the GPU compare too */
		c->gpu_cmp = r->o->compare_gpu == COMPARE_GPU && engine_gpu_compare(r);
		st = engine_case_setup(r, c, key, label, 1);
		if (!st)
			st = engine_judge_candidate(r, c, label, cr, &before);
		if (before)
			*digest = engine_host_digest(&c->pb, before);
		else if (!st && c->gpu_judged && cr->verdict == V_PASS)
			st = engine_outputs_digest(r, c, digest);  /* the outputs stayed on the device */
		engine_host_free(before, c->pb.nbufs);
	}
	return st;
}

/* ---- the reference's kept timings (reftime.h) ---------------------------------------------- */

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The key of perf row `row`'s reference timing; 0 when nothing can be kept (no history, or the
 * reference's image unknown). */
static int ref_timing_key(const struct run *r, const struct case_ctx *c, int row, char key[65])
{
	struct reftime_id id;
	char method[256];

	if (!r->o->ref_timings || !r->ref_hash[0])
		return 0;
	reftime_method(&r->o->bench, method, sizeof(method));
	memset(&id, 0, sizeof(id));
	id.gpu_uuid = r->info.uuid;
	id.gpu_name = r->info.name;
	id.driver_version = r->info.driver_version;
	id.kbx_version = PACKAGE_VERSION;
	id.task_id = r->t->id;
	id.ref_image_hash = r->ref_hash;
	id.row = row;
	id.input_size = c->pb.input_size ? c->pb.input_size : "null";
	id.seed = r->o->seed;
	id.method = method;
	reftime_key(&id, key);
	return 1;
}

/* Stand a kept timing of the reference in for a live one (pr->clocks: the candidate's, just
 * read): 1 when it did. */
static int ref_timing_reuse(struct run *r, const struct case_ctx *c, struct perf_result *pr, const char *label)
{
	const struct ref_timing_cache *kc = r->o->ref_timings;
	struct ref_timing kept;
	char key[65], why[256];
	double now = wall_now();

	if (r->o->retime_reference || !ref_timing_key(r, c, pr->row, key) || !kc->get ||
	    kc->get(kc->ctx, key, &kept) != 0)
		return 0;
	if (!reftime_usable(&kept, &pr->clocks, now, REFTIME_MAX_AGE_S, why, sizeof(why))) {
		engine_log(r, "%s: the reference's kept timing is not used: %s; timed live", label, why);
		return 0;
	}
	pr->ref = kept.s;
	pr->ref_kept = 1;
	pr->ref_age_s = fmax(0, now - kept.measured_at);
	r->ref_kept_rows++;
	r->ref_kept_oldest_s = fmax(r->ref_kept_oldest_s, pr->ref_age_s);
	return 1;
}

/* Keep a live timing of the reference's image (timed as the reference, or as the candidate that
 * is the reference) for later runs; only with clock readings, without which it is never reused. */
static void ref_timing_keep(struct run *r, const struct case_ctx *c, int row, const struct bench_result *br)
{
	const struct ref_timing_cache *kc = r->o->ref_timings;
	struct ref_timing t;
	char key[65];

	if (!ref_timing_key(r, c, row, key) || !kc->put || !br->clocks.valid || !(br->s.n > 0))
		return;
	t.s = br->s;
	t.clocks = br->clocks;
	t.measured_at = wall_now();
	kc->put(kc->ctx, key, r->t->id, r->info.name, row, &t);
}

/* Time the candidate, then the reference (unless it is the candidate's own image, or a kept
 * timing of it stands in), at a perf row. */
static enum kbx_status time_perf_row(struct run *r, struct case_ctx *c, const char *label, struct perf_result *pr)
{
	struct bench_result br;
	enum kbx_status st;
	double limit;

	limit = r->launch_limit_s * 10 + 3 * bench_budget_s(&r->o->bench);
	engine_phase(r, limit, "%s: timing candidate", label);
	st = engine_set_prepare(r, &c->cs, c, &r->cand, 1);
	if (!st)
		st = time_program(r, &r->cand, c, &c->cs, label, &br);
	if (st) {
		if (gpu_is_sticky(r->gpu))
			r->sticky = 1;
		return st;
	}
	pr->cand = br.s;
	pr->cand_rsd = br.rsd;
	pr->clocks = br.clocks;
	snprintf(pr->bench_stop, sizeof(pr->bench_stop), "%s", br.stop);
	snprintf(pr->bench_mode, sizeof(pr->bench_mode), "%s", bench_mode_name(r->o->bench.mode));
	pr->hide_latency = r->o->bench.hide_latency;
	if (br.batches_dropped)
		engine_log(r, "%s: %d batch(es) dropped: the GPU waited for the host while hiding launch latency",
			   label, br.batches_dropped);
	if (r->ref_is_cand) {
		pr->ref = pr->cand;
		pr->ref_is_cand = 1;
		ref_timing_keep(r, c, pr->row, &br);
	} else if (!ref_timing_reuse(r, c, pr, label)) {
		engine_phase(r, limit, "%s: timing reference", label);
		st = time_program(r, &r->ref, c, &c->rs, label, &br);
		if (st)
			return st;
		pr->ref = br.s;
		ref_timing_keep(r, c, pr->row, &br);
	}
	return KBX_OK;
}

enum kbx_status engine_run_perf_row(struct run *r, int row, const struct golden_row *golden, int ngolden,
				    struct perf_result *pr)
{
	struct case_ctx c = { 0 };
	struct case_result cr;
	enum kbx_status st;
	char label[64], key[32], bound[320] = "";
	uint64_t digest = 0;
	int kept0 = r->refout_kept;

	memset(pr, 0, sizeof(*pr));
	memset(&cr, 0, sizeof(cr));
	pr->row = row;
	pr->golden_ms = -1;
	snprintf(label, sizeof(label), "perf row %d", row + 1);
	snprintf(key, sizeof(key), "perf%d", row);
	st = problem_from_perf(r->t, row, &c.pb);
	if (!st)
		st = task_perf_tolerance(r->t, &c.pb.env, &c.tol, bound, sizeof(bound));
	if (st)
		goto out;
	pr->bytes = c.pb.bytes;
	pr->flops = c.pb.flops;
	pr->input_size = xstrdup(c.pb.input_size ? c.pb.input_size : "null");
	if (golden && row < ngolden)
		pr->golden_ms = golden[row].ms;
	engine_phase(r, r->launch_limit_s * 4 + 30, "%s: inputs", label);
	r->gcmp_saved = r->gcmp_s = 0;
	r->gcmp_host = 0;
	st = check_perf_row(r, &c, key, label, &cr, &digest);
	if (st)
		goto out;
	if (cr.verdict == V_NOT_RUN && r->cand.host && r->host_outcome == HOST_UNCALLED) {
		/* a timed call would time an empty Python call (an impossible timing, or a speedup
		 * that is not there): the row is the task's to fix, not the candidate's */
		st = kbx_error(KBX_EINVAL, "%s cannot be timed: %s, so nothing would run in its timed calls (the task's "
			       "perf rows must be ones its crosscheck.py calls the function for)", label, cr.message);
		goto out;
	}
	if (cr.verdict == V_NOT_RUN)
		engine_log(r, "%s: %s; timed all the same", label, cr.message);
	pr->correct = cr.verdict == V_PASS || cr.verdict == V_NOT_RUN;
	if (!pr->correct) {
		char *m = with_bound(r, cr.message ? cr.message : verdict_name(cr.verdict), &cr, bound);

		pr->message = xasprintf("wrong at this size: %s", m);
		free(m);
		goto out;
	}
	st = time_perf_row(r, &c, label, pr);
	if (st)
		goto out;
	pr->has_ref = 1;
	if (!(r->t->verifier && !strcmp(r->t->verifier, "distribution"))) {
		st = r->ref_is_cand ? keep_after_timing_outputs(r, &c, row, label)
				    : check_after_timing(r, &c, row, label, bound, digest, pr);
		if (st || !pr->correct)
			goto out;
	}
	if (pr->bytes >= 0 && pr->cand.median > 0)
		pr->gbps = pr->bytes / (pr->cand.median * 1e-3) / 1e9;
	else
		pr->gbps = -1;
	/* Faster than the hardware allows means the timing is wrong (work skipped, results replayed),
	 * whatever the outputs say (ceiling.h). */
	{
		char why[512];

		if (ceiling_check(&r->ceiling, pr->cand.median, ceiling_min_bytes(r->t, &c.pb), pr->flops, why,
				  sizeof(why))) {
			pr->impossible = 1;
			pr->message = xstrdup(why);
		}
	}
	if (pr->flops >= 0 && pr->cand.median > 0)
		pr->tflops = pr->flops / (pr->cand.median * 1e-3) / 1e12;
	else
		pr->tflops = -1;
out:
	pr->ref_outputs_kept = r->refout_kept - kept0;
	/* what --compare gpu saved at this row, for measuring it (issue 20) */
	if (!st && r->o->compare_gpu && (r->gcmp_saved > 0 || r->gcmp_host))
		engine_log(r, "%s: compared on the GPU: %.1f MiB of outputs not copied to the host, %.3f s in the GPU "
			   "comparison and digest%s", label, r->gcmp_saved / (1 << 20), r->gcmp_s,
			   r->gcmp_host ? ", a failing output judged again on the host" : "");
	case_result_free(&cr);
	engine_case_ctx_free(r, &c);
	return st;
}

/* `kbx export --perf-row N`: perf row N's inputs drawn on the host (what the GPU generator draws,
 * but for a randn element in about 2^28 whose rounding differs), the reference's and the
 * candidate's outputs and the tolerance kbx holds that row to, under DIR/perfN/. Nothing is
 * timed; the run ends with the candidate's verdict at that row. */
enum kbx_status engine_export_perf_row(struct run *r, int row)
{
	struct case_ctx c = { 0 };
	struct case_result cr;
	void **cand = NULL;
	char label[64], key[32], name[32], bound[320] = "";
	enum kbx_status st;

	memset(&cr, 0, sizeof(cr));
	if (row < 0 || row >= r->t->perf.nrows)
		return kbx_error(KBX_EINVAL, "task '%s' has %d perf row(s), not a row %d", r->t->id, r->t->perf.nrows,
				 row + 1);
	if (r->t->verifier && !strcmp(r->t->verifier, "distribution"))
		return kbx_error(KBX_EINVAL, "task '%s' is checked by its distribution: no outputs to export", r->t->id);
	snprintf(label, sizeof(label), "perf row %d", row + 1);
	snprintf(key, sizeof(key), "perf%d", row);
	snprintf(name, sizeof(name), "perf%d", row + 1);
	st = problem_from_perf(r->t, row, &c.pb);
	if (!st)
		st = task_perf_tolerance(r->t, &c.pb.env, &c.tol, bound, sizeof(bound));
	if (!st)
		st = engine_case_setup(r, &c, key, label, 0);
	if (!st)
		st = engine_judge_candidate(r, &c, label, &cr, &cand);
	if (!st)
		st = engine_export_case(r, &c, name, cand, bound);
	if (!st)
		engine_finish(r, cr.verdict, "%s: %s", label, cr.message ? cr.message : "outputs exported");
	engine_host_free(cand, c.pb.nbufs);
	case_result_free(&cr);
	engine_case_ctx_free(r, &c);
	return st;
}
