/*
 * syntax.c - CUDA C++ colouring.
 */
#include "syntax.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "theme.h"

/* Bytes, not UTF-8 (no PCRE2_UTF): a source with invalid UTF-8 must still be coloured, and
 * every token the pattern knows is ASCII. */
static const char pattern[] =
	"(?<lc>//.*)"
	"|(?<bc>/\\*)"
	"|(?<str>\"(?:[^\"\\\\]|\\\\.)*\"?)"
	"|(?<chr>'(?:[^'\\\\]|\\\\.)*'?)"
	"|(?<num>(?<![\\w.])(?:0[xX][0-9a-fA-F']+[uUlL]*"
	"|(?:\\d[\\d']*\\.?[\\d']*|\\.\\d[\\d']*)(?:[eE][+-]?\\d+)?[fFuUlLhH]*))"
	"|(?<id>[A-Za-z_]\\w*)";

static pcre2_code *re;
static pcre2_match_data *md;
static int g_lc, g_bc, g_str, g_chr, g_num, g_id;

static int compile_pattern(void)
{
	int err;
	PCRE2_SIZE off;

	if (re)
		return 1;
	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
	if (!re)
		return 0;
	md = pcre2_match_data_create_from_pattern(re, NULL);
	g_lc = pcre2_substring_number_from_name(re, (PCRE2_SPTR) "lc");
	g_bc = pcre2_substring_number_from_name(re, (PCRE2_SPTR) "bc");
	g_str = pcre2_substring_number_from_name(re, (PCRE2_SPTR) "str");
	g_chr = pcre2_substring_number_from_name(re, (PCRE2_SPTR) "chr");
	g_num = pcre2_substring_number_from_name(re, (PCRE2_SPTR) "num");
	g_id = pcre2_substring_number_from_name(re, (PCRE2_SPTR) "id");
	return 1;
}

void syntax_cleanup(void)
{
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	md = NULL;
	re = NULL;
}

/* Sorted (strcmp order) for bsearch. */
static const char *const keywords[] = {
	"alignas", "alignof", "asm", "auto", "break", "case", "catch", "class", "const", "const_cast",
	"constexpr", "continue", "decltype", "default", "delete", "do", "dynamic_cast", "else", "enum",
	"explicit", "extern", "false", "for", "friend", "goto", "if", "inline", "mutable", "namespace",
	"new", "noexcept", "nullptr", "operator", "private", "protected", "public", "register",
	"reinterpret_cast", "restrict", "return", "sizeof", "static", "static_assert", "static_cast",
	"struct", "switch", "template", "this", "throw", "true", "try", "typedef", "typename", "union",
	"using", "virtual", "volatile", "while",
};

static const char *const types[] = {
	"bool", "char", "char1", "char2", "char3", "char4", "dim3", "double", "double2", "double3",
	"double4", "float", "float1", "float2", "float3", "float4", "half", "half2", "int", "int1",
	"int2", "int3", "int4", "long", "long2", "long4", "longlong2", "nv_bfloat16", "nv_bfloat162",
	"short", "short2", "short4", "signed", "uchar2", "uchar4", "uint", "uint2", "uint3", "uint4",
	"unsigned", "ushort2", "void",
};

static const char *const builtins[] = {
	"blockDim", "blockIdx", "gridDim", "threadIdx", "warpSize",
};

static int cmp_word(const void *key, const void *elem)
{
	const char *const *e = elem;
	const char *k = key;

	return strcmp(k, *e);
}

