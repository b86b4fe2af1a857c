#include "problem.h"

#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"
#include "util.h"

/* Far more rows than any sweep has (KernelBenchX: 31 at most); guards against
 * "range(0..1000000000)" eating time and memory. */
#define PERF_MAX_ITEMS 256
#define INPUT_SIZE_MAX_DEPTH 32

/* ---- lists ------------------------------------------------------------------------------- */

void perf_list_free(char **items, int nitems)
{
	int i;

	if (!items)
		return;
	for (i = 0; i < nitems; i++)
		free(items[i]);
	free(items);
}

/* If s is `fn(body)` with the parenthesis closing at the very end, return a copy of body. */
static char *call_body(const char *s, const char *fn)
{
	size_t n = strlen(fn), len;
	const char *p;
	int depth = 0;

	if (strncmp(s, fn, n) != 0)
		return NULL;
	p = s + n;
	while (isspace((unsigned char)*p))
		p++;
	if (*p != '(')
		return NULL;
	len = strlen(p);
	if (len < 2 || p[len - 1] != ')')
		return NULL;
	/* the '(' must match the final ')': "pow2(1)+pow2(2)" is an expression */
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '(')
			depth++;
		else if (p[i] == ')' && --depth == 0 && i != len - 1)
			return NULL;
	}
	return xstrndup(p + 1, len - 2);
}

static enum kbx_status eval_bound(const char *text, const char *whole, long long *out)
{
	char *t = str_trim(xstrdup(text));
	enum kbx_status st = expr_eval_int(t, NULL, out, NULL);

	if (st)
		kbx_wrap(st, "bad bound '%s' in list '%s'", t, whole);
	free(t);
	return st;
}

static void push_item(char ***items, int *n, int *cap, char *s)
{
	XGROW(*items, *n + 1, *cap);
	(*items)[(*n)++] = s;
}

/* One comma-separated part: pow2(a..b), range(a..b:step) or a plain expression. */
static enum kbx_status expand_part(const char *part, const char *whole, char ***items, int *n, int *cap)
{
	char *body, *dots, *colon;
	long long a, b, step = 1;
	enum kbx_status st;
	int is_pow2;

	body = call_body(part, "pow2");
	is_pow2 = body != NULL;
	if (!body)
		body = call_body(part, "range");
	if (!body || !(dots = strstr(body, ".."))) {
		if (body && !is_pow2) {
			free(body);
			return kbx_error(KBX_EPARSE, "bad list '%s': expected range(a..b) or range(a..b:step)", whole);
		}
		free(body);
		push_item(items, n, cap, xstrdup(part));
		return KBX_OK;
	}
	*dots = '\0';
	colon = strchr(dots + 2, ':');
	if (colon)
		*colon = '\0';
	if (is_pow2 && colon) {
		free(body);
		return kbx_error(KBX_EPARSE, "bad list '%s': pow2(a..b) takes no step", whole);
	}
	st = eval_bound(body, whole, &a);
	if (!st)
		st = eval_bound(dots + 2, whole, &b);
	if (!st && colon)
		st = eval_bound(colon + 1, whole, &step);
	free(body);
	if (st)
		return st;
	if (is_pow2) {
		if (a < 0 || b > 62 || a > b)
			return kbx_error(KBX_EINVAL, "bad list '%s': expected pow2(a..b) with 0 <= a <= b <= 62", whole);
		if (*n + (b - a + 1) > PERF_MAX_ITEMS)
			return kbx_error(KBX_EINVAL, "list '%s' is too long (at most %d items)", whole, PERF_MAX_ITEMS);
		for (long long k = a; k <= b; k++)
			push_item(items, n, cap, xasprintf("%lld", 1LL << k));
		return KBX_OK;
	}
	if (step <= 0 || a > b)
		return kbx_error(KBX_EINVAL, "bad list '%s': expected range(a..b:step) with a <= b and step > 0", whole);
	/* (b - a) may overflow for extreme bounds; count in unsigned arithmetic */
	if (((unsigned long long)b - (unsigned long long)a) / (unsigned long long)step + 1 + (unsigned long long)*n >
	    PERF_MAX_ITEMS)
		return kbx_error(KBX_EINVAL, "list '%s' is too long (at most %d items)", whole, PERF_MAX_ITEMS);
	for (long long v = a;; v += step) {
		push_item(items, n, cap, xasprintf("%lld", v));
		/* v <= b, so the unsigned difference is exact and v + step cannot overflow */
		if ((unsigned long long)b - (unsigned long long)v < (unsigned long long)step)
			break;
	}
	return KBX_OK;
}

