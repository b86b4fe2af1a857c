/* kbx show TASK and kbx starter TASK. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/derive.h"
#include "../core/golden.h"
#include "../core/problem.h"
#include "../core/starter.h"
#include "../core/util.h"
#include "cli.h"

static const char show_usage[] =
	"usage: kbx show TASK [--json]\n"
	"\n"
	"A task's summary, arguments, tolerance, cases, perf rows (their sizes and how their inputs\n"
	"are drawn) and golden tables, and the entry function a Python candidate defines.\n";

static char *shape_text(const struct task_arg *a)
{
	struct sbuf sb = SBUF_INIT;
	int d;

	sbuf_adds(&sb, "[");
	for (d = 0; d < a->ndim; d++)
		sbuf_addf(&sb, "%s%s", d ? ", " : "", a->shape[d]);
	sbuf_adds(&sb, "]");
	return sbuf_detach(&sb);
}

/* {buffer: generator} of every in/inout buffer at the largest perf row, as evaluated there
 * (problem.h); {} without perf rows. */
static json_t *perf_inputs_json(const struct task *t)
{
	json_t *o = json_object();
	struct problem p;
	int i;

	if (t->perf.nrows && problem_from_perf(t, t->perf.nrows - 1, &p) == KBX_OK) {
		for (i = 0; i < p.nbufs; i++)
			if (p.bufs[i].gen)
				json_object_set_new(o, p.bufs[i].arg->name, json_string(p.bufs[i].gen));
		problem_free(&p);
	}
	return o;
}

static json_t *task_json(const struct task *t, const char *root)
{
	json_t *o = json_object(), *args = json_array(), *cases = json_array(), *golden = json_object();
	char **names;
	int i, j, n;

	json_object_set_new(o, "id", json_string(t->id));
	json_object_set_new(o, "category", json_string(t->category));
	json_object_set_new(o, "name", json_string(t->name));
	json_object_set_new(o, "difficulty", json_integer(t->difficulty));
	json_object_set_new(o, "summary", json_string(t->summary ? t->summary : ""));
	json_object_set_new(o, "mirrors", json_string(t->mirrors ? t->mirrors : ""));
	json_object_set_new(o, "verifier", json_string(t->verifier ? t->verifier : "elementwise"));
	json_object_set_new(o, "python", t->py_entry ? json_pack("{s:s, s:s}", "entry", t->py_entry, "signature",
								 t->py_signature) : json_null());
	for (i = 0; i < t->nargs; i++) {
		json_t *a = json_pack("{s:s, s:s, s:s}", "name", t->args[i].name, "dir", arg_dir_name(t->args[i].dir), "dtype",
				      dtype_name(t->args[i].dtype));

		if (t->args[i].dir != ARG_SCALAR) {
			json_t *sh = json_array();

			for (j = 0; j < t->args[i].ndim; j++)
				json_array_append_new(sh, json_string(t->args[i].shape[j]));
			json_object_set_new(a, "shape", sh);
		}
		json_array_append_new(args, a);
	}
	json_object_set_new(o, "args", args);
	for (i = 0; i < t->ncases; i++) {
		json_t *b = json_object();

		for (j = 0; j < t->cases[i].nb; j++)
			json_object_set_new(b, t->cases[i].b[j].key, json_string(t->cases[i].b[j].value));
		json_array_append_new(cases, json_pack("{s:s, s:o}", "name", t->cases[i].name, "bindings", b));
	}
	json_object_set_new(o, "cases", cases);
	{
		struct task_case *dc;
		int ndc;
		json_t *derived = json_array();

		if (derive_auto(t, &dc, &ndc) == KBX_OK) {
			for (i = 0; i < ndc; i++)
				json_array_append_new(derived, json_string(dc[i].name));
			derive_cases_free(dc, ndc);
		}
		json_object_set_new(o, "derived_cases", derived);
	}
	json_object_set_new(o, "perf_rows", json_integer(t->perf.nrows));
	json_object_set_new(o, "perf_inputs", perf_inputs_json(t));
	json_object_set_new(o, "tolerance", json_pack("{s:f, s:f, s:b, s:f, s:f, s:f, s:s?}", "rtol", t->tol.rtol, "atol",
						      t->tol.atol, "metric", t->tol.metric, "cosine_sim",
						      t->tol.cosine_sim, "l1_relative", t->tol.l1_relative, "rmse",
						      t->tol.rmse, "exact", t->exact_buf));
	if (t->perf_tol.line)
		json_object_set_new(o, "perf_tolerance", json_pack("{s:s?, s:s?}", "rtol", t->perf_tol.rtol, "atol",
								   t->perf_tol.atol));
	n = golden_list(root, &names);
	for (i = 0; i < n; i++) {
		struct golden_table *g;
		const struct golden_row *rows;
		int nrows = 0;

		if (golden_load(root, names[i], &g) == KBX_OK) {
			if (golden_rows(g, t->name, &rows, &nrows) == KBX_OK)
				json_object_set_new(golden, names[i], json_integer(nrows));
			golden_free(g);
		}
		free(names[i]);
	}
	free(names);
	json_object_set_new(o, "golden_rows", golden);
	if (t->perf.golden_off)
		json_object_set_new(o, "golden_off", json_string(t->perf.golden_off));
	if (t->perf.npartial_inputs) {
		json_t *pi = json_array();

		for (i = 0; i < t->perf.npartial_inputs; i++)
			json_array_append_new(pi, json_string(t->perf.partial_inputs[i]));
		json_object_set_new(o, "partial_inputs", pi);
	}
	if (t->perf.flop_ceiling_off)
		json_object_set_new(o, "flop_ceiling_off", json_string(t->perf.flop_ceiling_off));
	json_object_set_new(o, "reference", json_string(t->reference_path));
	{
		json_t *ex = json_array();

		for (i = 0; i < t->nexamples; i++)
			json_array_append_new(ex, json_string(t->examples[i]));
		json_object_set_new(o, "examples", ex);
	}
	return o;
}

