/*
 * The run engine: device buffers and their guard zones, launches, host calls and inputs
 * (engine_int.h).
 */
#include "engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devgen.h"
#include "inputs.h"

#define GUARD_BYTES (64 * 1024)
#define GUARD_BYTE 0xCB
#define POISON_INT 0xA5
#define POISON_FLOAT 0xFF   /* all-ones is a NaN in f16, bf16, f32 and f64 */

/* ----------------------------------------------------------------- buffers ---- */

/* Guard zones around every buffer catch writes past its ends. Under compute-sanitizer there are
 * none: the sanitizer knows each allocation's exact size and reports reads past the ends too,
 * which a guard zone would hide as valid memory. */
size_t engine_guard_bytes(const struct run *r)
{
	return r->o->sanitize ? 0 : GUARD_BYTES;
}

static enum kbx_status buf_alloc(struct run *r, struct dev_buf *b, size_t bytes)
{
	size_t g = engine_guard_bytes(r);
	enum kbx_status st = gpu_alloc(r->gpu, bytes + 2 * g + (g || bytes ? 0 : 1), &b->base);

	if (st)
		return st;
	b->ptr = b->base + g;
	b->bytes = bytes;
	if (!g)
		return KBX_OK;
	st = gpu_memset8(r->gpu, b->base, GUARD_BYTE, g);
	if (!st)
		st = gpu_memset8(r->gpu, b->ptr + bytes, GUARD_BYTE, g);
	return st;
}

static void buf_free(struct run *r, struct dev_buf *b)
{
	if (b->base)
		gpu_free(r->gpu, b->base);
	memset(b, 0, sizeof(*b));
}

/* 0 when both guard zones are intact, else 1 (before) or 2 (after). */
int engine_buf_guard_check(struct run *r, const struct dev_buf *b, enum kbx_status *st)
{
	size_t g = engine_guard_bytes(r), i;
	unsigned char *buf;
	int bad = 0, side;

	*st = KBX_OK;
	if (!g)
		return 0;
	buf = xmalloc(g);
	for (side = 0; side < 2 && !bad; side++) {
		*st = gpu_download(r->gpu, buf, side ? b->ptr + b->bytes : b->base, g);
		if (*st)
			break;
		for (i = 0; i < g; i++) {
			if (buf[i] != GUARD_BYTE) {
				bad = side + 1;
				break;
			}
		}
	}
	free(buf);
	return bad;
}

unsigned char engine_poison_byte(enum dtype dt)
{
	return dtype_is_float(dt) ? POISON_FLOAT : POISON_INT;
}

void engine_set_free(struct run *r, struct dev_set *s, const struct task *t)
{
	int i;

	if (s->host_handle && r->o->host)
		r->o->host->unbind(r->o->host->ctx, s->host_handle - 1);

	if (s->args)
		for (i = 0; i < t->nargs; i++)
			buf_free(r, &s->args[i]);
	if (s->scratch)
		for (i = 0; i < s->nscratch; i++)
			buf_free(r, &s->scratch[i]);
	free(s->args);
	free(s->scratch);
	free(s->scratch_bytes);
	memset(s, 0, sizeof(*s));
}

