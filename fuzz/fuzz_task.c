/*
 * fuzz_task.c - task.ini text through the task loader (core/task.c task_parse_text): inih, the
 * line reader around it, every section's checks, and problem_from_case/problem_from_perf on
 * each case and perf row (expressions, perf lists, generators, input_size templates).
 *
 * The loader insists that [task] name and category match the task's folder, so the target
 * takes them from the input's own `name =` and `category =` lines; a mutated input then gets
 * past that check as often as the original did.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../core/task.h"
#include "fuzz.h"

/* The value of the first `key = value` line, as inih would read it (inline ';' comments cut). */
static char *find_value(const char *text, const char *key, const char *dflt)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (*line) {
		const char *p = line, *end = line + strcspn(line, "\n"), *v, *e;

		while (p < end && isspace((unsigned char)*p))
			p++;
		if ((size_t)(end - p) > klen && strncmp(p, key, klen) == 0) {
			v = p + klen;
			while (v < end && (*v == ' ' || *v == '\t'))
				v++;
			if (v < end && (*v == '=' || *v == ':')) {
				for (v++; v < end && isspace((unsigned char)*v); v++)
					;
				for (e = v; e < end && !(e > v && *e == ';' && isspace((unsigned char)e[-1])); e++)
					;
				while (e > v && isspace((unsigned char)e[-1]))
					e--;
				return xstrndup(v, (size_t)(e - v));
			}
		}
		line = *end ? end + 1 : end;
	}
	return xstrdup(dflt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	char *name = find_value(text, "name", "fuzz");
	char *category = find_value(text, "category", "Fuzz");
	struct task *t = NULL;

	if (task_parse_text(text, "fuzz/task.ini", category, name, &t) == KBX_OK) {
		/* a task that loads is whole: every arg named, every case with a name */
		for (int i = 0; i < t->nargs; i++)
			if (task_find_arg(t, t->args[i].name) == NULL)
				abort();
		for (int i = 0; i < t->ncases; i++)
			if (!t->cases[i].name || !*t->cases[i].name)
				abort();
		task_free(t);
	} else if (t != NULL) {
		abort();        /* *out must stay NULL on failure */
	}
	free(category);
	free(name);
	free(text);
	return 0;
}
