/*
 * candidate.c - the current task's candidate: source with line numbers and CUDA colouring,
 * the compile diagnostics and static-check findings on their lines, and what can be done to it
 * (load, paste, $EDITOR, starter, write, run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/lang.h"
#include "../core/util.h"
#include "complete.h"
#include "draw.h"
#include "drafts.h"
#include "find.h"
#include "syntax.h"
#include "textscreen.h"
#include "ui.h"

struct candview {
	struct textscreen ts;
	int task;               /* what the text shows: the task's candidate at this version */
	unsigned version;
	const void *run;        /* the run whose diagnostics are shown */
	int run_diags;
};

/* The compile result that belongs to this candidate: the latest run, when it ran this source. */
static const struct compile_result *diags_for(struct tui *t, const struct candidate *c)
{
	if (!c || !c->source)
		return NULL;
	if (t->run && t->run_task == t->task && t->run->have_compile && t->run->source &&
	    !strcmp(t->run->source, c->source))
		return &t->run->compile;
	if (t->view && t->view->have_compile && t->view->source && !strcmp(t->view->source, c->source))
		return &t->view->compile;
	return NULL;
}

/* The worst diagnostic role on a line (0: none). */
static int line_role(const struct compile_result *cr, const struct candidate *c, int line)
{
	int role = 0;

	if (c->static_line == line)
		role = ROLE_DIAG_WARN;
	for (int i = 0; i < c->nfindings; i++) {
		if (c->findings[i].line != line || c->findings[i].rule->kind == RULE_EVIDENCE)
			continue;
		if (c->findings[i].rule->kind == RULE_FATAL)
			return ROLE_DIAG_ERROR;
		role = ROLE_DIAG_WARN;
	}
	for (int i = 0; cr && i < cr->ndiags; i++) {
		if (cr->diags[i].line != line)
			continue;
		if (!strcmp(cr->diags[i].severity, "error"))
			return ROLE_DIAG_ERROR;
		role = ROLE_DIAG_WARN;
	}
	return role;
}

static void build(struct tui *t, struct candview *s, int width)
{
	struct candidate *c = tui_candidate(t);
	const struct compile_result *cr = diags_for(t, c);
	const struct task *task = tui_task(t);
	const char *p;
	int line = 1, in_comment = 0, numw, nlines = 1, python;

	struct doc *d = textscreen_rebuild(&s->ts, width, 0);

	s->task = t->task;
	s->version = c ? c->version : 0;
	s->run = cr;
	s->run_diags = cr ? cr->ndiags : -1;
	if (!c || !c->source) {
		doc_addf(d, ROLE_HEADING, "no candidate for %s yet", task ? task->name : "this task");
		doc_newline(d);
		doc_newline(d);
		doc_addcol(d, ROLE_KEY, "o", 5, 1);
		doc_add(d, ROLE_NORMAL, " ");
		doc_add(d, ROLE_NORMAL, "load a file (Tab completes the path)");
		doc_newline(d);
		doc_addcol(d, ROLE_KEY, "p", 5, 1);
		doc_add(d, ROLE_NORMAL, " ");
		doc_add(d, ROLE_NORMAL, "paste it (bracketed paste; or type and end with ^D)");
		doc_newline(d);
		doc_addcol(d, ROLE_KEY, "e", 5, 1);
		doc_add(d, ROLE_NORMAL, " ");
		doc_add(d, ROLE_NORMAL, "write it in $EDITOR");
		doc_newline(d);
		doc_addcol(d, ROLE_KEY, "s", 5, 1);
		doc_add(d, ROLE_NORMAL, " ");
		doc_add(d, ROLE_NORMAL, "start from the starter skeleton (kbx starter)");
		doc_newline(d);
		doc_addcol(d, ROLE_KEY, "1-9", 5, 1);
		doc_add(d, ROLE_NORMAL, " ");
		doc_add(d, ROLE_NORMAL, "on the task screen: one of the task's examples");
		doc_newline(d);
		return;
	}
	python = lang_detect(c->path, c->source) == LANG_PYTHON;
	for (p = c->source; *p; p++)
		nlines += *p == '\n';
	numw = nlines >= 10000 ? 5 : nlines >= 1000 ? 4 : 3;
	for (p = c->source; *p;) {
		size_t n = strcspn(p, "\n"), len = n;
		int role = line_role(cr, c, line);

		if (len && p[len - 1] == '\r')
			len--;
		doc_addf(d, role ? role : ROLE_LINENR, "%*d", numw, line);
		doc_add(d, role ? role : ROLE_LINENR, role ? ">" : " ");
		syntax_line_lang(d, p, len, &in_comment, python);
		doc_tag(d, line);
		doc_newline(d);
		p += n;
		if (*p)
			p++;
		line++;
	}
}

