#include "launch.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "util.h"

/*
 * A directive line is scanned left to right: small anchored PCRE2 patterns recognise the
 * tokens (the directive prefix, names, `dim3(`, casts, the flags), and a bracket-aware
 * scanner finds the ends of `<<<...>>>`, the argument list and shapes, and splits them at
 * top-level commas, so that `cdiv(n, 256)` stays one expression. Every failure knows its
 * column; expressions are checked for syntax with expr_check() and kept as text.
 */

struct patterns {
	pcre2_code *directive; /* the start of a `// @kbx` line */
	pcre2_code *ident;     /* a C identifier */
	pcre2_code *call;      /* NAME ( */
	pcre2_match_data *md;
};

struct line_parser {
	const char *path;
	int lineno;
	const char *line; /* one line, NUL-terminated, without its newline */
	size_t len;
	struct patterns *re;
	const struct kernel_spec *spec; /* what the lines above declared */
};

/* A [start, end) slice of the line. */
struct span {
	size_t start, end;
};

#define MAX_PIECES 64

static const char directive_help[] = "launch, scratch or expect";
/* Lines kbx reads past: what a candidate is expected to get, for the tests that run examples and
 * the adversarial corpus (tests/adversarial/README.md: task, because, args, speedup_below, reports). */
static const char *const metadata_words[] = { "expect", "perf_expect", "task", "because", "args", "speedup_below",
						 "reports" };

static enum kbx_status compile_patterns(struct patterns *re)
{
	static const struct {
		size_t offset;
		const char *pattern;
		uint32_t options;
	} table[] = {
		{ offsetof(struct patterns, directive), "^[ \\t]*//[ \\t]*@kbx", 0 },
		{ offsetof(struct patterns, ident), "[A-Za-z_][A-Za-z0-9_]*", PCRE2_ANCHORED },
		{ offsetof(struct patterns, call), "([A-Za-z_][A-Za-z0-9_]*)[ \\t]*\\(", PCRE2_ANCHORED },
	};
	size_t i;

	memset(re, 0, sizeof(*re));
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		pcre2_code **slot = (pcre2_code **)((char *)re + table[i].offset);
		PCRE2_SIZE erroff;
		int errcode;

		*slot = pcre2_compile((PCRE2_SPTR)table[i].pattern, PCRE2_ZERO_TERMINATED, table[i].options, &errcode,
				      &erroff, NULL);
		if (!*slot) {
			PCRE2_UCHAR msg[256];

			pcre2_get_error_message(errcode, msg, sizeof(msg));
			return kbx_error(KBX_EINVAL, "cannot compile pattern '%s': %s", table[i].pattern, (char *)msg);
		}
	}
	re->md = pcre2_match_data_create(4, NULL);
	if (!re->md)
		return kbx_error(KBX_ENOMEM, "cannot allocate PCRE2 match data");
	return KBX_OK;
}

static void free_patterns(struct patterns *re)
{
	pcre2_code_free(re->directive);
	pcre2_code_free(re->ident);
	pcre2_code_free(re->call);
	pcre2_match_data_free(re->md);
}

/* Length of the match of `code` at pos (0 when it does not match there); group 1 in *g1. */
static size_t match_at(const struct line_parser *lp, pcre2_code *code, size_t pos, struct span *g1)
{
	PCRE2_SIZE *ov;
	int rc;

	rc = pcre2_match(code, (PCRE2_SPTR)lp->line, lp->len, pos, 0, lp->re->md, NULL);
	if (rc < 0)
		return 0;
	ov = pcre2_get_ovector_pointer(lp->re->md);
	if (g1 && rc > 1) {
		g1->start = ov[2];
		g1->end = ov[3];
	}
	return ov[1] - ov[0];
}

static enum kbx_status line_error(const struct line_parser *lp, size_t pos, const char *fmt, ...) KBX_PRINTF(3, 4);

static enum kbx_status line_error(const struct line_parser *lp, size_t pos, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return kbx_error(KBX_EPARSE, "'%s' line %d column %zu: %s", lp->path, lp->lineno, pos + 1, msg);
}

/* What stands at pos, for "but found ...". */
static void describe(const struct line_parser *lp, size_t pos, char *buf, size_t size)
{
	unsigned char c;
	size_t n;

	if (pos >= lp->len) {
		snprintf(buf, size, "the end of the line");
		return;
	}
	c = (unsigned char)lp->line[pos];
	n = match_at(lp, lp->re->ident, pos, NULL);
	if (n) {
		snprintf(buf, size, "'%.*s'", (int)(n > 32 ? 32 : n), lp->line + pos);
	} else if (c < 0x20 || c >= 0x7f) {
		snprintf(buf, size, "byte 0x%02x", c);
	} else {
		snprintf(buf, size, "'%c'", c);
	}
}

