#include "task.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "inputs.h"
#include "problem.h"
#include "taskini.h"
#include "util.h"


/* ---- small helpers ------------------------------------------------------------------------ */

static int is_ident(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

static int is_case_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Keys of a section must be unique: a second one would silently win. */
static enum kbx_status check_duplicates(const char *path, const struct raw_section *sec)
{
	int i, j;

	for (i = 1; i < sec->n; i++)
		for (j = 0; j < i; j++)
			if (strcmp(sec->e[i].key, sec->e[j].key) == 0)
				return kbx_error(KBX_EPARSE, "duplicate key '%s' in [%s] of '%s' line %d (first at line %d)",
						 sec->e[i].key, sec->name, path, sec->e[i].line, sec->e[j].line);
	return KBX_OK;
}

static void copy_bindings(const struct raw_section *sec, struct binding **out, int *nout)
{
	int i;

	*out = xcalloc((size_t)sec->n + 1, sizeof(**out));
	for (i = 0; i < sec->n; i++) {
		(*out)[i].key = xstrdup(sec->e[i].key);
		(*out)[i].value = xstrdup(sec->e[i].value);
		(*out)[i].line = sec->e[i].line;
	}
	*nout = sec->n;
}

static void free_bindings(struct binding *b, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(b[i].key);
		free(b[i].value);
	}
	free(b);
}

/* A number in the task file (tolerances, difficulty): an expression without names. */
static enum kbx_status parse_number(const char *path, const struct raw_entry *e, double *out)
{
	enum kbx_status st = expr_eval_float(e->value, NULL, out, NULL);

	if (st)
		return kbx_wrap(st, "expected a number for '%s' in '%s' line %d", e->key, path, e->line);
	if (!isfinite(*out))
		return kbx_error(KBX_EPARSE, "expected a finite number for '%s' in '%s' line %d", e->key, path,
				 e->line);
	return KBX_OK;
}

/* ---- [task] --------------------------------------------------------------------------------- */

static enum kbx_status parse_task_section(struct task *t, const struct raw_section *sec)
{
	const char *path = t->ini_path;
	int i;

	for (i = 0; i < sec->n; i++) {
		const struct raw_entry *e = &sec->e[i];
		const char *v = e->value;

		if (!*v)
			return kbx_error(KBX_EPARSE, "expected a value for '%s' in '%s' line %d", e->key, path, e->line);
		if (strcmp(e->key, "name") == 0) {
			if (strcmp(v, t->name) != 0)
				return kbx_error(KBX_EPARSE, "name '%s' in '%s' line %d does not match its folder '%s'", v,
						 path, e->line, t->name);
		} else if (strcmp(e->key, "category") == 0) {
			if (strcmp(v, t->category) != 0)
				return kbx_error(KBX_EPARSE, "category '%s' in '%s' line %d does not match its folder '%s'",
						 v, path, e->line, t->category);
		} else if (strcmp(e->key, "difficulty") == 0) {
			if (strlen(v) != 1 || v[0] < '1' || v[0] > '5')
				return kbx_error(KBX_EPARSE, "difficulty '%s' in '%s' line %d: expected 1, 2, 3, 4 or 5", v,
						 path, e->line);
			t->difficulty = v[0] - '0';
		} else if (strcmp(e->key, "summary") == 0) {
			t->summary = xstrdup(v);
		} else if (strcmp(e->key, "mirrors") == 0) {
			t->mirrors = xstrdup(v);
		} else if (strcmp(e->key, "verifier") == 0) {
			if (strcmp(v, "elementwise") != 0 && strcmp(v, "distribution") != 0 && strcmp(v, "property") != 0)
				return kbx_error(KBX_EPARSE,
						 "unknown verifier '%s' in '%s' line %d (expected elementwise, distribution or property)", v,
						 path, e->line);
			free(t->verifier);
			t->verifier = xstrdup(v);
		} else if (strcmp(e->key, "deterministic") == 0) {
			if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
				return kbx_error(KBX_EPARSE, "deterministic = '%s' in '%s' line %d: expected yes or no", v,
						 path, e->line);
			t->deterministic = v[0] == 'y';
		} else if (strcmp(e->key, "launch_limit") == 0) {
			char *end;
			double s = strtod(v, &end);

			if (*end || !(s >= 1 && s <= 600))
				return kbx_error(KBX_EPARSE, "launch_limit = '%s' in '%s' line %d: expected seconds from 1 to 600",
						 v, path, e->line);
			t->launch_limit_s = s;
		} else if (strcmp(e->key, "stages") == 0) {
			const char *base = v + strlen("examples/");
			size_t n = strlen(v);

			if (strncmp(v, "examples/", 9) != 0 || !*base || strchr(base, '/') || base[0] == '.' || n < 13 ||
			    strcmp(v + n - 3, ".cu") != 0)
				return kbx_error(KBX_EPARSE, "stages = '%s' in '%s' line %d: expected examples/NAME.cu, one of "
						 "the task's examples", v, path, e->line);
			free(t->stages_path);
			t->stages_path = xasprintf("%s/%s", t->dir, v);
			t->stages_line = e->line;
		} else {
			return kbx_error(KBX_EPARSE,
					 "unknown key '%s' in [task] of '%s' line %d (expected name, category, difficulty, "
					 "summary, mirrors, verifier, deterministic, launch_limit or stages)",
					 e->key, path, e->line);
		}
	}
	for (i = 0; i < 4; i++) {
		static const char *const required[] = { "name", "category", "difficulty", "summary" };
		int j, found = 0;

		for (j = 0; j < sec->n; j++)
			found |= strcmp(sec->e[j].key, required[i]) == 0;
		if (!found)
			return kbx_error(KBX_EPARSE, "missing '%s' in [task] of '%s' line %d", required[i], path,
					 sec->line);
	}
	return KBX_OK;
}

/* ---- [args] --------------------------------------------------------------------------------- */

static const char *const reserved_names[] = { "bytes", "flops", "input_size", "sms", "golden" };

static enum kbx_status parse_shape(const char *path, const struct raw_entry *e, const char *text,
				   struct task_arg *a)
{
	size_t len = strlen(text);
	const char *p, *start, *end = text + len - 1;
	int depth = 0, cap = 0;

