/*
 * task.h - the task catalogue: tasks/<Category>/<name>/task.ini + reference.cu + examples/.
 *
 * doc/task-format.md is the format. task_load reads one task with inih, joining indented
 * continuation lines, and checks it: known keys, dtypes, directions, shapes that parse, every
 * case binding every size and scalar and a generator for every input, perf lists of equal
 * length. Every error names the file, the line and what was expected.
 *
 * task_load also builds every case and perf row once (problem_from_case/problem_from_perf),
 * so a task that loads has no case whose shapes, scalars or generators fail to evaluate.
 * [tolerance.perf] (rtol, atol: expressions over a perf row's bindings) is evaluated at every
 * perf row when the task loads. [task] needs name, category, difficulty and summary (mirrors defaults to ""); a task needs
 * at least one case and one out/inout buffer; [verifier] (output, law = uniform01, seed_arg)
 * goes with verifier = distribution and only with it. `bytes`, `flops`, `input_size` and
 * `sms` are reserved names. [python] (entry, signature: both or neither section) names the entry
 * function of a Python candidate; tools/python_entries.py writes it from KernelBenchX.
 *
 * catalogue_load reads every task under a root once; the catalogue is then read-only and
 * shared by the whole run (CLI, TUI, worker). A task that does not load is skipped and its
 * message kept in cat->errors (one broken file must not take the other 183 tasks with it); only
 * an unreadable root is an error. Tests that need a clean catalogue check nerrors.
 */
#ifndef KBX_TASK_H
#define KBX_TASK_H

#include <stddef.h>

#include "dtype.h"
#include "quant.h"
#include "status.h"

struct expr_env;

enum arg_dir { ARG_IN, ARG_OUT, ARG_INOUT, ARG_SCALAR };

struct task_arg {
	char *name;
	enum arg_dir dir;
	enum dtype dtype;
	char **shape;     /* expressions; ndim 0 = one element (buffers) */
	int ndim;
	int line;
};

/* One `key = value` of a case, perf, inputs or verifier section, in file order. */
struct binding {
	char *key;
	char *value;
	int line;
};

struct task_case {
	char *name;
	struct binding *b;
	int nb;
	int line;
	double atol_scale;      /* derived cases only (core/derive.h); 0 = 1 */
};

struct tolerance {
	double rtol, atol;      /* elementwise; < 0 = dtype default */
	int metric;             /* 1 when any metric key was given: they replace the elementwise test */
	double cosine_sim;      /* >= ; < 0 = not checked */
	double l1_relative;     /* <= ; < 0 = not checked */
	double rmse;            /* <= ; < 0 = not checked */
	double atol_scale;      /* atol is multiplied by this (derived scaled cases); 0 = 1 */
	double perf_rtol, perf_atol; /* perf rows: floors on the float rtol/atol from [tolerance.perf]
				      * (task_perf_tolerance); 0 = none */
};

/* [tolerance.perf]: the bound at perf rows, expressions over a row's bindings (NULL: none). */
struct perf_tolerance {
	char *rtol, *atol;
	int rtol_line, atol_line;
	int line;               /* of the section header, 0 if absent */
};

struct task_perf {
	struct binding *b;      /* bindings; list-valued ones make the rows */
	int nb;
	char *bytes, *flops;    /* expressions, NULL if absent */
	char *input_size;       /* template, NULL if absent */
	int nrows;              /* 0 = no perf workload */
	int line;               /* of the [perf] header, 0 if absent */
	int bytes_line, flops_line, input_size_line;    /* for error messages */
	char *golden_off;       /* `golden = off: REASON`: golden rows do not time this workload */
	char **partial_inputs;  /* `partial_inputs = a, b`: in/inout buffers a correct kernel need not
				 * read in full (left out of the impossible-timing floor, ceiling.h) */
	int npartial_inputs;
	char *flop_ceiling_off; /* `flop_ceiling = off: REASON`: the flops formula counts work a correct
				 * kernel may avoid; no arithmetic ceiling (ceiling.h) */
};

