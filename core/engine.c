/*
 * The run engine. Its structure follows DESIGN.md "Running a candidate": see engine.h.
 *
 * Two "programs" (candidate, reference) are compiled and bound to their launch lines. Each
 * problem (a case or a perf row) gets host inputs, and each program gets its own device
 * buffers ("sets"): nothing the candidate does can touch the reference's data.
 */
#include "engine.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "derive.h"
#include "abi.h"
#include "ceiling.h"
#include "devgen.h"
#include "golden.h"
#include "cubin.h"
#include "gpu.h"
#include "inputs.h"
#include "launch.h"
#include "npy.h"
#include "nvml.h"
#include "rules.h"
#include "nvrtc.h"
#include "problem.h"
#include "stats.h"
#include "triton.h"
#include "util.h"
#include "verify.h"

#define GUARD_BYTES (64 * 1024)
#define GUARD_BYTE 0xCB
#define POISON_INT 0xA5
#define POISON_FLOAT 0xFF   /* all-ones is a NaN in f16, bf16, f32 and f64 */
#define FLUSH_MIN_BYTES (256u << 20)
/* Timed calls rotate among this many complete buffer sets (different inputs, own outputs and
 * scratch), where device memory allows: see timing_sets_open. */
#define TIMING_SETS 3
/* Device memory left free when adding timing sets: the larger of 1 GiB and this share. */
#define TIMING_RESERVE_SHARE 0.05

void engine_options_default(struct engine_options *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 0;
	bench_options_default(&o->bench);
	o->launch_limit_s = 10;
	o->compile_limit_s = 60;
}

struct program {
	const char *role;           /* "candidate" or "reference" */
	struct kernel_spec spec;
	struct gpu_module *mod;
	gpu_function *fns;
	int host;                   /* the candidate runs in r->o->host (engine.h), no launches */
};

struct dev_buf {
	gpu_ptr base, ptr;
	size_t bytes;
};

/* Device buffers of one program for one problem: one per task buffer arg, one per scratch. */
struct dev_set {
	struct dev_buf *args;       /* indexed like task->args; unused for scalars */
	struct dev_buf *scratch;    /* indexed like program->spec.scratch */
	size_t *scratch_bytes;
	int nscratch;
	int host_handle;            /* the host's handle for these buffers + 1; 0 = not bound */
};

struct run {
	const struct task *t;
	const struct engine_options *o;
	const struct run_events *ev;
	struct gpu *gpu;
	struct gpu_info info;
	struct program cand, ref;
	struct program stages;      /* the task's stage program ([task] stages), once loaded */
	int stages_state;           /* 0: not tried yet, 1: loaded, -1: could not be loaded */
	int stages_said;            /* the log line that names the stage program was written */
	struct run_summary sum;
	int sticky;
	char *missing_evidence;     /* required evidence rules the candidate lacks, or NULL */
	gpu_ptr flush;
	size_t flush_bytes;
	double t0;
	int ref_is_cand;            /* the candidate compiled to the reference's image: time it once */
	struct nvml *nvml;          /* clock readings around each timing, or NULL */
	double last_call_ms[2];     /* the latest synchronised call of the candidate [0], reference [1] */
	double launch_limit_s;      /* the options', or the task's when it asks for more */
	const struct compile_cache *cache;
	struct devgen *devgen;      /* the GPU input generator (perf rows), once loaded */
	int devgen_failed;          /* it could not be built: perf rows draw on the host */
	enum host_outcome host_outcome; /* how the host candidate's last call ended */
	int host_calls;             /* checked calls so far (the first compiles its kernels) */
	int host_skipped;           /* cases the host candidate could not be checked on */
	struct ceiling ceiling;     /* the timing ceilings of this task on this device (perf rows) */
	int sets_said;              /* the number of timing sets last named in the log (0: none yet) */
	struct cubin_global *globals; /* the candidate image's mutable device globals (cubin.h) */
	int nglobals;
	int *global_lines;          /* where the source names each one, 0 when it does not */
};

/* ---------------------------------------------------------------- events ---- */

static void emit_phase(struct run *r, double limit, const char *fmt, ...) KBX_PRINTF(3, 4);

static void emit_phase(struct run *r, double limit, const char *fmt, ...)
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

static void emit_log(struct run *r, const char *fmt, ...) KBX_PRINTF(2, 3);

static void emit_log(struct run *r, const char *fmt, ...)
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

static void finish(struct run *r, enum verdict v, const char *fmt, ...) KBX_PRINTF(3, 4);

static void finish(struct run *r, enum verdict v, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (v == V_PASS && r->missing_evidence) {
		v = V_WRONG;
		snprintf(msg, sizeof(msg), "outputs match, but the source shows no evidence that it does what the task "
			 "requires: missing %s", r->missing_evidence);
	}
	r->sum.verdict = v;
	r->sum.seconds = now_seconds() - r->t0;
	r->sum.split.verify_s = r->sum.seconds - r->sum.split.compile_s - r->sum.split.inputs_s - r->sum.split.timing_s;
	if (r->sum.split.verify_s < 0)
		r->sum.split.verify_s = 0;
	free(r->sum.message);
	r->sum.message = xstrdup(msg);
	if (r->ev->done)
		r->ev->done(r->ev->ctx, &r->sum);
}

/* --------------------------------------------------------------- compile ---- */

static int device_arch(const struct run *r)
{
	return r->gpu ? r->info.cc_major * 10 + r->info.cc_minor : 90;
}

/* NVRTC through the compile cache, keyed by the options, NVRTC's version, the architecture and
 * the source. `before` (may be NULL) is called just before NVRTC runs, on a cache miss. */
static enum kbx_status compile_cached(const char *src, const char *name, int arch, const char *tasks_root,
				      const struct compile_cache *cache, void (*before)(void *ctx, const char *name),
				      void *before_ctx, struct compile_result *cr, void **image, size_t *image_size)
{
	char kbx_include[4096], key[65];
	char *options, *keysrc;
	struct nvrtc_output out;
	double t0 = now_seconds();
	enum kbx_status st;
	int i;

	snprintf(kbx_include, sizeof(kbx_include), "%s/include", tasks_root);
	options = nvrtc_options_string(arch, nvrtc_cuda_include(), kbx_include);
	keysrc = xasprintf("%s\n--\n%s\n--\nsm_%d\n--\n%s", options, nvrtc_version(), arch, src);
	sha256_hex(keysrc, strlen(keysrc), key);
	free(keysrc);

	memset(cr, 0, sizeof(*cr));
	cr->options = options;
	snprintf(cr->arch, sizeof(cr->arch), "sm_%d", arch);
	*image = NULL;
	if (cache && cache->get && !cache->get(cache->ctx, key, image, image_size, &cr->log)) {
		cr->ok = 1;
		cr->cached = 1;
		cr->seconds = now_seconds() - t0;
		if (!cr->log)
			cr->log = xstrdup("");
		return KBX_OK;
	}
	if (before)
		before(before_ctx, name);
	st = nvrtc_compile(src, name, arch, nvrtc_cuda_include(), kbx_include, &out);
	if (st)
		return st;
	cr->ok = out.ok;
	cr->seconds = now_seconds() - t0;
	cr->log = out.log ? xstrdup(out.log) : xstrdup("");
	cr->diags = xcalloc((size_t)out.ndiags + 1, sizeof(*cr->diags));
	for (i = 0; i < out.ndiags; i++) {
		cr->diags[i].line = out.diags[i].line;
		cr->diags[i].col = out.diags[i].col;
		snprintf(cr->diags[i].severity, sizeof(cr->diags[i].severity), "%s",
			 out.diags[i].severity ? out.diags[i].severity : "error");
		cr->diags[i].message = xstrdup(out.diags[i].message ? out.diags[i].message : "");
	}
	cr->ndiags = out.ndiags;
	if (out.ok) {
		*image = out.cubin;
		*image_size = out.cubin_size;
		out.cubin = NULL;
		if (cache && cache->put)
			cache->put(cache->ctx, key, cr->arch, options, *image, *image_size, cr->log);
	}
	nvrtc_output_free(&out);
	return KBX_OK;
}

static void compile_phase(void *ctx, const char *name)
{
	struct run *r = ctx;

	emit_phase(r, r->o->compile_limit_s, "compile %s", name);
}

static enum kbx_status compile_source(struct run *r, const char *src, const char *name,
				      const struct compile_cache *cache, struct compile_result *cr,
				      void **image, size_t *image_size)
{
	return compile_cached(src, name, device_arch(r), r->o->tasks_root, cache, compile_phase, r, cr, image,
			      image_size);
}

enum kbx_status engine_precompile(const char *src, const char *name, int arch, const char *tasks_root,
				  const struct compile_cache *cache)
{
	struct compile_result cr;
	void *image = NULL;
	size_t size = 0;
	enum kbx_status st = compile_cached(src, name, arch, tasks_root, cache, NULL, NULL, &cr, &image, &size);

	free(image);
	compile_result_free(&cr);
	return st;
}

static void add_diag(struct compile_result *cr, int line, int col, const char *msg)
{
	struct compile_diag *d;

	cr->diags = xrealloc(cr->diags, ((size_t)cr->ndiags + 1) * sizeof(*cr->diags));
	d = &cr->diags[cr->ndiags++];
	memset(d, 0, sizeof(*d));
	d->line = line;
	d->col = col;
	snprintf(d->severity, sizeof(d->severity), "error");
	d->message = xstrdup(msg);
}

