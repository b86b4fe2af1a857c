/*
 * docview.c - scrolling and selection over a doc.
 */
#include "docview.h"

#include <string.h>

#include "draw.h"
#include "model.h"

void docview_init(struct docview *v, int selectable)
{
	memset(v, 0, sizeof(*v));
	doc_init(&v->doc);
	v->selectable = selectable;
	v->rows = 10;
}

void docview_free(struct docview *v)
{
	doc_free(&v->doc);
}

void docview_reset(struct docview *v)
{
	doc_clear(&v->doc);
}

static int tagged(const struct docview *v, int i)
{
	return i >= 0 && i < v->doc.n && v->doc.lines[i].tag >= 0;
}

static int any_tagged(const struct docview *v)
{
	for (int i = 0; i < v->doc.n; i++)
		if (v->doc.lines[i].tag >= 0)
			return 1;
	return 0;
}

/* The tagged line nearest to i in direction dir (then the other way). */
static int snap(const struct docview *v, int i, int dir)
{
	for (int k = i; k >= 0 && k < v->doc.n; k += dir)
		if (tagged(v, k))
			return k;
	for (int k = i; k >= 0 && k < v->doc.n; k -= dir)
		if (tagged(v, k))
			return k;
	return -1;
}

void docview_clamp(struct docview *v, int rows)
{
	int n = v->doc.n, maxtop;

	if (rows < 1)
		rows = 1;
	v->rows = rows;
	maxtop = n > rows ? n - rows : 0;
	if (v->selectable && any_tagged(v)) {
		struct listview lv;

		if (!tagged(v, v->sel))
			v->sel = snap(v, v->sel < 0 ? 0 : v->sel >= n ? n - 1 : v->sel, 1);
		lv.sel = v->sel;
		lv.top = v->top;
		list_clamp(&lv, n, rows);
		v->top = lv.top;
		/* while the selection fits on the first page, show that page: its headings matter */
		if (v->sel <= rows - 2)
			v->top = 0;
	} else {
		v->sel = -1;
	}
	if (v->top > maxtop)
		v->top = maxtop;
	if (v->top < 0)
		v->top = 0;
	if (v->hscroll < 0)
		v->hscroll = 0;
}

void docview_draw(struct docview *v, struct rect r, int focus)
{
	docview_clamp(v, r.h);
	draw_doc(r, &v->doc, v->top, v->selectable ? v->sel : -1, focus, v->hscroll);
}

static void scroll(struct docview *v, int delta)
{
	v->top += delta;
	docview_clamp(v, v->rows);
}

static void move_sel(struct docview *v, int delta)
{
	int target, dir = delta > 0 ? 1 : -1, k;

	if (v->sel < 0) {
		v->sel = snap(v, 0, 1);
		docview_clamp(v, v->rows);
		return;
	}
	if (delta == 1 || delta == -1) {
		for (k = v->sel + dir; k >= 0 && k < v->doc.n; k += dir) {
			if (tagged(v, k)) {
				v->sel = k;
				break;
			}
		}
		/* nothing selectable that way: still let the view show the rest */
		if (k < 0 || k >= v->doc.n)
			v->top += delta;
	} else {
		target = v->sel + delta;
		if (target < 0)
			target = 0;
		if (target >= v->doc.n)
			target = v->doc.n - 1;
		k = snap(v, target, dir);
		if (k >= 0)
			v->sel = k;
		v->top += delta;
	}
	{
		struct listview lv = { v->sel, v->top };

		list_clamp(&lv, v->doc.n, v->rows);
		v->top = lv.top;
	}
	docview_clamp(v, v->rows);
}

int docview_key(struct docview *v, enum action a)
{
	int sel = v->selectable && any_tagged(v);

	switch (a) {
	case ACT_DOWN: sel ? move_sel(v, 1) : scroll(v, 1); return 1;
	case ACT_UP: sel ? move_sel(v, -1) : scroll(v, -1); return 1;
	case ACT_PGDN: sel ? move_sel(v, v->rows - 1) : scroll(v, v->rows - 1); return 1;
	case ACT_PGUP: sel ? move_sel(v, -(v->rows - 1)) : scroll(v, -(v->rows - 1)); return 1;
	case ACT_TOP:
		v->top = 0;
		if (sel)
			v->sel = snap(v, 0, 1);
		docview_clamp(v, v->rows);
		return 1;
	case ACT_BOTTOM:
		v->top = v->doc.n;
		if (sel)
			v->sel = snap(v, v->doc.n - 1, -1);
		docview_clamp(v, v->rows);
		return 1;
	case ACT_LEFT:
		if (!v->hscrollable)
			return 0;
		v->hscroll -= 8;
		if (v->hscroll < 0)
			v->hscroll = 0;
		return 1;
	case ACT_RIGHT:
		if (!v->hscrollable)
			return 0;
		v->hscroll += 8;
		return 1;
	default:
		return 0;
	}
}

int docview_tag(const struct docview *v)
{
	return v->selectable && tagged(v, v->sel) ? v->doc.lines[v->sel].tag : -1;
}

int docview_select_tag(struct docview *v, int tag)
{
	int i = doc_find_tag(&v->doc, tag);

	if (i < 0)
		return 0;
	v->sel = i;
	{
		struct listview lv = { v->sel, v->top };

		list_clamp(&lv, v->doc.n, v->rows);
		v->top = lv.top;
	}
	return 1;
}

struct find_ctx {
	const struct docview *v;
	const struct search *s;
	int tagged_only;
};

static int line_matches(void *ctx, int i)
{
	const struct find_ctx *f = ctx;

	if (f->tagged_only && !tagged(f->v, i))
		return 0;
	return search_text(f->s, doc_text(&f->v->doc, i));
}

int docview_find(struct docview *v, const struct search *s, int dir, int again, int *wrapped)
{
	struct find_ctx f = { v, s, v->selectable && any_tagged(v) };
	int i = find_row(v->doc.n, f.tagged_only ? v->sel : v->top, dir, again, line_matches, &f, wrapped);

	if (i < 0)
		return 0;
	if (f.tagged_only) {
		struct listview lv = { i, v->top };

		v->sel = i;
		list_clamp(&lv, v->doc.n, v->rows);
		v->top = lv.top;
	} else {
		v->top = i;
		docview_clamp(v, v->rows);
	}
	return 1;
}