static void init(struct tui *t, void *self)
{
	struct candview *s = self;

	(void)t;
	textscreen_init(&s->ts, TS_SELECT | TS_HSCROLL);
	s->task = -1;
}

/* What the diagnostics say about the selected line, for the strip under the source. */
static void detail(struct tui *t, struct doc *d, int line)
{
	struct candidate *c = tui_candidate(t);
	const struct compile_result *cr = diags_for(t, c);
	int shown = 0, errors = 0, others = 0;

	for (int i = 0; cr && i < cr->ndiags; i++) {
		const char *m = cr->diags[i].message ? cr->diags[i].message : "";

		if (!strcmp(cr->diags[i].severity, "error"))
			errors++;
		else
			others++;
		if (cr->diags[i].line != line || shown >= 2)
			continue;
		doc_addf(d, !strcmp(cr->diags[i].severity, "error") ? ROLE_ERROR : ROLE_WARN, "line %d: %s: ", line,
			 cr->diags[i].severity);
		doc_addn(d, ROLE_NORMAL, m, strcspn(m, "\n"));
		doc_newline(d);
		shown++;
	}
	for (int i = 0; c && i < c->nfindings && shown < 3; i++) {
		const struct finding *f = &c->findings[i];

		if (f->line != line)
			continue;
		doc_addf(d, f->rule->kind == RULE_FATAL ? ROLE_ERROR : f->rule->kind == RULE_WARNING ? ROLE_WARN : ROLE_PASS,
			 "line %d: static %s '%s': ", line, rule_kind_name(f->rule->kind), f->rule->id);
		doc_add(d, ROLE_NORMAL, f->rule->message ? f->rule->message : "");
		doc_newline(d);
		shown++;
	}
	if (c && c->static_why && c->static_line == line && shown < 2) {
		doc_add(d, ROLE_WARN, "static check: ");
		doc_add(d, ROLE_NORMAL, c->static_why);
		doc_newline(d);
		shown++;
	}
	if (!shown) {
		if (cr)
			doc_addf(d, errors ? ROLE_ERROR : ROLE_DIM, "compile: %s, %d error%s, %d other diagnostic%s%s",
				 cr->ok ? "ok" : "failed", errors, errors == 1 ? "" : "s", others, others == 1 ? "" : "s",
				 errors + others ? " (n: next, L: log)" : "");
		else if (c && c->source)
			doc_add(d, ROLE_DIM, "not compiled yet: r runs it (without a GPU it compiles and stops)");
		doc_newline(d);
		if (c && c->static_why) {
			doc_add(d, ROLE_WARN, "static check: ");
			doc_add(d, ROLE_NORMAL, c->static_why);
			doc_newline(d);
		} else if (c && c->scanning) {
			doc_add(d, ROLE_DIM, "static rules: scanning...");
			doc_newline(d);
		} else if (c && c->nfindings) {
			int warn = 0, fatal = 0, ev = 0;

			for (int i = 0; i < c->nfindings; i++) {
				fatal += c->findings[i].rule->kind == RULE_FATAL;
				warn += c->findings[i].rule->kind == RULE_WARNING;
				ev += c->findings[i].rule->kind == RULE_EVIDENCE;
			}
			doc_addf(d, fatal ? ROLE_ERROR : warn ? ROLE_WARN : ROLE_DIM,
				 "static rules: %d fatal, %d warning%s, %d evidence", fatal, warn, warn == 1 ? "" : "s", ev);
			doc_newline(d);
		}
	}
}

