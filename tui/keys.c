/*
 * keys.c - the key table: parsing its spellings, looking keys up, naming them.
 */
#include "keys.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

struct action_info {
	enum key_scope scope;
	const char *spec, *brief, *help;
};

static const struct action_info actions[ACT_COUNT] = {
	[ACT_NONE] = { KS_GLOBAL, "", "", "" },
#define KEY_ACTION_INFO(id, scope, keys, brief, help) [id] = { scope, keys, brief, help },
	KEY_LIST(KEY_ACTION_INFO)
#undef KEY_ACTION_INFO
};

static const char *const scope_titles[KS_COUNT] = {
#define KEY_SCOPE_TITLE(id, title) [id] = title,
	KEY_SCOPE_LIST(KEY_SCOPE_TITLE)
#undef KEY_SCOPE_TITLE
};

static int codes[ACT_COUNT][KEYS_MAX_PER_ACTION];
static int ncodes[ACT_COUNT];
static int ready;

static const struct {
	const char *name;
	int code;
} named[] = {
	{ "Up", TK_UP }, { "Down", TK_DOWN }, { "Left", TK_LEFT }, { "Right", TK_RIGHT },
	{ "PgUp", TK_PGUP }, { "PgDn", TK_PGDN }, { "Home", TK_HOME }, { "End", TK_END },
	{ "Enter", TK_ENTER }, { "Esc", TK_ESC }, { "Tab", TK_TAB }, { "S-Tab", TK_BTAB },
	{ "Backspace", TK_BACKSPACE }, { "Del", TK_DELETE }, { "F1", TK_F1 }, { "Space", ' ' },
};

const char *keys_name(int code, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (named[i].code == code) {
			snprintf(buf, len, "%s", named[i].name);
			return buf;
		}
	}
	if (code >= 1 && code <= 26)
		snprintf(buf, len, "^%c", 'A' + code - 1);
	else if (code > 32 && code < 127)
		snprintf(buf, len, "%c", code);
	else
		snprintf(buf, len, "<%d>", code);
	return buf;
}

/* One word: a named key, ^X, a single printable character, or a range "a-b". */
static int parse_word(const char *w, size_t n, int *out, int max, int *count)
{
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (strlen(named[i].name) == n && !strncmp(named[i].name, w, n)) {
			if (*count >= max)
				return -1;
			out[(*count)++] = named[i].code;
			return 0;
		}
	}
	if (n == 2 && w[0] == '^' && ((w[1] >= 'A' && w[1] <= 'Z') || (w[1] >= 'a' && w[1] <= 'z'))) {
		if (*count >= max)
			return -1;
		out[(*count)++] = TK_CTRL(w[1]);
		return 0;
	}
	if (n == 1 && w[0] > 32 && w[0] < 127) {
		if (*count >= max)
			return -1;
		out[(*count)++] = (unsigned char)w[0];
		return 0;
	}
	if (n == 3 && w[1] == '-' && w[0] > 32 && w[0] < 127 && w[2] > w[0] && w[2] < 127) {
		for (int c = w[0]; c <= w[2]; c++) {
			if (*count >= max)
				return -1;
			out[(*count)++] = c;
		}
		return 0;
	}
	return -1;
}

int keys_parse_spec(const char *spec, int *out, int max, const char **bad)
{
	const char *p = spec;
	int count = 0;

	while (*p) {
		size_t n;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		n = strcspn(p, " ");
		if (parse_word(p, n, out, max, &count) != 0) {
			if (bad)
				*bad = p;
			return -1;
		}
		p += n;
	}
	return count;
}

int keys_init(const char **why)
{
	static char msg[160];
	const char *bad;

	for (int a = 1; a < ACT_COUNT; a++) {
		ncodes[a] = keys_parse_spec(actions[a].spec, codes[a], KEYS_MAX_PER_ACTION, &bad);
		if (ncodes[a] <= 0) {
			snprintf(msg, sizeof(msg), "bad key '%s' for '%s'", ncodes[a] < 0 ? bad : "", actions[a].help);
			ncodes[a] = 0;
			if (why)
				*why = msg;
			return -1;
		}
	}
	ready = 1;
	return 0;
}

enum action keys_lookup_in(enum key_scope scope, int key)
{
	if (!ready)
		keys_init(NULL);
	for (int a = 1; a < ACT_COUNT; a++) {
		if (actions[a].scope != scope)
			continue;
		for (int i = 0; i < ncodes[a]; i++)
			if (codes[a][i] == key)
				return (enum action)a;
	}
	return ACT_NONE;
}

