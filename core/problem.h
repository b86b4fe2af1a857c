/*
 * problem.h - one concrete instance of a task: a correctness case or a perf row with every
 * binding evaluated, every buffer's shape known and its generator chosen.
 *
 * problem_from_case / problem_from_perf evaluate the bindings in order into an expr_env
 * (perf: the row's element of each list-valued binding), evaluate each buffer's shape, and pick
 * each input's generator (the case's or perf's own, else [inputs]). Errors name the task file
 * and the line of the binding that failed.
 */
#ifndef KBX_PROBLEM_H
#define KBX_PROBLEM_H

#include <stddef.h>

#include "expr.h"
#include "task.h"

#define PROBLEM_MAX_DIMS 8

struct problem_buf {
	const struct task_arg *arg;
	long long shape[PROBLEM_MAX_DIMS];
	int ndim;
	size_t numel;
	size_t bytes;
	const char *gen;        /* generator for in/inout buffers with its arguments evaluated
				 * ("randint(0, n)" -> "randint(0, 1024)"), ready for gen_parse;
				 * NULL for out. Owned by the problem. */
};

struct problem {
	char *name;             /* case name, or "perf[3]" */
	struct expr_env env;    /* every binding, by name */
	struct problem_buf *bufs; /* one per buffer arg, in task arg order */
	int nbufs;
	double bytes, flops;    /* perf only: the task's formulas, < 0 if absent */
	char *input_size;       /* perf only: the evaluated template as JSON text, or NULL */
};

enum kbx_status problem_from_case(const struct task *t, int case_index, struct problem *out);
/* The same for a case that is not one of t->cases (a derived case, core/derive.h). */
enum kbx_status problem_from_case_spec(const struct task *t, const struct task_case *c, struct problem *out);
enum kbx_status problem_from_perf(const struct task *t, int row, struct problem *out);
void problem_free(struct problem *p);

/* Expand a perf binding value into its list of expressions ("pow2(12..14)" -> 3 items).
 * Forms: `pow2(a..b)` (2^a .. 2^b), `range(a..b:step)` (a, a+step, .. up to b; step 1 by
 * default), and top-level comma lists of those or of expressions ("1, 3, pow2(4..5)"); commas
 * inside parentheses or brackets do not split. A plain value is a list of one. The caller
 * frees each item and the array. Generator bindings must not be passed here. */
enum kbx_status perf_list_expand(const char *value, char ***items, int *nitems);
void perf_list_free(char **items, int nitems);

/* Evaluate an input_size template ("[[m, k], [k], 0.5]") against env into compact JSON text
 * as the golden tables spell it ("[[64,32],[32],0.5]"): nested brackets of expressions,
 * `true`, `false`, `null` and "strings". Integer expressions give JSON integers, float ones
 * JSON reals. Caller frees *json. */
enum kbx_status problem_input_size(const char *tmpl, const struct expr_env *env, char **json);

#endif