static void draw(struct tui *t, void *self, struct rect area)
{
	struct candview *s = self;
	struct candidate *c = tui_candidate(t);
	const struct task *task = tui_task(t);
	struct rect top, bottom, in;
	struct doc d;
	char title[512];

	layout_vsplit(area, area.h - 4, 3, &top, &bottom);
	in = layout_inner(top);
	if (s->task != t->task || !c || s->version != c->version || textscreen_stale(&s->ts, in.w) ||
	    s->run != diags_for(t, c) || (s->run && s->run_diags != ((const struct compile_result *)s->run)->ndiags))
		build(t, s, in.w);
	if (t->cand_goto > 0) {
		docview_clamp(&s->ts.v, in.h);
		docview_select_tag(&s->ts.v, t->cand_goto);
		t->cand_goto = 0;
	}
	if (c && c->source) {
		int n = 0;

		for (const char *p = c->source; *p; p++)
			n += *p == '\n';
		snprintf(title, sizeof(title), "candidate%s%s%s%s%s%d lines", glyphs()->mid, task ? task->name : "",
			 glyphs()->mid, c->name ? c->name : "", glyphs()->mid, n);
	} else {
		snprintf(title, sizeof(title), "candidate%s%s", glyphs()->mid, task ? task->name : "");
	}
	textscreen_draw(&s->ts, top, title);
	doc_init(&d);
	detail(t, &d, textscreen_tag(&s->ts));
	draw_box(bottom, "diagnostics", 0);
	draw_doc(layout_inner(bottom), &d, 0, -1, 0, 0);
	doc_free(&d);
}

/* A line number past the end goes to the last line, as in vi and less. */
static void goto_accept(struct tui *t, const char *text)
{
	struct candview *s = screen_state(t, SCR_CAND);
	char *end;
	long line = strtol(text, &end, 10);
	int last = 0;

	while (*end == ' ')
		end++;
	if (!s)
		return;
	if (!*text || *end || line <= 0) {
		tui_message(t, ROLE_ERRMSG, "not a line number: '%s'", text);
		return;
	}
	for (int i = 0; i < s->ts.v.doc.n; i++)
		if (s->ts.v.doc.lines[i].tag > last)
			last = s->ts.v.doc.lines[i].tag;
	if (line > last) {
		docview_select_tag(&s->ts.v, last);
		tui_message(t, ROLE_MESSAGE, "line %ld is past the end: at the last line, %d", line, last);
		return;
	}
	docview_select_tag(&s->ts.v, (int)line);
}

/* path (expanded) gets the candidate; it is then saved: no longer a draft */
static unsigned write_apply(struct tui *t, const char *path)
{
	struct candidate *c = tui_candidate(t);

	if (!c || !c->source)
		return R_HANDLED;
	if (write_file(path, c->source, strlen(c->source)) != KBX_OK) {
		tui_message(t, ROLE_ERRMSG, "%s", kbx_last_error());
		return R_HANDLED;
	}
	free(c->path);
	c->path = xstrdup(path);
	if (c->unsaved) {
		c->unsaved = 0;
		drafts_remove(t->drafts_dir, tui_task(t)->id);
	}
	tui_message(t, ROLE_MESSAGE, "wrote '%s'", path);
	return R_HANDLED | R_REDRAW;
}

