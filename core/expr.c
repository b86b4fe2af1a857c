#include "expr.h"

#include <limits.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- environment ----------------------------------------------------------------------- */

void expr_env_set(struct expr_env *env, const char *name, struct expr_value v)
{
	if (env->n == env->cap) {
		int cap = env->cap ? env->cap * 2 : 8;

		env->names = xrealloc(env->names, (size_t)cap * sizeof(*env->names));
		env->values = xrealloc(env->values, (size_t)cap * sizeof(*env->values));
		env->cap = cap;
	}
	env->names[env->n] = xstrdup(name);
	env->values[env->n] = v;
	env->n++;
}

void expr_env_set_int(struct expr_env *env, const char *name, long long v)
{
	struct expr_value ev = { .is_float = 0, .i = v, .f = (double)v };

	expr_env_set(env, name, ev);
}

const struct expr_value *expr_env_get(const struct expr_env *env, const char *name)
{
	int i;

	if (!env)
		return NULL;
	for (i = env->n - 1; i >= 0; i--)
		if (strcmp(env->names[i], name) == 0)
			return &env->values[i];
	return NULL;
}

void expr_env_free(struct expr_env *env)
{
	int i;

	for (i = 0; i < env->n; i++)
		free(env->names[i]);
	free(env->names);
	free(env->values);
	env->names = NULL;
	env->values = NULL;
	env->n = env->cap = 0;
}

/* ---- parser ---------------------------------------------------------------------------- */

/* Deep enough for any real expression, shallow enough that "((((..." cannot exhaust the stack. */
#define EXPR_MAX_DEPTH 200

struct parser {
	const char *src;
	size_t pos;
	const struct expr_env *env;
	int eval;   /* 0: check the syntax only, look nothing up, compute nothing */
	int depth;
	int err_col;
};

/* The number parser must not follow the user's locale: the TUI calls setlocale() for wide
 * characters, and in many locales strtod() would stop at the '.' of "1.5". */
