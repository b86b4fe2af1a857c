/*
 * theme.h - colour roles and themes, as data.
 *
 * Everything the explorer draws is tagged with a colour role (ROLE_LIST); a theme says how each
 * role looks: foreground, background and attributes. The built-in default (the columns of
 * ROLE_LIST) is what a theme file starts from, so a file may set only the roles it changes.
 *
 * Theme files are INI (themes/NAME.theme):
 *
 *     [theme]
 *     description = dark terminal, 256 colours
 *     color = yes                     ; no: attributes only (the mono theme)
 *
 *     [colors]
 *     ; role = foreground [background] [attributes...]
 *     title = brightwhite blue bold
 *     pass = green
 *     heat4 = #ff0000 default         ; #rrggbb is mapped to the nearest xterm-256 colour
 *
 * Colours: default, black, red, green, yellow, blue, magenta, cyan, white, gray, the bright
 * variants (brightred, ...), colorN or N (0..255), #rrggbb. Attributes: bold, dim, underline,
 * reverse, italic, standout, normal. A broken file is reported with its path and line, and the
 * built-in default is used instead. Nothing here calls curses: draw.c applies a theme.
 */
#ifndef KBX_TUI_THEME_H
#define KBX_TUI_THEME_H

#include "../core/status.h"

/* Attribute bits (draw.c maps them to curses attributes). */
#define TA_BOLD 1u
#define TA_DIM 2u
#define TA_UNDERLINE 4u
#define TA_REVERSE 8u
#define TA_ITALIC 16u
#define TA_STANDOUT 32u

/* Colour numbers: -1 is the terminal's default; 0..7 the ANSI colours, 8..15 their bright
 * variants, 16..255 the xterm-256 palette. */
#define C_DEFAULT -1
#define C_BLACK 0
#define C_RED 1
#define C_GREEN 2
#define C_YELLOW 3
#define C_BLUE 4
#define C_MAGENTA 5
#define C_CYAN 6
#define C_WHITE 7
#define C_GRAY 8
#define C_BRED 9
#define C_BGREEN 10
#define C_BYELLOW 11
#define C_BBLUE 12
#define C_BMAGENTA 13
#define C_BCYAN 14
#define C_BWHITE 15

/* X(id, name, fg, bg, attrs, mono_attrs, what) -- the built-in dark theme; mono_attrs is what the
 * role looks like without colour (NO_COLOR, the mono theme): it must keep apart what colour would. */
