/*
 * The run engine: judging a candidate on one problem, the stage diff, the determinism check and
 * the distribution verifier (engine_int.h).
 */
#include "engine_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpucompare.h"
#include "gpuprop.h"
#include "stagediag.h"
#include "stats.h"
#include "verify.h"

/* ----------------------------------------------------------- verification ---- */

/* Elements whose every byte still holds the poison pattern while the reference's does not. */
struct unwritten_job {
	const unsigned char *cand, *ref;
	size_t es;
	unsigned char poison;
	size_t count;           /* added to atomically */
};

static void unwritten_range(void *arg, size_t lo, size_t hi)
{
	struct unwritten_job *j = arg;
	size_t i, k, n = 0, es = j->es;

	for (i = lo; i < hi; i++) {
		int poisoned = 1, same = 1;

		for (k = 0; k < es; k++) {
			poisoned &= j->cand[i * es + k] == j->poison;
			same &= j->ref[i * es + k] == j->poison;
		}
		n += poisoned && !same;
	}
	__atomic_add_fetch(&j->count, n, __ATOMIC_RELAXED);
}

/* Output elements still holding the poison where the reference wrote something else. */
static size_t count_unwritten(const struct problem_buf *b, const void *cand, const void *ref)
{
	struct unwritten_job j = { cand, ref, dtype_size(b->arg->dtype), engine_poison_byte(b->arg->dtype), 0 };

	if (b->arg->dir != ARG_OUT)
		return 0;
	parallel_for(b->numel, 1 << 20, unwritten_range, &j);
	return j.count;
}

static void describe_elem(char *buf, size_t len, const struct cmp_elem *e)
{
	size_t off = 0;
	int d;

	off += (size_t)snprintf(buf + off, len - off, "[");
	for (d = 0; d < e->ndim && off < len; d++)
		off += (size_t)snprintf(buf + off, len - off, "%s%lld", d ? "," : "", e->coord[d]);
	if (off < len)
		snprintf(buf + off, len - off, "]");
}

/* Stage elements neither program wrote: the candidate's still holding kbx's poison, the other
 * program's still the zero its scratch starts from (engine_set_prepare). A scratch buffer is
 * often used in part, e.g. an exchange area sized for the most blocks a grid can have: without
 * this, those elements (NaN against 0) made it the first wrong stage of any failing candidate
 * that shares it, ahead of the stage that really differs. They take the candidate's bytes in
 * the other program's copy, so they compare equal. (A candidate that leaves unwritten a stage
 * element the reference writes as an exact zero is not seen here; its outputs judge it.) */
static void unwritten_stage_as_equal(enum dtype dt, const unsigned char *cand, unsigned char *other, size_t bytes)
{
	const size_t es = dtype_size(dt);
	const unsigned char poison = engine_poison_byte(dt);
	size_t i, k;

	for (i = 0; es && i + es <= bytes; i += es) {
		int untouched = 1;

		for (k = 0; k < es && untouched; k++)
			untouched = cand[i + k] == poison && other[i + k] == 0;
		if (untouched)
			memcpy(other + i, cand + i, es);
	}
}

/* A packed stage (`packs s4`: the reference's declaration says how its words hold the integers,
 * and a candidate sharing the buffer's name, dtype and size shares its layout) is compared as the
 * integers it holds: the words' values would make a one-step rounding difference in one nibble
 * look like a difference of millions, and the stage's diagnosis and worst elements nonsense. */
static void unpack_stage(const struct scratch_decl *rd, size_t bytes, void **a, void **b, enum dtype *dt,
			 long long *shape)
{
	size_t n = bytes * 8 / (size_t)rd->pack_bits;
	int32_t *ua = xmalloc(n * sizeof(*ua)), *ub = xmalloc(n * sizeof(*ub));

	stage_unpack(*a, bytes, rd->pack_bits, rd->pack_signed, ua);
	stage_unpack(*b, bytes, rd->pack_bits, rd->pack_signed, ub);
	free(*a);
	free(*b);
	*a = ua;
	*b = ub;
	*dt = DT_I32;
	shape[0] = (long long)n;
}

/* Compare the scratch buffers the candidate shares (by name, dtype and size) with another
 * program's (the reference's or the stage program's), in that program's order: the first that
 * differs is the first wrong stage. */
static enum kbx_status diff_stages(struct run *r, const struct program *p, const struct dev_set *ps,
				   const struct dev_set *cs, const struct tolerance *tol, struct case_result *cr)
{
	enum kbx_status st = KBX_OK;
	char *out = cr->first_wrong_stage;
	int i, j;

	*out = '\0';
	*cr->stage_diagnosis = '\0';
	free(cr->stage);
	cr->stage = NULL;
	for (i = 0; i < p->spec.nscratch && !st && !*out; i++) {
		const struct scratch_decl *rd = &p->spec.scratch[i];

		for (j = 0; j < r->cand.spec.nscratch; j++) {
			const struct scratch_decl *cd = &r->cand.spec.scratch[j];
			struct cmp_result cmp;
			long long shape[1];
			enum dtype dt;
			void *a, *b;

			if (strcmp(rd->name, cd->name) || rd->dtype != cd->dtype ||
			    ps->scratch_bytes[i] != cs->scratch_bytes[j] || !ps->scratch_bytes[i])
				continue;
			a = xmalloc(cs->scratch_bytes[j]);
			b = xmalloc(ps->scratch_bytes[i]);
			st = gpu_download(r->gpu, a, cs->scratch[j].ptr, cs->scratch_bytes[j]);
			if (!st)
				st = gpu_download(r->gpu, b, ps->scratch[i].ptr, ps->scratch_bytes[i]);
			if (!st)
				unwritten_stage_as_equal(rd->dtype, a, b, ps->scratch_bytes[i]);
			shape[0] = (long long)(ps->scratch_bytes[i] / dtype_size(rd->dtype));
			dt = rd->dtype;
			if (!st && rd->pack_bits)
				unpack_stage(rd, ps->scratch_bytes[i], &a, &b, &dt, shape);
			if (!st) {
				compare_buffers(dt, a, b, shape, 1, tol, &cmp);
				if (!cmp.pass) {
					snprintf(out, sizeof(cr->first_wrong_stage), "%s", rd->name);
					stage_diagnose(dt, a, b, (size_t)shape[0], cr->stage_diagnosis,
						       sizeof(cr->stage_diagnosis));
					/* its worst elements, tiles and histogram, for the diff and the JSON */
					cr->stage = xcalloc(1, sizeof(*cr->stage));
					snprintf(cr->stage->arg, sizeof(cr->stage->arg), "%s", rd->name);
					cr->stage->cmp = cmp;
				}
			}
			free(a);
			free(b);
			break;
		}
	}
	return st;
}

/* The task's stage program ([task] stages): a staged implementation, one of its examples, kept
 * for the stage diff when the reference is fused and keeps few stage buffers. Compiled (through
 * the compile cache) and loaded the first time a failing candidate needs it; NULL when the task
 * has none or it cannot be loaded (said in a log line: the verdict never depends on it). */
static struct program *stage_program(struct run *r)
{
	struct compile_result cr;
	char *src = NULL, why[1024] = "";
	void *image = NULL;
	size_t len = 0, size = 0;
	enum kbx_status st;

	if (r->stages_state || !r->t->stages_path)
		return r->stages_state > 0 ? &r->stages : NULL;
	r->stages_state = -1;
	r->stages.role = "stage program";
	memset(&cr, 0, sizeof(cr));
	st = read_file(r->t->stages_path, &src, &len);
	if (!st)
		st = engine_prepare_program(r, &r->stages, src, r->t->stages_path, r->cache, &cr, &image, &size);
	if (!st && !cr.ok)
		snprintf(why, sizeof(why), "does not compile: %s", cr.ndiags ? cr.diags[0].message : "see its log");
	if (!st && !*why)
		st = engine_bind_program(r, &r->stages, image, why, sizeof(why));
	if (st)
		snprintf(why, sizeof(why), "%s", kbx_last_error());
	if (*why)
		engine_log(r, "no stage diff: the stage program %s %s", r->t->stages_path, why);
	else
		r->stages_state = 1;
	compile_result_free(&cr);
	free(image);
	free(src);
	return r->stages_state > 0 ? &r->stages : NULL;
}