int cmd_show(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	const struct task *t;
	json_t *o;
	int opt, json = 0, i, j;
	char stars[64];

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = 1; break;
		case 'h': fputs(show_usage, stdout); return 0;
		default: return cli_bad_option("show", opt, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error("show", "expected a TASK");
	if (optind + 1 != argc)
		return cli_usage_error("show", "expected one TASK, not also '%s'", argv[optind + 1]);
	t = cli_task(c, argv[optind]);
	if (!t)
		return 2;
	o = task_json(t, c->cat.root);
	if (json) {
		json_dumpf(o, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
		return 0;
	}
	printf("%s  %s\n\n%s\n\n", t->id, cli_stars(t->difficulty, stars, sizeof(stars)), t->summary ? t->summary : "");
	if (t->mirrors)
		printf("mirrors    KernelBenchX %s\n", t->mirrors);
	printf("verifier   %s\n", t->verifier ? t->verifier : "elementwise");
	if (t->py_entry)
		printf("python     def %s%s\n", t->py_entry, t->py_signature);
	if (t->tol.metric)
		printf("tolerance  cosine >= %g, l1_relative <= %g, rmse <= %g%s%s%s\n", t->tol.cosine_sim,
		       t->tol.l1_relative, t->tol.rmse,
		       t->exact_buf ? ", against the reference's result or the exact one it keeps in '" : "",
		       t->exact_buf ? t->exact_buf : "", t->exact_buf ? "'" : "");
	else if (t->tol.rtol >= 0 || t->tol.atol >= 0)
		printf("tolerance  rtol %g, atol %g\n", t->tol.rtol, t->tol.atol);
	else
		printf("tolerance  by output dtype (f16/bf16 5e-3, f32/f64 1e-5, integers exact)\n");
	if (t->perf_tol.line)
		printf("perf bound %s%s%s%s%s (at perf rows, where larger)\n", t->perf_tol.rtol ? "rtol " : "",
		       t->perf_tol.rtol ? t->perf_tol.rtol : "", t->perf_tol.rtol && t->perf_tol.atol ? ", " : "",
		       t->perf_tol.atol ? "atol " : "", t->perf_tol.atol ? t->perf_tol.atol : "");
	printf("\narguments\n");
	for (i = 0; i < t->nargs; i++) {
		const struct task_arg *a = &t->args[i];

		if (a->dir == ARG_SCALAR) {
			printf("  %-16s %-6s %s\n", a->name, "scalar", dtype_name(a->dtype));
		} else {
			char *sh = shape_text(a);

			printf("  %-16s %-6s %-5s %s\n", a->name, arg_dir_name(a->dir), dtype_name(a->dtype), sh);
			free(sh);
		}
	}
	printf("\ncases (%d)\n", t->ncases);
	for (i = 0; i < t->ncases; i++) {
		printf("  %-28s", t->cases[i].name);
		for (j = 0; j < t->cases[i].nb; j++)
			printf(" %s=%s", t->cases[i].b[j].key, t->cases[i].b[j].value);
		putchar('\n');
	}
	{
		json_t *dc = json_object_get(o, "derived_cases");
		size_t k;

		printf("\nderived cases (%zu)", json_array_size(dc));
		for (k = 0; k < json_array_size(dc); k++)
			printf("%s%s", k % 6 ? "  " : "\n  ", json_string_value(json_array_get(dc, k)));
		if (t->derive_values_off)
			printf("\n  no scaled inputs: %s", t->derive_values_off);
		putchar('\n');
	}
	printf("\nperf rows  %d", t->perf.nrows);
	if (t->perf.nrows) {
		struct problem p;

		if (problem_from_perf(t, 0, &p) == KBX_OK) {
			printf("  from %s", p.input_size ? p.input_size : "?");
			problem_free(&p);
		}
		if (problem_from_perf(t, t->perf.nrows - 1, &p) == KBX_OK) {
			printf(" to %s", p.input_size ? p.input_size : "?");
			problem_free(&p);
		}
	}
	{
		/* how the perf rows' inputs are drawn (at the largest row): a task whose cases promise
		 * a property (symmetric, sorted, in range) must keep it here too */
		json_t *pi = json_object_get(o, "perf_inputs"), *v;
		const char *k;
		int any = 0;

		json_object_foreach(pi, k, v) {
			printf("%s%s=%s", any ? "  " : "\nperf inputs  ", k, json_string_value(v));
			any = 1;
		}
	}
	printf("\ngolden     ");
	{
		json_t *g = json_object_get(o, "golden_rows"), *v;
		const char *k;
		int any = 0;

		json_object_foreach(g, k, v) {
			printf("%s%s (%lld rows)", any ? ", " : "", k, (long long)json_integer_value(v));
			any = 1;
		}
		printf("%s\n", any ? "" : "none");
		if (t->perf.golden_off)
			printf("           not used for speedups: %s\n", t->perf.golden_off);
	}
	/* what the impossible-timing ceilings leave out (core/ceiling.h) */
	if (t->perf.npartial_inputs) {
		printf("ceilings   inputs not read in full:");
		for (i = 0; i < t->perf.npartial_inputs; i++)
			printf("%s %s", i ? "," : "", t->perf.partial_inputs[i]);
		printf("\n");
	}
	if (t->perf.flop_ceiling_off)
		printf("%s no FLOP ceiling: %s\n", t->perf.npartial_inputs ? "          " : "ceilings  ", t->perf.flop_ceiling_off);
	printf("reference  %s\n", t->reference_path);
	for (i = 0; i < t->nexamples; i++)
		printf("%s  %s\n", i ? "         " : "examples ", t->examples[i]);
	json_decref(o);
	return 0;
}

/* ----------------------------------------------------------------- starter ---- */

int cmd_starter(struct cli *c, int argc, char **argv)
{
	static const char usage[] =
		"usage: kbx starter TASK [--python | --trivial zeros|ones|copy]\n\n"
		"Print a skeleton candidate: the kernel signature in argument order and a launch line.\n"
		"--python prints a Python candidate in KernelBenchX's format instead: one @triton.jit kernel\n"
		"over a flat range and the task's entry function, which allocates the outputs and launches it.\n"
		"--trivial prints a complete degenerate candidate instead (outputs all zeros, all ones, or\n"
		"a copy of the first input), which no task may pass.\n";
	const struct task *t;
	const char *kind = NULL;
	int python = 0;
	char *text;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[2], "--trivial"))
		kind = argv[3];
	else if (argc == 3 && !strcmp(argv[2], "--python"))
		python = 1;
	else if (argc != 2)
		return cli_usage_error("starter", "expected TASK [--python | --trivial zeros|ones|copy]");
	t = cli_task(c, argv[1]);
	if (!t)
		return 2;
	if (python && !t->py_entry)
		return cli_fail(2, "task '%s' names no Python entry function (no [python] section in '%s')", t->id,
				t->ini_path);
	text = python ? starter_python(t) : kind ? starter_trivial(t, kind) : starter_text(t);
	if (!text)
		return cli_fail(2, "--trivial expects zeros, ones or copy, not '%s'", kind);
	fputs(text, stdout);
	free(text);
	return 0;
}
