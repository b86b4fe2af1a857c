/*
 * nvrtc.c - NVRTC compilation, log parsing and the #include gate in front of it.
 *
 * The include gate and the log parser need no CUDA and are built either way; only the
 * compile itself needs NVRTC (linked directly: it works without a GPU or a driver).
 */
#include "nvrtc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "util.h"

#ifdef HAVE_CUDA
#include <nvrtc.h>
#endif

#ifndef KBX_CUDA_INCLUDE
#define KBX_CUDA_INCLUDE ""
#endif

#define LOG_LIMIT (64 * 1024)
#define DEFAULT_ARCH 90
#define DEFAULT_NAME "candidate.cu"

const char *nvrtc_cuda_include(void)
{
	const char *e = getenv("KBX_CUDA_INCLUDE");

	return e && *e ? e : KBX_CUDA_INCLUDE;
}

/* ------------------------------------------------------------------ options ---- */

#define MAX_OPTIONS 10

/* Fill argv with kbx's options; the strings that had to be built go to owned[] (free them). */
static int build_options(int arch, const char *cuda_include, const char *kbx_include, const char **argv,
			 char **owned, int *nowned)
{
	int n = 0;

	*nowned = 0;
	owned[(*nowned)++] = xasprintf("-arch=sm_%d", arch > 0 ? arch : DEFAULT_ARCH);
	argv[n++] = owned[0];
	argv[n++] = "-std=c++17";
	argv[n++] = "-default-device";
	/*
	 * No -no-source-include: NVRTC 13 applies it to headers too, so the toolkit's own quoted
	 * includes of sibling files break (<mma.h> -> "mma.hpp", <cooperative_groups.h> ->
	 * "info.h"). The include gate keeps the candidate's quoted includes to "kbx/...".
	 */
	if (cuda_include && *cuda_include) {
		struct stat sb;
		char *cccl = xasprintf("%s/cccl", cuda_include);

		owned[*nowned] = xasprintf("--include-path=%s", cuda_include);
		argv[n++] = owned[(*nowned)++];
		/*
		 * CUDA 13 moved libcu++, CUB and Thrust to include/cccl, which nvcc searches by
		 * itself but NVRTC does not; <cooperative_groups.h> needs <cuda/std/...> from there.
		 */
		if (stat(cccl, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			owned[*nowned] = xasprintf("--include-path=%s", cccl);
			argv[n++] = owned[(*nowned)++];
		}
		free(cccl);
	}
	if (kbx_include && *kbx_include) {
		owned[*nowned] = xasprintf("--include-path=%s", kbx_include);
		argv[n++] = owned[(*nowned)++];
	}
	argv[n++] = "-lineinfo";
	return n;
}

char *nvrtc_options_string(int arch, const char *cuda_include, const char *kbx_include)
{
	const char *argv[MAX_OPTIONS];
	char *owned[MAX_OPTIONS];
	struct sbuf sb = SBUF_INIT;
	int n, nowned, i;

	n = build_options(arch, cuda_include, kbx_include, argv, owned, &nowned);
	for (i = 0; i < n; i++) {
		if (i)
			sbuf_adds(&sb, " ");
		sbuf_adds(&sb, argv[i]);
	}
	for (i = 0; i < nowned; i++)
		free(owned[i]);
	return sbuf_detach(&sb);
}

/* ------------------------------------------------------------- include gate ---- */

/*
 * A reader over the source as the preprocessor sees it after phase 2: peek() and next() step
 * over backslash-newline splices, counting lines. Raw string literals are read from the raw
 * bytes instead (the standard undoes splices inside them).
 */
struct scan {
	const char *s;
	size_t i;
	int line;
	int bad_line;           /* set with why when the source is rejected */
	char *why;
};

static int KBX_PRINTF(3, 4) reject(struct scan *sc, int line, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	if (sc->why)
		return 0;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sc->why = xstrdup(buf);
	sc->bad_line = line;
	return 0;
}

static size_t splice_len(const char *s, size_t i)
{
	if (s[i] != '\\')
		return 0;
	if (s[i + 1] == '\n')
		return 2;
	if (s[i + 1] == '\r' && s[i + 2] == '\n')
		return 3;
	return 0;
}

static void skip_splices(struct scan *sc)
{
	size_t n;

	while ((n = splice_len(sc->s, sc->i))) {
		sc->i += n;
		sc->line++;
	}
}

static int peek(struct scan *sc)
{
	skip_splices(sc);
	return (unsigned char)sc->s[sc->i];
}

/* The character after the current one, splices skipped; does not move. */
static int peek2(struct scan *sc)
{
	size_t j, n;

	skip_splices(sc);
	if (!sc->s[sc->i])
		return 0;
	j = sc->i + 1;
	while ((n = splice_len(sc->s, j)))
		j += n;
	return (unsigned char)sc->s[j];
}

static int next(struct scan *sc)
{
	int c = peek(sc);

	if (c) {
		sc->i++;
		if (c == '\n')
			sc->line++;
	}
	return c;
}

static int is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r';
}

