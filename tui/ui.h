/*
 * ui.h - the explorer's insides, shared by its screens.
 *
 * Each screen is one file ending in a table of functions (struct screen_ops): draw it into a
 * rectangle, react to a key. A key handler never calls another screen: it changes the session
 * (struct tui) and returns result bits (R_*); the one event loop in tui.c acts on them (open a
 * screen, go back, start or cancel a run, switch theme, quit). Keys reach a screen already
 * translated into actions by the key table (keys.h). Each open screen has its own state (self,
 * screen.c's stack); the text screens share a base (textscreen.h).
 *
 * Screens draw through draw.h and build their text as role-tagged docs (report.h); only draw.c
 * and tui.c include curses.
 */
#ifndef KBX_TUI_UI_H
#define KBX_TUI_UI_H

#include "../core/rules.h"
#include "../core/task.h"
#include "../core/util.h"
#include "../db/db.h"
#include "../db/recorder.h"
#include "doc.h"
#include "keys.h"
#include "layout.h"
#include "model.h"
#include "report.h"
#include "runstate.h"
#include "theme.h"

/* Result bits of a key handler. */
#define R_HANDLED 0x001u    /* the key was used (else the global keys get it) */
#define R_REDRAW 0x002u     /* redraw everything (clear the terminal first) */
#define R_RELOAD 0x004u     /* read the history's figures again */
#define R_QUIT 0x008u       /* leave the explorer */
#define R_BACK 0x010u       /* leave this screen */
#define R_OPEN 0x020u       /* open t->next_screen */
#define R_RUN 0x040u        /* run the current task's candidate */
#define R_CANCEL 0x080u     /* cancel the run in progress */
#define R_THEME 0x100u      /* switch to the next theme */
#define R_EDITOR 0x200u     /* edit the candidate in $EDITOR */
#define R_RUN_REF 0x400u    /* run the current task's reference */
#define R_RUN_SANITIZE 0x800u /* run the candidate after racecheck and initcheck (--sanitize auto) */

/* X(id, ops, key scope): each screen, its table, and the scope of its keys and bottom-bar hints
 * (keys.h), whose title names the screen */
#define SCREEN_LIST(X) \
	X(SCR_BROWSER, browser_screen, KS_BROWSER) \
	X(SCR_TASK, task_screen, KS_TASK) \
	X(SCR_CAND, candidate_screen, KS_CAND) \
	X(SCR_RUN, run_screen, KS_RUN) \
	X(SCR_RESULTS, results_screen, KS_RESULTS) \
	X(SCR_DIFF, diff_screen, KS_DIFF) \
	X(SCR_LOG, log_screen, KS_LOG) \
	X(SCR_HISTORY, history_screen, KS_HISTORY) \
	X(SCR_COMPARE, compare_screen, KS_COMPARE) \
	X(SCR_HELP, help_screen, KS_HELP)

enum screen_id {
#define SCREEN_ENUM(id, ops, scope) id,
	SCREEN_LIST(SCREEN_ENUM)
#undef SCREEN_ENUM
	SCR_COUNT
};

#define SCREEN_DECL(id, ops, scope) extern const struct screen_ops ops;
SCREEN_LIST(SCREEN_DECL)
#undef SCREEN_DECL

struct tui;

/*
 * A screen's state is its own: screen_ops.size bytes that the stack (screen.c) allocates, zeroed,
 * when the screen opens and frees when it closes, handed to each function as self. Nothing of a
 * screen lives in a file-level variable, so that one can be built and driven alone (a test).
 */
struct screen_ops {
	/* where a function below is NULL, the base's serves (textscreen.h's textscreen_ops); a key
	 * the screen's own handler leaves unhandled goes to the base's before the global keys */
	const struct screen_ops *base;
	size_t size;                    /* of the screen's state (self); 0: the base's */
	/* the screen is opened (self zeroed); may be NULL */
	void (*open)(struct tui *t, void *self);
	/* the screen comes to the top (opened, or returned to); may be NULL */
	void (*enter)(struct tui *t, void *self);
	void (*draw)(struct tui *t, void *self, struct rect area);
	unsigned (*key)(struct tui *t, void *self, enum action a, int key);
	/* the screen is closed (popped): free what self holds (self itself is freed after); may be
	 * NULL */
	void (*close)(struct tui *t, void *self);
	/* move to the next line matching s (find.h): dir 1 or -1, again to start past the current
	 * line, *wrapped set when it went round; returns 1 when one matched. NULL: no search here */
	int (*find)(struct tui *t, void *self, const struct search *s, int dir, int again, int *wrapped);
};