static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void c_locale_init(void)
{
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static int is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_ident_char(char c)
{
	return is_ident_start(c) || is_digit(c);
}

static void skip_space(struct parser *p)
{
	while (p->src[p->pos] == ' ' || p->src[p->pos] == '\t' || p->src[p->pos] == '\n' ||
	       p->src[p->pos] == '\r' || p->src[p->pos] == '\f' || p->src[p->pos] == '\v')
		p->pos++;
}

/* What stands at pos, for "found ..." in messages. */
static void describe(const struct parser *p, size_t pos, char *buf, size_t size)
{
	const char *s = p->src + pos;
	unsigned char c = (unsigned char)*s;
	size_t n = 0;

	if (c == '\0') {
		snprintf(buf, size, "the end");
		return;
	}
	if (is_ident_char((char)c) || c == '.') {
		while (n < 24 && (is_ident_char(s[n]) || s[n] == '.'))
			n++;
		snprintf(buf, size, "'%.*s'", (int)n, s);
		return;
	}
	if (c < 0x20 || c >= 0x7f)
		snprintf(buf, size, "byte 0x%02x", c);
	else
		snprintf(buf, size, "'%c'", c);
}

static enum kbx_status fail_at(struct parser *p, size_t pos, enum kbx_status st, const char *what)
{
	p->err_col = (int)pos;
	return kbx_error(st, "%s in expression '%s'", what, p->src);
}

static enum kbx_status expected(struct parser *p, const char *what)
{
	char found[64], msg[160];

	describe(p, p->pos, found, sizeof(found));
	snprintf(msg, sizeof(msg), "expected %s but found %s", what, found);
	return fail_at(p, p->pos, KBX_EPARSE, msg);
}

static struct expr_value int_value(long long i)
{
	struct expr_value v = { .is_float = 0, .i = i, .f = (double)i };

	return v;
}

static struct expr_value float_value(double f)
{
	struct expr_value v = { .is_float = 1, .i = 0, .f = f };

	return v;
}

static enum kbx_status parse_sum(struct parser *p, struct expr_value *out);

static enum kbx_status parse_number(struct parser *p, struct expr_value *out)
{
	size_t start = p->pos, i = p->pos;
	const char *s = p->src;
	int is_float = 0;

	while (is_digit(s[i]))
		i++;
	if (s[i] == '.') {
		is_float = 1;
		i++;
		while (is_digit(s[i]))
			i++;
	}
	if ((s[i] == 'e' || s[i] == 'E') &&
	    (is_digit(s[i + 1]) || ((s[i + 1] == '+' || s[i + 1] == '-') && is_digit(s[i + 2])))) {
		is_float = 1;
		i += 2;
		while (is_digit(s[i]))
			i++;
	}
	/* "2n", "1e", "1.5.2" are typos, not a number followed by something */
	if (is_ident_char(s[i]) || s[i] == '.') {
		char msg[96];
		size_t n = i;

		while (is_ident_char(s[n]) || s[n] == '.')
			n++;
		snprintf(msg, sizeof(msg), "malformed number '%.*s'", (int)(n - start > 40 ? 40 : n - start),
			 s + start);
		return fail_at(p, start, KBX_EPARSE, msg);
	}
	p->pos = i;
	if (is_float) {
		char buf[128], *end;
		double d;

		if (i - start >= sizeof(buf))
			return fail_at(p, start, KBX_EPARSE, "number too long");
		memcpy(buf, s + start, i - start);
		buf[i - start] = '\0';
		pthread_once(&c_locale_once, c_locale_init);
		d = c_locale ? strtod_l(buf, &end, c_locale) : strtod(buf, &end);
		if (*end != '\0') /* only if the C locale could not be made and "." is not the radix */
			return fail_at(p, start, KBX_EPARSE, "cannot read number");
		if (isinf(d))
			return fail_at(p, start, KBX_EINVAL, "number out of range");
		*out = float_value(d);
	} else {
		unsigned long long v = 0;
		size_t k;

		for (k = start; k < i; k++) {
			unsigned d = (unsigned)(s[k] - '0');

			if (v > (unsigned long long)(LLONG_MAX - d) / 10)
				return fail_at(p, start, KBX_EINVAL, "integer literal too large");
			v = v * 10 + d;
		}
		*out = int_value((long long)v);
	}
	return KBX_OK;
}

static enum kbx_status overflow(struct parser *p, size_t pos)
{
	return fail_at(p, pos, KBX_EINVAL, "integer overflow");
}

static enum kbx_status check_float(struct parser *p, size_t pos, double a, double b, double r,
				   struct expr_value *out)
{
	if (!isfinite(r) && isfinite(a) && isfinite(b))
		return fail_at(p, pos, KBX_EINVAL, "floating-point overflow");
	*out = float_value(r);
	return KBX_OK;
}

/* Apply a binary operator; pos is the operator's column, for messages. */
static enum kbx_status apply(struct parser *p, char op, size_t pos, struct expr_value a, struct expr_value b,
			     struct expr_value *out)
{
	long long r;

	if (!p->eval) {
		*out = int_value(1);
		return KBX_OK;
	}
	if (a.is_float || b.is_float) {
		double x = expr_as_double(a), y = expr_as_double(b);

		switch (op) {
		case '+': return check_float(p, pos, x, y, x + y, out);
		case '-': return check_float(p, pos, x, y, x - y, out);
		case '*': return check_float(p, pos, x, y, x * y, out);
		case '/':
			if (y == 0)
				return fail_at(p, pos, KBX_EINVAL, "division by zero");
			return check_float(p, pos, x, y, x / y, out);
		case '%':
			if (y == 0)
				return fail_at(p, pos, KBX_EINVAL, "division by zero");
			return check_float(p, pos, x, y, fmod(x, y), out);
		}
		return fail_at(p, pos, KBX_EPARSE, "unknown operator");
	}
	switch (op) {
	case '+':
		if (__builtin_add_overflow(a.i, b.i, &r))
			return overflow(p, pos);
		break;
	case '-':
		if (__builtin_sub_overflow(a.i, b.i, &r))
			return overflow(p, pos);
		break;
	case '*':
		if (__builtin_mul_overflow(a.i, b.i, &r))
			return overflow(p, pos);
		break;
	case '/':
		if (b.i == 0)
			return fail_at(p, pos, KBX_EINVAL, "division by zero");
		if (a.i == LLONG_MIN && b.i == -1)
			return overflow(p, pos);
		r = a.i / b.i;
		break;
	case '%':
		if (b.i == 0)
			return fail_at(p, pos, KBX_EINVAL, "division by zero");
		/* LLONG_MIN % -1 is 0 mathematically, but traps on x86 */
		r = b.i == -1 ? 0 : a.i % b.i;
		break;
	default:
		return fail_at(p, pos, KBX_EPARSE, "unknown operator");
	}
	*out = int_value(r);
	return KBX_OK;
}

static enum kbx_status call_function(struct parser *p, const char *name, size_t pos, struct expr_value *args,
				     int nargs, struct expr_value *out)
{
	static const struct {
		const char *name;
		int nargs;
	} functions[] = { { "cdiv", 2 }, { "min", 2 }, { "max", 2 }, { "pow2", 1 }, { "sqrt", 1 }, { "log2", 1 } };
	char msg[160];
	size_t f;

	for (f = 0; f < sizeof(functions) / sizeof(functions[0]); f++)
		if (strcmp(name, functions[f].name) == 0)
			break;
	if (f == sizeof(functions) / sizeof(functions[0])) {
		snprintf(msg, sizeof(msg), "unknown function '%.40s' (expected cdiv, min, max, pow2, sqrt or log2)", name);
		return fail_at(p, pos, KBX_EPARSE, msg);
	}
	if (nargs != functions[f].nargs) {
		snprintf(msg, sizeof(msg), "'%s' takes %d argument%s, not %d", name, functions[f].nargs,
			 functions[f].nargs == 1 ? "" : "s", nargs);
		return fail_at(p, pos, KBX_EPARSE, msg);
	}
	if (!p->eval) {
		*out = int_value(1);
		return KBX_OK;
	}
	if (strcmp(name, "pow2") == 0) {
		if (args[0].is_float) {
			double r = exp2(args[0].f);

			return check_float(p, pos, args[0].f, 0, r, out);
		}
		if (args[0].i < 0)
			return fail_at(p, pos, KBX_EINVAL, "pow2 of a negative number");
		if (args[0].i > 62)
			return overflow(p, pos);
		*out = int_value(1LL << args[0].i);
		return KBX_OK;
	}
	/* sqrt and log2 are for tolerance bounds that grow with a reduction's length (1e-5 * sqrt(k)):
	 * always float, defined on positive arguments (sqrt also at 0) */
	if (strcmp(name, "sqrt") == 0 || strcmp(name, "log2") == 0) {
		double x = expr_as_double(args[0]);

		if (name[0] == 's' ? x < 0 : x <= 0)
			return fail_at(p, pos, KBX_EINVAL, name[0] == 's' ? "sqrt of a negative number"
								  : "log2 of a number <= 0");
		return check_float(p, pos, x, 0, name[0] == 's' ? sqrt(x) : log2(x), out);
	}
	if (strcmp(name, "cdiv") == 0) {
		if (args[0].is_float || args[1].is_float) {
			double x = expr_as_double(args[0]), y = expr_as_double(args[1]);

			if (y == 0)
				return fail_at(p, pos, KBX_EINVAL, "division by zero");
			return check_float(p, pos, x, y, ceil(x / y), out);
		} else {
			long long a = args[0].i, b = args[1].i, q;

			if (b == 0)
				return fail_at(p, pos, KBX_EINVAL, "division by zero");
			if (a == LLONG_MIN && b == -1)
				return overflow(p, pos);
			q = a / b;
			/* C truncates toward zero; round up when the exact quotient is positive */
			if (a % b != 0 && ((a < 0) == (b < 0)))
				q++;
			*out = int_value(q);
			return KBX_OK;
		}
	}
	/* min, max */
	if (args[0].is_float || args[1].is_float) {
		double x = expr_as_double(args[0]), y = expr_as_double(args[1]);

		*out = float_value(name[1] == 'i' ? (x < y ? x : y) : (x > y ? x : y));
	} else {
		long long x = args[0].i, y = args[1].i;

		*out = int_value(name[1] == 'i' ? (x < y ? x : y) : (x > y ? x : y));
	}
	return KBX_OK;
}

static enum kbx_status parse_primary(struct parser *p, struct expr_value *out)
{
	const char *s = p->src;
	enum kbx_status st;

	skip_space(p);
	if (is_digit(s[p->pos]) || (s[p->pos] == '.' && is_digit(s[p->pos + 1])))
		return parse_number(p, out);
	if (s[p->pos] == '(') {
		p->pos++;
		st = parse_sum(p, out);
		if (st)
			return st;
		skip_space(p);
		if (s[p->pos] != ')')
			return expected(p, "')'");
		p->pos++;
		return KBX_OK;
	}
	if (is_ident_start(s[p->pos])) {
		const struct expr_value *bound;
		size_t start = p->pos, len;
		char name[64], msg[128];

		while (is_ident_char(s[p->pos]))
			p->pos++;
		len = p->pos - start;
		if (len >= sizeof(name))
			return fail_at(p, start, KBX_EPARSE, "name too long");
		memcpy(name, s + start, len);
		name[len] = '\0';
		skip_space(p);
		if (s[p->pos] == '(') {
			struct expr_value args[4];
			int nargs = 0;

			p->pos++;
			skip_space(p);
			if (s[p->pos] != ')') {
				for (;;) {
					struct expr_value v;

					st = parse_sum(p, &v);
					if (st)
						return st;
					if (nargs < 4)
						args[nargs] = v;
					nargs++;
					skip_space(p);
					if (s[p->pos] == ',') {
						p->pos++;
						continue;
					}
					if (s[p->pos] != ')')
						return expected(p, "',' or ')'");
					break;
				}
			}
			p->pos++;
			return call_function(p, name, start, args, nargs, out);
		}
		if (!p->eval) {
			*out = int_value(1);
			return KBX_OK;
		}
		bound = expr_env_get(p->env, name);
		if (!bound) {
			snprintf(msg, sizeof(msg), "unknown name '%s'", name);
			return fail_at(p, start, KBX_EPARSE, msg);
		}
		*out = *bound;
		return KBX_OK;
	}
	return expected(p, "a number, a name or '('");
}

static enum kbx_status parse_unary(struct parser *p, struct expr_value *out)
{
	enum kbx_status st;
	size_t pos;

	skip_space(p);
	if (p->src[p->pos] != '-' && p->src[p->pos] != '+')
		return parse_primary(p, out);
	pos = p->pos++;
	if (++p->depth > EXPR_MAX_DEPTH)
		return fail_at(p, pos, KBX_EPARSE, "expression nested too deeply");
	st = parse_unary(p, out);
	p->depth--;
	if (st || p->src[pos] == '+' || !p->eval)
		return st;
	if (out->is_float) {
		out->f = -out->f;
	} else {
		if (out->i == LLONG_MIN)
			return overflow(p, pos);
		*out = int_value(-out->i);
	}
	return KBX_OK;
}

static enum kbx_status parse_product(struct parser *p, struct expr_value *out)
{
	enum kbx_status st = parse_unary(p, out);

	while (!st) {
		struct expr_value rhs;
		size_t pos;
		char op;

		skip_space(p);
		op = p->src[p->pos];
		if (op != '*' && op != '/' && op != '%')
			break;
		pos = p->pos++;
		st = parse_unary(p, &rhs);
		if (!st)
			st = apply(p, op, pos, *out, rhs, out);
	}
	return st;
}

static enum kbx_status parse_sum(struct parser *p, struct expr_value *out)
{
	enum kbx_status st;

	if (++p->depth > EXPR_MAX_DEPTH)
		return fail_at(p, p->pos, KBX_EPARSE, "expression nested too deeply");
	st = parse_product(p, out);
	while (!st) {
		struct expr_value rhs;
		size_t pos;
		char op;

		skip_space(p);
		op = p->src[p->pos];
		if (op != '+' && op != '-')
			break;
		pos = p->pos++;
		st = parse_product(p, &rhs);
		if (!st)
			st = apply(p, op, pos, *out, rhs, out);
	}
	p->depth--;
	return st;
}

static enum kbx_status run(const char *src, const struct expr_env *env, int eval, struct expr_value *out,
			   int *err_col)
{
	struct parser p = { .src = src, .env = env, .eval = eval };
	struct expr_value v = { 0 };
	enum kbx_status st;

	if (err_col)
		*err_col = 0;
	skip_space(&p);
	if (src[p.pos] == '\0') {
		p.err_col = (int)p.pos;
		st = kbx_error(KBX_EPARSE, "empty expression");
	} else {
		st = parse_sum(&p, &v);
		if (!st) {
			skip_space(&p);
			if (src[p.pos] != '\0')
				st = expected(&p, "an operator or the end");
		}
	}
	if (st) {
		if (err_col)
			*err_col = p.err_col;
		return st;
	}
	if (out)
		*out = v;
	return KBX_OK;
}

enum kbx_status expr_eval(const char *src, const struct expr_env *env, struct expr_value *out, int *err_col)
{
	return run(src, env, 1, out, err_col);
}

enum kbx_status expr_check(const char *src, int *err_col)
{
	return run(src, NULL, 0, NULL, err_col);
}

enum kbx_status expr_eval_int(const char *src, const struct expr_env *env, long long *out, int *err_col)
{
	struct expr_value v;
	enum kbx_status st = expr_eval(src, env, &v, err_col);

	if (st)
		return st;
	if (!v.is_float) {
		*out = v.i;
		return KBX_OK;
	}
	/* 2^63 is the first double out of range */
	if (!isfinite(v.f) || v.f != trunc(v.f) || v.f >= 9223372036854775808.0 || v.f < -9223372036854775808.0)
		return kbx_error(KBX_EINVAL, "expression '%s' is not an integer (value %g)", src, v.f);
	*out = (long long)v.f;
	return KBX_OK;
}

enum kbx_status expr_eval_float(const char *src, const struct expr_env *env, double *out, int *err_col)
{
	struct expr_value v;
	enum kbx_status st = expr_eval(src, env, &v, err_col);

	if (st)
		return st;
	*out = expr_as_double(v);
	return KBX_OK;
}
