#include "inputs.h"

#include <ctype.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "expr.h"
#include "util.h"
#include "kbx/rng.h"

/* ---- parsing ----------------------------------------------------------------------------- */

/* Allowed argument counts as a bit mask (bit k: k arguments), defaults for the optional ones. */
static const struct gen_def {
	const char *name;
	enum gen_kind kind;
	unsigned nargs_mask;
	double def_a, def_b;
	const char *usage;
} gen_defs[] = {
	{ "randn", GEN_RANDN, 1u << 0, 0, 0, "randn" },
	{ "uniform", GEN_UNIFORM, 1u << 0 | 1u << 2, 0, 1, "uniform(lo, hi)" },
	{ "outlier", GEN_OUTLIER, 1u << 2, 0, 0, "outlier(p, scale)" },
	{ "randint", GEN_RANDINT, 1u << 2, 0, 0, "randint(lo, hi)" },
	{ "bool", GEN_BOOL, 1u << 0 | 1u << 1, 0.5, 0, "bool(p)" },
	{ "values", GEN_VALUES, 0, 0, 0, "values(v1, v2, ...)" },
	{ "zeros", GEN_ZEROS, 1u << 0, 0, 0, "zeros" },
	{ "ones", GEN_ONES, 1u << 0, 0, 0, "ones" },
	{ "full", GEN_FULL, 1u << 1, 0, 0, "full(v)" },
	{ "arange", GEN_ARANGE, 1u << 0 | 1u << 1 | 1u << 2, 0, 1, "arange(start, step)" },
	{ "special", GEN_SPECIAL, 1u << 0, 0, 0, "special" },
	{ "spd", GEN_SPD, 1u << 0 | 1u << 1, 1, 0, "spd(d)" },
	{ "diagdom", GEN_DIAGDOM, 1u << 0 | 1u << 1, 1, 0, "diagdom(d)" },
	{ "symmetric", GEN_SYMMETRIC, 1u << 0 | 1u << 2, 0, 1, "symmetric(lo, hi)" },
};

#define NGEN_DEFS ((int)(sizeof(gen_defs) / sizeof(gen_defs[0])))
#define GEN_EXPECTED "randn, uniform(lo, hi), outlier(p, scale), randint(lo, hi), bool(p), " \
	"values(...), zeros, ones, full(v), arange(start, step), special, spd(d), diagdom(d) or " \
	"symmetric(lo, hi)"

static const struct gen_def *find_def(enum gen_kind kind)
{
	int i;

	for (i = 0; i < NGEN_DEFS; i++)
		if (gen_defs[i].kind == kind)
			return &gen_defs[i];
	return NULL;
}

/* nan, inf, infinity with an optional sign: not expressions, but allowed as values. */
static int parse_special_literal(const char *s, double *out)
{
	int neg = 0;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (strcasecmp(s, "nan") == 0) {
		*out = neg ? -NAN : NAN;
		return 1;
	}
	if (strcasecmp(s, "inf") == 0 || strcasecmp(s, "infinity") == 0) {
		*out = neg ? -INFINITY : INFINITY;
		return 1;
	}
	return 0;
}

static enum kbx_status parse_arg(const char *arg, const struct expr_env *env, double *out)
{
	struct expr_value v;
	enum kbx_status st;

	if (parse_special_literal(arg, out))
		return KBX_OK;
	st = expr_eval(arg, env, &v, NULL);
	if (st)
		return st;
	*out = expr_as_double(v);
	/* "-0" is integer zero to the expression parser; values(-0) means the float -0. */
	if (*out == 0 && arg[0] == '-')
		*out = -0.0;
	return KBX_OK;
}

static int is_integral(double v)
{
	return isfinite(v) && v == trunc(v) && fabs(v) <= 9007199254740992.0;
}