/* An open screen: one entry of the stack. */
struct screen {
	enum screen_id id;
	const struct screen_ops *ops;
	void *self;
};

/* ---- screen.c: the screen table and the stack of open screens ----------------------------- */

const struct screen_ops *screen_ops_of(enum screen_id id);
/* The screen on top (the browser before any is open). */
enum screen_id tui_top(const struct tui *t);
/* Ask for t->next_screen to open: returns R_OPEN for the handler to return. */
unsigned tui_open(struct tui *t, enum screen_id id);
/* The state of screen id while it is open (prompt and question callbacks find theirs so), else
 * NULL. */
void *screen_state(struct tui *t, enum screen_id id);
/* Open screen id on top, or go back to it when it is open already (the screens above close). */
void screen_open(struct tui *t, enum screen_id id);
/* Close the screen on top. */
void screen_pop(struct tui *t);
/* Tell the screen on top that it is on top again. */
void screen_enter(struct tui *t);
/* The scope of the keys of the screen on top (SCREEN_LIST). */
enum key_scope screen_top_scope(const struct tui *t);
/* The screen on top's draw, key and find (with its base's where it has none). */
void screen_draw(struct tui *t, struct rect area);
unsigned screen_key(struct tui *t, enum action a, int key);
/* 1 when the screen on top can search (/ n N) */
int screen_can_find(const struct tui *t);
int screen_find(struct tui *t, const struct search *s, int dir, int again, int *wrapped);

/* A task's candidate kernel. */
struct candidate {
	char *source;           /* NULL: none yet */
	char *name;             /* what it is: a path, "pasted", "starter", "example x.cu" */
	char *path;             /* the file it came from or was written to, or NULL */
	char *static_why;       /* the include check's finding, or NULL */
	int static_line;
	struct finding *findings;       /* static rules (core/rules.h) that matched */
	int nfindings;
	unsigned version;       /* bumped on every change */
	int scanning;           /* the static rules' findings are not in yet (a scan runs or waits) */
	int unsaved;            /* exists nowhere else (pasted; edited from no file of the user's):
				 * kept as a draft (drafts.h), and never replaced without asking */
};

/* The device, found by a thread so that a slow driver never delays the first frame. */
struct device_info {
	int done;
	int have_gpu;
	char name[256];
	char note[256];         /* why there is no GPU */
	double peak_gbps;
	char golden[32];        /* matched golden table, "" if none */
};

typedef void (*prompt_fn)(struct tui *t, const char *text);

struct prompt {
	int active;
	char label[48];
	char buf[1024];
	size_t len, cur;        /* bytes */
	int paths;              /* Tab completes paths */
	int tabs;               /* Tabs in a row */
	char **matches;         /* listed after a second Tab */
	int nmatches;
	prompt_fn accept, change, cancel;
};

/* A yes/no question in the bottom bar (ask_open): y calls yes(t, arg) and the loop acts on the
 * bits it returns; n, Esc and q leave things as they are. */
typedef unsigned (*ask_fn)(struct tui *t, const char *arg);

struct ask {
	int active;
	char question[400];
	ask_fn yes;
	char *arg;              /* malloc'd copy */
};

struct paste {
	int active;
	int bracketed;          /* inside ESC [200~ ... ESC [201~ */
	struct sbuf buf;
	int task;               /* for which task */
	int discard_ok;         /* the user said the candidate it replaces may go (p asked) */
};

#define TUI_NSERIES 16          /* buckets of the pass-rate sparklines */

struct history_loader;
struct scanner;

struct tui {
	const struct catalogue *cat;
	const char *db_path, *tasks_root;
	struct db *db;
	char history_note[600];         /* why there is no history or it is damaged, "" if neither */
	int history_damaged;            /* its integrity check failed, or it could not be read */
	struct history_loader *loader;  /* reading the history's figures in a thread */
	struct scanner *scanner;        /* the static rules' scan of a candidate, in a thread */
	int history_ready;              /* the figures are in the model */
	int reload_pending;             /* read them again when the loader is done */
	int wake_fd;                    /* written to when a thread has news for the loop (-1: none) */
	struct model model;
	struct device_info dev;
	struct ruleset rules;           /* tasks/rules.ini */

	struct theme theme;
	char *theme_dir;
	char **themes;
	int nthemes, theme_index;
	int no_color;                   /* NO_COLOR, or a terminal without colours */
	int utf8;

	int task;                       /* the current task (catalogue index), -1 none */
	struct candidate *cands;        /* one per catalogue task */
	int cand_goto;                  /* a line the candidate screen should show, 0 none */

