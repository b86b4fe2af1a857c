#include "lang.h"

#include <ctype.h>
#include <string.h>

#include "util.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

/* The line starting at p begins (after indentation) with word followed by a space or '(' */
static int line_starts(const char *p, const char *word)
{
	size_t n = strlen(word);

	while (*p == ' ' || *p == '\t')
		p++;
	return !strncmp(p, word, n) && (p[n] == ' ' || p[n] == '(' || p[n] == '.' || p[n] == '\t');
}

enum cand_lang lang_of_text(const char *text)
{
	const char *p;
	int python = 0;

	if (strstr(text, "__global__") || strstr(text, "@kbx launch"))
		return LANG_CUDA;
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *q = p;

		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '#' && !strncmp(q, "#include", 8))
			return LANG_CUDA;
		if (line_starts(p, "import") || line_starts(p, "def") || line_starts(p, "class") ||
		    !strncmp(q, "@triton.", 8) || (line_starts(p, "from") && strstr(q, " import ")))
			python = 1;
	}
	return python ? LANG_PYTHON : LANG_CUDA;
}

enum cand_lang lang_detect(const char *name, const char *text)
{
	if (name) {
		if (ends_with(name, ".py"))
			return LANG_PYTHON;
		if (ends_with(name, ".cu") || ends_with(name, ".cuh") || ends_with(name, ".cuda"))
			return LANG_CUDA;
	}
	return text ? lang_of_text(text) : LANG_CUDA;
}

const char *lang_name(enum cand_lang l)
{
	return l == LANG_PYTHON ? "python" : "cuda";
}

char *lang_strip_fences(const char *text)
{
	const char *open = strstr(text, "```"), *body, *close;

	if (!open)
		return xstrdup(text);
	body = strchr(open + 3, '\n');
	if (!body)
		return xstrdup("");
	body++;
	close = strstr(body, "```");
	return close ? xstrndup(body, (size_t)(close - body)) : xstrdup(body);
}