static enum kbx_status check_params(const char *text, struct gen_spec *g)
{
	switch (g->kind) {
	case GEN_UNIFORM:
	case GEN_SYMMETRIC:
		if (!isfinite(g->a) || !isfinite(g->b) || !(g->a < g->b))
			return kbx_error(KBX_EINVAL, "bad generator '%s': expected finite lo < hi", text);
		break;
	case GEN_OUTLIER:
		if (!(g->a >= 0 && g->a <= 1) || !isfinite(g->b))
			return kbx_error(KBX_EINVAL, "bad generator '%s': expected 0 <= p <= 1 and a finite scale",
					 text);
		break;
	case GEN_RANDINT:
		if (!is_integral(g->a) || !is_integral(g->b) || !(g->a < g->b))
			return kbx_error(KBX_EINVAL, "bad generator '%s': expected integers lo < hi", text);
		break;
	case GEN_BOOL:
		if (!(g->a >= 0 && g->a <= 1))
			return kbx_error(KBX_EINVAL, "bad generator '%s': expected 0 <= p <= 1", text);
		break;
	case GEN_ARANGE:
		if (!isfinite(g->a) || !isfinite(g->b))
			return kbx_error(KBX_EINVAL, "bad generator '%s': expected finite start and step", text);
		break;
	case GEN_SPD:
	case GEN_DIAGDOM:
		if (!isfinite(g->a) || g->a < 0)
			return kbx_error(KBX_EINVAL, "bad generator '%s': expected a finite d >= 0", text);
		break;
	case GEN_RANDN: case GEN_VALUES: case GEN_ZEROS: case GEN_ONES: case GEN_FULL:
	case GEN_SPECIAL:
		break;
	}
	return KBX_OK;
}

static enum kbx_status parse_plain(const char *text, const struct expr_env *env, struct gen_spec *out);

/* "GEN * k": a top-level '*' (outside parentheses) scales an unbounded generator. */
enum kbx_status gen_parse_env(const char *text, const struct expr_env *env, struct gen_spec *out)
{
	const char *star = NULL, *p;
	int depth = 0;
	char *left, *right;
	double k;
	enum kbx_status st;

	for (p = text; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (*p == '*' && depth == 0 && !star)
			star = p;
	}
	if (!star)
		return parse_plain(text, env, out);
	left = xstrndup(text, (size_t)(star - text));
	right = str_trim(xstrdup(star + 1));
	st = *right ? parse_arg(right, env, &k) : kbx_error(KBX_EPARSE, "bad generator '%s': expected a number after '*'", text);
	if (st)
		kbx_wrap(st, "bad scale of generator '%s'", text);
	else if (!isfinite(k) || k == 0)
		st = kbx_error(KBX_EPARSE, "bad generator '%s': the scale must be finite and not 0", text);
	if (!st)
		st = parse_plain(left, env, out);
	if (!st && out->kind != GEN_RANDN && out->kind != GEN_OUTLIER) {
		gen_spec_free(out);
		memset(out, 0, sizeof(*out));
		st = kbx_error(KBX_EPARSE, "bad generator '%s': only randn and outlier can be scaled", text);
	}
	if (!st)
		out->scale = k;
	free(left);
	free(right);
	return st;
}

static enum kbx_status parse_plain(const char *text, const struct expr_env *env, struct gen_spec *out)
{
	const struct gen_def *def = NULL;
	const char *p = text, *name;
	size_t namelen;
	double *args = NULL;
	int nargs = 0, cap = 0, i;
	enum kbx_status st = KBX_OK;

