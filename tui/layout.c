/*
 * layout.c - rectangles, scrolling, character pictures and formats.
 */
#include "layout.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "doc.h"

int layout_big_enough(int cols, int rows)
{
	return cols >= TUI_MIN_COLS && rows >= TUI_MIN_ROWS;
}

void layout_frame(int cols, int rows, struct rect *top, struct rect *body, struct rect *bottom)
{
	*top = (struct rect){ 0, 0, 1, cols };
	*bottom = (struct rect){ rows - 1, 0, 1, cols };
	*body = (struct rect){ 1, 0, rows > 2 ? rows - 2 : 0, cols };
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void layout_hsplit(struct rect r, int left, int min, struct rect *a, struct rect *b)
{
	if (r.w >= 2 * min)
		left = clampi(left, min, r.w - min);
	else
		left = clampi(left, 0, r.w);
	*a = (struct rect){ r.y, r.x, r.h, left };
	*b = (struct rect){ r.y, r.x + left, r.h, r.w - left };
}

void layout_vsplit(struct rect r, int top, int min, struct rect *a, struct rect *b)
{
	if (r.h >= 2 * min)
		top = clampi(top, min, r.h - min);
	else
		top = clampi(top, 0, r.h);
	*a = (struct rect){ r.y, r.x, top, r.w };
	*b = (struct rect){ r.y + top, r.x, r.h - top, r.w };
}

struct rect layout_inner(struct rect r)
{
	struct rect in = { r.y + 1, r.x + 1, r.h - 2, r.w - 2 };

	if (in.h < 0)
		in.h = 0;
	if (in.w < 0)
		in.w = 0;
	return in;
}

void list_clamp(struct listview *lv, int n, int rows)
{
	int ctx;

	if (n <= 0) {
		lv->sel = lv->top = 0;
		return;
	}
	if (rows < 1)
		rows = 1;
	lv->sel = clampi(lv->sel, 0, n - 1);
	/* keep a row or two of context above and below the selection when there is room */
	ctx = rows >= 8 ? 2 : rows >= 4 ? 1 : 0;
	if (lv->sel < lv->top + ctx)
		lv->top = lv->sel - ctx;
	if (lv->sel > lv->top + rows - 1 - ctx)
		lv->top = lv->sel - rows + 1 + ctx;
	lv->top = clampi(lv->top, 0, n > rows ? n - rows : 0);
}

int list_move(struct listview *lv, int delta, int n, int rows)
{
	int old = lv->sel;

	if (n <= 0)
		return 0;
	lv->sel = clampi(lv->sel + delta, 0, n - 1);
	list_clamp(lv, n, rows);
	return lv->sel != old;
}

void layout_sparkline(const double *v, int n, char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		const char *g;
		size_t gl;

		if (!(v[i] >= 0)) {
			g = " ";
		} else {
			int level = (int)(v[i] * 7.0 + 0.5);

			g = glyphs()->spark[clampi(level, 0, 7)];
		}
		gl = strlen(g);
		if (off + gl + 1 > len)
			break;
		memcpy(buf + off, g, gl);
		off += gl;
		buf[off] = '\0';
	}
}

int layout_bar_cells(double done, double total, int width)
{
	double f;

	if (width <= 0 || !(total > 0))
		return 0;
	f = done / total;
	if (!(f > 0))
		return 0;
	if (f >= 1)
		return width;
	/* something done shows at least one cell; not everything done never shows full */
	return clampi((int)(f * width), 1, width - 1);
}

int layout_heat_level(double score)
{
	if (isnan(score) || isinf(score) || score >= 10)
		return 4;
	if (score <= 0)
		return 0;
	if (score < 0.1)
		return 1;
	if (score < 1)
		return 2;
	return 3;
}

int layout_heat_relative(double score, double worst)
{
	double f;

	if (isnan(score) || isinf(score))
		return 4;
	if (score <= 0 || !(worst > 0))
		return 0;
	f = score / worst;
	if (f < 0.01)
		return 1;
	if (f < 0.1)
		return 2;
	if (f < 0.5)
		return 3;
	return 4;
}

static float worse(float a, float b)
{
	/* NaN is the worst of all */
	if (isnan(a) || isnan(b))
		return NAN;
	return a > b ? a : b;
}

