/*
 * replay.c - feeds each file named on the command line (or each file of a named folder) to
 * LLVMFuzzerTestOneInput, so that a build without libFuzzer (gcc, say, with the sanitizers)
 * can replay the seed corpora and saved crashes as an ordinary test:
 *
 *     gcc ... fuzz/fuzz_task.c fuzz/replay.c core/... -o replay_task
 *     ./replay_task fuzz/corpus/fuzz_task
 *
 * Exits 0 when every input ran (a failing input aborts, as under libFuzzer), 1 when a file
 * cannot be read.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
	char *data;
	size_t len;

	if (read_file(path, &data, &len) != KBX_OK) {
		fprintf(stderr, "replay: %s\n", kbx_last_error());
		return 1;
	}
	LLVMFuzzerTestOneInput((const uint8_t *)data, len);
	free(data);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, int *count)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int bad = 0;

	if (!d) {
		fprintf(stderr, "replay: cannot open '%s'\n", dir);
		return 1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		XGROW(names, n + 1, cap);
		names[n++] = xasprintf("%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		struct stat st;

		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
			bad |= replay_file(names[i]);
			++*count;
		}
		free(names[i]);
	}
	free(names);
	return bad;
}

int main(int argc, char **argv)
{
	int i, bad = 0, count = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			bad |= replay_dir(argv[i], &count);
		} else {
			bad |= replay_file(argv[i]);
			count++;
		}
	}
	printf("replayed %d input%s\n", count, count == 1 ? "" : "s");
	return bad;
}
