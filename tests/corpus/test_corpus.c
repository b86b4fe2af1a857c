/*
 * The task corpus: every task loads; every case and perf row evaluates; every reference and
 * example compiles with NVRTC and its launch lines parse and name known arguments; every example
 * announces its expected verdict; and the perf rows line up with every golden table that has the
 * task (same count, same input_size in order).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int compile_one(const struct task *t, const char *path, int is_example)
{
	struct kernel_spec spec;
	struct nvrtc_output out;
	char *src, inc[4096];
	size_t len;
	int bad = 0, have_spec = 0;

	if (read_file(path, &src, &len) != KBX_OK) {
		fprintf(stderr, "%s\n", kbx_last_error());
		return 1;
	}
	if (launch_parse_source(src, path, &spec) != KBX_OK) {
		fprintf(stderr, "%s\n", kbx_last_error());
		bad++;
	} else {
		bad += names_known(t, &spec, path);
		have_spec = 1;
	}
	if (is_example && !strstr(src, "// @kbx expect ")) {
		fprintf(stderr, "%s: no '// @kbx expect VERDICT' line\n", path);
		bad++;
	}
	if (nvrtc_built()) {
		snprintf(inc, sizeof(inc), "%s/include", root());
		if (nvrtc_compile(src, path, 90, nvrtc_cuda_include(), inc, &out) != KBX_OK) {
			fprintf(stderr, "%s: %s\n", path, kbx_last_error());
			bad++;
		} else {
			/* An example that expects compile_error must fail to compile; every other must compile. */
			int want_fail = is_example && strstr(src, "// @kbx expect compile_error");

			if (out.ok == want_fail) {
				fprintf(stderr, "%s: %s\n%s\n", path, out.ok ? "compiled but expects compile_error" : "does not compile",
					out.log ? out.log : "");
				bad++;
			}
			/* Launch lines against the compiled kernels' parameters (abi.h, no GPU needed):
			 * an example that expects abi_error must disagree, every other source agree. */
			if (out.ok && have_spec) {
				int want_abi = is_example && strstr(src, "// @kbx expect abi_error");
				char why[512];

				abi_check_image(t, &spec, out.cubin, out.cubin_size, why, sizeof(why));
				if (!!why[0] != !!want_abi) {
					fprintf(stderr, "%s: %s\n", path, why[0] ? why : "agrees with its kernels but expects abi_error");
					bad++;
				}
				checked_abi++;
			}
			nvrtc_output_free(&out);
		}
	}
	if (have_spec)
		kernel_spec_free(&spec);
	free(src);
	return bad;
}

static void test_sources_compile(void **state)
{
	int i, j, bad = 0, n = 0;

	(void)state;
	for (i = 0; i < cat.ntasks; i++) {
		const struct task *t = cat.tasks[i];

		bad += compile_one(t, t->reference_path, 0);
		n++;
		for (j = 0; j < t->nexamples; j++, n++)
			bad += compile_one(t, t->examples[j], 1);
	}
	fprintf(stderr, "%d sources checked%s; %d launch sets checked against their kernels' parameters\n", n,
		nvrtc_built() ? " and compiled with NVRTC" : " (NVRTC not built)", checked_abi);
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
