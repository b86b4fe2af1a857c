/*
 * Sizes no case reaches: every size of every task must reach, through its own cases or the
 * derived ones (core/derive.h), past the block and tile sizes a kernel might assume, so that a
 * kernel specialised to small sizes cannot pass. A kernel that handles at most 1,024 classes,
 * one per thread of a block, passes a task whose cases stop at 1,009 classes.
 *
 * The sizes checked are the names in the buffer shapes that the cases bind on their own: a name
 * that some case binds through others (`m = n * s`, `cw = c`, an output extent) follows them.
 * A free size (one kbx varies alone: [derive] sizes, or the one size of a 1-D task) must reach
 * 4,097; every other one 1,025. tests/corpus/sizes.allow lists the exceptions, each with its
 * reason; an entry whose size does reach its bound, or that names no size, is an error too, so
 * that the list only ever shrinks. KBX_SIZES_DRAFT=1 prints every shortfall in the file's form.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/derive.h"
#include "core/problem.h"
#include "core/task.h"
#include "core/util.h"

#define ALL_SIZES 1025LL        /* past a block of 1,024 threads */
#define FREE_SIZES 4097LL       /* past a tile of 4,096 (1,024 threads x 4) */

struct allow {
	char *task, *size, *reason;
	int line, used;
};

static struct catalogue cat;
static struct allow *allows;
static int nallows;