	if (len < 2 || text[0] != '[' || text[len - 1] != ']')
		return kbx_error(KBX_EPARSE, "expected a shape in brackets like [n] or [m, k] for '%s' in '%s' line %d",
				 e->key, path, e->line);
	p = text + 1;
	while (isspace((unsigned char)*p))
		p++;
	if (p == end)
		return KBX_OK;
	start = p;
	for (;; p++) {
		/* the closing ']' ends the last dimension whatever the depth: unbalanced is caught below */
		if (p == end || (*p == ',' && depth == 0)) {
			char *dim = str_trim(xstrndup(start, (size_t)(p - start)));

			if (!*dim) {
				free(dim);
				return kbx_error(KBX_EPARSE, "empty dimension %d in the shape of '%s' in '%s' line %d",
						 a->ndim + 1, e->key, path, e->line);
			}
			if (a->ndim == PROBLEM_MAX_DIMS) {
				free(dim);
				return kbx_error(KBX_EPARSE, "shape of '%s' in '%s' line %d has more than %d dimensions",
						 e->key, path, e->line, PROBLEM_MAX_DIMS);
			}
			XGROW(a->shape, a->ndim + 1, cap);
			a->shape[a->ndim++] = dim;
			if (p == end)
				break;
			start = p + 1;
		} else if (*p == '(' || *p == '[') {
			depth++;
		} else if (*p == ')' || *p == ']') {
			if (depth == 0)
				return kbx_error(KBX_EPARSE, "unbalanced '%c' in the shape of '%s' in '%s' line %d", *p,
						 e->key, path, e->line);
			depth--;
		}
	}
	if (depth != 0)
		return kbx_error(KBX_EPARSE, "unbalanced parentheses in the shape of '%s' in '%s' line %d", e->key,
				 path, e->line);
	return KBX_OK;
}

/* The next word of an [args] value: up to a space or a '['. */
static char *next_word(const char **p)
{
	const char *s;

	while (isspace((unsigned char)**p))
		(*p)++;
	s = *p;
	while (**p && !isspace((unsigned char)**p) && **p != '[')
		(*p)++;
	return xstrndup(s, (size_t)(*p - s));
}

static enum kbx_status parse_arg(const char *path, const struct raw_entry *e, struct task_arg *a)
{
	const char *p = e->value;
	char *word, *dt = NULL, *rest = NULL;
	enum kbx_status st = KBX_OK;
	size_t i;

	a->name = xstrdup(e->key);
	a->line = e->line;
	if (!is_ident(e->key))
		return kbx_error(KBX_EPARSE, "bad argument name '%s' in '%s' line %d (expected letters, digits and '_')",
				 e->key, path, e->line);
	for (i = 0; i < sizeof(reserved_names) / sizeof(reserved_names[0]); i++)
		if (strcmp(e->key, reserved_names[i]) == 0)
			return kbx_error(KBX_EPARSE, "argument name '%s' in '%s' line %d is reserved", e->key, path,
					 e->line);
	word = next_word(&p);
	if (strcmp(word, "in") == 0 || strcmp(word, "out") == 0 || strcmp(word, "inout") == 0) {
		a->dir = word[0] == 'o' ? ARG_OUT : word[2] == 'o' ? ARG_INOUT : ARG_IN;
		dt = next_word(&p);
		if (!*dt || dtype_parse(dt, &a->dtype)) {
			st = kbx_error(KBX_EPARSE,
				       "unknown dtype '%s' for '%s' in '%s' line %d (expected f32, f64, f16, bf16, i8, u8, "
				       "i16, i32, i64, bool or c64)",
				       dt, e->key, path, e->line);
			goto out;
		}
		rest = str_trim(xstrdup(p));
		st = parse_shape(path, e, rest, a);
	} else if (!*word) {
		st = kbx_error(KBX_EPARSE, "expected 'in', 'out', 'inout' or a scalar dtype for '%s' in '%s' line %d",
			       e->key, path, e->line);
	} else {
		a->dir = ARG_SCALAR;
		if (dtype_parse(word, &a->dtype) || !(a->dtype == DT_I32 || a->dtype == DT_I64 ||
						       a->dtype == DT_F32 || a->dtype == DT_F64)) {
			st = kbx_error(KBX_EPARSE,
				       "expected 'in', 'out', 'inout' or a scalar dtype (i32, i64, f32, f64) for '%s' in "
				       "'%s' line %d, not '%s'",
				       e->key, path, e->line, word);
			goto out;
		}
		rest = str_trim(xstrdup(p));
		if (*rest)
			st = kbx_error(KBX_EPARSE, "scalar '%s' in '%s' line %d takes a dtype only, not '%s'", e->key,
				       path, e->line, rest);
	}
out:
	free(word);
	free(dt);
	free(rest);
	return st;
}

static enum kbx_status parse_args_section(struct task *t, const struct raw_section *sec)
{
	int i, outputs = 0;
	enum kbx_status st;

	t->args = xcalloc((size_t)sec->n + 1, sizeof(*t->args));
	for (i = 0; i < sec->n; i++) {
		struct task_arg *a = &t->args[t->nargs++];

		st = parse_arg(t->ini_path, &sec->e[i], a);
		if (st)
			return st;
		outputs += a->dir == ARG_OUT || a->dir == ARG_INOUT;
	}
	if (!outputs)
		return kbx_error(KBX_EPARSE, "[args] of '%s' line %d has no 'out' or 'inout' buffer to check",
				 t->ini_path, sec->line);
	return KBX_OK;
}

/* ---- [tolerance] -------------------------------------------------------------------------- */

static enum kbx_status parse_tolerance_section(struct task *t, const struct raw_section *sec)
{
	int i;