enum kbx_status engine_set_alloc(struct run *r, struct dev_set *s, const struct problem *pb,
				 const struct program *p)
{
	const struct task *t = r->t;
	enum kbx_status st;
	int i, j, d;

	memset(s, 0, sizeof(*s));
	s->args = xcalloc((size_t)t->nargs + 1, sizeof(*s->args));
	for (i = 0; i < pb->nbufs; i++) {
		int ai = (int)(pb->bufs[i].arg - t->args);

		st = buf_alloc(r, &s->args[ai], pb->bufs[i].bytes);
		if (st)
			return st;
	}
	s->nscratch = p->spec.nscratch;
	s->scratch = xcalloc((size_t)s->nscratch + 1, sizeof(*s->scratch));
	s->scratch_bytes = xcalloc((size_t)s->nscratch + 1, sizeof(*s->scratch_bytes));
	for (j = 0; j < s->nscratch; j++) {
		const struct scratch_decl *sd = &p->spec.scratch[j];
		long long n = 1, dim;
		int col;

		for (d = 0; d < sd->ndim; d++) {
			st = expr_eval_int(sd->shape[d], &pb->env, &dim, &col);
			if (st)
				return kbx_wrap(st, "%s line %d: scratch '%s' dimension %d", p->role, sd->line, sd->name, d + 1);
			if (dim < 0)
				return kbx_error(KBX_EINVAL, "%s line %d: scratch '%s' has negative dimension %lld",
						 p->role, sd->line, sd->name, dim);
			n *= dim;
		}
		s->scratch_bytes[j] = (size_t)n * dtype_size(sd->dtype);
		st = buf_alloc(r, &s->scratch[j], s->scratch_bytes[j]);
		if (st)
			return st;
	}
	return KBX_OK;
}

/* Put inputs in place and poison (candidate) or zero (reference) outputs and scratch. */
enum kbx_status engine_set_prepare(struct run *r, struct dev_set *s, const struct case_ctx *c,
				   const struct program *p, int poison)
{
	const struct task *t = r->t;
	const struct problem *pb = &c->pb;
	enum kbx_status st = KBX_OK;
	double t0 = now_seconds(), drawn0 = r->sum.split.inputs_s;
	int i;

	for (i = 0; i < pb->nbufs && !st; i++) {
		const struct problem_buf *b = &pb->bufs[i];
		struct dev_buf *d = &s->args[b->arg - t->args];

		if (b->arg->dir == ARG_OUT)
			st = gpu_memset8(r->gpu, d->ptr, poison ? engine_poison_byte(b->arg->dtype) : 0, d->bytes);
		else if (d->bytes && c->in[i])
			st = gpu_upload(r->gpu, d->ptr, c->in[i], d->bytes);
		else if (d->bytes)
			st = engine_device_fill(r, c, b, d, 0, NULL);
	}
	for (i = 0; i < s->nscratch && !st; i++)
		st = gpu_memset8(r->gpu, s->scratch[i].ptr, poison ? engine_poison_byte(p->spec.scratch[i].dtype) : 0,
				 s->scratch_bytes[i]);
	/* copies and fills; inputs drawn on the device counted themselves as input generation */
	r->sum.split.transfer_s += now_seconds() - t0 - (r->sum.split.inputs_s - drawn0);
	return st;
}

/* ---------------------------------------------------------------- launches ---- */

union param {
	int i32;
	long long i64;
	float f32;
	double f64;
	gpu_ptr ptr;
};

static enum kbx_status eval_dim(const char *e, const struct expr_env *env, const char *role, const struct launch *l,
				const char *what, unsigned *out)
{
	long long v;
	int col;
	enum kbx_status st = expr_eval_int(e, env, &v, &col);

	if (st)
		return kbx_wrap(st, "%s line %d: %s of '%s'", role, l->line, what, l->kernel);
	if (v < 0 || v > 0x7fffffffLL)
		return kbx_error(KBX_EINVAL, "%s line %d: %s of '%s' is %lld", role, l->line, what, l->kernel, v);
	*out = (unsigned)v;
	return KBX_OK;
}