enum kbx_status perf_list_expand(const char *value, char ***items_out, int *nitems_out)
{
	char **items = NULL;
	int n = 0, cap = 0, depth = 0;
	const char *p = value, *start = value;
	char quote = 0;
	enum kbx_status st = KBX_OK;

	*items_out = NULL;
	*nitems_out = 0;
	for (;; p++) {
		if (quote) {
			if (*p == '\0')
				break;
			if (*p == quote)
				quote = 0;
			continue;
		}
		if (*p == '"') {
			quote = *p;
		} else if (*p == '(' || *p == '[') {
			depth++;
		} else if ((*p == ')' || *p == ']') && depth > 0) {
			depth--;
		} else if ((*p == ',' && depth == 0) || *p == '\0') {
			char *part = str_trim(xstrndup(start, (size_t)(p - start)));

			if (!*part) {
				st = kbx_error(KBX_EPARSE, "empty item in list '%s'", value);
			} else {
				st = expand_part(part, value, &items, &n, &cap);
			}
			free(part);
			if (st || *p == '\0')
				break;
			start = p + 1;
		}
	}
	if (!st && quote)
		st = kbx_error(KBX_EPARSE, "unterminated quote in list '%s'", value);
	if (st) {
		perf_list_free(items, n);
		return st;
	}
	*items_out = items;
	*nitems_out = n;
	return KBX_OK;
}

/* ---- input_size ---------------------------------------------------------------------------- */

struct tparser {
	const char *src;
	const char *p;
	const struct expr_env *env;
	int depth;
};

static enum kbx_status tmpl_value(struct tparser *tp, json_t **out);

static void tskip(struct tparser *tp)
{
	while (isspace((unsigned char)*tp->p))
		tp->p++;
}

static enum kbx_status tmpl_string(struct tparser *tp, json_t **out)
{
	struct sbuf sb = SBUF_INIT;
	const char *p = tp->p + 1;

	for (; *p && *p != '"'; p++) {
		if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
			p++;
		sbuf_add(&sb, p, 1);
	}
	if (*p != '"') {
		sbuf_release(&sb);
		return kbx_error(KBX_EPARSE, "unterminated string in input_size '%s'", tp->src);
	}
	tp->p = p + 1;
	*out = json_string(sb.buf ? sb.buf : "");
	sbuf_release(&sb);
	if (!*out)
		return kbx_error(KBX_EPARSE, "string in input_size '%s' is not valid UTF-8", tp->src);
	return KBX_OK;
}

static enum kbx_status tmpl_scalar(struct tparser *tp, json_t **out)
{
	const char *s = tp->p;
	int depth = 0;
	char *text;
	struct expr_value v;
	enum kbx_status st;

	while (*tp->p && !(depth == 0 && (*tp->p == ',' || *tp->p == ']' || *tp->p == '['))) {
		if (*tp->p == '(')
			depth++;
		else if (*tp->p == ')')
			depth--;
		tp->p++;
	}
	text = str_trim(xstrndup(s, (size_t)(tp->p - s)));
	if (!*text) {
		free(text);
		return kbx_error(KBX_EPARSE, "expected a value in input_size '%s' at column %d", tp->src,
				 (int)(s - tp->src) + 1);
	}
	if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0) {
		*out = json_boolean(text[0] == 't');
	} else if (strcmp(text, "null") == 0) {
		*out = json_null();
	} else {
		st = expr_eval(text, tp->env, &v, NULL);
		if (st) {
			kbx_wrap(st, "in input_size '%s'", tp->src);
			free(text);
			return st;
		}
		if (v.is_float && !isfinite(v.f)) {
			st = kbx_error(KBX_EINVAL, "'%s' in input_size '%s' is not finite", text, tp->src);
			free(text);
			return st;
		}
		*out = v.is_float ? json_real(v.f) : json_integer(v.i);
	}
	free(text);
	return KBX_OK;
}

