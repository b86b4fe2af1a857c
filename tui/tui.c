/*
 * tui.c - the explorer's terminal and its one event loop.
 *
 * The loop polls the terminal, a wake-up pipe (signals, the GPU probe) and the runner's file
 * (a run's typed events are waiting: runstate.h), so a run never freezes the screen. Keys become actions through the key
 * table; the top screen's handler returns result bits and this loop acts on them. The terminal
 * is restored on every way out: quitting, SIGINT/SIGTERM/SIGHUP (through the loop), a crash
 * signal (in the handler, as tig and htop do), and exit() (atexit).
 */
#define NCURSES_WIDECHAR 1
#include "tui.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/golden.h"
#include "../core/gpu.h"
#include "../core/lang.h"
#include "../core/util.h"
#include "draw.h"
#include "syntax.h"
#include "ui.h"

#define KEY_PASTE_START_CODE (KEY_MAX + 1)
#define KEY_PASTE_END_CODE (KEY_MAX + 2)

static const char *initial_theme;
static volatile sig_atomic_t got_signal;
static int wake_fd[2] = { -1, -1 };
static volatile sig_atomic_t curses_active;

void tui_set_theme(const char *name)
{
	initial_theme = name;
}

/* ---- the terminal ------------------------------------------------------------------------ */

static void paste_mode(int on)
{
	/* bracketed paste: the terminal wraps pasted text in ESC [200~ ... ESC [201~ */
	const char *s = on ? "\033[?2004h" : "\033[?2004l";
	ssize_t r = write(STDOUT_FILENO, s, strlen(s));

	(void)r;
}

static void restore_terminal(void)
{
	if (!curses_active)
		return;
	curses_active = 0;
	paste_mode(0);
	endwin();
}

static void on_signal(int sig)
{
	got_signal = sig;
	if (wake_fd[1] >= 0) {
		ssize_t r = write(wake_fd[1], "s", 1);

		(void)r;
	}
}