/* The first stage where the candidate goes wrong, by its scratch buffers: against the reference's
 * it shares, then, when none of those differs, against the task's stage program, run here on the
 * same inputs (a fused reference may keep a stage or two, e.g. its product, and the stage program
 * the rest). "" when no stage differs or none can be compared. */
static enum kbx_status first_wrong_stage(struct run *r, const struct case_ctx *c, struct case_result *cr)
{
	const struct program *p;
	struct dev_set ss;
	enum kbx_status st;
	char why[1024];

	st = diff_stages(r, &r->ref, &c->rs, &c->cs, &c->tol, cr);
	if (st || *cr->first_wrong_stage || !r->cand.spec.nscratch || !(p = stage_program(r)))
		return st;
	*why = '\0';
	st = engine_set_alloc(r, &ss, &c->pb, p);
	if (!st)
		st = engine_set_prepare(r, &ss, c, p, 0);
	if (!st && !(st = engine_run_launches(r, p, &ss, &c->pb, 1, "stage diff", why, sizeof(why))))
		st = diff_stages(r, p, &ss, &c->cs, &c->tol, cr);
	engine_set_free(r, &ss, r->t);
	/* once a run: stages named this way were compared with the stage program, not the reference */
	if (!st && *cr->first_wrong_stage && !r->stages_said) {
		r->stages_said = 1;
		engine_log(r, "first wrong stages are found against the task's stage program %s (its fused "
			   "reference keeps fewer stage buffers)", r->t->stages_path);
	}
	/* A stage program that cannot run leaves the stage unnamed (the verdict stands without it);
	 * a sticky GPU error is the run's own and goes up. */
	if (st && !r->sticky) {
		engine_log(r, "no stage diff: %s", *why ? why : kbx_last_error());
		*cr->first_wrong_stage = *cr->stage_diagnosis = '\0';
		free(cr->stage);
		cr->stage = NULL;
		st = KBX_OK;
	}
	return st;
}

void engine_case_ctx_free(struct run *r, struct case_ctx *c)
{
	engine_host_free(c->in, c->pb.nbufs);
	engine_host_free(c->ref_out, c->pb.nbufs);
	if (r->gpu) {
		engine_set_free(r, &c->rs, r->t);
		engine_set_free(r, &c->cs, r->t);
	}
	problem_free(&c->pb);
	memset(c, 0, sizeof(*c));
}

/* Inputs, the reference's outputs, and allocated candidate buffers for one problem. */
enum kbx_status engine_case_setup(struct run *r, struct case_ctx *c, const char *key_name, const char *label,
				  int perf)
{
	enum kbx_status st;

	st = perf ? engine_perf_inputs(r, c, key_name) : engine_make_inputs(r, &c->pb, key_name, 0, &c->in);
	if (!st)
		st = engine_set_alloc(r, &c->rs, &c->pb, &r->ref);
	if (!st)
		st = engine_set_prepare(r, &c->rs, c, &r->ref, 0);
	if (!st)
		st = engine_reference_outputs(r, c, perf ? key_name : NULL, label);
	if (!st)
		st = engine_set_alloc(r, &c->cs, &c->pb, &r->cand);
	return st;
}

/* ------------------------------------------------------ comparing on the GPU ---- */

/* The comparison kernel goes; perf rows compare on the host from now on. */
static void gpu_compare_drop(struct run *r, const char *why)
{
	engine_log(r, "perf rows compare their outputs on the host: the GPU comparison failed: %s", why);
	kbx_clear_error();
	gpucompare_close(r->gcmp);
	r->gcmp = NULL;
	r->gcmp_state = -1;
}

/* Whether the perf row about to be checked compares on the GPU (gpucompare_route): the kernel is
 * compiled (through the compile cache) and loaded the first time; when that fails, one log line
 * and the host path, never a failed run. */
int engine_gpu_compare(struct run *r)
{
	enum gpucompare_route how = gpucompare_route(r->t, r->o->compare_gpu, 1, r->gcmp_state < 0);

	if (how != GPUCOMPARE_ON_GPU) {
		if (how != GPUCOMPARE_HOST_OPTION && how != GPUCOMPARE_HOST_NO_KERNEL && !r->gcmp_said)
			engine_log(r, "--compare %s: %s compare their outputs on the host: %s",
				   compare_mode_name(r->o->compare_gpu),
				   r->o->compare_gpu == COMPARE_BOTH ? "cases and perf rows" : "perf rows",
				   gpucompare_route_why(how));
		r->gcmp_said = 1;
		return 0;
	}
	return engine_gpu_compare_load(r);
}

/* The comparison kernel, loaded for the comparisons or the digests of inputs (refout.h): 1 when
 * it is. */
int engine_gpu_compare_load(struct run *r)
{
	void *image = NULL;
	enum kbx_status st;

	if (r->gcmp)
		return 1;
	if (!r->gpu || r->gcmp_state < 0)
		return 0;
	st = engine_compile_builtin(r, gpucompare_source(), "kbx_gpucompare.cu", &image);
	if (!st)
		st = gpucompare_open(r->gpu, image, &r->gcmp);
	free(image);
	if (st) {
		gpu_compare_drop(r, kbx_last_error());
		return 0;
	}
	r->gcmp_state = 1;
	return 1;
}

/* An output judged as a whole (a property, a distribution), not element by element: its n
 * elements, the verdict, and no metrics. */
static void judged_whole(struct cmp_result *m, size_t n, int pass)
{
	m->n = n;
	m->pass = pass;
	m->cosine = m->l1_relative = m->rmse = -1;
}

/* The verifiers' kernels (gpuprop.h: qr's property figures, the uniform draws' statistics),
 * compiled through the compile cache and loaded the first time: 1 when they are; when that
 * fails, one log line and the host's checks from then on. */
static int gpu_prop_load(struct run *r)
{
	void *image = NULL;
	enum kbx_status st;

	if (r->gprop)
		return 1;
	if (!r->gpu || r->gprop_state < 0)
		return 0;
	st = engine_compile_builtin(r, gpuprop_source(), "kbx_gpuprop.cu", &image);
	if (!st)
		st = gpuprop_open(r->gpu, image, &r->gprop);
	free(image);
	if (st) {
		engine_log(r, "perf rows run the property and distribution checks on the host: their GPU kernels "
			   "failed: %s", kbx_last_error());
		kbx_clear_error();
		r->gprop_state = -1;
		return 0;
	}
	r->gprop_state = 1;
	return 1;
}

/* The qr property judged on the device (gpuprop.h): *done when every matrix's figures are within
 * the tolerance: cr has its outputs, nothing came to the host. Anything else (a figure outside,
 * NaN, shapes the kernels do not take, the kernels unusable; a sticky GPU error aside) leaves
 * the problem to the host's checks, whose verdict and message stand. */
static enum kbx_status judge_property_gpu(struct run *r, struct case_ctx *c, struct case_result *cr, int *done)
{
	const struct task *t = r->t;
	const char *tol_expr = binding_get(t->verifier_params, t->nverifier_params, "tol");
	int ia = verify_role_buf(t, &c->pb, "input"), iq = verify_role_buf(t, &c->pb, "q"), ir = verify_role_buf(t, &c->pb, "r");
	const struct problem_buf *a, *q, *rb;
	struct gpuprop_qr_figures *fig;
	long long m, n, k, batch, b;
	double tol, t0 = now_seconds();
	enum kbx_status st;
	int col, pass = 1, i, nout = 0;

