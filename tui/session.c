/*
 * session.c - the explorer's state and what screens may ask of it: candidates, prompts,
 * pastes, runs, the history, golden tables, and the keys every screen shares. No curses here:
 * the event loop and the terminal are tui.c's.
 */
#include "ui.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/golden.h"
#include "../core/lang.h"
#include "../core/nvrtc.h"
#include "../core/util.h"
#include "../core/worker.h"
#include "complete.h"
#include "drafts.h"
#include "find.h"
#include "../core/starter.h"

static int scan_poll(struct tui *t);
static void scan_next(struct tui *t);
static void scan_stop(struct tui *t);

/* Golden tables, loaded on first use (a few MB of JSON the first frame does not need). */
static char **gnames;
static struct golden_table **gtables;
static int ngolden = -1;

/* Drafts left by an earlier session come back as their tasks' candidates, still unsaved. */
static void restore_drafts(struct tui *t)
{
	char names[160] = "";
	int n = 0;

	for (int i = 0; i < t->cat->ntasks; i++) {
		char *src;

		if (drafts_load(t->drafts_dir, t->cat->tasks[i]->id, &src) != KBX_OK) {
			kbx_clear_error();
			continue;
		}
		candidate_set(t, i, src, "draft", NULL);
		t->cands[i].unsaved = 1;
		free(src);
		if (strlen(names) + strlen(t->cat->tasks[i]->name) + 8 < sizeof(names))
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", n ? ", " : "",
				 t->cat->tasks[i]->name);
		n++;
	}
	if (n)
		tui_message(t, ROLE_MESSAGE, "%d unsaved draft%s from an earlier session %s back as %s candidate%s: %s "
			    "(w writes one to a file)", n, n == 1 ? "" : "s", n == 1 ? "is" : "are", n == 1 ? "its task's" : "their tasks'",
			    n == 1 ? "" : "s", names);
}

void session_init(struct tui *t, const struct catalogue *cat, const char *db_path, const char *tasks_root)
{
	memset(t, 0, sizeof(*t));
	t->cat = cat;
	t->db_path = db_path;
	t->tasks_root = tasks_root;
	t->task = -1;
	t->run_task = -1;
	t->history_task = -1;
	t->view_case = -1;
	t->wake_fd = -1;
	model_init(&t->model, cat);
	model_apply_history(&t->model, NULL, 0, NULL, 0);
	t->cands = xcalloc((size_t)(cat->ntasks ? cat->ntasks : 1), sizeof(*t->cands));
	if (db_path && db_open(db_path, &t->db) != KBX_OK) {
		snprintf(t->history_note, sizeof(t->history_note), "no history: %s", kbx_last_error());
		t->db = NULL;
	}
	t->now = (double)time(NULL);
	t->drafts_dir = drafts_dir();
	{
		char *path = xasprintf("%s/rules.ini", tasks_root);

		/* without rules the candidate screen shows only the include check */
		if (rules_load(path, &t->rules) != KBX_OK) {
			memset(&t->rules, 0, sizeof(t->rules));
			kbx_clear_error();
		}
		free(path);
	}
	restore_drafts(t);
}

/* ---- the history loader ------------------------------------------------------------------ */

/* The thread touches only what is here (never the catalogue or the session), so that at exit it
 * can be left to finish on its own. */
struct history_loader {
	pthread_t th;
	atomic_int done;
	char *db_path;
	char **cats;                    /* category names, in the model's order */
	int ncats;
	struct db_category_stat *cs;
	struct db_task_stat *ts;
	int ncs, nts;
	double *series;                 /* (ncats + 1) x TUI_NSERIES */
	char err[256];
	char damaged[256];              /* the integrity check's finding, "" when it passed */
	atomic_int wake_fd;
	int threaded;                   /* th runs loader_main (else it ran inline) */
	atomic_int state;               /* LOADER_*: who frees it */
};

/* A loader belongs to the session until session_stop_loader leaves it running (ORPHAN): then
 * whichever of the two comes second (the thread finishing, the session leaving) frees it. */
enum { LOADER_OWNED, LOADER_FINISHED, LOADER_ORPHAN };

static void loader_free(struct history_loader *L);

static void *loader_main(void *arg)
{
	struct history_loader *L = arg;
	struct db *db = NULL;
	enum kbx_status st = db_open(L->db_path, &db);

	/* a damaged history is read for what it holds, and said to be damaged */
	if (!st && db_check(db) != KBX_OK) {
		snprintf(L->damaged, sizeof(L->damaged), "%s", kbx_last_error());
		kbx_clear_error();
	}
	if (!st)
		st = db_category_stats(db, &L->cs, &L->ncs);
	if (!st)
		st = db_task_stats(db, NULL, &L->ts, &L->nts);
	if (!st) {
		L->series = xmalloc(sizeof(double) * (size_t)(L->ncats + 1) * TUI_NSERIES);
		for (int i = 0; i < (L->ncats + 1) * TUI_NSERIES; i++)
			L->series[i] = -1;
		for (int c = 0; c <= L->ncats && !st; c++) {
			int runs = 0;

			for (int k = 0; k < L->ncs; k++)
				if (!c || !strcmp(L->cs[k].category, L->cats[c - 1]))
					runs += L->cs[k].attempts;
			if (runs)
				st = db_category_series(db, c ? L->cats[c - 1] : NULL, TUI_NSERIES,
							L->series + (size_t)c * TUI_NSERIES);
		}
	}
	if (st)
		snprintf(L->err, sizeof(L->err), "history unreadable: %s", kbx_last_error());
	db_close(db);
	atomic_store(&L->done, 1);
	{
		int fd = atomic_load(&L->wake_fd);

		if (fd >= 0) {
			ssize_t r = write(fd, "h", 1);

			(void)r;
		}
	}
	if (atomic_exchange(&L->state, LOADER_FINISHED) == LOADER_ORPHAN)
		loader_free(L);  /* left running by session_stop_loader: the thread is the last user */
	return NULL;
}

