/*
 * The run engine: one run of a candidate against a task (engine.h has the contract).
 *
 * Two "programs" (candidate, reference) are compiled and bound to their launch lines. Each
 * problem (a case or a perf row) gets host inputs, and each program gets its own device
 * buffers ("sets"): nothing the candidate does can touch the reference's data.
 *
 * The run is split across engine*.c by what each part does: engine_int.h lists them.
 */
#include "engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "derive.h"
#include "devgen.h"
#include "gpucompare.h"
#include "gpuprop.h"
#include "nvml.h"
#include "triton.h"

#define FLUSH_MIN_BYTES (256u << 20)

void engine_options_default(struct engine_options *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 0;
	bench_options_default(&o->bench);
	o->launch_limit_s = 10;
	o->compile_limit_s = 60;
}

/* ---------------------------------------------------------------- events ---- */

void engine_phase(struct run *r, double limit, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (!r->ev->phase)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	r->ev->phase(r->ev->ctx, what, limit);
}

void engine_log(struct run *r, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	if (!r->ev->log)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	r->ev->log(r->ev->ctx, text);
}

void engine_finish(struct run *r, enum verdict v, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->o->compare_gpu == COMPARE_BOTH && v != V_ERROR && r->gpu)
		engine_log(r, "--compare both: %d output(s) compared on the GPU too, each report the host's", r->gcmp_both);
	if (v == V_PASS && r->missing_evidence) {
		v = V_WRONG;
		snprintf(msg, sizeof(msg), "outputs match, but the source shows no evidence that it does what the task "
			 "requires: missing %s", r->missing_evidence);
	}
	r->sum.verdict = v;
	r->finished = 1;
	r->sum.seconds = now_seconds() - r->t0;
	r->sum.split.verify_s = r->sum.seconds - r->sum.split.compile_s - r->sum.split.inputs_s - r->sum.split.timing_s;
	if (r->sum.split.verify_s < 0)
		r->sum.split.verify_s = 0;
	free(r->sum.message);
	r->sum.message = xstrdup(msg);
	if (r->ev->done)
		r->ev->done(r->ev->ctx, &r->sum);
}

static void summary_init(struct run *r)
{
	memset(&r->sum, 0, sizeof(r->sum));
	r->sum.speedup_golden = -1;
	r->sum.speedup_ref = -1;
	r->sum.cand_ms_sum = r->sum.ref_ms_sum = r->sum.golden_ms_sum = -1;
	if (r->gpu) {
		snprintf(r->sum.gpu, sizeof(r->sum.gpu), "%s", r->info.name);
		r->sum.driver_version = r->info.driver_version;
	}
}

/* What run_all compiles, kept until the run ends: the candidate's and the reference's images and
 * compile results, and the reference's source. */
struct run_images {
	struct compile_result cc, rc;
	void *cimg, *rimg;
	size_t csz, rsz;
	char *ref_src;
};

/* Compile (or load, or read from Triton) the candidate, apply the static rules and report the
 * compile; a candidate that does not compile or load ends the run (engine_finish). */
static enum kbx_status compile_candidate(struct run *r, const char *source, const char *source_name,
					 const struct compile_cache *cache, struct run_images *im)
{
	const struct task *t = r->t;
	char why[1024] = "";
	enum kbx_status st;
	int i;
	enum verdict loaded = V_PASS;

	r->cand.role = "candidate";
	r->ref.role = "reference";
	if (r->o->host)
		st = engine_prepare_host(r, source, source_name, &im->cc, &loaded, why, sizeof(why));
	else if (r->o->triton_dir)
		st = triton_prepare(t, r->o->triton_dir, r->o->triton_launch, r->gpu ? engine_device_arch(r) : 0, r->info.sms,
				    &r->cand.spec, &im->cc, &im->cimg, &im->csz, why, sizeof(why));
	else
		st = engine_prepare_program(r, &r->cand, source, source_name, cache, &im->cc, &im->cimg, &im->csz);
	if (st)
		return st;
	/* The static rules read CUDA source; a Triton candidate is a binary and its IR. */
	if (r->o->triton_dir && im->cc.ok)
		engine_log(r, "%s", im->cc.log);
	else if (!r->o->triton_dir && engine_apply_rules(r, source, r->o->host ? RULES_PYTHON : RULES_CUDA, &im->cc))
		im->cc.ok = 0;
	if (im->cc.ok && im->cimg)
		engine_find_globals(r, r->o->triton_dir ? NULL : source, im->cimg, im->csz, &im->cc);
	if (r->ev->compile)
		r->ev->compile(r->ev->ctx, &im->cc);
	if (im->cc.ok && r->o->save_cubin && write_file(r->o->save_cubin, im->cimg, im->csz))
		engine_log(r, "%s", kbx_last_error());
	if (!im->cc.ok) {
		const char *first_error = "NVRTC rejected the source";

		for (i = im->cc.ndiags - 1; i >= 0; i--)
			if (!strcmp(im->cc.diags[i].severity, "error"))
				first_error = im->cc.diags[i].message;
		engine_finish(r, V_COMPILE_ERROR, "%s", first_error);
		return st;
	}
	if (loaded != V_PASS) {
		/* the host could not load it: no entry function, or what it needs is missing */
		engine_finish(r, loaded, "%s", why);
		return st;
	}
	if (why[0]) {
		/* a Triton launch that disagrees with its kernel (triton.h), found without a GPU */
		engine_finish(r, V_ABI_ERROR, "%s", why);
		return st;
	}
	return KBX_OK;
}