	for (i = 0; i < sec->n; i++) {
		const struct raw_entry *e = &sec->e[i];
		double v;
		enum kbx_status st;
		double *dst;

		if (strcmp(e->key, "exact") == 0) {
			if (!is_ident(e->value))
				return kbx_error(KBX_EPARSE, "exact = '%s' in [tolerance] of '%s' line %d: expected the name "
						 "of a scratch buffer of the reference", e->value, t->ini_path, e->line);
			free(t->exact_buf);
			t->exact_buf = xstrdup(e->value);
			t->exact_line = e->line;
			continue;
		}
		if (strcmp(e->key, "rtol") == 0)
			dst = &t->tol.rtol;
		else if (strcmp(e->key, "atol") == 0)
			dst = &t->tol.atol;
		else if (strcmp(e->key, "cosine_sim") == 0)
			dst = &t->tol.cosine_sim;
		else if (strcmp(e->key, "l1_relative") == 0)
			dst = &t->tol.l1_relative;
		else if (strcmp(e->key, "rmse") == 0)
			dst = &t->tol.rmse;
		else
			return kbx_error(KBX_EPARSE,
					 "unknown key '%s' in [tolerance] of '%s' line %d (expected rtol, atol, cosine_sim, "
					 "l1_relative, rmse or exact)",
					 e->key, t->ini_path, e->line);
		st = parse_number(t->ini_path, e, &v);
		if (st)
			return st;
		if (dst == &t->tol.cosine_sim ? (v < -1 || v > 1) : v < 0)
			return kbx_error(KBX_EPARSE, "'%s' = %g in '%s' line %d is out of range (expected %s)", e->key, v,
					 t->ini_path, e->line, dst == &t->tol.cosine_sim ? "-1 to 1" : "a value >= 0");
		*dst = v;
		if (dst != &t->tol.rtol && dst != &t->tol.atol)
			t->tol.metric = 1;
	}
	return KBX_OK;
}

/* [tolerance.perf]: rtol and atol as expressions over a perf row's bindings, checked for syntax
 * here and evaluated at every row by check_problems. */
static enum kbx_status parse_perf_tolerance_section(struct task *t, const struct raw_section *sec)
{
	int i;

	t->perf_tol.line = sec->line;
	for (i = 0; i < sec->n; i++) {
		const struct raw_entry *e = &sec->e[i];
		int col = 0;
		enum kbx_status st;

		if (strcmp(e->key, "rtol") != 0 && strcmp(e->key, "atol") != 0)
			return kbx_error(KBX_EPARSE, "unknown key '%s' in [tolerance.perf] of '%s' line %d (expected rtol or atol)",
					 e->key, t->ini_path, e->line);
		if (!*e->value)
			return kbx_error(KBX_EPARSE, "expected an expression for '%s' in [tolerance.perf] of '%s' line %d",
					 e->key, t->ini_path, e->line);
		st = expr_check(e->value, &col);
		if (st)
			return kbx_wrap(st, "'%s' in [tolerance.perf] of '%s' line %d, column %d", e->key, t->ini_path,
					e->line, col + 1);
		if (e->key[0] == 'r') {
			t->perf_tol.rtol = xstrdup(e->value);
			t->perf_tol.rtol_line = e->line;
		} else {
			t->perf_tol.atol = xstrdup(e->value);
			t->perf_tol.atol_line = e->line;
		}
	}
	return KBX_OK;
}

/* The names of env that expr mentions, as ", k = 8192, m = 32" (function names are not bound). */
static void describe_names(const char *expr, const struct expr_env *env, char *out, size_t len)
{
	const char *p = expr;
	size_t used = strlen(out);

	while (*p) {
		const struct expr_value *v;
		char name[64], seen[72];
		size_t n = 0;

		if (!(isalpha((unsigned char)*p) || *p == '_') ||
		    (p > expr && (isalnum((unsigned char)p[-1]) || p[-1] == '.'))) {
			p++;
			continue;
		}
		while ((isalnum((unsigned char)p[n]) || p[n] == '_') && n < sizeof(name) - 1)
			n++;
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		v = expr_env_get(env, name);
		snprintf(seen, sizeof(seen), ", %s = ", name);
		if (!v || strstr(out, seen) || used >= len)
			continue;
		if (v->is_float)
			used += (size_t)snprintf(out + used, len - used, ", %s = %g", name, v->f);
		else
			used += (size_t)snprintf(out + used, len - used, ", %s = %lld", name, v->i);
	}
}

enum kbx_status task_perf_tolerance(const struct task *t, const struct expr_env *env, struct tolerance *out,
				    char *why, size_t whylen)
{
	const char *exprs[2] = { t->perf_tol.rtol, t->perf_tol.atol };
	const int lines[2] = { t->perf_tol.rtol_line, t->perf_tol.atol_line };
	double *dst[2];
	int i;

	*out = t->tol;
	dst[0] = &out->perf_rtol;
	dst[1] = &out->perf_atol;
	if (why && whylen)
		why[0] = '\0';
	for (i = 0; i < 2; i++) {
		enum kbx_status st;
		double v;

		if (!exprs[i])
			continue;
		st = expr_eval_float(exprs[i], env, &v, NULL);
		if (st)
			return kbx_wrap(st, "'%s' in [tolerance.perf] of '%s' line %d", i ? "atol" : "rtol", t->ini_path,
					lines[i]);
		if (!isfinite(v) || v < 0)
			return kbx_error(KBX_EINVAL, "'%s' in [tolerance.perf] of '%s' line %d is %g (expected a finite value >= 0)",
					 i ? "atol" : "rtol", t->ini_path, lines[i], v);
		*dst[i] = v;
		if (why && whylen) {
			size_t used = strlen(why);
			char names[256] = "";

			describe_names(exprs[i], env, names, sizeof(names));
			snprintf(why + used, whylen - used, "%s%s %.3g (%s%s)", used ? ", " : "", i ? "atol" : "rtol", v,
				 exprs[i], names);
		}
	}
	return KBX_OK;
}

/* ---- [inputs], [case.*], [perf], [verifier] ------------------------------------------------ */

static enum kbx_status parse_inputs_section(struct task *t, const struct raw_section *sec)
{
	int i;

	for (i = 0; i < sec->n; i++) {
		const struct raw_entry *e = &sec->e[i];
		const struct task_arg *a = task_find_arg(t, e->key);

		if (!a || a->dir == ARG_SCALAR || a->dir == ARG_OUT)
			return kbx_error(KBX_EPARSE,
					 "'%s' in [inputs] of '%s' line %d is not an 'in' or 'inout' buffer of [args]",
					 e->key, t->ini_path, e->line);
	}
	copy_bindings(sec, &t->inputs, &t->ninputs);
	return KBX_OK;
}

/* Keys of a case or of [perf]: names (bindings or generators), never outputs. */
static enum kbx_status check_binding_keys(const struct task *t, const struct raw_section *sec, int perf)
{
	int i;
	size_t r;

