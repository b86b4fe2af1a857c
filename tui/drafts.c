/*
 * drafts.c - unsaved candidates on disk (drafts.h).
 */
#include "drafts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/lang.h"
#include "../core/util.h"

char *drafts_dir(void)
{
	const char *env = getenv("KBX_DRAFTS"), *home;

	if (env && *env)
		return xstrdup(env);
	/* the XDG spec says to ignore a relative $XDG_DATA_HOME */
	env = getenv("XDG_DATA_HOME");
	if (env && env[0] == '/')
		return xasprintf("%s/kbx/drafts", env);
	home = getenv("HOME");
	return xasprintf("%s/.local/share/kbx/drafts", home && *home ? home : ".");
}

/* "Activation/gelu" -> DIR/Activation.gelu: one flat folder, no name can climb out of it */
static char *draft_path(const char *dir, const char *task_id)
{
	char *name = xstrdup(task_id), *path;

	for (char *p = name; *p; p++)
		if (*p == '/' || (*p == '.' && (p == name || p[-1] == '.')))
			*p = '.';
	path = xasprintf("%s/%s", dir, name[0] == '.' ? name + 1 : name);
	free(name);
	return path;
}

enum kbx_status drafts_save(const char *dir, const char *task_id, const char *source)
{
	enum kbx_status st = make_dirs(dir, 0700);
	char *path;

	if (st)
		return kbx_wrap(st, "cannot keep a draft of '%s'", task_id);
	path = draft_path(dir, task_id);
	st = write_file(path, source, strlen(source));
	free(path);
	return st;
}

void drafts_remove(const char *dir, const char *task_id)
{
	char *path = draft_path(dir, task_id);

	unlink(path);
	free(path);
}

enum kbx_status drafts_load(const char *dir, const char *task_id, char **source)
{
	char *path = draft_path(dir, task_id);
	enum kbx_status st;

	*source = NULL;
	if (access(path, F_OK) != 0) {
		free(path);
		return KBX_ENOTFOUND;
	}
	/* a draft is a candidate like any other: text, within the size limit */
	st = lang_read_source(path, source, NULL);
	free(path);
	return st;
}
