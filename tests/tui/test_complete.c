/* Path completion for the load prompt: common prefixes, folders, hidden files, ~. */
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

#include "core/util.h"
#include "tui/complete.h"

static char dir[] = "/tmp/kbx-test-complete-XXXXXX";

static void touch(const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fclose(f);
	free(p);
}

static int setup(void **state)
{
	char *p;

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	touch("alpha.cu");
	touch("alpine.cu");
	touch(".hidden.cu");
	touch("zeta.cu");
	p = xasprintf("%s/beta", dir);
	mkdir(p, 0700);
	free(p);
	p = xasprintf("%s/beta/inner.cu", dir);
	fclose(fopen(p, "w"));
	free(p);
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int r = system(cmd);

	(void)state;
	free(cmd);
	return r == 0 ? 0 : -1;
}

static void test_common_prefix(void **state)
{
	char *in = xasprintf("%s/al", dir), *want = xasprintf("%s/alp", dir), *out, **m;
	int n;

	(void)state;
	n = path_complete(in, &out, &m);
	assert_int_equal(n, 2);
	assert_string_equal(out, want);
	assert_string_equal(m[0], "alpha.cu");
	assert_string_equal(m[1], "alpine.cu");
	path_matches_free(m, n);
	free(out);
	free(in);
	free(want);
}

static void test_unique_and_folder(void **state)
{
	char *in = xasprintf("%s/z", dir), *want = xasprintf("%s/zeta.cu", dir), *out;

	(void)state;
	assert_int_equal(path_complete(in, &out, NULL), 1);
	assert_string_equal(out, want);
	free(out);
	free(in);
	free(want);
	in = xasprintf("%s/b", dir);
	want = xasprintf("%s/beta/", dir);
	assert_int_equal(path_complete(in, &out, NULL), 1);
	assert_string_equal(out, want);
	free(in);
	/* and into the folder */
	in = out;
	free(want);
	want = xasprintf("%s/beta/inner.cu", dir);
	assert_int_equal(path_complete(in, &out, NULL), 1);
	assert_string_equal(out, want);
	free(out);
	free(in);
	free(want);
}

static void test_hidden_and_none(void **state)
{
	char *in = xasprintf("%s/", dir), *out, **m;
	int n;

	(void)state;
	n = path_complete(in, &out, &m);
	assert_int_equal(n, 4); /* alpha, alpine, beta/, zeta: not .hidden */
	assert_string_equal(m[2], "beta/");
	assert_string_equal(out, in);
	path_matches_free(m, n);
	free(out);
	free(in);
	in = xasprintf("%s/.h", dir);
	assert_int_equal(path_complete(in, &out, NULL), 1);
	assert_non_null(strstr(out, ".hidden.cu"));
	free(out);
	free(in);
	in = xasprintf("%s/nothing", dir);
	assert_int_equal(path_complete(in, &out, NULL), 0);
	assert_string_equal(out, in);
	free(out);
	free(in);
	assert_int_equal(path_complete("/nonexistent-dir-kbx/x", &out, NULL), 0);
	assert_string_equal(out, "/nonexistent-dir-kbx/x");
	free(out);
}

static void test_home(void **state)
{
	char *old = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL, *out, *e;

	(void)state;
	setenv("HOME", dir, 1);
	e = path_expand("~/alpha.cu");
	assert_non_null(strstr(e, dir));
	free(e);
	e = path_expand("~");
	assert_string_equal(e, dir);
	free(e);
	e = path_expand("~user/x");
	assert_string_equal(e, "~user/x");
	free(e);
	/* completion under ~ keeps the ~ the user typed */
	assert_int_equal(path_complete("~/alph", &out, NULL), 1);
	assert_string_equal(out, "~/alpha.cu");
	free(out);
	if (old)
		setenv("HOME", old, 1);
	free(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_common_prefix),
		cmocka_unit_test(test_unique_and_folder),
		cmocka_unit_test(test_hidden_and_none),
		cmocka_unit_test(test_home),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
