/*
 * The catalogue (task.h): every task folder under a root, loaded and found by id or name, and
 * where the catalogue is when nobody says.
 */
#include "task.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#ifndef KBX_SRCDIR
#define KBX_SRCDIR "."
#endif
#ifndef KBX_DATADIR
#define KBX_DATADIR "."
#endif

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sub-folders of dir, sorted, skipping hidden ones and the names in `skip`. */
static enum kbx_status list_dirs(const char *dir, const char *const *skip, int nskip, char ***out, int *nout)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	int n = 0, cap = 0, i;

	*out = NULL;
	*nout = 0;
	if (!d)
		return kbx_error(errno == ENOENT ? KBX_ENOTFOUND : KBX_EIO, "cannot open '%s': %s", dir,
				 strerror(errno));
	while ((de = readdir(d))) {
		char *path;
		int skipped = de->d_name[0] == '.';

		for (i = 0; i < nskip && !skipped; i++)
			skipped = strcmp(de->d_name, skip[i]) == 0;
		if (skipped)
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (path_is_dir(path)) {
			XGROW(names, n + 1, cap);
			names[n++] = xstrdup(de->d_name);
		}
		free(path);
	}
	closedir(d);
	if (n > 1)
		qsort(names, (size_t)n, sizeof(*names), cmp_str);
	*out = names;
	*nout = n;
	return KBX_OK;
}

static void free_names(char **names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

enum kbx_status catalogue_load(const char *root, struct catalogue *out)
{
	static const char *const skip[] = { "include", "golden" };
	char **cats = NULL;
	int ncats, i, j, cap = 0, ecap = 0;
	enum kbx_status st;

	memset(out, 0, sizeof(*out));
	st = list_dirs(root, skip, 2, &cats, &ncats);
	if (st)
		return kbx_wrap(st, "cannot load the task catalogue");
	out->root = xstrdup(root);
	for (i = 0; i < ncats && !st; i++) {
		char *catdir = xasprintf("%s/%s", root, cats[i]);
		char **names = NULL;
		int nnames = 0;

		st = list_dirs(catdir, NULL, 0, &names, &nnames);
		free(catdir);
		for (j = 0; j < nnames && !st; j++) {
			struct task *t;

			if (task_load(root, cats[i], names[j], &t)) {
				kbx_wrap(KBX_EPARSE, "cannot load task '%s/%s'", cats[i], names[j]);
				XGROW(out->errors, out->nerrors + 1, ecap);
				out->errors[out->nerrors++] = xstrdup(kbx_last_error());
				continue;
			}
			XGROW(out->tasks, out->ntasks + 1, cap);
			out->tasks[out->ntasks++] = t;
		}
		free_names(names, nnames);
	}
	free_names(cats, ncats);
	if (st)
		catalogue_free(out);
	return st;
}

void catalogue_free(struct catalogue *cat)
{
	int i;

	if (!cat)
		return;
	for (i = 0; i < cat->ntasks; i++)
		task_free(cat->tasks[i]);
	free(cat->tasks);
	for (i = 0; i < cat->nerrors; i++)
		free(cat->errors[i]);
	free(cat->errors);
	free(cat->root);
	memset(cat, 0, sizeof(*cat));
}

const struct task *catalogue_find(const struct catalogue *cat, const char *id_or_name)
{
	const struct task *found = NULL;
	int i;

	if (!cat || !id_or_name)
		return NULL;
	if (strchr(id_or_name, '/')) {
		for (i = 0; i < cat->ntasks; i++)
			if (strcmp(cat->tasks[i]->id, id_or_name) == 0)
				return cat->tasks[i];
		return NULL;
	}
	for (i = 0; i < cat->ntasks; i++) {
		if (strcmp(cat->tasks[i]->name, id_or_name) != 0)
			continue;
		if (found)
			return NULL;    /* the same name in two categories: ask for the id */
		found = cat->tasks[i];
	}
	return found;
}

const char *task_default_root(void)
{
	const char *env = getenv("KBX_TASKS");

	if (env && *env)
		return env;
	if (path_is_dir(KBX_SRCDIR "/tasks"))
		return KBX_SRCDIR "/tasks";
	return KBX_DATADIR "/tasks";
}