/* Names in launch lines must be task args or scratch buffers of the same source. */
static int check_launch_names(const struct task *t, const struct kernel_spec *spec, char *why, size_t whylen,
			      int *line, int *col)
{
	int i, j, k;

	for (i = 0; i < spec->nlaunches; i++) {
		const struct launch *l = &spec->launches[i];

		for (j = 0; j < l->nargs; j++) {
			const char *n = l->args[j].name;
			int found = 0;

			if (!n)
				continue;
			found = task_find_arg(t, n) != NULL;
			for (k = 0; !found && k < spec->nscratch; k++)
				found = !strcmp(spec->scratch[k].name, n);
			if (!found) {
				snprintf(why, whylen, "launch of '%s': unknown argument '%s' (not a task argument or scratch buffer)",
					 l->kernel, n);
				*line = l->line;
				*col = l->args[j].col;
				return -1;
			}
		}
	}
	return 0;
}

/* Load the module and check each kernel's parameters against its launch line (abi.h). Returns a
 * verdict-worthy message in `why` (abi_error) or a kbx error. */
static enum kbx_status bind_program(struct run *r, struct program *p, const void *image, char *why, size_t whylen)
{
	enum kbx_status st;
	int i;

	*why = '\0';
	st = gpu_module_load(r->gpu, image, &p->mod);
	if (st) {
		snprintf(why, whylen, "cannot load the %s module: %s", p->role, kbx_last_error());
		return st;
	}
	p->fns = xcalloc((size_t)p->spec.nlaunches + 1, sizeof(*p->fns));
	for (i = 0; i < p->spec.nlaunches; i++) {
		const struct launch *l = &p->spec.launches[i];
		size_t sizes[64];
		int count = 0;

		if (gpu_module_function(r->gpu, p->mod, l->kernel, &p->fns[i])) {
			abi_no_kernel(l, why, whylen);
			return KBX_OK;
		}
		st = gpu_function_params(r->gpu, p->fns[i], &count, sizes, 64);
		if (st == KBX_ENOTFOUND)
			continue;  /* driver without cuFuncGetParamInfo: no ABI check */
		if (st)
			return st;
		if (abi_launch_mismatch(r->t, l, count, sizes, why, whylen))
			return KBX_OK;
	}
	return KBX_OK;
}

static void program_free(struct run *r, struct program *p)
{
	if (p->mod && r->gpu)
		gpu_module_unload(r->gpu, p->mod);
	free(p->fns);
	kernel_spec_free(&p->spec);
	memset(p, 0, sizeof(*p));
}

/* ----------------------------------------------------------------- buffers ---- */

/* Guard zones around every buffer catch writes past its ends. Under compute-sanitizer there are
 * none: the sanitizer knows each allocation's exact size and reports reads past the ends too,
 * which a guard zone would hide as valid memory. */
static size_t guard_bytes(const struct run *r)
{
	return r->o->sanitize ? 0 : GUARD_BYTES;
}

