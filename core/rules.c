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

/* Pass s[i..] up to and including the closing quote (or a newline for a one-quote string),
 * blanking it in out unless keep (the string stays, a '#' inside it is still no comment). */
static size_t blank_py_string(const char *s, size_t n, size_t i, char *out, int keep)
{
	char q = s[i];
	int triple = i + 2 < n && s[i + 1] == q && s[i + 2] == q;
	size_t k;

	for (k = 0; k < (triple ? 3u : 1u); k++, i++)
		if (!keep)
			out[i] = ' ';
	while (i < n) {
		if (s[i] == '\\' && i + 1 < n) {
			if (!keep) {
				out[i] = ' ';
				if (s[i + 1] != '\n')
					out[i + 1] = ' ';
			}
			i += 2;
			continue;
		}
		if (!triple && s[i] == '\n')
			return i;
		if (s[i] == q && (!triple || (i + 2 < n && s[i + 1] == q && s[i + 2] == q))) {
			for (k = 0; k < (triple ? 3u : 1u); k++, i++)
				if (!keep)
					out[i] = ' ';
			return i;
		}
		if (s[i] != '\n' && !keep)
			out[i] = ' ';
		i++;
	}
	return i;
}

/* Python source with comments blanked, and string literals too unless keep_strings. */
static char *blank_python(const char *src, int keep_strings)
{
	size_t n = strlen(src), i = 0;
	char *out = xstrdup(src);

	while (i < n) {
		if (src[i] == '#') {
			while (i < n && src[i] != '\n')
				out[i++] = ' ';
		} else if (src[i] == '"' || src[i] == '\'') {
			i = blank_py_string(src, n, i, out, keep_strings);
		} else {
			i++;
		}
	}
	return out;
}

char *rules_code_only_python(const char *src)
{
	return blank_python(src, 0);
}

static void rule_free(struct rule *r)
{
	free(r->id);
	free(r->pattern);
	free(r->message);
	free(r->evidence_of);
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

int rules_stands_for(const struct rule *r, const char *id, enum rules_lang lang)
{
	return r->kind == RULE_EVIDENCE && r->lang == lang && !strcmp(r->evidence_of ? r->evidence_of : r->id, id);
}

const struct rule *rules_find_evidence(const struct ruleset *rs, const char *id, enum rules_lang lang)
{
	int i;

	for (i = 0; i < rs->n; i++)
		if (rules_stands_for(&rs->rules[i], id, lang))
			return &rs->rules[i];
	return NULL;
}

static enum kbx_status finish_rule(struct rule *r, const char *path)
{
	PCRE2_SIZE off;
	int err;

	if (r->evidence_of && r->kind != RULE_EVIDENCE)
		return kbx_error(KBX_EPARSE, "rule '%s' in '%s' line %d: 'evidence_of' goes with kind = evidence", r->id,
				 path, r->line);
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
			} else if (!strcmp(key, "lang")) {
				if (!strcmp(val, "cuda"))
					cur->lang = RULES_CUDA;
				else if (!strcmp(val, "python"))
					cur->lang = RULES_PYTHON;
				else
					st = kbx_error(KBX_EPARSE, "'%s' line %d: unknown lang '%s' (expected cuda or python)", path,
						       lineno, val);
			} else if (!strcmp(key, "evidence_of")) {
				free(cur->evidence_of);
				cur->evidence_of = xstrdup(val);
			} else {
				st = kbx_error(KBX_EPARSE, "'%s' line %d: unknown key '%s' (expected kind, pattern, message, lang, "
					       "strings or evidence_of)", path, lineno, key);
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

/* Where a match starts, found by walking on from the previous match of the same rule: matches
 * come in increasing offsets, so the walk over a whole scan is one pass over the source (walking
 * from the start for every match made a source with many findings quadratic: 6 MB took a minute). */
struct cursor {
	size_t off;
	int line, col;
};

static void cursor_advance(const char *src, size_t off, struct cursor *c, struct rules_scan_stats *stats)
{
	if (off < c->off)
		*c = (struct cursor){ 0, 1, 1 };
	if (stats)
		stats->steps += off - c->off;
	for (; c->off < off; c->off++) {
		if (src[c->off] == '\n') {
			c->line++;
			c->col = 1;
		} else {
			c->col++;
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
	return rules_scan_lang(rs, src, RULES_CUDA, out);
}

int rules_scan_lang(const struct ruleset *rs, const char *src, enum rules_lang lang, struct finding **out)
{
	return rules_scan_stats(rs, src, lang, out, NULL);
}

/* One rule over the code: every match (one finding per line), or the first for evidence. A match
 * attempt that reaches the match or depth limit ends this rule's scan: it is counted, not hung on. */
static int scan_rule(const struct rule *r, const char *code, size_t len, pcre2_match_context *mc,
		     struct finding **f, int n, size_t *cap, struct rules_scan_stats *stats)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(r->re, NULL);
	struct cursor cur = { 0, 1, 1 };
	PCRE2_SIZE start = 0;
	int last_line = 0, rc;

	while (start <= len && (rc = pcre2_match(r->re, (PCRE2_SPTR)code, len, start, 0, md, mc)) >= 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);

		cursor_advance(code, ov[0], &cur, stats);
		if (cur.line != last_line) {
			XGROW(*f, (size_t)n + 1, *cap);
			(*f)[n] = (struct finding){ r, cur.line, cur.col };
			n++;
			last_line = cur.line;
		}
		if (stats)
			stats->matches++;
		if (r->kind == RULE_EVIDENCE)
			break;
		start = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
	}
	if (stats && (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT))
		stats->limited++;
	pcre2_match_data_free(md);
	return n;
}

int rules_scan_stats(const struct ruleset *rs, const char *src, enum rules_lang lang, struct finding **out,
		     struct rules_scan_stats *stats)
{
	/* a rule with `strings = keep` (PTX in CUDA's asm strings, or in Triton's inline asm) reads
	 * the source with its strings */
	char *code = lang == RULES_PYTHON ? rules_code_only_python(src) : rules_code_only(src);
	char *with_strings = lang == RULES_PYTHON ? blank_python(src, 1) : blank(src, 1);
	size_t len = strlen(code), cap = 0;
	pcre2_match_context *mc = pcre2_match_context_create(NULL);
	struct finding *f = NULL;
	int i, n = 0;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (mc) {
		pcre2_set_match_limit(mc, RULES_MATCH_LIMIT);
		pcre2_set_depth_limit(mc, RULES_DEPTH_LIMIT);
	}
	for (i = 0; i < rs->n; i++)
		if (rs->rules[i].lang == lang)
			n = scan_rule(&rs->rules[i], rs->rules[i].keep_strings && with_strings ? with_strings : code, len, mc,
				      &f, n, &cap, stats);
	pcre2_match_context_free(mc);
	free(code);
	free(with_strings);
	if (n)
		qsort(f, (size_t)n, sizeof(*f), cmp_finding);
	*out = f;
	return n;
}