static const char *root(void)
{
	const char *r = getenv("KBX_TASKS");

	return r ? r : KBX_SRCDIR "/tasks";
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* "Category/task size[,size...]: reason", one entry per size. */
static int load_allows(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[2048];
	size_t cap = 0;
	int lineno = 0, bad = 0;

	if (!f) {
		fprintf(stderr, "cannot open '%s'\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s = trim(line), *colon, *sp, *tok, *save = NULL;

		lineno++;
		if (!*s || *s == '#')
			continue;
		colon = strchr(s, ':');
		sp = strpbrk(s, " \t");
		if (!colon || !sp || sp > colon || !*trim(colon + 1)) {
			fprintf(stderr, "%s:%d: expected 'Category/task size[,size...]: reason'\n", path, lineno);
			bad++;
			continue;
		}
		*colon = '\0';
		*sp = '\0';
		for (tok = strtok_r(sp + 1, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
			XGROW(allows, (size_t)nallows + 1, cap);
			allows[nallows].task = xstrdup(s);
			allows[nallows].size = xstrdup(tok);
			allows[nallows].reason = xstrdup(trim(colon + 1));
			allows[nallows].line = lineno;
			allows[nallows].used = 0;
			nallows++;
		}
	}
	fclose(f);
	return bad ? -1 : 0;
}

static int setup(void **state)
{
	int i;

	(void)state;
	if (catalogue_load(root(), &cat) != KBX_OK) {
		fprintf(stderr, "catalogue: %s\n", kbx_last_error());
		return -1;
	}
	for (i = 0; i < cat.nerrors; i++)
		fprintf(stderr, "catalogue: %s\n", cat.errors[i]);
	if (cat.nerrors)
		return -1;
	return load_allows(KBX_SRCDIR "/tests/corpus/sizes.allow");
}

static int teardown(void **state)
{
	int i;

	(void)state;
	catalogue_free(&cat);
	for (i = 0; i < nallows; i++) {
		free(allows[i].task);
		free(allows[i].size);
		free(allows[i].reason);
	}
	free(allows);
	return 0;
}

/* Whether an expression names a variable (an identifier not followed by '('). */
static int names_a_variable(const char *e)
{
	while (*e) {
		if (isalpha((unsigned char)*e) || *e == '_') {
			while (isalnum((unsigned char)*e) || *e == '_')
				e++;
			while (isspace((unsigned char)*e))
				e++;
			if (*e != '(')
				return 1;
			continue;
		}
		/* numbers: 1e-5 is not a name */
		if (isdigit((unsigned char)*e) || *e == '.') {
			while (isalnum((unsigned char)*e) || *e == '.')
				e++;
			continue;
		}
		e++;
	}
	return 0;
}

/* The names the buffer shapes use, each once. */
static int shape_names(const struct task *t, char **names, int max)
{
	int n = 0, i, d, k;

	for (i = 0; i < t->nargs; i++) {
		const struct task_arg *a = &t->args[i];

		for (d = 0; a->dir != ARG_SCALAR && d < a->ndim; d++) {
			const char *p = a->shape[d];

			while (*p) {
				const char *s = p;
				int seen = 0;

				if (isdigit((unsigned char)*p)) {
					while (isalnum((unsigned char)*p))
						p++;
					continue;
				}
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
				if (!seen && n < max)
					names[n++] = xstrndup(s, (size_t)(p - s));
			}
		}
	}
	return n;
}

static int follows_others(const struct task *t, const char *size)
{
	int i;

	for (i = 0; i < t->ncases; i++) {
		const char *v = binding_get(t->cases[i].b, t->cases[i].nb, size);

		if (v && names_a_variable(v))
			return 1;
	}
	return 0;
}

static int is_free(const struct task *t, const char *size, int nnames)
{
	int i;

	if (!t->derive_sizes_given)
		return nnames == 1;
	for (i = 0; i < t->nderive_sizes; i++)
		if (!strcmp(t->derive_sizes[i], size))
			return 1;
	return 0;
}

static void reach_of(const struct task *t, const struct task_case *c, char **names, long long *reach, int n)
{
	struct problem pb;
	int k;

	if (problem_from_case_spec(t, c, &pb) != KBX_OK) {
		fail_msg("%s case %s: %s", t->id, c->name, kbx_last_error());
		return;
	}
	for (k = 0; k < n; k++) {
		const struct expr_value *v = expr_env_get(&pb.env, names[k]);

		if (v && !v->is_float && v->i > reach[k])
			reach[k] = v->i;
	}
	problem_free(&pb);
}

static struct allow *find_allow(const char *task, const char *size)
{
	int i;

	for (i = 0; i < nallows; i++)
		if (!strcmp(allows[i].task, task) && !strcmp(allows[i].size, size))
			return &allows[i];
	return NULL;
}

static void test_every_size_reaches_past_blocks_and_tiles(void **state)
{
	int draft = getenv("KBX_SIZES_DRAFT") != NULL;
	int i, j, k, bad = 0;

	(void)state;
	for (i = 0; i < cat.ntasks; i++) {
		const struct task *t = cat.tasks[i];
		struct task_case *derived;
		char *names[64];
		long long reach[64] = { 0 };
		int nnames = shape_names(t, names, 64), nderived;

		assert_int_equal(derive_auto(t, &derived, &nderived), KBX_OK);
		for (j = 0; j < t->ncases; j++)
			reach_of(t, &t->cases[j], names, reach, nnames);
		for (j = 0; j < nderived; j++)
			reach_of(t, &derived[j], names, reach, nnames);
		for (k = 0; k < nnames; k++) {
			long long bound = is_free(t, names[k], nnames) ? FREE_SIZES : ALL_SIZES;
			struct allow *a = find_allow(t->id, names[k]);

			if (follows_others(t, names[k]) || reach[k] >= bound) {
				if (a) {
					fprintf(stderr, "sizes.allow:%d: %s '%s' %s (reaches %lld): drop the entry\n",
						a->line, t->id, names[k],
						reach[k] >= bound ? "is not short" : "follows other sizes", reach[k]);
					bad++;
					a->used = 1;
				}
				continue;
			}
			if (a) {
				a->used = 1;
				continue;
			}
			if (draft)
				printf("%s %s: reaches %lld of %lld\n", t->id, names[k], reach[k], bound);
			else
				fprintf(stderr, "%s: size '%s' reaches only %lld in its cases and derived ones (needs %lld): "
					"add a case or [derive] sizes, or list it in tests/corpus/sizes.allow with the reason\n",
					t->id, names[k], reach[k], bound);
			bad++;
		}
		for (k = 0; k < nnames; k++)
			free(names[k]);
		derive_cases_free(derived, nderived);
	}
	for (i = 0; i < nallows; i++) {
		if (allows[i].used)
			continue;
		fprintf(stderr, "sizes.allow:%d: '%s' has no size '%s' in its buffer shapes\n", allows[i].line,
			allows[i].task, allows[i].size);
		bad++;
	}
	assert_int_equal(bad, 0);
}

/* The bar of issue 17: a row of more than 1,024 classes. */
static void test_cross_entropy_runs_more_than_1024_classes(void **state)
{
	const struct task *t = catalogue_find(&cat, "Loss/cross_entropy");
	char *c = xstrdup("c");
	long long reach = 0;
	int j;

	(void)state;
	assert_non_null(t);
	for (j = 0; j < t->ncases; j++)
		reach_of(t, &t->cases[j], &c, &reach, 1);
	free(c);
	assert_true(reach > 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_size_reaches_past_blocks_and_tiles),
		cmocka_unit_test(test_cross_entropy_runs_more_than_1024_classes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
