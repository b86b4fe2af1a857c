/*
 * textdiff.c - line diff and its unified rendering.
 */
#include "textdiff.h"

#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "theme.h"

char **text_lines(const char *text, int *n)
{
	char **v = NULL;
	size_t cap = 0;
	const char *p = text ? text : "";
	int count = 0;

	while (*p) {
		size_t k = strcspn(p, "\n");
		size_t len = k;

		/* CRLF files: the CR is not part of the line */
		if (len && p[len - 1] == '\r')
			len--;
		XGROW(v, count + 1, cap);
		v[count++] = xstrndup(p, len);
		p += k;
		if (*p)
			p++;
	}
	*n = count;
	return v;
}

void text_lines_free(char **lines, int n)
{
	for (int i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

static void push(struct td_op **ops, int *n, size_t *cap, enum td_kind k, int a, int b)
{
	XGROW(*ops, *n + 1, *cap);
	(*ops)[(*n)++] = (struct td_op){ k, a, b };
}

int textdiff(char *const *a, int na, char *const *b, int nb, struct td_op **ops)
{
	int head = 0, tail = 0, n = 0, ma, mb;
	size_t cap = 0;

	*ops = NULL;
	while (head < na && head < nb && !strcmp(a[head], b[head]))
		head++;
	while (tail < na - head && tail < nb - head && !strcmp(a[na - 1 - tail], b[nb - 1 - tail]))
		tail++;
	for (int i = 0; i < head; i++)
		push(ops, &n, &cap, TD_SAME, i, i);
	ma = na - head - tail;
	mb = nb - head - tail;
	if (ma > 0 && mb > 0 && (long)(ma + 1) * (mb + 1) <= TEXTDIFF_MAX_CELLS) {
		/* LCS lengths of suffixes: L[i][j] for a[head+i..], b[head+j..] */
		int *L = xcalloc((size_t)(ma + 1) * (size_t)(mb + 1), sizeof(int));
		int i = 0, j = 0;

#define LCS(i, j) L[(size_t)(i) * (size_t)(mb + 1) + (size_t)(j)]
		for (int x = ma - 1; x >= 0; x--)
			for (int y = mb - 1; y >= 0; y--)
				LCS(x, y) = !strcmp(a[head + x], b[head + y]) ? LCS(x + 1, y + 1) + 1
				    : (LCS(x + 1, y) >= LCS(x, y + 1) ? LCS(x + 1, y) : LCS(x, y + 1));
		while (i < ma && j < mb) {
			if (!strcmp(a[head + i], b[head + j])) {
				push(ops, &n, &cap, TD_SAME, head + i, head + j);
				i++;
				j++;
			} else if (LCS(i + 1, j) >= LCS(i, j + 1)) {
				push(ops, &n, &cap, TD_DEL, head + i, -1);
				i++;
			} else {
				push(ops, &n, &cap, TD_ADD, -1, head + j);
				j++;
			}
		}
#undef LCS
		for (; i < ma; i++)
			push(ops, &n, &cap, TD_DEL, head + i, -1);
		for (; j < mb; j++)
			push(ops, &n, &cap, TD_ADD, -1, head + j);
		free(L);
	} else {
		for (int i = 0; i < ma; i++)
			push(ops, &n, &cap, TD_DEL, head + i, -1);
		for (int j = 0; j < mb; j++)
			push(ops, &n, &cap, TD_ADD, -1, head + j);
	}
	for (int i = 0; i < tail; i++)
		push(ops, &n, &cap, TD_SAME, na - tail + i, nb - tail + i);
	return n;
}

void textdiff_stat(const struct td_op *ops, int n, int *added, int *deleted)
{
	*added = *deleted = 0;
	for (int i = 0; i < n; i++) {
		if (ops[i].kind == TD_ADD)
			(*added)++;
		else if (ops[i].kind == TD_DEL)
			(*deleted)++;
	}
}

void textdiff_doc(struct doc *d, const char *old_text, const char *new_text, int context)
{
	int na, nb, nops, i = 0;
	char **a = text_lines(old_text, &na), **b = text_lines(new_text, &nb);
	struct td_op *ops;

	nops = textdiff(a, na, b, nb, &ops);
	while (i < nops) {
		int start, end, old_start = -1, new_start = -1, old_count = 0, new_count = 0;

		while (i < nops && ops[i].kind == TD_SAME)
			i++;
		if (i >= nops)
			break;
		/* a hunk: from context lines before this change to context lines after the last
		 * change that is at most 2 * context lines away */
		start = i - context < 0 ? 0 : i - context;
		end = i;
		for (;;) {
			int j = end, k;

			while (j < nops && ops[j].kind != TD_SAME)
				j++;
			end = j;
			k = j;
			while (k < nops && ops[k].kind == TD_SAME)
				k++;
			/* the next change is close enough that the two hunks would touch: one hunk */
			if (k < nops && k - j <= 2 * context) {
				end = k;
				continue;
			}
			break;
		}
		end = end + context > nops ? nops : end + context;
		for (int k = start; k < end; k++) {
			if (ops[k].a >= 0) {
				if (old_start < 0)
					old_start = ops[k].a;
				old_count++;
			}
			if (ops[k].b >= 0) {
				if (new_start < 0)
					new_start = ops[k].b;
				new_count++;
			}
		}
		doc_addf(d, ROLE_DIFF_HUNK, "@@ -%d,%d +%d,%d @@", old_start < 0 ? 0 : old_start + 1, old_count,
			 new_start < 0 ? 0 : new_start + 1, new_count);
		doc_newline(d);
		for (int k = start; k < end; k++) {
			switch (ops[k].kind) {
			case TD_SAME:
				doc_add(d, ROLE_CODE, " ");
				doc_tab_origin(d);
				doc_add(d, ROLE_CODE, a[ops[k].a]);
				break;
			case TD_DEL:
				doc_add(d, ROLE_DIFF_DEL, "-");
				doc_tab_origin(d);
				doc_add(d, ROLE_DIFF_DEL, a[ops[k].a]);
				break;
			case TD_ADD:
				doc_add(d, ROLE_DIFF_ADD, "+");
				doc_tab_origin(d);
				doc_add(d, ROLE_DIFF_ADD, b[ops[k].b]);
				break;
			}
			doc_newline(d);
		}
		i = end;
	}
	{
		int added, deleted;

		textdiff_stat(ops, nops, &added, &deleted);
		if (!added && !deleted) {
			doc_add(d, ROLE_DIM, "no changes: the two sources are the same");
			doc_newline(d);
		}
	}
	free(ops);
	text_lines_free(a, na);
	text_lines_free(b, nb);
}
