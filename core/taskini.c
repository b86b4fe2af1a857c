/*
 * The task file's INI reader (taskini.h).
 */
#include "taskini.h"

#include <ctype.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* inih (Debian's 55) gives the handler neither the line number nor the full section name (it
 * keeps 50 characters), cuts lines at its buffer size, and passes an indented line again under
 * the previous key. So we feed it through our own reader, which sees every raw line first:
 * it counts lines, notices lines that would be cut, and records section headers with their
 * full names, mirroring inih's own classification of the line so that both agree on what a
 * line is. The handler then only collects key/value pairs into the current section. */

static int ini_fail(struct ini_state *s, enum kbx_status st)
{
	if (!s->failed) {
		s->failed = 1;
		s->st = st;
	}
	return 0;
}

/* inih's find_chars_or_comment: the first of `chars`, or of a ';' that follows a space. */
static const char *find_chars_or_comment(const char *s, const char *chars)
{
	int was_space = 0;

	while (*s && (!chars || !strchr(chars, *s)) && !(was_space && *s == ';')) {
		was_space = isspace((unsigned char)*s);
		s++;
	}
	return s;
}

static char *line_reader(char *str, int num, void *stream)
{
	struct ini_state *s = stream;
	const char *start, *nl, *p;
	size_t len;

	if (s->failed || s->pos >= s->len)
		return NULL;
	start = s->buf + s->pos;
	nl = memchr(start, '\n', s->len - s->pos);
	len = nl ? (size_t)(nl - start) : s->len - s->pos;
	s->pos += len + (nl ? 1 : 0);
	s->lineno++;
	if (len && start[len - 1] == '\r')
		len--;
	if (s->lineno == 1 && len >= 3 && memcmp(start, "\xEF\xBB\xBF", 3) == 0) {
		start += 3;
		len -= 3;
	}
	if (memchr(start, '\0', len)) {
		ini_fail(s, kbx_error(KBX_EPARSE, "unexpected NUL byte in '%s' line %d", s->path, s->lineno));
		return NULL;
	}
	/* inih reads num - 1 bytes at most, the newline included */
	if (num < 3 || len > (size_t)num - 2) {
		ini_fail(s, kbx_error(KBX_EPARSE,
				      "line too long in '%s' line %d (%zu characters, at most %d): write a long value "
				      "over several lines, each continuation line indented",
				      s->path, s->lineno, len, num - 2));
		return NULL;
	}
	memcpy(str, start, len);
	str[len] = '\n';
	str[len + 1] = '\0';

	s->cont = 0;
	for (p = str; *p != '\n' && isspace((unsigned char)*p); p++)
		;
	if (*p == '\n' || *p == ';' || *p == '#')
		return str;
	if (s->have_key && p > str) {
		s->cont = 1;
		return str;
	}
	if (*p == '[') {
		const char *end = find_chars_or_comment(p + 1, "]");
		const char *q;
		struct raw_section *sec;

		if (*end != ']') {
			ini_fail(s, kbx_error(KBX_EPARSE, "expected ']' to close the section header in '%s' line %d",
					      s->path, s->lineno));
			return NULL;
		}
		for (q = end + 1; isspace((unsigned char)*q); q++)
			;
		if (*q && *q != ';') {
			ini_fail(s, kbx_error(KBX_EPARSE, "unexpected text after the section header in '%s' line %d",
					      s->path, s->lineno));
			return NULL;
		}
		XGROW(s->secs, s->nsecs + 1, s->cap);
		sec = &s->secs[s->nsecs++];
		memset(sec, 0, sizeof(*sec));
		sec->name = xstrndup(p + 1, (size_t)(end - p - 1));
		sec->line = s->lineno;
		s->have_key = 0;
		return str;
	}
	p = find_chars_or_comment(p, "=:");
	if (*p != '=' && *p != ':') {
		ini_fail(s, kbx_error(KBX_EPARSE, "expected 'key = value' or '[section]' in '%s' line %d", s->path,
				      s->lineno));
		return NULL;
	}
	s->have_key = 1;
	return str;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct ini_state *s = user;
	struct raw_section *sec;
	struct raw_entry *e;

	if (s->failed)
		return 0;
	if (s->nsecs == 0)
		return ini_fail(s, kbx_error(KBX_EPARSE, "key '%s' before any section in '%s' line %d", name,
					     s->path, s->lineno));
	sec = &s->secs[s->nsecs - 1];
	if (s->cont) {
		if (sec->n == 0)
			return ini_fail(s, kbx_error(KBX_EPARSE, "indented line without a key in '%s' line %d",
						     s->path, s->lineno));
		e = &sec->e[sec->n - 1];
		if (*value) {
			char *joined = xasprintf("%s%s%s", e->value, *e->value ? " " : "", value);

			free(e->value);
			e->value = joined;
		}
		return 1;
	}
	XGROW(sec->e, sec->n + 1, sec->cap);
	e = &sec->e[sec->n++];
	e->key = xstrdup(name);
	e->value = xstrdup(value ? value : "");
	e->line = s->lineno;
	return 1;
}

void taskini_free(struct ini_state *s)
{
	int i, j;

	for (i = 0; i < s->nsecs; i++) {
		for (j = 0; j < s->secs[i].n; j++) {
			free(s->secs[i].e[j].key);
			free(s->secs[i].e[j].value);
		}
		free(s->secs[i].e);
		free(s->secs[i].name);
	}
	free(s->secs);
}

/* text[0..len) is the file's content; path only names it in messages. */
enum kbx_status taskini_parse(const char *path, const char *text, size_t len, struct ini_state *s)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->path = path;
	s->buf = text;
	s->len = len;
	rc = ini_parse_stream(line_reader, s, on_key, s);
	s->buf = NULL;
	if (s->failed)
		return s->st;
	if (rc == -2)
		return kbx_error(KBX_ENOMEM, "out of memory reading '%s'", path);
	if (rc != 0)
		return kbx_error(KBX_EPARSE, "syntax error in '%s' line %d", path, rc);
	return KBX_OK;
}

enum kbx_status taskini_read(const char *path, struct ini_state *s)
{
	char *text;
	size_t len;
	enum kbx_status st;

	memset(s, 0, sizeof(*s));
	st = read_file(path, &text, &len);
	if (st)
		return st;
	st = taskini_parse(path, text, len, s);
	free(text);
	return st;
}

const struct raw_section *taskini_section(const struct ini_state *s, const char *name)
{
	int i;

	for (i = 0; i < s->nsecs; i++)
		if (strcmp(s->secs[i].name, name) == 0)
			return &s->secs[i];
	return NULL;
}