/* Compile the reference; without a device, check both images' launches and end the run; with
 * one, bind both programs to their launch lines. */
static enum kbx_status load_reference(struct run *r, const struct compile_cache *cache, struct run_images *im)
{
	const struct task *t = r->t;
	char why[1024] = "";
	size_t ref_len;
	enum kbx_status st;

	st = read_file(t->reference_path, &im->ref_src, &ref_len);
	if (!st)
		st = engine_prepare_program(r, &r->ref, im->ref_src, "reference.cu", cache, &im->rc, &im->rimg, &im->rsz);
	if (st)
		return st;
	if (!im->rc.ok) {
		st = kbx_error(KBX_EINVAL, "the reference of '%s' does not compile: %s", t->id,
			       im->rc.ndiags ? im->rc.diags[0].message : im->rc.log);
		return st;
	}
	/* The reference evaluated as a candidate (a sweep of the references) is timed once: its
	 * second timing would only measure the same code twice. */
	r->ref_is_cand = !r->o->triton_dir && im->cimg && im->rimg && im->csz == im->rsz &&
			 !memcmp(im->cimg, im->rimg, im->csz);
	if (im->rimg)
		sha256_hex(im->rimg, im->rsz, r->ref_hash);
	if (!r->gpu) {
		if (r->o->host) {
			engine_finish(r, V_NOT_RUN, "loaded; nothing ran: no CUDA device");
			return st;
		}
		if (!r->o->triton_dir) {
			abi_check_image(t, &r->ref.spec, im->rimg, im->rsz, why, sizeof(why));
			if (why[0]) {
				st = kbx_error(KBX_EINVAL, "the reference of '%s': %s", t->id, why);
				return st;
			}
			abi_check_image(t, &r->cand.spec, im->cimg, im->csz, why, sizeof(why));
			if (why[0]) {
				engine_finish(r, V_ABI_ERROR, "%s", why);
				return st;
			}
		}
		engine_finish(r, V_NOT_RUN, "compiled for %s; nothing ran: no CUDA device", im->cc.arch);
		return st;
	}
	st = r->cand.host ? KBX_OK : engine_bind_program(r, &r->cand, im->cimg, why, sizeof(why));
	if (st || why[0]) {
		if (!st)
			engine_finish(r, V_ABI_ERROR, "%s", why);
		else
			engine_finish(r, V_RUNTIME_ERROR, "%s", why);
		st = KBX_OK;
		return st;
	}
	st = engine_bind_program(r, &r->ref, im->rimg, why, sizeof(why));
	if (!st && why[0])
		st = kbx_error(KBX_EINVAL, "the reference of '%s' is broken: %s", t->id, why);
	if (st)
		return st;
	return KBX_OK;
}

/* The correctness cases, then the fuzzing; the run ends here unless every case passed and the
 * perf rows are to be timed. */
static enum kbx_status run_correctness(struct run *r)
{
	const struct task *t = r->t;
	enum kbx_status st = KBX_OK;
	int i;