static enum kbx_status marshal(const struct run *r, const struct program *p, const struct launch *l,
			       const struct dev_set *s, const struct expr_env *env, union param *vals, void **params)
{
	int j, k;

	for (j = 0; j < l->nargs; j++) {
		const struct launch_arg *a = &l->args[j];
		struct expr_value v;
		enum dtype dt;
		int col;

		memset(&vals[j], 0, sizeof(vals[j]));
		params[j] = &vals[j];
		if (a->name) {
			const struct task_arg *ta = task_find_arg(r->t, a->name);

			if (ta && ta->dir != ARG_SCALAR) {
				vals[j].ptr = s->args[ta - r->t->args].ptr;
				continue;
			}
			if (!ta) {
				for (k = 0; k < p->spec.nscratch; k++)
					if (!strcmp(p->spec.scratch[k].name, a->name))
						vals[j].ptr = s->scratch[k].ptr;
				continue;
			}
			if (!expr_env_get(env, a->name))
				return kbx_error(KBX_EINVAL, "%s line %d: scalar '%s' has no value in this case",
						 p->role, l->line, a->name);
			v = *expr_env_get(env, a->name);
			dt = ta->dtype;
		} else {
			enum kbx_status st = expr_eval(a->expr, env, &v, &col);

			if (st)
				return kbx_wrap(st, "%s line %d column %d", p->role, l->line, a->expr_col + col);
			dt = a->cast;
		}
		switch (dt) {
		case DT_I32: vals[j].i32 = v.is_float ? (int)v.f : (int)v.i; break;
		case DT_F32: vals[j].f32 = (float)expr_as_double(v); break;
		case DT_F64: vals[j].f64 = expr_as_double(v); break;
		default: vals[j].i64 = v.is_float ? (long long)v.f : v.i; break;
		}
	}
	return KBX_OK;
}

/* Run every launch of p in order. With `sync`, synchronise after each launch (correctness runs:
 * errors and hangs are pinned on one launch) and announce each with a phase event, and run the
 * whole sequence `calls` times when the problem binds `calls` (consecutive optimizer steps on the
 * same state); a timed call is always one sequence. */
/* Seconds allowed for host work on a problem's buffers: 30 s, plus 20 s per GiB. */
static double host_limit_s(const struct run *r, const struct problem *pb)
{
	double bytes = 0;
	int i;

	for (i = 0; i < pb->nbufs; i++)
		bytes += (double)pb->bufs[i].bytes;
	return r->launch_limit_s * 3 + 20.0 * bytes / (1 << 30);
}

/* ------------------------------------------------------------ host calls ---- */

/* Bind a set's buffers to the host candidate once; the handle lives as long as the set. */
enum kbx_status engine_host_bind(struct run *r, const struct dev_set *cs, const struct dev_set *ref,
				 const struct problem *pb, char *why, size_t whylen)
{
	struct dev_set *s = (struct dev_set *)cs;   /* the handle is a cache of the set's own */
	struct host_buffer *hb;
	struct host_binding b;
	int i, h;

	if (s->host_handle)
		return KBX_OK;
	hb = xcalloc((size_t)pb->nbufs + 1, sizeof(*hb));
	for (i = 0; i < pb->nbufs; i++) {
		const struct problem_buf *pbuf = &pb->bufs[i];
		const struct dev_buf *d = &s->args[pbuf->arg - r->t->args];

		hb[i].name = pbuf->arg->name;
		hb[i].dir = pbuf->arg->dir == ARG_IN ? "in" : pbuf->arg->dir == ARG_OUT ? "out" : "inout";
		hb[i].dtype = dtype_name(pbuf->arg->dtype);
		hb[i].shape = pbuf->shape;
		hb[i].ndim = pbuf->ndim;
		hb[i].ptr = (unsigned long long)d->ptr;
		hb[i].bytes = pbuf->bytes;
		if (ref && ref->args && pbuf->arg->dir != ARG_IN)
			hb[i].ref_ptr = (unsigned long long)ref->args[pbuf->arg - r->t->args].ptr;
	}
	b.stream = gpu_stream_handle(r->gpu);
	b.bufs = hb;
	b.nbufs = pb->nbufs;
	b.env = &pb->env;
	h = r->o->host->bind(r->o->host->ctx, &b, why, whylen);
	free(hb);
	if (h < 0)
		return kbx_error(KBX_EINVAL, "cannot hand the buffers to the candidate: %s", why);
	s->host_handle = h + 1;
	return KBX_OK;
}