static enum kbx_status expected(const struct line_parser *lp, size_t pos, const char *what)
{
	char found[64];

	describe(lp, pos, found, sizeof(found));
	return line_error(lp, pos, "expected %s but found %s", what, found);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static size_t skip_blank(const struct line_parser *lp, size_t pos)
{
	while (pos < lp->len && is_blank(lp->line[pos]))
		pos++;
	return pos;
}

static struct span trim(const struct line_parser *lp, struct span s)
{
	while (s.start < s.end && is_blank(lp->line[s.start]))
		s.start++;
	while (s.end > s.start && is_blank(lp->line[s.end - 1]))
		s.end--;
	return s;
}

static char *span_dup(const struct line_parser *lp, struct span s)
{
	return xstrndup(lp->line + s.start, s.end - s.start);
}

/*
 * Scan from `pos` for `stop` (a string) outside any brackets, checking that ( ) and [ ] nest.
 * With stop == NULL, scan to the end of the line. Sets *at to where stop begins.
 */
static enum kbx_status scan_to(const struct line_parser *lp, size_t pos, const char *stop, const char *what,
			       size_t *at)
{
	size_t open_at[64];
	char open_ch[64];
	int depth = 0;
	size_t stop_len = stop ? strlen(stop) : 0;

	for (; pos < lp->len; pos++) {
		char c = lp->line[pos];

		if (depth == 0 && stop && strncmp(lp->line + pos, stop, stop_len) == 0) {
			*at = pos;
			return KBX_OK;
		}
		if (c == '(' || c == '[') {
			if (depth == (int)(sizeof(open_at) / sizeof(open_at[0])))
				return line_error(lp, pos, "brackets nested too deeply");
			open_at[depth] = pos;
			open_ch[depth++] = c;
		} else if (c == ')' || c == ']') {
			char want = c == ')' ? '(' : '[';

			if (depth == 0) {
				if (stop)
					return line_error(lp, pos, "unbalanced '%c' (expected %s)", c, what);
				return line_error(lp, pos, "unbalanced '%c'", c);
			}
			if (open_ch[depth - 1] != want)
				return line_error(lp, pos, "'%c' closes the '%c' at column %zu", c, open_ch[depth - 1],
						  open_at[depth - 1] + 1);
			depth--;
		}
	}
	if (depth > 0)
		return line_error(lp, open_at[depth - 1], "unclosed '%c'", open_ch[depth - 1]);
	if (stop)
		return line_error(lp, lp->len, "expected %s but found the end of the line", what);
	*at = lp->len;
	return KBX_OK;
}

/* Index of the bracket that closes the one at `open` (the line is known to be balanced there). */
static size_t matching_close(const struct line_parser *lp, size_t open)
{
	int depth = 0;
	size_t pos;

	for (pos = open; pos < lp->len; pos++) {
		char c = lp->line[pos];

		if (c == '(' || c == '[')
			depth++;
		else if ((c == ')' || c == ']') && --depth == 0)
			return pos;
	}
	return lp->len;
}

/* Split a balanced span at top-level commas. An all-blank span gives zero pieces. */
static enum kbx_status split_commas(const struct line_parser *lp, struct span s, struct span *pieces, int *n)
{
	struct span t = trim(lp, s);
	size_t pos, start = s.start;
	int depth = 0;

	*n = 0;
	if (t.start == t.end)
		return KBX_OK;
	for (pos = s.start; pos <= s.end; pos++) {
		char c = pos < s.end ? lp->line[pos] : ',';

		if (c == '(' || c == '[') {
			depth++;
		} else if (c == ')' || c == ']') {
			depth--;
		} else if (c == ',' && depth == 0) {
			if (*n == MAX_PIECES)
				return line_error(lp, pos, "more than %d items in one list", MAX_PIECES);
			pieces[*n].start = start;
			pieces[*n].end = pos;
			(*n)++;
			start = pos + 1;
		}
	}
	return KBX_OK;
}

/* Check the expression in span s (what: "a grid size", ...) and return it as a new string. */
static enum kbx_status take_expr(const struct line_parser *lp, struct span s, const char *what, char **out)
{
	struct span t = trim(lp, s);
	char *text;
	int col;