/* A crash: not async-signal-safe, but a terminal left in raw mode is worse. */
static void on_fatal(int sig)
{
	restore_terminal();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_signals(void)
{
	struct sigaction sa;
	static const int quit_sigs[] = { SIGINT, SIGTERM, SIGHUP };
	static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	for (size_t i = 0; i < sizeof(quit_sigs) / sizeof(quit_sigs[0]); i++)
		sigaction(quit_sigs[i], &sa, NULL);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		sigaction(fatal_sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int start_terminal(void)
{
	SCREEN *s = newterm(NULL, stdout, stdin);

	const char *term = getenv("TERM") ? getenv("TERM") : "", *cup;

	if (!s)
		return kbx_error(KBX_EIO, "cannot start the explorer on terminal '%s'", term);
	set_term(s);
	/* a terminal that cannot move the cursor (TERM=dumb) would show only the last line drawn */
	cup = tigetstr("cup");
	if (!cup || cup == (const char *)-1) {
		endwin();
		delscreen(s);
		return kbx_error(KBX_EINVAL, "terminal '%s' cannot move the cursor, which the explorer needs: set TERM "
				 "to your terminal's type (xterm-256color, say); the commands (kbx list, kbx run ...) "
				 "work on any terminal", term);
	}
	curses_active = 1;
	atexit(restore_terminal);
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	define_key("\033[200~", KEY_PASTE_START_CODE);
	define_key("\033[201~", KEY_PASTE_END_CODE);
	paste_mode(1);
	return KBX_OK;
}

/* One key from curses as the explorer's code; 0 when there is none. */
static int read_key(void)
{
	wint_t ch;
	int r = get_wch(&ch);

	if (r == ERR)
		return -1;
	if (r == KEY_CODE_YES) {
		switch ((int)ch) {
		case KEY_UP: return TK_UP;
		case KEY_DOWN: return TK_DOWN;
		case KEY_LEFT: return TK_LEFT;
		case KEY_RIGHT: return TK_RIGHT;
		case KEY_PPAGE: return TK_PGUP;
		case KEY_NPAGE: return TK_PGDN;
		case KEY_HOME: return TK_HOME;
		case KEY_END: return TK_END;
		case KEY_ENTER: return TK_ENTER;
		case KEY_BACKSPACE: return TK_BACKSPACE;
		case KEY_DC: return TK_DELETE;
		case KEY_BTAB: return TK_BTAB;
		case KEY_F(1): return TK_F1;
		case KEY_RESIZE: return TK_RESIZE;
		case KEY_PASTE_START_CODE: return TK_PASTE_BEGIN;
		case KEY_PASTE_END_CODE: return TK_PASTE_END;
		default: return 0;
		}
	}
	switch (ch) {
	case '\n':
	case '\r': return TK_ENTER;
	case '\t': return TK_TAB;
	case 27: return TK_ESC;
	case 127:
	case 8: return TK_BACKSPACE;
	default: return (int)ch;
	}
}

/* ---- the GPU probe ----------------------------------------------------------------------- */

struct probe {
	atomic_int done;
	struct device_info info;
	char *tasks_root;
};

static void *probe_main(void *arg)
{
	struct probe *p = arg;
	struct gpu_info gi;
	int count = 0;

	memset(&gi, 0, sizeof(gi));
	if (getenv("KBX_TUI_NO_GPU")) {
		snprintf(p->info.note, sizeof(p->info.note), "no CUDA device (KBX_TUI_NO_GPU)");
	} else if (gpu_probe(0, &gi, &count) == KBX_OK && count > 0) {
		struct golden_table *g;

		p->info.have_gpu = 1;
		snprintf(p->info.name, sizeof(p->info.name), "%s", gi.name);
		p->info.peak_gbps = gi.peak_gbps;
		if (golden_match(p->tasks_root, gi.name, &g) == KBX_OK) {
			snprintf(p->info.golden, sizeof(p->info.golden), "%s", golden_gpu(g));
			golden_free(g);
		}
	} else {
		snprintf(p->info.note, sizeof(p->info.note), "%s", *kbx_last_error() ? kbx_last_error() : "no CUDA device");
	}
	p->info.done = 1;
	atomic_store(&p->done, 1);
	if (wake_fd[1] >= 0) {
		ssize_t r = write(wake_fd[1], "p", 1);

		(void)r;
	}
	return NULL;
}

static pthread_t probe_start(struct probe *p)
{
	pthread_t th;
	sigset_t block, old;

	sigfillset(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	if (pthread_create(&th, NULL, probe_main, p) != 0) {
		snprintf(p->info.note, sizeof(p->info.note), "cannot probe the GPU");
		p->info.done = 1;
		atomic_store(&p->done, 1);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return th;
}

/* ---- themes ------------------------------------------------------------------------------ */

static void apply_theme(struct tui *t)
{
	if (!draw_apply_theme(&t->theme, t->no_color) && !t->no_color && t->theme.color && !has_colors())
		t->no_color = 1;
}

static void load_theme(struct tui *t, const char *name)
{
	char *path = xasprintf("%s/%s.theme", t->theme_dir, name);
	struct stat sb;

	if (!strcmp(name, "default") && stat(path, &sb) != 0) {
		theme_builtin(&t->theme);
	} else if (theme_load(path, &t->theme) != KBX_OK) {
		tui_message(t, ROLE_ERRMSG, "%s; using the built-in default", kbx_last_error());
	} else {
		for (int i = 0; i < t->nthemes; i++)
			if (!strcmp(t->themes[i], name))
				t->theme_index = i;
	}
	free(path);
}

static void next_theme(struct tui *t)
{
	const char *no_color = getenv("NO_COLOR");

	/* without colours a theme changes nothing that shows: say why instead of naming one */
	if (t->no_color) {
		tui_message(t, ROLE_MESSAGE, "no colours to theme: %s",
			    no_color && *no_color ? "NO_COLOR is set" : "this terminal has none");
		return;
	}
	if (!t->nthemes) {
		tui_message(t, ROLE_ERRMSG, "no themes in '%s'", t->theme_dir);
		return;
	}
	t->theme_index = (t->theme_index + 1) % t->nthemes;
	t->msg[0] = '\0';
	load_theme(t, t->themes[t->theme_index]);
	apply_theme(t);
	if (t->msg[0])
		return;
	if (theme_save(t->theme.name) != KBX_OK)
		tui_message(t, ROLE_ERRMSG, "theme %s, not kept for next time: %s", t->theme.name, kbx_last_error());
	else
		tui_message(t, ROLE_MESSAGE, "theme %s%s%s%s (kept for next time)", t->theme.name,
			    *t->theme.description ? ": " : "", t->theme.description,
			    COLORS < 16 ? "; this terminal shows fewer colours" : "");
	draw_invalidate();
}

/* ---- $EDITOR ----------------------------------------------------------------------------- */

/* sh -c script name arg, waiting for it with SIGINT and SIGQUIT ignored here (as system()
 * does: a ^C meant for the editor must not end the explorer). Returns a wait status or -1. */
static int run_command(const char *script, const char *name, const char *arg)
{
	struct sigaction ign, old_int, old_quit;
	int status = -1;
	pid_t pid;

	memset(&ign, 0, sizeof(ign));
	sigemptyset(&ign.sa_mask);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		execl("/bin/sh", "sh", "-c", script, name, arg, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return status;
}

static void run_editor(struct tui *t)
{
	struct candidate *c = tui_candidate(t);
	const char *ed = getenv("VISUAL");
	char tmp[] = "/tmp/kbx-candidate-XXXXXX.cu", *path, *cmd, *text = NULL;
	int fd = -1, status, catalogue;
	size_t len;

	if (!c)
		return;
	/* a catalogue file (an example, a reference) is never edited in place: its copy is */
	catalogue = c->path && session_in_catalogue(t, c->path);
	if (!ed || !*ed)
		ed = getenv("EDITOR");
	if (!ed || !*ed)
		ed = "vi";
	if (c->path && !catalogue && access(c->path, W_OK) == 0) {
		path = c->path;
	} else {
		const char *src = c->source ? c->source : "";

		/* the editor colours by the name: a Python candidate gets .py */
		if (lang_of_text(src) == LANG_PYTHON)
			memcpy(tmp + sizeof(tmp) - 4, ".py", 3);
		fd = mkstemps(tmp, 3);
		if (fd < 0 || write(fd, src, strlen(src)) != (ssize_t)strlen(src)) {
			tui_message(t, ROLE_ERRMSG, "cannot write a temporary file for the editor: %s", strerror(errno));
			if (fd >= 0) {
				close(fd);
				unlink(tmp);
			}
			return;
		}
		close(fd);
		path = tmp;
	}
	/* The editor gets the terminal: leave curses mode and come back to the same screen. As git
	 * does, $EDITOR is shell text (it may carry arguments) and the file is passed as "$1", so a
	 * path needs no quoting. */
	cmd = xasprintf("%s \"$@\"", ed);
	def_prog_mode();
	paste_mode(0);
	endwin();
	status = run_command(cmd, ed, path);
	reset_prog_mode();
	paste_mode(1);
	draw_invalidate();
	free(cmd);
	if (status != 0 && (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) == 127)) {
		tui_message(t, ROLE_ERRMSG, "the editor '%s' failed (status %d)", ed, status);
	} else if (lang_read_source(path, &text, &len) != KBX_OK) {
		tui_message(t, ROLE_ERRMSG, "%s", kbx_last_error());
	} else if (!c->source || strcmp(text, c->source)) {
		const char *base = catalogue ? strrchr(c->path, '/') : NULL;
		char *name = catalogue ? xasprintf("edited copy of %s", base ? base + 1 : c->path)
			   : xstrdup(path == tmp ? (c->name && strcmp(c->name, "starter") ? c->name : "edited") : path);
		char *keep = path == tmp ? (c->path && !catalogue ? xstrdup(c->path) : NULL) : xstrdup(path);
		char *from = catalogue ? xstrdup(c->path) : NULL;

		candidate_set(t, t->task, text, name, keep);
		/* edited in a temporary file: the text exists nowhere else until w writes it */
		if (path == tmp)
			candidate_keep(t, t->task);
		if (from)
			tui_message(t, ROLE_MESSAGE, "edited a copy of catalogue file '%s', which is unchanged; the copy is kept "
				    "as a draft (w writes it to a file)", from);
		else
			tui_message(t, ROLE_MESSAGE, "candidate edited (%zu bytes)%s", len,
				    path == tmp ? "; kept as a draft, w writes it to a file" : "");
		free(name);
		free(keep);
		free(from);
	} else {
		tui_message(t, ROLE_MESSAGE, "candidate unchanged%s", catalogue ? " (the catalogue file was not touched)" : "");
	}
	free(text);
	if (path == tmp)
		unlink(tmp);
	screen_open(t, SCR_CAND);
}

/* ---- drawing ----------------------------------------------------------------------------- */

static void draw_top(struct tui *t, struct rect r)
{
	char buf[512], n[32];
	int x;

	draw_fill(r, ROLE_TITLE);
	fmt_count(t->model.total_runs, n, sizeof(n));
	if (!t->dev.done)
		snprintf(buf, sizeof(buf), " kbx%sprobing GPU...", glyphs()->mid);
	else if (t->dev.have_gpu)
		snprintf(buf, sizeof(buf), " kbx%s%s%s%s%s", glyphs()->mid, t->dev.name, glyphs()->mid,
			 *t->dev.golden ? "golden " : "no golden table", t->dev.golden);
	else
		snprintf(buf, sizeof(buf), " kbx%sno GPU (compile only)", glyphs()->mid);
	x = draw_text(r.y, r.x, r.w, ROLE_TITLE, buf);
	if (t->db && !t->history_ready && t->loader)
		snprintf(buf, sizeof(buf), "%sreading history...", glyphs()->mid);
	else if (t->db)
		snprintf(buf, sizeof(buf), "%shistory %s run%s%s", glyphs()->mid, n, t->model.total_runs == 1 ? "" : "s",
			 t->history_damaged ? " (DAMAGED)" : db_readonly(t->db) ? " (read-only)" : "");
	else
		snprintf(buf, sizeof(buf), "%sno history", glyphs()->mid);
	x += draw_text(r.y, r.x + x, r.w - x, ROLE_TITLE, buf);
	if (t->runner && t->run) {
		char el[32];

		fmt_elapsed(now_seconds() - t->run->started, el, sizeof(el));
		snprintf(buf, sizeof(buf), "  %s running %s", glyphs()->arrow, el);
		x += draw_text(r.y, r.x + x, r.w - x, ROLE_TITLE, buf);
	}
	snprintf(buf, sizeof(buf), "%s  ? help ", t->no_color ? "no colour" : t->theme.name);
	{
		int w = text_width(buf, (size_t)-1);

		if (r.w - w > x + 1)
			draw_text(r.y, r.x + r.w - w, w, ROLE_TITLE, buf);
	}
}

/* A message in the bottom bar; a long one (an error naming a path, a question) takes the line
 * above too. */
static void draw_message(struct rect r, const char *msg, int role)
{
	int w = text_width(msg, (size_t)-1);

	if (w > r.w && r.y > 0) {
		size_t k = text_fit(msg, (size_t)-1, r.w, NULL), brk = k;

		for (size_t j = k; j > k / 2; j--) {
			if (msg[j] == ' ') {
				brk = j + 1;
				break;
			}
		}
		draw_fill((struct rect){ r.y - 1, r.x, 1, r.w }, role);
		{
			char *first = xstrndup(msg, brk);

			draw_text(r.y - 1, r.x, r.w, role, first);
			free(first);
		}
		draw_fill(r, role);
		draw_text(r.y, r.x, r.w, role, msg + brk);
		return;
	}
	draw_text(r.y, r.x, r.w, role, msg);
}

static void draw_bottom(struct tui *t, struct rect r)
{
	int x = 0;

	draw_fill(r, ROLE_STATUS);
	if (t->prompt.active) {
		const struct prompt *p = &t->prompt;
		int lw = draw_text(r.y, r.x, r.w, ROLE_PROMPT, p->label);
		int avail = r.w - lw - 1, cw = text_width(p->buf, p->cur), skip = 0;

		/* keep the cursor in view on a long input */
		if (cw > avail)
			skip = cw - avail;
		{
			int sk;
			size_t off = text_skip(p->buf, p->len, skip, &sk);

			draw_text(r.y, r.x + lw, avail, ROLE_PROMPT, p->buf + off);
			draw_cursor(r.y, r.x + lw + cw - sk);
		}
		return;
	}
	draw_cursor(-1, 0);
	if (t->ask.active) {
		draw_message(r, t->ask.question, ROLE_PROMPT);
		return;
	}
	if (t->paste.active) {
		draw_text(r.y, r.x, r.w, ROLE_MESSAGE, *t->msg ? t->msg : "pasting...");
		return;
	}
	if (*t->msg) {
		draw_message(r, t->msg, t->msg_role);
		return;
	}
	for (const enum action *a = keys_hints(screen_top_scope(t)); *a != ACT_NONE && x < r.w; a++) {
		char k[32];

		/* a hint that does not fit whole is left out */
		keys_first(*a, k, sizeof(k));
		if (x + 3 + text_width(k, (size_t)-1) + text_width(keys_brief(*a), (size_t)-1) > r.w)
			break;
		x += draw_text(r.y, r.x + x, r.w - x, ROLE_STATUS, " ");
		x += draw_text(r.y, r.x + x, r.w - x, ROLE_KEY, keys_first(*a, k, sizeof(k)));
		x += draw_text(r.y, r.x + x, r.w - x, ROLE_STATUS, " ");
		x += draw_text(r.y, r.x + x, r.w - x, ROLE_STATUS, keys_brief(*a));
		x += draw_text(r.y, r.x + x, r.w - x, ROLE_STATUS, " ");
	}
}

static void draw_matches(struct tui *t, struct rect body)
{
	const struct prompt *p = &t->prompt;
	struct doc d;
	int h, w = body.w;
	struct rect box;

	if (!p->active || !p->nmatches)
		return;
	doc_init(&d);
	for (int i = 0; i < p->nmatches; i++) {
		doc_add(&d, p->matches[i][strlen(p->matches[i]) - 1] == '/' ? ROLE_ACCENT : ROLE_NORMAL, p->matches[i]);
		doc_newline(&d);
	}
	h = p->nmatches + 2;
	if (h > body.h / 2)
		h = body.h / 2;
	box = (struct rect){ body.y + body.h - h, body.x, h, w };
	draw_fill(box, ROLE_NORMAL);
	draw_box(box, "matches (Tab completes)", 1);
	draw_doc(layout_inner(box), &d, 0, -1, 0, 0);
	doc_free(&d);
}

static void draw_frame(struct tui *t)
{
	struct rect top, body, bottom;

	draw_size(&t->cols, &t->rows);
	t->now = (double)time(NULL);
	erase();
	if (!layout_big_enough(t->cols, t->rows)) {
		char a[96], b[96];
		int y = t->rows / 2 - 1;

		snprintf(a, sizeof(a), "terminal too small: %dx%d", t->cols, t->rows);
		snprintf(b, sizeof(b), "kbx needs at least %dx%d: enlarge it (Q quits)", TUI_MIN_COLS, TUI_MIN_ROWS);
		draw_fill((struct rect){ 0, 0, t->rows, t->cols }, ROLE_NORMAL);
		draw_text(y < 0 ? 0 : y, 0, t->cols, ROLE_ERRMSG, a);
		if (y + 1 < t->rows)
			draw_text(y + 1, 0, t->cols, ROLE_NORMAL, b);
		if (t->ask.active && t->rows > 0)
			draw_message((struct rect){ t->rows - 1, 0, 1, t->cols }, t->ask.question, ROLE_PROMPT);
		draw_cursor(-1, 0);
		refresh();
		return;
	}
	layout_frame(t->cols, t->rows, &top, &body, &bottom);
	draw_fill(body, ROLE_NORMAL);
	screen_draw(t, body);
	draw_top(t, top);
	draw_matches(t, body);
	draw_bottom(t, bottom);
	refresh();
	t->frames++;
}

/* ---- the loop ---------------------------------------------------------------------------- */

static void act(struct tui *t, unsigned res, int *quit)
{
	if (res & R_QUIT) {
		/* unsaved candidates: asks first (y comes back here with R_QUIT) */
		if (session_may_quit(t))
			*quit = 1;
		return;
	}
	if (res & R_CANCEL)
		runner_cancel(t->runner);
	if (res & (R_RUN | R_RUN_REF | R_RUN_SANITIZE)) {
		if (session_run(t, (res & R_RUN_REF) != 0, (res & R_RUN_SANITIZE) != 0))
			screen_open(t, SCR_RUN);
	}
	if (res & R_EDITOR)
		run_editor(t);
	if (res & R_THEME)
		next_theme(t);
	if (res & R_BACK) {
		if (t->depth <= 1) {
			if (session_may_quit(t))
				*quit = 1;
			return;
		}
		screen_pop(t);
		screen_enter(t);
	}
	if (res & R_OPEN)
		screen_open(t, t->next_screen);
	if (res & R_RELOAD)
		session_reload(t);
	if (res & R_REDRAW)
		draw_invalidate();
}

static void handle_key(struct tui *t, int key, int *quit)
{
	enum action a;
	unsigned res;

	if (key == TK_RESIZE) {
		draw_invalidate();
		return;
	}
	if (t->ask.active) {
		act(t, ask_key(t, key), quit);
		return;
	}
	/* Too small to show anything: q and Esc (go back) must not end the program from a screen
	 * the user cannot see; only Q quits, and it asks as it always does */
	if (!layout_big_enough(t->cols, t->rows) && !t->prompt.active && !t->paste.active) {
		if (keys_lookup(KS_GLOBAL, key) == ACT_QUIT)
			act(t, R_QUIT, quit);
		return;
	}
	if (t->paste.active) {
		act(t, paste_key(t, key), quit);
		return;
	}
	if (t->prompt.active) {
		act(t, prompt_key(t, key), quit);
		return;
	}
	if (key == TK_PASTE_BEGIN) {
		t->msg[0] = '\0';
		paste_begin(t, 1);
		return;
	}
	if (key == TK_PASTE_END)
		return;
	t->msg[0] = '\0';
	a = keys_lookup(screen_top_scope(t), key);
	res = screen_key(t, a, key);
	if (!(res & R_HANDLED))
		res |= session_global_key(t, a, key);
	act(t, res, quit);
}

int tui_main(const struct catalogue *cat, const char *db_path, const char *tasks_root)
{
	struct tui *t;
	struct probe *probe = NULL;
	pthread_t probe_th = 0;
	double t0 = now_seconds(), frame_ms = 0;
	const char *why, *exit_after = getenv("KBX_TUI_EXIT_AFTER_DRAW");
	const char *cs = nl_langinfo(CODESET), *env;
	int quit = 0, dirty = 1, rc = 0, probe_joined = 0, loader_left = 0;

	if (keys_init(&why) != 0) {
		fprintf(stderr, "kbx: %s\n", why);
		return 2;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "kbx: the explorer needs a terminal (see kbx --help for the commands)\n");
		return 2;
	}
	t = xcalloc(1, sizeof(*t));
	session_init(t, cat, db_path, tasks_root);
	t->utf8 = cs && !strcmp(cs, "UTF-8");
	glyphs_set(t->utf8);
	env = getenv("NO_COLOR");
	t->no_color = env && *env;
	t->theme_dir = theme_dir(tasks_root);
	t->nthemes = theme_list(t->theme_dir, &t->themes);
	theme_builtin(&t->theme);
	env = initial_theme ? initial_theme : getenv("KBX_THEME");
	if (env && *env) {
		load_theme(t, env);
	} else {
		/* the one last chosen with t, while it is still there */
		char *saved = theme_saved();
		int found = 0;

		for (int i = 0; saved && i < t->nthemes; i++)
			found |= !strcmp(t->themes[i], saved);
		load_theme(t, found ? saved : "default");
		free(saved);
	}

	if (pipe2(wake_fd, O_CLOEXEC | O_NONBLOCK) != 0)
		wake_fd[0] = wake_fd[1] = -1;
	t->wake_fd = wake_fd[1];
	/* the history's figures come in a thread: the first frame does not wait for them */
	session_reload(t);
	install_signals();
	if (start_terminal() != KBX_OK) {
		fprintf(stderr, "kbx: %s\n", kbx_last_error());
		rc = 2;
		goto out;
	}
	/* the GPU probe only once the explorer can run (a refused terminal leaves no thread) */
	probe = xcalloc(1, sizeof(*probe));
	probe->tasks_root = xstrdup(tasks_root);
	atomic_init(&probe->done, 0);
	probe_th = probe_start(probe);
	apply_theme(t);
	screen_open(t, SCR_BROWSER);
	if (*t->history_note && !*t->msg)
		tui_message(t, ROLE_ERRMSG, "%s", t->history_note);

	while (!quit) {
		struct pollfd pfd[3];
		int nfd = 0, timeout, key;

		if (!probe_joined && atomic_load(&probe->done)) {
			t->dev = probe->info;
			pthread_join(probe_th, NULL);
			probe_joined = 1;
			dirty = 1;
		}
		if (session_poll(t))
			dirty = 1;
		if (dirty) {
			draw_frame(t);
			dirty = 0;
			/* KBX_TUI_EXIT_AFTER_DRAW=1: after the first frame; =history: after the first
			 * frame with the history's figures in it */
			if (exit_after && *exit_after && t->frames >= 1 &&
			    (strcmp(exit_after, "history") || t->history_ready || !t->db)) {
				frame_ms = (now_seconds() - t0) * 1000.0;
				break;
			}
		}
		pfd[nfd++] = (struct pollfd){ STDIN_FILENO, POLLIN, 0 };
		pfd[nfd++] = (struct pollfd){ wake_fd[0], POLLIN, 0 };
		if (t->runner)
			pfd[nfd++] = (struct pollfd){ runner_fd(t->runner), POLLIN, 0 };
		/* the elapsed time of a run ticks; otherwise sleep until something happens */
		timeout = t->runner ? 250 : probe_joined && !t->loader && !t->scanner ? -1 : 250;
		if (poll(pfd, (nfds_t)nfd, timeout) < 0 && errno != EINTR)
			break;
		/* ^C is a quit like Q (asking about unsaved candidates; a second ^C while asking quits);
		 * SIGTERM and SIGHUP end at once: unsaved candidates are already drafts on disk */
		if (got_signal == SIGINT) {
			got_signal = 0;
			if (session_asking_quit(t) || session_may_quit(t)) {
				got_signal = SIGINT;
				break;
			}
			dirty = 1;
		}
		if (got_signal)
			break;
		/* the terminal went away without a SIGHUP: nothing more can come */
		if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			break;
		if (pfd[1].revents & POLLIN) {
			char buf[64];

			while (read(wake_fd[0], buf, sizeof(buf)) > 0)
				;
			dirty = 1;
		}
		if (t->runner) {
			if (runner_pump(t->runner, &t->ev_tee))
				session_run_finished(t);
			dirty = 1;
		}
		while ((key = read_key()) >= 0) {
			if (key == 0)
				continue;
			handle_key(t, key, &quit);
			dirty = 1;
			if (quit)
				break;
		}
	}
	if (got_signal)
		rc = 128 + got_signal;
out:
	/* a run in progress is cancelled (its worker killed) before the terminal comes back */
	runner_free(t->runner);
	t->runner = NULL;
	worker_keep_free(t->pyworker);
	t->pyworker = NULL;
	restore_terminal();
	if (exit_after && *exit_after)
		fprintf(stderr, "kbx: first frame%s after %.1f ms\n", strcmp(exit_after, "history") ? "" : " with history",
			frame_ms);
	if (probe && !probe_joined && atomic_load(&probe->done)) {
		pthread_join(probe_th, NULL);
		probe_joined = 1;
	}
	loader_left = session_stop_loader(t, 0);
	if (probe_joined) {
		free(probe->tasks_root);
		free(probe);
	}
	if ((!probe || probe_joined) && !loader_left) {
		if (wake_fd[0] >= 0) {
			close(wake_fd[0]);
			close(wake_fd[1]);
			wake_fd[0] = wake_fd[1] = -1;
		}
	}
	if (probe && !probe_joined) {
		/* a driver still initialising: leave the thread (and the pipe it writes to) alone */
		pthread_detach(probe_th);
	}
	while (t->depth)
		screen_pop(t);
	session_free(t);
	free(t);
	syntax_cleanup();
	return rc;
}