static int is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
}

static int is_ident_char(int c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static int is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * Things the compiler could read differently from this scanner are refused up front: a lone
 * CR (a line end to some compilers, not to NVRTC), and a backslash followed by blanks before a
 * newline (a splice to GCC, not to NVRTC): either could move a directive into or out of a
 * comment. `??/` + newline would be a splice if trigraphs were on.
 */
static int prescan(struct scan *sc)
{
	const char *s = sc->s;
	int line = 1;
	size_t i, j;

	for (i = 0; s[i]; i++) {
		if (s[i] == '\n') {
			line++;
		} else if (s[i] == '\r' && s[i + 1] != '\n') {
			return reject(sc, line, "carriage return without a line feed (ambiguous line end)");
		} else if (s[i] == '\\') {
			for (j = i + 1; s[j] == ' ' || s[j] == '\t' || s[j] == '\f' || s[j] == '\v'; j++)
				;
			if (j > i + 1 && (s[j] == '\n' || (s[j] == '\r' && s[j + 1] == '\n')))
				return reject(sc, line, "backslash followed by blanks at the end of the line "
					      "(ambiguous line splice; remove the blanks)");
		} else if (s[i] == '?' && s[i + 1] == '?' && s[i + 2] == '/' &&
			   (s[i + 3] == '\n' || (s[i + 3] == '\r' && s[i + 4] == '\n'))) {
			return reject(sc, line, "trigraph '?\?/' at the end of the line (ambiguous line splice)");
		}
	}
	return 1;
}

/* At the opening slash-star (not yet consumed): skip the comment. Returns 1 if it held a newline. */
static int skip_block_comment(struct scan *sc)
{
	int line = sc->line, c, nl = 0;

	next(sc);
	next(sc);
	for (;;) {
		c = next(sc);
		if (!c) {
			reject(sc, line, "comment not terminated");
			return nl;
		}
		if (c == '\n')
			nl = 1;
		if (c == '*' && peek(sc) == '/') {
			next(sc);
			return nl;
		}
	}
}

/* At "//": skip to the newline (not consumed); splices continue the comment. */
static void skip_line_comment(struct scan *sc)
{
	while (peek(sc) && peek(sc) != '\n')
		next(sc);
}

/* Skip blanks and comments within one logical line (a comment may span lines: it is one space). */
static void skip_hspace(struct scan *sc)
{
	for (;;) {
		int c = peek(sc);

		if (is_blank(c)) {
			next(sc);
		} else if (c == '/' && peek2(sc) == '*') {
			skip_block_comment(sc);
		} else if (c == '/' && peek2(sc) == '/') {
			skip_line_comment(sc);
		} else {
			return;
		}
	}
}

/* At a quote: skip a string or character literal; it ends at its quote or at the line's end. */
static void skip_quoted(struct scan *sc)
{
	int q = next(sc), c;

	while ((c = peek(sc)) && c != '\n') {
		next(sc);
		if (c == q)
			return;
		if (c == '\\' && peek(sc) && peek(sc) != '\n')
			next(sc);
	}
}

/*
 * Read an identifier (splices skipped, \u and \U escapes kept) into buf. *odd is set when it
 * holds an escape or a non-ASCII byte.
 */
static void read_ident(struct scan *sc, char *buf, size_t len, int *odd)
{
	size_t n = 0;
	int c, k, digits;

	*odd = 0;
	for (;;) {
		c = peek(sc);
		if (c == '\\' && (peek2(sc) == 'u' || peek2(sc) == 'U')) {
			digits = peek2(sc) == 'u' ? 4 : 8;
			*odd = 1;
			next(sc);
			next(sc);
			for (k = 0; k < digits && is_hex(peek(sc)); k++)
				next(sc);
			continue;
		}
		if (!is_ident_char(c))
			break;
		if (c >= 0x80)
			*odd = 1;
		if (n + 1 < len)
			buf[n++] = (char)c;
		next(sc);
	}
	buf[n] = '\0';
}

/* A pp-number, with C++14 digit separators (1'000) that must not open a character literal. */
static void skip_number(struct scan *sc)
{
	int c, prev = 0;

	for (;;) {
		c = peek(sc);
		if ((c == '+' || c == '-') && (prev == 'e' || prev == 'E' || prev == 'p' || prev == 'P')) {
			next(sc);
		} else if (c == '\'' && is_ident_char(peek2(sc))) {
			next(sc);
			c = next(sc);
		} else if (is_ident_char(c) || c == '.') {
			next(sc);
		} else {
			return;
		}
		prev = c;
	}
}

/* At the opening quote of R"delim(...)delim": skip it, on raw bytes. */
static void skip_raw_string(struct scan *sc)
{
	const char *s = sc->s;
	int line = sc->line;
	size_t i = sc->i + 1, d0 = i, dlen;

	while (s[i] && s[i] != '(' && i - d0 <= 16) {
		if (s[i] == ' ' || s[i] == ')' || s[i] == '\\' || s[i] == '\t' || s[i] == '\v' || s[i] == '\f' ||
		    s[i] == '\n' || s[i] == '\r' || s[i] == '"')
			break;
		i++;
	}
	dlen = i - d0;
	if (s[i] != '(' || dlen > 16) {
		reject(sc, line, "malformed raw string delimiter");
		return;
	}
	for (i++; s[i]; i++) {
		if (s[i] == '\n')
			sc->line++;
		if (s[i] == ')' && !strncmp(s + i + 1, s + d0, dlen) && s[i + 1 + dlen] == '"') {
			sc->i = i + dlen + 2;
			return;
		}
	}
	sc->i = i;
	reject(sc, line, "raw string literal not terminated");
}

static int has_dotdot(const char *p)
{
	const char *c = p;

	for (;;) {
		const char *e = strchr(c, '/');
		size_t n = e ? (size_t)(e - c) : strlen(c);

		if (n == 2 && c[0] == '.' && c[1] == '.')
			return 1;
		if (!e)
			return 0;
		c = e + 1;
	}
}

/* Check one header name; kind is '<' or '"'. what names the construct for the message. */
static int check_target(struct scan *sc, int line, const char *what, int kind, const char *path)
{
	char open = (char)kind, close = kind == '<' ? '>' : '"';
	const char *p = path;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return reject(sc, line, "%s %c%c: empty path", what, open, close);
	if (*p == '/')
		return reject(sc, line, "%s %c%s%c: absolute path", what, open, path, close);
	if (strchr(p, '\\'))
		return reject(sc, line, "%s %c%s%c: backslash in the path", what, open, path, close);
	if (has_dotdot(p))
		return reject(sc, line, "%s %c%s%c: path with '..'", what, open, path, close);
	if (kind == '"' && strncmp(p, "kbx/", 4))
		return reject(sc, line, "%s \"%s\": a quoted include must name a kbx/ header "
			      "(write <%s> for a CUDA header)", what, path, path);
	return 1;
}

/* At the start of a header name (after blanks): read <...> or "..." and check it. */
static int read_target(struct scan *sc, int line, const char *what)
{
	struct sbuf sb = SBUF_INIT;
	int kind = peek(sc), c, ok;

	if (kind != '<' && kind != '"') {
		if (kind == '\n' || !kind)
			return reject(sc, line, "%s without a file name", what);
		return reject(sc, line, "%s with a computed file name (a macro); write <header.h> or \"kbx/...\"",
			      what);
	}
	next(sc);
	for (;;) {
		c = peek(sc);
		if (!c || c == '\n') {
			sbuf_release(&sb);
			return reject(sc, line, "%s: file name not terminated", what);
		}
		next(sc);
		if (c == (kind == '<' ? '>' : '"'))
			break;
		sbuf_add(&sb, (char[]){ (char)c }, 1);
	}
	ok = check_target(sc, line, what, kind, sb.buf ? sb.buf : "");
	sbuf_release(&sb);
	return ok;
}

/* After #: the directive's name, and its file name for the ones that open files. */
static int check_directive(struct scan *sc, int line)
{
	char name[64], what[80];
	int odd;

	skip_hspace(sc);
	if (!is_ident_start(peek(sc)) && !(peek(sc) == '\\' && (peek2(sc) == 'u' || peek2(sc) == 'U')))
		return 1;
	read_ident(sc, name, sizeof(name), &odd);
	if (odd)
		return reject(sc, line, "directive name written with escapes or non-ASCII characters");
	if (strcmp(name, "include") && strcmp(name, "include_next") && strcmp(name, "import") &&
	    strcmp(name, "embed"))
		return 1;
	snprintf(what, sizeof(what), "#%s", name);
	skip_hspace(sc);
	return read_target(sc, line, what);
}

/* After __has_include / __has_include_next / __has_embed: ( header-name ... ). */
static int check_has_include(struct scan *sc, int line, const char *name)
{
	skip_hspace(sc);
	if (peek(sc) != '(')
		return reject(sc, line, "%s without '('", name);
	next(sc);
	skip_hspace(sc);
	return read_target(sc, line, name);
}

static int scan_source(struct scan *sc)
{
	int at_line_start = 1, c, odd;
	char id[64];

	if (!prescan(sc))
		return 0;
	while (!sc->why && (c = peek(sc))) {
		int line = sc->line;

		if (c == '\n') {
			next(sc);
			at_line_start = 1;
		} else if (is_blank(c)) {
			next(sc);
		} else if (c == '/' && peek2(sc) == '*') {
			/* A comment holding a newline may end a logical line or not, depending on whom
			 * you ask; taking the next # as a directive only checks more. */
			if (skip_block_comment(sc))
				at_line_start = 1;
		} else if (c == '/' && peek2(sc) == '/') {
			skip_line_comment(sc);
		} else if ((c == '#' || (c == '%' && peek2(sc) == ':')) && at_line_start) {
			next(sc);
			if (c == '%')
				next(sc);
			at_line_start = 0;
			if (!check_directive(sc, line))
				return 0;
		} else if (c == '"' || c == '\'') {
			at_line_start = 0;
			skip_quoted(sc);
		} else if (c >= '0' && c <= '9') {
			at_line_start = 0;
			skip_number(sc);
		} else if (c == '.' && peek2(sc) >= '0' && peek2(sc) <= '9') {
			at_line_start = 0;
			skip_number(sc);
		} else if (is_ident_start(c) || (c == '\\' && (peek2(sc) == 'u' || peek2(sc) == 'U'))) {
			at_line_start = 0;
			read_ident(sc, id, sizeof(id), &odd);
			if (peek(sc) == '"' && (!strcmp(id, "R") || !strcmp(id, "LR") || !strcmp(id, "uR") ||
						!strcmp(id, "UR") || !strcmp(id, "u8R"))) {
				skip_raw_string(sc);
			} else if (!strcmp(id, "__has_include") || !strcmp(id, "__has_include_next") ||
				   !strcmp(id, "__has_embed")) {
				if (!check_has_include(sc, line, id))
					return 0;
			}
		} else {
			at_line_start = 0;
			next(sc);
		}
	}
	return !sc->why;
}

/* The gate, with the offending line and the reason kept apart for diagnostics. */
static int includes_ok(const char *src, int *line, char **why)
{
	struct scan sc = { .s = src ? src : "", .line = 1 };

	if (scan_source(&sc)) {
		*line = 0;
		*why = NULL;
		return 1;
	}
	*line = sc.bad_line;
	*why = sc.why;
	return 0;
}

int nvrtc_source_includes_ok(const char *src, char **why)
{
	int line;
	char *reason;

	if (why)
		*why = NULL;
	if (includes_ok(src, &line, &reason))
		return 1;
	if (why)
		*why = xasprintf("line %d: %s", line, reason);
	free(reason);
	return 0;
}

/* -------------------------------------------------------------- log parsing ---- */

/*
 * NVRTC's log, as NVRTC 12 and 13 write it:
 *
 *     cand.cu(5): error: identifier "foo" is undefined
 *       <source line, indented by two spaces>
 *       <blanks>^
 *               detected during instantiation of "..." at line 9
 *     <blank line>
 *     cand.cu(3): warning #177-D: variable "u" was declared but never referenced
 *     At end of source: error: expected a ";"
 *     nvrtc: error: invalid value for --gpu-architecture (-arch)
 *     ptxas error   : Entry function 'k' uses too much shared data (0x3a980 bytes, 0xc000 max)
 *     ptxas application ptx input, line 25; error   : Unknown modifier '.instr'
 *     2 errors detected in the compilation of "cand.cu".
 */
enum { RE_FILE, RE_END, RE_TOOL, RE_BARE, RE_CARET, RE_SUMMARY, RE_COUNT };

static const char *const re_src[RE_COUNT] = {
	[RE_FILE] = "^(.+?)\\((\\d{1,9})\\): (catastrophic error|fatal error|internal error|command-line error|"
		    "error|warning|remark|note)(?: #(\\d{1,6}(?:-[A-Z])?))?: ?(.*)$",
	[RE_END] = "^At end of source: (catastrophic error|fatal error|internal error|error|warning|remark|note)"
		   "(?: #(\\d{1,6}(?:-[A-Z])?))?: ?(.*)$",
	[RE_TOOL] = "^(?:ptxas|nvlink|nvrtc|nvvm)(?: application ptx input, line (\\d{1,9});)?:? *"
		    "(error|warning|fatal|info) *: ?(.*)$",
	[RE_BARE] = "^(catastrophic error|fatal error|internal error|command-line error|error|warning|remark|note)"
		    "(?: #(\\d{1,6}(?:-[A-Z])?))?: (.*)$",
	[RE_CARET] = "^  [ \\t]*\\^\\s*$",
	/* lines that close the open diagnostic without belonging to it */
	[RE_SUMMARY] = "^(?:\\d+ (?:catastrophic )?(?:errors?|warnings?) detected in the compilation of|"
		       "Compilation terminated\\.|Remark: |Error limit reached\\.)",
};

static pthread_once_t re_once = PTHREAD_ONCE_INIT;
static pcre2_code *re_code[RE_COUNT];
static pcre2_match_context *re_mctx;

static void re_init(void)
{
	int i, err;
	PCRE2_SIZE off;

	for (i = 0; i < RE_COUNT; i++) {
		re_code[i] = pcre2_compile((PCRE2_SPTR)re_src[i], PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
		if (!re_code[i]) {
			/* A pattern of ours that does not compile is a bug caught by the tests. */
			fprintf(stderr, "kbx: internal error: NVRTC log pattern %d does not compile (offset %zu)\n",
				i, (size_t)off);
			abort();
		}
	}
	re_mctx = pcre2_match_context_create(NULL);
	if (!re_mctx)
		abort();
	pcre2_set_match_limit(re_mctx, 100000);
}

struct match {
	pcre2_match_data *md;
	const char *subject;
};

static int re_match(struct match *m, int which, const char *line, size_t len)
{
	m->subject = line;
	return pcre2_match(re_code[which], (PCRE2_SPTR)line, len, 0, 0, m->md, re_mctx) > 0;
}

/* Group g of the last match, as a new string ("" when it did not take part). */
static char *group(struct match *m, int g)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);

	if (ov[2 * g] == PCRE2_UNSET)
		return xstrdup("");
	return xstrndup(m->subject + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
}

static int group_set(struct match *m, int g)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);

	return ov[2 * g] != PCRE2_UNSET && ov[2 * g + 1] > ov[2 * g];
}