	*out = NULL;
	if (t.start == t.end)
		return expected(lp, t.start, what);
	text = span_dup(lp, t);
	if (expr_check(text, &col) != KBX_OK) {
		enum kbx_status st = kbx_error(KBX_EPARSE, "'%s' line %d column %zu: %s", lp->path, lp->lineno,
					       t.start + (size_t)col + 1, kbx_last_error());

		free(text);
		return st;
	}
	*out = text;
	return KBX_OK;
}

/* GRID or BLOCK: an expression or dim3(x[, y[, z]]). */
static enum kbx_status parse_dims(const struct line_parser *lp, struct span s, const char *what, char *dims[3])
{
	struct span t = trim(lp, s), g = { 0, 0 }, pieces[MAX_PIECES];
	size_t m, open, close;
	enum kbx_status st;
	char buf[64];
	int n, i;

	m = match_at(lp, lp->re->call, t.start, &g);
	if (!m || g.end - g.start != 4 || strncmp(lp->line + g.start, "dim3", 4) != 0) {
		st = take_expr(lp, s, what, &dims[0]);
		if (st)
			return st;
		dims[1] = xstrdup("1");
		dims[2] = xstrdup("1");
		return KBX_OK;
	}
	open = t.start + m - 1;
	close = matching_close(lp, open);
	if (close + 1 != t.end)
		return expected(lp, skip_blank(lp, close + 1), "',' or '>>>' after 'dim3(...)'");
	st = split_commas(lp, (struct span){ open + 1, close }, pieces, &n);
	if (st)
		return st;
	if (n == 0 || n > 3)
		return line_error(lp, t.start, "dim3 takes 1 to 3 sizes, not %d", n);
	for (i = 0; i < 3; i++) {
		if (i >= n) {
			dims[i] = xstrdup("1");
			continue;
		}
		snprintf(buf, sizeof(buf), "%s (dimension %c)", what, "xyz"[i]);
		st = take_expr(lp, pieces[i], buf, &dims[i]);
		if (st)
			return st;
	}
	return KBX_OK;
}

static enum kbx_status parse_arg(const struct line_parser *lp, struct span s, struct launch_arg *arg)
{
	static const struct {
		const char *name;
		enum dtype dt;
	} casts[] = { { "i32", DT_I32 }, { "i64", DT_I64 }, { "f32", DT_F32 }, { "f64", DT_F64 } };
	struct span t = trim(lp, s), g = { 0, 0 };
	size_t m, open, close, i;
	char found[64];

	memset(arg, 0, sizeof(*arg));
	arg->col = (int)t.start + 1;
	if (t.start == t.end)
		return expected(lp, t.start, "an argument");
	m = match_at(lp, lp->re->ident, t.start, NULL);
	if (m && t.start + m == t.end) {
		arg->name = span_dup(lp, t);
		return KBX_OK;
	}
	if (m && lp->line[skip_blank(lp, t.start + m)] != '(') {
		describe(lp, skip_blank(lp, t.start + m), found, sizeof(found));
		return line_error(lp, skip_blank(lp, t.start + m),
				  "expected ',' or ')' after argument '%.*s' but found %s (an expression needs a cast such "
				  "as i64(...))", (int)(m > 32 ? 32 : m), lp->line + t.start, found);
	}
	m = match_at(lp, lp->re->call, t.start, &g);
	if (!m) {
		describe(lp, t.start, found, sizeof(found));
		return line_error(lp, t.start, "expected an argument name or a cast (i32, i64, f32, f64) but found %s",
				  found);
	}
	for (i = 0; i < sizeof(casts) / sizeof(casts[0]); i++)
		if (g.end - g.start == 3 && strncmp(lp->line + g.start, casts[i].name, 3) == 0)
			break;
	if (i == sizeof(casts) / sizeof(casts[0]))
		return line_error(lp, t.start, "unknown cast '%.*s' (expected i32, i64, f32 or f64)",
				  (int)(g.end - g.start > 32 ? 32 : g.end - g.start), lp->line + g.start);
	open = t.start + m - 1;
	close = matching_close(lp, open);
	if (close + 1 != t.end)
		return expected(lp, skip_blank(lp, close + 1), "',' or ')' after the cast");
	arg->cast = casts[i].dt;
	arg->expr_col = (int)trim(lp, (struct span){ open + 1, close }).start + 1;
	return take_expr(lp, (struct span){ open + 1, close }, "an expression to cast", &arg->expr);
}

static void launch_free(struct launch *l)
{
	int i;

	free(l->kernel);
	for (i = 0; i < 3; i++) {
		free(l->grid[i]);
		free(l->block[i]);
	}
	free(l->smem);
	for (i = 0; i < l->nargs; i++) {
		free(l->args[i].name);
		free(l->args[i].expr);
	}
	free(l->args);
	memset(l, 0, sizeof(*l));
}

static void scratch_free(struct scratch_decl *s)
{
	int i;

	free(s->name);
	for (i = 0; i < s->ndim; i++)
		free(s->shape[i]);
	free(s->shape);
	memset(s, 0, sizeof(*s));
}

/* `// @kbx launch NAME<<<GRID, BLOCK[, SMEM]>>>(ARG, ...) [cooperative] [untimed]`, from pos (after the word). */
static enum kbx_status parse_launch(const struct line_parser *lp, size_t pos, struct launch *l)
{
	struct span pieces[MAX_PIECES];
	size_t m, cfg_end, args_open, args_close;
	enum kbx_status st;
	int n, i;

