/*
 * keys.h - key bindings: one table binds every key and carries its help text.
 *
 * KEY_LIST names each action, the scope where it applies, the keys that trigger it (spelled as
 * the help screen shows them: "j Down ^N", "1-9", "S-Tab") and a short and a long description.
 * keys_init parses the key spellings once; keys_lookup finds the action of a key on a screen
 * (the screen's own scope first, then list movement, then global keys); the help screen and the
 * bottom bar's hints are generated from the same table, so they cannot drift apart.
 *
 * Key codes are the explorer's own (TK_*), not curses': tui.c translates curses' codes, so this
 * module and its tests need no terminal.
 */
#ifndef KBX_TUI_KEYS_H
#define KBX_TUI_KEYS_H

#include <stddef.h>

/* Special keys, above Unicode. Printable keys are their code point; Ctrl-x is 1..26. */
enum {
	TK_BASE = 0x110000,
	TK_UP, TK_DOWN, TK_LEFT, TK_RIGHT, TK_PGUP, TK_PGDN, TK_HOME, TK_END,
	TK_ENTER, TK_ESC, TK_TAB, TK_BTAB, TK_BACKSPACE, TK_DELETE, TK_F1,
	TK_RESIZE, TK_PASTE_BEGIN, TK_PASTE_END,
	TK_LAST
};
#define TK_CTRL(c) ((c) & 0x1f)

/* X(id, title) */
#define KEY_SCOPE_LIST(X) \
	X(KS_GLOBAL, "everywhere") \
	X(KS_LIST, "moving around") \
	X(KS_BROWSER, "browser") \
	X(KS_TASK, "task") \
	X(KS_CAND, "candidate") \
	X(KS_RUN, "run") \
	X(KS_RESULTS, "results") \
	X(KS_DIFF, "diff") \
	X(KS_LOG, "compile log") \
	X(KS_HISTORY, "history") \
	X(KS_COMPARE, "attempt diff") \
	X(KS_HELP, "help") \
	X(KS_PROMPT, "prompts") \
	X(KS_PASTE, "pasting")

enum key_scope {
#define KEY_SCOPE_ENUM(id, title) id,
	KEY_SCOPE_LIST(KEY_SCOPE_ENUM)
#undef KEY_SCOPE_ENUM
	KS_COUNT
};