struct task {
	char *id;               /* "Category/name" */
	char *name, *category;
	int difficulty;
	char *summary, *mirrors;
	char *verifier;         /* "elementwise" (default) or "distribution" */
	char *dir;              /* tasks/<Category>/<name> */
	char *ini_path, *reference_path;
	struct task_arg *args;
	int nargs;
	struct binding *inputs; /* default generators */
	int ninputs;
	struct task_case *cases;
	int ncases;
	struct tolerance tol;
	char *exact_buf;        /* [tolerance] exact = NAME: a scratch buffer of the reference (filled by
				 * an untimed launch) holding the exact result; the one output passes
				 * when it meets the metric thresholds against the reference's output
				 * or against this; NULL: none */
	int exact_line;
	struct perf_tolerance perf_tol;
	struct task_perf perf;
	struct binding *verifier_params;
	int nverifier_params;
	char **static_require;  /* [static] require: evidence rules a candidate must match */
	int nstatic_require;
	char **static_fatal;    /* [static] fatal: warning rules that are fatal for this task */
	int nstatic_fatal;
	struct quant_spec *quant; /* [quant] (quant.h): the quantization lens's output and step; NULL: none */
	int deterministic;      /* [task] deterministic = yes: a second run must give the same bits */
	double launch_limit_s;  /* [task] launch_limit = S: a launch may take this long (0: the default) */
	char *stages_path;      /* [task] stages = examples/F.cu: a staged implementation that names a
				 * failing candidate's first wrong stage when the reference keeps no
				 * stage buffers (a fused reference); NULL: none */
	int stages_line;
	char **derive_sizes;    /* [derive] sizes: size variables kbx may vary (core/derive.h) */
	int nderive_sizes;
	int derive_sizes_given; /* 1 when [derive] sizes is present ("none" gives an empty list) */
	char *derive_values_off; /* [derive] values = off: REASON, or NULL */
	char *derive_base;      /* [derive] base = CASE, or NULL (then chosen, see derive.h) */
	long long derive_limit; /* [derive] limit = N: no derived size above N; 0 = none */
	char *py_entry;         /* [python] entry: the function a Python candidate defines (KernelBenchX's
				 * name for it); NULL when the task has no [python] section */
	char *py_signature;     /* [python] signature: its parameters as KernelBenchX writes them,
				 * "(input, approximate='none')"; NULL with py_entry */
	char **examples;        /* paths of the .cu files in examples/, sorted */
	int nexamples;
};

struct catalogue {
	char *root;
	struct task **tasks;    /* sorted by category then name */
	int ntasks;
	char **errors;          /* one message per task that did not load (skipped) */
	int nerrors;
};

enum kbx_status task_load(const char *root, const char *category, const char *name, struct task **out);
/* As task_load, from task.ini text in memory (fuzzers, tests): path names the file in messages
 * and becomes ini_path (its folder is dir). The files beside it are not looked at: no check
 * that reference.cu exists, and no examples. */
enum kbx_status task_parse_text(const char *text, const char *path, const char *category, const char *name,
				struct task **out);
void task_free(struct task *t);

enum kbx_status catalogue_load(const char *root, struct catalogue *out);
void catalogue_free(struct catalogue *cat);

/* Find by id "Category/name" or by a name that is unique in the catalogue. NULL if none. */
const struct task *catalogue_find(const struct catalogue *cat, const char *id_or_name);

const struct task_arg *task_find_arg(const struct task *t, const char *name);
/* "in", "out", "inout" or "scalar". */
const char *arg_dir_name(enum arg_dir d);
/* The tolerance at a perf row whose bindings are env: the task's [tolerance] with each
 * [tolerance.perf] expression as a floor on the float outputs' rtol/atol (perf_rtol/perf_atol;
 * integer outputs stay exact). why (NULL: not wanted) gets what was applied, for messages:
 * "atol 9.05e-04 (1e-5 * sqrt(k), k = 8192)", or "" when the task has no [tolerance.perf].
 * An expression that fails or gives a negative or non-finite value is an error naming the line. */
enum kbx_status task_perf_tolerance(const struct task *t, const struct expr_env *env, struct tolerance *out,
				    char *why, size_t whylen);
/* Value of a binding in a list, or NULL. */
const char *binding_get(const struct binding *b, int nb, const char *key);

/* Where the catalogue lives: $KBX_TASKS, else the build tree's tasks/, else the installed one. */
const char *task_default_root(void);

#endif