	*done = 0;
	if (ia < 0 || iq < 0 || ir < 0 || !tol_expr || expr_eval_float(tol_expr, &c->pb.env, &tol, &col)) {
		kbx_clear_error();
		return KBX_OK;
	}
	a = &c->pb.bufs[ia], q = &c->pb.bufs[iq], rb = &c->pb.bufs[ir];
	if (a->ndim < 2 || q->ndim < 2 || rb->ndim < 2 || a->arg->dtype != DT_F32 || q->arg->dtype != DT_F32 ||
	    rb->arg->dtype != DT_F32 || !gpu_prop_load(r))
		return KBX_OK;
	m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1], k = q->shape[q->ndim - 1];
	if (m < 1 || n < 1 || k < 1 || rb->shape[rb->ndim - 1] != n || (long long)q->numel != (long long)a->numel / n * k)
		return KBX_OK;
	batch = (long long)a->numel / (m * n);
	fig = xcalloc((size_t)batch + 1, sizeof(*fig));
	st = gpuprop_qr(r->gprop, c->rs.args[a->arg - t->args].ptr, c->cs.args[q->arg - t->args].ptr,
			c->cs.args[rb->arg - t->args].ptr, c->rs.args[rb->arg - t->args].ptr, batch, m, n, k,
			rb->shape[rb->ndim - 2], fig);
	for (b = 0; !st && b < batch; b++)
		pass &= fig[b].recon <= tol && fig[b].orth <= tol && fig[b].lower <= tol && fig[b].diff <= tol;
	free(fig);
	r->gcmp_s += now_seconds() - t0;
	if (st) {
		if (gpu_is_sticky(r->gpu)) {
			r->sticky = 1;
			return st;
		}
		kbx_clear_error();   /* shapes it does not take: the host checks them */
		return KBX_OK;
	}
	if (!pass) {
		r->gcmp_host++;
		return KBX_OK;
	}
	for (i = 0; i < c->pb.nbufs; i++)
		nout += c->pb.bufs[i].arg->dir != ARG_IN;
	cr->outputs = xcalloc((size_t)nout + 1, sizeof(*cr->outputs));
	for (i = 0; i < c->pb.nbufs; i++) {
		const struct problem_buf *o = &c->pb.bufs[i];
		struct output_result *out;

		if (o->arg->dir == ARG_IN)
			continue;
		out = &cr->outputs[cr->noutputs++];
		snprintf(out->arg, sizeof(out->arg), "%s", o->arg->name);
		judged_whole(&out->cmp, o->numel, 1);
		r->gcmp_saved += 2.0 * (double)o->bytes;
	}
	*done = 1;
	return KBX_OK;
}

/* verify_hooks.independence on the device: dense_min_pivot of matrix `batch` of the candidate's
 * (which 0) or the reference's (1) eigenvectors where they are, in c->cs or c->rs. */
struct gpu_hook_ctx {
	struct run *r;
	struct case_ctx *c;
};

static int gpu_independence(void *ctx, int which, long long batch, long long n, double *out)
{
	struct gpu_hook_ctx *h = ctx;
	const struct task *t = h->r->t;
	int iv = verify_role_buf(t, &h->c->pb, "vectors");
	const struct dev_set *set = which ? &h->c->rs : &h->c->cs;
	gpu_ptr v;

	if (iv < 0 || h->c->pb.bufs[iv].arg->dtype != DT_C64 || !gpu_prop_load(h->r))
		return -1;
	v = set->args[h->c->pb.bufs[iv].arg - t->args].ptr + (gpu_ptr)(batch * n * n) * 2 * sizeof(float);
	if (gpuprop_min_pivot(h->r->gprop, v, n, out)) {
		if (gpu_is_sticky(h->r->gpu))
			h->r->sticky = 1;
		kbx_clear_error();
		return -1;   /* the host computes it */
	}
	return 0;
}

/* Every output compared with the reference's on the device. *done when they all pass: cr has
 * its outputs and nothing came to the host. Otherwise (an output fails; the kernel fails, not
 * stickily) the caller judges on the host as it always did, for the same verdict and message. */
static enum kbx_status compare_outputs_gpu(struct run *r, struct case_ctx *c, struct case_result *cr, int *done)
{
	const struct task *t = r->t;
	struct output_result *outs;
	enum kbx_status st = KBX_OK;
	double t0 = now_seconds(), bytes = 0;
	int i, n = 0, nout = 0, failed = 0;

	*done = 0;
	for (i = 0; i < c->pb.nbufs; i++)
		nout += c->pb.bufs[i].arg->dir != ARG_IN;
	outs = xcalloc((size_t)nout + 1, sizeof(*outs));
	for (i = 0; i < c->pb.nbufs && !st && !failed; i++) {
		const struct problem_buf *b = &c->pb.bufs[i];
		struct output_result *o;
		int ai = (int)(b->arg - t->args);

		if (b->arg->dir == ARG_IN)
			continue;
		o = &outs[n++];
		snprintf(o->arg, sizeof(o->arg), "%s", b->arg->name);
		st = gpucompare_buffers(r->gcmp, b->arg->dtype, c->cs.args[ai].ptr, c->rs.args[ai].ptr, b->shape, b->ndim,
					&c->tol, &o->cmp);
		bytes += 2.0 * (double)b->bytes;
		failed = !st && !o->cmp.pass;
	}
	r->gcmp_s += now_seconds() - t0;
	if (st || failed) {
		free(outs);
		if (st && gpu_is_sticky(r->gpu)) {
			r->sticky = 1;
			return st;
		}
		if (st)
			gpu_compare_drop(r, kbx_last_error());
		else
			r->gcmp_host++;
		c->gpu_cmp = 0;
		return KBX_OK;
	}
	cr->outputs = outs;
	cr->noutputs = n;
	r->gcmp_saved += bytes;
	*done = 1;
	return KBX_OK;
}

/* --compare both: the host has judged the problem; the GPU compares the same device buffers, and
 * its report must be the host's, output by output (compare_results_differ, within the two ulps
 * gpucompare.h allows a tie). A difference, or a kernel that cannot compare them, is kbx's error,
 * never the candidate's verdict. */
static enum kbx_status cross_check_gpu(struct run *r, struct case_ctx *c, const struct case_result *cr,
				       const char *label)
{
	enum kbx_status st = KBX_OK;
	double t0 = now_seconds();
	int i, k = 0;

	if (!engine_gpu_compare(r))
		return r->gcmp_state < 0 ? kbx_error(KBX_EINVAL, "%s: --compare both: the GPU comparison kernel cannot be "
						     "used", label) : KBX_OK;   /* else the route keeps this task on the host */
	for (i = 0; i < c->pb.nbufs && !st; i++) {
		const struct problem_buf *b = &c->pb.bufs[i];
		int ai = (int)(b->arg - r->t->args);
		struct cmp_result g;
		char why[512];

		if (b->arg->dir == ARG_IN)
			continue;
		if (k >= cr->noutputs)
			return kbx_error(KBX_EINVAL, "%s: --compare both: the host compared %d output(s), fewer than the "
					 "task has", label, cr->noutputs);
		st = gpucompare_buffers(r->gcmp, b->arg->dtype, c->cs.args[ai].ptr, c->rs.args[ai].ptr, b->shape, b->ndim,
					&c->tol, &g);
		if (st && gpu_is_sticky(r->gpu))
			r->sticky = 1;
		/* the metric sums within 1e-9: they decide no verdict here, and 2^29 terms added in
		 * two orders may differ by more than 1e-12 */
		if (!st && compare_results_differ(&cr->outputs[k].cmp, &g, 1e-9, 2, why, sizeof(why)))
			st = kbx_error(KBX_EINVAL, "%s: --compare both: the GPU's comparison of output '%s' differs from the "
				       "host's: %s", label, b->arg->name, why);
		k++;
		r->gcmp_both += !st;
	}
	r->gcmp_s += now_seconds() - t0;
	return st;
}

/* A digest of a problem's out/inout buffers (host copies): the same number as
 * engine_outputs_digest gives from the device (gpucompare_digest, each output salted with its
 * index), enough to tell whether the candidate's outputs after timing are the ones it gave on
 * the inputs before. */
uint64_t engine_host_digest(const struct problem *pb, void *const *out)
{
	uint64_t h = 0;
	int i;

	for (i = 0; i < pb->nbufs; i++)
		if (pb->bufs[i].arg->dir != ARG_IN && out[i])
			h += gpucompare_digest_host(out[i], pb->bufs[i].bytes, (uint64_t)i);
	return h;
}

