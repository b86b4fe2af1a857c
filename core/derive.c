#include "derive.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbx/rng.h"
#include "problem.h"
#include "util.h"

/* Boundary values of a free size: small, primes, non-multiples of 32 and 128, one past powers
 * of two. Those above the size's cap are dropped. */
static const long long boundary_sizes[] = {
	1, 2, 3, 5, 7, 9, 17, 31, 33, 65, 97, 100, 127, 129, 257, 1000, 1009, 1025, 4097, 10007, 65537, 1048577,
};
static const char *const auto_scales[] = { "3", "0.01", "-1" };

/* Every free size reaches at least this far (where the bytes allow): one past 4,096, the
 * largest block or tile a kernel might assume (1,024 threads of 4 elements each). */
#define DERIVE_MIN_CAP 4097LL

/* Derived problems above this many bytes (every buffer) are left out: a boundary case is about
 * the edges, not about size. */
#define DERIVE_MAX_BYTES ((size_t)512 << 20)

struct plan {
	int base;               /* index into t->cases; -1: nothing can be derived */
	char **sizes;           /* free size variables (owned copies) */
	long long *cap;         /* largest value each may take */
	int nsizes;
	const struct task_arg **scalable; /* in/inout float buffers drawn from randn/outlier */
	int nscalable;
};

static void plan_free(struct plan *p)
{
	int i;

	for (i = 0; i < p->nsizes; i++)
		free(p->sizes[i]);
	free(p->sizes);
	free(p->cap);
	free(p->scalable);
	memset(p, 0, sizeof(*p));
}

/* An integer literal, nothing else. */
static int int_literal(const char *s, long long *out)
{
	char *end;
	long long v;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || *end)
		return 0;
	*out = v;
	return 1;
}

static const char *case_gen(const struct task *t, const struct task_case *c, const char *arg)
{
	const char *g = binding_get(c->b, c->nb, arg);

	return g ? g : binding_get(t->inputs, t->ninputs, arg);
}

static int is_unbounded_gen(const char *g)
{
	while (g && isspace((unsigned char)*g))
		g++;
	if (!g || strchr(g, '*'))
		return 0;
	return (!strncmp(g, "randn", 5) && !isalnum((unsigned char)g[5]) && g[5] != '_') || !strncmp(g, "outlier(", 8);
}

/* The names that buffer shapes use (identifiers not followed by '('), each once. */
static int shape_names(const struct task *t, char **names, int max)
{
	int n = 0, i, d;

	for (i = 0; i < t->nargs; i++) {
		const struct task_arg *a = &t->args[i];

		if (a->dir == ARG_SCALAR)
			continue;
		for (d = 0; d < a->ndim; d++) {
			const char *p = a->shape[d];

			while (*p) {
				const char *s = p;
				int k, seen = 0;

				if (!isalpha((unsigned char)*p) && *p != '_') {
					p++;
					continue;
				}
				while (isalnum((unsigned char)*p) || *p == '_')
					p++;
				if (*p == '(')
					continue;
				for (k = 0; k < n; k++)
					seen |= strlen(names[k]) == (size_t)(p - s) && !strncmp(names[k], s, (size_t)(p - s));
				if (seen)
					continue;
				if (n == max)   /* more names than a derived plan cares about */
					return n;
				names[n++] = xstrndup(s, (size_t)(p - s));
			}
		}
	}
	return n;
}

/* An input the plan may scale: an in/inout float buffer the case draws from randn or outlier. */
static int scalable_input(const struct task *t, const struct task_case *c, const struct task_arg *a)
{
	return (a->dir == ARG_IN || a->dir == ARG_INOUT) && dtype_is_float(a->dtype) &&
	       is_unbounded_gen(case_gen(t, c, a->name));
}

/* The largest value a size takes in the task's cases, whatever way a case writes it (`4096`,
 * `512 * 512`, `pow2(22) + 3`, `n * s`): the case's bindings are evaluated as a run would. */
static long long case_max(const struct task *t, const char *size)
{
	long long most = 1;
	int i;

	for (i = 0; i < t->ncases; i++) {
		struct problem pb;
		const struct expr_value *v;

		if (problem_from_case(t, i, &pb)) {
			kbx_clear_error();
			continue;
		}
		v = expr_env_get(&pb.env, size);
		if (v && !v->is_float && v->i > most)
			most = v->i;
		problem_free(&pb);
	}
	return most;
}

