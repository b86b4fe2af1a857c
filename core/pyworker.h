/*
 * pyworker.h - starting the Python worker (pyhost.h) and what protects the system from it.
 *
 * A Python candidate can run any code the user can. The parent (worker.h) starts the worker in
 * its own process group and a fresh temporary working directory, as it does `kbx worker`, and
 * on top of that, in the child before exec:
 *   environment  scrubbed: only what Python, CUDA, torch and Triton need (PATH, HOME, locale,
 *                CUDA_* / NVIDIA_*, LD_LIBRARY_PATH, virtualenv and conda variables,
 *                PYTHONPATH), plus KBX_PYLIB, KBX_TASKS, TRITON_CACHE_DIR (kbx's cache folder),
 *                TMPDIR (the working directory); no tokens, keys or agent sockets pass
 *   limits       CPU time (1 hour), file size (1 GiB), open files (4096), no core files; no
 *                address-space limit (CUDA reserves the GPU's size in virtual memory)
 *   network      a new, empty network namespace when the system allows one (as root, or through
 *                an unprivileged user namespace mapping the user to itself); otherwise none, and
 *                KBX_SANDBOX says why
 * Not protected: files the user can read or write outside the working directory (no mount
 * namespace: Triton needs the compiler and its cache), other processes of the user, the GPU's
 * other tenants. README.md says the same.
 *
 * Paths: the interpreter is req->python, else $KBX_PYTHON, else the one configure found
 * (PYTHON, default python3 on $PATH); the program is $KBX_PYWORKER, else python/kbx_worker.py
 * beside the tasks folder (the source tree or the installed data folder); the library is
 * $KBX_PYLIB, else py/libkbxpy.so beside the kbx binary (a build tree), else the installed one.
 */
#ifndef KBX_PYWORKER_H
#define KBX_PYWORKER_H

#include <limits.h>
#include <stddef.h>

#include "status.h"

struct pyworker_paths {
	char python[PATH_MAX];
	char program[PATH_MAX];
	char library[PATH_MAX];
	char tasks[PATH_MAX];
	char triton_cache[PATH_MAX];
};

/* Resolve the paths (parent side). KBX_ENOTFOUND names what is missing and where it looked. */
enum kbx_status pyworker_paths(const char *python, const char *tasks_root, const char *exe,
			       struct pyworker_paths *out);

/* What the child will exec with, made in the parent before it forks (the child must not
 * allocate: the explorer forks from a thread). */
struct pyworker_plan {
	char **envp;
	size_t nenv;
	char *sandbox;          /* "KBX_SANDBOX=" and room the child fills in (one of envp) */
	char uid_map[64], gid_map[64];
	char *argv[4];
};

void pyworker_plan(const struct pyworker_paths *p, const char *workdir, struct pyworker_plan *pl);
void pyworker_plan_free(struct pyworker_plan *pl);

/* In the forked child, in its working directory: sandbox and exec; returns only on failure
 * (errno set). Async-signal-safe: system calls and writes into the plan's own memory only. */
void pyworker_exec(struct pyworker_plan *pl);

/* Whether an environment variable may pass into the Python worker. */
int pyworker_env_allowed(const char *name);

#endif
