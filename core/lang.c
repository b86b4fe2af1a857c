#include "lang.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static void fmt_size(size_t n, char *buf, size_t len)
{
	if (n >= 1024 * 1024)
		snprintf(buf, len, "%.1f MiB", (double)n / (1024.0 * 1024.0));
	else
		snprintf(buf, len, "%zu bytes", n);
}

enum kbx_status lang_check_source(const char *name, const char *text, size_t len)
{
	char size[32];

	if (len > KBX_SOURCE_MAX) {
		fmt_size(len, size, sizeof(size));
		return kbx_error(KBX_EINVAL, "'%s' is %s: a candidate source may be at most %u MiB (KBX_SOURCE_MAX)", name,
				 size, KBX_SOURCE_MAX / (1024u * 1024u));
	}
	if (memchr(text, '\0', len))
		return kbx_error(KBX_EINVAL, "'%s' is not a text file (it holds NUL bytes): a candidate is CUDA or Python source",
				 name);
	return KBX_OK;
}

enum kbx_status lang_read_source(const char *path, char **out, size_t *len)
{
	struct stat sb;
	enum kbx_status st;
	size_t n = 0;

	*out = NULL;
	if (len)
		*len = 0;
	/* an 8 MB file is refused without reading it */
	if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && (unsigned long long)sb.st_size > KBX_SOURCE_MAX)
		return lang_check_source(path, "", (size_t)sb.st_size);
	st = read_file(path, out, &n);
	if (!st)
		st = lang_check_source(path, *out, n);
	if (st) {
		free(*out);
		*out = NULL;
		return st;
	}
	if (len)
		*len = n;
	return KBX_OK;
}