static int group_int(struct match *m, int g)
{
	char *s = group(m, g);
	long v = strtol(s, NULL, 10);

	free(s);
	return v > 0 && v < 1000000000 ? (int)v : 0;
}

static const char *norm_severity(const char *s)
{
	if (!strcmp(s, "warning"))
		return "warning";
	if (!strcmp(s, "remark"))
		return "remark";
	if (!strcmp(s, "note"))
		return "note";
	return "error";  /* error, fatal, catastrophic / internal / command-line error */
}

#define MAX_CONT_LINES 6
#define MAX_CONT_LINE_LEN 300
#define MAX_MESSAGE 2048

struct diag_builder {
	struct sbuf msg;
	int cont;               /* continuation lines taken */
	int open;               /* a diagnostic is collecting continuation lines */
	int takes_cont;         /* ptxas and option errors have none: what follows is not theirs */
	int echo_seen;          /* the previous continuation line could be the source echo */
};

static void finish(struct nvrtc_diag *d, struct diag_builder *b)
{
	if (!b->open)
		return;
	d->message = sbuf_detach(&b->msg);
	b->open = 0;
}

int nvrtc_parse_log(const char *log, struct nvrtc_diag **out)
{
	struct nvrtc_diag *d = NULL, *cur;
	struct diag_builder b = { .msg = SBUF_INIT };
	struct match m;
	size_t cap = 0, n = 0, len;
	const char *p, *e;

	*out = NULL;
	if (!log)
		return 0;
	pthread_once(&re_once, re_init);
	m.md = pcre2_match_data_create(8, NULL);
	if (!m.md)
		abort();
	for (p = log; *p; p = *e ? e + 1 : e) {
		const char *sev = NULL;
		char *file = NULL, *text = NULL, *code = NULL;
		int line = 0, ptx_line = 0, takes_cont = 1;

		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		len = (size_t)(e - p);
		if (len && p[len - 1] == '\r')
			len--;

		if (re_match(&m, RE_FILE, p, len)) {
			file = group(&m, 1);
			line = group_int(&m, 2);
			text = group(&m, 3);
			sev = norm_severity(text);
			free(text);
			code = group(&m, 4);
			text = group(&m, 5);
		} else if (re_match(&m, RE_END, p, len)) {
			char *rest;

			file = xstrdup("");
			text = group(&m, 1);
			sev = norm_severity(text);
			free(text);
			code = group(&m, 2);
			rest = group(&m, 3);
			text = xasprintf("at end of source: %s", rest);
			free(rest);
		} else if (re_match(&m, RE_TOOL, p, len)) {
			char *word = group(&m, 2);

			if (!strcmp(word, "info")) {
				free(word);
				if (n)
					finish(&d[n - 1], &b);
				continue;
			}
			sev = norm_severity(word);
			free(word);
			file = xstrdup("");
			code = xstrdup("");
			takes_cont = 0;
			ptx_line = group_set(&m, 1) ? group_int(&m, 1) : 0;
			text = group(&m, 3);
		} else if (re_match(&m, RE_BARE, p, len)) {
			file = xstrdup("");
			text = group(&m, 1);
			sev = norm_severity(text);
			free(text);
			code = group(&m, 2);
			text = group(&m, 3);
		}

		if (sev) {
			if (n)
				finish(&d[n - 1], &b);
			XGROW(d, n + 1, cap);
			cur = &d[n++];
			memset(cur, 0, sizeof(*cur));
			cur->file = file;
			cur->line = line;
			cur->severity = xstrdup(sev);
			if (ptx_line)
				sbuf_addf(&b.msg, "ptx line %d: ", ptx_line);
			sbuf_add(&b.msg, text, strlen(text) > MAX_MESSAGE ? MAX_MESSAGE : strlen(text));
			if (code && *code)
				sbuf_addf(&b.msg, " [#%s]", code);
			free(text);
			free(code);
			b.open = 1;
			b.takes_cont = takes_cont;
			b.cont = 0;
			b.echo_seen = 0;
			continue;
		}

		/* Not a diagnostic line: a continuation of the open one, or noise between them. */
		if (!n || !b.open)
			continue;
		if (len == 0 || !b.takes_cont || re_match(&m, RE_SUMMARY, p, len)) {
			finish(&d[n - 1], &b);
			continue;
		}
		cur = &d[n - 1];
		if (b.echo_seen && cur->line && !cur->col && re_match(&m, RE_CARET, p, len)) {
			/* The echo and the caret are indented by two spaces; blanks keep the source's tabs. */
			const char *caret = memchr(p, '^', len);

			cur->col = (int)(caret - p) - 1;
		}
		b.echo_seen = b.cont == 0;
		if (b.cont < MAX_CONT_LINES) {
			size_t take = len > MAX_CONT_LINE_LEN ? MAX_CONT_LINE_LEN : len;

			sbuf_adds(&b.msg, "\n");
			sbuf_add(&b.msg, p, take);
			if (take < len)
				sbuf_adds(&b.msg, "...");
		} else if (b.cont == MAX_CONT_LINES) {
			sbuf_adds(&b.msg, "\n...");
		}
		b.cont++;
	}
	if (n)
		finish(&d[n - 1], &b);
	sbuf_release(&b.msg);
	pcre2_match_data_free(m.md);
	*out = d;
	return (int)n;
}

