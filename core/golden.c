#include "golden.h"

#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct golden_task {
	char *name;
	struct golden_row *rows;
	int nrows;
};

struct golden_table {
	char *gpu;
	struct golden_task *tasks;
	int ntasks;
};

static int icontains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	if (!n)
		return 0;
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return 0;
}

static double number_or(json_t *v, double dflt)
{
	return json_is_number(v) ? json_number_value(v) : dflt;
}

static enum kbx_status parse_table(json_t *root, const char *path, struct golden_table *t)
{
	json_t *tasks = json_object_get(root, "tasks"), *rows;
	const char *name;

	if (!json_is_object(tasks))
		return kbx_error(KBX_EPARSE, "'%s': expected an object \"tasks\"", path);
	t->tasks = xcalloc(json_object_size(tasks) + 1, sizeof(*t->tasks));
	json_object_foreach(tasks, name, rows) {
		struct golden_task *gt = &t->tasks[t->ntasks++];
		size_t i;
		json_t *row;

		gt->name = xstrdup(name);
		if (!json_is_array(rows))
			return kbx_error(KBX_EPARSE, "'%s': task '%s': expected an array of rows", path, name);
		gt->rows = xcalloc(json_array_size(rows) + 1, sizeof(*gt->rows));
		json_array_foreach(rows, i, row) {
			struct golden_row *r = &gt->rows[gt->nrows++];
			json_t *ms = json_object_get(row, "ms");

			if (!json_is_number(ms))
				return kbx_error(KBX_EPARSE, "'%s': task '%s' row %zu: expected a number \"ms\"",
						 path, name, i);
			r->ms = json_number_value(ms);
			r->gbps = number_or(json_object_get(row, "gbps"), -1);
			r->tflops = number_or(json_object_get(row, "tflops"), -1);
			r->input_size = json_dumps(json_object_get(row, "input_size"), JSON_COMPACT | JSON_ENCODE_ANY);
			if (!r->input_size)
				r->input_size = xstrdup("null");
		}
	}
	return KBX_OK;
}

enum kbx_status golden_load(const char *tasks_root, const char *gpu, struct golden_table **out)
{
	char *path = xasprintf("%s/golden/%s.json", tasks_root, gpu);
	struct golden_table *t;
	json_error_t err;
	json_t *root;
	enum kbx_status st;

	*out = NULL;
	root = json_load_file(path, 0, &err);
	if (!root) {
		st = kbx_error(KBX_ENOTFOUND, "cannot read golden table '%s': %s (line %d)", path, err.text, err.line);
		free(path);
		return st;
	}
	t = xcalloc(1, sizeof(*t));
	t->gpu = xstrdup(gpu);
	st = parse_table(root, path, t);
	json_decref(root);
	free(path);
	if (st) {
		golden_free(t);
		return st;
	}
	*out = t;
	return KBX_OK;
}

static int device_matches(const char *tasks_root, const char *gpu, const char *device_name)
{
	char *path = xasprintf("%s/golden/%s.json", tasks_root, gpu);
	json_t *root = json_load_file(path, 0, NULL), *names, *n;
	int match = 0;
	size_t i;

	free(path);
	if (!root)
		return 0;
	names = json_object_get(root, "device_names");
	json_array_foreach(names, i, n)
		if (json_is_string(n) && icontains(device_name, json_string_value(n)))
			match = 1;
	json_decref(root);
	return match;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int golden_list(const char *tasks_root, char ***names)
{
	char *dir = xasprintf("%s/golden", tasks_root);
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, cap = 0;

	free(dir);
	*names = NULL;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len > 5 && !strcmp(e->d_name + len - 5, ".json")) {
			XGROW(v, n + 1, cap);
			v[n++] = xstrndup(e->d_name, len - 5);
		}
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*names = v;
	return (int)n;
}

enum kbx_status golden_match(const char *tasks_root, const char *device_name, struct golden_table **out)
{
	char **names;
	int n = golden_list(tasks_root, &names), i, found = -1;
	enum kbx_status st;

	*out = NULL;
	/* The longest matching needle wins, so "H20" does not capture an "H200". */
	for (i = 0; i < n; i++) {
		if (device_matches(tasks_root, names[i], device_name)) {
			if (found < 0 || strlen(names[i]) > strlen(names[found]))
				found = i;
		}
	}
	if (found < 0)
		st = kbx_error(KBX_ENOTFOUND, "no golden table for '%s'", device_name);
	else
		st = golden_load(tasks_root, names[found], out);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return st;
}

void golden_free(struct golden_table *t)
{
	int i, j;

	if (!t)
		return;
	for (i = 0; i < t->ntasks; i++) {
		for (j = 0; j < t->tasks[i].nrows; j++)
			free(t->tasks[i].rows[j].input_size);
		free(t->tasks[i].rows);
		free(t->tasks[i].name);
	}
	free(t->tasks);
	free(t->gpu);
	free(t);
}

int golden_size_matches(const char *ours, const char *golden)
{
	size_t n = strlen(ours);

	if (!strcmp(ours, golden))
		return 1;
	return strlen(golden) == n + 2 && golden[0] == '[' && golden[n + 1] == ']' && !strncmp(golden + 1, ours, n) &&
	       ours[0] == '[' && ours[1] != '[';
}

const char *golden_gpu(const struct golden_table *t)
{
	return t->gpu;
}

enum kbx_status golden_rows(const struct golden_table *t, const char *task_name,
			    const struct golden_row **rows, int *nrows)
{
	int i;

	for (i = 0; t && i < t->ntasks; i++) {
		if (!strcmp(t->tasks[i].name, task_name)) {
			*rows = t->tasks[i].rows;
			*nrows = t->tasks[i].nrows;
			return KBX_OK;
		}
	}
	*rows = NULL;
	*nrows = 0;
	return kbx_error(KBX_ENOTFOUND, "no golden rows for '%s' in table '%s'", task_name, t ? t->gpu : "none");
}