static int in_set(const char *w, const char *const *set, size_t n)
{
	return bsearch(w, set, n, sizeof(*set), cmp_word) != NULL;
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

int syntax_word_role(const char *w, size_t n)
{
	char buf[64];

	if (n == 0 || n >= sizeof(buf))
		return ROLE_CODE;
	memcpy(buf, w, n);
	buf[n] = '\0';
	/* __global__, __syncthreads, __half, __shfl_down_sync: CUDA's reserved names */
	if (n > 2 && buf[0] == '_' && buf[1] == '_') {
		if (!strcmp(buf, "__half") || !strcmp(buf, "__half2") || !strncmp(buf, "__nv_", 5))
			return ROLE_TYPE;
		return ROLE_BUILTIN;
	}
	if (!strncmp(buf, "atomic", 6) || in_set(buf, builtins, NELEM(builtins)))
		return ROLE_BUILTIN;
	if (in_set(buf, keywords, NELEM(keywords)))
		return ROLE_KEYWORD;
	if (in_set(buf, types, NELEM(types)) || (n > 2 && !strcmp(buf + n - 2, "_t")))
		return ROLE_TYPE;
	return ROLE_CODE;
}

static int comment_role(const char *s, size_t n)
{
	return memmem(s, n, "@kbx", 4) ? ROLE_KBXLINE : ROLE_COMMENT;
}

void syntax_line(struct doc *d, const char *line, size_t n, int *in_comment)
{
	size_t pos = 0;

	doc_tab_origin(d);
	if (*in_comment) {
		const char *end = memmem(line, n, "*/", 2);

		if (!end) {
			doc_addn(d, ROLE_COMMENT, line, n);
			return;
		}
		pos = (size_t)(end - line) + 2;
		doc_addn(d, ROLE_COMMENT, line, pos);
		*in_comment = 0;
	}
	/* a preprocessor directive: "#include <x>" or "# define X" */
	{
		size_t i = pos;

		while (i < n && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (pos == 0 && i < n && line[i] == '#') {
			size_t j = i + 1, word;

			while (j < n && (line[j] == ' ' || line[j] == '\t'))
				j++;
			word = j;
			while (j < n && ((line[j] >= 'a' && line[j] <= 'z') || line[j] == '_'))
				j++;
			doc_addn(d, ROLE_PREPROC, line, j);
			if (j - word == 7 && !strncmp(line + word, "include", 7)) {
				size_t k = j;

				while (k < n && (line[k] == ' ' || line[k] == '\t'))
					k++;
				if (k < n && line[k] == '<') {
					const char *gt = memchr(line + k, '>', n - k);
					size_t e = gt ? (size_t)(gt - line) + 1 : n;

					doc_addn(d, ROLE_CODE, line + j, k - j);
					doc_addn(d, ROLE_STRING, line + k, e - k);
					j = e;
				}
			}
			pos = j;
		}
	}
	if (!compile_pattern()) {
		doc_addn(d, ROLE_CODE, line + pos, n - pos);
		return;
	}
	while (pos < n) {
		PCRE2_SIZE *ov;
		int rc = pcre2_match(re, (PCRE2_SPTR)line, n, pos, 0, md, NULL);
		size_t s, e;
		int role = ROLE_CODE;

		if (rc < 0) {
			doc_addn(d, ROLE_CODE, line + pos, n - pos);
			return;
		}
		ov = pcre2_get_ovector_pointer(md);
		s = ov[0];
		e = ov[1];
		if (s > pos)
			doc_addn(d, ROLE_CODE, line + pos, s - pos);
		if (rc > g_lc && ov[2 * g_lc] != PCRE2_UNSET) {
			role = comment_role(line + s, e - s);
		} else if (rc > g_bc && ov[2 * g_bc] != PCRE2_UNSET) {
			const char *end = memmem(line + s + 2, n - s - 2, "*/", 2);

			if (end) {
				e = (size_t)(end - line) + 2;
			} else {
				e = n;
				*in_comment = 1;
			}
			role = comment_role(line + s, e - s);
		} else if ((rc > g_str && ov[2 * g_str] != PCRE2_UNSET) || (rc > g_chr && ov[2 * g_chr] != PCRE2_UNSET)) {
			role = ROLE_STRING;
		} else if (rc > g_num && ov[2 * g_num] != PCRE2_UNSET) {
			role = ROLE_NUMLIT;
		} else if (rc > g_id && ov[2 * g_id] != PCRE2_UNSET) {
			role = syntax_word_role(line + s, e - s);
		}
		if (e == s) {
			/* an empty match cannot happen with this pattern; never loop on one */
			doc_addn(d, ROLE_CODE, line + s, 1);
			pos = s + 1;
			continue;
		}
		doc_addn(d, role, line + s, e - s);
		pos = e;
	}
}

/* ------------------------------------------------------------------ Python ---- */

static const char *const py_keywords[] = {
	"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
	"def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
	"is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
};

/* Triton's and torch's names a kernel reader looks for first */
static const char *const py_builtins[] = {
	"arange", "atomic_add", "atomic_max", "cdiv", "constexpr", "dot", "empty", "empty_like", "jit", "load",
	"num_programs", "program_id", "store", "tl", "torch", "triton", "where", "zeros", "zeros_like",
};

static const char *const py_types[] = {
	"bfloat16", "bool", "float", "float16", "float32", "float64", "float8e4nv", "int", "int16", "int32",
	"int64", "int8", "str", "uint8",
};

static int is_alpha(char c)
{
	return c == '_' || ((c | 32) >= 'a' && (c | 32) <= 'z');
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* r"...", b'...', f"...": a string prefix, not the end of a name */
static int string_prefix_at(const char *line, size_t n, size_t s)
{
	return line[s] && strchr("rbfuRBFU", line[s]) && s + 1 < n && (line[s + 1] == '"' || line[s + 1] == '\'') &&
	       (s == 0 || !(is_alpha(line[s - 1]) || is_digit(line[s - 1])));
}

static int only_blanks_before(const char *line, size_t s)
{
	size_t i;

	for (i = 0; i < s; i++)
		if (line[i] != ' ' && line[i] != '\t')
			return 0;
	return 1;
}

static int py_word_role(const char *w, size_t n)
{
	char buf[64];

	if (n == 0 || n >= sizeof(buf))
		return ROLE_CODE;
	memcpy(buf, w, n);
	buf[n] = '\0';
	if (in_set(buf, py_keywords, NELEM(py_keywords)))
		return ROLE_KEYWORD;
	if (in_set(buf, py_types, NELEM(py_types)))
		return ROLE_TYPE;
	if (in_set(buf, py_builtins, NELEM(py_builtins)))
		return ROLE_BUILTIN;
	return ROLE_CODE;
}

/* The end of a string that opened with `quote` (tripled when triple) from line[pos]: the index
 * past its closing quote, or n with *open set when it runs past the line (a triple-quoted one). */
static size_t py_string_end(const char *line, size_t n, size_t pos, char quote, int triple, int *open)
{
	while (pos < n) {
		if (line[pos] == '\\') {
			pos += 2;
			continue;
		}
		if (line[pos] == quote && (!triple || (pos + 2 < n && line[pos + 1] == quote && line[pos + 2] == quote)))
			return pos + (triple ? 3 : 1);
		pos++;
	}
	*open = triple;
	return n;
}

void syntax_line_python(struct doc *d, const char *line, size_t n, int *in_string)
{
	size_t pos = 0;

	doc_tab_origin(d);
	if (*in_string) {
		int open = 0;
		size_t e = py_string_end(line, n, 0, (char)*in_string, 1, &open);

		doc_addn(d, ROLE_STRING, line, e);
		if (open)
			return;
		*in_string = 0;
		pos = e;
	}
	while (pos < n) {
		size_t s = pos, e;
		char c = line[pos];
		int role = ROLE_CODE;

		if (c == '#') {
			doc_addn(d, comment_role(line + s, n - s), line + s, n - s);
			return;
		}
		if (c == '@' && only_blanks_before(line, s)) {
			e = s + 1;
			while (e < n && !strchr(" \t(#", line[e]))
				e++;
			role = ROLE_PREPROC;
		} else if (c == '"' || c == '\'' || string_prefix_at(line, n, s)) {
			size_t q = c == '"' || c == '\'' ? s : s + 1;
			char quote = line[q];
			int triple = q + 2 < n && line[q + 1] == quote && line[q + 2] == quote, open = 0;

			e = py_string_end(line, n, q + (triple ? 3 : 1), quote, triple, &open);
			if (open)
				*in_string = quote;
			role = ROLE_STRING;
		} else if (is_digit(c) || (c == '.' && s + 1 < n && is_digit(line[s + 1]))) {
			/* 12, 1.5e-3, 0x1F, 1_000: digits, letters and dots, and a sign after an exponent */
			e = s + 1;
			while (e < n && (is_digit(line[e]) || is_alpha(line[e]) || line[e] == '.' ||
					 ((line[e] == '+' || line[e] == '-') && (line[e - 1] | 32) == 'e')))
				e++;
			role = ROLE_NUMLIT;
		} else if (is_alpha(c)) {
			e = s + 1;
			while (e < n && (is_alpha(line[e]) || is_digit(line[e])))
				e++;
			role = py_word_role(line + s, e - s);
		} else {
			e = s + 1;
			while (e < n && !strchr("#\"'@", line[e]) && !is_alpha(line[e]) && !is_digit(line[e]))
				e++;
		}
		doc_addn(d, role, line + s, e - s);
		pos = e;
	}
}

void syntax_line_lang(struct doc *d, const char *line, size_t n, int *state, int python)
{
	if (python)
		syntax_line_python(d, line, n, state);
	else
		syntax_line(d, line, n, state);
}