/* The host candidate's "launches": one call of its entry function. A checked call (sync) gets
 * a phase of its own; the first one also compiles the candidate's kernels (Triton compiles at
 * the first call), so it gets the compile limit on top of the launch limit. */
static enum kbx_status host_launch(struct run *r, const struct dev_set *s, const struct problem *pb, int sync,
				   const char *label, char *why, size_t whylen)
{
	const struct host_candidate *h = r->o->host;
	enum kbx_status st;
	enum host_outcome out;
	double t0 = now_seconds();
	int line = 0;

	r->host_outcome = HOST_OK;
	st = engine_host_bind(r, s, NULL, pb, why, whylen);
	if (st) {
		r->host_outcome = HOST_FAILED;
		return st;
	}
	if (sync)
		engine_phase(r, r->launch_limit_s + (r->host_calls++ ? 0 : r->o->compile_limit_s),
			     "%s: candidate call", label);
	out = h->call(h->ctx, s->host_handle - 1, sync, why, whylen, &line);
	if (sync) {
		const char *log = h->last_log ? h->last_log(h->ctx) : NULL;

		if (log && *log)
			engine_log(r, "%s: %s", label, log);
	}
	if (out == HOST_OK && sync)
		st = gpu_sync(r->gpu);
	if (out != HOST_OK) {
		r->host_outcome = out;
		/* A CUDA error in the candidate may have lost the context: ask the driver. */
		if (gpu_sync(r->gpu) && gpu_is_sticky(r->gpu))
			r->sticky = 1;
		kbx_clear_error();
		return KBX_EINVAL;
	}
	if (st) {
		snprintf(why, whylen, "candidate call failed: %s", kbx_last_error());
		r->host_outcome = HOST_FAILED;
		if (gpu_is_sticky(r->gpu))
			r->sticky = 1;
		return st;
	}
	if (sync) {
		r->sum.split.launch_s += now_seconds() - t0;
		r->last_call_ms[0] = (now_seconds() - t0) * 1e3;
		engine_phase(r, host_limit_s(r, pb), "%s: candidate results", label);
	}
	return KBX_OK;
}

enum kbx_status engine_run_launches(struct run *r, const struct program *p, const struct dev_set *s,
				    const struct problem *pb, int sync, const char *label, char *why, size_t whylen)
{
	const struct expr_value *cv = sync ? expr_env_get(&pb->env, "calls") : NULL;
	long long calls = cv ? (cv->is_float ? (long long)cv->f : cv->i) : 1, call;
	struct expr_env env = { 0 };
	enum kbx_status st = KBX_OK;
	double t0 = now_seconds();
	int i, k;

	*why = '\0';
	if (p->host)
		return host_launch(r, s, pb, sync, label, why, whylen);
	for (i = 0; i < pb->env.n; i++)
		expr_env_set(&env, pb->env.names[i], pb->env.values[i]);
	expr_env_set_int(&env, "sms", r->info.sms);
	for (call = 0; call < calls && !st; call++) {
		for (i = 0; i < p->spec.nlaunches && !st; i++) {
			const struct launch *l = &p->spec.launches[i];
			unsigned grid[3], block[3], smem;
			union param vals[64];
			void *params[64];

			if (l->untimed && !sync)
				continue;  /* a check buffer of the reference's, never in a timed call */
			if (l->nargs > 64) {
				st = kbx_error(KBX_EINVAL, "%s line %d: more than 64 arguments", p->role, l->line);
				break;
			}
			for (k = 0; k < 3 && !st; k++)
				st = eval_dim(l->grid[k], &env, p->role, l, "grid", &grid[k]);
			for (k = 0; k < 3 && !st; k++)
				st = eval_dim(l->block[k], &env, p->role, l, "block", &block[k]);
			if (!st)
				st = eval_dim(l->smem, &env, p->role, l, "shared memory size", &smem);
			if (!st)
				st = marshal(r, p, l, s, &env, vals, params);
			if (st) {
				snprintf(why, whylen, "%s", kbx_last_error());
				break;
			}
			if (!grid[0] || !grid[1] || !grid[2])
				continue;  /* an empty grid has nothing to do (empty tensors) */
			if (smem > 48 * 1024)
				gpu_function_set_smem(r->gpu, p->fns[i], (int)smem);
			if (sync)
				engine_phase(r, r->launch_limit_s, "%s: %s launch %d '%s'", label, p->role, i + 1, l->kernel);
			st = gpu_launch(r->gpu, p->fns[i], l->kernel, grid, block, smem, params, l->cooperative);
			if (!st && sync)
				st = gpu_sync(r->gpu);
			if (st) {
				snprintf(why, whylen, "%s launch %d '%s' (line %d) failed: %s", p->role, i + 1, l->kernel, l->line,
					 kbx_last_error());
				if (gpu_is_sticky(r->gpu))
					r->sticky = 1;
			}
		}
	}
	expr_env_free(&env);
	/* one synchronised call's wall time: an upper bound of its GPU time, for bench_run's
	 * estimate (bench.h hint_ms) */
	if (sync)
		r->sum.split.launch_s += now_seconds() - t0;
	if (!st && sync && (p == &r->cand || p == &r->ref))
		r->last_call_ms[p == &r->ref] = (now_seconds() - t0) * 1e3 / (double)(calls > 0 ? calls : 1);
	/* What follows a synchronous run is host work (downloads, comparisons over every element,
	 * the next set's uploads): its own phase, with a limit that grows with the data, so that a
	 * launch's limit does not run out on a 2 GB comparison. */
	if (!st && sync)
		engine_phase(r, host_limit_s(r, pb), "%s: %s results", label, p->role);
	return st;
}

