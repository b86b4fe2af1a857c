/*
 * The run engine: the correctness cases, fuzzing and shrinking, and exporting a case
 * (engine_int.h).
 */
#include "engine_int.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "derive.h"
#include "npy.h"

/* ----------------------------------------------------------------- export ---- */

/* DIR/<case>/: <arg>.npy (initial value of in/inout buffers), ref_<arg>.npy and cand_<arg>.npy
 * (out/inout after the run), manifest.json (bindings, args with the rtol/atol each output is held
 * to, files; for a perf row the bound's description). */
enum kbx_status engine_export_case(struct run *r, const struct case_ctx *c, const char *name, void **cand_out,
				   const char *bound)
{
	char *dir = xasprintf("%s/%s", r->o->export_dir, name), *path, *text;
	json_t *m = json_object(), *b = json_object(), *args = json_array();
	enum kbx_status st = KBX_OK;
	int i, d;

	if (mkdir(r->o->export_dir, 0755) && errno != EEXIST)
		st = kbx_error(KBX_EIO, "cannot create '%s': %s", r->o->export_dir, strerror(errno));
	if (!st && mkdir(dir, 0755) && errno != EEXIST)
		st = kbx_error(KBX_EIO, "cannot create '%s': %s", dir, strerror(errno));
	for (i = 0; i < c->pb.env.n; i++) {
		struct expr_value v = c->pb.env.values[i];

		json_object_set_new(b, c->pb.env.names[i], v.is_float ? json_real(v.f) : json_integer(v.i));
	}
	for (i = 0; !st && i < c->pb.nbufs; i++) {
		const struct problem_buf *pb = &c->pb.bufs[i];
		json_t *a = json_object(), *sh = json_array(), *files = json_object();
		struct {
			const char *key, *prefix;
			void *data;
		} f[3] = { { "input", "", c->in ? c->in[i] : NULL },
			   { "reference", "ref_", c->ref_out ? c->ref_out[i] : NULL },
			   { "candidate", "cand_", cand_out ? cand_out[i] : NULL } };
		int k;

		for (d = 0; d < pb->ndim; d++)
			json_array_append_new(sh, json_integer(pb->shape[d]));
		json_object_set_new(a, "name", json_string(pb->arg->name));
		json_object_set_new(a, "dir", json_string(arg_dir_name(pb->arg->dir)));
		json_object_set_new(a, "dtype", json_string(dtype_name(pb->arg->dtype)));
		json_object_set_new(a, "npy_dtype", json_string(npy_descr(pb->arg->dtype)));
		json_object_set_new(a, "shape", sh);
		if (pb->arg->dir != ARG_IN) {
			double rtol, atol;

			compare_tolerance(&c->tol, pb->arg->dtype, &rtol, &atol);
			json_object_set_new(a, "rtol", json_real(rtol));
			json_object_set_new(a, "atol", json_real(atol));
		}
		for (k = 0; k < 3 && !st; k++) {
			char *file;

			if (!f[k].data || (k == 0 && pb->arg->dir == ARG_OUT) || (k > 0 && pb->arg->dir == ARG_IN))
				continue;
			file = xasprintf("%s%s.npy", f[k].prefix, pb->arg->name);
			path = xasprintf("%s/%s", dir, file);
			st = npy_write(path, pb->arg->dtype, f[k].data, pb->shape, pb->ndim);
			json_object_set_new(files, f[k].key, json_string(file));
			free(path);
			free(file);
		}
		json_object_set_new(a, "files", files);
		json_array_append_new(args, a);
	}
	json_object_set_new(m, "task", json_string(r->t->id));
	json_object_set_new(m, "case", json_string(name));
	json_object_set_new(m, "seed", json_integer((json_int_t)r->o->seed));
	json_object_set_new(m, "bindings", b);
	json_object_set_new(m, "args", args);
	if (bound)
		json_object_set_new(m, "bound", json_string(bound));
	text = json_dumps(m, JSON_INDENT(2));
	json_decref(m);
	if (!st) {
		path = xasprintf("%s/manifest.json", dir);
		st = write_file(path, text, strlen(text));
		free(path);
	}
	free(text);
	free(dir);
	return st;
}