enum action keys_lookup(enum key_scope scope, int key)
{
	enum action a = keys_lookup_in(scope, key);

	if (a != ACT_NONE || scope == KS_PROMPT || scope == KS_PASTE || scope == KS_GLOBAL)
		return a;
	if (scope != KS_LIST && (a = keys_lookup_in(KS_LIST, key)) != ACT_NONE)
		return a;
	return keys_lookup_in(KS_GLOBAL, key);
}

const char *keys_spec(enum action a)
{
	return a > ACT_NONE && a < ACT_COUNT ? actions[a].spec : "";
}

const char *keys_brief(enum action a)
{
	return a > ACT_NONE && a < ACT_COUNT ? actions[a].brief : "";
}

const char *keys_help(enum action a)
{
	return a > ACT_NONE && a < ACT_COUNT ? actions[a].help : "";
}

enum key_scope keys_scope(enum action a)
{
	return a > ACT_NONE && a < ACT_COUNT ? actions[a].scope : KS_GLOBAL;
}

/* The bottom bar's hints on each screen (by its scope), in order, ending with ACT_NONE. */
static const enum action *const scope_hints[KS_COUNT] = {
	[KS_BROWSER] = (const enum action[]){
		ACT_OPEN, ACT_RUN, ACT_LOAD, ACT_PASTE, ACT_SEARCH, ACT_FILTER_DIFF,
		ACT_HISTORY, ACT_THEME, ACT_HELP, ACT_QUIT, ACT_NONE,
	},
	[KS_TASK] = (const enum action[]){
		ACT_EXAMPLE, ACT_RUN, ACT_RUN_REF, ACT_LOAD, ACT_PASTE, ACT_EDIT,
		ACT_STARTER, ACT_CANDIDATE, ACT_HISTORY, ACT_BACK, ACT_NONE,
	},
	[KS_CAND] = (const enum action[]){
		ACT_RUN, ACT_LOAD, ACT_PASTE, ACT_EDIT, ACT_STARTER, ACT_WRITE,
		ACT_GOTO_LINE, ACT_NEXT_DIAG, ACT_LOG, ACT_BACK, ACT_NONE,
	},
	[KS_RUN] = (const enum action[]){ ACT_CANCEL, ACT_OPEN, ACT_LOG, ACT_CANDIDATE, ACT_RUN, ACT_BACK, ACT_NONE },
	[KS_RESULTS] = (const enum action[]){
		ACT_DIFF, ACT_LOG, ACT_CANDIDATE, ACT_RUN,
		ACT_SANITIZE, ACT_HISTORY, ACT_BACK, ACT_NONE,
	},
	[KS_DIFF] = (const enum action[]){
		ACT_NEXT_CASE, ACT_PREV_CASE, ACT_NEXT_OUTPUT, ACT_LENS, ACT_DOWN,
		ACT_CANDIDATE, ACT_BACK, ACT_NONE,
	},
	[KS_LOG] = (const enum action[]){ ACT_JUMP, ACT_DOWN, ACT_UP, ACT_CANDIDATE, ACT_RUN, ACT_BACK, ACT_NONE },
	[KS_HISTORY] = (const enum action[]){
		ACT_OPEN, ACT_MARK, ACT_COMPARE, ACT_SCOPE,
		ACT_USE_SOURCE, ACT_NEXT_PANE, ACT_BACK, ACT_NONE,
	},
	[KS_COMPARE] = (const enum action[]){ ACT_DOWN, ACT_UP, ACT_PGDN, ACT_RIGHT, ACT_BACK, ACT_NONE },
	[KS_HELP] = (const enum action[]){ ACT_DOWN, ACT_UP, ACT_PGDN, ACT_TOP, ACT_THEME, ACT_BACK, ACT_NONE },
};

const enum action *keys_hints(enum key_scope s)
{
	static const enum action none[] = { ACT_NONE };

	return s < KS_COUNT && scope_hints[s] ? scope_hints[s] : none;
}

const char *keys_scope_title(enum key_scope s)
{
	return s < KS_COUNT ? scope_titles[s] : "?";
}

const char *keys_first(enum action a, char *buf, size_t len)
{
	const char *s = keys_spec(a);
	size_t n = strcspn(s, " ");

	snprintf(buf, len, "%.*s", (int)n, s);
	return buf;
}

int keys_codes(enum action a, const int **out)
{
	if (!ready)
		keys_init(NULL);
	if (a <= ACT_NONE || a >= ACT_COUNT) {
		*out = NULL;
		return 0;
	}
	*out = codes[a];
	return ncodes[a];
}