	memset(l, 0, sizeof(*l));
	l->line = lp->lineno;
	pos = skip_blank(lp, pos);
	m = match_at(lp, lp->re->ident, pos, NULL);
	if (!m)
		return expected(lp, pos, "a kernel name");
	l->kernel = span_dup(lp, (struct span){ pos, pos + m });
	pos = skip_blank(lp, pos + m);
	if (strncmp(lp->line + pos, "<<<", 3) != 0)
		return expected(lp, pos, "'<<<'");
	pos += 3;
	st = scan_to(lp, pos, ">>>", "'>>>'", &cfg_end);
	if (st)
		return st;
	st = split_commas(lp, (struct span){ pos, cfg_end }, pieces, &n);
	if (st)
		return st;
	if (n < 2) {
		if (n == 0)
			return expected(lp, skip_blank(lp, pos), "a grid size");
		return expected(lp, cfg_end, "',' and a block size");
	}
	if (n > 3)
		return line_error(lp, pieces[3].start - 1,
				  "expected '>>>' after the shared memory size (at most grid, block, shared memory)");
	st = parse_dims(lp, pieces[0], "a grid size", l->grid);
	if (!st)
		st = parse_dims(lp, pieces[1], "a block size", l->block);
	if (!st && n == 3)
		st = take_expr(lp, pieces[2], "a shared memory size", &l->smem);
	if (st)
		return st;
	if (!l->smem)
		l->smem = xstrdup("0");

	pos = skip_blank(lp, cfg_end + 3);
	if (lp->line[pos] != '(')
		return expected(lp, pos, "'(' and the kernel arguments after '>>>'");
	args_open = pos;
	st = scan_to(lp, args_open + 1, ")", "')' closing the argument list", &args_close);
	if (st)
		return st;
	st = split_commas(lp, (struct span){ args_open + 1, args_close }, pieces, &n);
	if (st)
		return st;
	l->args = xcalloc((size_t)(n ? n : 1), sizeof(*l->args));
	for (i = 0; i < n; i++) {
		st = parse_arg(lp, pieces[i], &l->args[i]);
		l->nargs = i + 1; /* so that launch_free releases what parse_arg set */
		if (st)
			return st;
	}
	/* the flags, each at most once, in any order */
	for (pos = skip_blank(lp, args_close + 1); pos < lp->len; pos = skip_blank(lp, pos + m)) {
		int *flag = NULL;

		m = match_at(lp, lp->re->ident, pos, NULL);
		if (m == 11 && strncmp(lp->line + pos, "cooperative", m) == 0)
			flag = &l->cooperative;
		else if (m == 7 && strncmp(lp->line + pos, "untimed", m) == 0)
			flag = &l->untimed;
		if (!flag || *flag)
			return expected(lp, pos, l->cooperative ? (l->untimed ? "the end of the line" : "'untimed' or the end of the line")
					: l->untimed ? "'cooperative' or the end of the line"
					: "'cooperative', 'untimed' or the end of the line");
		*flag = 1;
	}
	return KBX_OK;
}

/* `packs sN` or `packs uN` after a scratch buffer's shape, from pos (after the word): the buffer
 * holds N-bit integers (N = 1, 2, 4, 8 or 16, fewer bits than its integer dtype), low bits first,
 * so that the stage diff compares the integers rather than the words that hold them. */
static enum kbx_status parse_packs(const struct line_parser *lp, size_t pos, struct scratch_decl *s)
{
	static const char what[] = "a packed integer type: s1, s2, s4, s8, s16 or u1 ... u16";
	size_t m, start;
	int bits = 0;

