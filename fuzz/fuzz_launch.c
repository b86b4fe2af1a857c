/*
 * fuzz_launch.c - kernel source text through core/launch.c launch_parse_source: the `// @kbx`
 * launch, scratch and expect lines among ordinary CUDA code.
 *
 * Beyond not crashing, a parsed spec must keep the header's promises: at least one launch,
 * three grid and block dimensions and a shared-memory size, every expression one that
 * expr_check accepts, and *out left empty on failure.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/expr.h"
#include "../core/launch.h"
#include "fuzz.h"

static void check_expr(const char *e)
{
	if (!e || expr_check(e, NULL) != KBX_OK)
		abort();
}

static void check_spec(const struct kernel_spec *spec)
{
	if (spec->nlaunches < 1)
		abort();
	for (int i = 0; i < spec->nlaunches; i++) {
		const struct launch *l = &spec->launches[i];

		if (!l->kernel || !*l->kernel || l->line < 1)
			abort();
		for (int d = 0; d < 3; d++) {
			check_expr(l->grid[d]);
			check_expr(l->block[d]);
		}
		check_expr(l->smem);
		for (int a = 0; a < l->nargs; a++) {
			const struct launch_arg *arg = &l->args[a];

			/* a name, or a cast of an expression: never both */
			if (arg->name && arg->expr)
				abort();
			if (!arg->name)
				check_expr(arg->expr);
			if (arg->col < 1)
				abort();
		}
	}
	for (int i = 0; i < spec->nscratch; i++) {
		const struct scratch_decl *s = &spec->scratch[i];

		if (!s->name || !*s->name)
			abort();
		for (int d = 0; d < s->ndim; d++)
			check_expr(s->shape[d]);
		for (int j = 0; j < i; j++)
			if (strcmp(s->name, spec->scratch[j].name) == 0)
				abort();    /* declared twice is an error */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct kernel_spec spec;

	if (launch_parse_source(text, "fuzz/reference.cu", &spec) == KBX_OK) {
		check_spec(&spec);
		kernel_spec_free(&spec);
	} else if (spec.nlaunches || spec.nscratch || spec.launches || spec.scratch) {
		abort();
	}
	free(text);
	return 0;
}