static enum kbx_status tmpl_array(struct tparser *tp, json_t **out)
{
	json_t *arr = json_array();
	enum kbx_status st;

	if (++tp->depth > INPUT_SIZE_MAX_DEPTH) {
		json_decref(arr);
		return kbx_error(KBX_EPARSE, "input_size '%s' is nested too deeply", tp->src);
	}
	tp->p++;
	tskip(tp);
	if (*tp->p == ']') {
		tp->p++;
		tp->depth--;
		*out = arr;
		return KBX_OK;
	}
	for (;;) {
		json_t *item;

		st = tmpl_value(tp, &item);
		if (st) {
			json_decref(arr);
			return st;
		}
		json_array_append_new(arr, item);
		tskip(tp);
		if (*tp->p == ',') {
			tp->p++;
			continue;
		}
		if (*tp->p == ']') {
			tp->p++;
			break;
		}
		json_decref(arr);
		return kbx_error(KBX_EPARSE, "expected ',' or ']' in input_size '%s' at column %d", tp->src,
				 (int)(tp->p - tp->src) + 1);
	}
	tp->depth--;
	*out = arr;
	return KBX_OK;
}

static enum kbx_status tmpl_value(struct tparser *tp, json_t **out)
{
	tskip(tp);
	if (*tp->p == '[')
		return tmpl_array(tp, out);
	if (*tp->p == '"')
		return tmpl_string(tp, out);
	return tmpl_scalar(tp, out);
}

enum kbx_status problem_input_size(const char *tmpl, const struct expr_env *env, char **json)
{
	struct tparser tp = { tmpl, tmpl, env, 0 };
	json_t *v = NULL;
	enum kbx_status st;
	char *text;

	*json = NULL;
	st = tmpl_value(&tp, &v);
	if (st)
		return st;
	tskip(&tp);
	if (*tp.p) {
		json_decref(v);
		return kbx_error(KBX_EPARSE, "unexpected '%s' at the end of input_size '%s'", tp.p, tmpl);
	}
	text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(v);
	if (!text)
		return kbx_error(KBX_ENOMEM, "cannot write input_size '%s' as JSON", tmpl);
	*json = xstrdup(text);
	free(text);
	return KBX_OK;
}

/* ---- problems ------------------------------------------------------------------------------ */

struct where {
	const struct task *t;
	const char *what;       /* "case 'x'" or "perf row 3" */
	int line;               /* of the case or [perf] header */
};

static int is_buffer(const struct task_arg *a)
{
	return a && a->dir != ARG_SCALAR;
}

/* Value of binding `b` for perf row `row` (row < 0: the value itself). */
static enum kbx_status row_value(const struct where *w, const struct binding *b, int row, char **out)
{
	char **items;
	int n;
	enum kbx_status st;

	if (row < 0) {
		*out = xstrdup(b->value);
		return KBX_OK;
	}
	st = perf_list_expand(b->value, &items, &n);
	if (st)
		return kbx_wrap(st, "cannot expand '%s' in %s of '%s' line %d", b->key, w->what, w->t->ini_path, b->line);
	if (n == 1) {
		*out = items[0];
		free(items);
		return KBX_OK;
	}
	if (row >= n) {
		perf_list_free(items, n);
		return kbx_error(KBX_EINVAL, "'%s' in '%s' line %d has %d values, no row %d", b->key,
				 w->t->ini_path, b->line, n, row);
	}
	*out = items[row];
	items[row] = NULL;
	perf_list_free(items, n);
	return KBX_OK;
}

static enum kbx_status bind_values(const struct where *w, const struct binding *bs, int nb, int row,
				   struct expr_env *env)
{
	const struct task *t = w->t;
	int i;