void nvrtc_diags_free(struct nvrtc_diag *d, int n)
{
	int i;

	if (!d)
		return;
	for (i = 0; i < n; i++) {
		free(d[i].file);
		free(d[i].severity);
		free(d[i].message);
	}
	free(d);
}

void nvrtc_output_free(struct nvrtc_output *out)
{
	if (!out)
		return;
	free(out->log);
	free(out->cubin);
	nvrtc_diags_free(out->diags, out->ndiags);
	memset(out, 0, sizeof(*out));
}

/* ---------------------------------------------------------------- compiling ---- */

#ifdef HAVE_CUDA

int nvrtc_built(void)
{
	return 1;
}

/* Keep at most LOG_LIMIT bytes, cut at a line end where one is near, and say so. */
static char *truncate_log(char *log, size_t len)
{
	size_t cut;
	char *nl, *res;

	if (len <= LOG_LIMIT)
		return log;
	cut = LOG_LIMIT;
	log[cut] = '\0';
	nl = strrchr(log, '\n');
	if (nl && (size_t)(nl - log) > LOG_LIMIT / 2)
		cut = (size_t)(nl - log) + 1;
	log[cut] = '\0';
	res = xasprintf("%s%s[kbx: compile log truncated: %zu of %zu bytes shown]\n", log,
			cut && log[cut - 1] != '\n' ? "\n" : "", cut, len);
	free(log);
	return res;
}