/* ------------------------------------------------------------------ cases ---- */

static enum kbx_status run_case(struct run *r, const struct task_case *tc, int index, struct case_result *cr)
{
	const struct task *t = r->t;
	const char *name = tc->name;
	int distribution = t->verifier && !strcmp(t->verifier, "distribution");
	struct case_ctx c = { 0 };
	void **first = NULL;
	char label[128];
	enum kbx_status st;
	double t0 = now_seconds();

	memset(cr, 0, sizeof(*cr));
	snprintf(cr->name, sizeof(cr->name), "%s", name);
	cr->index = index;
	snprintf(label, sizeof(label), "case %s", name);
	c.tol = t->tol;
	if (tc->atol_scale > 0)
		c.tol.atol_scale = tc->atol_scale;
	st = problem_from_case_spec(t, tc, &c.pb);
	if (!st && distribution) {
		st = engine_make_inputs(r, &c.pb, name, 0, &c.in);
		if (!st)
			st = engine_set_alloc(r, &c.cs, &c.pb, &r->cand);
		if (!st)
			st = engine_verify_distribution(r, &c, label, cr);
	} else if (!st) {
		st = engine_case_setup(r, &c, name, label, 0);
		if (!st)
			st = engine_judge_candidate(r, &c, label, cr, &first);
		if (!st && r->o->export_dir)
			st = engine_export_case(r, &c, name, first, NULL);
		if (!st && cr->verdict == V_PASS)
			st = engine_check_determinism(r, &c, first, label, cr);
	}
	engine_host_free(first, c.pb.nbufs);
	engine_case_ctx_free(r, &c);
	cr->seconds = now_seconds() - t0;
	return st;
}

/* End the run on a sticky CUDA error (`fault`, naming its case). An earlier failing case keeps
 * the verdict and leads the message: the fault poisoned the context after it, and a wrong output
 * found before it is the first thing wrong with the candidate. */
static void finish_fault(struct run *r, const char *fault)
{
	if (r->sum.verdict != V_PASS && r->sum.message && strcmp(r->sum.message, fault))
		engine_finish(r, r->sum.verdict, "%s; then %s (the CUDA context is lost: no later case ran)", r->sum.message,
			      fault);
	else
		engine_finish(r, V_RUNTIME_ERROR, "%s", fault);
}

/* Run one case, report it and fold it into the summary. *ended is set when the run finished
 * (a sticky CUDA error). */
enum kbx_status engine_run_and_fold(struct run *r, const struct task_case *tc, int index, int *ended)
{
	struct case_result cr;
	enum kbx_status st;

	st = run_case(r, tc, index, &cr);
	if (st) {
		case_result_free(&cr);
		if (r->sticky || gpu_is_sticky(r->gpu)) {
			char *fault = xasprintf("case %s: %s", tc->name, kbx_last_error());

			r->sticky = 1;
			finish_fault(r, fault);
			free(fault);
			*ended = 1;
			st = KBX_OK;
		}
		return st;
	}
	r->sum.cases_total++;
	if (cr.verdict == V_PASS)
		r->sum.cases_passed++;
	if (cr.verdict == V_NOT_RUN) {
		/* a case this candidate cannot be checked on (host_launch: HOST_SKIP) */
		r->host_skipped++;
		if (r->ev->case_done)
			r->ev->case_done(r->ev->ctx, &cr);
		case_result_free(&cr);
		return KBX_OK;
	}
	if (cr.nondeterministic)
		r->sum.warnings |= WARN(W_NONDETERMINISTIC);
	if (r->ev->case_done)
		r->ev->case_done(r->ev->ctx, &cr);
	if (r->sticky) {
		char *fault = xasprintf("case %s: %s", cr.name, cr.message ? cr.message : "sticky CUDA error");

		finish_fault(r, fault);
		free(fault);
		case_result_free(&cr);
		*ended = 1;
		return KBX_OK;
	}
	if (cr.verdict != V_PASS && r->sum.verdict == V_PASS) {
		r->sum.verdict = cr.verdict;
		free(r->sum.message);
		r->sum.message = xasprintf("case %s: %s", cr.name, cr.message ? cr.message : verdict_name(cr.verdict));
	}
	case_result_free(&cr);
	return KBX_OK;
}

