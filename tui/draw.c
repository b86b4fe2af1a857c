/*
 * draw.c - roles to curses attributes, and text, boxes and docs on the screen.
 */
#define NCURSES_WIDECHAR 1
#include "draw.h"

#include <curses.h>
#include <string.h>

static attr_t role_attr[ROLE_COUNT];
static short role_pair[ROLE_COUNT];

static attr_t to_curses(unsigned a)
{
	attr_t r = 0;

	if (a & TA_BOLD)
		r |= A_BOLD;
	if (a & TA_DIM)
		r |= A_DIM;
	if (a & TA_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & TA_REVERSE)
		r |= A_REVERSE;
	if (a & TA_STANDOUT)
		r |= A_STANDOUT;
#ifdef A_ITALIC
	if (a & TA_ITALIC)
		r |= A_ITALIC;
#endif
	return r;
}

int draw_apply_theme(const struct theme *th, int no_color)
{
	static int started;
	int color, defaults = 1;

	/* COLORS and COLOR_PAIRS are known only after start_color */
	if (!started && !no_color && has_colors()) {
		start_color();
		started = 1;
	}
	color = started && !no_color && th->color && COLORS >= 8 && COLOR_PAIRS > ROLE_COUNT;
	if (color)
		defaults = use_default_colors() == OK;
	for (int r = 0; r < ROLE_COUNT; r++) {
		unsigned attrs = th->roles[r].attrs;

		if (!color) {
			/* without colour a theme's explicit attributes (the mono theme) win; otherwise
			 * the role's own contrast-keeping attributes */
			attrs = (!th->color && th->set[r]) ? th->roles[r].attrs : role_mono_attrs(r);
			role_pair[r] = 0;
			role_attr[r] = to_curses(attrs);
			continue;
		}
		{
			int fg = theme_color_fallback(th->roles[r].fg, COLORS, 1, &attrs);
			int bg = theme_color_fallback(th->roles[r].bg, COLORS, 0, NULL);

			if (!defaults) {
				if (fg < 0)
					fg = COLOR_WHITE;
				if (bg < 0)
					bg = COLOR_BLACK;
			}
			init_pair((short)(r + 1), (short)fg, (short)bg);
			role_pair[r] = (short)(r + 1);
			role_attr[r] = to_curses(attrs);
		}
	}
	return color;
}

void draw_size(int *cols, int *rows)
{
	getmaxyx(stdscr, *rows, *cols);
}

static void set_role(int role)
{
	if (role < 0 || role >= ROLE_COUNT)
		role = ROLE_NORMAL;
	attrset(role_attr[role] | COLOR_PAIR(role_pair[role]));
}

void draw_fill(struct rect r, int role)
{
	set_role(role);
	for (int y = 0; y < r.h; y++) {
		move(r.y + y, r.x);
		for (int x = 0; x < r.w; x++)
			addch(' ');
	}
}

/* Put n bytes of UTF-8 (already sanitised by doc.c, or plain) at the cursor. */
static void put(const char *s, size_t n)
{
	if (n)
		addnstr(s, (int)n);
}

int draw_text(int y, int x, int maxw, int role, const char *s)
{
	struct doc d;
	int used = 0;

	if (maxw <= 0 || !s)
		return 0;
	/* through a doc line so that control characters never reach the terminal */
	doc_init(&d);
	doc_add(&d, role, s);
	if (d.n) {
		size_t k = text_fit(d.lines[0].text, d.lines[0].len, maxw, &used);

		set_role(role);
		move(y, x);
		put(d.lines[0].text, k);
	}
	doc_free(&d);
	return used;
}

void draw_doc_line(int y, int x, int w, const struct doc_line *l, int hscroll, int sel_role)
{
	int col = 0, skipped_total = 0;

	move(y, x);
	if (l) {
		for (int i = 0; i < l->nsegs && col < w; i++) {
			const struct doc_seg *sg = &l->segs[i];
			const char *s = l->text + sg->off;
			size_t n = sg->len;
			int segw = text_width(s, n), used;
			size_t k;

			/* skip what is scrolled away on the left */
			if (skipped_total + segw <= hscroll) {
				skipped_total += segw;
				continue;
			}
			if (skipped_total < hscroll) {
				int sk;
				size_t off = text_skip(s, n, hscroll - skipped_total, &sk);

				s += off;
				n -= off;
				skipped_total += sk;
				/* a wide character straddling the edge leaves a gap */
				set_role(sel_role >= 0 ? sel_role : sg->role);
				while (skipped_total > hscroll && col < w) {
					addch(' ');
					col++;
					skipped_total--;
				}
				skipped_total = hscroll;
			}
			k = text_fit(s, n, w - col, &used);
			set_role(sel_role >= 0 ? sel_role : sg->role);
			put(s, k);
			col += used;
		}
	}
	set_role(sel_role >= 0 ? sel_role : ROLE_NORMAL);
	while (col < w) {
		addch(' ');
		col++;
	}
}

void draw_doc(struct rect r, const struct doc *d, int top, int sel, int focus, int hscroll)
{
	for (int i = 0; i < r.h; i++) {
		int k = top + i;
		const struct doc_line *l = k >= 0 && k < d->n ? &d->lines[k] : NULL;
		int sr = -1;

		if (l && k == sel)
			sr = focus ? ROLE_SELECT : ROLE_SELECT_DIM;
		draw_doc_line(r.y + i, r.x, r.w, l, hscroll, sr);
	}
}

void draw_box(struct rect r, const char *title, int focus)
{
	int role = focus ? ROLE_BORDER_FOCUS : ROLE_BORDER;

	if (r.h < 2 || r.w < 2)
		return;
	set_role(role);
	mvaddch(r.y, r.x, ACS_ULCORNER);
	mvhline(r.y, r.x + 1, ACS_HLINE, r.w - 2);
	mvaddch(r.y, r.x + r.w - 1, ACS_URCORNER);
	mvvline(r.y + 1, r.x, ACS_VLINE, r.h - 2);
	mvvline(r.y + 1, r.x + r.w - 1, ACS_VLINE, r.h - 2);
	mvaddch(r.y + r.h - 1, r.x, ACS_LLCORNER);
	mvhline(r.y + r.h - 1, r.x + 1, ACS_HLINE, r.w - 2);
	mvaddch(r.y + r.h - 1, r.x + r.w - 1, ACS_LRCORNER);
	if (title && *title && r.w > 6) {
		int used;

		set_role(role);
		mvaddch(r.y, r.x + 1, ' ');
		used = draw_text(r.y, r.x + 2, r.w - 5, focus ? ROLE_BORDER_FOCUS : ROLE_HEADING, title);
		set_role(role);
		mvaddch(r.y, r.x + 2 + used, ' ');
	}
}

void draw_cursor(int y, int x)
{
	if (y < 0) {
		curs_set(0);
		return;
	}
	move(y, x);
	curs_set(1);
}

void draw_invalidate(void)
{
	clearok(curscr, TRUE);
}