/* engine_host_digest of the candidate's outputs where they are, on the device; copied to the
 * host for it when the kernel cannot (not stickily). */
enum kbx_status engine_outputs_digest(struct run *r, const struct case_ctx *c, uint64_t *out)
{
	enum kbx_status st = KBX_OK;
	double t0 = now_seconds();
	uint64_t h = 0, one;
	void **host = NULL;
	int i;

	for (i = 0; i < c->pb.nbufs && r->gcmp && !st; i++) {
		const struct problem_buf *b = &c->pb.bufs[i];

		if (b->arg->dir == ARG_IN)
			continue;
		st = gpucompare_digest(r->gcmp, c->cs.args[b->arg - r->t->args].ptr, b->bytes, (uint64_t)i, &one);
		h += one;
	}
	r->gcmp_s += now_seconds() - t0;
	if (r->gcmp && !st) {
		*out = h;
		return KBX_OK;
	}
	if (st && gpu_is_sticky(r->gpu)) {
		r->sticky = 1;
		return st;
	}
	if (st)
		gpu_compare_drop(r, kbx_last_error());
	st = engine_fetch_outputs(r, &c->cs, &c->pb, &host);
	if (!st)
		*out = engine_host_digest(&c->pb, host);
	engine_host_free(host, c->pb.nbufs);
	return st;
}

/* The verdict of a failed candidate call: runtime_error for launches and exceptions, what the
 * host said otherwise. */
static enum verdict host_verdict(const struct run *r)
{
	if (!r->cand.host)
		return V_RUNTIME_ERROR;
	switch (r->host_outcome) {
	case HOST_WRONG:
		return V_WRONG;
	case HOST_COMPILE:
		return V_COMPILE_ERROR;
	case HOST_OK:
	case HOST_FAILED:
	case HOST_SKIP:
	case HOST_UNCALLED:
		break;
	}
	return V_RUNTIME_ERROR;
}

/* Run the candidate once on prepared buffers and judge it. Returns a kbx error only when kbx
 * failed; a failing candidate is described in cr. */
/* After a call of the candidate: the first global that no longer holds its load-time value,
 * described in `msg`. A global that a call changes carries state into the next call (a
 * remembered result, a call counter, a "done" flag), which no correct candidate needs: a counter
 * that a kernel resets before it returns passes (doc/trust.md). */
static enum kbx_status globals_kept_state(struct run *r, struct sbuf *msg)
{
	unsigned char *now = NULL;
	enum kbx_status st = KBX_OK;
	int i, changed = 0, first = -1;

	for (i = 0; i < r->nglobals && !st; i++) {
		const struct cubin_global *g = &r->globals[i];
		gpu_ptr p;
		size_t bytes;

		if (!g->size)
			continue;
		st = gpu_module_global(r->gpu, r->cand.mod, g->symbol, &p, &bytes);
		if (st == KBX_ENOTFOUND) {
			kbx_clear_error();
			st = KBX_OK;
			continue;
		}
		if (st)
			break;
		now = xrealloc(now, g->size);
		st = gpu_download(r->gpu, now, p, bytes < g->size ? bytes : g->size);
		if (!st && memcmp(now, g->init, bytes < g->size ? bytes : g->size)) {
			changed++;
			if (first < 0)
				first = i;
		}
	}
	free(now);
	if (!st && changed) {
		char where[64] = "", more[64] = "";

		if (r->global_lines[first])
			snprintf(where, sizeof(where), " (line %d)", r->global_lines[first]);
		if (changed > 1)
			snprintf(more, sizeof(more), " (and %d more)", changed - 1);
		sbuf_addf(msg, "%sdevice global '%s'%s no longer holds its load-time value after a call%s: a candidate "
			  "must not keep state between calls", msg->len ? "; " : "", r->globals[first].name, where, more);
	}
	return st;
}

/* The quantization lens (quant.h) for the task's [quant] output: the step per element from the
 * reference's scale buffers, the candidate's error in steps against it. It never changes a
 * verdict: when it cannot be computed a log line says why and the output has no figures. */
#define QUANT_MAX_NUMEL ((size_t)1 << 24)

/* The exact result the reference keeps for output b ([tolerance] exact = BUF), downloaded:
 * malloc'd bytes shaped as b, or NULL with a log line saying why there is none (*st: a failed
 * download). */
static void *exact_download(struct run *r, const struct case_ctx *c, const struct problem_buf *b,
			    enum kbx_status *st)
{
	const char *name = r->t->exact_buf;
	void *exact;
	int i;

	*st = KBX_OK;
	for (i = 0; i < r->ref.spec.nscratch && strcmp(r->ref.spec.scratch[i].name, name); i++)
		;
	if (i == r->ref.spec.nscratch || !c->rs.scratch) {
		engine_log(r, "no exact result to compare with: the reference keeps no scratch buffer '%s'", name);
		return NULL;
	}
	if (r->ref.spec.scratch[i].dtype != b->arg->dtype || c->rs.scratch_bytes[i] != b->bytes) {
		engine_log(r, "no exact result to compare with: scratch '%s' is not shaped as output '%s'", name,
			   b->arg->name);
		return NULL;
	}
	exact = xmalloc(b->bytes ? b->bytes : 1);
	*st = gpu_download(r->gpu, exact, c->rs.scratch[i].ptr, b->bytes);
	if (*st) {
		free(exact);
		return NULL;
	}
	return exact;
}

/* One output's exact result, downloaded when first asked for (the lens and the exact target
 * both read it; a failing case must not fetch it twice). */
struct exact_cache {
	void *bytes;
	int tried;
};

static const void *exact_get(struct run *r, const struct case_ctx *c, const struct problem_buf *b,
			     struct exact_cache *x, enum kbx_status *st)
{
	*st = KBX_OK;
	if (!x->tried) {
		x->tried = 1;
		x->bytes = exact_download(r, c, b, st);
	}
	return x->bytes;
}

static enum kbx_status quant_lens(struct run *r, const struct case_ctx *c, const struct problem_buf *b,
				  const void *cand, const void *ref, struct exact_cache *x, struct quant_result *out)
{
	const struct quant_spec *spec = r->t->quant;
	struct quant_scale scales[QUANT_MAX_FACTORS];
	double *bufs[QUANT_MAX_FACTORS] = { NULL }, *cv = NULL, *rv = NULL, *step = NULL, *xv = NULL;
	size_t shape[PROBLEM_MAX_DIMS];
	enum kbx_status st = KBX_OK;
	int nscales = 0, k;

	if (!spec || strcmp(spec->output, b->arg->name) || !b->numel || b->numel > QUANT_MAX_NUMEL ||
	    !c->rs.scratch || b->ndim > PROBLEM_MAX_DIMS)
		return KBX_OK;
	for (k = 0; k < spec->nf && !st; k++) {
		const char *name = spec->f[k].buf;
		int i;

		if (!*name)
			continue;
		for (i = 0; i < r->ref.spec.nscratch && strcmp(r->ref.spec.scratch[i].name, name); i++)
			;
		if (i == r->ref.spec.nscratch) {
			engine_log(r, "no quantization lens: the reference keeps no scratch buffer '%s'", name);
			goto done;
		} else {
			enum dtype dt = r->ref.spec.scratch[i].dtype;
			size_t n = c->rs.scratch_bytes[i] / dtype_size(dt);
			void *raw = xmalloc(c->rs.scratch_bytes[i] ? c->rs.scratch_bytes[i] : 1);

			st = gpu_download(r->gpu, raw, c->rs.scratch[i].ptr, c->rs.scratch_bytes[i]);
			bufs[nscales] = xcalloc(n ? n : 1, sizeof(double));
			for (size_t e = 0; !st && e < n; e++)
				bufs[nscales][e] = dtype_get(dt, raw, e, 0);
			scales[nscales] = (struct quant_scale){ name, bufs[nscales], n };
			nscales++;
			free(raw);
		}
	}
	if (st)
		goto done;
	for (k = 0; k < b->ndim; k++)
		shape[k] = (size_t)b->shape[k];
	step = xcalloc(b->numel, sizeof(double));
	if (quant_step_fill(spec, shape, b->ndim, scales, nscales, step)) {
		engine_log(r, "no quantization lens: %s", kbx_last_error());
		goto done;
	}
	cv = xcalloc(b->numel, sizeof(double));
	rv = xcalloc(b->numel, sizeof(double));
	for (size_t e = 0; e < b->numel; e++) {
		cv[e] = dtype_get(b->arg->dtype, cand, e, 0);
		rv[e] = dtype_get(b->arg->dtype, ref, e, 0);
	}
	if (r->t->exact_buf) {
		const void *raw = exact_get(r, c, b, x, &st);

		if (st)
			goto done;
		if (raw) {
			xv = xcalloc(b->numel, sizeof(double));
			for (size_t e = 0; e < b->numel; e++)
				xv[e] = dtype_get(b->arg->dtype, raw, e, 0);
		}
	}
	quant_analyse_exact(spec, cv, rv, xv, step, shape, b->ndim, out);
done:
	free(xv);
	for (k = 0; k < nscales; k++)
		free(bufs[k]);
	free(step);
	free(cv);
	free(rv);
	return st;
}