/* X(id, scope, keys, short, help) */
#define KEY_LIST(X) \
	X(ACT_HELP, KS_GLOBAL, "? F1", "help", "show every key (this screen)") \
	X(ACT_BACK, KS_GLOBAL, "q Esc", "back", "go back; in the browser, quit") \
	X(ACT_QUIT, KS_GLOBAL, "Q", "quit", "quit (asks first about unsaved candidates; a run in progress is cancelled)") \
	X(ACT_THEME, KS_GLOBAL, "t", "theme", "switch to the next theme") \
	X(ACT_HISTORY, KS_GLOBAL, "H", "history", "history: per category, per task, every attempt") \
	X(ACT_CANDIDATE, KS_GLOBAL, "c", "candidate", "the candidate of the current task") \
	X(ACT_LOAD, KS_GLOBAL, "o", "load", "load a candidate from a file (Tab completes the path)") \
	X(ACT_PASTE, KS_GLOBAL, "p", "paste", "paste a candidate (bracketed paste, or type and end with ^D)") \
	X(ACT_EDIT, KS_GLOBAL, "e", "edit", "edit the candidate in $EDITOR") \
	X(ACT_STARTER, KS_GLOBAL, "s", "starter", "start from the starter skeleton (kbx starter)") \
	X(ACT_RUN, KS_GLOBAL, "r", "run", "compile, verify and time the candidate") \
	X(ACT_CANCEL, KS_GLOBAL, "x", "cancel", "cancel the run in progress") \
	X(ACT_RESULTS, KS_GLOBAL, "v", "results", "the run in progress, or the last run's results") \
	X(ACT_LOG, KS_GLOBAL, "L", "log", "the last run's compile log") \
	X(ACT_REDRAW, KS_GLOBAL, "^L", "redraw", "redraw the screen") \
	X(ACT_DOWN, KS_LIST, "j Down ^N", "down", "move down") \
	X(ACT_UP, KS_LIST, "k Up ^P", "up", "move up") \
	X(ACT_PGDN, KS_LIST, "PgDn ^F ^D", "page", "page down") \
	X(ACT_PGUP, KS_LIST, "PgUp ^B ^U", "page up", "page up") \
	X(ACT_TOP, KS_LIST, "g Home", "top", "go to the top") \
	X(ACT_BOTTOM, KS_LIST, "G End", "bottom", "go to the bottom") \
	X(ACT_LEFT, KS_LIST, "h Left", "left", "left pane, or scroll left") \
	X(ACT_RIGHT, KS_LIST, "l Right", "right", "right pane, or scroll right") \
	X(ACT_NEXT_PANE, KS_LIST, "Tab", "pane", "next pane") \
	X(ACT_PREV_PANE, KS_LIST, "S-Tab", "pane", "previous pane") \
	X(ACT_OPEN, KS_LIST, "Enter", "open", "open the selected item") \
	X(ACT_FIND, KS_LIST, "/", "search", "search this view's lines (PCRE2; smart case; empty: clear)") \
	X(ACT_FIND_NEXT, KS_LIST, "n", "next match", "next match of the search (wraps around)") \
	X(ACT_FIND_PREV, KS_LIST, "N", "prev match", "previous match of the search (wraps around)") \
	X(ACT_SEARCH, KS_BROWSER, "/", "search", "show tasks whose name matches (PCRE2; smart case; ?text: summaries too)") \
	X(ACT_FILTER_DIFF, KS_BROWSER, "d", "difficulty", "filter by difficulty (cycles any, 1..5)") \
	X(ACT_FILTER_VERDICT, KS_BROWSER, "f", "verdict", "filter by last verdict (any, untried, passing, failing)") \
	X(ACT_CLEAR_FILTERS, KS_BROWSER, "F", "clear", "clear the search and the filters") \
	X(ACT_EXAMPLE, KS_TASK, "1-9", "example", "load example N as the candidate") \
	X(ACT_RUN_REF, KS_TASK, "R", "run reference", "run the reference itself as the candidate") \
	X(ACT_GOTO_LINE, KS_CAND, ":", "line", "go to a line") \
	X(ACT_NEXT_DIAG, KS_CAND, "n", "next diag", "next line with a diagnostic or finding (wraps; after a / search: the next match)") \
	X(ACT_PREV_DIAG, KS_CAND, "N", "prev diag", "previous line with a diagnostic or finding (wraps; after a / search: the previous match)") \
	X(ACT_WRITE, KS_CAND, "w", "write", "write the candidate to a file") \
	X(ACT_DIFF, KS_RESULTS, "d", "diff", "diff of the selected case: worst elements, heatmap, histogram") \
	X(ACT_SANITIZE, KS_RESULTS, "S", "sanitize", "racecheck and initcheck on one case, then run again") \
	X(ACT_NEXT_CASE, KS_DIFF, "]", "next failing", "next failing case (wraps around)") \
	X(ACT_PREV_CASE, KS_DIFF, "[", "prev failing", "previous failing case (wraps around)") \
	X(ACT_NEXT_ANY_CASE, KS_DIFF, "}", "next case", "next case, passing or not") \
	X(ACT_PREV_ANY_CASE, KS_DIFF, "{", "prev case", "previous case, passing or not") \
	X(ACT_NEXT_OUTPUT, KS_DIFF, ">", "output", "next output buffer of the case, then its first wrong stage's") \
	X(ACT_LENS, KS_DIFF, "z", "lens", "Quantization tasks: the quantization lens on the whole screen, scrolling (z or q: back)") \
	X(ACT_JUMP, KS_LOG, "Enter", "jump", "jump to the diagnostic's line in the candidate") \
	X(ACT_MARK, KS_HISTORY, "Space", "mark", "mark an attempt (mark two to compare them)") \
	X(ACT_COMPARE, KS_HISTORY, "=", "compare", "compare the two marked attempts (or this one with the one before)") \
	X(ACT_SCOPE, KS_HISTORY, "a", "task/all", "switch between this task's attempts and every run") \
	X(ACT_USE_SOURCE, KS_HISTORY, "y", "use source", "take the selected attempt's source as the candidate") \
	X(ACT_PROMPT_ACCEPT, KS_PROMPT, "Enter", "accept", "accept the input") \
	X(ACT_PROMPT_CANCEL, KS_PROMPT, "Esc ^G", "cancel", "cancel the prompt") \
	X(ACT_PROMPT_COMPLETE, KS_PROMPT, "Tab", "complete", "complete a path (twice: list the choices)") \
	X(ACT_PROMPT_ERASE, KS_PROMPT, "Backspace ^H", "erase", "erase the character before the cursor") \
	X(ACT_PROMPT_KILL, KS_PROMPT, "^U", "clear", "clear the input") \
	X(ACT_PROMPT_LEFT, KS_PROMPT, "Left", "left", "move the cursor left") \
	X(ACT_PROMPT_RIGHT, KS_PROMPT, "Right", "right", "move the cursor right") \
	X(ACT_PROMPT_HOME, KS_PROMPT, "Home ^A", "start", "cursor to the start") \
	X(ACT_PROMPT_END, KS_PROMPT, "End ^E", "end", "cursor to the end") \
	X(ACT_PASTE_DONE, KS_PASTE, "^D", "done", "end a typed or unbracketed paste") \
	X(ACT_PASTE_ABORT, KS_PASTE, "Esc", "cancel", "cancel the paste")

enum action {
	ACT_NONE,
#define KEY_ACTION_ENUM(id, scope, keys, brief, help) id,
	KEY_LIST(KEY_ACTION_ENUM)
#undef KEY_ACTION_ENUM
	ACT_COUNT
};

#define KEYS_MAX_PER_ACTION 10

/* Parse every key spelling. Returns 0, or -1 with *why naming the action and the bad word
 * (a table error: tests make sure it never happens). */
int keys_init(const char **why);
/* The action of key in scope (that scope, then KS_LIST, then KS_GLOBAL; KS_GLOBAL, KS_PROMPT and
 * KS_PASTE are looked up alone). ACT_NONE when unbound. */
enum action keys_lookup(enum key_scope scope, int key);
/* Same, in exactly one scope. */
enum action keys_lookup_in(enum key_scope scope, int key);

const char *keys_spec(enum action a);       /* "j Down ^N" */
const char *keys_brief(enum action a);      /* "down" */
const char *keys_help(enum action a);
enum key_scope keys_scope(enum action a);
const char *keys_scope_title(enum key_scope s);
/* The actions the bottom bar hints at on a screen of scope s, ending with ACT_NONE. */
const enum action *keys_hints(enum key_scope s);
/* The first key of an action as shown in hints ("j", "Enter"). */
const char *keys_first(enum action a, char *buf, size_t len);
/* The codes bound to an action (after keys_init); returns how many. */
int keys_codes(enum action a, const int **codes);

/* Parse one spelling into codes (ranges "1-9" expand); returns the count, or -1 with *bad set
 * to the offending word's start. */
int keys_parse_spec(const char *spec, int *codes, int max, const char **bad);
/* The name of a key code as the table spells it ("^F", "PgDn", "a"). */
const char *keys_name(int code, char *buf, size_t len);

#endif
