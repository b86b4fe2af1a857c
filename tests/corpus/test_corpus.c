/*
 * The task corpus: every task loads; every case and perf row evaluates; every reference and
 * example compiles with NVRTC (under `make check-corpus`; `make check` compiles a sample, see
 * test_sources_compile) and its launch lines parse and name known arguments; every example
 * announces its expected verdict; and the perf rows line up with every golden table that has the
 * task (same count, same input_size in order).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/abi.h"
#include "core/golden.h"
#include "core/launch.h"
#include "core/nvrtc.h"
#include "core/problem.h"
#include "core/rules.h"
#include "core/task.h"
#include "core/util.h"

static struct catalogue cat;
static int checked_abi;     /* sources whose launches were checked against their compiled kernels */
static char **gpus;
static int ngpus;

static const char *root(void)
{
	const char *r = getenv("KBX_TASKS");

	return r ? r : KBX_SRCDIR "/tasks";
}

static int setup(void **state)
{
	(void)state;
	int i;

	if (catalogue_load(root(), &cat) != KBX_OK) {
		fprintf(stderr, "catalogue: %s\n", kbx_last_error());
		return -1;
	}
	for (i = 0; i < cat.nerrors; i++)
		fprintf(stderr, "catalogue: %s\n", cat.errors[i]);
	if (cat.nerrors)
		return -1;
	ngpus = golden_list(root(), &gpus);
	return 0;
}

static int teardown(void **state)
{
	int i;

	(void)state;
	catalogue_free(&cat);
	for (i = 0; i < ngpus; i++)
		free(gpus[i]);
	free(gpus);
	return 0;
}

static void test_catalogue(void **state)
{
	int i;

	(void)state;
	assert_true(cat.ntasks >= 15);
	for (i = 0; i < cat.ntasks; i++) {
		const struct task *t = cat.tasks[i];
		char id[256];

		snprintf(id, sizeof(id), "%s/%s", t->category, t->name);
		assert_string_equal(t->id, id);
		assert_true(t->difficulty >= 1 && t->difficulty <= 5);
		assert_true(t->ncases > 0);
		assert_non_null(t->summary);
		assert_ptr_equal(catalogue_find(&cat, t->id), t);
	}
}

static void test_problems_evaluate(void **state)
{
	int i, j, bad = 0;

	(void)state;
	for (i = 0; i < cat.ntasks; i++) {
		const struct task *t = cat.tasks[i];

		for (j = 0; j < t->ncases; j++) {
			struct problem p;

			if (problem_from_case(t, j, &p) != KBX_OK) {
				fprintf(stderr, "%s case %s: %s\n", t->id, t->cases[j].name, kbx_last_error());
				bad++;
				continue;
			}
			problem_free(&p);
		}
		for (j = 0; j < t->perf.nrows; j++) {
			struct problem p;

			if (problem_from_perf(t, j, &p) != KBX_OK) {
				fprintf(stderr, "%s perf row %d: %s\n", t->id, j, kbx_last_error());
				bad++;
				continue;
			}
			problem_free(&p);
		}
	}
	assert_int_equal(bad, 0);
}

static int names_known(const struct task *t, const struct kernel_spec *s, const char *path)
{
	int i, j, k, bad = 0;

	for (i = 0; i < s->nlaunches; i++) {
		for (j = 0; j < s->launches[i].nargs; j++) {
			const char *n = s->launches[i].args[j].name;
			int found;

			if (!n)
				continue;
			found = task_find_arg(t, n) != NULL;
			for (k = 0; !found && k < s->nscratch; k++)
				found = !strcmp(s->scratch[k].name, n);
			if (!found) {
				fprintf(stderr, "%s line %d: unknown launch argument '%s'\n", path, s->launches[i].line, n);
				bad++;
			}
		}
	}
	return bad;
}

/*
 * Every source compiles with NVRTC: 687 compiles take 6 minutes on one core, so they run on a
 * pool of threads (NVRTC is thread-safe; KBX_CORPUS_JOBS sets how many, default one per core),
 * identical sources are compiled once, and only `make check-corpus` (KBX_CORPUS=full) compiles
 * them all; `make check` compiles a sample: every source of the first task of each category.
 * Launch lines, argument names and expect lines are checked on every source in both.
 */
