/*
 * complete.c - path completion.
 */
#include "complete.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/util.h"

char *path_expand(const char *input)
{
	const char *home = getenv("HOME");

	if (input[0] == '~' && (input[1] == '/' || input[1] == '\0') && home && *home)
		return xasprintf("%s%s", home, input + 1);
	return xstrdup(input);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void path_matches_free(char **m, int n)
{
	for (int i = 0; i < n; i++)
		free(m[i]);
	free(m);
}

int path_complete(const char *input, char **completed, char ***matches)
{
	const char *slash = strrchr(input, '/');
	char *dirpart, *dirpath, **names = NULL;
	const char *prefix = slash ? slash + 1 : input;
	size_t plen = strlen(prefix), common = 0, cap = 0;
	int n = 0;
	DIR *d;
	struct dirent *e;

	dirpart = slash ? xstrndup(input, (size_t)(slash - input) + 1) : xstrdup("");
	dirpath = path_expand(*dirpart ? dirpart : "./");
	if (matches)
		*matches = NULL;
	d = opendir(dirpath);
	if (d) {
		while ((e = readdir(d))) {
			const char *nm = e->d_name;

			if (!strcmp(nm, ".") || !strcmp(nm, ".."))
				continue;
			if (nm[0] == '.' && prefix[0] != '.')
				continue;
			if (strncmp(nm, prefix, plen))
				continue;
			XGROW(names, n + 1, cap);
			{
				char *full = xasprintf("%s%s%s", dirpath, dirpath[strlen(dirpath) - 1] == '/' ? "" : "/", nm);
				struct stat sb;
				int isdir = stat(full, &sb) == 0 && S_ISDIR(sb.st_mode);

				free(full);
				names[n++] = isdir ? xasprintf("%s/", nm) : xstrdup(nm);
			}
		}
		closedir(d);
	}
	if (n)
		qsort(names, (size_t)n, sizeof(*names), cmp_str);
	/* longest common prefix of the matches (without a folder's trailing slash unless one) */
	if (n) {
		common = strlen(names[0]);
		for (int i = 1; i < n; i++) {
			size_t k = 0;

			while (k < common && names[i][k] == names[0][k])
				k++;
			common = k;
		}
		if (n > 1 && common && names[0][common - 1] == '/')
			common--;
	}
	if (n && common >= plen) {
		size_t keep = (size_t)(prefix - input);

		/* a lone folder's name already ends in '/' */
		*completed = xasprintf("%.*s%.*s", (int)keep, input, (int)common, names[0]);
	} else {
		*completed = xstrdup(input);
	}
	if (matches)
		*matches = names;
	else
		path_matches_free(names, n);
	free(dirpart);
	free(dirpath);
	return n;
}