	/* Correctness cases: the task's own, then the derived ones (core/derive.h). */
	{
		struct task_case *extra = NULL, one;
		int nextra = 0, ended = 0;

		memset(&one, 0, sizeof(one));
		if (r->o->only_case && derive_is_name(r->o->only_case)) {
			st = derive_case(t, r->o->only_case, &one);
			if (st)
				return st;
			extra = &one;
			nextra = 1;
		} else if (!r->o->only_case && !r->o->no_derived) {
			st = derive_auto(t, &extra, &nextra);
			if (st)
				return st;
		}
		for (i = 0; i < t->ncases + nextra && !st && !ended; i++) {
			const struct task_case *tc = i < t->ncases ? &t->cases[i] : &extra[i - t->ncases];

			if (r->o->only_case && strcmp(r->o->only_case, tc->name))
				continue;
			st = engine_run_and_fold(r, tc, i, &ended);
		}
		if (extra == &one)
			derive_case_free(&one);
		else
			derive_cases_free(extra, nextra);
		if (st || ended)
			return st;
	}
	if (r->host_skipped && r->sum.verdict == V_PASS) {
		if (r->host_skipped == r->sum.cases_total) {
			engine_finish(r, V_NOT_RUN, "no case could be checked for a Python candidate (its random draws are "
				      "PyTorch's, which kbx cannot reproduce)");
			return st;
		}
		engine_log(r, "%d of %d cases could not be checked for a Python candidate (random draws kbx cannot "
			   "reproduce); the verdict rests on the other %d", r->host_skipped, r->sum.cases_total,
			   r->sum.cases_total - r->host_skipped);
	}
	if (r->o->only_case && !r->sum.cases_total) {
		engine_finish(r, V_ERROR, "task '%s' has no case '%s'", t->id, r->o->only_case);
		return st;
	}
	if (r->o->fuzz > 0 && r->sum.verdict == V_PASS && !r->o->only_case) {
		int ended = 0;

		st = engine_run_fuzz(r, &ended);
		if (st || ended)
			return st;
	}
	if (r->sum.verdict != V_PASS || r->o->no_perf || r->o->only_case || !t->perf.nrows || r->missing_evidence) {
		char *m = r->sum.message ? xstrdup(r->sum.message) : NULL;

		/* A bug that shows only at perf sizes passes without them: the verdict says so. */
		r->sum.perf_unchecked = r->sum.verdict == V_PASS && r->o->no_perf && t->perf.nrows && !r->o->only_case;
		if (r->sum.verdict == V_PASS)
			engine_finish(r, V_PASS, "%d of %d cases passed%s", r->sum.cases_passed, r->sum.cases_total,
				      r->sum.perf_unchecked ? "; correctness at perf sizes not checked (--no-perf)" : "");
		else
			engine_finish(r, r->sum.verdict, "%s", m);
		free(m);
		return st;
	}
	return KBX_OK;
}

/* The golden table of this device for this task, when every one of its rows matches the task's
 * perf rows; else none (and a warning). */
static void find_golden(struct run *r, struct golden_table **golden_ret, const struct golden_row **grows_ret,
			int *ngolden_ret)
{
	const struct task *t = r->t;
	struct golden_table *golden = NULL;
	const struct golden_row *grows = NULL;
	int ngolden = 0, i;

	if (t->perf.golden_off)
		engine_log(r, "no speedup vs golden for this task: %s", t->perf.golden_off);
	else if (golden_match(r->o->tasks_root, r->info.name, &golden) == KBX_OK) {
		snprintf(r->sum.golden_table, sizeof(r->sum.golden_table), "%s", golden_gpu(golden));
		if (golden_rows(golden, t->name, &grows, &ngolden) != KBX_OK || ngolden != t->perf.nrows) {
			if (ngolden)
				engine_log(r, "golden table '%s' has %d rows for '%s' but the task has %d: no speedup vs golden",
					   golden_gpu(golden), ngolden, t->name, t->perf.nrows);
			grows = NULL;
			ngolden = 0;
		}
	}
	for (i = 0; grows && i < ngolden; i++) {
		struct problem pb;

		if (problem_from_perf(t, i, &pb))
			break;
		if (!pb.input_size || !golden_size_matches(pb.input_size, grows[i].input_size)) {
			engine_log(r, "golden table '%s' row %d times input_size %s, the task's row is %s: no speedup vs golden",
				   golden_gpu(golden), i + 1, grows[i].input_size, pb.input_size ? pb.input_size : "?");
			grows = NULL;
			ngolden = 0;
		}
		problem_free(&pb);
	}
	if (!grows && !t->perf.golden_off)
		r->sum.warnings |= WARN(W_NO_GOLDEN);
	*golden_ret = golden;
	*grows_ret = grows;
	*ngolden_ret = ngolden;
}