/* 1 when the file at path holds exactly text (writing it again changes nothing) */
static int same_content(const char *path, const char *text)
{
	char *old = NULL;
	size_t len;
	int same = read_file(path, &old, &len) == KBX_OK && len == strlen(text) && !memcmp(old, text, len);

	free(old);
	kbx_clear_error();
	return same;
}

static void write_accept(struct tui *t, const char *text)
{
	struct candidate *c = tui_candidate(t);
	char *path, q[400];

	if (!c || !c->source || !*text)
		return;
	path = path_expand(text);
	if (session_in_catalogue(t, path)) {
		tui_message(t, ROLE_ERRMSG, "'%s' is in the task catalogue, which the explorer never changes: write elsewhere",
			    path);
	} else if (access(path, F_OK) == 0 && !same_content(path, c->source)) {
		snprintf(q, sizeof(q), "'%s' exists: overwrite it? y overwrites, n keeps it", path);
		ask_open(t, q, write_apply, path);
	} else {
		write_apply(t, path);
	}
	free(path);
}

/* Next (dir 1) or previous (-1) line with a diagnostic or finding. */
static void next_diag(struct tui *t, struct candview *s, int dir)
{
	struct candidate *c = tui_candidate(t);
	const struct compile_result *cr = diags_for(t, c);
	int cur = textscreen_tag(&s->ts), best = -1, wrap = -1, n;

	if (!c || !c->source)
		return;
	n = (cr ? cr->ndiags : 0) + c->nfindings + 1;
	for (int i = 0; i < n; i++) {
		int l;

		if (cr && i < cr->ndiags)
			l = cr->diags[i].line;
		else if (i - (cr ? cr->ndiags : 0) < c->nfindings)
			l = c->findings[i - (cr ? cr->ndiags : 0)].line;
		else
			l = c->static_line;
		if (l <= 0)
			continue;
		/* the first one from the other end, should nothing follow in this direction */
		if (wrap < 0 || (dir > 0 ? l < wrap : l > wrap))
			wrap = l;
		if (dir > 0 ? l <= cur : l >= cur)
			continue;
		if (best < 0 || (dir > 0 ? l < best : l > best))
			best = l;
	}
	if (best < 0 && wrap < 0) {
		tui_message(t, ROLE_MESSAGE, "no diagnostic or finding");
	} else if (best < 0) {
		docview_select_tag(&s->ts.v, wrap);
		tui_message(t, ROLE_MESSAGE, "wrapped to the %s diagnostic or finding, line %d", dir > 0 ? "first" : "last", wrap);
	} else {
		docview_select_tag(&s->ts.v, best);
	}
}

static unsigned key(struct tui *t, void *self, enum action a, int k)
{
	struct candidate *c = tui_candidate(t);

	switch (a) {
	case ACT_GOTO_LINE:
		if (c && c->source)
			prompt_open(t, "go to line: ", "", 0, goto_accept, NULL, NULL);
		return R_HANDLED;
	case ACT_WRITE:
		if (!c || !c->source) {
			tui_message(t, ROLE_ERRMSG, "no candidate to write");
			return R_HANDLED;
		}
		prompt_open(t, "write to: ", c->path ? c->path : "", 1, write_accept, NULL, NULL);
		return R_HANDLED;
	case ACT_NEXT_DIAG:
	case ACT_PREV_DIAG:
		/* after a / search, n and N go through its matches, as everywhere else */
		if (find_active(t))
			return find_key(t, a == ACT_NEXT_DIAG ? ACT_FIND_NEXT : ACT_FIND_PREV);
		next_diag(t, self, a == ACT_NEXT_DIAG ? 1 : -1);
		return R_HANDLED;
	case ACT_OPEN:
		return R_HANDLED;
	default:
		return 0;
	}
}

const struct screen_ops candidate_screen = {
	.base = &textscreen_ops,
	.size = sizeof(struct candview),
	.open = init,
	.draw = draw,
	.key = key,
};