	for (i = 0; i < nb; i++) {
		const struct binding *b = &bs[i];
		const struct task_arg *a = task_find_arg(t, b->key);
		struct expr_value v;
		enum kbx_status st;
		char *text = NULL;

		if (is_buffer(a)) {
			if (a->dir == ARG_OUT)
				return kbx_error(KBX_EINVAL, "'%s' is an output and takes no generator, in %s of '%s' line %d",
						 b->key, w->what, t->ini_path, b->line);
			continue;
		}
		st = row_value(w, b, row, &text);
		if (st)
			return st;
		st = expr_eval(text, env, &v, NULL);
		free(text);
		if (st)
			return kbx_wrap(st, "cannot evaluate '%s' in %s of '%s' line %d", b->key, w->what,
					t->ini_path, b->line);
		if (a && (a->dtype == DT_I32 || a->dtype == DT_I64)) {
			if (v.is_float) {
				if (!isfinite(v.f) || v.f != trunc(v.f) || fabs(v.f) >= 9223372036854775808.0)
					return kbx_error(KBX_EINVAL,
							 "scalar '%s' is %s and needs an integer, got %g, in %s of '%s' line %d",
							 b->key, dtype_name(a->dtype), v.f, w->what, t->ini_path, b->line);
				v.is_float = 0;
				v.i = (long long)v.f;
			}
			if (a->dtype == DT_I32 && (v.i < INT32_MIN || v.i > INT32_MAX))
				return kbx_error(KBX_EINVAL, "scalar '%s' = %lld does not fit i32, in %s of '%s' line %d",
						 b->key, v.i, w->what, t->ini_path, b->line);
			v.f = (double)v.i;
		} else if (a) {
			/* float scalars stay floats in the environment, as the kernel sees them */
			v.f = expr_as_double(v);
			v.is_float = 1;
		}
		expr_env_set(env, b->key, v);
	}
	return KBX_OK;
}

static const struct binding *find_binding(const struct binding *bs, int nb, const char *key)
{
	int i;

	for (i = nb - 1; i >= 0; i--)
		if (strcmp(bs[i].key, key) == 0)
			return &bs[i];
	return NULL;
}

static enum kbx_status build_buffer(const struct where *w, const struct binding *bs, int nb,
				    const struct expr_env *env, const struct task_arg *a, struct problem_buf *pb)
{
	const struct task *t = w->t;
	const struct binding *gb;
	struct gen_spec g;
	enum kbx_status st;
	int d;

	pb->arg = a;
	pb->ndim = a->ndim;
	if (a->ndim > PROBLEM_MAX_DIMS)
		return kbx_error(KBX_EINVAL, "'%s' has %d dimensions, at most %d, in '%s' line %d", a->name,
				 a->ndim, PROBLEM_MAX_DIMS, t->ini_path, a->line);
	pb->numel = 1;
	for (d = 0; d < a->ndim; d++) {
		long long v;

		st = expr_eval_int(a->shape[d], env, &v, NULL);
		if (st)
			return kbx_wrap(st, "shape of '%s' (line %d) in %s of '%s' line %d", a->name, a->line,
					w->what, t->ini_path, w->line);
		if (v < 0)
			return kbx_error(KBX_EINVAL, "dimension %d of '%s' is %lld, in %s of '%s' line %d", d + 1,
					 a->name, v, w->what, t->ini_path, w->line);
		pb->shape[d] = v;
		if (v && pb->numel > (SIZE_MAX / 16) / (size_t)v)
			return kbx_error(KBX_EINVAL, "'%s' is too large in %s of '%s' line %d", a->name, w->what,
					 t->ini_path, w->line);
		pb->numel *= (size_t)v;
	}
	pb->bytes = pb->numel * dtype_size(a->dtype);
	if (a->dir == ARG_OUT)
		return KBX_OK;

	gb = find_binding(bs, nb, a->name);
	if (!gb)
		gb = find_binding(t->inputs, t->ninputs, a->name);
	if (!gb)
		return kbx_error(KBX_EINVAL,
				 "no generator for input '%s' in %s of '%s' line %d (add '%s = ...' there or to [inputs])",
				 a->name, w->what, t->ini_path, w->line, a->name);
	st = gen_parse_env(gb->value, env, &g);
	if (st)
		return kbx_wrap(st, "generator of '%s' in %s of '%s' line %d", a->name, w->what, t->ini_path,
				gb->line);
	st = gen_check(&g, a->dtype, pb->shape, pb->ndim);
	if (st) {
		gen_spec_free(&g);
		return kbx_wrap(st, "generator of '%s' in %s of '%s' line %d", a->name, w->what, t->ini_path,
				gb->line);
	}
	pb->gen = gen_format(&g);
	gen_spec_free(&g);
	return KBX_OK;
}

