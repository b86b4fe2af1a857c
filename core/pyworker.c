#include "pyworker.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
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

static int is_file(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* An executable on $PATH, or the name itself when it has a slash. */
static int find_on_path(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p;

	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, X_OK) == 0 ? 0 : -1;
	}
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);

		snprintf(out, len, "%.*s/%s", (int)n, n ? p : ".", name);
		if (access(out, X_OK) == 0)
			return 0;
		p += n + (colon ? 1 : 0);
	}
	return -1;
}

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
		if (find_on_path(python, out->python, sizeof(out->python)))
			return kbx_error(KBX_ENOTFOUND, "no Python interpreter '%s' (from --python)", python);
	} else if (env && *env) {
		if (find_on_path(env, out->python, sizeof(out->python)))
			return kbx_error(KBX_ENOTFOUND, "no Python interpreter '%s' (from KBX_PYTHON)", env);
	} else if (find_on_path(KBX_PYTHON_DEFAULT, out->python, sizeof(out->python)) &&
		   find_on_path("python3", out->python, sizeof(out->python))) {
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
	if (!is_file(out->program))
		return kbx_error(KBX_ENOTFOUND, "the Python worker '%s' is missing (set KBX_PYWORKER)", out->program);
	env = getenv("KBX_PYLIB");
	if (env && *env) {
		snprintf(out->library, sizeof(out->library), "%s", env);
	} else {
		dir_of(exe, dir, sizeof(dir));
		if (join(out->library, sizeof(out->library), dir, "/py/libkbxpy.so") || !is_file(out->library))
			snprintf(out->library, sizeof(out->library), "%s/libkbxpy.so", KBX_LIBDIR);
	}
	if (!is_file(out->library))
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

/* Keep what pyworker_env_allowed lets through, drop the rest. */
static void scrub_environment(void)
{
	extern char **environ;
	char **keep = NULL, **e;
	size_t n = 0, cap = 0, i;

	for (e = environ; e && *e; e++) {
		char name[256];
		const char *eq = strchr(*e, '=');
		size_t len = eq ? (size_t)(eq - *e) : strlen(*e);

		if (len >= sizeof(name))
			continue;
		memcpy(name, *e, len);
		name[len] = '\0';
		if (pyworker_env_allowed(name)) {
			XGROW(keep, n + 1, cap);
			keep[n++] = xstrdup(*e);
		}
	}
	clearenv();
	for (i = 0; i < n; i++) {
		putenv(keep[i]);   /* putenv keeps the string: it stays for the exec */
	}
	free(keep);
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

/* An empty network namespace: directly as root, else inside a user namespace that maps the
 * user to itself (files keep their owner). Returns what happened, for KBX_SANDBOX. */
static const char *isolate_network(char *why, size_t len)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	char map[64];

	if (unshare(CLONE_NEWNET) == 0)
		return "network namespace";
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) {
		snprintf(map, sizeof(map), "%d %d 1", (int)uid, (int)uid);
		write_text("/proc/self/setgroups", "deny");
		if (write_text("/proc/self/uid_map", map) == 0) {
			snprintf(map, sizeof(map), "%d %d 1", (int)gid, (int)gid);
			write_text("/proc/self/gid_map", map);
			return "user and network namespace";
		}
		return "user and network namespace (no uid map)";
	}
	snprintf(why, len, "none: unshare: %s", strerror(errno));
	return why;
}

void pyworker_exec(const struct pyworker_paths *p, const char *workdir)
{
	struct rlimit cpu = { PY_CPU_SECONDS, PY_CPU_SECONDS };
	struct rlimit fsize = { PY_MAX_FILE_BYTES, PY_MAX_FILE_BYTES };
	struct rlimit nofile = { PY_MAX_OPEN_FILES, PY_MAX_OPEN_FILES };
	struct rlimit no_core = { 0, 0 };
	char why[160];
	const char *net;

	scrub_environment();
	setenv("KBX_PYLIB", p->library, 1);
	setenv("KBX_TASKS", p->tasks, 1);
	if (!getenv("TRITON_CACHE_DIR"))
		setenv("TRITON_CACHE_DIR", p->triton_cache, 1);
	setenv("TMPDIR", workdir, 1);
	setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
	setenv("PYTHONUNBUFFERED", "1", 1);
#ifdef KBX_SANITIZER_PRELOAD
	/* a --enable-debug build: the engine library is sanitized, the interpreter is not */
	setenv("LD_PRELOAD", KBX_SANITIZER_PRELOAD, 1);
	setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
#endif
	net = isolate_network(why, sizeof(why));
	setenv("KBX_SANDBOX", net, 1);
	setrlimit(RLIMIT_CORE, &no_core);
	setrlimit(RLIMIT_CPU, &cpu);
	setrlimit(RLIMIT_FSIZE, &fsize);
	setrlimit(RLIMIT_NOFILE, &nofile);
	execl(p->python, p->python, "-u", p->program, (char *)NULL);
}
