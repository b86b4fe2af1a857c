/*
 * Perf inputs keep the contract of the cases: where every case of a task draws an input from a
 * structured generator (spd: symmetric positive definite and well conditioned; diagdom:
 * invertible and well conditioned; symmetric), its perf rows draw it from one with the same
 * properties. A perf row whose matrix is not positive definite, or not symmetric, where the cases
 * promise it, fails correct kernels (a Cholesky solve of a random triangle blows up) or lets a
 * kernel pass that relies on what the cases hold. Hand-written corner cases (values(...)) and the
 * special-values ones say nothing about the distribution and are not counted.
 *
 * The task's default generator ([inputs]) is a promise too, when the random cases draw it: a task
 * may add a hand-picked draw of another kind (invert_matrix_lu's randn_70_pivot, a dense randn
 * matrix whose cond(A) = 75 was checked) without releasing its perf rows from what the default
 * guarantees. (invert_matrix_lu's perf rows drew uniform(0, 1), cond(A) = 3.9e5 at n = 64, and a
 * correct f32 inverse was 0.4 off there; the every-case rule alone did not see it.)
 *
 * Exceptions are listed below with their reasons.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/inputs.h"
#include "core/problem.h"
#include "core/task.h"
#include "core/util.h"

enum { P_SYMMETRIC = 1, P_DEFINITE = 2, P_CONDITIONED = 4 };

static const struct {
	const char *task, *arg;
	unsigned waived;        /* properties the perf rows need not keep */
	const char *why;
} exceptions[] = {
	{ "Normalization/symmetric_matrix_vector_norm", "A", P_DEFINITE | P_CONDITIONED,
	  "a matrix-vector product and a norm need no definiteness; the perf rows keep the symmetry "
	  "(KernelBenchX's (A + A^T) / 2 of torch.rand) and spd(d) is O(n^3) on the host at n = 16384" },
	{ "LinearAlgebra/ldl_factor", "a", P_SYMMETRIC | P_DEFINITE,
	  "the kernel reads only the lower triangle, so the input is symmetric as read; diagdom(1) read "
	  "so (KernelBenchX's rand + rand^T + n I stands behind it) has its eigenvalues within n +- "
	  "2 sqrt(n), positive definite and well conditioned at every perf size (n >= 32)" },
	{ "LinearAlgebra/matrix_power_eig", "a", P_SYMMETRIC | P_DEFINITE | P_CONDITIONED,
	  "the kernel reads only the lower triangle, so every input is symmetric; k = 2 (an integer power) "
	  "is defined and as well conditioned for an indefinite matrix (the case indefinite_randn_33_k2 "
	  "draws one), and the perf rows keep KernelBenchX's symmetric randn workload" },
};

static unsigned properties(enum gen_kind k)
{
	switch (k) {
	case GEN_SPD: return P_SYMMETRIC | P_DEFINITE | P_CONDITIONED;
	case GEN_DIAGDOM: return P_CONDITIONED;
	case GEN_SYMMETRIC: return P_SYMMETRIC;
	default: return 0;
	}
}

/* Generators that draw a distribution, as opposed to listing values. */
static int drawn(enum gen_kind k)
{
	return k != GEN_VALUES && k != GEN_SPECIAL && k != GEN_ZEROS && k != GEN_ONES && k != GEN_FULL &&
	       k != GEN_ARANGE;
}

/* The kind of the generator of buffer i of p, or -1 for an output; *d its first parameter (spd's
 * shift d: its smallest eigenvalue is at least d, so a smaller d is a worse condition). */
static int kind_of(const struct problem *p, int i, double *d)
{
	struct gen_spec g;
	int k;

	if (!p->bufs[i].gen)
		return -1;
	if (gen_parse(p->bufs[i].gen, &g) != KBX_OK)
		fail_msg("%s: cannot parse '%s': %s", p->name, p->bufs[i].gen, kbx_last_error());
	k = (int)g.kind;
	*d = g.a;
	gen_spec_free(&g);
	return k;
}

static unsigned waived(const char *task, const char *arg)
{
	size_t i;

	for (i = 0; i < sizeof(exceptions) / sizeof(exceptions[0]); i++)
		if (!strcmp(exceptions[i].task, task) && !strcmp(exceptions[i].arg, arg))
			return exceptions[i].waived;
	return 0;
}

static const char *names(unsigned p, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", p & P_SYMMETRIC ? " symmetric" : "", p & P_DEFINITE ? " positive-definite" : "",
		 p & P_CONDITIONED ? " well-conditioned" : "");
	return buf;
}

/* Whether case c binds arg a's generator itself (else it draws the [inputs] default). */
static int case_binds(const struct task_case *c, const char *arg)
{
	int i;

	for (i = 0; i < c->nb; i++)
		if (!strcmp(c->b[i].key, arg))
			return 1;
	return 0;
}

/* The properties of arg a's [inputs] default generator, when it is drawn (0 otherwise); *spd_d
 * is lowered to its d when it is spd(d). */
