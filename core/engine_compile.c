/*
 * The run engine: compiling the candidate and the reference, binding them to their launch lines,
 * the static rules and the host load (engine_int.h).
 */
#include "engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "nvrtc.h"

/* --------------------------------------------------------------- compile ---- */

int engine_device_arch(const struct run *r)
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

	engine_phase(r, r->o->compile_limit_s, "compile %s", name);
}

enum kbx_status engine_compile_source(struct run *r, const char *src, const char *name,
				      const struct compile_cache *cache, struct compile_result *cr,
				      void **image, size_t *image_size)
{
	return compile_cached(src, name, engine_device_arch(r), r->o->tasks_root, cache, compile_phase, r, cr, image,
			      image_size);
}

enum kbx_status engine_compile_builtin(struct run *r, const char *src, const char *name, void **image)
{
	struct compile_result cr;
	size_t size = 0;
	enum kbx_status st;

	*image = NULL;
	memset(&cr, 0, sizeof(cr));
	st = engine_compile_source(r, src, name, r->cache, &cr, image, &size);
	if (!st && !cr.ok)
		st = kbx_error(KBX_ENVRTC, "%s", cr.log ? cr.log : "does not compile");
	compile_result_free(&cr);
	if (st) {
		free(*image);
		*image = NULL;
	}
	return st;
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
enum kbx_status engine_bind_program(struct run *r, struct program *p, const void *image, char *why, size_t whylen)
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

void engine_program_free(struct run *r, struct program *p)
{
	if (p->mod && r->gpu)
		gpu_module_unload(r->gpu, p->mod);
	free(p->fns);
	kernel_spec_free(&p->spec);
	memset(p, 0, sizeof(*p));
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

/* The line of the first launch marked `untimed`, or 0. */
static int untimed_launch(const struct kernel_spec *spec, int *line)
{
	int i;

	for (i = 0; i < spec->nlaunches; i++)
		if (spec->launches[i].untimed)
			return *line = spec->launches[i].line;
	return 0;
}

/* 1 when src is the task's own reference (a sweep of the references runs each as a candidate;
 * its untimed launches are the reference's). */
static int is_task_reference(const struct task *t, const char *src)
{
	char *ref = NULL;
	size_t len;
	int same;

	if (read_file(t->reference_path, &ref, &len))
		return 0;
	same = len == strlen(src) && !memcmp(ref, src, len);
	free(ref);
	return same;
}

enum kbx_status engine_prepare_program(struct run *r, struct program *p, const char *src, const char *name,
				       const struct compile_cache *cache, struct compile_result *cr, void **image,
				       size_t *image_size)
{
	enum kbx_status st;
	char why[512];
	int line = 0, col = 0;
	double t0 = now_seconds();

	st = engine_compile_source(r, src, name, cache, cr, image, image_size);
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
		compile_result_add_diag(cr, line, col, "error", kbx_last_error());
		return KBX_OK;
	}
	if (p == &r->cand && untimed_launch(&p->spec, &line) && !is_task_reference(r->t, src)) {
		/* work outside the timed calls would make any kernel look fast */
		cr->ok = 0;
		compile_result_add_diag(cr, line, 1, "error",
					"'untimed' is for a task's reference (a result it is also judged against): "
					"every launch of a candidate is timed");
	} else if (check_launch_names(r->t, &p->spec, why, sizeof(why), &line, &col)) {
		cr->ok = 0;
		compile_result_add_diag(cr, line, col, "error", why);
	} else if (grid_sync_uncooperative(src, &p->spec, &line, &col)) {
		/* Without a cooperative launch, grid.sync() is undefined: it hangs or faults. */
		cr->ok = 0;
		compile_result_add_diag(cr, line, col, "error",
					"uses cooperative_groups::this_grid() (a grid-wide sync) but no launch line "
					"says 'cooperative': append ' cooperative' to the launch of that kernel");
	}
	return KBX_OK;
}

/* The candidate's "compile" when it runs in a host (engine.h): the host loads it. */
enum kbx_status engine_prepare_host(struct run *r, const char *src, const char *name, struct compile_result *cr,
				    enum verdict *loaded, char *why, size_t whylen)
{
	const struct host_candidate *h = r->o->host;
	double t0 = now_seconds();

	*why = '\0';
	r->cand.host = 1;
	/* the first load of a worker imports torch and triton: seconds, not milliseconds */
	engine_phase(r, r->o->compile_limit_s + 60, "loading %s", name);
	if (r->o->allow_pytorch)
		engine_log(r, "--allow-pytorch: PyTorch ops may compute the outputs (a cross-check of the task, "
			   "not a candidate's verdict)");
	*loaded = h->load(h->ctx, r->t, src, name, r->o->device, r->gpu != NULL, r->o->allow_pytorch, cr, why, whylen);
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
int engine_apply_rules(struct run *r, const char *src, enum rules_lang lang, struct compile_result *cr)
{
	char *path = xasprintf("%s/rules.ini", r->o->tasks_root);
	struct ruleset rs;
	struct finding *f = NULL;
	struct sbuf missing = SBUF_INIT;
	int i, n, fatal = 0;

	if (rules_load(path, &rs)) {
		engine_log(r, "static rules not applied: %s", kbx_last_error());
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
		compile_result_add_diag(cr, f[i].line, f[i].col, "error", msg);
		if (!is_fatal)
			snprintf(cr->diags[cr->ndiags - 1].severity, sizeof(cr->diags[0].severity), "warning");
		else
			fatal = 1;
		if (!is_fatal)
			r->sum.warnings |= WARN(W_SUSPECT_STATIC);
		free(msg);
	}
	/* Required evidence, read in the candidate's language: each required id's rule for CUDA,
	 * or the Python rule standing for it (evidence_of). An id the language has no reading of
	 * is not required of it, and the log says so. */
	if (r->o->allow_pytorch && r->t->nstatic_require)
		engine_log(r, "--allow-pytorch: the evidence this task requires of a candidate is not asked of a "
			   "PyTorch function");
	for (i = 0; !r->o->allow_pytorch && i < r->t->nstatic_require; i++) {
		const char *id = r->t->static_require[i];
		const struct rule *ru = rules_find_evidence(&rs, id, lang);
		int found = 0, k;

		if (!ru && lang != RULES_CUDA) {
			engine_log(r, "the evidence '%s' this task requires has no Python reading: not required here", id);
			continue;
		}
		for (k = 0; ru && k < n; k++)
			found |= rules_stands_for(f[k].rule, id, lang);
		if (!found)
			sbuf_addf(&missing, "%s%s (%s)", missing.len ? ", " : "", id, ru ? ru->message : "unknown rule");
	}
	if (missing.len) {
		r->missing_evidence = sbuf_detach(&missing);
		engine_log(r, "the source lacks evidence this task requires, so it cannot pass: %s", r->missing_evidence);
	}
	sbuf_release(&missing);
	free(f);
	rules_free(&rs);
	return fatal;
}

/* The candidate image's mutable device globals (cubin.h): each one its source declares and does
 * not make const is a warning where the source names it; all of them are checked after every
 * judged call (globals_kept_state). An image that is not ELF (PTX) is not read. */
void engine_find_globals(struct run *r, const char *src, const void *image, size_t size, struct compile_result *cr)
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
		compile_result_add_diag(cr, r->global_lines[i] ? r->global_lines[i] : 1, 1, "error", msg);
		snprintf(cr->diags[cr->ndiags - 1].severity, sizeof(cr->diags[0].severity), "warning");
		r->sum.warnings |= WARN(W_SUSPECT_STATIC);
		free(msg);
	}
}
