/*
 * starter.h - the skeleton candidate for a task: the kernel signature in argument order and a
 * launch line over the first output's element count. `kbx starter TASK` prints it and the
 * explorer's "start from the starter" loads it; `kbx starter TASK --python` prints the Python one.
 */
#ifndef KBX_STARTER_H
#define KBX_STARTER_H

#include "task.h"

/* Caller frees. */
char *starter_text(const struct task *t);

/* The skeleton of a Python candidate in KernelBenchX's format: imports, one @triton.jit kernel
 * with a masked load and store over a flat range, and the task's entry function ([python] entry
 * and signature) that allocates the outputs and launches it, a TODO where the math goes. The
 * first parameter without a default is taken for the input the kernel reads. NULL when the task
 * has no [python] section. Caller frees. */
char *starter_python(const struct task *t);

/* A complete degenerate candidate: every out/inout buffer filled with zeros ("zeros"), ones
 * ("ones"), or the first input's elements converted and repeated ("copy"). No task may pass any
 * of them: tests/gpu/degenerate.sh runs them over the catalogue. NULL for an unknown kind. */
char *starter_trivial(const struct task *t, const char *kind);

#endif