/* What every timing needs: the L2 flush buffer and the timing ceilings of this device. */
static enum kbx_status timing_open(struct run *r)
{
	const struct task *t = r->t;
	enum kbx_status st;

	r->flush_bytes = (size_t)r->info.l2_bytes * 2;
	if (r->flush_bytes < FLUSH_MIN_BYTES)
		r->flush_bytes = FLUSH_MIN_BYTES;
	st = gpu_alloc(r->gpu, r->flush_bytes, &r->flush);
	if (st)
		return st;
	gpu_reset_persisting_l2(r->gpu);
	ceiling_init(&r->ceiling, &r->info, r->o->calib, t);
	if (r->ceiling.tflops > 0)
		engine_log(r, "timing ceilings: %.0f GB/s (%s x %.2f), %.1f TFLOP/s (%s %s peak x %.2f)", r->ceiling.gbps,
			   r->ceiling.gbps_from, CEILING_BW_MARGIN, r->ceiling.tflops, r->ceiling.tflops_from,
			   ceiling_unit_name(r->ceiling.unit), CEILING_FLOP_MARGIN);
	else
		engine_log(r, "timing ceilings: %.0f GB/s (%s x %.2f), no FLOP ceiling (%s)", r->ceiling.gbps,
			   r->ceiling.gbps_from, CEILING_BW_MARGIN,
			   t->perf.flop_ceiling_off ? t->perf.flop_ceiling_off : "no peak known for this device");
	return KBX_OK;
}

/* Time every perf row (or the last max_perf_rows) and end the run with the speedups. */
static enum kbx_status run_perf_rows(struct run *r, const struct golden_row *grows, int ngolden)
{
	const struct task *t = r->t;
	enum kbx_status st;
	int i, all_timed = 1;
	double cand = 0, ref = 0, gold = 0;
	int first = 0;

	if (r->o->max_perf_rows > 0 && r->o->max_perf_rows < t->perf.nrows)
		first = t->perf.nrows - r->o->max_perf_rows;
	for (i = first; i < t->perf.nrows; i++) {
		struct perf_result pr;

		st = engine_run_perf_row(r, i, grows, ngolden, &pr);
		if (st) {
			perf_result_free(&pr);
			if (r->sticky) {
				engine_finish(r, V_RUNTIME_ERROR, "perf row %d: %s", i + 1, kbx_last_error());
				st = KBX_OK;
			}
			return st;
		}
		if (r->ev->perf_row)
			r->ev->perf_row(r->ev->ctx, &pr);
		if (!pr.correct) {
			engine_finish(r, V_WRONG, "perf row %d (input_size %s): %s", i + 1, pr.input_size,
				      pr.message ? pr.message : "wrong");
			perf_result_free(&pr);
			return st;
		}
		if (pr.impossible) {
			engine_finish(r, V_IMPOSSIBLE_TIMING, "perf row %d (input_size %s): %s; no speedup is reported", i + 1,
				      pr.input_size, pr.message);
			perf_result_free(&pr);
			return st;
		}
		cand += pr.cand.median;
		ref += pr.ref.median;
		if (pr.golden_ms >= 0)
			gold += pr.golden_ms;
		else
			all_timed = 0;
		perf_result_free(&pr);
	}
	r->sum.cand_ms_sum = cand;
	r->sum.ref_ms_sum = ref;
	if (r->ref_kept_rows) {
		char age[32];

		reftime_age_text(r->ref_kept_oldest_s, age, sizeof(age));
		engine_log(r, "the reference's timings at %d of %d perf row(s) were kept from earlier runs on this GPU "
			   "(the oldest %s old; same reference image, clocks and timing method); "
			   "--retime-reference times them live", r->ref_kept_rows, t->perf.nrows - first, age);
	}
	if (r->refout_kept)
		engine_log(r, "the reference's outputs at %d of %d perf-row check(s) were kept from earlier runs "
			   "(same reference image, GPU model and inputs)%s; --retime-reference runs it live",
			   r->refout_kept, r->refout_keys,
			   r->refout_live ? ", and it ran live again where the candidate differed from them" : "");
	if (cand > 0)
		r->sum.speedup_ref = ref / cand;
	if (grows && first > 0)
		engine_log(r, "speedup vs golden needs every perf row; %d of %d were timed", t->perf.nrows - first,
			   t->perf.nrows);
	if (grows && all_timed && cand > 0 && first == 0) {
		r->sum.golden_ms_sum = gold;
		r->sum.speedup_golden = gold / cand;
	}
	engine_finish(r, V_PASS, "%d of %d cases passed; %d of %d perf rows timed", r->sum.cases_passed,
		      r->sum.cases_total,
		      r->o->max_perf_rows > 0 && r->o->max_perf_rows < t->perf.nrows ? r->o->max_perf_rows : t->perf.nrows,
		      t->perf.nrows);
	return KBX_OK;
}

