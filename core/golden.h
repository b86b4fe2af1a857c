/*
 * golden.h - golden PyTorch timings (tasks/golden/<gpu>.json, see its README).
 *
 * golden_match picks the table whose device_names entry is a substring of the CUDA device name
 * (case-insensitive); golden_rows returns a task's rows in sweep order. No table for the GPU, or
 * no rows for the task, is KBX_ENOTFOUND: there is then no speedup against golden, never a guess.
 */
#ifndef KBX_GOLDEN_H
#define KBX_GOLDEN_H

#include "status.h"

struct golden_row {
	char *input_size;       /* compact JSON, e.g. "[[4096],[4096]]" */
	double ms, gbps, tflops;
};

struct golden_table;

/* Load tasks/golden/<gpu>.json under the catalogue root. */
enum kbx_status golden_load(const char *tasks_root, const char *gpu, struct golden_table **out);
/* Load the table matching a CUDA device name. */
enum kbx_status golden_match(const char *tasks_root, const char *device_name, struct golden_table **out);
void golden_free(struct golden_table *t);
const char *golden_gpu(const struct golden_table *t);
/* The rows of a task (borrowed from the table). KBX_ENOTFOUND when the task has none. */
enum kbx_status golden_rows(const struct golden_table *t, const char *task_name,
			    const struct golden_row **rows, int *nrows);
/* Whether a task's input_size (compact JSON) names the same workload as a golden row's. The
 * tables from the KernelBenchX repository wrap a single-tensor row in one more list ([[4096]])
 * than the H200 table does ([4096]); both are accepted. */
int golden_size_matches(const char *ours, const char *golden);

/* Names of the tables present ("4090", "a100", ...); caller frees the array and strings. */
int golden_list(const char *tasks_root, char ***names);

#endif