/* A rejected #include as a compile error, in the log's own format, without NVRTC. */
static void gate_failure(struct nvrtc_output *out, const char *name, int line, char *why)
{
	out->ok = 0;
	out->log = xasprintf("%s(%d): error: %s\n\n1 error detected by kbx before compiling \"%s\" "
			     "(NVRTC was not run).\n", name, line, why, name);
	out->diags = xcalloc(1, sizeof(*out->diags));
	out->ndiags = 1;
	out->diags[0].file = xstrdup(name);
	out->diags[0].line = line;
	out->diags[0].severity = xstrdup("error");
	out->diags[0].message = why;
}

static pthread_once_t version_once = PTHREAD_ONCE_INIT;
static char version_buf[32] = "unknown";

static void version_init(void)
{
	int major, minor;

	if (nvrtcVersion(&major, &minor) == NVRTC_SUCCESS)
		snprintf(version_buf, sizeof(version_buf), "%d.%d", major, minor);
}

const char *nvrtc_version(void)
{
	pthread_once(&version_once, version_init);
	return version_buf;
}

/* Whether this NVRTC compiles for sm_<arch>; the list of the ones it does goes to sb. */
static int arch_supported(int arch, struct sbuf *sb)
{
	int n = 0, i, found = 0, *archs;

	if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || n > 1024)
		return 1;  /* cannot tell: let the compile say */
	archs = xcalloc((size_t)n, sizeof(*archs));
	if (nvrtcGetSupportedArchs(archs) != NVRTC_SUCCESS) {
		free(archs);
		return 1;
	}
	for (i = 0; i < n; i++) {
		found |= archs[i] == arch;
		sbuf_addf(sb, "%ssm_%d", i ? " " : "", archs[i]);
	}
	free(archs);
	return found;
}