/* The watchdog of kbx's own checks of a set of outputs (guard zones, downloads, comparisons, the
 * property verifiers' O(n^3) products): generous, and grown with the work, so that it fires only
 * when something is broken; when it does, the run is kbx's error (RUN_PHASE_OWN), never the
 * candidate's timeout. A 4096 x 4096 QR's check is about 1.4e11 multiply-adds. */
static double judge_limit_s(const struct run *r, const struct problem *pb, int property)
{
	double bytes = 0, cube = 0;
	int i;

	for (i = 0; i < pb->nbufs; i++) {
		const struct problem_buf *b = &pb->bufs[i];

		bytes += (double)b->bytes;
		if (property && b->ndim >= 2) {
			double rows = (double)b->shape[b->ndim - 2], cols = (double)b->shape[b->ndim - 1];

			cube += (double)b->numel * (rows > cols ? rows : cols);
		}
	}
	return 60 + r->launch_limit_s * 3 + 30.0 * bytes / (1 << 30) + 1e-9 * cube;
}

/* The guard zones of every buffer and scratch of the candidate's set, and the inputs it modified:
 * each finding is added to msg, the first buffer of each kind named in cr. */
static enum kbx_status check_buffers(struct run *r, struct case_ctx *c, struct case_result *cr, struct sbuf *msg)
{
	const struct task *t = r->t;
	enum kbx_status st = KBX_OK;
	int i;

	/* Out-of-bounds writes and modified inputs. */
	for (i = 0; i < c->pb.nbufs; i++) {
		const struct problem_buf *b = &c->pb.bufs[i];
		const struct dev_buf *d = &c->cs.args[b->arg - t->args];
		int side = engine_buf_guard_check(r, d, &st);

		if (st)
			return st;
		if (side && !cr->oob_arg[0]) {
			snprintf(cr->oob_arg, sizeof(cr->oob_arg), "%s", b->arg->name);
			sbuf_addf(msg, "%swrote outside buffer '%s' (guard zone %s it modified)", msg->len ? "; " : "",
				  b->arg->name, side == 1 ? "before the start" : "past the end");
		}
		if (b->arg->dir == ARG_IN && b->bytes && !c->in[i]) {
			int differs = 0;

			st = engine_device_fill(r, c, b, d, 1, &differs);
			if (st)
				return st;
			if (differs && !cr->modified_arg[0]) {
				snprintf(cr->modified_arg, sizeof(cr->modified_arg), "%s", b->arg->name);
				sbuf_addf(msg, "%smodified input '%s'", msg->len ? "; " : "", b->arg->name);
			}
		} else if (b->arg->dir == ARG_IN && b->bytes) {
			void *now = xmalloc(b->bytes);
			double t0 = now_seconds();

			st = gpu_download(r->gpu, now, d->ptr, b->bytes);
			r->sum.split.transfer_s += now_seconds() - t0;
			if (!st && memcmp(now, c->in[i], b->bytes) && !cr->modified_arg[0]) {
				snprintf(cr->modified_arg, sizeof(cr->modified_arg), "%s", b->arg->name);
				sbuf_addf(msg, "%smodified input '%s'", msg->len ? "; " : "", b->arg->name);
			}
			free(now);
			if (st)
				return st;
		}
	}
	for (i = 0; i < c->cs.nscratch; i++) {
		int side = engine_buf_guard_check(r, &c->cs.scratch[i], &st);

		if (st)
			return st;
		if (side && !cr->oob_arg[0]) {
			snprintf(cr->oob_arg, sizeof(cr->oob_arg), "%s", r->cand.spec.scratch[i].name);
			sbuf_addf(msg, "%swrote outside scratch '%s'", msg->len ? "; " : "", r->cand.spec.scratch[i].name);
		}
	}
	return KBX_OK;
}

/* [tolerance] exact: an output that misses the metric thresholds against the reference's result
 * is compared with the exact result the reference keeps in a scratch buffer (an untimed launch);
 * where it meets them there, *cmp becomes that comparison and the output passes. KernelBenchX
 * compares a quantization task with the exact result, so a more accurate scheme than the
 * reference's (smaller groups, no quantization) is right too. Where the reference's own result
 * is farther from the exact one than the thresholds allow (a long reduction, a scaled case), the
 * candidate may be as far as the reference is: never less accurate than the task's own scheme. */
static enum kbx_status judge_against_exact(struct run *r, const struct case_ctx *c, const struct problem_buf *b,
					   const void *cand, const void *ref, struct exact_cache *x, struct cmp_result *cmp)
{
	const char *name = r->t->exact_buf;
	struct cmp_result ex, rx;
	struct tolerance tol = c->tol;
	double scale = tol.atol_scale > 0 ? tol.atol_scale : 1;
	enum kbx_status st;
	const void *exact = exact_get(r, c, b, x, &st);

	if (!exact)
		return st;
	compare_buffers(b->arg->dtype, ref, exact, b->shape, b->ndim, &c->tol, &rx);
	if (tol.cosine_sim >= 0 && rx.cosine < tol.cosine_sim)
		tol.cosine_sim = rx.cosine;
	if (tol.l1_relative >= 0 && rx.l1_relative > tol.l1_relative)
		tol.l1_relative = rx.l1_relative;
	if (tol.rmse >= 0 && rx.rmse / scale > tol.rmse)
		tol.rmse = rx.rmse / scale;
	compare_buffers(b->arg->dtype, cand, exact, b->shape, b->ndim, &tol, &ex);
	if (ex.pass) {
		engine_log(r, "output '%s' misses the metric thresholds against the reference's result (cosine %.4g, "
			   "l1_relative %.3g, rmse %.3g) and meets them against the exact result '%s' (cosine %.4g, "
			   "l1_relative %.3g, rmse %.3g%s): it passes, as in KernelBenchX, which compares with the exact "
			   "result", b->arg->name, cmp->cosine, cmp->l1_relative, cmp->rmse, name, ex.cosine,
			   ex.l1_relative, ex.rmse, rx.pass ? "" : "; the reference itself is that far from it: "
			   "cosine, l1_relative and rmse no worse than the reference's");
		*cmp = ex;
	} else {
		engine_log(r, "output '%s' misses the metric thresholds against the exact result '%s' too (cosine "
			   "%.4g, l1_relative %.3g, rmse %.3g; the reference's own: %.4g, %.3g, %.3g)", b->arg->name, name,
			   ex.cosine, ex.l1_relative, ex.rmse, rx.cosine, rx.l1_relative, rx.rmse);
	}
	return st;
}

/* Compare every output with the reference's (for a property, only count what was left unwritten):
 * one output_result each in cr, what is wrong added to msg. */