static void loader_free(struct history_loader *L)
{
	free(L->db_path);
	for (int i = 0; i < L->ncats; i++)
		free(L->cats[i]);
	free(L->cats);
	free(L->cs);
	free(L->ts);
	free(L->series);
	free(L);
}

void session_reload(struct tui *t)
{
	struct history_loader *L;
	sigset_t block, old;

	if (!t->db)
		return;
	if (t->loader) {
		t->reload_pending = 1;
		return;
	}
	L = xcalloc(1, sizeof(*L));
	atomic_init(&L->done, 0);
	L->db_path = xstrdup(t->db_path);
	L->ncats = t->model.ncats;
	L->cats = xcalloc((size_t)(L->ncats ? L->ncats : 1), sizeof(char *));
	for (int i = 0; i < L->ncats; i++)
		L->cats[i] = xstrdup(t->model.cats[i].name);
	atomic_init(&L->wake_fd, t->wake_fd);
	atomic_init(&L->state, LOADER_OWNED);
	/* signals are the event loop's */
	sigfillset(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	if (pthread_create(&L->th, NULL, loader_main, L) != 0) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		/* no thread: read the figures here */
		loader_main(L);
		t->loader = L;
		session_poll(t);
		return;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	L->threaded = 1;
	t->loader = L;
}

int session_poll(struct tui *t)
{
	struct history_loader *L = t->loader;
	int scanned = scan_poll(t);

	if (!L || !atomic_load(&L->done))
		return scanned;
	if (L->threaded)
		pthread_join(L->th, NULL);
	t->history_damaged = *L->damaged || *L->err;
	if (*L->err) {
		snprintf(t->history_note, sizeof(t->history_note), "%s%s%s", L->err, *L->damaged ? "; " : "", L->damaged);
		tui_message(t, ROLE_ERRMSG, "%s", t->history_note);
	} else if (*L->damaged) {
		model_apply_history(&t->model, L->cs, L->ncs, L->ts, L->nts);
		model_set_series(&t->model, L->series, TUI_NSERIES);
		L->series = NULL;
		t->history_ready = 1;
		snprintf(t->history_note, sizeof(t->history_note), "%s", L->damaged);
		tui_message(t, ROLE_ERRMSG, "%s", t->history_note);
	} else {
		model_apply_history(&t->model, L->cs, L->ncs, L->ts, L->nts);
		model_set_series(&t->model, L->series, TUI_NSERIES);
		L->series = NULL;
		t->history_ready = 1;
		t->history_note[0] = '\0';
	}
	loader_free(L);
	t->loader = NULL;
	if (t->reload_pending) {
		t->reload_pending = 0;
		session_reload(t);
	}
	return 1;
}

int session_stop_loader(struct tui *t, int wait)
{
	int detached = 0;

	if (!t->loader)
		return 0;
	if (!t->loader->threaded) {
		loader_free(t->loader);
	} else if (wait) {
		pthread_join(t->loader->th, NULL);
		loader_free(t->loader);
	} else {
		/* it reads only its own copies: let it finish on its own (it frees itself then); it may
		 * still write to the wake-up pipe, which the caller must therefore keep open */
		atomic_store(&t->loader->wake_fd, -1);
		if (atomic_exchange(&t->loader->state, LOADER_ORPHAN) == LOADER_FINISHED) {
			pthread_join(t->loader->th, NULL);
			loader_free(t->loader);
		} else {
			pthread_detach(t->loader->th);
			detached = 1;
		}
	}
	t->loader = NULL;
	return detached;
}

static void candidate_free(struct candidate *c)
{
	free(c->source);
	free(c->name);
	free(c->path);
	free(c->static_why);
	free(c->findings);
	memset(c, 0, sizeof(*c));
}

void session_free(struct tui *t)
{
	scan_stop(t);
	search_free(&t->find);
	runner_free(t->runner);
	t->runner = NULL;
	recorder_free(t->recorder);
	t->recorder = NULL;
	if (t->run) {
		run_record_free(t->run);
		free(t->run);
	}
	if (t->have_history_run)
		run_record_free(&t->history_run);
	for (int i = 0; i < t->cat->ntasks; i++)
		candidate_free(&t->cands[i]);
	free(t->cands);
	prompt_close(t);
	ask_close(t);
	free(t->drafts_dir);
	sbuf_release(&t->paste.buf);
	for (int i = 0; i < t->nthemes; i++)
		free(t->themes[i]);
	free(t->themes);
	free(t->theme_dir);
	session_stop_loader(t, 0);
	model_free(&t->model);
	rules_free(&t->rules);
	db_close(t->db);
	for (int i = 0; i < ngolden; i++) {
		free(gnames[i]);
		golden_free(gtables[i]);
	}
	free(gnames);
	free(gtables);
	gnames = NULL;
	gtables = NULL;
	ngolden = -1;
	memset(t, 0, sizeof(*t));
}

void tui_message(struct tui *t, int role, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	va_end(ap);
	/* one line: a message with a newline would break the bottom bar */
	for (char *p = t->msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	t->msg_role = role;
}

const struct task *tui_task(const struct tui *t)
{
	return t->task >= 0 && t->task < t->cat->ntasks ? t->cat->tasks[t->task] : NULL;
}

struct candidate *tui_candidate(struct tui *t)
{
	return t->task >= 0 && t->task < t->cat->ntasks ? &t->cands[t->task] : NULL;
}

/* ---- the static rules' scan -------------------------------------------------------------- */

/* One candidate's scan, in a thread: the scan is linear and sources are capped (KBX_SOURCE_MAX),
 * but a 1 MiB source with a finding on every line still takes a while, and the screen must not
 * wait for it. The thread reads only its own copy of the source and the ruleset, which does not
 * change while the explorer runs; session_free waits for it. */
struct scanner {
	pthread_t th;
	atomic_int done;
	const struct ruleset *rules;
	char *source;
	enum rules_lang lang;
	int task;
	unsigned version;
	struct finding *findings;
	int n;
	int wake_fd;
};

static void *scan_main(void *arg)
{
	struct scanner *S = arg;

	S->n = rules_scan_lang(S->rules, S->source, S->lang, &S->findings);
	atomic_store(&S->done, 1);
	if (S->wake_fd >= 0) {
		ssize_t r = write(S->wake_fd, "r", 1);

		(void)r;
	}
	return NULL;
}

/* Start the scan of the next candidate that waits for one, unless one is running. */
static void scan_next(struct tui *t)
{
	struct scanner *S;
	sigset_t block, old;
	int task = -1;

	if (t->scanner)
		return;
	for (int i = 0; i < t->cat->ntasks && task < 0; i++)
		if (t->cands[i].scanning && t->cands[i].source)
			task = i;
	if (task < 0)
		return;
	S = xcalloc(1, sizeof(*S));
	atomic_init(&S->done, 0);
	S->rules = &t->rules;
	S->source = xstrdup(t->cands[task].source);
	S->lang = lang_detect(t->cands[task].path, S->source) == LANG_PYTHON ? RULES_PYTHON : RULES_CUDA;
	S->task = task;
	S->version = t->cands[task].version;
	S->wake_fd = t->wake_fd;
	sigfillset(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	if (pthread_create(&S->th, NULL, scan_main, S) != 0) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		S->wake_fd = -1;
		scan_main(S);
		S->th = pthread_self();
		t->scanner = S;
		scan_poll(t);
		return;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	t->scanner = S;
}

/* Take a finished scan's findings (when its candidate has not changed since); returns 1 when a
 * candidate got them. */
static int scan_poll(struct tui *t)
{
	struct scanner *S = t->scanner;
	struct candidate *c;
	int got = 0;

	if (!S || !atomic_load(&S->done))
		return 0;
	if (!pthread_equal(S->th, pthread_self()))
		pthread_join(S->th, NULL);
	t->scanner = NULL;
	c = &t->cands[S->task];
	if (c->source && c->version == S->version) {
		free(c->findings);
		c->findings = S->findings;
		c->nfindings = S->n;
		S->findings = NULL;
		c->scanning = 0;
		c->version++;   /* the candidate screen draws the findings on their lines */
		got = 1;
	}
	free(S->findings);
	free(S->source);
	free(S);
	scan_next(t);
	return got;
}

static void scan_stop(struct tui *t)
{
	if (!t->scanner)
		return;
	if (!pthread_equal(t->scanner->th, pthread_self()))
		pthread_join(t->scanner->th, NULL);
	free(t->scanner->findings);
	free(t->scanner->source);
	free(t->scanner);
	t->scanner = NULL;
}

void candidate_set(struct tui *t, int task, const char *source, const char *name, const char *path)
{
	struct candidate *c;
	unsigned v;
	char *why = NULL;

	if (task < 0 || task >= t->cat->ntasks)
		return;
	c = &t->cands[task];
	v = c->version;
	/* replacing an unsaved candidate happens only once the user said to discard it */
	if (c->unsaved)
		drafts_remove(t->drafts_dir, t->cat->tasks[task]->id);
	candidate_free(c);
	c->version = v + 1;
	c->source = xstrdup(source ? source : "");
	c->name = xstrdup(name ? name : "candidate");
	c->path = path ? xstrdup(path) : NULL;
	/* the include check is the static check core has today: show its finding on its line */
	if (!nvrtc_source_includes_ok(c->source, &why)) {
		c->static_why = why ? why : xstrdup("an #include is not allowed");
		c->static_line = report_static_line(c->static_why);
	} else {
		free(why);
	}
	if (t->rules.n) {
		c->scanning = 1;
		scan_next(t);
	}
}

void candidate_keep(struct tui *t, int task)
{
	struct candidate *c;

	if (task < 0 || task >= t->cat->ntasks || !t->cands[task].source)
		return;
	c = &t->cands[task];
	c->unsaved = 1;
	if (drafts_save(t->drafts_dir, t->cat->tasks[task]->id, c->source) != KBX_OK)
		tui_message(t, ROLE_ERRMSG, "%s", kbx_last_error());
}

int session_in_catalogue(const struct tui *t, const char *path)
{
	char *real = realpath(path, NULL), *root = realpath(t->tasks_root, NULL);
	int in = 0;

	if (real && root) {
		size_t n = strlen(root);

		in = !strncmp(real, root, n) && (real[n] == '/' || !real[n]);
	}
	free(real);
	free(root);
	return in;
}

/* ---- questions --------------------------------------------------------------------------- */

void ask_open(struct tui *t, const char *question, ask_fn yes, const char *arg)
{
	ask_close(t);
	t->ask.active = 1;
	snprintf(t->ask.question, sizeof(t->ask.question), "%s", question);
	t->ask.yes = yes;
	t->ask.arg = xstrdup(arg ? arg : "");
}

void ask_close(struct tui *t)
{
	free(t->ask.arg);
	memset(&t->ask, 0, sizeof(t->ask));
}

unsigned ask_key(struct tui *t, int key)
{
	unsigned res = R_HANDLED | R_REDRAW;

	if (key == 'y' || key == 'Y') {
		ask_fn fn = t->ask.yes;
		char *arg = xstrdup(t->ask.arg);

		ask_close(t);
		res |= fn(t, arg);
		free(arg);
	} else if (key == 'n' || key == 'N' || key == 'q' || key == TK_ESC || key == TK_CTRL('g')) {
		ask_close(t);
		tui_message(t, ROLE_MESSAGE, "nothing changed");
	}
	/* any other key leaves the question up */
	return res;
}

unsigned session_replace(struct tui *t, int task, const char *what, ask_fn fn, const char *arg)
{
	const struct candidate *c = task >= 0 && task < t->cat->ntasks ? &t->cands[task] : NULL;
	char q[400];

	if (!c || !c->unsaved)
		return fn(t, arg);
	snprintf(q, sizeof(q), "%s would replace the unsaved candidate of %s (%s): discard it? y discards, n keeps it",
		 what, t->cat->tasks[task]->name, c->name ? c->name : "edited");
	ask_open(t, q, fn, arg);
	return R_HANDLED | R_REDRAW;
}

static unsigned quit_yes(struct tui *t, const char *arg)
{
	(void)arg;
	t->quit_confirmed = 1;
	return R_QUIT;
}

int session_asking_quit(const struct tui *t)
{
	return t->ask.active && t->ask.yes == quit_yes;
}

int session_may_quit(struct tui *t)
{
	char names[160] = "", q[400];
	int n = 0;

	if (t->quit_confirmed)
		return 1;
	for (int i = 0; i < t->cat->ntasks; i++) {
		if (!t->cands[i].unsaved)
			continue;
		if (strlen(names) + strlen(t->cat->tasks[i]->name) + 8 < sizeof(names))
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", n ? ", " : "",
				 t->cat->tasks[i]->name);
		n++;
	}
	if (!n)
		return 1;
	snprintf(q, sizeof(q), "quit with %d unsaved candidate%s (%s)? %s kept as draft%s for the next start: y quits, n stays",
		 n, n == 1 ? "" : "s", names, n == 1 ? "it is" : "they are", n == 1 ? "" : "s");
	ask_open(t, q, quit_yes, "");
	return 0;
}

int candidate_load_file(struct tui *t, const char *input)
{
	char *path = path_expand(input), *text;
	size_t len;

	if (!tui_task(t)) {
		free(path);
		tui_message(t, ROLE_ERRMSG, "select a task first");
		return 0;
	}
	/* binary or over the size limit: the same refusal as kbx run's (core/lang.h) */
	if (lang_read_source(path, &text, &len) != KBX_OK) {
		tui_message(t, ROLE_ERRMSG, "%s", kbx_last_error());
		free(path);
		return 0;
	}
	candidate_set(t, t->task, text, path, path);
	tui_message(t, ROLE_MESSAGE, "loaded '%s' (%zu bytes)", path, len);
	free(text);
	free(path);
	return 1;
}

/* ---- the prompt -------------------------------------------------------------------------- */

static void prompt_free_matches(struct prompt *p)
{
	path_matches_free(p->matches, p->nmatches);
	p->matches = NULL;
	p->nmatches = 0;
}

void prompt_open(struct tui *t, const char *label, const char *init, int paths, prompt_fn accept, prompt_fn change,
		 prompt_fn cancel)
{
	struct prompt *p = &t->prompt;

	prompt_free_matches(p);
	memset(p, 0, sizeof(*p));
	p->active = 1;
	snprintf(p->label, sizeof(p->label), "%s", label);
	snprintf(p->buf, sizeof(p->buf), "%s", init ? init : "");
	p->len = p->cur = strlen(p->buf);
	p->paths = paths;
	p->accept = accept;
	p->change = change;
	p->cancel = cancel;
}

void prompt_close(struct tui *t)
{
	prompt_free_matches(&t->prompt);
	t->prompt.active = 0;
}

static size_t utf8_encode(unsigned cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp >= 0xd800 && cp < 0xe000)
		return 0;
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	if (cp < 0x110000) {
		out[0] = (char)(0xf0 | (cp >> 18));
		out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[3] = (char)(0x80 | (cp & 0x3f));
		return 4;
	}
	return 0;
}

static int printable_key(int key)
{
	return key >= 32 && key != 127 && key < TK_BASE;
}

static void prompt_complete(struct tui *t)
{
	struct prompt *p = &t->prompt;
	char *done = NULL, **m = NULL;
	int n;

	prompt_free_matches(p);
	n = path_complete(p->buf, &done, &m);
	if (strlen(done) < sizeof(p->buf)) {
		int grew = strcmp(done, p->buf) != 0;

		snprintf(p->buf, sizeof(p->buf), "%s", done);
		p->len = p->cur = strlen(p->buf);
		if (grew)
			p->tabs = 0;
	}
	free(done);
	if (n == 0) {
		tui_message(t, ROLE_ERRMSG, "no file matches");
		path_matches_free(m, n);
	} else if (n > 1 && p->tabs >= 1) {
		/* a second Tab without progress lists the choices */
		p->matches = m;
		p->nmatches = n;
	} else {
		path_matches_free(m, n);
	}
	p->tabs++;
}

unsigned prompt_key(struct tui *t, int key)
{
	struct prompt *p = &t->prompt;
	enum action a = keys_lookup(KS_PROMPT, key);
	char text[sizeof(p->buf)];
	prompt_fn fn;

	if (a != ACT_PROMPT_COMPLETE)
		p->tabs = 0;
	if (key == TK_PASTE_BEGIN || key == TK_PASTE_END || key == TK_RESIZE)
		return R_HANDLED;
	switch (a) {
	case ACT_PROMPT_ACCEPT:
		snprintf(text, sizeof(text), "%s", p->buf);
		fn = p->accept;
		prompt_close(t);
		if (fn)
			fn(t, text);
		return R_HANDLED | R_REDRAW;
	case ACT_PROMPT_CANCEL:
		fn = p->cancel;
		prompt_close(t);
		if (fn)
			fn(t, "");
		return R_HANDLED | R_REDRAW;
	case ACT_PROMPT_COMPLETE:
		if (p->paths)
			prompt_complete(t);
		return R_HANDLED;
	case ACT_PROMPT_ERASE:
		if (p->cur > 0) {
			size_t s = p->cur - 1;

			while (s > 0 && ((unsigned char)p->buf[s] & 0xc0) == 0x80)
				s--;
			memmove(p->buf + s, p->buf + p->cur, p->len - p->cur + 1);
			p->len -= p->cur - s;
			p->cur = s;
		} else if (p->len == 0) {
			/* backspace on an empty prompt leaves it, as in less */
			fn = p->cancel;
			prompt_close(t);
			if (fn)
				fn(t, "");
			return R_HANDLED;
		}
		break;
	case ACT_PROMPT_KILL:
		p->buf[0] = '\0';
		p->len = p->cur = 0;
		break;
	case ACT_PROMPT_LEFT:
		while (p->cur > 0) {
			p->cur--;
			if (((unsigned char)p->buf[p->cur] & 0xc0) != 0x80)
				break;
		}
		return R_HANDLED;
	case ACT_PROMPT_RIGHT:
		while (p->cur < p->len) {
			p->cur++;
			if (p->cur == p->len || ((unsigned char)p->buf[p->cur] & 0xc0) != 0x80)
				break;
		}
		return R_HANDLED;
	case ACT_PROMPT_HOME:
		p->cur = 0;
		return R_HANDLED;
	case ACT_PROMPT_END:
		p->cur = p->len;
		return R_HANDLED;
	default:
		if (printable_key(key)) {
			char u[4];
			size_t k = utf8_encode((unsigned)key, u);

			if (k && p->len + k < sizeof(p->buf)) {
				memmove(p->buf + p->cur + k, p->buf + p->cur, p->len - p->cur + 1);
				memcpy(p->buf + p->cur, u, k);
				p->len += k;
				p->cur += k;
			}
		} else {
			return R_HANDLED;
		}
		break;
	}
	prompt_free_matches(p);
	if (p->change)
		p->change(t, p->buf);
	return R_HANDLED;
}

/* ---- pasting ----------------------------------------------------------------------------- */

void paste_begin(struct tui *t, int bracketed)
{
	t->paste.active = 1;
	t->paste.bracketed = bracketed;
	t->paste.discard_ok = 0;
	t->paste.task = t->task;
	sbuf_reset(&t->paste.buf);
	if (t->task < 0)
		tui_message(t, ROLE_ERRMSG, "select a task before pasting a candidate");
	else if (!bracketed)
		tui_message(t, ROLE_MESSAGE, "paste the candidate now (or type it); ^D ends, Esc cancels");
	else
		tui_message(t, ROLE_MESSAGE, "pasting...");
}

/* The pasted text exists nowhere else: it is the candidate, and a draft. */
static unsigned paste_apply(struct tui *t, const char *text)
{
	int lines = 0;

	for (const char *q = text; *q; q++)
		lines += *q == '\n';
	candidate_set(t, t->task, text, "pasted", NULL);
	candidate_keep(t, t->task);
	tui_message(t, ROLE_MESSAGE, "pasted %d line%s as the candidate of %s (kept as a draft until w writes it)", lines,
		    lines == 1 ? "" : "s", tui_task(t)->name);
	t->cand_goto = 1;
	return tui_open(t, SCR_CAND) | R_REDRAW;
}

static unsigned paste_finish(struct tui *t)
{
	struct paste *p = &t->paste;

	p->active = 0;
	if (p->task < 0) {
		tui_message(t, ROLE_ERRMSG, "nothing pasted: select a task first");
		return R_HANDLED | R_REDRAW;
	}
	if (!p->buf.len) {
		tui_message(t, ROLE_MESSAGE, "nothing pasted");
		return R_HANDLED | R_REDRAW;
	}
	if (lang_check_source("the pasted text", p->buf.buf, p->buf.len) != KBX_OK) {
		tui_message(t, ROLE_ERRMSG, "%s", kbx_last_error());
		sbuf_reset(&p->buf);
		return R_HANDLED | R_REDRAW;
	}
	if (p->buf.buf[p->buf.len - 1] != '\n')
		sbuf_adds(&p->buf, "\n");
	t->task = p->task;
	{
		/* p asked already; a bracketed paste (no p) asks now */
		unsigned res = p->discard_ok ? paste_apply(t, p->buf.buf)
					     : session_replace(t, p->task, "the pasted text", paste_apply, p->buf.buf);

		sbuf_reset(&p->buf);
		return res;
	}
}

unsigned paste_key(struct tui *t, int key)
{
	struct paste *p = &t->paste;

	if (key == TK_PASTE_END)
		return paste_finish(t);
	if (key == TK_PASTE_BEGIN) {
		p->bracketed = 1;
		return R_HANDLED;
	}
	if (!p->bracketed) {
		enum action a = keys_lookup(KS_PASTE, key);

		if (a == ACT_PASTE_DONE)
			return paste_finish(t);
		if (a == ACT_PASTE_ABORT) {
			p->active = 0;
			sbuf_reset(&p->buf);
			tui_message(t, ROLE_MESSAGE, "paste cancelled");
			return R_HANDLED | R_REDRAW;
		}
		if (key == TK_BACKSPACE) {
			while (p->buf.len && ((unsigned char)p->buf.buf[p->buf.len - 1] & 0xc0) == 0x80)
				p->buf.len--;
			if (p->buf.len)
				p->buf.len--;
			if (p->buf.buf)
				p->buf.buf[p->buf.len] = '\0';
			return R_HANDLED;
		}
	}
	if (key == TK_ENTER) {
		sbuf_add(&p->buf, "\n", 1);
	} else if (key == TK_TAB) {
		sbuf_add(&p->buf, "\t", 1);
	} else if (printable_key(key)) {
		char u[4];
		size_t k = utf8_encode((unsigned)key, u);

		sbuf_add(&p->buf, u, k);
	}
	if (!p->bracketed) {
		int lines = 0;

		for (size_t i = 0; i < p->buf.len; i++)
			lines += p->buf.buf[i] == '\n';
		tui_message(t, ROLE_MESSAGE, "pasting: %d line%s, %zu bytes; ^D ends, Esc cancels", lines,
			    lines == 1 ? "" : "s", p->buf.len);
	}
	return R_HANDLED;
}

static unsigned paste_begin_apply(struct tui *t, const char *arg)
{
	(void)arg;
	paste_begin(t, 0);
	t->paste.discard_ok = 1;
	return R_HANDLED;
}

/* ---- shared keys ------------------------------------------------------------------------- */

static int need_task(struct tui *t)
{
	if (tui_task(t))
		return 1;
	tui_message(t, ROLE_ERRMSG, "select a task first");
	return 0;
}

static unsigned load_apply(struct tui *t, const char *text)
{
	if (candidate_load_file(t, text))
		t->cand_goto = 1;
	return R_HANDLED | R_REDRAW;
}

static void load_accept(struct tui *t, const char *text)
{
	char what[300];

	if (!*text)
		return;
	snprintf(what, sizeof(what), "loading '%s'", text);
	/* a prompt's accept has no bits to return: a question it opens is answered in the loop */
	(void)session_replace(t, t->task, what, load_apply, text);
}

static unsigned starter_apply(struct tui *t, const char *arg)
{
	char *s = starter_text(tui_task(t));

	(void)arg;
	candidate_set(t, t->task, s, "starter", NULL);
	free(s);
	tui_message(t, ROLE_MESSAGE, "the candidate is now the starter skeleton of %s", tui_task(t)->name);
	t->cand_goto = 1;
	return tui_open(t, SCR_CAND);
}

unsigned session_global_key(struct tui *t, enum action a, int key)
{
	struct candidate *c;

	(void)key;
	switch (a) {
	case ACT_FIND:
	case ACT_FIND_NEXT:
	case ACT_FIND_PREV:
		return find_key(t, a);
	case ACT_HELP:
		return tui_open(t, SCR_HELP);
	case ACT_BACK:
		return R_HANDLED | R_BACK;
	case ACT_QUIT:
		return R_HANDLED | R_QUIT;
	case ACT_THEME:
		return R_HANDLED | R_THEME;
	case ACT_HISTORY:
		if (!t->db) {
			tui_message(t, ROLE_ERRMSG, "%s", *t->history_note ? t->history_note : "no history");
			return R_HANDLED;
		}
		t->history_task = t->task;
		return tui_open(t, SCR_HISTORY);
	case ACT_CANDIDATE:
		if (!need_task(t))
			return R_HANDLED;
		return tui_open(t, SCR_CAND);
	case ACT_LOAD:
		if (!need_task(t))
			return R_HANDLED;
		c = tui_candidate(t);
		{
			char init[1024];

			if (c && c->path) {
				const char *slash = strrchr(c->path, '/');

				snprintf(init, sizeof(init), "%.*s", slash ? (int)(slash - c->path + 1) : 0, c->path);
			} else {
				snprintf(init, sizeof(init), "%s", "");
			}
			prompt_open(t, "load file: ", init, 1, load_accept, NULL, NULL);
		}
		return R_HANDLED;
	case ACT_PASTE:
		if (!need_task(t))
			return R_HANDLED;
		/* asked before the typing starts, not after it */
		return session_replace(t, t->task, "pasting", paste_begin_apply, "");
	case ACT_EDIT:
		if (!need_task(t))
			return R_HANDLED;
		return R_HANDLED | R_EDITOR;
	case ACT_STARTER:
		if (!need_task(t))
			return R_HANDLED;
		return session_replace(t, t->task, "the starter", starter_apply, "");
	case ACT_RUN:
		return R_HANDLED | R_RUN;
	case ACT_CANCEL:
		if (!t->runner) {
			tui_message(t, ROLE_MESSAGE, "no run in progress");
			return R_HANDLED;
		}
		return R_HANDLED | R_CANCEL;
	case ACT_RESULTS:
		if (!t->run) {
			tui_message(t, ROLE_MESSAGE, "no run yet: r runs the candidate");
			return R_HANDLED;
		}
		t->view = t->run;
		return tui_open(t, t->runner ? SCR_RUN : SCR_RESULTS);
	case ACT_LOG:
		if (!t->view && t->run)
			t->view = t->run;
		if (!t->view || !t->view->have_compile) {
			tui_message(t, ROLE_MESSAGE, "no compile log yet");
			return R_HANDLED;
		}
		return tui_open(t, SCR_LOG);
	case ACT_REDRAW:
		return R_HANDLED | R_REDRAW;
	default:
		return 0;
	}
}

/* ---- runs -------------------------------------------------------------------------------- */

int session_run(struct tui *t, int reference, int sanitize)
{
	const struct task *task = tui_task(t);
	struct candidate *c = tui_candidate(t);
	struct worker_request req;
	char *src = NULL;
	const char *name, *path;
	size_t len;

	if (!task) {
		tui_message(t, ROLE_ERRMSG, "select a task first");
		return 0;
	}
	if (t->runner) {
		tui_message(t, ROLE_ERRMSG, "a run is in progress (x cancels it)");
		return 0;
	}
	if (reference) {
		if (read_file(task->reference_path, &src, &len) != KBX_OK) {
			tui_message(t, ROLE_ERRMSG, "%s", kbx_last_error());
			return 0;
		}
		name = path = task->reference_path;
	} else {
		if (!c || !c->source) {
			tui_message(t, ROLE_ERRMSG, "no candidate for %s: o load, p paste, e edit, s starter, 1-9 an example",
				    task->name);
			return 0;
		}
		src = xstrdup(c->source);
		path = c->path;
		/* pasted or edited text has no name: its content says which language it is */
		name = c->path ? c->path : lang_of_text(src) == LANG_PYTHON ? "candidate.py" : "candidate.cu";
	}
	if (t->run) {
		if (t->view == t->run)
			t->view = NULL;
		run_record_free(t->run);
	} else {
		t->run = xmalloc(sizeof(*t->run));
	}
	run_record_init(t->run, task->id, src, name);
	t->run->state = RUN_RUNNING;
	t->run->started = now_seconds();
	t->run_task = t->task;
	t->view = t->run;
	t->view_case = -1;
	t->view_output = 0;

	worker_request_default(&req);
	req.task_id = task->id;
	req.source = src;
	req.source_name = (char *)name;
	req.python = lang_detect(name, src) == LANG_PYTHON;
	req.tasks_root = (char *)t->tasks_root;
	req.db_path = t->db ? (char *)t->db_path : NULL;
	/* the worker reads the GPU's calibration from the history: GB/s and TFLOP/s as fractions */
	req.calib_db = t->db ? (char *)t->db_path : NULL;
	if (getenv("KBX_TUI_NO_PERF"))
		req.no_perf = 1;
	if (sanitize)
		req.sanitize = "auto";

	memset(&t->tee, 0, sizeof(t->tee));
	t->ev_record = run_record_events(t->run);
	t->tee.to[0] = &t->ev_record;
	/* a read-only history is shown, not written */
	if (t->db && !db_readonly(t->db)) {
		t->recorder = recorder_new(t->db, task->id, task->category, src, path, req.seed);
		t->ev_recorder = recorder_events(t->recorder);
		t->tee.to[1] = &t->ev_recorder;
	}
	t->ev_tee = events_tee(&t->tee);
	/* KBX_TUI_WORKER: another worker binary (tests); by default this very binary */
	if (!t->pyworker)
		t->pyworker = worker_keep_new();
	t->runner = runner_start(getenv("KBX_TUI_WORKER"), &req, t->pyworker);
	free(src);
	if (!t->runner) {
		t->run->state = RUN_FAILED;
		snprintf(t->run->error, sizeof(t->run->error), "%s", kbx_last_error());
		recorder_free(t->recorder);
		t->recorder = NULL;
		tui_message(t, ROLE_ERRMSG, "cannot run: %s", t->run->error);
		return 0;
	}
	tui_message(t, ROLE_MESSAGE, "running %s%s%s", task->name, reference ? " (reference)" : "",
		    t->db && db_readonly(t->db) ? "; the history is read-only: not recorded" : "");
	return 1;
}

/* A passing run against the best earlier attempt at its task (db/vsbest.h), for the results. */
static void record_vs_best(struct tui *t, struct run_record *r, const struct db_run_detail *d)
{
	vsbest_free(&r->vs_best);
	if (d->row.verdict == V_PASS && vsbest_find(t->db, d, &r->vs_best) != KBX_OK)
		tui_message(t, ROLE_ERRMSG, "%s", kbx_last_error());
}

void session_run_finished(struct tui *t)
{
	const char *msg = "";
	enum kbx_status st = runner_status(t->runner, &msg);
	struct run_record *r = t->run;

	if (!r->have_summary) {
		r->state = st == KBX_ECANCEL ? RUN_CANCELLED : RUN_FAILED;
		snprintf(r->error, sizeof(r->error), "%s",
			 st == KBX_ECANCEL ? "cancelled" : *msg ? msg : "the worker ended without a verdict");
	}
	if (!r->finished)
		r->finished = now_seconds();
	runner_free(t->runner);
	t->runner = NULL;
	if (t->recorder) {
		if (recorder_status(t->recorder) != KBX_OK)
			snprintf(r->error, sizeof(r->error), "not recorded in the history: %s", recorder_error(t->recorder));
		else
			r->db_id = recorder_run_id(t->recorder);
		/* against the best earlier attempt: from the run as the recorder wrote it, not read back */
		vsbest_free(&r->vs_best);
		if (r->db_id > 0 && recorder_vs_best(t->recorder, &r->vs_best) != KBX_OK)
			tui_message(t, ROLE_ERRMSG, "%s", kbx_last_error());
		recorder_free(t->recorder);
		t->recorder = NULL;
	}
	session_reload(t);
	if (r->state == RUN_DONE) {
		enum verdict v = run_record_verdict(r);

		const char *m = r->summary.message ? r->summary.message : "";

		tui_message(t, v == V_PASS ? ROLE_MESSAGE : ROLE_ERRMSG, "run finished: %s%s%.*s", verdict_name(v),
			    *m ? ": " : "", (int)strcspn(m, "\n"), m);
	} else {
		tui_message(t, ROLE_ERRMSG, "run %s: %s", r->state == RUN_CANCELLED ? "cancelled" : "failed", r->error);
	}
}

int session_view_history(struct tui *t, long long run_id)
{
	struct db_run_detail d;
	enum kbx_status st;

	if (!t->db)
		return 0;
	if (db_run_get(t->db, run_id, &d) != KBX_OK) {
		tui_message(t, ROLE_ERRMSG, "%s", kbx_last_error());
		return 0;
	}
	if (t->have_history_run) {
		if (t->view == &t->history_run)
			t->view = NULL;
		run_record_free(&t->history_run);
	}
	st = run_record_from_db(&d, &t->history_run);
	t->have_history_run = 1;
	if (st != KBX_OK)
		tui_message(t, ROLE_ERRMSG, "%s", kbx_last_error());
	record_vs_best(t, &t->history_run, &d);
	{
		int k = model_task_by_id(&t->model, d.row.task_id);

		if (k >= 0)
			t->task = k;
	}
	db_run_detail_free(&d);
	t->view = &t->history_run;
	t->view_case = -1;
	t->view_output = 0;
	return 1;
}

/* ---- golden ------------------------------------------------------------------------------ */

static void golden_load_all(const char *root)
{
	int n;

	if (ngolden >= 0)
		return;
	n = golden_list(root, &gnames);
	gtables = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*gtables));
	for (int i = 0; i < n; i++)
		if (golden_load(root, gnames[i], &gtables[i]) != KBX_OK)
			gtables[i] = NULL;
	kbx_clear_error();
	ngolden = n > 0 ? n : 0;
}

