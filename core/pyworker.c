#include "pyworker.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util.h"

#ifndef KBX_PYTHON_DEFAULT
#define KBX_PYTHON_DEFAULT "python3"
#endif
#ifndef KBX_LIBDIR
#define KBX_LIBDIR "."
#endif

#define PY_CPU_SECONDS 3600
#define PY_MAX_FILE_BYTES ((rlim_t)1 << 30)
#define PY_MAX_OPEN_FILES 4096

/* a + b into out; -1 when it does not fit */
static int join(char *out, size_t len, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la + lb + 1 > len)
		return -1;
	memcpy(out, a, la);
	memcpy(out + la, b, lb + 1);
	return 0;
}

static void dir_of(const char *path, char *out, size_t len)
{
	char *slash;

	snprintf(out, len, "%s", path);
	slash = strrchr(out, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(out, len, ".");
}

static void cache_folder(char *out, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		snprintf(out, len, "%s/kbx/triton", xdg);
	else if (home && *home)
		snprintf(out, len, "%s/.cache/kbx/triton", home);
	else
		snprintf(out, len, "/tmp/kbx-triton-%d", (int)getuid());
}

enum kbx_status pyworker_paths(const char *python, const char *tasks_root, const char *exe,
			       struct pyworker_paths *out)
{
	const char *env;
	char dir[PATH_MAX];

	memset(out, 0, sizeof(*out));
	env = getenv("KBX_PYTHON");
	if (python && *python) {
		if (path_find_exec(python, out->python, sizeof(out->python)))
			return kbx_error(KBX_ENOTFOUND, "no Python interpreter '%s' (from --python)", python);
	} else if (env && *env) {
		if (path_find_exec(env, out->python, sizeof(out->python)))
			return kbx_error(KBX_ENOTFOUND, "no Python interpreter '%s' (from KBX_PYTHON)", env);
	} else if (path_find_exec(KBX_PYTHON_DEFAULT, out->python, sizeof(out->python)) &&
		   path_find_exec("python3", out->python, sizeof(out->python))) {
		/* the configured one first; a binary carried to another machine finds python3 on $PATH */
		return kbx_error(KBX_ENOTFOUND, "no Python interpreter (looked for '%s' and python3 on $PATH; set "
				 "--python or KBX_PYTHON): Python candidates need one, with PyTorch and Triton",
				 KBX_PYTHON_DEFAULT);
	}
	snprintf(out->tasks, sizeof(out->tasks), "%s", tasks_root);
	env = getenv("KBX_PYWORKER");
	if (env && *env) {
		snprintf(out->program, sizeof(out->program), "%s", env);
	} else {
		dir_of(tasks_root, dir, sizeof(dir));
		join(out->program, sizeof(out->program), dir, "/python/kbx_worker.py");
	}
	if (!path_is_file(out->program))
		return kbx_error(KBX_ENOTFOUND, "the Python worker '%s' is missing (set KBX_PYWORKER)", out->program);
	env = getenv("KBX_PYLIB");
	if (env && *env) {
		snprintf(out->library, sizeof(out->library), "%s", env);
	} else {
		dir_of(exe, dir, sizeof(dir));
		if (join(out->library, sizeof(out->library), dir, "/py/libkbxpy.so") || !path_is_file(out->library))
			snprintf(out->library, sizeof(out->library), "%s/libkbxpy.so", KBX_LIBDIR);
	}
	if (!path_is_file(out->library))
		return kbx_error(KBX_ENOTFOUND, "the engine library for the Python worker '%s' is missing (set KBX_PYLIB)",
				 out->library);
	cache_folder(out->triton_cache, sizeof(out->triton_cache));
	return KBX_OK;
}

int pyworker_env_allowed(const char *name)
{
	static const char *const exact[] = { "PATH", "HOME", "USER", "LOGNAME", "LANG", "TERM", "TZ",
					     "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV",
					     "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CC", "CXX", "XDG_CACHE_HOME" };
	static const char *const prefix[] = { "LC_", "CUDA_", "NVIDIA_", "TRITON_", "TORCH_", "PYTORCH_" };
	size_t i;

	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(name, exact[i]))
			return 1;
	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

#define SANDBOX_SLOT 120   /* room for what isolate_network writes into KBX_SANDBOX=... */

static void env_add(struct pyworker_plan *pl, size_t *cap, char *entry)
{
	XGROW(pl->envp, pl->nenv + 2, *cap);
	pl->envp[pl->nenv++] = entry;
	pl->envp[pl->nenv] = NULL;
}

/* The worker's environment (what pyworker_env_allowed lets through, and kbx's own), its argv
 * and the uid/gid maps: all made here, in the parent, so that the child between fork and exec
 * calls nothing that allocates or takes a lock (the explorer forks from a thread). */
void pyworker_plan(const struct pyworker_paths *p, const char *workdir, struct pyworker_plan *pl)
{
	extern char **environ;
	char **e;
	size_t cap = 0;
	int triton_cache_set = 0;

	memset(pl, 0, sizeof(*pl));
	for (e = environ; e && *e; e++) {
		char name[256];
		const char *eq = strchr(*e, '=');
		size_t len = eq ? (size_t)(eq - *e) : strlen(*e);

		if (len >= sizeof(name))
			continue;
		memcpy(name, *e, len);
		name[len] = '\0';
		if (pyworker_env_allowed(name)) {
			env_add(pl, &cap, xstrdup(*e));
			triton_cache_set |= !strcmp(name, "TRITON_CACHE_DIR");
		}
	}
	env_add(pl, &cap, xasprintf("KBX_PYLIB=%s", p->library));
	env_add(pl, &cap, xasprintf("KBX_TASKS=%s", p->tasks));
	if (!triton_cache_set)
		env_add(pl, &cap, xasprintf("TRITON_CACHE_DIR=%s", p->triton_cache));
	env_add(pl, &cap, xasprintf("TMPDIR=%s", workdir));
	env_add(pl, &cap, xstrdup("PYTHONDONTWRITEBYTECODE=1"));
	env_add(pl, &cap, xstrdup("PYTHONUNBUFFERED=1"));
#ifdef KBX_SANITIZER_PRELOAD
	/* a --enable-debug build: the engine library is sanitized, the interpreter is not */
	env_add(pl, &cap, xstrdup("LD_PRELOAD=" KBX_SANITIZER_PRELOAD));
	env_add(pl, &cap, xstrdup("ASAN_OPTIONS=detect_leaks=0"));
#endif
	pl->sandbox = xcalloc(1, sizeof("KBX_SANDBOX=") + SANDBOX_SLOT);
	memcpy(pl->sandbox, "KBX_SANDBOX=", sizeof("KBX_SANDBOX="));
	env_add(pl, &cap, pl->sandbox);
	snprintf(pl->uid_map, sizeof(pl->uid_map), "%d %d 1", (int)getuid(), (int)getuid());
	snprintf(pl->gid_map, sizeof(pl->gid_map), "%d %d 1", (int)getgid(), (int)getgid());
	pl->argv[0] = xstrdup(p->python);
	pl->argv[1] = xstrdup("-u");
	pl->argv[2] = xstrdup(p->program);
	pl->argv[3] = NULL;
}

void pyworker_plan_free(struct pyworker_plan *pl)
{
	size_t i;

	for (i = 0; i < pl->nenv; i++)
		free(pl->envp[i]);
	free(pl->envp);
	for (i = 0; pl->argv[i]; i++)
		free(pl->argv[i]);
	memset(pl, 0, sizeof(*pl));
}

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* s into the KBX_SANDBOX slot (no allocation) */
static void say_sandbox(struct pyworker_plan *pl, const char *what, const char *detail)
{
	char *out = pl->sandbox + sizeof("KBX_SANDBOX=") - 1;
	size_t n = 0;

	for (; *what && n < SANDBOX_SLOT - 1; what++)
		out[n++] = *what;
	for (; detail && *detail && n < SANDBOX_SLOT - 1; detail++)
		out[n++] = *detail;
	out[n] = '\0';
}

/* An empty network namespace: directly as root, else inside a user namespace that maps the
 * user to itself (files keep their owner). */
static void isolate_network(struct pyworker_plan *pl)
{
	if (unshare(CLONE_NEWNET) == 0) {
		say_sandbox(pl, "network namespace", NULL);
		return;
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) {
		write_text("/proc/self/setgroups", "deny");
		if (write_text("/proc/self/uid_map", pl->uid_map) == 0) {
			write_text("/proc/self/gid_map", pl->gid_map);
			say_sandbox(pl, "user and network namespace", NULL);
		} else {
			say_sandbox(pl, "user and network namespace (no uid map)", NULL);
		}
		return;
	}
	say_sandbox(pl, "none: unshare: ", errno == EPERM ? "not permitted" : errno == EINVAL ? "not supported"
				       : "failed");
}

void pyworker_exec(struct pyworker_plan *pl)
{
	struct rlimit cpu = { PY_CPU_SECONDS, PY_CPU_SECONDS };
	struct rlimit fsize = { PY_MAX_FILE_BYTES, PY_MAX_FILE_BYTES };
	struct rlimit nofile = { PY_MAX_OPEN_FILES, PY_MAX_OPEN_FILES };
	struct rlimit no_core = { 0, 0 };

	isolate_network(pl);
	setrlimit(RLIMIT_CORE, &no_core);
	setrlimit(RLIMIT_CPU, &cpu);
	setrlimit(RLIMIT_FSIZE, &fsize);
	setrlimit(RLIMIT_NOFILE, &nofile);
	execve(pl->argv[0], pl->argv, pl->envp);
}
