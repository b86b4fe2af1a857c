#include "sanitizer.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MARGIN "========="

int sanitizer_tool_ok(const char *tool)
{
	return tool && (!strcmp(tool, "memcheck") || !strcmp(tool, "racecheck") || !strcmp(tool, "initcheck") ||
			!strcmp(tool, "synccheck"));
}

/* Lines at the margin that are not findings. */
static int is_noise(const char *s)
{
	static const char *const noise[] = {
		"COMPUTE-SANITIZER", "ERROR SUMMARY", "LEAK SUMMARY", "RACECHECK SUMMARY", "Program hit",
		"Target application", "Saved host backtrace", "Internal Sanitizer Error", "Note:", "Warning:",
	};
	size_t i;

	if (!*s)
		return 1;
	for (i = 0; i < sizeof(noise) / sizeof(noise[0]); i++)
		if (!strncmp(s, noise[i], strlen(noise[i])))
			return 1;
	return 0;
}

/* Detail lines as some versions print them, without an indent. */
static int is_detail(const char *s)
{
	return !strncmp(s, "at ", 3) || !strncmp(s, "by thread ", 10) || !strncmp(s, "Address ", 8) ||
	       !strncmp(s, "and is ", 7);
}

/* " in FILE:LINE" anywhere in s: the last such pair before the end or a ':' + name. */
static int find_location(const char *s, char **file, int *line)
{
	const char *p = s;

	while ((p = strstr(p, " in ")) != NULL) {
		const char *f = p + 4, *colon = f;

		p += 4;
		while (*colon && !isspace((unsigned char)*colon)) {
			if (*colon == ':' && isdigit((unsigned char)colon[1])) {
				*file = xstrndup(f, (size_t)(colon - f));
				*line = atoi(colon + 1);
				return 1;
			}
			colon++;
		}
	}
	return 0;
}

static void add(struct san_finding **out, int *n, size_t *cap, struct san_finding *f)
{
	int i;

	for (i = 0; i < *n; i++) {
		struct san_finding *o = &(*out)[i];

		if (o->line == f->line && !strcmp(o->what, f->what) && !strcmp(o->file, f->file)) {
			o->count++;
			free(f->what);
			free(f->file);
			free(f->where);
			return;
		}
	}
	f->count = 1;
	XGROW(*out, (size_t)*n + 1, *cap);
	(*out)[(*n)++] = *f;
}

int sanitizer_parse(const char *log, struct san_finding **out)
{
	const char *p = log ? log : "";
	struct san_finding cur = { 0 };
	size_t cap = 0;
	int n = 0, open = 0;
	char *f;

	*out = NULL;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *text = xstrndup(p, len);
		char *body;

		p += len + (eol != NULL);
		if (strncmp(text, MARGIN, strlen(MARGIN)) != 0) {
			free(text);
			continue;
		}
		body = text + strlen(MARGIN);
		if (*body == ' ' && body[1] != ' ' && body[1] != '\t' && body[1] && !is_detail(body + 1)) {
			/* a headline: the previous finding ends */
			if (open)
				add(out, &n, &cap, &cur);
			memset(&cur, 0, sizeof(cur));
			open = !is_noise(body + 1);
			if (open) {
				cur.what = str_trim(xstrdup(body + 1));
				cur.file = xstrdup("");
				cur.where = xstrdup("");

				/* racecheck puts the location on the headline itself */
				f = NULL;
				if (find_location(cur.what, &f, &cur.line)) {
					free(cur.file);
					cur.file = f;
				}
			}
		} else if (open) {
			char *s = str_trim(body);

			if (!cur.line && !strncmp(s, "at ", 3)) {
				f = NULL;
				if (find_location(s, &f, &cur.line)) {
					free(cur.file);
					cur.file = f;
				}
			} else if (!*cur.where && !strncmp(s, "by thread ", 10)) {
				free(cur.where);
				cur.where = xstrdup(s + 3);
			}
		}
		free(text);
	}
	if (open)
		add(out, &n, &cap, &cur);
	return n;
}

void sanitizer_findings_free(struct san_finding *f, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(f[i].what);
		free(f[i].file);
		free(f[i].where);
	}
	free(f);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int sanitizer_is_candidate(const struct san_finding *f, const char *candidate_name)
{
	const char *cb = base_name(candidate_name ? candidate_name : "");

	if (!strcmp(cb, "reference.cu"))
		return 1;
	return strcmp(base_name(f->file), "reference.cu") != 0;
}