void session_golden_info(struct tui *t, const struct task *task, struct golden_info *g)
{
	memset(g, 0, sizeof(*g));
	g->rows_here = -1;
	golden_load_all(t->tasks_root);
	g->ntables = ngolden;
	g->tables = gnames;
	g->rows = xcalloc((size_t)(ngolden ? ngolden : 1), sizeof(int));
	for (int i = 0; i < ngolden; i++) {
		const struct golden_row *rows;
		int nrows = 0;

		g->rows[i] = -1;
		if (gtables[i] && golden_rows(gtables[i], task->name, &rows, &nrows) == KBX_OK)
			g->rows[i] = nrows;
		if (t->dev.done && *t->dev.golden && !strcmp(gnames[i], t->dev.golden)) {
			g->table = gnames[i];
			g->rows_here = g->rows[i];
		}
	}
	kbx_clear_error();
	if (!t->dev.done) {
		g->gpu_note = "probing the GPU...";
	} else if (t->dev.have_gpu) {
		g->gpu = t->dev.name;
		if (*t->dev.golden && !g->table)
			g->table = t->dev.golden;
	} else {
		g->gpu_note = t->dev.note;
	}
}

void session_golden_info_free(struct golden_info *g)
{
	free(g->rows);
	memset(g, 0, sizeof(*g));
}
