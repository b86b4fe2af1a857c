/*
 * expr.h - integer/float expressions in task files and launch lines.
 *
 * Grammar: numbers (123, 1.5, 1e-5), names, + - * / % with C precedence, unary minus,
 * parentheses, and the functions cdiv(a, b), min(a, b), max(a, b), pow2(k), sqrt(x), log2(x)
 * (these two always give floats). Integer operands give integer results (C division, truncating); any float operand makes the result a float.
 * Names are looked up through an expr_env; an unknown name is an error that names it.
 *
 * Errors return KBX_EPARSE (syntax, unknown name) or KBX_EINVAL (division by zero, overflow)
 * with a message quoting the expression, and set *err_col (0-based column) when err_col is not
 * NULL so that callers can point at the place in their own line.
 */
#ifndef KBX_EXPR_H
#define KBX_EXPR_H

#include "status.h"

struct expr_value {
	int is_float;
	long long i;
	double f;
};

/* A flat list of named values, searched from the end (later bindings shadow earlier ones). */
struct expr_env {
	char **names;
	struct expr_value *values;
	int n, cap;
};

void expr_env_set(struct expr_env *env, const char *name, struct expr_value v);
void expr_env_set_int(struct expr_env *env, const char *name, long long v);
const struct expr_value *expr_env_get(const struct expr_env *env, const char *name);
void expr_env_free(struct expr_env *env);

enum kbx_status expr_eval(const char *src, const struct expr_env *env, struct expr_value *out, int *err_col);
/* As expr_eval but the result must be an integer (floats with an integral value are accepted). */
enum kbx_status expr_eval_int(const char *src, const struct expr_env *env, long long *out, int *err_col);
enum kbx_status expr_eval_float(const char *src, const struct expr_env *env, double *out, int *err_col);
/* Check the syntax only (numbers, operators, parentheses, known functions with the right number of
 * arguments); names are not looked up and nothing is computed. For launch lines and task files,
 * so that a typo is reported where it is written rather than when a case first runs. */
enum kbx_status expr_check(const char *src, int *err_col);

static inline double expr_as_double(struct expr_value v)
{
	return v.is_float ? v.f : (double)v.i;
}

#endif