	memset(out, 0, sizeof(*out));
	while (isspace((unsigned char)*p))
		p++;
	name = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	namelen = (size_t)(p - name);
	for (i = 0; i < NGEN_DEFS; i++)
		if (strlen(gen_defs[i].name) == namelen && strncmp(gen_defs[i].name, name, namelen) == 0)
			def = &gen_defs[i];
	if (!def)
		return kbx_error(KBX_EPARSE, "unknown generator '%s' (expected %s)", text, GEN_EXPECTED);
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '(') {
		const char *end;
		int depth = 0;

		/* The matching ')' must end the text. */
		for (end = p; *end; end++) {
			if (*end == '(')
				depth++;
			else if (*end == ')' && --depth == 0)
				break;
		}
		if (*end != ')')
			return kbx_error(KBX_EPARSE, "bad generator '%s': expected ')'", text);
		for (const char *q = end + 1; *q; q++)
			if (!isspace((unsigned char)*q))
				return kbx_error(KBX_EPARSE, "bad generator '%s': unexpected '%s' after ')'", text, q);
		p++;
		while (isspace((unsigned char)*p))
			p++;
		if (p < end) {
			/* split at commas outside parentheses: "values(1, max(2, 3))" */
			for (;;) {
				const char *s = p;
				char *arg;
				double v;

				depth = 0;
				while (p < end && !(depth == 0 && *p == ',')) {
					if (*p == '(')
						depth++;
					else if (*p == ')')
						depth--;
					p++;
				}
				arg = str_trim(xstrndup(s, (size_t)(p - s)));
				if (!*arg) {
					free(arg);
					st = kbx_error(KBX_EPARSE, "bad generator '%s': empty argument %d", text, nargs + 1);
					goto fail;
				}
				st = parse_arg(arg, env, &v);
				if (st) {
					kbx_wrap(st, "bad argument %d '%s' of generator '%s'", nargs + 1, arg, text);
					free(arg);
					goto fail;
				}
				free(arg);
				XGROW(args, nargs + 1, cap);
				args[nargs++] = v;
				if (p == end)
					break;
				p++;
			}
		}
	} else if (*p) {
		return kbx_error(KBX_EPARSE, "bad generator '%s': expected '(' or the end after '%.*s'", text,
				 (int)namelen, name);
	}

	if (def->kind == GEN_VALUES ? nargs < 1 : nargs > 30 || !(def->nargs_mask & (1u << nargs))) {
		st = kbx_error(KBX_EPARSE, "bad generator '%s': %d argument%s given, expected %s", text, nargs,
			       nargs == 1 ? "" : "s", def->usage);
		goto fail;
	}
	out->kind = def->kind;
	out->a = def->def_a;
	out->b = def->def_b;
	if (def->kind == GEN_VALUES) {
		out->values = args;
		out->nvalues = nargs;
		return KBX_OK;
	}
	if (nargs >= 1)
		out->a = args[0];
	if (nargs >= 2)
		out->b = args[1];
	free(args);
	args = NULL;
	st = check_params(text, out);
	if (st)
		goto fail;
	return KBX_OK;

fail:
	free(args);
	memset(out, 0, sizeof(*out));
	return st;
}

enum kbx_status gen_parse(const char *text, struct gen_spec *out)
{
	return gen_parse_env(text, NULL, out);
}

void gen_spec_free(struct gen_spec *g)
{
	if (!g)
		return;
	free(g->values);
	g->values = NULL;
	g->nvalues = 0;
}

/* ---- formatting -------------------------------------------------------------------------- */

