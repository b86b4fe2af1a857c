/*
 * textdiff.h - a line diff of two sources, for comparing two attempts.
 *
 * Common head and tail lines are matched first; the middle is diffed with a longest common
 * subsequence when it is small enough (up to TEXTDIFF_MAX_CELLS), else shown as replaced
 * whole. textdiff_doc renders the result as a unified diff with context, coloured.
 */
#ifndef KBX_TUI_TEXTDIFF_H
#define KBX_TUI_TEXTDIFF_H

#include "doc.h"

#define TEXTDIFF_MAX_CELLS (4L * 1000 * 1000)

enum td_kind { TD_SAME, TD_DEL, TD_ADD };

struct td_op {
	enum td_kind kind;
	int a, b;               /* line index in the old / new text; -1 for an add / a delete */
};

/* Split text into lines (a final newline does not make an empty last line). */
char **text_lines(const char *text, int *n);
void text_lines_free(char **lines, int n);

/* Edit script from a to b; returns the count of ops (caller frees *ops). */
int textdiff(char *const *a, int na, char *const *b, int nb, struct td_op **ops);
/* Count of added and deleted lines. */
void textdiff_stat(const struct td_op *ops, int n, int *added, int *deleted);

/* Unified diff of old and new with `context` lines around changes: hunk headers, '-' and '+'
 * lines in their roles. Says "no changes" when there are none. */
void textdiff_doc(struct doc *d, const char *old_text, const char *new_text, int context);

#endif
