/*
 * layout.h - the explorer's arithmetic, kept apart from curses so it can be tested: rectangles
 * and pane splits, list scrolling, the minimum terminal size, and the small pictures made of
 * characters (sparklines, bars, heatmap cells) together with number and time formats.
 */
#ifndef KBX_TUI_LAYOUT_H
#define KBX_TUI_LAYOUT_H

#include <stddef.h>

#define TUI_MIN_COLS 60
#define TUI_MIN_ROWS 20

struct rect {
	int y, x, h, w;
};

/* 1 when a terminal of cols x rows is large enough. */
int layout_big_enough(int cols, int rows);
/* The screen's parts: top bar, content, bottom bar. */
void layout_frame(int cols, int rows, struct rect *top, struct rect *body, struct rect *bottom);
/* Split r side by side: the left part gets `left` columns (clamped so that each side keeps at
 * least min columns when possible). */
void layout_hsplit(struct rect r, int left, int min, struct rect *a, struct rect *b);
/* Split r one above the other: the top part gets `top` rows (clamped likewise). */
void layout_vsplit(struct rect r, int top, int min, struct rect *a, struct rect *b);
/* The inside of a box drawn on r's border. */
struct rect layout_inner(struct rect r);

/* A scrolling list: a selection and the first visible row. */
struct listview {
	int sel, top;
};
/* Keep sel in [0, n) and visible in `rows` rows (with a little context when possible). */
void list_clamp(struct listview *lv, int n, int rows);
/* Move by delta rows (page moves pass +-rows); returns 1 when the selection changed. */
int list_move(struct listview *lv, int delta, int n, int rows);

/* Sparkline of n values in [0, 1] (< 0: no data, shown as a space) into buf; levels from the
 * current glyphs. */
void layout_sparkline(const double *v, int n, char *buf, size_t len);
/* How many of a progress bar's width cells to fill for done of total (at least one once
 * anything is done, all only when everything is). */
int layout_bar_cells(double done, double total, int width);

/* Heat level 0..4 of a score (|err| / tolerance): 0 exact, 1 below 0.1, 2 below 1 (inside
 * tolerance), 3 below 10, 4 from 10 on, NaN and Inf. */
int layout_heat_level(double score);
/* Heat level 0..4 of a score relative to the worst one: 0 for 0, then below 1%, 10%, 50% of it,
 * and from 50% on (NaN and Inf: 4). */
int layout_heat_relative(double score, double worst);
/* Resample a rows x cols map of scores to out_rows x out_cols cells, each cell the maximum of
 * the tiles it covers (a tile too small to see still shows its worst). Returns the cells written
 * (out_rows x out_cols, both clamped to the map's own size). */
void layout_heat_resample(const float *tiles, int rows, int cols, int out_rows, int out_cols, float *out,
			  int *got_rows, int *got_cols);

/* Histogram of log10(values) over decades: bins[i] counts values in [10^(lo+i), 10^(lo+i+1));
 * zeros go to *zeros, non-finite values to *nonfinite. Returns nbins used (lo chosen from the
 * data, at most maxbins). */
int layout_log_histogram(const double *v, int n, int *bins, int maxbins, int *lo, int *zeros, int *nonfinite);

/* Formats. */
/* "now", "42s ago", "5m ago", "3h ago", "2d ago", "6w ago", "1y ago"; "" when at <= 0. */
void fmt_ago(double now, double at, char *buf, size_t len);
/* Seconds as "0.8s", "12s", "2m05s". */
void fmt_elapsed(double s, char *buf, size_t len);
/* "1.42x"; the dash when v < 0. */
void fmt_speedup(double v, char *buf, size_t len);
/* A number in 4 significant digits or fewer and at most 8 characters (9 when negative):
 * "0.3125", "1.97e+04"; "nan", "inf"; a dash for a negative value when absent_if_negative
 * (the "not available" sentinel of timings and throughputs). */
void fmt_num(double v, int absent_if_negative, char *buf, size_t len);
/* "1,204". */
void fmt_count(long long n, char *buf, size_t len);
/* "★★☆☆☆" from the current glyphs. */
void fmt_stars(int difficulty, char *buf, size_t len);

#endif