static enum kbx_status plan_build(const struct task *t, struct plan *p)
{
	char *found[32];
	int nfound, i, j, best_scalable = -1;

	memset(p, 0, sizeof(*p));
	p->base = -1;
	if (t->verifier && !strcmp(t->verifier, "distribution"))
		return KBX_OK;

	if (t->derive_sizes_given) {
		p->sizes = xcalloc((size_t)t->nderive_sizes + 1, sizeof(*p->sizes));
		for (i = 0; i < t->nderive_sizes; i++)
			p->sizes[p->nsizes++] = xstrdup(t->derive_sizes[i]);
	} else {
		/* the one size of a 1-D task */
		nfound = shape_names(t, found, 32);
		p->sizes = xcalloc(1, sizeof(*p->sizes));
		if (nfound == 1)
			p->sizes[p->nsizes++] = found[0];
		else
			for (i = 0; i < nfound; i++)
				free(found[i]);
	}

	/* The base: the task's choice, else every free size an integer >= 1, the most scalable
	 * inputs, the first of equals. */
	for (i = 0; i < t->ncases; i++) {
		const struct task_case *c = &t->cases[i];
		int ok = 1, scalable = 0;
		long long v;

		if (t->derive_base && strcmp(t->derive_base, c->name))
			continue;

		for (j = 0; j < p->nsizes && ok; j++)
			ok = int_literal(binding_get(c->b, c->nb, p->sizes[j]), &v) && v >= 1;
		/* Fixed values (values(...) cycles, special) describe one shape: at another size they
		 * are another matrix altogether (a cyclic one is badly conditioned), so such a case is
		 * no base for new sizes. */
		for (j = 0; j < t->nargs && ok && p->nsizes; j++) {
			const struct task_arg *a = &t->args[j];
			const char *g = a->dir == ARG_IN || a->dir == ARG_INOUT ? case_gen(t, c, a->name) : NULL;

			while (g && isspace((unsigned char)*g))
				g++;
			ok = !g || (strncmp(g, "values", 6) && strncmp(g, "special", 7));
		}
		if (!ok)
			continue;
		for (j = 0; j < t->nargs; j++)
			scalable += scalable_input(t, c, &t->args[j]);
		if (scalable > best_scalable) {
			best_scalable = scalable;
			p->base = i;
		}
	}
	if (p->base < 0) {
		plan_free(p);
		p->base = -1;
		return KBX_OK;
	}
	p->cap = xcalloc((size_t)p->nsizes + 1, sizeof(*p->cap));
	for (j = 0; j < p->nsizes; j++) {
		long long most = case_max(t, p->sizes[j]);

		p->cap[j] = most > (LLONG_MAX / 8) ? most : (4 * most > DERIVE_MIN_CAP ? 4 * most : DERIVE_MIN_CAP);
		if (t->derive_limit > 0 && p->cap[j] > t->derive_limit)
			p->cap[j] = t->derive_limit;
	}
	if (!t->derive_values_off) {
		const struct task_case *c = &t->cases[p->base];

		p->scalable = xcalloc((size_t)t->nargs + 1, sizeof(*p->scalable));
		for (j = 0; j < t->nargs; j++)
			if (scalable_input(t, c, &t->args[j]))
				p->scalable[p->nscalable++] = &t->args[j];
	}
	return KBX_OK;
}

/* ---- building a case from a recipe ------------------------------------------------------- */

struct recipe {
	long long *size;        /* per plan size; -1 = the base's value */
	double scale;           /* 0 = not scaled */
	char scale_text[32];
};

static void set_binding(struct task_case *c, size_t *cap, const char *key, const char *value)
{
	int i;

	for (i = 0; i < c->nb; i++) {
		if (!strcmp(c->b[i].key, key)) {
			free(c->b[i].value);
			c->b[i].value = xstrdup(value);
			return;
		}
	}
	XGROW(c->b, (size_t)c->nb + 1, *cap);
	c->b[c->nb].key = xstrdup(key);
	c->b[c->nb].value = xstrdup(value);
	c->b[c->nb].line = c->line;
	c->nb++;
}