	for (i = 0; i < sec->n; i++) {
		const struct raw_entry *e = &sec->e[i];
		const struct task_arg *a = task_find_arg(t, e->key);

		if (perf && (strcmp(e->key, "bytes") == 0 || strcmp(e->key, "flops") == 0 ||
			     strcmp(e->key, "input_size") == 0 || strcmp(e->key, "golden") == 0 ||
			     strcmp(e->key, "partial_inputs") == 0 || strcmp(e->key, "flop_ceiling") == 0))
			continue;
		if (!is_ident(e->key))
			return kbx_error(KBX_EPARSE, "bad name '%s' in [%s] of '%s' line %d (expected letters, digits and '_')",
					 e->key, sec->name, t->ini_path, e->line);
		for (r = 0; r < sizeof(reserved_names) / sizeof(reserved_names[0]); r++)
			if (strcmp(e->key, reserved_names[r]) == 0)
				return kbx_error(KBX_EPARSE, "'%s' in [%s] of '%s' line %d is reserved%s", e->key, sec->name,
						 t->ini_path, e->line, perf ? "" : " (bytes, flops and input_size go in [perf])");
		if (a && a->dir == ARG_OUT)
			return kbx_error(KBX_EPARSE, "'%s' in [%s] of '%s' line %d is an 'out' buffer and takes no generator",
					 e->key, sec->name, t->ini_path, e->line);
		if (!*e->value)
			return kbx_error(KBX_EPARSE, "expected a value for '%s' in [%s] of '%s' line %d", e->key,
					 sec->name, t->ini_path, e->line);
	}
	return KBX_OK;
}

static enum kbx_status parse_case_section(struct task *t, const struct raw_section *sec, int *cap)
{
	const char *name = sec->name + 5;
	struct task_case *c;
	enum kbx_status st;

	if (!is_case_name(name))
		return kbx_error(KBX_EPARSE, "bad case name '%s' in '%s' line %d (expected letters, digits and '_')",
				 name, t->ini_path, sec->line);
	st = check_binding_keys(t, sec, 0);
	if (st)
		return st;
	XGROW(t->cases, t->ncases + 1, *cap);
	c = &t->cases[t->ncases++];
	memset(c, 0, sizeof(*c));
	c->name = xstrdup(name);
	c->line = sec->line;
	copy_bindings(sec, &c->b, &c->nb);
	return KBX_OK;
}

static enum kbx_status parse_name_list(const struct raw_entry *e, const char *path, const char *section, char ***out,
				       int *n);

/* `off: REASON` (the reason may be empty: *reason gets `fallback`); 0 when value is not that. */
static int parse_off(const char *value, const char *fallback, char **reason)
{
	const char *r = value + 3;

	if (strncmp(value, "off", 3) != 0 || (*r != ':' && *r != '\0'))
		return 0;
	r += *r == ':';
	while (*r == ' ')
		r++;
	free(*reason);
	*reason = xstrdup(*r ? r : fallback);
	return 1;
}

/* [perf] partial_inputs: names of in or inout buffers. */
static enum kbx_status parse_partial_inputs(struct task *t, const struct raw_entry *e)
{
	struct task_perf *pf = &t->perf;
	enum kbx_status st = parse_name_list(e, t->ini_path, "perf", &pf->partial_inputs, &pf->npartial_inputs);
	int i;

	for (i = 0; i < pf->npartial_inputs && !st; i++) {
		const struct task_arg *a = task_find_arg(t, pf->partial_inputs[i]);

		if (!a || (a->dir != ARG_IN && a->dir != ARG_INOUT))
			st = kbx_error(KBX_EPARSE, "partial_inputs in [perf] of '%s' line %d: '%s' is not an 'in' or 'inout' "
				       "buffer", t->ini_path, e->line, pf->partial_inputs[i]);
	}
	return st;
}

static enum kbx_status parse_perf_section(struct task *t, const struct raw_section *sec)
{
	struct task_perf *pf = &t->perf;
	struct raw_section vals = *sec;
	const char *list_key = NULL;
	int i, list_line = 0;
	enum kbx_status st;

	st = check_binding_keys(t, sec, 1);
	if (st)
		return st;
	pf->line = sec->line;
	pf->nrows = 1;
	/* bytes, flops and input_size are formulas, not bindings */
	vals.e = xcalloc((size_t)sec->n + 1, sizeof(*vals.e));
	vals.n = 0;
	for (i = 0; i < sec->n; i++) {
		const struct raw_entry *e = &sec->e[i];
		const struct task_arg *a = task_find_arg(t, e->key);
		char **items;
		int n;

		if (strcmp(e->key, "bytes") == 0) {
			pf->bytes = xstrdup(e->value);
			pf->bytes_line = e->line;
			continue;
		}
		if (strcmp(e->key, "flops") == 0) {
			pf->flops = xstrdup(e->value);
			pf->flops_line = e->line;
			continue;
		}
		if (strcmp(e->key, "input_size") == 0) {
			pf->input_size = xstrdup(e->value);
			pf->input_size_line = e->line;
			continue;
		}
		if (strcmp(e->key, "golden") == 0) {
			if (!parse_off(e->value, "the golden rows time another workload", &pf->golden_off)) {
				free(vals.e);
				return kbx_error(KBX_EPARSE, "golden in [perf] of '%s' line %d: expected 'off: REASON'",
						 t->ini_path, e->line);
			}
			continue;
		}
		if (strcmp(e->key, "flop_ceiling") == 0) {
			if (!parse_off(e->value, "the flops formula counts work a kernel may avoid", &pf->flop_ceiling_off)) {
				free(vals.e);
				return kbx_error(KBX_EPARSE, "flop_ceiling in [perf] of '%s' line %d: expected 'off: REASON'",
						 t->ini_path, e->line);
			}
			continue;
		}
		if (strcmp(e->key, "partial_inputs") == 0) {
			st = parse_partial_inputs(t, e);
			if (st) {
				free(vals.e);
				return st;
			}
			continue;
		}
		vals.e[vals.n++] = *e;
		/* a generator is never a list: "uniform(0, 1)" is one value */
		if (a && a->dir != ARG_SCALAR)
			continue;
		st = perf_list_expand(e->value, &items, &n);
		if (st) {
			free(vals.e);
			return kbx_wrap(st, "cannot expand '%s' in [perf] of '%s' line %d", e->key, t->ini_path, e->line);
		}
		perf_list_free(items, n);
		if (n == 1)
			continue;
		if (list_key && n != pf->nrows) {
			free(vals.e);
			return kbx_error(KBX_EPARSE,
					 "'%s' in [perf] of '%s' line %d has %d values but '%s' (line %d) has %d: lists are "
					 "zipped and need the same length",
					 e->key, t->ini_path, e->line, n, list_key, list_line, pf->nrows);
		}
		list_key = e->key;
		list_line = e->line;
		pf->nrows = n;
	}
	copy_bindings(&vals, &pf->b, &pf->nb);
	free(vals.e);
	return KBX_OK;
}