void layout_heat_resample(const float *tiles, int rows, int cols, int out_rows, int out_cols, float *out,
			  int *got_rows, int *got_cols)
{
	if (out_rows > rows)
		out_rows = rows;
	if (out_cols > cols)
		out_cols = cols;
	if (out_rows < 0)
		out_rows = 0;
	if (out_cols < 0)
		out_cols = 0;
	*got_rows = out_rows;
	*got_cols = out_cols;
	for (int r = 0; r < out_rows; r++) {
		int r0 = r * rows / out_rows, r1 = (r + 1) * rows / out_rows;

		for (int c = 0; c < out_cols; c++) {
			int c0 = c * cols / out_cols, c1 = (c + 1) * cols / out_cols;
			float m = 0;

			for (int i = r0; i < r1; i++)
				for (int j = c0; j < c1; j++)
					m = worse(m, tiles[i * cols + j]);
			out[r * out_cols + c] = m;
		}
	}
}

int layout_log_histogram(const double *v, int n, int *bins, int maxbins, int *lo, int *zeros, int *nonfinite)
{
	int mn = 0, mx = 0, any = 0, nb;

	*zeros = *nonfinite = 0;
	*lo = 0;
	for (int i = 0; i < n; i++) {
		double a = fabs(v[i]);
		int e;

		if (!isfinite(a) || a == 0)
			continue;
		e = (int)floor(log10(a));
		if (!any || e < mn)
			mn = e;
		if (!any || e > mx)
			mx = e;
		any = 1;
	}
	if (maxbins <= 0)
		return 0;
	nb = any ? mx - mn + 1 : 0;
	if (nb > maxbins) {
		/* keep the largest errors: they matter most */
		mn = mx - maxbins + 1;
		nb = maxbins;
	}
	memset(bins, 0, sizeof(*bins) * (size_t)maxbins);
	*lo = mn;
	for (int i = 0; i < n; i++) {
		double a = fabs(v[i]);
		int e;

		if (!isfinite(a)) {
			(*nonfinite)++;
			continue;
		}
		if (a == 0) {
			(*zeros)++;
			continue;
		}
		e = (int)floor(log10(a)) - mn;
		bins[clampi(e, 0, nb - 1)]++;
	}
	return nb;
}

void fmt_ago(double now, double at, char *buf, size_t len)
{
	double d = now - at;

	if (at <= 0)
		snprintf(buf, len, "%s", "");
	else if (d < 5)
		snprintf(buf, len, "now");
	else if (d < 60)
		snprintf(buf, len, "%.0fs ago", d);
	else if (d < 3600)
		snprintf(buf, len, "%.0fm ago", floor(d / 60));
	else if (d < 86400)
		snprintf(buf, len, "%.0fh ago", floor(d / 3600));
	else if (d < 14 * 86400)
		snprintf(buf, len, "%.0fd ago", floor(d / 86400));
	else if (d < 365 * 86400)
		snprintf(buf, len, "%.0fw ago", floor(d / (7 * 86400)));
	else
		snprintf(buf, len, "%.0fy ago", floor(d / (365 * 86400)));
}

void fmt_elapsed(double s, char *buf, size_t len)
{
	if (s < 0)
		s = 0;
	if (s < 10)
		snprintf(buf, len, "%.1fs", s);
	else if (s < 60)
		snprintf(buf, len, "%.0fs", floor(s));
	else
		snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
}

void fmt_speedup(double v, char *buf, size_t len)
{
	if (!(v >= 0) || isinf(v))
		snprintf(buf, len, "%s", isinf(v) && v > 0 ? "inf" : "-");
	else if (v >= 100)
		snprintf(buf, len, "%.0fx", v);
	else
		snprintf(buf, len, "%.2fx", v);
}

void fmt_num(double v, int absent_if_negative, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "nan");
	else if (isinf(v))
		snprintf(buf, len, "%s", v > 0 ? "inf" : "-inf");
	else if (absent_if_negative && v < 0)
		snprintf(buf, len, "-");
	else if (v == 0)
		snprintf(buf, len, "0");
	else if (fabs(v) >= 1e4 || fabs(v) < 1e-3)
		snprintf(buf, len, "%.2e", v);
	else
		snprintf(buf, len, "%.4g", v);
}

void fmt_count(long long n, char *buf, size_t len)
{
	char tmp[32];
	int l, o = 0, neg = n < 0;
	unsigned long long u = neg ? 0ULL - (unsigned long long)n : (unsigned long long)n;

	l = snprintf(tmp, sizeof(tmp), "%llu", u);
	if (!len)
		return;
	if (neg && (size_t)o + 1 < len)
		buf[o++] = '-';
	for (int i = 0; i < l && (size_t)o + 1 < len; i++) {
		if (i && (l - i) % 3 == 0 && (size_t)o + 2 < len)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
}

void fmt_stars(int difficulty, char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (int i = 1; i <= 5; i++) {
		const char *g = i <= difficulty ? glyphs()->star : glyphs()->star_empty;
		size_t gl = strlen(g);

		if (off + gl + 1 > len)
			break;
		memcpy(buf + off, g, gl);
		off += gl;
		buf[off] = '\0';
	}
}