static enum kbx_status compare_outputs(struct run *r, struct case_ctx *c, struct case_result *cr, void **cand_out,
				       int property, struct sbuf *msg)
{
	const struct task *t = r->t;
	enum kbx_status st;
	int i, nout = 0;

	for (i = 0; i < c->pb.nbufs; i++)
		nout += c->pb.bufs[i].arg->dir != ARG_IN;
	cr->outputs = xcalloc((size_t)nout + 1, sizeof(*cr->outputs));
	for (i = 0; i < c->pb.nbufs; i++) {
		const struct problem_buf *b = &c->pb.bufs[i];
		struct exact_cache exact = { NULL, 0 };
		struct output_result *o;
		size_t unwritten;

		if (b->arg->dir == ARG_IN)
			continue;
		o = &cr->outputs[cr->noutputs++];
		snprintf(o->arg, sizeof(o->arg), "%s", b->arg->name);
		unwritten = count_unwritten(b, cand_out[i], c->ref_out[i]);
		if (property) {
			/* Judged as a whole below; only unwritten elements are reported per output. */
			judged_whole(&o->cmp, b->numel, !unwritten);
			if (unwritten)
				sbuf_addf(msg, "%sleft %zu of %zu elements of '%s' unwritten", msg->len ? "; " : "", unwritten,
					  b->numel, b->arg->name);
			continue;
		}
		compare_buffers(b->arg->dtype, cand_out[i], c->ref_out[i], b->shape, b->ndim, &c->tol, &o->cmp);
		st = quant_lens(r, c, b, cand_out[i], c->ref_out[i], &exact, &o->quant);
		if (!st && !o->cmp.pass && t->tol.metric && t->exact_buf && !unwritten)
			st = judge_against_exact(r, c, b, cand_out[i], c->ref_out[i], &exact, &o->cmp);
		free(exact.bytes);
		if (st)
			return st;
		if (o->cmp.pass)
			continue;
		if (unwritten)
			sbuf_addf(msg, "%sleft %zu of %zu elements of '%s' unwritten", msg->len ? "; " : "", unwritten,
				  b->numel, b->arg->name);
		else {
			char at[160] = "", note[256];

			/* the figures cover finite pairs only: a NaN they left out is named with them */
			compare_nonfinite_note(&o->cmp, note, sizeof(note));
			if (t->tol.metric)
				sbuf_addf(msg, "%soutput '%s' misses its metric thresholds (cosine %.4g, l1_relative %.3g, "
					  "rmse %.3g%s%s)", msg->len ? "; " : "", b->arg->name, o->cmp.cosine,
					  o->cmp.l1_relative, o->cmp.rmse, note[0] ? "; " : "", note);
			else {
				if (o->cmp.nworst)
					describe_elem(at, sizeof(at), &o->cmp.worst[0]);
				sbuf_addf(msg, "%soutput '%s': %zu of %zu elements differ (max abs %.3g, worst at %s%s%s)",
					  msg->len ? "; " : "", b->arg->name, o->cmp.mismatches, o->cmp.n,
					  o->cmp.max_abs, at, note[0] ? "; " : "", note);
			}
		}
	}
	return KBX_OK;
}

static enum kbx_status judge_outputs(struct run *r, struct case_ctx *c, const char *label, struct case_result *cr,
				     void ***cand_out_ret);

enum kbx_status engine_judge_candidate(struct run *r, struct case_ctx *c, const char *label, struct case_result *cr,
				       void ***cand_out_ret)
{
	enum kbx_status st;
	char why[1024], name[sizeof(cr->name)];
	int index;

	cr->verdict = V_PASS;
	c->gpu_judged = 0;
	if (cand_out_ret)
		*cand_out_ret = NULL;
	st = engine_set_prepare(r, &c->cs, c, &r->cand, 1);
	if (st)
		return st;
	/* a host candidate sees the reference's outputs too: its autotuned kernels are judged by
	 * the config farthest from them (pyhost.h) */
	if (r->cand.host && (st = engine_host_bind(r, &c->cs, &c->rs, &c->pb, why, sizeof(why))) != KBX_OK)
		return st;
	st = engine_run_launches(r, &r->cand, &c->cs, &c->pb, 1, label, why, sizeof(why));
	if (st && r->cand.host && (r->host_outcome == HOST_SKIP || r->host_outcome == HOST_UNCALLED)) {
		/* not checkable for this candidate (its random draws are PyTorch's): not run, not
		 * wrong; engine_run_and_fold and the perf rows count it apart */
		cr->verdict = V_NOT_RUN;
		cr->message = xasprintf("not checked for a Python candidate: %s", why);
		return KBX_OK;
	}
	if (st) {
		cr->verdict = host_verdict(r);
		cr->message = xstrdup(why);
		return KBX_OK;
	}
	st = judge_outputs(r, c, label, cr, cand_out_ret);
	if (st || cr->verdict != V_WRONG || !c->ref_kept)
		return st;
	/* Wrong against the reference's kept outputs (refout.h): the reference runs live on the
	 * same inputs and the candidate's same outputs are judged again, so a failing verdict and
	 * its report (the stage diff's buffers included) are always the live reference's. */
	if (cand_out_ret) {
		engine_host_free(*cand_out_ret, c->pb.nbufs);
		*cand_out_ret = NULL;
	}
	snprintf(name, sizeof(name), "%s", cr->name);
	index = cr->index;
	case_result_free(cr);
	snprintf(cr->name, sizeof(cr->name), "%s", name);
	cr->index = index;
	cr->verdict = V_PASS;
	st = engine_reference_live(r, c, label);
	return st ? st : judge_outputs(r, c, label, cr, cand_out_ret);
}

/* The candidate's outputs in c->cs, just computed, judged against the reference's in c->rs (or
 * c->ref_out): its buffers' guards and inputs, the outputs, the property or the stage diff. */
static enum kbx_status judge_outputs(struct run *r, struct case_ctx *c, const char *label, struct case_result *cr,
				     void ***cand_out_ret)
{
	const struct task *t = r->t;
	enum kbx_status st;
	void **cand_out = NULL;
	struct sbuf msg = SBUF_INIT;
	int i, property = engine_is_property(t);

	c->gpu_judged = 0;
	engine_phase(r, judge_limit_s(r, &c->pb, property), RUN_PHASE_OWN "%s: checking the results", label);
	if ((st = globals_kept_state(r, &msg))) {
		sbuf_release(&msg);
		return st;
	}
	st = check_buffers(r, c, cr, &msg);
	if (st) {
		sbuf_release(&msg);
		return st;
	}
	if (c->gpu_cmp && (st = property ? judge_property_gpu(r, c, cr, &c->gpu_judged)
					  : compare_outputs_gpu(r, c, cr, &c->gpu_judged))) {
		sbuf_release(&msg);
		return st;
	}
	/* the host path, as always; after the GPU's, for a failing output's message */
	if (!c->gpu_judged && !c->ref_out)
		st = engine_fetch_outputs(r, &c->rs, &c->pb, &c->ref_out);
	if (!st && !c->gpu_judged)
		st = engine_fetch_outputs(r, &c->cs, &c->pb, &cand_out);
	if (!st && !c->gpu_judged)
		st = compare_outputs(r, c, cr, cand_out, property, &msg);
	if (!st && r->o->compare_gpu == COMPARE_BOTH && !property)
		st = cross_check_gpu(r, c, cr, label);
	if (st) {
		engine_host_free(cand_out, c->pb.nbufs);
		sbuf_release(&msg);
		return st;
	}
	if (property && !c->gpu_judged) {
		struct verify_result vr;
		struct gpu_hook_ctx hc = { r, c };
		struct verify_hooks hooks = { gpu_independence, &hc };

		/* where the route allows (eig), the costliest figure on the device; a failure is judged
		 * again on the host alone, so that its report is always the host's */
		st = verify_property_with(t, &c->pb, c->in, cand_out, c->ref_out, c->gpu_cmp ? &hooks : NULL, &vr);
		if (!st && c->gpu_cmp && !vr.pass)
			st = verify_property(t, &c->pb, c->in, cand_out, c->ref_out, &vr);
		if (st) {
			engine_host_free(cand_out, c->pb.nbufs);
			sbuf_release(&msg);
			return st;
		}
		if (!vr.pass) {
			sbuf_addf(&msg, "%s%s", msg.len ? "; " : "", vr.message);
			for (i = 0; i < cr->noutputs; i++)
				cr->outputs[i].cmp.pass = 0;
		}
	}
	if (msg.len) {
		int any_output_wrong = 0;

		for (i = 0; i < cr->noutputs; i++)
			any_output_wrong |= !cr->outputs[i].cmp.pass;
		cr->verdict = V_WRONG;
		cr->message = sbuf_detach(&msg);
		/* against kept outputs the stages wait: the caller runs the reference live first */
		if (any_output_wrong && !c->ref_kept) {
			st = first_wrong_stage(r, c, cr);
			if (st) {
				engine_host_free(cand_out, c->pb.nbufs);
				return st;
			}
		}
	}
	sbuf_release(&msg);
	if (cand_out_ret)
		*cand_out_ret = cand_out;
	else
		engine_host_free(cand_out, c->pb.nbufs);
	return KBX_OK;
}