static enum kbx_status buf_alloc(struct run *r, struct dev_buf *b, size_t bytes)
{
	size_t g = guard_bytes(r);
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
static int buf_guard_check(struct run *r, const struct dev_buf *b, enum kbx_status *st)
{
	size_t g = guard_bytes(r), i;
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

static unsigned char poison_byte(enum dtype dt)
{
	return dtype_is_float(dt) ? POISON_FLOAT : POISON_INT;
}

static void set_free(struct run *r, struct dev_set *s, const struct task *t)
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

static enum kbx_status set_alloc(struct run *r, struct dev_set *s, const struct problem *pb,
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
/* One problem (a case or a perf row) in flight: its inputs, the reference's outputs, and the
 * two programs' device buffers. */
struct case_ctx {
	struct tolerance tol;   /* the task's, with a derived case's atol scale */
	struct problem pb;
	void **in;          /* host inputs; NULL entries are drawn on the device (dev_key) */
	void **ref_out;     /* reference outputs */
	struct dev_set rs, cs;
	char dev_key[48];   /* perf rows: the key name of the inputs drawn on the GPU; "" for none */
};

static enum kbx_status device_fill(struct run *r, const struct case_ctx *c, const struct problem_buf *b,
				   const struct dev_buf *d, int check, int *differs);

static enum kbx_status set_prepare(struct run *r, struct dev_set *s, const struct case_ctx *c,
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
			st = gpu_memset8(r->gpu, d->ptr, poison ? poison_byte(b->arg->dtype) : 0, d->bytes);
		else if (d->bytes && c->in[i])
			st = gpu_upload(r->gpu, d->ptr, c->in[i], d->bytes);
		else if (d->bytes)
			st = device_fill(r, c, b, d, 0, NULL);
	}
	for (i = 0; i < s->nscratch && !st; i++)
		st = gpu_memset8(r->gpu, s->scratch[i].ptr, poison ? poison_byte(p->spec.scratch[i].dtype) : 0,
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
static enum kbx_status host_bind(struct run *r, const struct dev_set *cs, const struct dev_set *ref,
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
	st = host_bind(r, s, NULL, pb, why, whylen);
	if (st) {
		r->host_outcome = HOST_FAILED;
		return st;
	}
	if (sync)
		emit_phase(r, r->launch_limit_s + (r->host_calls++ ? 0 : r->o->compile_limit_s),
			   "%s: candidate call", label);
	out = h->call(h->ctx, s->host_handle - 1, sync, why, whylen, &line);
	if (sync) {
		const char *log = h->last_log ? h->last_log(h->ctx) : NULL;

		if (log && *log)
			emit_log(r, "%s: %s", label, log);
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
		emit_phase(r, host_limit_s(r, pb), "%s: candidate results", label);
	}
	return KBX_OK;
}

static enum kbx_status run_launches(struct run *r, const struct program *p, const struct dev_set *s,
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
				emit_phase(r, r->launch_limit_s, "%s: %s launch %d '%s'", label, p->role, i + 1, l->kernel);
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
		emit_phase(r, host_limit_s(r, pb), "%s: %s results", label, p->role);
	return st;
}

/* ------------------------------------------------------------------ inputs ---- */

static void host_free(void **h, int n)
{
	int i;

	if (!h)
		return;
	for (i = 0; i < n; i++)
		free(h[i]);
	free(h);
}

/* The host inputs of a problem. With `leave_to_device`, an input the GPU generator covers is
 * not drawn here: its entry stays NULL and set_prepare draws it on the device (perf_inputs). */
static enum kbx_status make_inputs(struct run *r, const struct problem *pb, const char *key_name, int leave_to_device,
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
		host_free(h, pb->nbufs);
		return st;
	}
	*out = h;
	return KBX_OK;
}

/* The GPU input generator, compiled (through the compile cache) and loaded on first use; NULL
 * when that fails, and perf rows then draw their inputs on the host as the cases do. */
static struct devgen *get_devgen(struct run *r)
{
	struct compile_result cr;
	void *image = NULL;
	size_t size = 0;
	enum kbx_status st;

	if (r->devgen || r->devgen_failed || !r->gpu)
		return r->devgen;
	st = compile_source(r, devgen_source(), "kbx_devgen.cu", r->cache, &cr, &image, &size);
	if (!st && !cr.ok)
		st = kbx_error(KBX_ENVRTC, "%s", cr.log ? cr.log : "does not compile");
	if (!st)
		st = devgen_open(r->gpu, image, &r->devgen);
	if (st) {
		r->devgen_failed = 1;
		emit_log(r, "perf inputs are drawn on the host: the GPU generator failed: %s", kbx_last_error());
	}
	compile_result_free(&cr);
	free(image);
	return r->devgen;
}

/* A perf row's inputs: what the GPU generator covers is drawn on the device by set_prepare (its
 * host entry stays NULL), the rest on the host. Tasks verified by a property or a distribution
 * read their inputs on the host, and get them all there. */
static enum kbx_status perf_inputs(struct run *r, struct case_ctx *c, const char *key_name)
{
	const struct task *t = r->t;
	int device = !(t->verifier && strcmp(t->verifier, "elementwise")) && get_devgen(r);
	enum kbx_status st = make_inputs(r, &c->pb, key_name, device, &c->in);

	if (!st && device)
		snprintf(c->dev_key, sizeof(c->dev_key), "%s", key_name);
	else
		c->dev_key[0] = '\0';
	return st;
}

/* Draw input b on the device into d (check = 0), or tell whether d still holds it (*differs). */
static enum kbx_status device_fill(struct run *r, const struct case_ctx *c, const struct problem_buf *b,
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
		st = devgen_check(r->devgen, &g, b->arg->dtype, d->ptr, b->numel, key, differs);
	else if (!(st = devgen_fill(r->devgen, &g, b->arg->dtype, d->ptr, b->numel, key)))
		st = gpu_sync(r->gpu);
	gen_spec_free(&g);
	/* drawing is input generation; the check is part of verifying (the split's remainder) */
	if (!check)
		r->sum.split.inputs_s += now_seconds() - t0;
	return st;
}

/* Download every out/inout buffer of a set into new host arrays. */
static enum kbx_status fetch_outputs(struct run *r, const struct dev_set *s, const struct problem *pb, void ***out)
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
	struct unwritten_job j = { cand, ref, dtype_size(b->arg->dtype), poison_byte(b->arg->dtype), 0 };

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

/* Compare the scratch buffers the candidate shares (by name, dtype and size) with another
 * program's (the reference's or the stage program's), in that program's order: the first that
 * differs is the first wrong stage. *shared says whether any buffer was shared at all. */
static enum kbx_status diff_stages(struct run *r, const struct program *p, const struct dev_set *ps,
				   const struct dev_set *cs, const struct tolerance *tol, char *out, size_t outlen,
				   int *shared)
{
	enum kbx_status st = KBX_OK;
	int i, j;

	*out = '\0';
	*shared = 0;
	for (i = 0; i < p->spec.nscratch && !st && !*out; i++) {
		const struct scratch_decl *rd = &p->spec.scratch[i];

		for (j = 0; j < r->cand.spec.nscratch; j++) {
			const struct scratch_decl *cd = &r->cand.spec.scratch[j];
			struct cmp_result cmp;
			long long shape[1];
			void *a, *b;

			if (strcmp(rd->name, cd->name) || rd->dtype != cd->dtype ||
			    ps->scratch_bytes[i] != cs->scratch_bytes[j] || !ps->scratch_bytes[i])
				continue;
			*shared = 1;
			a = xmalloc(cs->scratch_bytes[j]);
			b = xmalloc(ps->scratch_bytes[i]);
			st = gpu_download(r->gpu, a, cs->scratch[j].ptr, cs->scratch_bytes[j]);
			if (!st)
				st = gpu_download(r->gpu, b, ps->scratch[i].ptr, ps->scratch_bytes[i]);
			shape[0] = (long long)(ps->scratch_bytes[i] / dtype_size(rd->dtype));
			if (!st) {
				compare_buffers(rd->dtype, a, b, shape, 1, tol, &cmp);
				if (!cmp.pass)
					snprintf(out, outlen, "%s", rd->name);
			}
			free(a);
			free(b);
			break;
		}
	}
	return st;
}

static enum kbx_status prepare_program(struct run *r, struct program *p, const char *src, const char *name,
				       const struct compile_cache *cache, struct compile_result *cr, void **image,
				       size_t *image_size);

/* The task's stage program ([task] stages): a staged implementation, one of its examples, kept
 * for the stage diff when the reference is fused and keeps no stage buffers. Compiled (through
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
		st = prepare_program(r, &r->stages, src, r->t->stages_path, r->cache, &cr, &image, &size);
	if (!st && !cr.ok)
		snprintf(why, sizeof(why), "does not compile: %s", cr.ndiags ? cr.diags[0].message : "see its log");
	if (!st && !*why)
		st = bind_program(r, &r->stages, image, why, sizeof(why));
	if (st)
		snprintf(why, sizeof(why), "%s", kbx_last_error());
	if (*why)
		emit_log(r, "no stage diff: the stage program %s %s", r->t->stages_path, why);
	else
		r->stages_state = 1;
	compile_result_free(&cr);
	free(image);
	free(src);
	return r->stages_state > 0 ? &r->stages : NULL;
}

/* The first stage where the candidate goes wrong, by its scratch buffers: against the reference's
 * when it shares any with the candidate, else against the task's stage program, run here on the
 * same inputs. "" when no stage differs or none can be compared. */
static enum kbx_status first_wrong_stage(struct run *r, const struct case_ctx *c, char *out, size_t outlen)
{
	const struct program *p;
	struct dev_set ss;
	enum kbx_status st;
	char why[1024];
	int shared;

	st = diff_stages(r, &r->ref, &c->rs, &c->cs, &c->tol, out, outlen, &shared);
	if (st || shared || !r->cand.spec.nscratch || !(p = stage_program(r)))
		return st;
	*why = '\0';
	st = set_alloc(r, &ss, &c->pb, p);
	if (!st)
		st = set_prepare(r, &ss, c, p, 0);
	if (!st && !(st = run_launches(r, p, &ss, &c->pb, 1, "stage diff", why, sizeof(why))))
		st = diff_stages(r, p, &ss, &c->cs, &c->tol, out, outlen, &shared);
	set_free(r, &ss, r->t);
	/* once a run: stages named this way were compared with the stage program, not the reference */
	if (!st && *out && !r->stages_said) {
		r->stages_said = 1;
		emit_log(r, "first wrong stages are found against the task's stage program %s (its fused "
			 "reference keeps no stage buffers)", r->t->stages_path);
	}
	/* A stage program that cannot run leaves the stage unnamed (the verdict stands without it);
	 * a sticky GPU error is the run's own and goes up. */
	if (st && !r->sticky) {
		emit_log(r, "no stage diff: %s", *why ? why : kbx_last_error());
		*out = '\0';
		st = KBX_OK;
	}
	return st;
}

static void case_ctx_free(struct run *r, struct case_ctx *c)
{
	host_free(c->in, c->pb.nbufs);
	host_free(c->ref_out, c->pb.nbufs);
	if (r->gpu) {
		set_free(r, &c->rs, r->t);
		set_free(r, &c->cs, r->t);
	}
	problem_free(&c->pb);
	memset(c, 0, sizeof(*c));
}

/* Inputs, the reference's outputs, and allocated candidate buffers for one problem. */
static enum kbx_status case_setup(struct run *r, struct case_ctx *c, const char *key_name, const char *label,
				  int perf)
{
	enum kbx_status st;
	char why[1024];

	st = perf ? perf_inputs(r, c, key_name) : make_inputs(r, &c->pb, key_name, 0, &c->in);
	if (!st)
		st = set_alloc(r, &c->rs, &c->pb, &r->ref);
	if (!st)
		st = set_prepare(r, &c->rs, c, &r->ref, 0);
	if (!st) {
		st = run_launches(r, &r->ref, &c->rs, &c->pb, 1, label, why, sizeof(why));
		if (st)
			return kbx_error(st, "the reference failed on %s: %s", label, why);
	}
	if (!st)
		st = fetch_outputs(r, &c->rs, &c->pb, &c->ref_out);
	if (!st)
		st = set_alloc(r, &c->cs, &c->pb, &r->cand);
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

static enum kbx_status quant_lens(struct run *r, const struct case_ctx *c, const struct problem_buf *b,
				  const void *cand, const void *ref, struct quant_result *out)
{
	const struct quant_spec *spec = r->t->quant;
	struct quant_scale scales[QUANT_MAX_FACTORS];
	double *bufs[QUANT_MAX_FACTORS] = { NULL }, *cv = NULL, *rv = NULL, *step = NULL;
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
			emit_log(r, "no quantization lens: the reference keeps no scratch buffer '%s'", name);
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
		emit_log(r, "no quantization lens: %s", kbx_last_error());
		goto done;
	}
	cv = xcalloc(b->numel, sizeof(double));
	rv = xcalloc(b->numel, sizeof(double));
	for (size_t e = 0; e < b->numel; e++) {
		cv[e] = dtype_get(b->arg->dtype, cand, e, 0);
		rv[e] = dtype_get(b->arg->dtype, ref, e, 0);
	}
	quant_analyse(spec, cv, rv, step, shape, b->ndim, out);
done:
	for (k = 0; k < nscales; k++)
		free(bufs[k]);
	free(step);
	free(cv);
	free(rv);
	return st;
}

static enum kbx_status judge_candidate(struct run *r, struct case_ctx *c, const char *label, struct case_result *cr,
				       void ***cand_out_ret)
{
	const struct task *t = r->t;
	enum kbx_status st;
	char why[1024];
	void **cand_out = NULL;
	struct sbuf msg = SBUF_INIT;
	int i, nout = 0, property = t->verifier && !strcmp(t->verifier, "property");

	cr->verdict = V_PASS;
	st = set_prepare(r, &c->cs, c, &r->cand, 1);
	if (st)
		return st;
	/* a host candidate sees the reference's outputs too: its autotuned kernels are judged by
	 * the config farthest from them (pyhost.h) */
	if (r->cand.host && (st = host_bind(r, &c->cs, &c->rs, &c->pb, why, sizeof(why))) != KBX_OK)
		return st;
	st = run_launches(r, &r->cand, &c->cs, &c->pb, 1, label, why, sizeof(why));
	if (st && r->cand.host && r->host_outcome == HOST_SKIP) {
		/* not checkable for this candidate (its random draws are PyTorch's): not run, not
		 * wrong; run_and_fold and the perf rows count it apart */
		cr->verdict = V_NOT_RUN;
		cr->message = xasprintf("not checked for a Python candidate: %s", why);
		return KBX_OK;
	}
	if (st) {
		cr->verdict = host_verdict(r);
		cr->message = xstrdup(why);
		return KBX_OK;
	}
	if ((st = globals_kept_state(r, &msg))) {
		sbuf_release(&msg);
		return st;
	}
	/* Out-of-bounds writes and modified inputs. */
	for (i = 0; i < c->pb.nbufs; i++) {
		const struct problem_buf *b = &c->pb.bufs[i];
		const struct dev_buf *d = &c->cs.args[b->arg - t->args];
		int side = buf_guard_check(r, d, &st);

		if (st)
			return st;
		if (side && !cr->oob_arg[0]) {
			snprintf(cr->oob_arg, sizeof(cr->oob_arg), "%s", b->arg->name);
			sbuf_addf(&msg, "%swrote outside buffer '%s' (guard zone %s it modified)", msg.len ? "; " : "",
				  b->arg->name, side == 1 ? "before the start" : "past the end");
		}
		if (b->arg->dir == ARG_IN && b->bytes && !c->in[i]) {
			int differs = 0;

			st = device_fill(r, c, b, d, 1, &differs);
			if (st)
				return st;
			if (differs && !cr->modified_arg[0]) {
				snprintf(cr->modified_arg, sizeof(cr->modified_arg), "%s", b->arg->name);
				sbuf_addf(&msg, "%smodified input '%s'", msg.len ? "; " : "", b->arg->name);
			}
		} else if (b->arg->dir == ARG_IN && b->bytes) {
			void *now = xmalloc(b->bytes);
			double t0 = now_seconds();

			st = gpu_download(r->gpu, now, d->ptr, b->bytes);
			r->sum.split.transfer_s += now_seconds() - t0;
			if (!st && memcmp(now, c->in[i], b->bytes) && !cr->modified_arg[0]) {
				snprintf(cr->modified_arg, sizeof(cr->modified_arg), "%s", b->arg->name);
				sbuf_addf(&msg, "%smodified input '%s'", msg.len ? "; " : "", b->arg->name);
			}
			free(now);
			if (st)
				return st;
		}
	}
	for (i = 0; i < c->cs.nscratch; i++) {
		int side = buf_guard_check(r, &c->cs.scratch[i], &st);

		if (st)
			return st;
		if (side && !cr->oob_arg[0]) {
			snprintf(cr->oob_arg, sizeof(cr->oob_arg), "%s", r->cand.spec.scratch[i].name);
			sbuf_addf(&msg, "%swrote outside scratch '%s'", msg.len ? "; " : "", r->cand.spec.scratch[i].name);
		}
	}
	st = fetch_outputs(r, &c->cs, &c->pb, &cand_out);
	if (st) {
		host_free(cand_out, c->pb.nbufs);
		return st;
	}
	for (i = 0; i < c->pb.nbufs; i++)
		nout += c->pb.bufs[i].arg->dir != ARG_IN;
	cr->outputs = xcalloc((size_t)nout + 1, sizeof(*cr->outputs));
	for (i = 0; i < c->pb.nbufs; i++) {
		const struct problem_buf *b = &c->pb.bufs[i];
		struct output_result *o;
		size_t unwritten;

		if (b->arg->dir == ARG_IN)
			continue;
		o = &cr->outputs[cr->noutputs++];
		snprintf(o->arg, sizeof(o->arg), "%s", b->arg->name);
		unwritten = count_unwritten(b, cand_out[i], c->ref_out[i]);
		if (property) {
			/* Judged as a whole below; only unwritten elements are reported per output. */
			o->cmp.n = b->numel;
			o->cmp.pass = !unwritten;
			o->cmp.cosine = o->cmp.l1_relative = o->cmp.rmse = -1;
			if (unwritten)
				sbuf_addf(&msg, "%sleft %zu of %zu elements of '%s' unwritten", msg.len ? "; " : "", unwritten,
					  b->numel, b->arg->name);
			continue;
		}
		compare_buffers(b->arg->dtype, cand_out[i], c->ref_out[i], b->shape, b->ndim, &c->tol, &o->cmp);
		st = quant_lens(r, c, b, cand_out[i], c->ref_out[i], &o->quant);
		if (st) {
			host_free(cand_out, c->pb.nbufs);
			sbuf_release(&msg);
			return st;
		}
		if (o->cmp.pass)
			continue;
		if (unwritten)
			sbuf_addf(&msg, "%sleft %zu of %zu elements of '%s' unwritten", msg.len ? "; " : "", unwritten,
				  b->numel, b->arg->name);
		else {
			char at[160] = "", note[256];

			/* the figures cover finite pairs only: a NaN they left out is named with them */
			compare_nonfinite_note(&o->cmp, note, sizeof(note));
			if (t->tol.metric)
				sbuf_addf(&msg, "%soutput '%s' misses its metric thresholds (cosine %.4g, l1_relative %.3g, "
					  "rmse %.3g%s%s)", msg.len ? "; " : "", b->arg->name, o->cmp.cosine,
					  o->cmp.l1_relative, o->cmp.rmse, note[0] ? "; " : "", note);
			else {
				if (o->cmp.nworst)
					describe_elem(at, sizeof(at), &o->cmp.worst[0]);
				sbuf_addf(&msg, "%soutput '%s': %zu of %zu elements differ (max abs %.3g, worst at %s%s%s)",
					  msg.len ? "; " : "", b->arg->name, o->cmp.mismatches, o->cmp.n,
					  o->cmp.max_abs, at, note[0] ? "; " : "", note);
			}
		}
	}
	if (property) {
		struct verify_result vr;

		st = verify_property(t, &c->pb, c->in, cand_out, c->ref_out, &vr);
		if (st) {
			host_free(cand_out, c->pb.nbufs);
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
		if (any_output_wrong) {
			st = first_wrong_stage(r, c, cr->first_wrong_stage, sizeof(cr->first_wrong_stage));
			if (st) {
				host_free(cand_out, c->pb.nbufs);
				return st;
			}
		}
	}
	sbuf_release(&msg);
	if (cand_out_ret)
		*cand_out_ret = cand_out;
	else
		host_free(cand_out, c->pb.nbufs);
	return KBX_OK;
}

static int t_is_property(const struct task *t)
{
	return t->verifier && !strcmp(t->verifier, "property");
}

/* Second run on the same inputs must give the same bits. */
static enum kbx_status check_determinism(struct run *r, struct case_ctx *c, void **first, const char *label,
					 struct case_result *cr)
{
	enum kbx_status st;
	void **second = NULL;
	char why[1024];
	int i;

	st = set_prepare(r, &c->cs, c, &r->cand, 1);
	if (st)
		return st;
	st = run_launches(r, &r->cand, &c->cs, &c->pb, 1, label, why, sizeof(why));
	if (st) {
		cr->verdict = V_RUNTIME_ERROR;
		cr->message = xasprintf("second run: %s", why);
		return KBX_OK;
	}
	st = fetch_outputs(r, &c->cs, &c->pb, &second);
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
		if (t_is_property(r->t))
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
	host_free(second, c->pb.nbufs);
	return st;
}

/* ---------------------------------------------------- distribution verifier ---- */

#define KS_MAX_SAMPLES ((size_t)1 << 22)

static double z_limit(void)
{
	return 4.8916;  /* two-sided normal quantile at 1e-6 */
}

static enum kbx_status verify_distribution(struct run *r, struct case_ctx *c, const char *label, struct case_result *cr)
{
	const struct task *t = r->t;
	const char *out_name = binding_get(t->verifier_params, t->nverifier_params, "output");
	const char *law = binding_get(t->verifier_params, t->nverifier_params, "law");
	const char *seed_arg = binding_get(t->verifier_params, t->nverifier_params, "seed_arg");
	void **a = NULL, **b = NULL, **d = NULL;
	const struct problem_buf *ob = NULL;
	enum kbx_status st;
	char why[1024];
	int i, oi = -1;

	cr->verdict = V_PASS;
	for (i = 0; i < c->pb.nbufs; i++)
		if (out_name && !strcmp(c->pb.bufs[i].arg->name, out_name))
			oi = i, ob = &c->pb.bufs[i];
	if (!ob || !law || strcmp(law, "uniform01"))
		return kbx_error(KBX_EINVAL, "'%s': [verifier] needs output = <out buffer> and law = uniform01", t->ini_path);

	/* Run twice with the case's seed, once with another. */
	for (i = 0; i < 3; i++) {
		void ***dst = i == 0 ? &a : i == 1 ? &b : &d;

		if (i == 2 && seed_arg) {
			const struct expr_value *sv = expr_env_get(&c->pb.env, seed_arg);
			struct expr_value nv = sv ? *sv : (struct expr_value){ 0 };

			nv.i += 0x9E3779B9LL;
			expr_env_set(&c->pb.env, seed_arg, nv);
		}
		st = set_prepare(r, &c->cs, c, &r->cand, 1);
		if (!st)
			st = run_launches(r, &r->cand, &c->cs, &c->pb, 1, label, why, sizeof(why));
		if (st) {
			cr->verdict = V_RUNTIME_ERROR;
			cr->message = xstrdup(why);
			goto out;
		}
		st = fetch_outputs(r, &c->cs, &c->pb, dst);
		if (st)
			goto out;
	}
	{
		size_t n = ob->numel, k, outside = 0;
		double *xs = xmalloc((n ? n : 1) * sizeof(*xs)), mean = 0, var = 0, p = 1, z, zv;
		struct sbuf msg = SBUF_INIT;
		size_t differ = 0;

		for (k = 0; k < n; k++) {
			xs[k] = dtype_get(ob->arg->dtype, a[oi], k, 0);
			if (!(xs[k] >= 0 && xs[k] < 1))
				outside++;
			mean += xs[k];
			if (dtype_get(ob->arg->dtype, d[oi], k, 0) != xs[k])
				differ++;
		}
		if (n) {
			mean /= (double)n;
			for (k = 0; k < n; k++)
				var += (xs[k] - mean) * (xs[k] - mean);
			var /= n > 1 ? (double)(n - 1) : 1.0;
		}
		z = n ? fabs(mean - 0.5) / sqrt(1.0 / 12.0 / (double)n) : 0;
		zv = n > 1 ? fabs(var - 1.0 / 12.0) / sqrt((1.0 / 80.0 - 1.0 / 144.0) / (double)n) : 0;
		if (n > KS_MAX_SAMPLES) {
			/* Sorting 10^8 values for one statistic costs seconds: test an evenly strided sample
			 * (every value still counts for range, mean and variance above). */
			size_t stride = n / KS_MAX_SAMPLES, m = 0;

			for (k = 0; k < n && m < KS_MAX_SAMPLES; k += stride)
				xs[m++] = xs[k];
			stats_ks_uniform(xs, m, &p);
		} else if (n >= 2) {
			stats_ks_uniform(xs, n, &p);
		}
		if (outside)
			sbuf_addf(&msg, "%zu of %zu values outside [0, 1)", outside, n);
		if (z > z_limit())
			sbuf_addf(&msg, "%smean %.6f is %.1f sigma from 0.5", msg.len ? "; " : "", mean, z);
		if (zv > z_limit())
			sbuf_addf(&msg, "%svariance %.6f is %.1f sigma from 1/12", msg.len ? "; " : "", var, zv);
		if (n >= 2 && p < 1e-6)
			sbuf_addf(&msg, "%sKolmogorov-Smirnov rejects U(0,1) (p = %.2g)", msg.len ? "; " : "", p);
		if (!compare_bitwise(a[oi], b[oi], ob->bytes))
			sbuf_addf(&msg, "%stwo runs with the same seed differ", msg.len ? "; " : "");
		if (seed_arg && n >= 16 && differ < n / 2)
			sbuf_addf(&msg, "%sanother seed changed only %zu of %zu values", msg.len ? "; " : "", differ, n);
		cr->outputs = xcalloc(1, sizeof(*cr->outputs));
		cr->noutputs = 1;
		snprintf(cr->outputs[0].arg, sizeof(cr->outputs[0].arg), "%s", ob->arg->name);
		cr->outputs[0].cmp.n = n;
		cr->outputs[0].cmp.pass = msg.len == 0;
		cr->outputs[0].cmp.cosine = cr->outputs[0].cmp.l1_relative = cr->outputs[0].cmp.rmse = -1;
		if (msg.len) {
			cr->verdict = V_WRONG;
			cr->message = sbuf_detach(&msg);
		}
		sbuf_release(&msg);
		free(xs);
	}
out:
	host_free(a, c->pb.nbufs);
	host_free(b, c->pb.nbufs);
	host_free(d, c->pb.nbufs);
	return st;
}

/* ----------------------------------------------------------------- export ---- */

/* DIR/<case>/: <arg>.npy (initial value of in/inout buffers), ref_<arg>.npy and cand_<arg>.npy
 * (out/inout after the run), manifest.json (bindings, args with the rtol/atol each output is held
 * to, files; for a perf row the bound's description). */
static enum kbx_status export_case(struct run *r, const struct case_ctx *c, const char *name, void **cand_out,
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
		st = make_inputs(r, &c.pb, name, 0, &c.in);
		if (!st)
			st = set_alloc(r, &c.cs, &c.pb, &r->cand);
		if (!st)
			st = verify_distribution(r, &c, label, cr);
	} else if (!st) {
		st = case_setup(r, &c, name, label, 0);
		if (!st)
			st = judge_candidate(r, &c, label, cr, &first);
		if (!st && r->o->export_dir)
			st = export_case(r, &c, name, first, NULL);
		if (!st && cr->verdict == V_PASS)
			st = check_determinism(r, &c, first, label, cr);
	}
	host_free(first, c.pb.nbufs);
	case_ctx_free(r, &c);
	cr->seconds = now_seconds() - t0;
	return st;
}

/* End the run on a sticky CUDA error (`fault`, naming its case). An earlier failing case keeps
 * the verdict and leads the message: the fault poisoned the context after it, and a wrong output
 * found before it is the first thing wrong with the candidate. */
static void finish_fault(struct run *r, const char *fault)
{
	if (r->sum.verdict != V_PASS && r->sum.message && strcmp(r->sum.message, fault))
		finish(r, r->sum.verdict, "%s; then %s (the CUDA context is lost: no later case ran)", r->sum.message,
		       fault);
	else
		finish(r, V_RUNTIME_ERROR, "%s", fault);
}

/* Run one case, report it and fold it into the summary. *ended is set when the run finished
 * (a sticky CUDA error). */
static enum kbx_status run_and_fold(struct run *r, const struct task_case *tc, int index, int *ended)
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
				emit_log(r, "fuzz: %s fails too", next[k]);
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
static enum kbx_status run_fuzz(struct run *r, int *ended)
{
	int i;

	for (i = 0; i < r->o->fuzz; i++) {
		struct task_case tc;
		struct case_result cr;
		enum kbx_status st;

		st = derive_fuzz(r->t, r->o->seed, i, &tc);
		if (st) {
			emit_log(r, "fuzz: %s", kbx_last_error());
			kbx_clear_error();
			return KBX_OK;
		}
		st = run_case(r, &tc, r->t->ncases + i, &cr);
		if (st) {
			case_result_free(&cr);
			derive_case_free(&tc);
			if (r->sticky || gpu_is_sticky(r->gpu)) {
				r->sticky = 1;
				finish(r, V_RUNTIME_ERROR, "fuzz case %s: %s", tc.name, kbx_last_error());
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
				finish(r, V_RUNTIME_ERROR, "fuzz case %s: sticky CUDA error", small);
				*ended = 1;
				free(small);
				return KBX_OK;
			}
			/* Report the smallest failing case as the run's failing case. */
			st = derive_case(r->t, small, &sc);
			if (!st)
				st = run_and_fold(r, &sc, r->t->ncases + i, ended);
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
	emit_log(r, "fuzz: %d drawn cases passed", r->o->fuzz);
	return KBX_OK;
}

/* ------------------------------------------------------------------ timing ---- */

/* One timed call: the program's launches without synchronisation. */
static enum kbx_status call_program(struct run *r, const struct program *p, const struct dev_set *s,
				    const struct problem *pb)
{
	char why[1024];
	enum kbx_status st = run_launches(r, p, s, pb, 0, "perf", why, sizeof(why));

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
 * the reference as set_prepare does: nothing a call leaves in its buffers, and no input it has
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
		bytes += (double)pb->bufs[i].bytes + 2.0 * (double)guard_bytes(r);
	for (i = 0; i < s->nscratch; i++)
		bytes += (double)s->scratch_bytes[i] + 2.0 * (double)guard_bytes(r);
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
	st = devgen_fill(r->devgen, &g, b->arg->dtype, to->ptr, b->numel, gen_key(r->o->seed, r->t->id, key, b->arg->name));
	gen_spec_free(&g);
	return st;
}

static void timing_sets_close(struct run *r, struct timing_sets *ts)
{
	int i;

	for (i = 1; i < ts->n; i++)
		set_free(r, &ts->extra[i - 1], r->t);
	ts->n = 1;
}

/* Log what the timing of a row rotates through when it differs from what was last said. */
static void timing_sets_say(struct run *r, const char *label, int n, double need, const char *copied)
{
	if (n < TIMING_SETS)
		emit_log(r, "%s: timed calls rotate among %d input set(s): %d more of %.2f GiB each do not fit in device "
			 "memory", label, n, TIMING_SETS - n, need / (1 << 30));
	else if (r->sets_said != n)
		emit_log(r, "timed calls rotate among %d input sets, outputs and scratch reset before each call", n);
	if (copied[0] && n > 1)
		emit_log(r, "%s: input(s) %s repeat the first set's values in the other sets (no GPU generator for them)",
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
		if ((st = set_alloc(r, s, pb, p)) != KBX_OK) {
			set_free(r, s, r->t);
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

		st = host_bind(r, k ? &ts->extra[k - 1] : ts->own, NULL, pb, why, sizeof(why));
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
			st = gpu_memset8(r->gpu, s->args[b->arg - r->t->args].ptr, ts->poison ? poison_byte(b->arg->dtype) : 0,
					 b->bytes);
	}
	for (i = 0; i < s->nscratch && !st; i++)
		st = gpu_memset8(r->gpu, s->scratch[i].ptr, ts->poison ? poison_byte(p->spec.scratch[i].dtype) : 0,
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

/* A digest of a problem's out/inout buffers (host copies), eight bytes at a time: enough to tell
 * whether the candidate's outputs after timing are the ones it gave on the inputs before. */
static uint64_t outputs_digest(const struct problem *pb, void *const *out)
{
	uint64_t h = HASH64_INIT;
	int i;

	for (i = 0; i < pb->nbufs; i++) {
		const unsigned char *p = out[i];
		size_t n = pb->bufs[i].bytes, j;

		if (pb->bufs[i].arg->dir == ARG_IN || !p)
			continue;
		for (j = 0; j + 8 <= n; j += 8) {
			uint64_t w;

			memcpy(&w, p + j, 8);
			h = (h ^ w) * 0x100000001b3ULL;
			h ^= h >> 29;
		}
		h = hash64(p + j, n - j, h);
	}
	return h;
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
	if (i == cr->noutputs || r->t->tol.metric || t_is_property(r->t))
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
	char key[48], why[1024];
	void **first = NULL, **second = NULL;
	const char *suspect = NULL;
	double worst;

	memset(&cr, 0, sizeof(cr));
	memset(&again, 0, sizeof(again));
	host_free(c->in, c->pb.nbufs);
	host_free(c->ref_out, c->pb.nbufs);
	c->in = c->ref_out = NULL;
	snprintf(key, sizeof(key), "perf%d-after-timing", row);
	emit_phase(r, r->launch_limit_s * 4 + 30, "%s: check after timing", label);
	st = perf_inputs(r, c, key);
	if (!st)
		st = set_prepare(r, &c->rs, c, &r->ref, 0);
	if (!st && (st = run_launches(r, &r->ref, &c->rs, &c->pb, 1, label, why, sizeof(why))))
		st = kbx_error(st, "the reference failed on %s: %s", label, why);
	if (!st)
		st = fetch_outputs(r, &c->rs, &c->pb, &c->ref_out);
	if (!st)
		st = judge_candidate(r, c, label, &cr, &first);
	if (st || cr.verdict == V_PASS || cr.verdict == V_NOT_RUN)
		goto out;
	pr->correct = 0;
	worst = worst_score(&cr);
	if (cr.verdict != V_WRONG || worst > GROSS_SCORE || cr.oob_arg[0] || cr.modified_arg[0])
		suspect = "";
	else if (outputs_digest(&c->pb, first) == before)
		suspect = "its outputs are the ones it gave on the inputs before timing: ";
	else {
		/* once more on the same inputs: a replayed result does not come out the same twice */
		st = judge_candidate(r, c, label, &again, &second);
		if (st)
			goto out;
		if (!same_outputs(&c->pb, first, second))
			suspect = "its outputs on the same inputs differ from one run to the next: ";
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
	host_free(first, c->pb.nbufs);
	host_free(second, c->pb.nbufs);
	case_result_free(&cr);
	case_result_free(&again);
	return st;
}

static enum kbx_status run_perf_row(struct run *r, int row, const struct golden_row *golden, int ngolden,
				    struct perf_result *pr)
{
	struct case_ctx c = { 0 };
	struct case_result cr;
	struct bench_result br;
	enum kbx_status st;
	char label[64], key[32], bound[320] = "";
	void **before = NULL;
	uint64_t digest = 0;
	double limit;

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
	emit_phase(r, r->launch_limit_s * 4 + 30, "%s: inputs", label);
	if (r->ref_is_cand) {
		char why[1024];

		/* The candidate is the reference's own image: comparing them at this size would compare
		 * the code with itself. One synchronised call checks that it runs here (and tells the
		 * timing how long a call is); the cases have verified it. */
		cr.verdict = V_PASS;
		st = perf_inputs(r, &c, key);
		if (!st)
			st = set_alloc(r, &c.cs, &c.pb, &r->cand);
		if (!st)
			st = set_prepare(r, &c.cs, &c, &r->cand, 1);
		if (!st && run_launches(r, &r->cand, &c.cs, &c.pb, 1, label, why, sizeof(why))) {
			cr.verdict = V_RUNTIME_ERROR;
			cr.message = xstrdup(why);
			if (gpu_is_sticky(r->gpu))
				r->sticky = 1;
		}
	} else if (r->t->verifier && !strcmp(r->t->verifier, "distribution")) {
		st = make_inputs(r, &c.pb, key, 0, &c.in);
		if (!st)
			st = set_alloc(r, &c.cs, &c.pb, &r->cand);
		if (!st)
			st = set_alloc(r, &c.rs, &c.pb, &r->ref);
		if (!st)
			st = set_prepare(r, &c.rs, &c, &r->ref, 0);
		if (!st)
			st = verify_distribution(r, &c, label, &cr);
	} else {
		st = case_setup(r, &c, key, label, 1);
		if (!st)
			st = judge_candidate(r, &c, label, &cr, &before);
		if (before)
			digest = outputs_digest(&c.pb, before);
		host_free(before, c.pb.nbufs);
	}
	if (st)
		goto out;
	if (cr.verdict == V_NOT_RUN)
		emit_log(r, "%s: %s; timed all the same", label, cr.message);
	pr->correct = cr.verdict == V_PASS || cr.verdict == V_NOT_RUN;
	if (!pr->correct) {
		char *m = with_bound(r, cr.message ? cr.message : verdict_name(cr.verdict), &cr, bound);

		pr->message = xasprintf("wrong at this size: %s", m);
		free(m);
		goto out;
	}
	limit = r->launch_limit_s * 10 + 3 * bench_budget_s(&r->o->bench);
	emit_phase(r, limit, "%s: timing candidate", label);
	st = set_prepare(r, &c.cs, &c, &r->cand, 1);
	if (!st)
		st = time_program(r, &r->cand, &c, &c.cs, label, &br);
	if (st) {
		if (gpu_is_sticky(r->gpu))
			r->sticky = 1;
		goto out;
	}
	pr->cand = br.s;
	pr->cand_rsd = br.rsd;
	pr->clocks = br.clocks;
	snprintf(pr->bench_stop, sizeof(pr->bench_stop), "%s", br.stop);
	snprintf(pr->bench_mode, sizeof(pr->bench_mode), "%s", bench_mode_name(r->o->bench.mode));
	pr->hide_latency = r->o->bench.hide_latency;
	if (br.batches_dropped)
		emit_log(r, "%s: %d batch(es) dropped: the GPU waited for the host while hiding launch latency",
			 label, br.batches_dropped);
	if (r->ref_is_cand) {
		pr->ref = pr->cand;
		pr->ref_is_cand = 1;
	} else {
		emit_phase(r, limit, "%s: timing reference", label);
		st = time_program(r, &r->ref, &c, &c.rs, label, &br);
		if (st)
			goto out;
		pr->ref = br.s;
	}
	pr->has_ref = 1;
	if (!r->ref_is_cand && !(r->t->verifier && !strcmp(r->t->verifier, "distribution"))) {
		st = check_after_timing(r, &c, row, label, bound, digest, pr);
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
	case_result_free(&cr);
	case_ctx_free(r, &c);
	return st;
}

/* `kbx export --perf-row N`: perf row N's inputs drawn on the host (what the GPU generator draws,
 * but for a randn element in about 2^28 whose rounding differs), the reference's and the
 * candidate's outputs and the tolerance kbx holds that row to, under DIR/perfN/. Nothing is
 * timed; the run ends with the candidate's verdict at that row. */
static enum kbx_status export_perf_row(struct run *r, int row)
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
		st = case_setup(r, &c, key, label, 0);
	if (!st)
		st = judge_candidate(r, &c, label, &cr, &cand);
	if (!st)
		st = export_case(r, &c, name, cand, bound);
	if (!st)
		finish(r, cr.verdict, "%s: %s", label, cr.message ? cr.message : "outputs exported");
	host_free(cand, c.pb.nbufs);
	case_result_free(&cr);
	case_ctx_free(r, &c);
	return st;
}

/* ------------------------------------------------------------------- main ---- */

/* Whether the code (comments and strings aside) calls this_grid() while no launch is
 * cooperative; *line and *col locate the call. */
static int grid_sync_uncooperative(const char *src, const struct kernel_spec *spec, int *line, int *col)
{
	char *code;
	const char *hit, *p;
	int i;

	for (i = 0; i < spec->nlaunches; i++)
		if (spec->launches[i].cooperative)
			return 0;
	code = rules_code_only(src);
	hit = strstr(code, "this_grid");
	if (hit) {
		*line = 1;
		*col = 1;
		for (p = code; p < hit; p++) {
			if (*p == '\n') {
				(*line)++;
				*col = 1;
			} else {
				(*col)++;
			}
		}
	}
	free(code);
	return hit != NULL;
}

static enum kbx_status prepare_program(struct run *r, struct program *p, const char *src, const char *name,
				       const struct compile_cache *cache, struct compile_result *cr, void **image,
				       size_t *image_size)
{
	enum kbx_status st;
	char why[512];
	int line = 0, col = 0;
	double t0 = now_seconds();

	st = compile_source(r, src, name, cache, cr, image, image_size);
	r->sum.split.compile_s += now_seconds() - t0;
	if (st || !cr->ok)
		return st;
	st = launch_parse_source(src, name, &p->spec);
	if (st) {
		cr->ok = 0;
		/* The message carries "line L column C"; keep it whole as the diagnostic. */
		if (sscanf(strstr(kbx_last_error(), "line ") ? strstr(kbx_last_error(), "line ") : "", "line %d column %d",
			   &line, &col) < 1)
			line = 0;
		add_diag(cr, line, col, kbx_last_error());
		return KBX_OK;
	}
	if (check_launch_names(r->t, &p->spec, why, sizeof(why), &line, &col)) {
		cr->ok = 0;
		add_diag(cr, line, col, why);
	} else if (grid_sync_uncooperative(src, &p->spec, &line, &col)) {
		/* Without a cooperative launch, grid.sync() is undefined: it hangs or faults. */
		cr->ok = 0;
		add_diag(cr, line, col, "uses cooperative_groups::this_grid() (a grid-wide sync) but no launch line "
			 "says 'cooperative': append ' cooperative' to the launch of that kernel");
	}
	return KBX_OK;
}

/* The candidate's "compile" when it runs in a host (engine.h): the host loads it. */
static enum kbx_status prepare_host(struct run *r, const char *src, const char *name, struct compile_result *cr,
				    enum verdict *loaded, char *why, size_t whylen)
{
	const struct host_candidate *h = r->o->host;
	double t0 = now_seconds();

	*why = '\0';
	r->cand.host = 1;
	/* the first load of a worker imports torch and triton: seconds, not milliseconds */
	emit_phase(r, r->o->compile_limit_s + 60, "loading %s", name);
	*loaded = h->load(h->ctx, r->t, src, name, r->o->device, r->gpu != NULL, cr, why, whylen);
	if (*loaded == V_PASS)
		*why = '\0';
	else if (!*why)
		snprintf(why, whylen, "the candidate could not be loaded");
	r->sum.split.compile_s += now_seconds() - t0;
	return KBX_OK;
}

static int in_list(char *const *list, int n, const char *id)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], id))
			return 1;
	return 0;
}

/* Static rules on the candidate's source (tasks/rules.ini): fatal findings become compile
 * diagnostics (and fail the compile), warnings become warning diagnostics, and required evidence
 * that never matched is kept for the verdict. Returns 1 when a fatal rule matched. */
static int apply_rules(struct run *r, const char *src, enum rules_lang lang, struct compile_result *cr)
{
	char *path = xasprintf("%s/rules.ini", r->o->tasks_root);
	struct ruleset rs;
	struct finding *f = NULL;
	struct sbuf missing = SBUF_INIT;
	int i, n, fatal = 0;

	if (rules_load(path, &rs)) {
		emit_log(r, "static rules not applied: %s", kbx_last_error());
		free(path);
		return 0;
	}
	free(path);
	n = rules_scan_lang(&rs, src, lang, &f);
	for (i = 0; i < n; i++) {
		const struct rule *ru = f[i].rule;
		int is_fatal = ru->kind == RULE_FATAL || in_list(r->t->static_fatal, r->t->nstatic_fatal, ru->id);
		char *msg;

		if (ru->kind == RULE_EVIDENCE)
			continue;
		msg = xasprintf("rule %s: %s", ru->id, ru->message);
		add_diag(cr, f[i].line, f[i].col, msg);
		if (!is_fatal)
			snprintf(cr->diags[cr->ndiags - 1].severity, sizeof(cr->diags[0].severity), "warning");
		else
			fatal = 1;
		if (!is_fatal)
			r->sum.warnings |= WARN(W_SUSPECT_STATIC);
		free(msg);
	}
	/* Required evidence is written for CUDA sources (int8 types, dp4a, __float2int_rn): a
	 * Python candidate's quantization shows in its outputs and its kernels' IR, not in them. */
	if (lang != RULES_CUDA && r->t->nstatic_require)
		emit_log(r, "the evidence rules this task requires read CUDA sources: not applied to a Python candidate");
	for (i = 0; lang == RULES_CUDA && i < r->t->nstatic_require; i++) {
		const struct rule *ru = rules_find(&rs, r->t->static_require[i]);
		int found = 0, k;

		for (k = 0; ru && k < n; k++)
			found |= f[k].rule == ru;
		if (!found)
			sbuf_addf(&missing, "%s%s (%s)", missing.len ? ", " : "", r->t->static_require[i],
				  ru ? ru->message : "unknown rule");
	}
	if (missing.len) {
		r->missing_evidence = sbuf_detach(&missing);
		emit_log(r, "the source lacks evidence this task requires, so it cannot pass: %s", r->missing_evidence);
	}
	sbuf_release(&missing);
	free(f);
	rules_free(&rs);
	return fatal;
}

/* The candidate image's mutable device globals (cubin.h): each one its source declares and does
 * not make const is a warning where the source names it; all of them are checked after every
 * judged call (globals_kept_state). An image that is not ELF (PTX) is not read. */
static void find_globals(struct run *r, const char *src, const void *image, size_t size, struct compile_result *cr)
{
	int i, own;

	if (cubin_globals(image, size, &r->globals, &r->nglobals)) {
		kbx_clear_error();
		return;
	}
	r->global_lines = xcalloc((size_t)r->nglobals + 1, sizeof(*r->global_lines));
	for (i = 0; i < r->nglobals; i++) {
		const struct cubin_global *g = &r->globals[i];
		char *msg;

		own = cubin_global_is_own(src ? src : "", g, &r->global_lines[i]);
		if (!own || !src)
			continue;
		msg = xasprintf("device global '%s' (%zu bytes in %s) can keep state between calls; the run fails if "
				"a call leaves it changed", g->name, g->size, g->section);
		add_diag(cr, r->global_lines[i] ? r->global_lines[i] : 1, 1, msg);
		snprintf(cr->diags[cr->ndiags - 1].severity, sizeof(cr->diags[0].severity), "warning");
		r->sum.warnings |= WARN(W_SUSPECT_STATIC);
		free(msg);
	}
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

static enum kbx_status run_all(struct run *r, const char *source, const char *source_name,
			       const struct compile_cache *cache)
{
	const struct task *t = r->t;
	struct compile_result cc, rc;
	void *cimg = NULL, *rimg = NULL;
	size_t csz = 0, rsz = 0;
	char *ref_src = NULL, why[1024] = "";
	size_t ref_len;
	enum kbx_status st;
	struct golden_table *golden = NULL;
	const struct golden_row *grows = NULL;
	int ngolden = 0, i, all_timed = 1;
	enum verdict loaded = V_PASS;

	memset(&cc, 0, sizeof(cc));
	memset(&rc, 0, sizeof(rc));
	r->cand.role = "candidate";
	r->ref.role = "reference";
	if (r->o->host)
		st = prepare_host(r, source, source_name, &cc, &loaded, why, sizeof(why));
	else if (r->o->triton_dir)
		st = triton_prepare(t, r->o->triton_dir, r->o->triton_launch, r->gpu ? device_arch(r) : 0, r->info.sms,
				    &r->cand.spec, &cc, &cimg, &csz, why, sizeof(why));
	else
		st = prepare_program(r, &r->cand, source, source_name, cache, &cc, &cimg, &csz);
	if (st)
		goto out;
	/* The static rules read CUDA source; a Triton candidate is a binary and its IR. */
	if (r->o->triton_dir && cc.ok)
		emit_log(r, "%s", cc.log);
	else if (!r->o->triton_dir && apply_rules(r, source, r->o->host ? RULES_PYTHON : RULES_CUDA, &cc))
		cc.ok = 0;
	if (cc.ok && cimg)
		find_globals(r, r->o->triton_dir ? NULL : source, cimg, csz, &cc);
	if (r->ev->compile)
		r->ev->compile(r->ev->ctx, &cc);
	if (cc.ok && r->o->save_cubin && write_file(r->o->save_cubin, cimg, csz))
		emit_log(r, "%s", kbx_last_error());
	if (!cc.ok) {
		const char *first_error = "NVRTC rejected the source";

		for (i = cc.ndiags - 1; i >= 0; i--)
			if (!strcmp(cc.diags[i].severity, "error"))
				first_error = cc.diags[i].message;
		finish(r, V_COMPILE_ERROR, "%s", first_error);
		goto out;
	}
	if (loaded != V_PASS) {
		/* the host could not load it: no entry function, or what it needs is missing */
		finish(r, loaded, "%s", why);
		goto out;
	}
	if (why[0]) {
		/* a Triton launch that disagrees with its kernel (triton.h), found without a GPU */
		finish(r, V_ABI_ERROR, "%s", why);
		goto out;
	}
	st = read_file(t->reference_path, &ref_src, &ref_len);
	if (!st)
		st = prepare_program(r, &r->ref, ref_src, "reference.cu", cache, &rc, &rimg, &rsz);
	if (st)
		goto out;
	if (!rc.ok) {
		st = kbx_error(KBX_EINVAL, "the reference of '%s' does not compile: %s", t->id,
			       rc.ndiags ? rc.diags[0].message : rc.log);
		goto out;
	}
	/* The reference evaluated as a candidate (a sweep of the references) is timed once: its
	 * second timing would only measure the same code twice. */
	r->ref_is_cand = !r->o->triton_dir && cimg && rimg && csz == rsz && !memcmp(cimg, rimg, csz);
	if (!r->gpu) {
		if (r->o->host) {
			finish(r, V_NOT_RUN, "loaded; nothing ran: no CUDA device");
			goto out;
		}
		if (!r->o->triton_dir) {
			abi_check_image(t, &r->ref.spec, rimg, rsz, why, sizeof(why));
			if (why[0]) {
				st = kbx_error(KBX_EINVAL, "the reference of '%s': %s", t->id, why);
				goto out;
			}
			abi_check_image(t, &r->cand.spec, cimg, csz, why, sizeof(why));
			if (why[0]) {
				finish(r, V_ABI_ERROR, "%s", why);
				goto out;
			}
		}
		finish(r, V_NOT_RUN, "compiled for %s; nothing ran: no CUDA device", cc.arch);
		goto out;
	}
	st = r->cand.host ? KBX_OK : bind_program(r, &r->cand, cimg, why, sizeof(why));
	if (st || why[0]) {
		if (!st)
			finish(r, V_ABI_ERROR, "%s", why);
		else
			finish(r, V_RUNTIME_ERROR, "%s", why);
		st = KBX_OK;
		goto out;
	}
	st = bind_program(r, &r->ref, rimg, why, sizeof(why));
	if (!st && why[0])
		st = kbx_error(KBX_EINVAL, "the reference of '%s' is broken: %s", t->id, why);
	if (st)
		goto out;

	if (r->o->export_perf_row && r->o->export_dir) {
		st = export_perf_row(r, r->o->export_perf_row - 1);
		goto out;
	}
	/* Correctness cases: the task's own, then the derived ones (core/derive.h). */
	{
		struct task_case *extra = NULL, one;
		int nextra = 0, ended = 0;

		memset(&one, 0, sizeof(one));
		if (r->o->only_case && derive_is_name(r->o->only_case)) {
			st = derive_case(t, r->o->only_case, &one);
			if (st)
				goto out;
			extra = &one;
			nextra = 1;
		} else if (!r->o->only_case && !r->o->no_derived) {
			st = derive_auto(t, &extra, &nextra);
			if (st)
				goto out;
		}
		for (i = 0; i < t->ncases + nextra && !st && !ended; i++) {
			const struct task_case *tc = i < t->ncases ? &t->cases[i] : &extra[i - t->ncases];

			if (r->o->only_case && strcmp(r->o->only_case, tc->name))
				continue;
			st = run_and_fold(r, tc, i, &ended);
		}
		if (extra == &one)
			derive_case_free(&one);
		else
			derive_cases_free(extra, nextra);
		if (st || ended)
			goto out;
	}
	if (r->host_skipped && r->sum.verdict == V_PASS) {
		if (r->host_skipped == r->sum.cases_total) {
			finish(r, V_NOT_RUN, "no case could be checked for a Python candidate (its random draws are "
			       "PyTorch's, which kbx cannot reproduce)");
			goto out;
		}
		emit_log(r, "%d of %d cases could not be checked for a Python candidate (random draws kbx cannot "
			 "reproduce); the verdict rests on the other %d", r->host_skipped, r->sum.cases_total,
			 r->sum.cases_total - r->host_skipped);
	}
	if (r->o->only_case && !r->sum.cases_total) {
		finish(r, V_ERROR, "task '%s' has no case '%s'", t->id, r->o->only_case);
		goto out;
	}
	if (r->o->fuzz > 0 && r->sum.verdict == V_PASS && !r->o->only_case) {
		int ended = 0;

		st = run_fuzz(r, &ended);
		if (st || ended)
			goto out;
	}
	if (r->sum.verdict != V_PASS || r->o->no_perf || r->o->only_case || !t->perf.nrows || r->missing_evidence) {
		char *m = r->sum.message ? xstrdup(r->sum.message) : NULL;

		/* A bug that shows only at perf sizes passes without them: the verdict says so. */
		r->sum.perf_unchecked = r->sum.verdict == V_PASS && r->o->no_perf && t->perf.nrows && !r->o->only_case;
		if (r->sum.verdict == V_PASS)
			finish(r, V_PASS, "%d of %d cases passed%s", r->sum.cases_passed, r->sum.cases_total,
			       r->sum.perf_unchecked ? "; correctness at perf sizes not checked (--no-perf)" : "");
		else
			finish(r, r->sum.verdict, "%s", m);
		free(m);
		goto out;
	}

	/* Perf rows. */
	if (t->perf.golden_off)
		emit_log(r, "no speedup vs golden for this task: %s", t->perf.golden_off);
	else if (golden_match(r->o->tasks_root, r->info.name, &golden) == KBX_OK) {
		snprintf(r->sum.golden_table, sizeof(r->sum.golden_table), "%s", golden_gpu(golden));
		if (golden_rows(golden, t->name, &grows, &ngolden) != KBX_OK || ngolden != t->perf.nrows) {
			if (ngolden)
				emit_log(r, "golden table '%s' has %d rows for '%s' but the task has %d: no speedup vs golden",
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
			emit_log(r, "golden table '%s' row %d times input_size %s, the task's row is %s: no speedup vs golden",
				 golden_gpu(golden), i + 1, grows[i].input_size, pb.input_size ? pb.input_size : "?");
			grows = NULL;
			ngolden = 0;
		}
		problem_free(&pb);
	}
	if (!grows && !t->perf.golden_off)
		r->sum.warnings |= WARN(W_NO_GOLDEN);
	{
		r->flush_bytes = (size_t)r->info.l2_bytes * 2;
		if (r->flush_bytes < FLUSH_MIN_BYTES)
			r->flush_bytes = FLUSH_MIN_BYTES;
		st = gpu_alloc(r->gpu, r->flush_bytes, &r->flush);
		if (st)
			goto out;
		gpu_reset_persisting_l2(r->gpu);
		ceiling_init(&r->ceiling, &r->info, r->o->calib, t);
		if (r->ceiling.tflops > 0)
			emit_log(r, "timing ceilings: %.0f GB/s (%s x %.2f), %.1f TFLOP/s (%s %s peak x %.2f)", r->ceiling.gbps,
				 r->ceiling.gbps_from, CEILING_BW_MARGIN, r->ceiling.tflops, r->ceiling.tflops_from,
				 ceiling_unit_name(r->ceiling.unit), CEILING_FLOP_MARGIN);
		else
			emit_log(r, "timing ceilings: %.0f GB/s (%s x %.2f), no FLOP ceiling (%s)", r->ceiling.gbps,
				 r->ceiling.gbps_from, CEILING_BW_MARGIN,
				 t->perf.flop_ceiling_off ? t->perf.flop_ceiling_off : "no peak known for this device");
	}
	{
		double cand = 0, ref = 0, gold = 0;
		int first = 0;

		if (r->o->max_perf_rows > 0 && r->o->max_perf_rows < t->perf.nrows)
			first = t->perf.nrows - r->o->max_perf_rows;
		for (i = first; i < t->perf.nrows; i++) {
			struct perf_result pr;

			st = run_perf_row(r, i, grows, ngolden, &pr);
			if (st) {
				perf_result_free(&pr);
				if (r->sticky) {
					finish(r, V_RUNTIME_ERROR, "perf row %d: %s", i + 1, kbx_last_error());
					st = KBX_OK;
				}
				goto out;
			}
			if (r->ev->perf_row)
				r->ev->perf_row(r->ev->ctx, &pr);
			if (!pr.correct) {
				finish(r, V_WRONG, "perf row %d (input_size %s): %s", i + 1, pr.input_size,
				       pr.message ? pr.message : "wrong");
				perf_result_free(&pr);
				goto out;
			}
			if (pr.impossible) {
				finish(r, V_IMPOSSIBLE_TIMING, "perf row %d (input_size %s): %s; no speedup is reported", i + 1,
				       pr.input_size, pr.message);
				perf_result_free(&pr);
				goto out;
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
		if (cand > 0)
			r->sum.speedup_ref = ref / cand;
		if (grows && first > 0)
			emit_log(r, "speedup vs golden needs every perf row; %d of %d were timed", t->perf.nrows - first,
				 t->perf.nrows);
		if (grows && all_timed && cand > 0 && first == 0) {
			r->sum.golden_ms_sum = gold;
			r->sum.speedup_golden = gold / cand;
		}
	}
	finish(r, V_PASS, "%d of %d cases passed; %d of %d perf rows timed", r->sum.cases_passed,
	       r->sum.cases_total, r->o->max_perf_rows > 0 && r->o->max_perf_rows < t->perf.nrows ? r->o->max_perf_rows
												  : t->perf.nrows,
	       t->perf.nrows);
out:
	if (r->flush) {
		gpu_free(r->gpu, r->flush);
		r->flush = 0;
	}
	golden_free(golden);
	compile_result_free(&cc);
	compile_result_free(&rc);
	free(cimg);
	free(rimg);
	free(ref_src);
	return st;
}

enum kbx_status engine_run(const struct task *t, const char *source, const char *source_name,
			   const struct engine_options *o, const struct compile_cache *cache,
			   const struct run_events *ev, int *sticky)
{
	struct run r;
	enum kbx_status st, gst;

	memset(&r, 0, sizeof(r));
	r.t = t;
	r.o = o;
	r.ev = ev;
	r.t0 = now_seconds();
	r.cache = cache;
	/* A task whose reference is slow at its largest perf row says so ([task] launch_limit); a
	 * smaller limit on the command line is raised to it, or that row could never be timed. */
	r.launch_limit_s = o->launch_limit_s > t->launch_limit_s ? o->launch_limit_s : t->launch_limit_s;
	gst = gpu_open(o->device, &r.gpu);
	if (gst == KBX_OK) {
		r.info = *gpu_get_info(r.gpu);
		/* Clock readings go with the timings when NVML is there; without it, none (a
		 * timing is still a timing, history just cannot tell throttling from a change). */
		if (!o->no_perf && !o->only_case && nvml_open(r.info.pci_bus_id, &r.nvml))
			r.nvml = NULL;
	} else {
		emit_log(&r, "%s", kbx_last_error());
	}
	summary_init(&r);
	st = run_all(&r, source, source_name, cache);
	if (st && ev->done) {
		char *m = xstrdup(kbx_last_error());

		finish(&r, V_ERROR, "%s", m);
		free(m);
	}
	program_free(&r, &r.cand);
	program_free(&r, &r.ref);
	program_free(&r, &r.stages);
	free(r.missing_evidence);
	cubin_globals_free(r.globals, r.nglobals);
	free(r.global_lines);
	run_summary_free(&r.sum);
	if (sticky)
		*sticky = r.sticky;
	nvml_close(r.nvml);
	devgen_close(r.devgen);
	if (r.gpu)
		gpu_close(r.gpu);
	return st;
}