	if (!is_blank(lp->line[pos]))
		return expected(lp, pos, what);
	start = pos = skip_blank(lp, pos);
	m = match_at(lp, lp->re->ident, pos, NULL);
	if (m < 2 || m > 3 || (lp->line[pos] != 's' && lp->line[pos] != 'u'))
		return expected(lp, pos, what);
	for (pos++; pos < start + m; pos++) {
		if (lp->line[pos] < '0' || lp->line[pos] > '9')
			return expected(lp, start, what);
		bits = bits * 10 + (lp->line[pos] - '0');
	}
	if (bits != 1 && bits != 2 && bits != 4 && bits != 8 && bits != 16)
		return expected(lp, start, what);
	if (dtype_is_float(s->dtype) || s->dtype == DT_BOOL || (size_t)bits >= 8 * dtype_size(s->dtype))
		return line_error(lp, start, "%.*s packs into an integer dtype wider than %d bits, not %s",
				  (int)m, lp->line + start, bits, dtype_name(s->dtype));
	s->pack_bits = bits;
	s->pack_signed = lp->line[start] == 's';
	pos = skip_blank(lp, start + m);
	if (pos < lp->len)
		return expected(lp, pos, "the end of the line after the packing");
	return KBX_OK;
}

/* `// @kbx scratch NAME DTYPE [SHAPE, ...]`, from pos (after the word). */
static enum kbx_status parse_scratch(const struct line_parser *lp, size_t pos, struct scratch_decl *s)
{
	struct span pieces[MAX_PIECES];
	size_t m, close;
	enum kbx_status st;
	char *word;
	int n, i;

	memset(s, 0, sizeof(*s));
	s->line = lp->lineno;
	pos = skip_blank(lp, pos);
	m = match_at(lp, lp->re->ident, pos, NULL);
	if (!m)
		return expected(lp, pos, "a scratch buffer name");
	s->name = span_dup(lp, (struct span){ pos, pos + m });
	for (i = 0; i < lp->spec->nscratch; i++)
		if (strcmp(lp->spec->scratch[i].name, s->name) == 0)
			return line_error(lp, pos, "scratch buffer '%s' declared twice (first on line %d)", s->name,
					  lp->spec->scratch[i].line);
	pos += m;
	if (!is_blank(lp->line[pos]))
		return expected(lp, pos, "a space and a dtype after the name");
	pos = skip_blank(lp, pos);
	m = match_at(lp, lp->re->ident, pos, NULL);
	if (!m)
		return expected(lp, pos, "a dtype (f32, f64, f16, bf16, i8, u8, i16, i32, i64, bool or c64)");
	word = span_dup(lp, (struct span){ pos, pos + m });
	st = dtype_parse(word, &s->dtype);
	free(word);
	if (st)
		return line_error(lp, pos, "%s", kbx_last_error());
	pos = skip_blank(lp, pos + m);
	if (lp->line[pos] != '[')
		return expected(lp, pos, "'[' and a shape such as [m, n]");
	st = scan_to(lp, pos + 1, "]", "']' closing the shape", &close);
	if (st)
		return st;
	st = split_commas(lp, (struct span){ pos + 1, close }, pieces, &n);
	if (st)
		return st;
	s->shape = xcalloc((size_t)(n ? n : 1), sizeof(*s->shape));
	for (i = 0; i < n; i++) {
		st = take_expr(lp, pieces[i], "a size", &s->shape[i]);
		s->ndim = i + 1;
		if (st)
			return st;
	}
	pos = skip_blank(lp, close + 1);
	if (pos < lp->len && (m = match_at(lp, lp->re->ident, pos, NULL)) == 5 && strncmp(lp->line + pos, "packs", 5) == 0)
		return parse_packs(lp, pos + m, s);
	if (pos < lp->len)
		return expected(lp, pos, "the end of the line after the shape (or 'packs s4')");
	return KBX_OK;
}

/* One line: not a directive (*kind = 0), a launch (1), a scratch (2) or a metadata line (3: expect, task...). */
static enum kbx_status parse_line(const struct line_parser *lp, int *kind, struct launch *l, struct scratch_decl *s)
{
	size_t pos, m, k;

