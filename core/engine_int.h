/*
 * engine_int.h - what the pieces of the run engine share; internal to core/, not installed.
 *
 * The engine (engine.h) is one run split by what it does:
 *
 *   engine.c          the run itself: engine_run, the phases of run_all, the summary, events
 *   engine_compile.c  compiling and binding the programs, the static rules, the host load
 *   engine_buffers.c  device buffers and their guard zones, launches, host calls, inputs
 *   engine_verify.c   judging a candidate's call, the stage diff, determinism, distributions
 *   engine_cases.c    export, the cases, fuzzing and shrinking
 *   engine_timing.c   timing sets, perf rows, the check after timing, perf-row export
 *
 * Everything a run needs lives in struct run; one problem in flight (a case or a perf row) in
 * struct case_ctx. Only engine*.c include this header.
 */
#ifndef KBX_ENGINE_INT_H
#define KBX_ENGINE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "ceiling.h"
#include "compare.h"
#include "cubin.h"
#include "engine.h"
#include "golden.h"
#include "gpu.h"
#include "launch.h"
#include "problem.h"
#include "rules.h"
#include "util.h"

struct devgen;
struct gpucompare;
struct nvml;

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
	int finished;               /* engine_finish gave the verdict: the run is over */
	int sticky;
	char *missing_evidence;     /* required evidence rules the candidate lacks, or NULL */
	gpu_ptr flush;
	size_t flush_bytes;
	double t0;
	int ref_is_cand;            /* the candidate compiled to the reference's image: time it once */
	char ref_hash[65];          /* sha256 of the reference's image (reftime.h keys); "" unknown */
	int ref_kept_rows;          /* perf rows whose reference timing was a kept one */
	double ref_kept_oldest_s;   /* the oldest of them, seconds */
	int refout_kept, refout_live; /* perf-row checks that took the reference's kept outputs, and
				     * those of them judged again against it run live (refout.h) */
	int refout_keys;            /* checks whose outputs could be kept at all (a key was made) */
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
	struct gpucompare *gcmp;    /* the comparison kernel (--compare gpu), once loaded */
	int gcmp_state;             /* 0: not tried, 1: loaded, -1: not usable (perf rows compare
				     * on the host from then on) */
	int gcmp_said;              /* the log line on where perf rows compare was written */
	double gcmp_saved;          /* output bytes not copied to the host thanks to it (this row) */
	double gcmp_s;              /* seconds in its comparisons and digests (this row) */
	int gcmp_host;              /* problems it sent to the host: an output failed (this row) */
	int gcmp_both;              /* --compare both: outputs the GPU compared too, reports equal */
	struct gpuprop *gprop;      /* the verifiers' kernels (--compare gpu), once loaded */
	int gprop_state;            /* 0: not tried, 1: loaded, -1: not usable (the host checks) */
};

/* One problem (a case or a perf row) in flight: its inputs, the reference's outputs, and the
 * two programs' device buffers. */
struct case_ctx {
	struct tolerance tol;   /* the task's, with a derived case's atol scale */
	struct problem pb;
	void **in;          /* host inputs; NULL entries are drawn on the device (dev_key) */
	void **ref_out;     /* reference outputs */
	struct dev_set rs, cs;
	char dev_key[48];   /* perf rows: the key name of the inputs drawn on the GPU; "" for none */
	int gpu_cmp;        /* compare on the GPU (engine_gpu_compare): ref_out is fetched only when
			     * the host path needs it */
	int gpu_judged;     /* the last engine_judge_candidate decided on the GPU: no host copies */
	int ref_kept;       /* the reference's outputs in rs (and ref_out) are kept ones (refout.h):
			     * it has not run on these inputs, and its scratch holds no stages */
	double ref_call_s;  /* a run of the reference's own image at a perf row: the wall time of its
			     * call before timing, by which its outputs were judged worth keeping */
};

/* engine.c: events of the run (events.h), and its end */
void engine_phase(struct run *r, double limit, const char *fmt, ...) KBX_PRINTF(3, 4);
void engine_log(struct run *r, const char *fmt, ...) KBX_PRINTF(2, 3);
void engine_finish(struct run *r, enum verdict v, const char *fmt, ...) KBX_PRINTF(3, 4);

/* engine_compile.c: programs */
int engine_apply_rules(struct run *r, const char *src, enum rules_lang lang, struct compile_result *cr);
enum kbx_status engine_bind_program(struct run *r, struct program *p, const void *image, char *why, size_t whylen);
enum kbx_status engine_compile_source(struct run *r, const char *src, const char *name,
				      const struct compile_cache *cache, struct compile_result *cr,
				      void **image, size_t *image_size);
/* One of kbx's own kernel sources (the comparison, the GPU input generator, the verifiers'
 * kernels) compiled for this device through the compile cache: *image (malloc'd) on success; a
 * source that does not compile is KBX_ENVRTC with NVRTC's log. */