#define ROLE_LIST(X) \
	X(ROLE_NORMAL, "normal", C_DEFAULT, C_DEFAULT, 0, 0, "ordinary text") \
	X(ROLE_DIM, "dim", C_GRAY, C_DEFAULT, 0, TA_DIM, "secondary text") \
	X(ROLE_TITLE, "title", C_BWHITE, C_BLUE, TA_BOLD, TA_REVERSE | TA_BOLD, "the top bar") \
	X(ROLE_STATUS, "status", C_WHITE, C_BLACK, 0, TA_REVERSE, "the bottom bar") \
	X(ROLE_KEY, "key", C_BYELLOW, C_BLACK, TA_BOLD, TA_REVERSE | TA_BOLD, "key names in the bottom bar") \
	X(ROLE_MESSAGE, "message", C_BCYAN, C_BLACK, TA_BOLD, TA_REVERSE | TA_BOLD, "messages in the bottom bar") \
	X(ROLE_ERRMSG, "errmsg", C_BWHITE, C_RED, TA_BOLD, TA_REVERSE | TA_BOLD | TA_UNDERLINE, "error messages") \
	X(ROLE_PROMPT, "prompt", C_BWHITE, C_DEFAULT, TA_BOLD, TA_BOLD, "a prompt's text") \
	X(ROLE_BORDER, "border", C_GRAY, C_DEFAULT, 0, TA_DIM, "pane borders") \
	X(ROLE_BORDER_FOCUS, "border_focus", C_BCYAN, C_DEFAULT, TA_BOLD, TA_BOLD, "the focused pane's border") \
	X(ROLE_SELECT, "select", C_BLACK, C_CYAN, 0, TA_REVERSE, "the selected line") \
	X(ROLE_SELECT_DIM, "select_dim", C_DEFAULT, 236, 0, TA_UNDERLINE, "the selected line of a pane without focus") \
	X(ROLE_HEADING, "heading", C_BWHITE, C_DEFAULT, TA_BOLD, TA_BOLD | TA_UNDERLINE, "section headings") \
	X(ROLE_LABEL, "label", C_CYAN, C_DEFAULT, 0, TA_BOLD, "field names") \
	X(ROLE_NUMBER, "number", C_BWHITE, C_DEFAULT, 0, 0, "figures") \
	X(ROLE_ACCENT, "accent", C_BMAGENTA, C_DEFAULT, TA_BOLD, TA_BOLD, "things to notice") \
	X(ROLE_STAR, "star", C_YELLOW, C_DEFAULT, 0, 0, "difficulty stars") \
	X(ROLE_MATCH, "match", C_BLACK, C_YELLOW, 0, TA_UNDERLINE, "search matches") \
	X(ROLE_PASS, "pass", C_BGREEN, C_DEFAULT, 0, TA_BOLD, "pass verdicts") \
	X(ROLE_FAIL, "fail", C_BRED, C_DEFAULT, TA_BOLD, TA_BOLD | TA_UNDERLINE, "wrong and failed verdicts") \
	X(ROLE_ERROR, "error", C_RED, C_DEFAULT, TA_BOLD, TA_BOLD | TA_REVERSE, "errors (compile, runtime)") \
	X(ROLE_WARN, "warn", C_BYELLOW, C_DEFAULT, 0, TA_UNDERLINE, "warnings") \
	X(ROLE_NOTRUN, "notrun", C_GRAY, C_DEFAULT, 0, TA_DIM, "not run, untried") \
	X(ROLE_LINENR, "linenr", C_GRAY, C_DEFAULT, 0, TA_DIM, "line numbers") \
	X(ROLE_CODE, "code", C_DEFAULT, C_DEFAULT, 0, 0, "source text") \
	X(ROLE_KEYWORD, "keyword", C_BBLUE, C_DEFAULT, TA_BOLD, TA_BOLD, "C++ keywords") \
	X(ROLE_TYPE, "type", C_CYAN, C_DEFAULT, 0, 0, "types") \
	X(ROLE_BUILTIN, "builtin", C_BMAGENTA, C_DEFAULT, 0, TA_UNDERLINE, "CUDA built-ins (threadIdx, __syncthreads, ...)") \
	X(ROLE_STRING, "string", C_GREEN, C_DEFAULT, 0, 0, "string and character literals") \
	X(ROLE_NUMLIT, "numlit", C_BRED, C_DEFAULT, 0, 0, "number literals") \
	X(ROLE_COMMENT, "comment", C_GRAY, C_DEFAULT, TA_ITALIC, TA_DIM, "comments") \
	X(ROLE_PREPROC, "preproc", C_MAGENTA, C_DEFAULT, 0, TA_BOLD, "preprocessor lines") \
	X(ROLE_KBXLINE, "kbxline", C_BYELLOW, C_DEFAULT, TA_BOLD, TA_BOLD | TA_UNDERLINE, "@kbx launch and scratch lines") \
	X(ROLE_DIAG_ERROR, "diag_error", C_BWHITE, C_RED, TA_BOLD, TA_REVERSE | TA_BOLD, "a line with a compile error") \
	X(ROLE_DIAG_WARN, "diag_warn", C_BLACK, C_YELLOW, 0, TA_REVERSE, "a line with a warning or a static-check finding") \
	X(ROLE_BAR_DONE, "bar_done", C_BGREEN, C_DEFAULT, 0, TA_BOLD, "progress done") \
	X(ROLE_BAR_TODO, "bar_todo", C_GRAY, C_DEFAULT, 0, TA_DIM, "progress to do") \
	X(ROLE_SPARK, "spark", C_BCYAN, C_DEFAULT, 0, 0, "sparklines") \
	X(ROLE_HEAT0, "heat0", C_GRAY, C_DEFAULT, 0, TA_DIM, "heatmap: exact") \
	X(ROLE_HEAT1, "heat1", C_BLUE, C_DEFAULT, 0, 0, "heatmap: well inside tolerance") \
	X(ROLE_HEAT2, "heat2", C_GREEN, C_DEFAULT, 0, 0, "heatmap: inside tolerance") \
	X(ROLE_HEAT3, "heat3", C_BYELLOW, C_DEFAULT, 0, TA_BOLD, "heatmap: up to 10x tolerance") \
	X(ROLE_HEAT4, "heat4", C_BRED, C_DEFAULT, TA_BOLD, TA_BOLD | TA_REVERSE, "heatmap: far outside tolerance, NaN/Inf") \
	X(ROLE_DIFF_ADD, "diff_add", C_BGREEN, C_DEFAULT, 0, TA_BOLD, "added lines") \
	X(ROLE_DIFF_DEL, "diff_del", C_BRED, C_DEFAULT, 0, TA_DIM | TA_UNDERLINE, "removed lines") \
	X(ROLE_DIFF_HUNK, "diff_hunk", C_CYAN, C_DEFAULT, TA_BOLD, TA_BOLD, "diff hunk headers") \
	X(ROLE_MARK, "mark", C_BMAGENTA, C_DEFAULT, TA_BOLD, TA_BOLD | TA_REVERSE, "marked history rows")

