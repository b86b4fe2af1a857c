/*
 * doc.c - role-tagged lines and display widths.
 */
#include "doc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "../core/util.h"

void doc_init(struct doc *d)
{
	memset(d, 0, sizeof(*d));
}

void doc_clear(struct doc *d)
{
	for (int i = 0; i < d->n; i++) {
		free(d->lines[i].text);
		free(d->lines[i].segs);
	}
	d->n = 0;
}

void doc_free(struct doc *d)
{
	doc_clear(d);
	free(d->lines);
	memset(d, 0, sizeof(*d));
}

struct doc_line *doc_newline(struct doc *d)
{
	struct doc_line *l;

	XGROW(d->lines, d->n + 1, d->cap);
	l = &d->lines[d->n++];
	memset(l, 0, sizeof(*l));
	l->text = xmalloc(16);
	l->cap = 16;
	l->text[0] = '\0';
	l->tag = -1;
	return l;
}

struct doc_line *doc_cur(struct doc *d)
{
	return d->n ? &d->lines[d->n - 1] : doc_newline(d);
}

static void put_bytes(struct doc_line *l, int role, const char *s, size_t n, int width)
{
	struct doc_seg *last = l->nsegs ? &l->segs[l->nsegs - 1] : NULL;

	if (!n)
		return;
	if (l->len + n + 1 > l->cap) {
		while (l->len + n + 1 > l->cap)
			l->cap *= 2;
		l->text = xrealloc(l->text, l->cap);
	}
	memcpy(l->text + l->len, s, n);
	if (last && last->role == role && last->off + last->len == l->len) {
		last->len += n;
	} else {
		XGROW(l->segs, l->nsegs + 1, l->segcap);
		l->segs[l->nsegs++] = (struct doc_seg){ role, l->len, n };
	}
	l->len += n;
	l->text[l->len] = '\0';
	l->width += width;
}

void doc_addn(struct doc *d, int role, const char *s, size_t n)
{
	struct doc_line *l = doc_cur(d);
	mbstate_t ps;
	size_t i = 0;

	memset(&ps, 0, sizeof(ps));
	while (i < n && s[i]) {
		unsigned char c = (unsigned char)s[i];
		wchar_t wc;
		size_t k;
		int w;

		if (c == '\t') {
			int to = l->tab0 + ((l->width - l->tab0) / 8 + 1) * 8;

			while (l->width < to)
				put_bytes(l, role, " ", 1, 1);
			i++;
			continue;
		}
		if (c < 32 || c == 127) {
			put_bytes(l, role, "?", 1, 1);
			i++;
			continue;
		}
		if (c < 128) {
			put_bytes(l, role, s + i, 1, 1);
			i++;
			continue;
		}
		k = mbrtowc(&wc, s + i, n - i, &ps);
		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			memset(&ps, 0, sizeof(ps));
			put_bytes(l, role, "?", 1, 1);
			i++;
			continue;
		}
		w = wcwidth(wc);
		if (w < 0) {
			put_bytes(l, role, "?", 1, 1);
		} else {
			put_bytes(l, role, s + i, k, w);
		}
		i += k;
	}
}

void doc_add(struct doc *d, int role, const char *s)
{
	if (s)
		doc_addn(d, role, s, strlen(s));
}