/* Numbers are written in the C locale whatever the TUI set: "0,5" would split an argument. */
static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void c_locale_init(void)
{
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* Shortest of %.15g, %.16g, %.17g that reads back to the same double. */
static void add_number(struct sbuf *sb, double v)
{
	char buf[64];
	locale_t old = (locale_t)0;
	int prec;

	if (isnan(v)) {
		/* values(-nan) must read back bit for bit: keep the sign */
		sbuf_adds(sb, signbit(v) ? "-nan" : "nan");
		return;
	}
	if (isinf(v)) {
		sbuf_adds(sb, v < 0 ? "-inf" : "inf");
		return;
	}
	pthread_once(&c_locale_once, c_locale_init);
	if (c_locale)
		old = uselocale(c_locale);
	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (c_locale)
		uselocale(old);
	sbuf_adds(sb, buf);
}

char *gen_format(const struct gen_spec *g)
{
	const struct gen_def *def = find_def(g->kind);
	struct sbuf sb = SBUF_INIT;
	int i, nargs = 0;
	double args[2] = { g->a, g->b };

	if (!def)
		return xstrdup("?");
	sbuf_adds(&sb, def->name);
	if (g->kind == GEN_VALUES) {
		sbuf_adds(&sb, "(");
		for (i = 0; i < g->nvalues; i++) {
			if (i)
				sbuf_adds(&sb, ", ");
			add_number(&sb, g->values[i]);
		}
		sbuf_adds(&sb, ")");
		return sbuf_detach(&sb);
	}
	for (i = 0; i < 3; i++)
		if (def->nargs_mask & (1u << i))
			nargs = i;
	if (nargs) {
		sbuf_adds(&sb, "(");
		for (i = 0; i < nargs; i++) {
			if (i)
				sbuf_adds(&sb, ", ");
			add_number(&sb, args[i]);
		}
		sbuf_adds(&sb, ")");
	}
	if (g->scale != 0) {
		sbuf_adds(&sb, " * ");
		add_number(&sb, g->scale);
	}
	return sbuf_detach(&sb);
}

/* ---- checks ------------------------------------------------------------------------------ */

enum kbx_status gen_check(const struct gen_spec *g, enum dtype dt, const long long *shape, int ndim)
{
	const struct gen_def *def = find_def(g->kind);
	const char *name = def ? def->name : "?";
	int i;

	if (dt < 0 || dt >= DT_COUNT)
		return kbx_error(KBX_EINVAL, "bad dtype for generator '%s'", name);
	switch (g->kind) {
	case GEN_SPECIAL:
		if (!dtype_is_float(dt))
			return kbx_error(KBX_EINVAL, "generator 'special' needs a float dtype, not '%s'",
					 dtype_name(dt));
		break;
	case GEN_SPD:
	case GEN_DIAGDOM:
	case GEN_SYMMETRIC:
		if (!dtype_is_float(dt) || dtype_components(dt) != 1)
			return kbx_error(KBX_EINVAL, "generator '%s' needs a real float dtype, not '%s'", name,
					 dtype_name(dt));
		if (!shape || ndim < 2 || shape[ndim - 1] != shape[ndim - 2])
			return kbx_error(KBX_EINVAL, "generator '%s' needs a shape ending in a square matrix [..., n, n]",
					 name);
		break;
	case GEN_VALUES:
		if (!dtype_is_float(dt))
			for (i = 0; i < g->nvalues; i++)
				if (!isfinite(g->values[i]))
					return kbx_error(KBX_EINVAL, "generator 'values' has NaN or infinity for an integer dtype '%s'",
							 dtype_name(dt));
		break;
	case GEN_FULL:
		if (!dtype_is_float(dt) && !isfinite(g->a))
			return kbx_error(KBX_EINVAL, "generator 'full' has NaN or infinity for an integer dtype '%s'",
					 dtype_name(dt));
		break;
	case GEN_RANDN: case GEN_UNIFORM: case GEN_OUTLIER: case GEN_RANDINT: case GEN_BOOL:
	case GEN_ZEROS: case GEN_ONES: case GEN_ARANGE:
		break;
	}
	return KBX_OK;
}

/* ---- keys ---------------------------------------------------------------------------------- */

static uint64_t hash_field(uint64_t h, const char *s)
{
	static const unsigned char sep = 0;

	if (s)
		h = hash64(s, strlen(s), h);
	/* the NUL separator keeps ("ab", "c") and ("a", "bc") apart */
	return hash64(&sep, 1, h);
}

uint64_t gen_key(uint64_t seed, const char *task_id, const char *case_name, const char *arg)
{
	unsigned char le[8];
	uint64_t h;
	int i;

	/* little-endian bytes so that the key is the same on every machine */
	for (i = 0; i < 8; i++)
		le[i] = (unsigned char)(seed >> (8 * i));
	h = hash64(le, sizeof(le), HASH64_INIT);
	h = hash_field(h, task_id);
	h = hash_field(h, case_name);
	return hash_field(h, arg);
}

/* ---- draws ----------------------------------------------------------------------------------- */

#define TWO_PI 6.283185307179586476925286766559

/* Box-Muller on the two 53-bit uniforms of one Philox draw. */
static double randn_at(uint64_t key, uint64_t j)
{
	struct kbx_u4 r = kbx_draw4(key, j);
	double u1 = (double)((((uint64_t)r.x << 32) | r.y) >> 11) * (1.0 / 9007199254740992.0);
	double u2 = (double)((((uint64_t)r.z << 32) | r.w) >> 11) * (1.0 / 9007199254740992.0);

	/* 1 - u1 is in (0, 1] and exact: the log is finite */
	return sqrt(-2.0 * log(1.0 - u1)) * cos(TWO_PI * u2);
}

#define NSPECIAL 13

struct fill_ctx {
	const struct gen_spec *g;
	enum dtype dt;
	void *dst;
	size_t n;               /* elements */
	int comps;
	uint64_t key, key2;
	double special[NSPECIAL];
	double below_hi;        /* uniform: the largest value of dt below hi */
	uint64_t m;             /* diagdom, symmetric: the trailing square matrices' size */
};

static void special_table(enum dtype dt, double *t)
{
	double denorm, maxv, tiny;

	switch (dt) {
	case DT_F64:
		denorm = DBL_TRUE_MIN, maxv = DBL_MAX, tiny = DBL_MIN;
		break;
	case DT_F16:
		denorm = ldexp(1, -24), maxv = 65504, tiny = ldexp(1, -14);
		break;
	case DT_BF16:
		denorm = ldexp(1, -133), maxv = ldexp(255, 120), tiny = ldexp(1, -126);
		break;
	default:
		denorm = FLT_TRUE_MIN, maxv = FLT_MAX, tiny = FLT_MIN;
		break;
	}
	t[0] = NAN, t[1] = INFINITY, t[2] = -INFINITY, t[3] = 0.0, t[4] = -0.0;
	t[5] = denorm, t[6] = -denorm, t[7] = maxv, t[8] = -maxv, t[9] = tiny, t[10] = -tiny;
	t[11] = 1, t[12] = -1;
}

/* The largest value of a float dtype below hi (rounding to nearest can reach hi itself). */
double gen_largest_below(enum dtype dt, double hi)
{
	unsigned char tmp[8];
	double r;

	dtype_set(dt, tmp, 0, 0, hi);
	r = dtype_get(dt, tmp, 0, 0);
	if (r < hi)
		return r;
	switch (dt) {
	case DT_F64:
		return nextafter(r, -INFINITY);
	case DT_F16:
	case DT_BF16: {
		uint16_t b;

		memcpy(&b, tmp, 2);
		if (b == 0)
			b = 0x8001;
		else if (b & 0x8000)
			b++;
		else
			b--;
		memcpy(tmp, &b, 2);
		return dtype_get(dt, tmp, 0, 0);
	}
	default:
		return nextafterf((float)r, -INFINITY);
	}
}

static double value_at(const struct fill_ctx *c, uint64_t j)
{
	const struct gen_spec *g = c->g;

	switch (g->kind) {
	case GEN_RANDN:
		return randn_at(c->key, j) * (g->scale != 0 ? g->scale : 1);
	case GEN_UNIFORM:
		return g->a + (g->b - g->a) * kbx_uniform_f64(c->key, j);
	case GEN_OUTLIER: {
		double v = randn_at(c->key, j);

		if (kbx_uniform_f64(c->key2, j) < g->a)
			v *= g->b;
		return g->scale != 0 ? v * g->scale : v;
	}
	case GEN_RANDINT: {
		double v = g->a + floor(kbx_uniform_f64(c->key, j) * (g->b - g->a));

		return v < g->b ? v : g->b - 1;
	}
	case GEN_BOOL:
		return kbx_uniform_f64(c->key, j) < g->a ? 1 : 0;
	case GEN_VALUES:
		return g->values[j % (uint64_t)g->nvalues];
	case GEN_ZEROS:
		return 0;
	case GEN_ONES:
		return 1;
	case GEN_FULL:
		return g->a;
	case GEN_ARANGE:
		return g->a + (double)j * g->b;
	case GEN_SPECIAL:
		return j % 2 == 0 ? c->special[(j / 2) % NSPECIAL] : randn_at(c->key, j);
	case GEN_DIAGDOM:
		/* as spd's B: randn at the element's own index, d m added on the diagonal */
		return randn_at(c->key, j) + ((j % (c->m * c->m)) / c->m == j % c->m ? g->a * (double)c->m : 0.0);
	case GEN_SYMMETRIC: {
		uint64_t mat = c->m * c->m, in = j % mat, r = in / c->m, col = in % c->m;
		uint64_t at = j - in + (r < col ? r * c->m + col : col * c->m + r);

		return g->a + (g->b - g->a) * kbx_uniform_f64(c->key, at);
	}
	case GEN_SPD:
		break;
	}
	return 0;
}

static void fill_range(const struct fill_ctx *c, size_t lo, size_t hi)
{
	int check_hi = (c->g->kind == GEN_UNIFORM || c->g->kind == GEN_SYMMETRIC) && dtype_is_float(c->dt);
	size_t i;
	int k;

	for (i = lo; i < hi; i++) {
		for (k = 0; k < c->comps; k++) {
			uint64_t j = (uint64_t)i * (uint64_t)c->comps + (uint64_t)k;
			double v = value_at(c, j);

			dtype_set(c->dt, c->dst, i, k, v);
			if (check_hi && dtype_get(c->dt, c->dst, i, k) >= c->g->b)
				dtype_set(c->dt, c->dst, i, k, c->below_hi >= c->g->a ? c->below_hi : c->g->a);
		}
	}
}

static void fill_range_cb(void *arg, size_t lo, size_t hi)
{
	fill_range(arg, lo, hi);
}

/* ---- matrices -------------------------------------------------------------------------------- */

struct randn_job {
	double *out;
	uint64_t key, base;
};

static void randn_range_cb(void *arg, size_t lo, size_t hi)
{
	struct randn_job *job = arg;
	size_t i;

	for (i = lo; i < hi; i++)
		job->out[i] = randn_at(job->key, job->base + i);
}

/* A = B B^T / m + d I for one m x m matrix, written to element offset `off` of dst. Tiles of
 * A are handed out to threads; within a tile each entry sums over k in a fixed order, so the
 * result does not depend on the thread count. */
#define SPD_TILE 32

struct spd_job {
	const double *B;
	size_t m;
	double d;
	enum dtype dt;
	void *dst;
	size_t off;
	size_t ntiles;          /* per side */
};

/* acc[i][j] += sum over k in [k0, k1) of B[i0+i][k] * B[j0+j][k] for a 4 x 4 block: sixteen
 * independent sums keep the floating-point units busy; each one still adds in k order. */
static void spd_block4(double acc[SPD_TILE][SPD_TILE], const double *B, size_t m, size_t i0, size_t j0,
		       size_t i, size_t j, size_t k0, size_t k1)
{
	const double *p0 = B + (i0 + i) * m, *p1 = p0 + m, *p2 = p1 + m, *p3 = p2 + m;
	const double *q0 = B + (j0 + j) * m, *q1 = q0 + m, *q2 = q1 + m, *q3 = q2 + m;
	double a[4][4];
	size_t r, c, k;

	for (r = 0; r < 4; r++)
		for (c = 0; c < 4; c++)
			a[r][c] = acc[i + r][j + c];
	for (k = k0; k < k1; k++) {
		double x0 = p0[k], x1 = p1[k], x2 = p2[k], x3 = p3[k];
		double y0 = q0[k], y1 = q1[k], y2 = q2[k], y3 = q3[k];

		a[0][0] += x0 * y0; a[0][1] += x0 * y1; a[0][2] += x0 * y2; a[0][3] += x0 * y3;
		a[1][0] += x1 * y0; a[1][1] += x1 * y1; a[1][2] += x1 * y2; a[1][3] += x1 * y3;
		a[2][0] += x2 * y0; a[2][1] += x2 * y1; a[2][2] += x2 * y2; a[2][3] += x2 * y3;
		a[3][0] += x3 * y0; a[3][1] += x3 * y1; a[3][2] += x3 * y2; a[3][3] += x3 * y3;
	}
	for (r = 0; r < 4; r++)
		for (c = 0; c < 4; c++)
			acc[i + r][j + c] = a[r][c];
}

/* Tiles of SPD_TILE x SPD_TILE entries, k in blocks of SPD_KBLOCK so that the rows stay in
 * cache. Every entry is one sum in k order whatever the tiling, so the bits of A depend on
 * nothing but B. */
#define SPD_KBLOCK 256

static void spd_tile(const struct spd_job *job, size_t ti, size_t tj)
{
	double acc[SPD_TILE][SPD_TILE];
	size_t m = job->m, i0 = ti * SPD_TILE, j0 = tj * SPD_TILE;
	size_t ni = m - i0 < SPD_TILE ? m - i0 : SPD_TILE;
	size_t nj = m - j0 < SPD_TILE ? m - j0 : SPD_TILE;
	size_t i, j, k, k0, k1;

	memset(acc, 0, sizeof(acc));
	for (k0 = 0; k0 < m; k0 = k1) {
		k1 = m - k0 < SPD_KBLOCK ? m : k0 + SPD_KBLOCK;
		for (i = 0; i < ni; i += 4) {
			for (j = 0; j < nj; j += 4) {
				if (i + 4 <= ni && j + 4 <= nj) {
					spd_block4(acc, job->B, m, i0, j0, i, j, k0, k1);
					continue;
				}
				for (size_t r = i; r < i + 4 && r < ni; r++)
					for (size_t c = j; c < j + 4 && c < nj; c++) {
						const double *bi = job->B + (i0 + r) * m, *bj = job->B + (j0 + c) * m;
						double s = acc[r][c];

						for (k = k0; k < k1; k++)
							s += bi[k] * bj[k];
						acc[r][c] = s;
					}
			}
		}
	}
	for (i = 0; i < ni; i++)
		for (j = 0; j < nj; j++) {
			size_t r = i0 + i, c = j0 + j;
			double v = acc[i][j] / (double)m + (r == c ? job->d : 0.0);

			dtype_set(job->dt, job->dst, job->off + r * m + c, 0, v);
			dtype_set(job->dt, job->dst, job->off + c * m + r, 0, v);
		}
}

static void spd_rows_cb(void *arg, size_t lo, size_t hi)
{
	struct spd_job *job = arg;
	size_t t, tj;

	/* index t runs over tile rows interleaved so that every thread gets a fair share of the
	 * triangle: rows t and ntiles-1-t together have ntiles+1 tiles */
	for (t = lo; t < hi; t++) {
		size_t ti = t % 2 == 0 ? t / 2 : job->ntiles - 1 - t / 2;

		for (tj = 0; tj <= ti; tj++)
			spd_tile(job, ti, tj);
	}
}

/* spd(d): one B per matrix, then A = B B^T / m + d I (diagdom and symmetric are elementwise). */
static enum kbx_status fill_matrices(const struct gen_spec *g, enum dtype dt, void *dst, size_t n, size_t m,
				     uint64_t key)
{
	size_t mat, nmat, b;
	double *B;

	if (m == 0)
		return KBX_OK;
	mat = m * m;
	nmat = n / mat;
	B = xmalloc(mat * sizeof(*B));
	for (b = 0; b < nmat; b++) {
		struct randn_job rj = { B, key, (uint64_t)(b * mat) };
		struct spd_job sj = { B, m, g->a, dt, dst, b * mat, (m + SPD_TILE - 1) / SPD_TILE };

		parallel_for(mat, 1 << 16, randn_range_cb, &rj);
		parallel_for(sj.ntiles, m >= 256 ? 1 : sj.ntiles, spd_rows_cb, &sj);
	}
	free(B);
	return KBX_OK;
}

/* ---- filling ----------------------------------------------------------------------------- */

enum kbx_status gen_matrix_size(const struct gen_spec *g, size_t n, const long long *shape, int ndim, uint64_t *m)
{
	size_t numel = 1;
	int i;

	*m = 0;
	if (g->kind != GEN_SPD && g->kind != GEN_DIAGDOM && g->kind != GEN_SYMMETRIC)
		return KBX_OK;
	if (!shape || ndim < 1)
		return kbx_error(KBX_EINVAL, "bad shape for generator");
	for (i = 0; i < ndim; i++) {
		if (shape[i] < 0 || (shape[i] && numel > SIZE_MAX / (size_t)shape[i]))
			return kbx_error(KBX_EINVAL, "bad shape for generator");
		numel *= (size_t)shape[i];
	}
	if (numel != n)
		return kbx_error(KBX_EINVAL, "shape has %zu elements, buffer %zu", numel, n);
	*m = (uint64_t)shape[ndim - 1];
	if (g->kind == GEN_SPD && *m && *m > ((uint64_t)1 << 28) / *m)
		return kbx_error(KBX_EINVAL, "generator 'spd': matrix of %llu x %llu is too large", (unsigned long long)*m,
				 (unsigned long long)*m);
	return KBX_OK;
}

enum kbx_status gen_fill(const struct gen_spec *g, enum dtype dt, void *dst, size_t n,
			 const long long *shape, int ndim, uint64_t key)
{
	struct fill_ctx c;
	enum kbx_status st;
	uint64_t m;

	st = gen_check(g, dt, shape, ndim);
	if (st)
		return st;
	if (g->kind == GEN_VALUES && (g->nvalues < 1 || !g->values))
		return kbx_error(KBX_EINVAL, "generator 'values' has no values");
	if (n == 0)
		return KBX_OK;
	if (!dst)
		return kbx_error(KBX_EINVAL, "no memory to fill");
	st = gen_matrix_size(g, n, shape, ndim, &m);
	if (st)
		return st;
	if (g->kind == GEN_SPD)
		return fill_matrices(g, dt, dst, n, (size_t)m, key);
	memset(&c, 0, sizeof(c));
	c.g = g;
	c.dt = dt;
	c.dst = dst;
	c.n = n;
	c.comps = dtype_components(dt);
	c.key = key;
	c.key2 = kbx_subseed(key, 1);
	special_table(dt, c.special);
	if ((g->kind == GEN_UNIFORM || g->kind == GEN_SYMMETRIC) && dtype_is_float(dt))
		c.below_hi = gen_largest_below(dt, g->b);
	c.m = m;
	parallel_for(n, 1 << 16, fill_range_cb, &c);
	return KBX_OK;
}
