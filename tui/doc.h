/*
 * doc.h - text tagged with colour roles: what the explorer's model code produces and draw.c
 * renders (htop's RichString, tig's typed lines).
 *
 * A doc is a list of lines; each line is UTF-8 text cut into segments, each with a colour role
 * (theme.h). A line also carries a tag for the screen's own use (-1 by default): the source line
 * it shows, the case it stands for; selectable lines are the ones with tag >= 0.
 *
 *     doc_addf(d, ROLE_LABEL, "%-10s", "tolerance");
 *     doc_add(d, ROLE_NUMBER, "1e-05");
 *     doc_newline(d);
 *
 * Widths are display columns (wcwidth in the current locale), so tables line up with ★ and ✓.
 */
#ifndef KBX_TUI_DOC_H
#define KBX_TUI_DOC_H

#include <stddef.h>

#include "../core/status.h"

struct doc_seg {
	int role;
	size_t off, len;        /* bytes into the line's text */
};

struct doc_line {
	char *text;
	size_t len, cap;
	struct doc_seg *segs;
	int nsegs, segcap;
	int tag;
	int width;              /* display columns, kept up to date */
	int tab0;               /* column where tab stops start counting (after a line number) */
};

struct doc {
	struct doc_line *lines;
	int n, cap;
};

void doc_init(struct doc *d);
void doc_free(struct doc *d);
void doc_clear(struct doc *d);

/* Start a new (empty) line; returns it. */
struct doc_line *doc_newline(struct doc *d);
/* The line being written (a new one when the doc is empty). */
struct doc_line *doc_cur(struct doc *d);
/* Append to the current line. Control characters are shown as '?' (tabs as spaces to the next
 * multiple of 8), invalid UTF-8 as U+FFFD or '?', so nothing reaches the terminal raw. */
void doc_add(struct doc *d, int role, const char *s);
void doc_addn(struct doc *d, int role, const char *s, size_t n);
void doc_addf(struct doc *d, int role, const char *fmt, ...) KBX_PRINTF(3, 4);
/* s in exactly `width` columns: cut with an ellipsis when too long, padded (right-aligned when
 * align_right) when short. */
void doc_addcol(struct doc *d, int role, const char *s, int width, int align_right);
/* Pad the current line with spaces up to column col. */
void doc_pad(struct doc *d, int role, int col);
/* Add text wrapped at width columns (words kept whole where possible), each line prefixed by
 * indent spaces, ending with a newline. */
void doc_wrap(struct doc *d, int role, const char *text, int width, int indent);
/* Tab stops of the current line count from its present width on (call after a prefix such as
 * a line number, so that the text's own tabs line up). */
void doc_tab_origin(struct doc *d);
/* The current line's tag. */
void doc_tag(struct doc *d, int tag);
/* Index of the first line with this tag, or -1. */
int doc_find_tag(const struct doc *d, int tag);
/* Plain text of a line (for tests and searches). */
const char *doc_text(const struct doc *d, int i);

/* ---- display width of UTF-8 text --------------------------------------------------------- */

/* Columns of s[0..n) (n = (size_t)-1: up to the NUL). Unprintable characters count 1. */
int text_width(const char *s, size_t n);
/* Bytes of s[0..n) that fit in cols columns, never splitting a character; *used gets their
 * width (may be NULL). */
size_t text_fit(const char *s, size_t n, int cols, int *used);
/* Byte offset where column col starts (for horizontal scrolling); *skipped gets the columns
 * actually skipped (a wide character straddling col is skipped whole). */
size_t text_skip(const char *s, size_t n, int col, int *skipped);

/* Glyphs with ASCII fallbacks: call glyphs_set(0) for a non-UTF-8 locale. */
struct glyphs {
	const char *pass, *fail, *untried, *err, *star, *star_empty, *ellipsis, *arrow, *dot;
	const char *bar_full, *bar_empty;
	const char *heat[5];    /* exact .. far outside tolerance */
	const char *spark[8];   /* lowest .. highest */
	const char *hist;       /* a histogram bar cell */
	const char *mid;        /* separator in titles " · " */
};
void glyphs_set(int utf8);
const struct glyphs *glyphs(void);

#endif