struct source {
	const struct task *t;
	const char *path;
	int is_example;
	int compile;                    /* compiled in this run */
	char *src;
	struct kernel_spec spec;
	int have_spec;
	const struct source *same;      /* an earlier source with the same text, compiled in its place */
	struct nvrtc_output out;
	enum kbx_status st;
	char error[512];                /* kbx_last_error() of a failed nvrtc_compile */
	struct sbuf msgs;
	int bad, checked_abi;
};

struct pool {
	struct source *v;
	int n, next;
	pthread_mutex_t lock;
};

static int full_corpus(void)
{
	const char *e = getenv("KBX_CORPUS");

	return e && !strcmp(e, "full");
}

static int jobs(void)
{
	const char *e = getenv("KBX_CORPUS_JOBS");
	long n = e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

/* What needs no compiler: the file reads, its launch lines parse and name known arguments, and
 * an example says which verdict it expects. */
static void prepare(struct source *s)
{
	size_t len;

	if (read_file(s->path, &s->src, &len) != KBX_OK) {
		sbuf_addf(&s->msgs, "%s\n", kbx_last_error());
		s->bad++;
		s->compile = 0;
		return;
	}
	if (launch_parse_source(s->src, s->path, &s->spec) != KBX_OK) {
		sbuf_addf(&s->msgs, "%s\n", kbx_last_error());
		s->bad++;
	} else {
		s->bad += names_known(s->t, &s->spec, s->path);
		s->have_spec = 1;
	}
	if (s->is_example && !strstr(s->src, "// @kbx expect ")) {
		sbuf_addf(&s->msgs, "%s: no '// @kbx expect VERDICT' line\n", s->path);
		s->bad++;
	}
}

static void *compile_worker(void *arg)
{
	struct pool *p = arg;
	char inc[4096];

	snprintf(inc, sizeof(inc), "%s/include", root());
	for (;;) {
		struct source *s;

		pthread_mutex_lock(&p->lock);
		while (p->next < p->n && (!p->v[p->next].compile || p->v[p->next].same))
			p->next++;
		s = p->next < p->n ? &p->v[p->next++] : NULL;
		pthread_mutex_unlock(&p->lock);
		if (!s)
			return NULL;
		s->st = nvrtc_compile(s->src, s->path, 90, nvrtc_cuda_include(), inc, &s->out);
		if (s->st != KBX_OK)
			snprintf(s->error, sizeof(s->error), "%s", kbx_last_error());
	}
}

/* A compiled source against what it expects: an example that expects compile_error must fail to
 * compile, every other compile; launch lines against the compiled kernels' parameters (abi.h, no
 * GPU needed): an example that expects abi_error must disagree, every other source agree. */
static void judge(struct source *s)
{
	const struct source *c = s->same ? s->same : s;
	int want_fail, want_abi;
	char why[512];

	if (c->st != KBX_OK) {
		sbuf_addf(&s->msgs, "%s: %s\n", s->path, c->error);
		s->bad++;
		return;
	}
	want_fail = s->is_example && strstr(s->src, "// @kbx expect compile_error");
	if (c->out.ok == want_fail) {
		sbuf_addf(&s->msgs, "%s: %s\n%s\n", s->path, c->out.ok ? "compiled but expects compile_error" : "does not compile",
			  c->out.log ? c->out.log : "");
		s->bad++;
	}
	if (!c->out.ok || !s->have_spec)
		return;
	want_abi = s->is_example && strstr(s->src, "// @kbx expect abi_error");
	abi_check_image(s->t, &s->spec, c->out.cubin, c->out.cubin_size, why, sizeof(why));
	if (!!why[0] != !!want_abi) {
		sbuf_addf(&s->msgs, "%s: %s\n", s->path, why[0] ? why : "agrees with its kernels but expects abi_error");
		s->bad++;
	}
	s->checked_abi = 1;
}

static int collect(struct source **out)
{
	int i, j, n = 0, cap = 64;
	struct source *v = xcalloc((size_t)cap, sizeof(*v));
	const char *prev_cat = "";

	for (i = 0; i < cat.ntasks; i++) {
		const struct task *t = cat.tasks[i];
		int first = strcmp(t->category, prev_cat) != 0;

		prev_cat = t->category;
		for (j = -1; j < t->nexamples; j++) {
			struct source *s;

			if (n == cap)
				v = xrealloc(v, (size_t)(cap *= 2) * sizeof(*v));
			s = &v[n++];
			memset(s, 0, sizeof(*s));
			s->t = t;
			s->path = j < 0 ? t->reference_path : t->examples[j];
			s->is_example = j >= 0;
			s->compile = nvrtc_built() && (full_corpus() || first);
		}
	}
	*out = v;
	return n;
}

static void test_sources_compile(void **state)
{
	struct pool p = { .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t th[64];
	int i, j, bad = 0, compiled = 0, shared = 0, nth = jobs(), started = 0;
	double t0 = now_seconds();

	(void)state;
	p.n = collect(&p.v);
	for (i = 0; i < p.n; i++) {
		prepare(&p.v[i]);
		for (j = 0; p.v[i].compile && j < i && !p.v[i].same; j++)
			if (p.v[j].compile && !p.v[j].same && !strcmp(p.v[i].src, p.v[j].src))
				p.v[i].same = &p.v[j];
		compiled += p.v[i].compile;
		shared += p.v[i].same != NULL;
	}
	for (i = 0; i < nth; i++)
		started += pthread_create(&th[started], NULL, compile_worker, &p) == 0;
	if (!started)
		compile_worker(&p);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < p.n; i++) {
		struct source *s = &p.v[i];

		if (s->compile)
			judge(s);
		if (s->msgs.len)
			fputs(s->msgs.buf, stderr);
		bad += s->bad;
		checked_abi += s->checked_abi;
	}
	fprintf(stderr, "%d sources checked; ", p.n);
	if (nvrtc_built())
		fprintf(stderr, "%d compiled with NVRTC (%d shared with an identical source) on %d threads in %.0f s%s; ",
			compiled, shared, started ? started : 1, now_seconds() - t0,
			full_corpus() ? "" : ", the first task of each category: make check-corpus compiles every source");
	else
		fprintf(stderr, "none compiled (NVRTC not built); ");
	fprintf(stderr, "%d launch sets checked against their kernels' parameters\n", checked_abi);
	for (i = 0; i < p.n; i++) {
		if (p.v[i].have_spec)
			kernel_spec_free(&p.v[i].spec);
		nvrtc_output_free(&p.v[i].out);
		sbuf_release(&p.v[i].msgs);
		free(p.v[i].src);
	}
	free(p.v);
	assert_int_equal(bad, 0);
}

static void test_every_category_has_an_example(void **state)
{
	int i, j, bad = 0;

	(void)state;
	for (i = 0; i < cat.ntasks; i = j) {
		int examples = 0;

		for (j = i; j < cat.ntasks && !strcmp(cat.tasks[j]->category, cat.tasks[i]->category); j++)
			examples += cat.tasks[j]->nexamples;
		if (!examples) {
			fprintf(stderr, "category %s has no examples/ candidate\n", cat.tasks[i]->category);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* The H200 table was measured with exactly these workloads: every task must line up with it row
 * by row. The other tables come from KernelBenchX versions whose workloads sometimes differ (a
 * different layout of the same sizes); kbx then gives no golden speedup on that GPU, so those are
 * listed, and a task whose rows differ from every table fails. */
static int rows_match(const struct task *t, const struct golden_row *rows, int n, const char *gpu, int verbose)
{
	int r, ok = 1;

	if (n != t->perf.nrows) {
		if (verbose)
			fprintf(stderr, "%s: %d perf rows, golden %s has %d\n", t->id, t->perf.nrows, gpu, n);
		return 0;
	}
	for (r = 0; r < n && ok; r++) {
		struct problem p;

		if (problem_from_perf(t, r, &p) != KBX_OK)
			return 0;
		if (!p.input_size || !golden_size_matches(p.input_size, rows[r].input_size)) {
			if (verbose)
				fprintf(stderr, "%s row %d: input_size %s, golden %s has %s\n", t->id, r,
					p.input_size ? p.input_size : "(none)", gpu, rows[r].input_size);
			ok = 0;
		}
		problem_free(&p);
	}
	return ok;
}

static void test_golden_rows_line_up(void **state)
{
	int g, i, bad = 0, checked = 0, differ = 0;

	(void)state;
	assert_true(ngpus >= 7);
	for (g = 0; g < ngpus; g++) {
		struct golden_table *tab;
		int h200 = !strcmp(gpus[g], "h200");

		assert_int_equal(golden_load(root(), gpus[g], &tab), KBX_OK);
		for (i = 0; i < cat.ntasks; i++) {
			const struct task *t = cat.tasks[i];
			const struct golden_row *rows;
			int n;

			if (golden_rows(tab, t->name, &rows, &n) != KBX_OK) {
				if (h200 && t->perf.nrows) {
					fprintf(stderr, "%s: missing from the h200 table\n", t->id);
					bad++;
				}
				continue;
			}
			checked++;
			if (rows_match(t, rows, n, gpus[g], 1))
				continue;
			if (h200)
				bad++;
			else
				differ++;
		}
		golden_free(tab);
	}
	fprintf(stderr, "%d task tables checked against golden rows; %d from older KernelBenchX workloads differ\n",
		checked, differ);
	assert_true(checked > 0);
	assert_int_equal(bad, 0);
}

static void test_golden_size_matching(void **state)
{
	(void)state;
	assert_true(golden_size_matches("[4096]", "[4096]"));
	assert_true(golden_size_matches("[4096]", "[[4096]]"));
	assert_true(golden_size_matches("[[4096],[4096]]", "[[4096],[4096]]"));
	assert_false(golden_size_matches("[[4096],[4096]]", "[[[4096],[4096]]]"));
	assert_false(golden_size_matches("[4096]", "[8192]"));
	assert_false(golden_size_matches("[2,64,100]", "[[64,100],[64,100]]"));
}

/* [static] names rules that exist with the right kind, and every reference shows the evidence its
 * task requires (else the task would reject its own reference). */
static void test_static_rules(void **state)
{
	char *path = xasprintf("%s/rules.ini", root());
	struct ruleset rs;
	int i, j, k, bad = 0;

	(void)state;
	assert_int_equal(rules_load(path, &rs), KBX_OK);
	free(path);
	for (i = 0; i < cat.ntasks; i++) {
		const struct task *t = cat.tasks[i];
		struct finding *f = NULL;
		char *src;
		size_t len;
		int n = 0;

		if (!t->nstatic_require && !t->nstatic_fatal)
			continue;
		assert_int_equal(read_file(t->reference_path, &src, &len), KBX_OK);
		n = rules_scan(&rs, src, &f);
		for (j = 0; j < t->nstatic_require; j++) {
			const struct rule *r = rules_find(&rs, t->static_require[j]);
			int found = 0;

			if (!r || r->kind != RULE_EVIDENCE) {
				fprintf(stderr, "%s: [static] require '%s' is not an evidence rule\n", t->id, t->static_require[j]);
				bad++;
				continue;
			}
			for (k = 0; k < n; k++)
				found |= f[k].rule == r;
			if (!found) {
				fprintf(stderr, "%s: the reference lacks required evidence '%s'\n", t->id, r->id);
				bad++;
			}
		}
		for (j = 0; j < t->nstatic_fatal; j++) {
			const struct rule *r = rules_find(&rs, t->static_fatal[j]);

			if (!r || r->kind != RULE_WARNING) {
				fprintf(stderr, "%s: [static] fatal '%s' is not a warning rule\n", t->id, t->static_fatal[j]);
				bad++;
			}
		}
		free(f);
		free(src);
	}
	rules_free(&rs);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalogue),
		cmocka_unit_test(test_problems_evaluate),
		cmocka_unit_test(test_sources_compile),
		cmocka_unit_test(test_every_category_has_an_example),
		cmocka_unit_test(test_golden_rows_line_up),
		cmocka_unit_test(test_golden_size_matching),
		cmocka_unit_test(test_static_rules),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
