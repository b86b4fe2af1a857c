/* The browser's model: categories indexed from the catalogue, the history's figures per task and
 * category (from a real temporary database), and the PCRE2 search with its filters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "db/db.h"
#include "tui/model.h"

static struct task tasks[5];
static struct task *ptrs[5];
static struct catalogue cat;

static void add(int i, const char *category, const char *name, int difficulty, const char *summary)
{
	tasks[i].category = (char *)category;
	tasks[i].name = (char *)name;
	tasks[i].id = xasprintf("%s/%s", category, name);
	tasks[i].difficulty = difficulty;
	tasks[i].summary = (char *)summary;
	ptrs[i] = &tasks[i];
}

static int setup(void **state)
{
	(void)state;
	add(0, "Activation", "gelu", 2, "GELU elementwise, erf or tanh");
	add(1, "Activation", "relu", 1, "max(x, 0)");
	add(2, "Fusion", "fused_add_gelu", 3, "y = gelu(input + alpha * other)");
	add(3, "Quantization", "matmul_w8a8", 4, "W8A8 matmul with int8 Quantization");
	add(4, "Quantization", "quant_int4", 5, "pack into INT4 nibbles");
	cat.tasks = ptrs;
	cat.ntasks = 5;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < 5; i++)
		free(tasks[i].id);
	return 0;
}

static void test_index(void **state)
{
	struct model m;

	(void)state;
	model_init(&m, &cat);
	assert_int_equal(m.ncats, 3);
	assert_string_equal(m.cats[0].name, "Activation");
	assert_int_equal(m.cats[0].first, 0);
	assert_int_equal(m.cats[0].count, 2);
	assert_string_equal(m.cats[2].name, "Quantization");
	assert_int_equal(m.cats[2].first, 3);
	assert_int_equal(m.cats[2].count, 2);
	assert_int_equal(model_task_by_id(&m, "Fusion/fused_add_gelu"), 2);
	assert_int_equal(model_task_by_id(&m, "Fusion/nope"), -1);
	assert_int_equal(model_task_index(&m, &tasks[4]), 4);
	assert_int_equal(model_category_index(&m, "Fusion"), 1);
	assert_int_equal(model_category_index(&m, "Math"), -1);
	/* no history */
	assert_int_equal(model_load_history(&m, NULL), KBX_OK);
	assert_int_equal(m.total_runs, 0);
	assert_int_equal(m.hist[0].attempts, 0);
	assert_true(m.hist[0].best_speedup < 0);
	model_free(&m);
}

static void insert(struct db *db, const char *task, const char *category, enum verdict v, double speedup, double at)
{
	struct db_run r;

	memset(&r, 0, sizeof(r));
	r.task_id = task;
	r.category = category;
	r.gpu = "NVIDIA H200";
	r.source = "// src";
	r.source_hash = "0";
	r.verdict = v;
	r.speedup_golden = v == V_PASS ? speedup : -1;
	r.speedup_ref = -1;
	r.cand_ms = r.ref_ms = -1;
	r.created_at = at;
	assert_int_equal(db_run_insert(db, &r), KBX_OK);
}

static void test_history(void **state)
{
	char dir[] = "/tmp/kbx-test-model-XXXXXX";
	char *path;
	struct db *db;
	struct model m;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/h.db", dir);
	assert_int_equal(db_open(path, &db), KBX_OK);
	insert(db, "Activation/gelu", "Activation", V_WRONG, -1, 1000);
	insert(db, "Activation/gelu", "Activation", V_PASS, 1.5, 2000);
	insert(db, "Activation/gelu", "Activation", V_PASS, 2.5, 3000);
	insert(db, "Activation/gelu", "Activation", V_COMPILE_ERROR, -1, 4000);
	insert(db, "Fusion/fused_add_gelu", "Fusion", V_WRONG, -1, 5000);
	insert(db, "Math/gone", "Math", V_PASS, 1.0, 6000); /* a task no longer in the catalogue */

	model_init(&m, &cat);
	assert_int_equal(model_load_history(&m, db), KBX_OK);
	assert_int_equal(m.total_runs, 6); /* every run, also of a task no longer in the catalogue */
	assert_int_equal(m.hist[0].attempts, 4);
	assert_int_equal(m.hist[0].passes, 2);
	assert_int_equal(m.hist[0].last, V_COMPILE_ERROR);
	assert_true(m.hist[0].best_speedup == 2.5);
	assert_true(m.hist[0].last_at == 4000);
	assert_int_equal(m.hist[1].attempts, 0);
	assert_int_equal(m.hist[2].attempts, 1);
	assert_int_equal(m.hist[2].last, V_WRONG);
	assert_int_equal(m.cats[0].stat.attempts, 4);
	assert_int_equal(m.cats[0].stat.passes, 2);
	assert_int_equal(m.cats[1].stat.attempts, 1);
	assert_int_equal(m.cats[2].stat.attempts, 0);
	assert_int_equal(m.tasks_tried, 2);
	assert_int_equal(m.tasks_passed, 1);
	/* pass rate over time: Activation's four runs (wrong, pass, pass, compile_error) in two
	 * buckets; Quantization has none */
	assert_int_equal(model_load_series(&m, db, 2), KBX_OK);
	assert_non_null(model_series(&m, 1));
	assert_true(model_series(&m, 1)[0] == 0.5);
	assert_true(model_series(&m, 1)[1] == 0.5);
	assert_true(model_series(&m, 3)[0] < 0 && model_series(&m, 3)[1] < 0);
	assert_true(model_series(&m, 0)[0] >= 0);  /* row 0: every category */
	assert_null(model_series(&m, 4));
	/* loading again gives the same figures, not doubled ones */
	assert_int_equal(model_load_history(&m, db), KBX_OK);
	assert_int_equal(m.hist[0].attempts, 4);
	assert_int_equal(m.total_runs, 6);
	{
		struct search s;

		search_init(&s);
		s.vf = VF_PASSING;
		assert_false(search_task(&s, &tasks[0], &m.hist[0])); /* last verdict compile_error */
		s.vf = VF_FAILING;
		assert_true(search_task(&s, &tasks[0], &m.hist[0]));
		assert_true(search_task(&s, &tasks[2], &m.hist[2]));
		assert_false(search_task(&s, &tasks[1], &m.hist[1]));
		s.vf = VF_UNTRIED;
		assert_true(search_task(&s, &tasks[1], &m.hist[1]));
		assert_false(search_task(&s, &tasks[0], &m.hist[0]));
		search_free(&s);
	}
	model_free(&m);
	db_close(db);
	unlink(path);
	{
		char *wal = xasprintf("%s-wal", path), *shm = xasprintf("%s-shm", path);

		unlink(wal);
		unlink(shm);
		free(wal);
		free(shm);
	}
	rmdir(dir);
	free(path);
}