static enum kbx_status build(const struct where *w, const struct binding *bs, int nb, int row,
			     struct problem *out)
{
	const struct task *t = w->t;
	enum kbx_status st;
	int i, nbufs = 0;

	out->bytes = out->flops = -1;
	st = bind_values(w, bs, nb, row, &out->env);
	if (st)
		return st;
	for (i = 0; i < t->nargs; i++) {
		const struct task_arg *a = &t->args[i];

		if (a->dir == ARG_SCALAR && !expr_env_get(&out->env, a->name))
			return kbx_error(KBX_EINVAL, "%s of '%s' line %d does not bind scalar '%s' (add '%s = ...')",
					 w->what, t->ini_path, w->line, a->name, a->name);
		nbufs += a->dir != ARG_SCALAR;
	}
	out->bufs = xcalloc((size_t)nbufs + 1, sizeof(*out->bufs));
	for (i = 0; i < t->nargs; i++) {
		if (t->args[i].dir == ARG_SCALAR)
			continue;
		st = build_buffer(w, bs, nb, &out->env, &t->args[i], &out->bufs[out->nbufs]);
		out->nbufs++;
		if (st)
			return st;
	}
	return KBX_OK;
}

enum kbx_status problem_from_case(const struct task *t, int case_index, struct problem *out)
{
	if (case_index < 0 || case_index >= t->ncases) {
		memset(out, 0, sizeof(*out));
		return kbx_error(KBX_EINVAL, "task '%s' has no case %d", t->id, case_index);
	}
	return problem_from_case_spec(t, &t->cases[case_index], out);
}

enum kbx_status problem_from_case_spec(const struct task *t, const struct task_case *c, struct problem *out)
{
	struct where w;
	enum kbx_status st;
	char *what;

	memset(out, 0, sizeof(*out));
	what = xasprintf("case '%s'", c->name);
	w.t = t;
	w.what = what;
	w.line = c->line;
	out->name = xstrdup(c->name);
	st = build(&w, c->b, c->nb, -1, out);
	free(what);
	if (st)
		problem_free(out);
	return st;
}

enum kbx_status problem_from_perf(const struct task *t, int row, struct problem *out)
{
	const struct task_perf *pf = &t->perf;
	struct where w;
	enum kbx_status st;
	char *what;

	memset(out, 0, sizeof(*out));
	if (row < 0 || row >= pf->nrows)
		return kbx_error(KBX_EINVAL, "task '%s' has no perf row %d", t->id, row);
	what = xasprintf("perf row %d", row);
	w.t = t;
	w.what = what;
	w.line = pf->line;
	out->name = xasprintf("perf[%d]", row);
	st = build(&w, pf->b, pf->nb, row, out);
	if (!st && pf->bytes) {
		st = expr_eval_float(pf->bytes, &out->env, &out->bytes, NULL);
		if (st)
			kbx_wrap(st, "cannot evaluate 'bytes' in %s of '%s' line %d", what, t->ini_path, pf->bytes_line);
	}
	if (!st && pf->flops) {
		st = expr_eval_float(pf->flops, &out->env, &out->flops, NULL);
		if (st)
			kbx_wrap(st, "cannot evaluate 'flops' in %s of '%s' line %d", what, t->ini_path, pf->flops_line);
	}
	if (!st && pf->input_size) {
		st = problem_input_size(pf->input_size, &out->env, &out->input_size);
		if (st)
			kbx_wrap(st, "cannot evaluate 'input_size' in %s of '%s' line %d", what, t->ini_path,
				 pf->input_size_line);
	}
	free(what);
	if (st)
		problem_free(out);
	return st;
}

void problem_free(struct problem *p)
{
	int i;

	if (!p)
		return;
	free(p->name);
	expr_env_free(&p->env);
	for (i = 0; i < p->nbufs; i++)
		free((char *)p->bufs[i].gen);
	free(p->bufs);
	free(p->input_size);
	memset(p, 0, sizeof(*p));
}