static void build_case(const struct task *t, const struct plan *p, const struct recipe *r, const char *name,
		       struct task_case *out)
{
	const struct task_case *base = &t->cases[p->base];
	size_t cap = (size_t)base->nb;
	int i;

	memset(out, 0, sizeof(*out));
	out->name = xstrdup(name);
	out->line = base->line;
	out->b = xcalloc(cap + 1, sizeof(*out->b));
	cap++;
	for (i = 0; i < base->nb; i++) {
		out->b[i].key = xstrdup(base->b[i].key);
		out->b[i].value = xstrdup(base->b[i].value);
		out->b[i].line = base->b[i].line;
	}
	out->nb = base->nb;
	for (i = 0; i < p->nsizes; i++) {
		char v[32];

		if (r->size[i] < 0)
			continue;
		snprintf(v, sizeof(v), "%lld", r->size[i]);
		set_binding(out, &cap, p->sizes[i], v);
	}
	if (r->scale != 0) {
		/* |f(sx)| scales by |s|^d for a function homogeneous of degree d in its d scaled inputs
		 * (a product, a matmul, an inverse with d = -1): so may its rounding error. The
		 * absolute tolerance follows that bound, up or down; the relative one needs nothing. */
		double k = fabs(r->scale) >= 1 ? fabs(r->scale) : 1 / fabs(r->scale);

		out->atol_scale = pow(k, p->nscalable);
		for (i = 0; i < p->nscalable; i++) {
			const char *g = case_gen(t, base, p->scalable[i]->name);
			char *v = xasprintf("%s * %s", g, r->scale_text);

			set_binding(out, &cap, p->scalable[i]->name, v);
			free(v);
		}
	}
}

/* The recipe as a name: "auto:n=97", "fuzz:n=37,scale=-0.251". */
static char *recipe_name(const char *prefix, const struct plan *p, const struct recipe *r)
{
	struct sbuf sb = SBUF_INIT;
	int i, first = 1;

	sbuf_addf(&sb, "%s:", prefix);
	for (i = 0; i < p->nsizes; i++) {
		if (r->size[i] < 0)
			continue;
		sbuf_addf(&sb, "%s%s=%lld", first ? "" : ",", p->sizes[i], r->size[i]);
		first = 0;
	}
	if (r->scale != 0)
		sbuf_addf(&sb, "%sscale=%s", first ? "" : ",", r->scale_text);
	return sbuf_detach(&sb);
}

static void recipe_init(struct recipe *r, const struct plan *p)
{
	int i;

	memset(r, 0, sizeof(*r));
	r->size = xcalloc((size_t)p->nsizes + 1, sizeof(*r->size));
	for (i = 0; i < p->nsizes; i++)
		r->size[i] = -1;
}

static void recipe_set_scale(struct recipe *r, double s)
{
	r->scale = s;
	snprintf(r->scale_text, sizeof(r->scale_text), "%.3g", s);
	r->scale = strtod(r->scale_text, NULL);  /* the name is the truth */
}

/* Whether the case builds into a problem of reasonable size. */
static int case_usable(const struct task *t, const struct task_case *c)
{
	struct problem pb;
	size_t bytes = 0;
	int i, ok;

	if (problem_from_case_spec(t, c, &pb)) {
		kbx_clear_error();
		return 0;
	}
	for (i = 0; i < pb.nbufs; i++)
		bytes += pb.bufs[i].bytes;
	ok = bytes <= DERIVE_MAX_BYTES;
	problem_free(&pb);
	return ok;
}

static void push_case(struct task_case **out, int *n, size_t *cap, struct task_case *c)
{
	XGROW(*out, (size_t)*n + 1, *cap);
	(*out)[(*n)++] = *c;
}

enum kbx_status derive_auto(const struct task *t, struct task_case **out, int *n)
{
	struct plan p;
	struct recipe r;
	size_t cap = 0;
	size_t k;
	int i;