static void test_search(void **state)
{
	struct search s;
	struct task_hist none = { 0 };

	(void)state;
	search_init(&s);
	assert_false(search_active(&s));
	for (int i = 0; i < 5; i++)
		assert_true(search_task(&s, &tasks[i], &none));
	/* smart case: lowercase pattern matches any case */
	assert_int_equal(search_set(&s, "quantization"), KBX_OK);
	assert_true(search_active(&s));
	assert_true(search_task(&s, &tasks[3], &none));  /* by category in the id */
	assert_false(search_task(&s, &tasks[0], &none));
	/* a capital makes it case-sensitive (the leading ? is no capital) */
	assert_int_equal(search_set(&s, "?INT4"), KBX_OK);  /* in the summary */
	assert_true(search_task(&s, &tasks[4], &none));
	assert_false(search_task(&s, &tasks[3], &none));
	assert_int_equal(search_set(&s, "int4"), KBX_OK);
	assert_true(search_task(&s, &tasks[4], &none));
	/* escapes do not count as capitals */
	assert_int_equal(search_set(&s, "gelu\\S"), KBX_OK);
	assert_false(search_task(&s, &tasks[0], &none));
	assert_int_equal(search_set(&s, "^act.*gelu$"), KBX_OK);
	assert_true(search_task(&s, &tasks[0], &none));
	assert_false(search_task(&s, &tasks[2], &none));
	/* names, not summaries, unless the pattern starts with '?' */
	assert_int_equal(search_set(&s, "^gelu$"), KBX_OK);
	assert_true(search_task(&s, &tasks[0], &none));  /* the name alone, anchored */
	assert_false(search_task(&s, &tasks[2], &none));
	assert_int_equal(search_set(&s, "erf"), KBX_OK);
	assert_false(search_task(&s, &tasks[0], &none));  /* "erf" is only in gelu's summary */
	assert_int_equal(search_set(&s, "?erf"), KBX_OK);
	assert_true(search_task(&s, &tasks[0], &none));
	assert_false(search_task(&s, &tasks[1], &none));
	assert_string_equal(s.pattern, "?erf");
	assert_int_equal(search_set(&s, "alpha \\* other"), KBX_OK);
	assert_false(search_task(&s, &tasks[2], &none));
	assert_int_equal(search_set(&s, "?alpha \\* other"), KBX_OK);
	assert_true(search_task(&s, &tasks[2], &none));
	/* a bad pattern keeps the old one and says where it broke */
	assert_int_equal(search_set(&s, "gelu(erf"), KBX_EPARSE);
	assert_non_null(strstr(kbx_last_error(), "bad pattern 'gelu(erf'"));
	assert_non_null(strstr(kbx_last_error(), "offset 8"));
	assert_string_equal(s.pattern, "?alpha \\* other");
	assert_true(search_task(&s, &tasks[2], &none));
	/* difficulty filter alongside the pattern */
	assert_int_equal(search_set(&s, "gelu"), KBX_OK);
	s.difficulty = 3;
	assert_false(search_task(&s, &tasks[0], &none));
	assert_true(search_task(&s, &tasks[2], &none));
	/* clearing the pattern keeps the filters */
	assert_int_equal(search_set(&s, ""), KBX_OK);
	assert_int_equal(s.difficulty, 3);
	assert_true(search_active(&s));
	assert_false(search_task(&s, &tasks[3], &none));
	s.difficulty = 0;
	assert_false(search_active(&s));
	assert_string_equal(verdict_filter_name(VF_FAILING), "failing");
	search_free(&s);
}

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static unsigned next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 32);
}

/* Whatever is typed at the search prompt: a pattern or an error, never a crash. */
static void test_garbage_patterns(void **state)
{
	static const char alphabet[] = "()[]{}*+?|^$\\.-,0123456789abcAZ:<>=!#&\xc3\xa9\xff";
	struct search s;
	struct task_hist none = { 0 };
	char p[64];

	(void)state;
	search_init(&s);
	for (int i = 0; i < 5000; i++) {
		size_t n = next() % (sizeof(p) - 1);

		for (size_t k = 0; k < n; k++)
			p[k] = alphabet[next() % (sizeof(alphabet) - 1)];
		p[n] = '\0';
		if (search_set(&s, p) == KBX_OK)
			for (int t = 0; t < 5; t++)
				search_task(&s, &tasks[t], &none);
	}
	search_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_search),
		cmocka_unit_test(test_garbage_patterns),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