	*kind = 0;
	m = match_at(lp, lp->re->directive, 0, NULL);
	if (!m)
		return KBX_OK;
	pos = m;
	if (pos < lp->len && !is_blank(lp->line[pos])) {
		/* "@kbxlaunch", "@kbx:" */
		size_t at = pos - 4, w = match_at(lp, lp->re->ident, pos - 3, NULL);

		return line_error(lp, at, "unknown directive '@%.*s' (expected '@kbx', a space, then %s)",
				  (int)(w > 32 ? 32 : w), lp->line + at + 1, directive_help);
	}
	pos = skip_blank(lp, pos);
	m = match_at(lp, lp->re->ident, pos, NULL);
	if (!m)
		return expected(lp, pos, "a directive (launch, scratch or expect)");
	if (m == 6 && strncmp(lp->line + pos, "launch", 6) == 0)
		*kind = 1;
	else if (m == 7 && strncmp(lp->line + pos, "scratch", 7) == 0)
		*kind = 2;
	for (k = 0; !*kind && k < sizeof(metadata_words) / sizeof(metadata_words[0]); k++)
		if (m == strlen(metadata_words[k]) && strncmp(lp->line + pos, metadata_words[k], m) == 0)
			*kind = 3;
	if (!*kind)
		return line_error(lp, pos, "unknown directive '%.*s' (expected %s)", (int)(m > 32 ? 32 : m),
				  lp->line + pos, directive_help);
	if (pos + m < lp->len && !is_blank(lp->line[pos + m])) {
		char what[48];

		snprintf(what, sizeof(what), "a space after '%.*s'", (int)m, lp->line + pos);
		return expected(lp, pos + m, what);
	}
	if (*kind == 1)
		return parse_launch(lp, pos + m, l);
	if (*kind == 2)
		return parse_scratch(lp, pos + m, s);
	/* `// @kbx expect VERDICT` and the other metadata lines: read by the tests, nothing to do here */
	return KBX_OK;
}

enum kbx_status launch_parse_source(const char *src, const char *path, struct kernel_spec *out)
{
	struct kernel_spec spec = { 0 };
	size_t cap_launch = 0, cap_scratch = 0;
	struct patterns re;
	struct sbuf line = SBUF_INIT;
	const char *p = src;
	enum kbx_status st;
	int lineno = 0;

	memset(out, 0, sizeof(*out));
	if (!path)
		path = "<source>";
	st = compile_patterns(&re);
	if (st) {
		free_patterns(&re);
		return st;
	}
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		struct line_parser lp;
		struct launch l;
		struct scratch_decl s;
		int kind;

		lineno++;
		sbuf_reset(&line);
		sbuf_add(&line, p, n);
		p += n + (nl ? 1 : 0);
		if (line.len && line.buf[line.len - 1] == '\r')
			line.buf[--line.len] = '\0';
		lp = (struct line_parser){
			.path = path, .lineno = lineno, .line = line.buf, .len = line.len, .re = &re, .spec = &spec
		};
		memset(&l, 0, sizeof(l));
		memset(&s, 0, sizeof(s));
		st = parse_line(&lp, &kind, &l, &s);
		if (st) {
			launch_free(&l);
			scratch_free(&s);
			goto fail;
		}
		if (kind == 1) {
			XGROW(spec.launches, (size_t)spec.nlaunches + 1, cap_launch);
			spec.launches[spec.nlaunches++] = l;
		} else if (kind == 2) {
			XGROW(spec.scratch, (size_t)spec.nscratch + 1, cap_scratch);
			spec.scratch[spec.nscratch++] = s;
		}
	}
	if (spec.nlaunches == 0) {
		st = kbx_error(KBX_EPARSE, "'%s': no launch line (expected '// @kbx launch KERNEL<<<GRID, BLOCK>>>(ARGS)')",
			       path);
		goto fail;
	}
	sbuf_release(&line);
	free_patterns(&re);
	*out = spec;
	return KBX_OK;
fail:
	sbuf_release(&line);
	free_patterns(&re);
	kernel_spec_free(&spec);
	return st;
}

void kernel_spec_free(struct kernel_spec *spec)
{
	int i;

	for (i = 0; i < spec->nlaunches; i++)
		launch_free(&spec->launches[i]);
	free(spec->launches);
	for (i = 0; i < spec->nscratch; i++)
		scratch_free(&spec->scratch[i]);
	free(spec->scratch);
	memset(spec, 0, sizeof(*spec));
}