static const char *const verifier_laws[] = { "uniform01" };

static enum kbx_status parse_verifier_section(struct task *t, const struct raw_section *sec)
{
	const char *path = t->ini_path;
	int i, have_output = 0, have_law = 0, have_seed = 0;

	for (i = 0; i < sec->n; i++) {
		const struct raw_entry *e = &sec->e[i];
		const struct task_arg *a = task_find_arg(t, e->value);

		if (strcmp(e->key, "output") == 0) {
			if (!a || !(a->dir == ARG_OUT || a->dir == ARG_INOUT))
				return kbx_error(KBX_EPARSE, "output '%s' in [verifier] of '%s' line %d is not an 'out' buffer",
						 e->value, path, e->line);
			have_output = 1;
		} else if (strcmp(e->key, "law") == 0) {
			size_t k;

			for (k = 0; k < sizeof(verifier_laws) / sizeof(verifier_laws[0]); k++)
				if (strcmp(e->value, verifier_laws[k]) == 0)
					have_law = 1;
			if (!have_law)
				return kbx_error(KBX_EPARSE, "unknown law '%s' in [verifier] of '%s' line %d (expected uniform01)",
						 e->value, path, e->line);
		} else if (strcmp(e->key, "seed_arg") == 0) {
			if (!a || a->dir != ARG_SCALAR || !(a->dtype == DT_I32 || a->dtype == DT_I64))
				return kbx_error(KBX_EPARSE,
						 "seed_arg '%s' in [verifier] of '%s' line %d is not an i32 or i64 scalar of [args]",
						 e->value, path, e->line);
			have_seed = 1;
		} else {
			return kbx_error(KBX_EPARSE,
					 "unknown key '%s' in [verifier] of '%s' line %d (expected output, law or seed_arg)",
					 e->key, path, e->line);
		}
	}
	if (!have_output || !have_law || !have_seed)
		return kbx_error(KBX_EPARSE, "missing '%s' in [verifier] of '%s' line %d",
				 !have_output ? "output" : !have_law ? "law" : "seed_arg", path, sec->line);
	copy_bindings(sec, &t->verifier_params, &t->nverifier_params);
	return KBX_OK;
}

/* verifier = property: core/verify.h. Each property names its roles; every role is a buffer. */
static const struct {
	const char *property;
	const char *roles[5];   /* "?" prefix: optional */
} property_roles[] = {
	{ "eig", { "input", "values", "vectors", NULL } },
	{ "svd", { "input", "u", "s", "vh", NULL } },
	{ "qr", { "input", "?q", "r", NULL } },
};

static enum kbx_status parse_property_section(struct task *t, const struct raw_section *sec)
{
	const char *path = t->ini_path, *property = NULL;
	size_t p, r;
	int i, found = -1;

	for (i = 0; i < sec->n; i++)
		if (strcmp(sec->e[i].key, "property") == 0)
			property = sec->e[i].value;
	for (p = 0; property && p < sizeof(property_roles) / sizeof(property_roles[0]); p++)
		if (strcmp(property, property_roles[p].property) == 0)
			found = (int)p;
	if (found < 0)
		return kbx_error(KBX_EPARSE, "%s property in [verifier] of '%s' line %d (expected eig, svd or qr)",
				 property ? "unknown" : "missing", path, sec->line);
	for (i = 0; i < sec->n; i++) {
		const struct raw_entry *e = &sec->e[i];
		const struct task_arg *a;
		int known = !strcmp(e->key, "property") || !strcmp(e->key, "tol");

		for (r = 0; !known && property_roles[found].roles[r]; r++) {
			const char *role = property_roles[found].roles[r];

			known = !strcmp(e->key, role[0] == '?' ? role + 1 : role);
		}
		if (!known)
			return kbx_error(KBX_EPARSE, "unknown key '%s' in [verifier] of '%s' line %d (not a role of property %s)",
					 e->key, path, e->line, property);
		if (!strcmp(e->key, "property") || !strcmp(e->key, "tol"))
			continue;
		a = task_find_arg(t, e->value);
		if (!a || a->dir == ARG_SCALAR)
			return kbx_error(KBX_EPARSE, "%s = %s in [verifier] of '%s' line %d is not a buffer of [args]", e->key,
					 e->value, path, e->line);
	}
	for (r = 0; property_roles[found].roles[r]; r++) {
		const char *role = property_roles[found].roles[r];
		int have = role[0] == '?';

		for (i = 0; !have && i < sec->n; i++)
			have = !strcmp(sec->e[i].key, role);
		if (!have)
			return kbx_error(KBX_EPARSE, "missing '%s' in [verifier] of '%s' line %d (property %s)", role, path,
					 sec->line, property);
	}
	for (i = 0; i < sec->n && strcmp(sec->e[i].key, "tol"); i++)
		;
	if (i == sec->n)
		return kbx_error(KBX_EPARSE, "missing 'tol' in [verifier] of '%s' line %d", path, sec->line);
	copy_bindings(sec, &t->verifier_params, &t->nverifier_params);
	return KBX_OK;
}

/* [static]: require = rule, rule ...; fatal = rule, ... (rule ids of tasks/rules.ini; the corpus
 * test checks that they exist and have the right kind). */