/* ------------------------------------------------------------------ inputs ---- */

void engine_host_free(void **h, int n)
{
	int i;

	if (!h)
		return;
	for (i = 0; i < n; i++)
		free(h[i]);
	free(h);
}

/* The host inputs of a problem. With `leave_to_device`, an input the GPU generator covers is
 * not drawn here: its entry stays NULL and engine_set_prepare draws it on the device (engine_perf_inputs). */
enum kbx_status engine_make_inputs(struct run *r, const struct problem *pb, const char *key_name, int leave_to_device,
				   void ***out)
{
	void **h = xcalloc((size_t)pb->nbufs + 1, sizeof(*h));
	enum kbx_status st = KBX_OK;
	double t0 = now_seconds();
	int i;

	for (i = 0; i < pb->nbufs && !st; i++) {
		const struct problem_buf *b = &pb->bufs[i];
		struct gen_spec g;

		if (b->arg->dir == ARG_OUT || !b->gen)
			continue;
		st = gen_parse(b->gen, &g);
		if (st) {
			kbx_wrap(st, "'%s': generator of '%s'", r->t->ini_path, b->arg->name);
			break;
		}
		if (!leave_to_device || !devgen_supports(&g, b->arg->dtype)) {
			h[i] = xmalloc(b->bytes ? b->bytes : 1);
			st = gen_fill(&g, b->arg->dtype, h[i], b->numel, b->shape, b->ndim,
				      gen_key(r->o->seed, r->t->id, key_name, b->arg->name));
		}
		gen_spec_free(&g);
	}
	r->sum.split.inputs_s += now_seconds() - t0;
	if (st) {
		engine_host_free(h, pb->nbufs);
		return st;
	}
	*out = h;
	return KBX_OK;
}

/* The GPU input generator, compiled (through the compile cache) and loaded on first use; NULL
 * when that fails, and perf rows then draw their inputs on the host as the cases do. */
static struct devgen *get_devgen(struct run *r)
{
	void *image = NULL;
	enum kbx_status st;