	*out = NULL;
	*n = 0;
	plan_build(t, &p);
	if (p.base < 0)
		return KBX_OK;
	recipe_init(&r, &p);
	for (k = 0; p.nscalable && k < sizeof(auto_scales) / sizeof(auto_scales[0]); k++) {
		struct task_case c;
		char *name;

		recipe_set_scale(&r, strtod(auto_scales[k], NULL));
		name = recipe_name("auto", &p, &r);
		build_case(t, &p, &r, name, &c);
		free(name);
		if (case_usable(t, &c))
			push_case(out, n, &cap, &c);
		else
			derive_case_free(&c);
	}
	r.scale = 0;
	for (i = 0; i < p.nsizes; i++) {
		long long basev = 0;

		int_literal(binding_get(t->cases[p.base].b, t->cases[p.base].nb, p.sizes[i]), &basev);
		for (k = 0; k < sizeof(boundary_sizes) / sizeof(boundary_sizes[0]); k++) {
			struct task_case c;
			char *name;

			if (boundary_sizes[k] > p.cap[i] || boundary_sizes[k] == basev)
				continue;
			r.size[i] = boundary_sizes[k];
			name = recipe_name("auto", &p, &r);
			build_case(t, &p, &r, name, &c);
			free(name);
			if (case_usable(t, &c))
				push_case(out, n, &cap, &c);
			else
				derive_case_free(&c);
		}
		r.size[i] = -1;
	}
	free(r.size);
	plan_free(&p);
	return KBX_OK;
}

enum kbx_status derive_fuzz(const struct task *t, unsigned long long seed, int index, struct task_case *out)
{
	struct plan p;
	struct recipe r;
	uint64_t key = kbx_subseed(hash64(t->id, strlen(t->id), HASH64_INIT ^ seed), (uint64_t)index + 1);
	uint64_t j = 0;
	char *name;
	int i, attempt;

	memset(out, 0, sizeof(*out));
	plan_build(t, &p);
	if (p.base < 0 || (!p.nsizes && !p.nscalable)) {
		plan_free(&p);
		return kbx_error(KBX_EINVAL, "task '%s' has nothing kbx can vary: no free size (see [derive] sizes) and no "
				 "input drawn from randn or outlier", t->id);
	}
	recipe_init(&r, &p);
	/* A draw whose problem is too large is drawn again (a few times, then sizes shrink). */
	for (attempt = 0; attempt < 8; attempt++) {
		for (i = 0; i < p.nsizes; i++) {
			double u = kbx_uniform_f64(key, j++);
			long long cap = p.cap[i] >> (attempt > 4 ? attempt - 4 : 0);

			r.size[i] = (long long)floor(exp(u * log((double)(cap > 1 ? cap : 1) + 1.0)));
			if (r.size[i] < 1)
				r.size[i] = 1;
			if (r.size[i] > cap)
				r.size[i] = cap > 1 ? cap : 1;
		}
		if (p.nscalable) {
			double u = kbx_uniform_f64(key, j++), sign = kbx_uniform_f64(key, j++) < 0.5 ? -1 : 1;

			recipe_set_scale(&r, sign * pow(10.0, -2.0 + 3.0 * u));
		}
		name = recipe_name("fuzz", &p, &r);
		build_case(t, &p, &r, name, out);
		free(name);
		if (case_usable(t, out))
			break;
		derive_case_free(out);
	}
	free(r.size);
	plan_free(&p);
	if (!out->name)
		return kbx_error(KBX_EINVAL, "task '%s': no fuzz case of a usable size after 8 draws", t->id);
	return KBX_OK;
}

int derive_is_name(const char *name)
{
	return name && (!strncmp(name, "auto:", 5) || !strncmp(name, "fuzz:", 5));
}

/* Parse "n=37,scale=-0.251" against the plan. */
static enum kbx_status parse_recipe(const struct task *t, const struct plan *p, const char *name, struct recipe *r)
{
	char *copy = xstrdup(name + 5), *tok, *save = NULL;
	enum kbx_status st = KBX_OK;

