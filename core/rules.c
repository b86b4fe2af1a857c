#include "rules.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

const char *rule_kind_name(enum rule_kind k)
{
	switch (k) {
	case RULE_FATAL: return "fatal";
	case RULE_WARNING: return "warning";
	case RULE_EVIDENCE: return "evidence";
	}
	return "?";
}

/* The source with comments blanked, and string literals too unless keep_strings. */
static char *blank(const char *src, int keep_strings)
{
	size_t n = strlen(src), i = 0;
	char *out = xstrdup(src);

	while (i < n) {
		if (src[i] == '/' && src[i + 1] == '/') {
			while (i < n && src[i] != '\n')
				out[i++] = ' ';
		} else if (src[i] == '/' && src[i + 1] == '*') {
			out[i] = out[i + 1] = ' ';
			i += 2;
			while (i < n && !(src[i] == '*' && src[i + 1] == '/')) {
				if (src[i] != '\n')
					out[i] = ' ';
				i++;
			}
			if (i < n) {
				out[i] = out[i + 1] = ' ';
				i += 2;
			}
		} else if (src[i] == '"' || src[i] == '\'') {
			char q = src[i++];

			while (i < n && src[i] != q && src[i] != '\n') {
				if (src[i] == '\\' && i + 1 < n && src[i + 1] != '\n') {
					if (!keep_strings)
						out[i] = ' ';
					i++;
				}
				if (!keep_strings)
					out[i] = ' ';
				i++;
			}
			i++;
		} else {
			i++;
		}
	}
	return out;
}

char *rules_code_only(const char *src)
{
	return blank(src, 0);
}

static void rule_free(struct rule *r)
{
	free(r->id);
	free(r->pattern);
	free(r->message);
	pcre2_code_free(r->re);
}

void rules_free(struct ruleset *rs)
{
	int i;

	for (i = 0; i < rs->n; i++)
		rule_free(&rs->rules[i]);
	free(rs->rules);
	memset(rs, 0, sizeof(*rs));
}

const struct rule *rules_find(const struct ruleset *rs, const char *id)
{
	int i;

	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->rules[i].id, id))
			return &rs->rules[i];
	return NULL;
}

static enum kbx_status finish_rule(struct rule *r, const char *path)
{
	PCRE2_SIZE off;
	int err;

	if (!r->pattern || !r->message)
		return kbx_error(KBX_EPARSE, "rule '%s' in '%s' line %d: expected 'pattern' and 'message'", r->id, path,
				 r->line);
	r->re = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED, PCRE2_MULTILINE, &err, &off, NULL);
	if (!r->re) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(err, msg, sizeof(msg));
		return kbx_error(KBX_EPARSE, "rule '%s' in '%s' line %d: bad pattern at offset %zu: %s", r->id, path, r->line,
				 (size_t)off, (char *)msg);
	}
	return KBX_OK;
}

/* A small INI reader of our own: rules carry regular expressions, which are full of the ';'
 * and '#' that inih would take for comments, and of long lines that it would cut. */
enum kbx_status rules_parse(const char *text, const char *path, struct ruleset *out)
{
	const char *p = text;
	struct rule *cur = NULL;
	size_t cap = 0;
	int lineno = 0;
	enum kbx_status st = KBX_OK;

	memset(out, 0, sizeof(*out));
	while (*p && !st) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *line = xstrndup(p, len), *s = str_trim(line), *eq;