enum kbx_status engine_compile_builtin(struct run *r, const char *src, const char *name, void **image);
int engine_device_arch(const struct run *r);
void engine_find_globals(struct run *r, const char *src, const void *image, size_t size, struct compile_result *cr);
enum kbx_status engine_prepare_host(struct run *r, const char *src, const char *name, struct compile_result *cr,
				    enum verdict *loaded, char *why, size_t whylen);
enum kbx_status engine_prepare_program(struct run *r, struct program *p, const char *src, const char *name,
				       const struct compile_cache *cache, struct compile_result *cr, void **image,
				       size_t *image_size);
void engine_program_free(struct run *r, struct program *p);

/* engine_buffers.c: device buffers, launches, host calls, inputs */
int engine_buf_guard_check(struct run *r, const struct dev_buf *b, enum kbx_status *st);
enum kbx_status engine_device_fill(struct run *r, const struct case_ctx *c, const struct problem_buf *b,
				   const struct dev_buf *d, int check, int *differs);
enum kbx_status engine_fetch_outputs(struct run *r, const struct dev_set *s, const struct problem *pb, void ***out);
enum kbx_status engine_upload_outputs(struct run *r, const struct dev_set *s, const struct problem *pb,
				      void *const *host);
size_t engine_guard_bytes(const struct run *r);
enum kbx_status engine_host_bind(struct run *r, const struct dev_set *cs, const struct dev_set *ref,
				 const struct problem *pb, char *why, size_t whylen);
void engine_host_free(void **h, int n);
enum kbx_status engine_make_inputs(struct run *r, const struct problem *pb, const char *key_name, int leave_to_device,
				   void ***out);
enum kbx_status engine_perf_inputs(struct run *r, struct case_ctx *c, const char *key_name);
unsigned char engine_poison_byte(enum dtype dt);
enum kbx_status engine_run_launches(struct run *r, const struct program *p, const struct dev_set *s,
				    const struct problem *pb, int sync, const char *label, char *why, size_t whylen);
enum kbx_status engine_set_alloc(struct run *r, struct dev_set *s, const struct problem *pb,
				 const struct program *p);
void engine_set_free(struct run *r, struct dev_set *s, const struct task *t);
enum kbx_status engine_set_prepare(struct run *r, struct dev_set *s, const struct case_ctx *c,
				   const struct program *p, int poison);

/* engine_verify.c: judging one problem */
void engine_case_ctx_free(struct run *r, struct case_ctx *c);
enum kbx_status engine_case_setup(struct run *r, struct case_ctx *c, const char *key_name, const char *label,
				  int perf);
enum kbx_status engine_check_determinism(struct run *r, struct case_ctx *c, void **first, const char *label,
					 struct case_result *cr);
enum kbx_status engine_judge_candidate(struct run *r, struct case_ctx *c, const char *label, struct case_result *cr,
				       void ***cand_out_ret);
int engine_is_property(const struct task *t);
int engine_gpu_compare(struct run *r);
enum kbx_status engine_outputs_digest(struct run *r, const struct case_ctx *c, uint64_t *out);
uint64_t engine_host_digest(const struct problem *pb, void *const *out);
enum kbx_status engine_verify_distribution(struct run *r, struct case_ctx *c, const char *label, struct case_result *cr);

/* engine_refout.c: the reference's outputs on a perf row's inputs (prepared in rs): kept ones
 * when the history has them for inputs_key, else it runs (and they are kept when worth it);
 * engine_reference_live runs it on the same inputs after all. */
enum kbx_status engine_reference_outputs(struct run *r, struct case_ctx *c, const char *inputs_key, const char *label);
enum kbx_status engine_reference_live(struct run *r, struct case_ctx *c, const char *label);
/* The key of the reference's outputs on the inputs in `set` (before anything ran on them): 1
 * when one was made (kept outputs in use, the inputs digestible); engine_refout_keep keeps the
 * outputs in `set` (host_out: their host copy, or NULL) when they took long enough to compute. */
int engine_refout_key(struct run *r, const struct case_ctx *c, const struct dev_set *set, const char *inputs_key,
		      char key[65]);
void engine_refout_keep(struct run *r, const struct case_ctx *c, const struct dev_set *set, void **host_out,
			const char *key, double seconds);
int engine_gpu_compare_load(struct run *r);

/* engine_cases.c: cases, fuzzing, export */
enum kbx_status engine_export_case(struct run *r, const struct case_ctx *c, const char *name, void **cand_out,
				   const char *bound);
enum kbx_status engine_run_fuzz(struct run *r, int *ended);
enum kbx_status engine_run_and_fold(struct run *r, const struct task_case *tc, int index, int *ended);

/* engine_timing.c: perf rows */
enum kbx_status engine_export_perf_row(struct run *r, int row);
enum kbx_status engine_run_perf_row(struct run *r, int row, const struct golden_row *golden, int ngolden,
				    struct perf_result *pr);

#endif