	if (r->devgen || r->devgen_failed || !r->gpu)
		return r->devgen;
	st = engine_compile_builtin(r, devgen_source(), "kbx_devgen.cu", &image);
	if (!st)
		st = devgen_open(r->gpu, image, &r->devgen);
	if (st) {
		r->devgen_failed = 1;
		engine_log(r, "perf inputs are drawn on the host: the GPU generator failed: %s", kbx_last_error());
	}
	free(image);
	return r->devgen;
}

/* A perf row's inputs: what the GPU generator covers is drawn on the device by engine_set_prepare (its
 * host entry stays NULL), the rest on the host. Tasks verified by a property or a distribution
 * read their inputs on the host, and get them all there. */
enum kbx_status engine_perf_inputs(struct run *r, struct case_ctx *c, const char *key_name)
{
	const struct task *t = r->t;
	int device = !(t->verifier && strcmp(t->verifier, "elementwise")) && get_devgen(r);
	enum kbx_status st = engine_make_inputs(r, &c->pb, key_name, device, &c->in);

	if (!st && device)
		snprintf(c->dev_key, sizeof(c->dev_key), "%s", key_name);
	else
		c->dev_key[0] = '\0';
	return st;
}

/* Draw input b on the device into d (check = 0), or tell whether d still holds it (*differs). */
enum kbx_status engine_device_fill(struct run *r, const struct case_ctx *c, const struct problem_buf *b,
				   const struct dev_buf *d, int check, int *differs)
{
	struct gen_spec g;
	enum kbx_status st;
	uint64_t key;
	double t0 = now_seconds();

	if (!c->dev_key[0] || !b->gen || !r->devgen)
		return kbx_error(KBX_EINVAL, "input '%s' has neither host data nor a GPU generator", b->arg->name);
	st = gen_parse(b->gen, &g);
	if (st)
		return st;
	key = gen_key(r->o->seed, r->t->id, c->dev_key, b->arg->name);
	if (check)
		st = devgen_check(r->devgen, &g, b->arg->dtype, d->ptr, b->numel, b->shape, b->ndim, key, differs);
	else if (!(st = devgen_fill(r->devgen, &g, b->arg->dtype, d->ptr, b->numel, b->shape, b->ndim, key)))
		st = gpu_sync(r->gpu);
	gen_spec_free(&g);
	/* drawing is input generation; the check is part of verifying (the split's remainder) */
	if (!check)
		r->sum.split.inputs_s += now_seconds() - t0;
	return st;
}

/* Download every out/inout buffer of a set into new host arrays. */
enum kbx_status engine_fetch_outputs(struct run *r, const struct dev_set *s, const struct problem *pb, void ***out)
{
	void **h = xcalloc((size_t)pb->nbufs + 1, sizeof(*h));
	enum kbx_status st = KBX_OK;
	double t0 = now_seconds();
	int i;

	for (i = 0; i < pb->nbufs && !st; i++) {
		const struct problem_buf *b = &pb->bufs[i];

		if (b->arg->dir == ARG_IN)
			continue;
		h[i] = xmalloc(b->bytes ? b->bytes : 1);
		if (b->bytes)
			st = gpu_download(r->gpu, h[i], s->args[b->arg - r->t->args].ptr, b->bytes);
	}
	r->sum.split.transfer_s += now_seconds() - t0;
	*out = h;
	return st;
}

/* The reverse: host arrays (as engine_fetch_outputs gives) into every out/inout buffer of a set. */
enum kbx_status engine_upload_outputs(struct run *r, const struct dev_set *s, const struct problem *pb,
				      void *const *host)
{
	enum kbx_status st = KBX_OK;
	double t0 = now_seconds();
	int i;

	for (i = 0; i < pb->nbufs && !st; i++) {
		const struct problem_buf *b = &pb->bufs[i];

		if (b->arg->dir != ARG_IN && b->bytes)
			st = gpu_upload(r->gpu, s->args[b->arg - r->t->args].ptr, host[i], b->bytes);
	}
	r->sum.split.transfer_s += now_seconds() - t0;
	return st;
}