/* Whether a derived case passes, without reporting it (shrinking tries many). -1: the run
 * ended (sticky error). */
static int case_passes(struct run *r, const char *name)
{
	struct task_case tc;
	struct case_result cr;
	int pass;

	if (derive_case(r->t, name, &tc)) {
		kbx_clear_error();
		return 1;
	}
	if (run_case(r, &tc, -1, &cr)) {
		kbx_clear_error();
		pass = r->sticky || gpu_is_sticky(r->gpu) ? -1 : 1;
	} else {
		pass = cr.verdict == V_PASS;
	}
	case_result_free(&cr);
	derive_case_free(&tc);
	return pass;
}

/* Greedy shrinking: take the first smaller recipe that still fails, until none does. */
#define SHRINK_MAX_RUNS 48

static char *shrink(struct run *r, const char *failing)
{
	char *cur = xstrdup(failing);
	int runs = 0, progress = 1;

	while (progress && runs < SHRINK_MAX_RUNS && !r->sticky) {
		char **next;
		int n, k;

		progress = 0;
		if (derive_shrink(r->t, cur, &next, &n)) {
			kbx_clear_error();
			break;
		}
		for (k = 0; k < n && runs < SHRINK_MAX_RUNS; k++) {
			int pass = case_passes(r, next[k]);

			runs++;
			if (pass < 0)
				break;
			if (!pass) {
				engine_log(r, "fuzz: %s fails too", next[k]);
				free(cur);
				cur = xstrdup(next[k]);
				progress = 1;
				break;
			}
		}
		derive_names_free(next, n);
	}
	return cur;
}

/* --fuzz N: N drawn cases; the first that fails is shrunk and reported with its recipe. */
enum kbx_status engine_run_fuzz(struct run *r, int *ended)
{
	int i;

	for (i = 0; i < r->o->fuzz; i++) {
		struct task_case tc;
		struct case_result cr;
		enum kbx_status st;

		st = derive_fuzz(r->t, r->o->seed, i, &tc);
		if (st) {
			engine_log(r, "fuzz: %s", kbx_last_error());
			kbx_clear_error();
			return KBX_OK;
		}
		st = run_case(r, &tc, r->t->ncases + i, &cr);
		if (st) {
			case_result_free(&cr);
			derive_case_free(&tc);
			if (r->sticky || gpu_is_sticky(r->gpu)) {
				r->sticky = 1;
				engine_finish(r, V_RUNTIME_ERROR, "fuzz case %s: %s", tc.name, kbx_last_error());
				*ended = 1;
				st = KBX_OK;
			}
			return st;
		}
		if (cr.verdict != V_PASS) {
			char *small = r->sticky ? xstrdup(tc.name) : shrink(r, tc.name);
			struct task_case sc;

			case_result_free(&cr);
			derive_case_free(&tc);
			if (r->sticky) {
				engine_finish(r, V_RUNTIME_ERROR, "fuzz case %s: sticky CUDA error", small);
				*ended = 1;
				free(small);
				return KBX_OK;
			}
			/* Report the smallest failing case as the run's failing case. */
			st = derive_case(r->t, small, &sc);
			if (!st)
				st = engine_run_and_fold(r, &sc, r->t->ncases + i, ended);
			if (!st)
				derive_case_free(&sc);
			if (!st && !*ended) {
				char *m = r->sum.message;

				r->sum.message = xasprintf("%s (fuzz draw %d of %d, shrunk; re-run: --case '%s'%s)", m ? m : "wrong",
							   i + 1, r->o->fuzz, small, r->o->seed ? " with the same --seed" : "");
				free(m);
			}
			free(small);
			return st;
		}
		r->sum.cases_total++;
		r->sum.cases_passed++;
		case_result_free(&cr);
		derive_case_free(&tc);
	}
	engine_log(r, "fuzz: %d drawn cases passed", r->o->fuzz);
	return KBX_OK;
}