static enum kbx_status nvrtc_fail(nvrtcResult r, const char *call, const char *name, const char *log)
{
	char first[256] = "";

	if (log && *log) {
		size_t k = strcspn(log, "\n");

		snprintf(first, sizeof(first), ": %.*s", (int)(k > 200 ? 200 : k), log);
	}
	return kbx_error(KBX_ENVRTC, "%s '%s': %s%s", call, name, nvrtcGetErrorString(r), first);
}

enum kbx_status nvrtc_compile(const char *src, const char *name, int arch, const char *cuda_include,
			      const char *kbx_include, struct nvrtc_output *out)
{
	const char *argv[MAX_OPTIONS];
	char *owned[MAX_OPTIONS], *why, *log = NULL;
	struct sbuf archs = SBUF_INIT;
	nvrtcProgram prog = NULL;
	nvrtcResult r;
	size_t log_size = 0, cubin_size = 0;
	double t0 = now_seconds();
	int argc, nowned, i, bad_line;
	enum kbx_status st = KBX_OK;

	memset(out, 0, sizeof(*out));
	if (!src)
		return kbx_error(KBX_EINVAL, "nvrtc_compile: no source");
	if (!name || !*name)
		name = DEFAULT_NAME;
	if (arch <= 0)
		arch = DEFAULT_ARCH;
	if (!cuda_include)
		cuda_include = nvrtc_cuda_include();

	if (!includes_ok(src, &bad_line, &why)) {
		gate_failure(out, name, bad_line, why);
		out->seconds = now_seconds() - t0;
		return KBX_OK;
	}
	if (!arch_supported(arch, &archs)) {
		st = kbx_error(KBX_ENVRTC, "NVRTC %s cannot compile for sm_%d (it supports %s)", nvrtc_version(), arch,
			       archs.buf);
		sbuf_release(&archs);
		return st;
	}
	sbuf_release(&archs);

	r = nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL);
	if (r != NVRTC_SUCCESS)
		return nvrtc_fail(r, "nvrtcCreateProgram", name, NULL);
	argc = build_options(arch, cuda_include, kbx_include, argv, owned, &nowned);
	r = nvrtcCompileProgram(prog, argc, argv);
	for (i = 0; i < nowned; i++)
		free(owned[i]);

	if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 0) {
		log = xmalloc(log_size + 1);
		if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS)
			log[0] = '\0';
		log[log_size] = '\0';
	} else {
		log = xstrdup("");
	}

	if (r == NVRTC_SUCCESS) {
		nvrtcResult rc = nvrtcGetCUBINSize(prog, &cubin_size);

		if (rc == NVRTC_SUCCESS && cubin_size > 0) {
			out->cubin = xmalloc(cubin_size);
			rc = nvrtcGetCUBIN(prog, out->cubin);
		}
		if (rc != NVRTC_SUCCESS || cubin_size == 0) {
			st = nvrtc_fail(rc != NVRTC_SUCCESS ? rc : NVRTC_ERROR_INTERNAL_ERROR, "nvrtcGetCUBIN", name, NULL);
			goto fail;
		}
		out->cubin_size = cubin_size;
		out->ok = 1;
	} else if (r != NVRTC_ERROR_COMPILATION) {
		st = nvrtc_fail(r, "nvrtcCompileProgram", name, log);
		goto fail;
	}
	nvrtcDestroyProgram(&prog);
	out->log = truncate_log(log, strlen(log));
	out->ndiags = nvrtc_parse_log(out->log, &out->diags);
	out->seconds = now_seconds() - t0;
	return KBX_OK;

fail:
	nvrtcDestroyProgram(&prog);
	free(log);
	nvrtc_output_free(out);
	return st;
}

#else /* !HAVE_CUDA */

int nvrtc_built(void)
{
	return 0;
}

const char *nvrtc_version(void)
{
	return "none";
}

enum kbx_status nvrtc_compile(const char *src, const char *name, int arch, const char *cuda_include,
			      const char *kbx_include, struct nvrtc_output *out)
{
	memset(out, 0, sizeof(*out));
	return kbx_error(KBX_ENOGPUBUILD, "GPU support was not built: configure found no CUDA headers");
}

#endif /* HAVE_CUDA */