int engine_is_property(const struct task *t)
{
	return t->verifier && !strcmp(t->verifier, "property");
}

/* Second run on the same inputs must give the same bits. */
enum kbx_status engine_check_determinism(struct run *r, struct case_ctx *c, void **first, const char *label,
					 struct case_result *cr)
{
	enum kbx_status st;
	void **second = NULL;
	char why[1024];
	int i;

	st = engine_set_prepare(r, &c->cs, c, &r->cand, 1);
	if (st)
		return st;
	st = engine_run_launches(r, &r->cand, &c->cs, &c->pb, 1, label, why, sizeof(why));
	if (st) {
		/* a Python candidate's second call is judged as its first (host_verdict): one that
		 * returns a remembered result without launching a kernel is wrong, not a crash */
		cr->verdict = r->cand.host ? host_verdict(r) : V_RUNTIME_ERROR;
		cr->message = xasprintf("second run on the same inputs: %s", why);
		return KBX_OK;
	}
	st = engine_fetch_outputs(r, &c->cs, &c->pb, &second);
	for (i = 0; !st && i < c->pb.nbufs; i++) {
		const struct problem_buf *b = &c->pb.bufs[i];
		struct cmp_result cmp;

		if (b->arg->dir == ARG_IN || compare_bitwise(first[i], second[i], b->bytes))
			continue;
		cr->nondeterministic = 1;
		if (r->t->deterministic && cr->verdict == V_PASS) {
			cr->verdict = V_WRONG;
			cr->message = xasprintf("nondeterministic: a second run on the same inputs gave different bits in "
						"output '%s' (this task demands bit-identical results)", b->arg->name);
			continue;
		}
		/* Different bits are a warning; a second run that is wrong is a wrong kernel (one that
		 * skips work it thinks it has done, or races). */
		if (engine_is_property(r->t))
			continue;
		compare_buffers(b->arg->dtype, second[i], c->ref_out[i], b->shape, b->ndim, &c->tol, &cmp);
		if (!cmp.pass && cr->verdict == V_PASS) {
			cr->verdict = V_WRONG;
			cr->message = xasprintf("a second run on the same inputs is wrong: output '%s' has %zu elements outside "
						"tolerance (%zu left unwritten)", b->arg->name,
						cmp.mismatches,
						count_unwritten(b, second[i], c->ref_out[i]));
		}
	}
	engine_host_free(second, c->pb.nbufs);
	return st;
}

/* ---------------------------------------------------- distribution verifier ---- */

#define KS_MAX_SAMPLES ((size_t)1 << 22)

/* The moments of an output of up to 2^27 values, spread over the cores: blocks of DIST_BLOCK
 * values, each block's sums kept apart and added in block order, so that the result does not
 * depend on how many threads ran. */
#define DIST_BLOCK ((size_t)1 << 16)

struct dist_job {
	enum dtype dt;
	const void *a, *other;  /* other: the run with another seed (NULL: not compared) */
	size_t n;
	double mean;            /* pass 2: the mean, for the squared deviations */
	int pass;
	double *sum;            /* per block: pass 1 the values, pass 2 the squared deviations */
	size_t *outside, *differ;
};

static void dist_blocks_cb(void *arg, size_t lo, size_t hi)
{
	struct dist_job *job = arg;
	size_t blk, k;

	for (blk = lo; blk < hi; blk++) {
		size_t k0 = blk * DIST_BLOCK, k1 = job->n - k0 < DIST_BLOCK ? job->n : k0 + DIST_BLOCK;
		size_t outside = 0, differ = 0;
		double s = 0;

		for (k = k0; k < k1; k++) {
			double x = dtype_get(job->dt, job->a, k, 0);

			if (job->pass == 2) {
				s += (x - job->mean) * (x - job->mean);
				continue;
			}
			if (!(x >= 0 && x < 1))
				outside++;
			s += x;
			if (job->other && dtype_get(job->dt, job->other, k, 0) != x)
				differ++;
		}
		job->sum[blk] = s;
		if (job->pass == 1)
			job->outside[blk] = outside, job->differ[blk] = differ;
	}
}

static void dist_moments(enum dtype dt, const void *a, const void *other, size_t n, double *mean, double *var,
			 size_t *outside, size_t *differ)
{
	size_t nblk = (n + DIST_BLOCK - 1) / DIST_BLOCK, blk;
	struct dist_job job = { dt, a, other, n, 0, 1, NULL, NULL, NULL };

	*mean = *var = 0;
	*outside = *differ = 0;
	if (!n)
		return;
	job.sum = xcalloc(nblk, sizeof(*job.sum));
	job.outside = xcalloc(nblk, sizeof(*job.outside));
	job.differ = xcalloc(nblk, sizeof(*job.differ));
	parallel_for(nblk, 1, dist_blocks_cb, &job);
	for (blk = 0; blk < nblk; blk++) {
		*mean += job.sum[blk];
		*outside += job.outside[blk];
		*differ += job.differ[blk];
	}
	*mean /= (double)n;
	job.mean = *mean;
	job.pass = 2;
	parallel_for(nblk, 1, dist_blocks_cb, &job);
	for (blk = 0; blk < nblk; blk++)
		*var += job.sum[blk];
	*var /= n > 1 ? (double)(n - 1) : 1.0;
	free(job.sum);
	free(job.outside);
	free(job.differ);
}

static double z_limit(void)
{
	return 4.8916;  /* two-sided normal quantile at 1e-6 */
}

/* What the distribution test measured: on the host from the outputs copied there, or on the
 * device (dist_on_device). */
struct dist_figures {
	size_t outside, differ;
	double mean, var, p;
	int repeat_differs;
};

/* The KS test's sample of n values: sorting 10^8 values for one statistic costs seconds, so above
 * KS_MAX_SAMPLES every stride-th value is tested, count of them (every value still counts for
 * range, mean and variance). The host and the device's gather take the same one. */
static void ks_sample_plan(size_t n, size_t *stride, size_t *count)
{
	*stride = n > KS_MAX_SAMPLES ? n / KS_MAX_SAMPLES : 1;
	*count = (n + *stride - 1) / *stride < KS_MAX_SAMPLES ? (n + *stride - 1) / *stride : KS_MAX_SAMPLES;
}

/* The KS p-value of that sample of the n values at x (dtype dt); sample, if not NULL, already
 * holds it (gathered on the device), and x is not read. */
static double ks_p_value(enum dtype dt, const void *x, const float *sample, size_t n)
{
	size_t stride, count, m;
	double *xs, p = 1;

	ks_sample_plan(n, &stride, &count);
	xs = xmalloc((count + 1) * sizeof(*xs));
	for (m = 0; m < count; m++)
		xs[m] = sample ? (double)sample[m] : dtype_get(dt, x, m * stride, 0);
	stats_ks_uniform(xs, count, &p);
	free(xs);
	return p;
}