		lineno++;
		p += len + (end ? 1 : 0);
		if (!*s || *s == ';' || *s == '#') {
			free(line);
			continue;
		}
		if (*s == '[') {
			char *close = strchr(s, ']');

			if (cur && (st = finish_rule(cur, path)))
				break;
			if (!close || strncmp(s, "[rule.", 6) || close == s + 6 || close[1]) {
				st = kbx_error(KBX_EPARSE, "'%s' line %d: expected '[rule.NAME]'", path, lineno);
			} else {
				*close = '\0';
				if (rules_find(out, s + 6)) {
					st = kbx_error(KBX_EPARSE, "'%s' line %d: rule '%s' defined twice", path, lineno, s + 6);
				} else {
					XGROW(out->rules, (size_t)out->n + 1, cap);
					cur = &out->rules[out->n++];
					memset(cur, 0, sizeof(*cur));
					cur->id = xstrdup(s + 6);
					cur->kind = RULE_WARNING;
					cur->line = lineno;
				}
			}
			free(line);
			continue;
		}
		eq = strchr(s, '=');
		if (!eq || !cur) {
			st = kbx_error(KBX_EPARSE, "'%s' line %d: expected %s", path, lineno,
				       cur ? "'key = value'" : "'[rule.NAME]' first");
			free(line);
			break;
		}
		*eq = '\0';
		{
			char *key = str_trim(s), *val = str_trim(eq + 1);

			if (!strcmp(key, "kind")) {
				if (!strcmp(val, "fatal"))
					cur->kind = RULE_FATAL;
				else if (!strcmp(val, "warning"))
					cur->kind = RULE_WARNING;
				else if (!strcmp(val, "evidence"))
					cur->kind = RULE_EVIDENCE;
				else
					st = kbx_error(KBX_EPARSE, "'%s' line %d: unknown kind '%s' (expected fatal, warning or evidence)",
						       path, lineno, val);
			} else if (!strcmp(key, "pattern")) {
				free(cur->pattern);
				cur->pattern = xstrdup(val);
			} else if (!strcmp(key, "strings")) {
				if (!strcmp(val, "keep"))
					cur->keep_strings = 1;
				else if (!strcmp(val, "blank"))
					cur->keep_strings = 0;
				else
					st = kbx_error(KBX_EPARSE, "'%s' line %d: strings must be 'keep' or 'blank', not '%s'", path,
						       lineno, val);
			} else if (!strcmp(key, "message")) {
				free(cur->message);
				cur->message = xstrdup(val);
			} else {
				st = kbx_error(KBX_EPARSE, "'%s' line %d: unknown key '%s' (expected kind, pattern, strings or message)", path,
					       lineno, key);
			}
		}
		free(line);
	}
	if (!st && cur)
		st = finish_rule(cur, path);
	if (st)
		rules_free(out);
	return st;
}

enum kbx_status rules_load(const char *path, struct ruleset *out)
{
	char *text;
	size_t len;
	enum kbx_status st;

	memset(out, 0, sizeof(*out));
	if (access(path, F_OK) != 0)
		return KBX_OK;
	st = read_file(path, &text, &len);
	if (st)
		return st;
	st = rules_parse(text, path, out);
	free(text);
	return st;
}

static void position(const char *src, size_t off, int *line, int *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off; i++) {
		if (src[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static int cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->line != y->line)
		return x->line - y->line;
	return x->col - y->col;
}

int rules_scan(const struct ruleset *rs, const char *src, struct finding **out)
{
	char *plain = rules_code_only(src), *with_strings = blank(src, 1);
	size_t len = strlen(plain), cap = 0;
	struct finding *f = NULL;
	int i, n = 0;

	for (i = 0; i < rs->n; i++) {
		const struct rule *r = &rs->rules[i];
		const char *code = r->keep_strings ? with_strings : plain;
		pcre2_match_data *md = pcre2_match_data_create_from_pattern(r->re, NULL);
		PCRE2_SIZE start = 0;
		int last_line = 0;

		while (start <= len && pcre2_match(r->re, (PCRE2_SPTR)code, len, start, 0, md, NULL) >= 0) {
			PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
			int line, col;

			position(code, ov[0], &line, &col);
			if (line != last_line) {
				XGROW(f, (size_t)n + 1, cap);
				f[n].rule = r;
				f[n].line = line;
				f[n].col = col;
				n++;
				last_line = line;
			}
			if (r->kind == RULE_EVIDENCE)
				break;
			start = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
		}
		pcre2_match_data_free(md);
	}
	free(plain);
	free(with_strings);
	if (n)
		qsort(f, (size_t)n, sizeof(*f), cmp_finding);
	*out = f;
	return n;
}
