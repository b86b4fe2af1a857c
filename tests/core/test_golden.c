/* Golden tables: loading, matching device names, rows, and clear errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/golden.h"
#include "core/util.h"

static const char *root(void)
{
	const char *r = getenv("KBX_TASKS");

	return r ? r : KBX_SRCDIR "/tasks";
}

static void test_match_h200_not_h20(void **state)
{
	struct golden_table *t;

	(void)state;
	assert_int_equal(golden_match(root(), "NVIDIA H200", &t), KBX_OK);
	assert_string_equal(golden_gpu(t), "h200");
	golden_free(t);
	assert_int_equal(golden_match(root(), "NVIDIA H20", &t), KBX_OK);
	assert_string_equal(golden_gpu(t), "h20");
	golden_free(t);
	assert_int_equal(golden_match(root(), "NVIDIA GeForce RTX 4090", &t), KBX_OK);
	assert_string_equal(golden_gpu(t), "4090");
	golden_free(t);
}

static void test_no_table(void **state)
{
	struct golden_table *t = (void *)1;

	(void)state;
	assert_int_equal(golden_match(root(), "Tesla T4", &t), KBX_ENOTFOUND);
	assert_null(t);
	assert_non_null(strstr(kbx_last_error(), "Tesla T4"));
}

static void test_rows(void **state)
{
	struct golden_table *t;
	const struct golden_row *rows;
	int n;

	(void)state;
	assert_int_equal(golden_load(root(), "h200", &t), KBX_OK);
	assert_int_equal(golden_rows(t, "gelu", &rows, &n), KBX_OK);
	assert_int_equal(n, 16);
	assert_string_equal(rows[0].input_size, "[4096]");
	assert_string_equal(rows[15].input_size, "[134217728]");
	assert_true(rows[0].ms > 0 && rows[0].ms < 1);
	assert_int_equal(golden_rows(t, "add", &rows, &n), KBX_OK);
	assert_string_equal(rows[0].input_size, "[[4096],[4096]]");
	assert_int_equal(golden_rows(t, "no_such_task", &rows, &n), KBX_ENOTFOUND);
	assert_int_equal(n, 0);
	golden_free(t);
}

static void test_bad_files(void **state)
{
	char dir[] = "/tmp/kbx-golden-XXXXXX", path[256];
	struct golden_table *t;
	static const char *bad[] = {
		"", "{", "[]", "{\"tasks\": 3}", "{\"tasks\": {\"x\": 5}}", "{\"tasks\": {\"x\": [{\"ms\": \"a\"}]}}",
	};
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/golden", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(path, sizeof(path), "%s/golden/bad.json", dir);
		assert_int_equal(write_file(path, bad[i], strlen(bad[i])), KBX_OK);
		assert_int_not_equal(golden_load(dir, "bad", &t), KBX_OK);
		assert_non_null(strstr(kbx_last_error(), "bad.json"));
	}
	unlink(path);
	snprintf(path, sizeof(path), "%s/golden", dir);
	rmdir(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_h200_not_h20),
		cmocka_unit_test(test_no_table),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_bad_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