void doc_addf(struct doc *d, int role, const char *fmt, ...)
{
	char buf[512], *big = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf)) {
		big = xmalloc((size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	doc_add(d, role, big ? big : buf);
	free(big);
}

void doc_pad(struct doc *d, int role, int col)
{
	struct doc_line *l = doc_cur(d);

	while (l->width < col)
		put_bytes(l, role, " ", 1, 1);
}

void doc_addcol(struct doc *d, int role, const char *s, int width, int align_right)
{
	struct doc_line *l = doc_cur(d);
	int start = l->width, w;
	struct doc tmp;

	if (width <= 0)
		return;
	if (!s)
		s = "";
	/* sanitise into a scratch line first so the width is that of what is shown */
	doc_init(&tmp);
	doc_add(&tmp, role, s);
	w = tmp.n ? tmp.lines[0].width : 0;
	if (w <= width) {
		if (align_right)
			doc_pad(d, role, start + width - w);
		if (tmp.n)
			put_bytes(l, role, tmp.lines[0].text, tmp.lines[0].len, w);
	} else {
		const char *ell = glyphs()->ellipsis;
		int ew = text_width(ell, (size_t)-1), used;
		size_t k = text_fit(tmp.lines[0].text, tmp.lines[0].len, width - ew, &used);

		put_bytes(l, role, tmp.lines[0].text, k, used);
		put_bytes(l, role, ell, strlen(ell), ew);
	}
	doc_pad(d, role, start + width);
	doc_free(&tmp);
}

void doc_wrap(struct doc *d, int role, const char *text, int width, int indent)
{
	const char *p = text ? text : "";

	if (width - indent < 8)
		width = indent + 8;
	while (*p) {
		size_t nl = strcspn(p, "\n"), k, brk;
		int used;

		/* one paragraph line at a time */
		while (nl > 0) {
			doc_pad(d, role, indent);
			k = text_fit(p, nl, width - indent, &used);
			brk = k;
			if (k < nl) {
				/* break at the last space that fits */
				for (size_t j = k; j > 0; j--) {
					if (p[j] == ' ') {
						brk = j;
						break;
					}
				}
				if (brk == 0)
					brk = k ? k : 1;
			}
			doc_addn(d, role, p, brk);
			doc_newline(d);
			p += brk;
			nl -= brk;
			while (nl > 0 && *p == ' ') {
				p++;
				nl--;
			}
		}
		if (*p == '\n') {
			p++;
			if (!*p)
				break;
			/* an empty line in the text stays empty */
			if (*p == '\n')
				doc_newline(d);
		}
	}
}

void doc_tab_origin(struct doc *d)
{
	struct doc_line *l = doc_cur(d);

	l->tab0 = l->width;
}

void doc_tag(struct doc *d, int tag)
{
	doc_cur(d)->tag = tag;
}

int doc_find_tag(const struct doc *d, int tag)
{
	for (int i = 0; i < d->n; i++)
		if (d->lines[i].tag == tag)
			return i;
	return -1;
}

const char *doc_text(const struct doc *d, int i)
{
	return i >= 0 && i < d->n ? d->lines[i].text : "";
}

/* ---- widths ------------------------------------------------------------------------------ */

/* One character at s (at most n bytes): its length in bytes and its width. */
static size_t char_at(const char *s, size_t n, int *w)
{
	unsigned char c = (unsigned char)s[0];
	mbstate_t ps;
	wchar_t wc;
	size_t k;

	if (c < 128) {
		*w = 1;
		return 1;
	}
	memset(&ps, 0, sizeof(ps));
	k = mbrtowc(&wc, s, n, &ps);
	if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
		*w = 1;
		return 1;
	}
	*w = wcwidth(wc);
	if (*w < 0)
		*w = 1;
	return k;
}

int text_width(const char *s, size_t n)
{
	int total = 0;
	size_t i = 0;

	if (n == (size_t)-1)
		n = strlen(s);
	while (i < n && s[i]) {
		int w;

		i += char_at(s + i, n - i, &w);
		total += w;
	}
	return total;
}

size_t text_fit(const char *s, size_t n, int cols, int *used)
{
	int total = 0;
	size_t i = 0;

	if (n == (size_t)-1)
		n = strlen(s);
	while (i < n && s[i]) {
		int w;
		size_t k = char_at(s + i, n - i, &w);

		if (total + w > cols)
			break;
		total += w;
		i += k;
	}
	if (used)
		*used = total;
	return i;
}

size_t text_skip(const char *s, size_t n, int col, int *skipped)
{
	int total = 0;
	size_t i = 0;

	if (n == (size_t)-1)
		n = strlen(s);
	while (i < n && s[i] && total < col) {
		int w;

		i += char_at(s + i, n - i, &w);
		total += w;
	}
	if (skipped)
		*skipped = total;
	return i;
}

/* ---- glyphs ------------------------------------------------------------------------------ */

static const struct glyphs utf8_glyphs = {
	"\u2713", "\u2717", "\u00b7", "!", "\u2605", "\u2606", "\u2026", "\u25b6", "\u00b7",
	"\u2588", "\u2591",
	{ "\u00b7", "\u2591", "\u2592", "\u2593", "\u2588" },
	{ "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588" },
	"\u2588", " \u00b7 ",
};

static const struct glyphs ascii_glyphs = {
	"+", "x", ".", "!", "*", "-", "~", ">", ".",
	"#", "-",
	{ ".", ":", "o", "O", "#" },
	{ "_", ".", ",", "-", "=", "+", "*", "#" },
	"#", " - ",
};

static const struct glyphs *current = &utf8_glyphs;

void glyphs_set(int utf8)
{
	current = utf8 ? &utf8_glyphs : &ascii_glyphs;
}

const struct glyphs *glyphs(void)
{
	return current;
}