enum role {
#define ROLE_ENUM(id, name, fg, bg, at, mono, what) id,
	ROLE_LIST(ROLE_ENUM)
#undef ROLE_ENUM
	ROLE_COUNT
};

struct role_style {
	short fg, bg;
	unsigned attrs;
};

struct theme {
	char name[64];
	char description[128];
	int color;                      /* 0: attributes only */
	struct role_style roles[ROLE_COUNT];
	unsigned char set[ROLE_COUNT];  /* 1 where the theme file named the role */
};

const char *role_name(int role);
const char *role_description(int role);
/* The role called name, or -1. */
int role_parse(const char *name);
/* How a role looks without colour. */
unsigned role_mono_attrs(int role);

/* The built-in default theme ("default"). */
void theme_builtin(struct theme *th);

/* Parse theme text (path names it in messages). On failure *out holds the built-in default and
 * the message names the path and line: "unknown colour 'purpel' in 'x.theme' line 7". */
enum kbx_status theme_parse(const char *text, const char *path, struct theme *out);
/* Read and parse a file; the theme is named after the file ("light" for light.theme). */
enum kbx_status theme_load(const char *path, struct theme *out);

/* One colour word ("red", "brightred", "color208", "208", "#ff8700", "default"); -2 if not one. */
int theme_color_parse(const char *word);
/* One attribute word; 0 and *ok = 0 if not one. */
unsigned theme_attr_parse(const char *word, int *ok);
/* The nearest colour a terminal of ncolors colours can show (8: bright colours become their
 * plain colour and *attrs gains TA_BOLD for a foreground; 16: 256-palette colours map to the
 * nearest of the 16). Leaves C_DEFAULT alone. */
int theme_color_fallback(int color, int ncolors, int is_fg, unsigned *attrs);

/* The folder holding *.theme: $KBX_THEMES, else the themes/ beside the task catalogue, else the
 * build tree's, else the installed one. Returns a malloc'd path. */
char *theme_dir(const char *tasks_root);
/* Sorted theme names (file names without .theme) in dir; "default" first when present. Caller
 * frees each name and the array. */
int theme_list(const char *dir, char ***names);

/* The theme chosen with `t` is kept for the next start in $XDG_CONFIG_HOME/kbx/theme (default
 * ~/.config/kbx/theme): one line, the theme's name. theme_saved returns it (malloc'd), or NULL
 * when none was saved or the file cannot be read; theme_save writes it, making the folder. */
char *theme_saved(void);
enum kbx_status theme_save(const char *name);

#endif