static enum kbx_status parse_name_list(const struct raw_entry *e, const char *path, const char *section, char ***out,
				       int *n)
{
	char *copy = xstrdup(e->value), *tok, *save = NULL;
	size_t cap = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *id = str_trim(tok);

		if (!is_ident(id)) {
			enum kbx_status st = kbx_error(KBX_EPARSE, "bad name '%s' in [%s] of '%s' line %d", id, section,
						       path, e->line);

			free(copy);
			return st;
		}
		XGROW(*out, (size_t)*n + 1, cap);
		(*out)[(*n)++] = xstrdup(id);
	}
	free(copy);
	return KBX_OK;
}

static enum kbx_status parse_static_section(struct task *t, const struct raw_section *sec)
{
	enum kbx_status st = KBX_OK;
	int i;

	for (i = 0; i < sec->n && !st; i++) {
		const struct raw_entry *e = &sec->e[i];

		if (!strcmp(e->key, "require"))
			st = parse_name_list(e, t->ini_path, "static", &t->static_require, &t->nstatic_require);
		else if (!strcmp(e->key, "fatal"))
			st = parse_name_list(e, t->ini_path, "static", &t->static_fatal, &t->nstatic_fatal);
		else
			st = kbx_error(KBX_EPARSE, "unknown key '%s' in [static] of '%s' line %d (expected require or fatal)",
				       e->key, t->ini_path, e->line);
	}
	return st;
}

/* [derive]: sizes = n, m (or none); values = off: REASON. core/derive.h says what they steer. */
static enum kbx_status parse_derive_section(struct task *t, const struct raw_section *sec)
{
	enum kbx_status st = KBX_OK;
	int i;

	for (i = 0; i < sec->n && !st; i++) {
		const struct raw_entry *e = &sec->e[i];

		if (!strcmp(e->key, "sizes")) {
			t->derive_sizes_given = 1;
			if (strcmp(e->value, "none") != 0)
				st = parse_name_list(e, t->ini_path, "derive", &t->derive_sizes, &t->nderive_sizes);
		} else if (!strcmp(e->key, "values")) {
			const char *v = e->value;

			if (strncmp(v, "off", 3) != 0 || (v[3] && v[3] != ':'))
				return kbx_error(KBX_EPARSE, "values = '%s' in [derive] of '%s' line %d: expected 'off: REASON'",
						 v, t->ini_path, e->line);
			v += 3 + (v[3] == ':');
			while (*v == ' ' || *v == '\t')
				v++;
			free(t->derive_values_off);
			t->derive_values_off = xstrdup(*v ? v : "no reason given");
		} else if (!strcmp(e->key, "base")) {
			free(t->derive_base);
			t->derive_base = xstrdup(e->value);
		} else if (!strcmp(e->key, "limit")) {
			char *end;

			t->derive_limit = strtoll(e->value, &end, 10);
			if (*end || t->derive_limit < 1)
				return kbx_error(KBX_EPARSE, "limit = '%s' in [derive] of '%s' line %d: expected an integer >= 1",
						 e->value, t->ini_path, e->line);
		} else {
			st = kbx_error(KBX_EPARSE,
				       "unknown key '%s' in [derive] of '%s' line %d (expected sizes, values, base or limit)",
				       e->key, t->ini_path, e->line);
		}
	}
	return st;
}

/* [python]: entry = NAME; signature = (PARAMS), a long one over indented lines. Only the shape is
 * checked here: the Python worker checks a candidate's function against it. */
static enum kbx_status parse_python_section(struct task *t, const struct raw_section *sec)
{
	int i;

	for (i = 0; i < sec->n; i++) {
		const struct raw_entry *e = &sec->e[i];
		size_t n = strlen(e->value);

		if (!strcmp(e->key, "entry")) {
			if (!is_ident(e->value))
				return kbx_error(KBX_EPARSE, "entry = '%s' in [python] of '%s' line %d: expected a Python identifier",
						 e->value, t->ini_path, e->line);
			t->py_entry = xstrdup(e->value);
		} else if (!strcmp(e->key, "signature")) {
			if (n < 2 || e->value[0] != '(' || e->value[n - 1] != ')')
				return kbx_error(KBX_EPARSE,
						 "signature = '%s' in [python] of '%s' line %d: expected the parameters in "
						 "parentheses, as in (input, approximate='none')", e->value, t->ini_path, e->line);
			t->py_signature = xstrdup(e->value);
		} else {
			return kbx_error(KBX_EPARSE, "unknown key '%s' in [python] of '%s' line %d (expected entry or signature)",
					 e->key, t->ini_path, e->line);
		}
	}
	if (!t->py_entry || !t->py_signature)
		return kbx_error(KBX_EPARSE, "[python] in '%s' line %d needs both entry and signature", t->ini_path,
				 sec->line);
	return KBX_OK;
}

/* [quant]: quant.h reads the keys; the output must be one of the task's outputs. */
static enum kbx_status parse_quant_section(struct task *t, const struct raw_section *sec)
{
	enum kbx_status st = KBX_OK;
	char where[1100];
	int i, found = 0;

	t->quant = xcalloc(1, sizeof(*t->quant));
	for (i = 0; i < sec->n && !st; i++) {
		snprintf(where, sizeof(where), "'%s' line %d", t->ini_path, sec->e[i].line);
		st = quant_spec_set(t->quant, sec->e[i].key, sec->e[i].value, where);
	}
	snprintf(where, sizeof(where), "'%s' line %d", t->ini_path, sec->line);
	if (!st)
		st = quant_spec_check(t->quant, where);
	for (i = 0; !st && i < t->nargs; i++)
		found |= (t->args[i].dir == ARG_OUT || t->args[i].dir == ARG_INOUT) && !strcmp(t->args[i].name, t->quant->output);
	if (!st && !found)
		st = kbx_error(KBX_EPARSE, "output = '%s' in [quant] of %s is not an output of the task", t->quant->output,
			       where);
	return st;
}

/* ---- the whole task ------------------------------------------------------------------------- */

static const char *const known_sections[] = { "task", "args", "tolerance", "tolerance.perf", "inputs", "perf",
					      "verifier", "static", "derive", "python", "quant" };

static enum kbx_status check_sections(const char *path, const struct ini_state *s)
{
	int i, j;
	size_t k;