/* The distribution test's figures at a perf row under --compare gpu (f32 draws): the first run's
 * output kept in `first` on the device, the repeat told by digests, the moments and counts by
 * gpuprop_uniform against the run with another seed (other), the KS sample gathered there: of
 * three outputs of up to 512 MiB only the sample (16 MiB) crosses to the host. */
static enum kbx_status dist_on_device(struct run *r, const struct problem_buf *ob, int oi, gpu_ptr first,
				      gpu_ptr repeat_digest_of, gpu_ptr other, struct dist_figures *f)
{
	size_t n = ob->numel, stride, m;
	struct gpuprop_uniform u;
	uint64_t d1, d2;
	float *sample;
	enum kbx_status st;

	if (repeat_digest_of) {
		st = gpucompare_digest(r->gcmp, first, ob->bytes, (uint64_t)oi, &d1);
		if (!st)
			st = gpucompare_digest(r->gcmp, repeat_digest_of, ob->bytes, (uint64_t)oi, &d2);
		if (!st)
			f->repeat_differs = d1 != d2;
		return st;
	}
	st = gpuprop_uniform(r->gprop, first, other, (long long)n, &u);
	if (st)
		return st;
	f->mean = u.mean, f->var = u.var, f->outside = u.outside, f->differ = u.differ;
	f->p = 1;
	if (n < 2)
		return KBX_OK;
	ks_sample_plan(n, &stride, &m);
	sample = xmalloc(m * sizeof(*sample));
	st = gpuprop_gather(r->gprop, first, (long long)stride, (long long)m, sample);
	if (!st)
		f->p = ks_p_value(DT_F32, NULL, sample, n);
	free(sample);
	return st;
}

enum kbx_status engine_verify_distribution(struct run *r, struct case_ctx *c, const char *label, struct case_result *cr)
{
	const struct task *t = r->t;
	const char *out_name = binding_get(t->verifier_params, t->nverifier_params, "output");
	const char *law = binding_get(t->verifier_params, t->nverifier_params, "law");
	const char *seed_arg = binding_get(t->verifier_params, t->nverifier_params, "seed_arg");
	void **a = NULL, **b = NULL, **d = NULL;
	const struct problem_buf *ob = NULL;
	enum kbx_status st;
	char why[1024];
	int i, oi = -1, host, dev;
	gpu_ptr first = 0;
	struct dist_figures f;

	cr->verdict = V_PASS;
	for (i = 0; i < c->pb.nbufs; i++)
		if (out_name && !strcmp(c->pb.bufs[i].arg->name, out_name))
			oi = i, ob = &c->pb.bufs[i];
	if (!ob || !law || strcmp(law, "uniform01"))
		return kbx_error(KBX_EINVAL, "'%s': [verifier] needs output = <out buffer> and law = uniform01", t->ini_path);

	/* Run twice with the case's seed, once with another. A Python candidate has the signature of
	 * KernelBenchX's function, which takes no seed: its generator is its own, so only the law is
	 * tested (one run); its answer that the case is stochastic means it ran and wrote its
	 * outputs. */
	host = r->cand.host;
	memset(&f, 0, sizeof(f));
	/* under --compare gpu at a perf row, f32 draws are tested where they are (dist_on_device) */
	dev = !host && c->gpu_cmp && ob->arg->dtype == DT_F32 && ob->numel > 0 && engine_gpu_compare_load(r) &&
	      gpu_prop_load(r);
	if (dev && gpu_alloc(r->gpu, ob->bytes, &first)) {
		kbx_clear_error();
		dev = 0;
	}
	for (i = 0; i < (host ? 1 : 3); i++) {
		void ***dst = i == 0 ? &a : i == 1 ? &b : &d;

		if (i == 2 && seed_arg) {
			const struct expr_value *sv = expr_env_get(&c->pb.env, seed_arg);
			struct expr_value nv = sv ? *sv : (struct expr_value){ 0 };

			nv.i += 0x9E3779B9LL;
			expr_env_set(&c->pb.env, seed_arg, nv);
		}
		st = engine_set_prepare(r, &c->cs, c, &r->cand, 1);
		if (!st && host && (st = engine_host_bind(r, &c->cs, NULL, &c->pb, why, sizeof(why))))
			goto out;
		if (!st)
			st = engine_run_launches(r, &r->cand, &c->cs, &c->pb, 1, label, why, sizeof(why));
		if (st && host && r->host_outcome == HOST_SKIP)
			st = KBX_OK;    /* it ran; its outputs are random draws, which is what is tested */
		if (st && host && !r->sticky) {
			cr->verdict = r->host_outcome == HOST_UNCALLED ? V_NOT_RUN : host_verdict(r);
			cr->message = xstrdup(why);
			st = KBX_OK;
			goto out;
		}
		if (st) {
			cr->verdict = V_RUNTIME_ERROR;
			cr->message = xstrdup(why);
			goto out;
		}
		if (dev) {
			gpu_ptr out_ptr = c->cs.args[ob->arg - t->args].ptr;

			st = i == 0 ? gpu_copy(r->gpu, first, out_ptr, ob->bytes)
				    : dist_on_device(r, ob, oi, first, i == 1 ? out_ptr : 0, out_ptr, &f);
			if (st) {
				if (gpu_is_sticky(r->gpu))
					r->sticky = 1;
				goto out;
			}
			continue;
		}
		st = engine_fetch_outputs(r, &c->cs, &c->pb, dst);
		if (st)
			goto out;
	}
	if (dev) {   /* for the log line of what --compare gpu saved (issue 20) */
		r->gcmp_saved += 3.0 * (double)ob->bytes;
	} else {
		dist_moments(ob->arg->dtype, a[oi], host ? NULL : d[oi], ob->numel, &f.mean, &f.var, &f.outside, &f.differ);
		f.p = ob->numel >= 2 ? ks_p_value(ob->arg->dtype, a[oi], NULL, ob->numel) : 1;
		f.repeat_differs = !host && !compare_bitwise(a[oi], b[oi], ob->bytes);
	}
	{
		size_t n = ob->numel, outside = f.outside, differ = f.differ;
		double mean = f.mean, var = f.var, p = f.p, z, zv;
		struct sbuf msg = SBUF_INIT;

		z = n ? fabs(mean - 0.5) / sqrt(1.0 / 12.0 / (double)n) : 0;
		zv = n > 1 ? fabs(var - 1.0 / 12.0) / sqrt((1.0 / 80.0 - 1.0 / 144.0) / (double)n) : 0;
		if (outside)
			sbuf_addf(&msg, "%zu of %zu values outside [0, 1)", outside, n);
		if (z > z_limit())
			sbuf_addf(&msg, "%smean %.6f is %.1f sigma from 0.5", msg.len ? "; " : "", mean, z);
		if (zv > z_limit())
			sbuf_addf(&msg, "%svariance %.6f is %.1f sigma from 1/12", msg.len ? "; " : "", var, zv);
		if (n >= 2 && p < 1e-6)
			sbuf_addf(&msg, "%sKolmogorov-Smirnov rejects U(0,1) (p = %.2g)", msg.len ? "; " : "", p);
		if (!host && f.repeat_differs)
			sbuf_addf(&msg, "%stwo runs with the same seed differ", msg.len ? "; " : "");
		if (!host && seed_arg && n >= 16 && differ < n / 2)
			sbuf_addf(&msg, "%sanother seed changed only %zu of %zu values", msg.len ? "; " : "", differ, n);
		cr->outputs = xcalloc(1, sizeof(*cr->outputs));
		cr->noutputs = 1;
		snprintf(cr->outputs[0].arg, sizeof(cr->outputs[0].arg), "%s", ob->arg->name);
		judged_whole(&cr->outputs[0].cmp, n, msg.len == 0);
		if (msg.len) {
			cr->verdict = V_WRONG;
			cr->message = sbuf_detach(&msg);
		}
		sbuf_release(&msg);
	}
out:
	if (first)
		gpu_free(r->gpu, first);
	engine_host_free(a, c->pb.nbufs);
	engine_host_free(b, c->pb.nbufs);
	engine_host_free(d, c->pb.nbufs);
	return st;
}