	recipe_init(r, p);
	for (tok = strtok_r(copy, ",", &save); tok && !st; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		int i, found = 0;

		if (!eq) {
			st = kbx_error(KBX_EPARSE, "bad derived case '%s': expected KEY=VALUE, got '%s'", name, tok);
			break;
		}
		*eq = '\0';
		if (!strcmp(tok, "scale")) {
			double s = strtod(eq + 1, &end);

			if (*end || !isfinite(s) || s == 0 || !p->nscalable)
				st = kbx_error(KBX_EPARSE, "bad derived case '%s': %s", name,
					       p->nscalable ? "the scale must be a finite number other than 0"
							    : "no input of this task can be scaled");
			else
				recipe_set_scale(r, s);
			continue;
		}
		for (i = 0; i < p->nsizes; i++) {
			long long v;

			if (strcmp(tok, p->sizes[i]))
				continue;
			found = 1;
			if (!int_literal(eq + 1, &v) || v < 0)
				st = kbx_error(KBX_EPARSE, "bad derived case '%s': '%s' must be an integer >= 0", name, tok);
			else
				r->size[i] = v;
		}
		if (!found && !st)
			st = kbx_error(KBX_EPARSE, "bad derived case '%s': '%s' is not a size kbx may vary in '%s'%s", name,
				       tok, t->id, p->nsizes ? "" : " (it has none; see [derive] sizes)");
	}
	free(copy);
	return st;
}

enum kbx_status derive_case(const struct task *t, const char *name, struct task_case *out)
{
	struct plan p;
	struct recipe r;
	enum kbx_status st;

	memset(out, 0, sizeof(*out));
	if (!derive_is_name(name))
		return kbx_error(KBX_ENOTFOUND, "'%s' is not a derived case (auto:... or fuzz:...)", name);
	plan_build(t, &p);
	if (p.base < 0) {
		plan_free(&p);
		return kbx_error(KBX_EINVAL, "task '%s' has no derived cases", t->id);
	}
	st = parse_recipe(t, &p, name, &r);
	if (!st)
		build_case(t, &p, &r, name, out);
	free(r.size);
	plan_free(&p);
	return st;
}

enum kbx_status derive_shrink(const struct task *t, const char *name, char ***out, int *n)
{
	struct plan p;
	struct recipe r;
	enum kbx_status st;
	size_t cap = 0;
	const char *prefix = !strncmp(name, "auto:", 5) ? "auto" : "fuzz";
	int i, k;

	*out = NULL;
	*n = 0;
	if (!derive_is_name(name))
		return kbx_error(KBX_ENOTFOUND, "'%s' is not a derived case (auto:... or fuzz:...)", name);
	plan_build(t, &p);
	if (p.base < 0) {
		plan_free(&p);
		return kbx_error(KBX_EINVAL, "task '%s' has no derived cases", t->id);
	}
	st = parse_recipe(t, &p, name, &r);
	for (i = 0; !st && i < p.nsizes; i++) {
		long long v = r.size[i], tries[3];

		if (v <= 1)
			continue;
		tries[0] = 1;
		tries[1] = v / 2;
		tries[2] = v - 1;
		for (k = 0; k < 3; k++) {
			if (tries[k] < 1 || tries[k] >= v || (k && tries[k] == tries[k - 1]))
				continue;
			r.size[i] = tries[k];
			XGROW(*out, (size_t)*n + 1, cap);
			(*out)[(*n)++] = recipe_name(prefix, &p, &r);
		}
		r.size[i] = v;
	}
	if (!st && r.scale != 0) {
		double s = r.scale;
		char text[32];

		memcpy(text, r.scale_text, sizeof(text));
		if (fabs(s) != 1) {
			recipe_set_scale(&r, s < 0 ? -1 : 1);
			XGROW(*out, (size_t)*n + 1, cap);
			(*out)[(*n)++] = recipe_name(prefix, &p, &r);
		}
		r.scale = 0;
		for (i = 0; i < p.nsizes && r.size[i] < 0; i++)
			;
		if (i < p.nsizes) {     /* unscaled and no size changed would be the base case itself */
			XGROW(*out, (size_t)*n + 1, cap);
			(*out)[(*n)++] = recipe_name(prefix, &p, &r);
		}
		r.scale = s;
		memcpy(r.scale_text, text, sizeof(text));
	}
	free(r.size);
	plan_free(&p);
	if (st) {
		derive_names_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return st;
}

void derive_names_free(char **names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void derive_case_free(struct task_case *c)
{
	int i;

	for (i = 0; i < c->nb; i++) {
		free(c->b[i].key);
		free(c->b[i].value);
	}
	free(c->b);
	free(c->name);
	memset(c, 0, sizeof(*c));
}

void derive_cases_free(struct task_case *c, int n)
{
	int i;

	for (i = 0; i < n; i++)
		derive_case_free(&c[i]);
	free(c);
}