	for (i = 0; i < s->nsecs; i++) {
		const char *name = s->secs[i].name;
		int known = strncmp(name, "case.", 5) == 0;

		for (k = 0; k < sizeof(known_sections) / sizeof(known_sections[0]); k++)
			known |= strcmp(name, known_sections[k]) == 0;
		if (!known)
			return kbx_error(KBX_EPARSE,
					 "unknown section '[%s]' in '%s' line %d (expected [task], [args], [tolerance], "
					 "[tolerance.perf], [inputs], [case.NAME], [perf], [verifier], [static], [derive], [python] or [quant])",
					 name, path, s->secs[i].line);
		for (j = 0; j < i; j++)
			if (strcmp(name, s->secs[j].name) == 0)
				return kbx_error(KBX_EPARSE, "duplicate section '[%s]' in '%s' line %d (first at line %d)", name,
						 path, s->secs[i].line, s->secs[j].line);
	}
	return KBX_OK;
}


static enum kbx_status find_examples(struct task *t)
{
	char *dir = xasprintf("%s/examples", t->dir);
	DIR *d = opendir(dir);
	struct dirent *de;
	int cap = 0;

	if (!d) {
		free(dir);
		return KBX_OK;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char *path;

		if (de->d_name[0] == '.' || len < 4 || strcmp(de->d_name + len - 3, ".cu") != 0)
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (!path_is_file(path)) {
			free(path);
			continue;
		}
		XGROW(t->examples, t->nexamples + 1, cap);
		t->examples[t->nexamples++] = path;
	}
	closedir(d);
	free(dir);
	if (t->nexamples > 1)
		qsort(t->examples, (size_t)t->nexamples, sizeof(*t->examples), cmp_str);
	return KBX_OK;
}

static enum kbx_status check_problems(const struct task *t)
{
	struct problem p;
	enum kbx_status st;
	int i;

	for (i = 0; i < t->ncases; i++) {
		st = problem_from_case(t, i, &p);
		if (st)
			return st;
		problem_free(&p);
	}
	for (i = 0; i < t->perf.nrows; i++) {
		struct tolerance tol;

		st = problem_from_perf(t, i, &p);
		if (st)
			return st;
		st = task_perf_tolerance(t, &p.env, &tol, NULL, 0);
		problem_free(&p);
		if (st)
			return kbx_wrap(st, "perf row %d", i + 1);
	}
	return KBX_OK;
}

/* [tolerance.perf] loosens an elementwise comparison at perf rows; nothing else uses it. */
static enum kbx_status check_perf_tolerance(const struct task *t)
{
	const char *why = NULL;

	if (!t->perf_tol.line)
		return KBX_OK;
	if (!t->perf_tol.rtol && !t->perf_tol.atol)
		why = "has neither rtol nor atol";
	else if (!t->perf.nrows)
		why = "needs a [perf] section";
	else if (t->tol.metric)
		why = "is for elementwise tolerances, and [tolerance] gives metric thresholds";
	else if (strcmp(t->verifier, "elementwise") != 0)
		why = "is for the elementwise verifier";
	if (why)
		return kbx_error(KBX_EPARSE, "[tolerance.perf] in '%s' line %d %s", t->ini_path, t->perf_tol.line, why);
	return KBX_OK;
}

/* [tolerance] exact names a second target for the metric thresholds of the task's one output. */
static enum kbx_status check_exact(const struct task *t)
{
	int i, outputs = 0;

	if (!t->exact_buf)
		return KBX_OK;
	for (i = 0; i < t->nargs; i++)
		outputs += t->args[i].dir == ARG_OUT || t->args[i].dir == ARG_INOUT;
	if (!t->tol.metric)
		return kbx_error(KBX_EPARSE, "exact in [tolerance] of '%s' line %d is for metric thresholds "
				 "(cosine_sim, l1_relative, rmse)", t->ini_path, t->exact_line);
	if (outputs != 1)
		return kbx_error(KBX_EPARSE, "exact in [tolerance] of '%s' line %d is for a task with one output "
				 "(this one has %d)", t->ini_path, t->exact_line, outputs);
	return KBX_OK;
}

/* text: the task.ini content, or NULL to read t->ini_path and check the files beside it. */
static enum kbx_status load(struct task *t, const char *text)
{
	struct ini_state s;
	const struct raw_section *sec;
	enum kbx_status st;
	int i, case_cap = 0;

	st = text ? taskini_parse(t->ini_path, text, strlen(text), &s) : taskini_read(t->ini_path, &s);
	if (st)
		goto out;
	st = check_sections(t->ini_path, &s);
	for (i = 0; !st && i < s.nsecs; i++)
		st = check_duplicates(t->ini_path, &s.secs[i]);
	if (st)
		goto out;

	sec = taskini_section(&s, "task");
	if (!sec) {
		st = kbx_error(KBX_EPARSE, "missing section [task] in '%s'", t->ini_path);
		goto out;
	}
	st = parse_task_section(t, sec);
	if (st)
		goto out;
	sec = taskini_section(&s, "args");
	if (!sec) {
		st = kbx_error(KBX_EPARSE, "missing section [args] in '%s'", t->ini_path);
		goto out;
	}
	st = parse_args_section(t, sec);
	if (st)
		goto out;

