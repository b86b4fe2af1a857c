/* Starting the Python worker (core/pyworker.h) without starting it: which variables pass, the
 * paths found (and the errors naming what is missing), and the plan the child execs with. */
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

#include "core/pyworker.h"
#include "core/status.h"

static void test_env_allowed(void **state)
{
	(void)state;
	assert_true(pyworker_env_allowed("PATH"));
	assert_true(pyworker_env_allowed("LD_LIBRARY_PATH"));
	assert_true(pyworker_env_allowed("CUDA_VISIBLE_DEVICES"));
	assert_true(pyworker_env_allowed("LC_ALL"));
	assert_true(pyworker_env_allowed("TRITON_CACHE_DIR"));
	assert_true(pyworker_env_allowed("VIRTUAL_ENV"));
	assert_false(pyworker_env_allowed("AWS_SECRET_ACCESS_KEY"));
	assert_false(pyworker_env_allowed("GITHUB_TOKEN"));
	assert_false(pyworker_env_allowed("SSH_AUTH_SOCK"));
	assert_false(pyworker_env_allowed("LD_PRELOAD"));
	assert_false(pyworker_env_allowed("PATHX"));
	assert_false(pyworker_env_allowed(""));
}

static char tmpdir[] = "/tmp/kbx-test-pyworker-XXXXXX";

static void touch(const char *dir, const char *name)
{
	char path[8192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
}

static void test_paths(void **state)
{
	struct pyworker_paths p;
	char tasks[4096], exe[4096], prog[4096], lib[4096];

	(void)state;
	assert_non_null(mkdtemp(tmpdir));
	snprintf(tasks, sizeof(tasks), "%s/tasks", tmpdir);
	snprintf(exe, sizeof(exe), "%s/kbx", tmpdir);
	unsetenv("KBX_PYWORKER");
	unsetenv("KBX_PYLIB");
	unsetenv("KBX_PYTHON");
	/* an explicit interpreter that does not exist is named as such */
	assert_int_equal(pyworker_paths("/nonexistent/python9", tasks, exe, &p), KBX_ENOTFOUND);
	assert_non_null(strstr(kbx_last_error(), "'/nonexistent/python9' (from --python)"));
	setenv("KBX_PYTHON", "/nonexistent/py", 1);
	assert_int_equal(pyworker_paths(NULL, tasks, exe, &p), KBX_ENOTFOUND);
	assert_non_null(strstr(kbx_last_error(), "(from KBX_PYTHON)"));
	/* /bin/sh stands in for an interpreter: only its presence matters here */
	setenv("KBX_PYTHON", "/bin/sh", 1);
	assert_int_equal(pyworker_paths(NULL, tasks, exe, &p), KBX_ENOTFOUND);
	assert_non_null(strstr(kbx_last_error(), "python/kbx_worker.py' is missing"));
	snprintf(prog, sizeof(prog), "%s/python", tmpdir);
	assert_int_equal(mkdir(prog, 0700), 0);
	touch(prog, "kbx_worker.py");
	assert_int_equal(pyworker_paths(NULL, tasks, exe, &p), KBX_ENOTFOUND);
	assert_non_null(strstr(kbx_last_error(), "libkbxpy.so"));
	snprintf(lib, sizeof(lib), "%s/py", tmpdir);
	assert_int_equal(mkdir(lib, 0700), 0);
	touch(lib, "libkbxpy.so");          /* beside the binary, as in a build tree */
	assert_int_equal(pyworker_paths(NULL, tasks, exe, &p), KBX_OK);
	assert_string_equal(p.python, "/bin/sh");
	assert_non_null(strstr(p.program, "/python/kbx_worker.py"));
	assert_non_null(strstr(p.library, "/py/libkbxpy.so"));
	assert_string_equal(p.tasks, tasks);
	unsetenv("KBX_PYTHON");
}

static void test_plan(void **state)
{
	struct pyworker_paths p;
	struct pyworker_plan pl;
	size_t i;
	int pylib = 0, tmp = 0, sandbox = 0;

	(void)state;
	memset(&p, 0, sizeof(p));
	snprintf(p.python, sizeof(p.python), "/usr/bin/python3");
	snprintf(p.program, sizeof(p.program), "/x/python/kbx_worker.py");
	snprintf(p.library, sizeof(p.library), "/x/py/libkbxpy.so");
	snprintf(p.tasks, sizeof(p.tasks), "/x/tasks");
	snprintf(p.triton_cache, sizeof(p.triton_cache), "/x/cache");
	setenv("KBX_TEST_SECRET_TOKEN", "hunter2", 1);
	setenv("CUDA_VISIBLE_DEVICES", "1", 1);
	pyworker_plan(&p, "/tmp/kbx-worker-abc", &pl);
	for (i = 0; i < pl.nenv; i++) {
		assert_null(strstr(pl.envp[i], "hunter2"));
		pylib |= !strcmp(pl.envp[i], "KBX_PYLIB=/x/py/libkbxpy.so");
		tmp |= !strcmp(pl.envp[i], "TMPDIR=/tmp/kbx-worker-abc");
		sandbox |= pl.envp[i] == pl.sandbox;
	}
	assert_null(pl.envp[pl.nenv]);
	assert_true(pylib && tmp && sandbox);
	assert_string_equal(pl.argv[0], "/usr/bin/python3");
	assert_string_equal(pl.argv[2], "/x/python/kbx_worker.py");
	assert_null(pl.argv[3]);
	pyworker_plan_free(&pl);
	unsetenv("KBX_TEST_SECRET_TOKEN");
}

static int cleanup(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env_allowed),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_plan),
	};

	return cmocka_run_group_tests(tests, NULL, cleanup);
}