static enum kbx_status run_all(struct run *r, const char *source, const char *source_name,
			       const struct compile_cache *cache)
{
	struct run_images im;
	enum kbx_status st;
	struct golden_table *golden = NULL;
	const struct golden_row *grows = NULL;
	int ngolden = 0;

	memset(&im, 0, sizeof(im));
	/* each step returns a kbx error, or ends the run with a verdict (r->finished), or leaves the
	 * run to the next */
	st = compile_candidate(r, source, source_name, cache, &im);
	if (!st && !r->finished)
		st = load_reference(r, cache, &im);
	if (!st && !r->finished && r->o->export_perf_row && r->o->export_dir)
		st = engine_export_perf_row(r, r->o->export_perf_row - 1);
	else if (!st && !r->finished)
		st = run_correctness(r);
	if (!st && !r->finished) {
		find_golden(r, &golden, &grows, &ngolden);
		st = timing_open(r);
	}
	if (!st && !r->finished)
		st = run_perf_rows(r, grows, ngolden);
	if (r->flush) {
		gpu_free(r->gpu, r->flush);
		r->flush = 0;
	}
	golden_free(golden);
	compile_result_free(&im.cc);
	compile_result_free(&im.rc);
	free(im.cimg);
	free(im.rimg);
	free(im.ref_src);
	return st;
}

enum kbx_status engine_run(const struct task *t, const char *source, const char *source_name,
			   const struct engine_options *o, const struct compile_cache *cache,
			   const struct run_events *ev, int *sticky)
{
	struct run r;
	enum kbx_status st, gst;
	double device_s;

	memset(&r, 0, sizeof(r));
	r.t = t;
	r.o = o;
	r.ev = ev;
	r.t0 = now_seconds();
	r.cache = cache;
	/* A task whose reference is slow at its largest perf row says so ([task] launch_limit); a
	 * smaller limit on the command line is raised to it, or that row could never be timed. */
	r.launch_limit_s = o->launch_limit_s > t->launch_limit_s ? o->launch_limit_s : t->launch_limit_s;
	device_s = now_seconds();
	gst = gpu_open(o->device, &r.gpu);
	device_s = now_seconds() - device_s;
	if (gst == KBX_OK) {
		r.info = *gpu_get_info(r.gpu);
		/* Clock readings go with the timings when NVML is there; without it, none (a
		 * timing is still a timing, history just cannot tell throttling from a change). */
		if (!o->no_perf && !o->only_case && nvml_open(r.info.pci_bus_id, &r.nvml))
			r.nvml = NULL;
	} else {
		engine_log(&r, "%s", kbx_last_error());
	}
	summary_init(&r);
	r.sum.split.device_s = device_s;  /* a part of verify, as launches and copies are */
	st = run_all(&r, source, source_name, cache);
	if (st && ev->done) {
		char *m = xstrdup(kbx_last_error());

		engine_finish(&r, V_ERROR, "%s", m);
		free(m);
	}
	engine_program_free(&r, &r.cand);
	engine_program_free(&r, &r.ref);
	engine_program_free(&r, &r.stages);
	free(r.missing_evidence);
	cubin_globals_free(r.globals, r.nglobals);
	free(r.global_lines);
	run_summary_free(&r.sum);
	if (sticky)
		*sticky = r.sticky;
	nvml_close(r.nvml);
	devgen_close(r.devgen);
	gpucompare_close(r.gcmp);
	gpuprop_close(r.gprop);
	if (r.gpu)
		gpu_close(r.gpu);
	return st;
}