	for (i = 0; !st && i < s.nsecs; i++) {
		sec = &s.secs[i];
		if (strcmp(sec->name, "tolerance") == 0)
			st = parse_tolerance_section(t, sec);
		else if (strcmp(sec->name, "tolerance.perf") == 0)
			st = parse_perf_tolerance_section(t, sec);
		else if (strcmp(sec->name, "inputs") == 0)
			st = parse_inputs_section(t, sec);
		else if (strncmp(sec->name, "case.", 5) == 0)
			st = parse_case_section(t, sec, &case_cap);
		else if (strcmp(sec->name, "perf") == 0)
			st = parse_perf_section(t, sec);
		else if (strcmp(sec->name, "static") == 0)
			st = parse_static_section(t, sec);
		else if (strcmp(sec->name, "derive") == 0)
			st = parse_derive_section(t, sec);
		else if (strcmp(sec->name, "python") == 0)
			st = parse_python_section(t, sec);
		else if (strcmp(sec->name, "quant") == 0)
			st = parse_quant_section(t, sec);
		else if (strcmp(sec->name, "verifier") == 0)
			st = strcmp(t->verifier, "distribution") == 0 ? parse_verifier_section(t, sec)
			     : strcmp(t->verifier, "property") == 0 ? parse_property_section(t, sec)
			     : kbx_error(KBX_EPARSE,
					 "[verifier] in '%s' line %d needs 'verifier = distribution' or 'property' in [task]",
					 t->ini_path, sec->line);
	}
	if (st)
		goto out;
	if (strcmp(t->verifier, "elementwise") != 0 && !taskini_section(&s, "verifier")) {
		st = kbx_error(KBX_EPARSE, "'verifier = %s' in '%s' needs a [verifier] section", t->verifier, t->ini_path);
		goto out;
	}
	if (t->ncases == 0) {
		st = kbx_error(KBX_EPARSE, "no [case.NAME] section in '%s': a task needs correctness cases", t->ini_path);
		goto out;
	}
	if (t->derive_base) {
		for (i = 0; i < t->ncases && strcmp(t->cases[i].name, t->derive_base); i++)
			;
		if (i == t->ncases) {
			st = kbx_error(KBX_EPARSE, "base = '%s' in [derive] of '%s' names no [case.%s]", t->derive_base,
				       t->ini_path, t->derive_base);
			goto out;
		}
	}
	if (!t->mirrors)
		t->mirrors = xstrdup("");
	if (!text && !path_is_file(t->reference_path)) {
		st = kbx_error(KBX_ENOTFOUND, "missing reference '%s'", t->reference_path);
		goto out;
	}
	if (!text && t->stages_path && !path_is_file(t->stages_path)) {
		st = kbx_error(KBX_ENOTFOUND, "stages in '%s' line %d: no such file '%s'", t->ini_path, t->stages_line,
			       t->stages_path);
		goto out;
	}
	if (!text)
		st = find_examples(t);
	if (!st)
		st = check_perf_tolerance(t);
	if (!st)
		st = check_exact(t);
	if (!st)
		st = check_problems(t);
out:
	taskini_free(&s);
	return st;
}

/* The shared part of task_load and task_parse_text; dir and ini_path are taken over. */
static enum kbx_status load_task(const char *category, const char *name, char *dir, char *ini_path,
				 const char *text, struct task **out)
{
	struct task *t;
	enum kbx_status st;

	*out = NULL;
	if (!*category || !*name || strchr(category, '/') || strchr(name, '/') || category[0] == '.' ||
	    name[0] == '.') {
		free(dir);
		free(ini_path);
		return kbx_error(KBX_EINVAL, "bad task '%s/%s'", category, name);
	}
	t = xcalloc(1, sizeof(*t));
	t->name = xstrdup(name);
	t->category = xstrdup(category);
	t->id = xasprintf("%s/%s", category, name);
	t->dir = dir;
	t->ini_path = ini_path;
	t->reference_path = xasprintf("%s/reference.cu", t->dir);
	t->verifier = xstrdup("elementwise");
	t->tol.rtol = t->tol.atol = -1;
	t->tol.cosine_sim = t->tol.l1_relative = t->tol.rmse = -1;
	st = load(t, text);
	if (st) {
		task_free(t);
		return st;
	}
	*out = t;
	return KBX_OK;
}

enum kbx_status task_load(const char *root, const char *category, const char *name, struct task **out)
{
	char *dir = xasprintf("%s/%s/%s", root, category, name);

	return load_task(category, name, dir, xasprintf("%s/task.ini", dir), NULL, out);
}

enum kbx_status task_parse_text(const char *text, const char *path, const char *category, const char *name,
				struct task **out)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");

	return load_task(category, name, dir, xstrdup(path), text, out);
}

void task_free(struct task *t)
{
	int i, j;

	if (!t)
		return;
	free(t->id);
	free(t->name);
	free(t->category);
	free(t->summary);
	free(t->mirrors);
	free(t->verifier);
	free(t->dir);
	free(t->ini_path);
	free(t->reference_path);
	free(t->stages_path);
	free(t->exact_buf);
	for (i = 0; i < t->nargs; i++) {
		free(t->args[i].name);
		for (j = 0; j < t->args[i].ndim; j++)
			free(t->args[i].shape[j]);
		free(t->args[i].shape);
	}
	free(t->args);
	free_bindings(t->inputs, t->ninputs);
	for (i = 0; i < t->ncases; i++) {
		free(t->cases[i].name);
		free_bindings(t->cases[i].b, t->cases[i].nb);
	}
	free(t->cases);
	free_bindings(t->perf.b, t->perf.nb);
	free(t->perf.bytes);
	free(t->perf.flops);
	free(t->perf.input_size);
	free(t->perf.golden_off);
	free(t->perf_tol.rtol);
	free(t->perf_tol.atol);
	free(t->perf.flop_ceiling_off);
	for (i = 0; i < t->perf.npartial_inputs; i++)
		free(t->perf.partial_inputs[i]);
	free(t->perf.partial_inputs);
	for (i = 0; i < t->nstatic_require; i++)
		free(t->static_require[i]);
	free(t->static_require);
	for (i = 0; i < t->nstatic_fatal; i++)
		free(t->static_fatal[i]);
	free(t->static_fatal);
	free(t->quant);
	for (i = 0; i < t->nderive_sizes; i++)
		free(t->derive_sizes[i]);
	free(t->derive_sizes);
	free(t->derive_values_off);
	free(t->derive_base);
	free_bindings(t->verifier_params, t->nverifier_params);
	free(t->py_entry);
	free(t->py_signature);
	for (i = 0; i < t->nexamples; i++)
		free(t->examples[i]);
	free(t->examples);
	free(t);
}

const char *arg_dir_name(enum arg_dir d)
{
	switch (d) {
	case ARG_IN: return "in";
	case ARG_OUT: return "out";
	case ARG_INOUT: return "inout";
	case ARG_SCALAR: return "scalar";
	}
	return "?";
}

const struct task_arg *task_find_arg(const struct task *t, const char *name)
{
	int i;

	for (i = 0; i < t->nargs; i++)
		if (strcmp(t->args[i].name, name) == 0)
			return &t->args[i];
	return NULL;
}

const char *binding_get(const struct binding *b, int nb, const char *key)
{
	int i;

	for (i = nb - 1; i >= 0; i--)
		if (strcmp(b[i].key, key) == 0)
			return b[i].value;
	return NULL;
}