static unsigned default_properties(const struct task *t, int a, double *spd_d)
{
	struct gen_spec g;
	unsigned have = 0;
	int i;

	for (i = 0; i < t->ninputs && strcmp(t->inputs[i].key, t->args[a].name); i++)
		;
	if (i == t->ninputs || gen_parse(t->inputs[i].value, &g) != KBX_OK) {
		kbx_clear_error();
		return 0;
	}
	if (drawn(g.kind))
		have = properties(g.kind);
	if (g.kind == GEN_SPD && g.a < *spd_d)
		*spd_d = g.a;
	gen_spec_free(&g);
	return have;
}

/* The properties every drawn case generator of arg a gives (all three when no case draws it),
 * and those of the [inputs] default when a case with more than one element draws that default;
 * *spd_d the smallest d of its spd(d) draws. */
static unsigned case_properties(const struct task *t, int a, int *ndrawn, double *spd_d)
{
	unsigned want = P_SYMMETRIC | P_DEFINITE | P_CONDITIONED, by_default = 0;
	int c, uses_default = 0;

	*ndrawn = 0;
	*spd_d = INFINITY;
	for (c = 0; c < t->ncases; c++) {
		struct problem p;
		double d = 0;
		int i, k;

		if (problem_from_case(t, c, &p) != KBX_OK)
			fail_msg("%s case %s: %s", t->id, t->cases[c].name, kbx_last_error());
		for (i = 0; i < p.nbufs && p.bufs[i].arg != &t->args[a]; i++)
			;
		k = i < p.nbufs ? kind_of(&p, i, &d) : -1;
		if (k >= 0 && drawn((enum gen_kind)k) && p.bufs[i].numel > 1) {
			want &= properties((enum gen_kind)k);
			(*ndrawn)++;
			if (k == GEN_SPD && d < *spd_d)
				*spd_d = d;
			if (!case_binds(&t->cases[c], t->args[a].name))
				uses_default = 1;
		}
		problem_free(&p);
	}
	if (uses_default)
		by_default = default_properties(t, a, spd_d);
	return *ndrawn ? want | by_default : want;
}

static void test_perf_inputs_keep_the_contract(void **state)
{
	const char *r = getenv("KBX_TASKS");
	struct catalogue cat;
	int i, a, bad = 0, checked = 0;
	size_t e;
	char wanted[64], lacking[64];

	(void)state;
	if (catalogue_load(r ? r : KBX_SRCDIR "/tasks", &cat) != KBX_OK)
		fail_msg("catalogue: %s", kbx_last_error());
	if (cat.nerrors)
		fail_msg("catalogue: %s", cat.errors[0]);
	for (i = 0; i < cat.ntasks; i++) {
		const struct task *t = cat.tasks[i];
		struct problem p;

		if (!t->perf.nrows)
			continue;
		if (problem_from_perf(t, 0, &p) != KBX_OK)
			fail_msg("%s perf row 1: %s", t->id, kbx_last_error());
		for (a = 0; a < t->nargs; a++) {
			int ndrawn, k, j;
			unsigned want, have, missing;
			double spd_d, d = 0;

			if (t->args[a].dir == ARG_OUT || t->args[a].dir == ARG_SCALAR)
				continue;
			want = case_properties(t, a, &ndrawn, &spd_d);
			if (!ndrawn || !want)
				continue;
			for (j = 0; j < p.nbufs && p.bufs[j].arg != &t->args[a]; j++)
				;
			k = j < p.nbufs ? kind_of(&p, j, &d) : -1;
			have = k >= 0 ? properties((enum gen_kind)k) : 0;
			/* spd(1e-6) is positive definite in name only: its condition is the cases' when
			 * its shift is at least theirs */
			if (k == GEN_SPD && d < spd_d)
				have &= ~P_CONDITIONED;
			missing = want & ~have & ~waived(t->id, t->args[a].name);
			checked++;
			if (missing) {
				fprintf(stderr, "%s: input '%s' is%s in every case that draws it (or in the [inputs] "
					"default its cases draw), but its perf rows draw '%s' (not%s)\n", t->id, t->args[a].name, names(want, wanted, sizeof(wanted)),
					j < p.nbufs ? p.bufs[j].gen : "?", names(missing, lacking, sizeof(lacking)));
				bad++;
			}
		}
		problem_free(&p);
	}
	/* an exception that names nothing structured is stale */
	for (e = 0; e < sizeof(exceptions) / sizeof(exceptions[0]); e++) {
		const struct task *t = catalogue_find(&cat, exceptions[e].task);
		int ndrawn;
		double spd_d;

		if (!t || !task_find_arg(t, exceptions[e].arg))
			fail_msg("exception for '%s' input '%s': no such task or input", exceptions[e].task, exceptions[e].arg);
		if (!case_properties(t, (int)(task_find_arg(t, exceptions[e].arg) - t->args), &ndrawn, &spd_d) || !ndrawn)
			fail_msg("exception for '%s' input '%s' is stale: its cases promise nothing", exceptions[e].task,
				 exceptions[e].arg);
	}
	catalogue_free(&cat);
	print_message("%d structured inputs checked\n", checked);
	assert_true(checked >= 8);
	if (bad)
		fail_msg("%d perf input(s) break what their cases guarantee", bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_inputs_keep_the_contract),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