	struct runner *runner;          /* the run in progress, NULL when none */
	struct worker_keep *pyworker;   /* the Python worker kept between runs (torch imported once) */
	struct run_record *run;         /* the latest run (owned), NULL before the first */
	int run_task;
	struct recorder *recorder;
	struct run_events ev_record, ev_recorder, ev_tee;
	struct run_events_tee tee;

	struct run_record *view;        /* what results, diff and log show */
	struct run_record history_run;  /* a run loaded from the history */
	int have_history_run;
	int view_case, view_output;

	int history_task;               /* history screen scope: a task index, -1 all */
	long long compare[2];           /* run ids for the compare screen */

	struct screen stack[16];        /* the open screens, the top last (screen.c) */
	int depth;
	enum screen_id next_screen;

	struct search find;             /* the pattern of /, n and N in the views (find.h) */

	char msg[512];
	int msg_role;
	struct prompt prompt;
	struct paste paste;
	struct ask ask;
	char *drafts_dir;               /* drafts.h */
	int quit_confirmed;             /* the user said to quit with unsaved candidates */

	int cols, rows;
	double now;                     /* unix seconds, for "2m ago" */
	int frames;
};

/* ---- session.c: what the screens may ask of the session --------------------------------- */

void session_init(struct tui *t, const struct catalogue *cat, const char *db_path, const char *tasks_root);
void session_free(struct tui *t);
/* Re-read the history's figures (at start, after a run): in a thread with its own connection,
 * so that a large history never holds up a frame; session_poll takes the result. */
void session_reload(struct tui *t);
/* Take what the history loader and the rules' scan found, if they are done; returns 1 when the
 * model or a candidate changed. */
int session_poll(struct tui *t);
/* Wait for the loader (wait = 1) or leave it to finish on its own (0, at exit); returns 1 when
 * a loader was left running. */
int session_stop_loader(struct tui *t, int wait);

/* The bottom bar's message until the next key. */
void tui_message(struct tui *t, int role, const char *fmt, ...) KBX_PRINTF(3, 4);
const struct task *tui_task(const struct tui *t);
struct candidate *tui_candidate(struct tui *t);
/* Replace the current task's candidate (source copied). */
void candidate_set(struct tui *t, int task, const char *source, const char *name, const char *path);
/* Load a file as the current task's candidate; a message says what happened. */
int candidate_load_file(struct tui *t, const char *path);

/* Replace the candidate of `task` with fn(t, arg): at once when the current one exists elsewhere
 * too, else after asking ("what" names the replacement). Returns the bits to hand to the loop. */
unsigned session_replace(struct tui *t, int task, const char *what, ask_fn fn, const char *arg);
/* The candidate of `task` now exists nowhere else: mark it and save its draft. */
void candidate_keep(struct tui *t, int task);
/* 1 when path lies in the task catalogue (never written by the explorer). */
int session_in_catalogue(const struct tui *t, const char *path);
/* May the explorer quit now? 1 when nothing unsaved would be left, or the user already said so;
 * else asks (y quits) and returns 0. */
int session_may_quit(struct tui *t);
/* 1 while the question on screen is whether to quit. */
int session_asking_quit(const struct tui *t);

/* Ask a yes/no question (replaces any open one). */
void ask_open(struct tui *t, const char *question, ask_fn yes, const char *arg);
void ask_close(struct tui *t);
unsigned ask_key(struct tui *t, int key);

/* Start a line prompt in the bottom bar. */
void prompt_open(struct tui *t, const char *label, const char *init, int paths, prompt_fn accept, prompt_fn change,
		 prompt_fn cancel);
void prompt_close(struct tui *t);
/* Feed one key to the prompt; returns result bits. */
unsigned prompt_key(struct tui *t, int key);

/* Start capturing a paste as the current task's candidate. */
void paste_begin(struct tui *t, int bracketed);
unsigned paste_key(struct tui *t, int key);

/* The global keys (after the screen passed). */
unsigned session_global_key(struct tui *t, enum action a, int key);

/* Runs. */
/* reference: the task's reference as the candidate; sanitize: --sanitize auto (worker.h) */
int session_run(struct tui *t, int reference, int sanitize);
void session_run_finished(struct tui *t);
/* Show a run from the history in the results screen. */
int session_view_history(struct tui *t, long long run_id);

/* Golden availability for the task screen (tables loaded once, on first use). */
void session_golden_info(struct tui *t, const struct task *task, struct golden_info *g);
void session_golden_info_free(struct golden_info *g);

#endif
