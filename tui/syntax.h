/*
 * syntax.h - CUDA C++ (with PCRE2) and Python colouring, into role-tagged doc lines.
 *
 * One regular expression finds comments, strings, character literals, numbers and words; words
 * are sorted into keywords, types and CUDA built-ins (threadIdx, __syncthreads, atomicAdd, ...).
 * Preprocessor lines and `// @kbx` launch lines get their own roles. A block comment may span
 * lines: the caller keeps *in_comment between the lines of one file (0 at the start).
 */
#ifndef KBX_TUI_SYNTAX_H
#define KBX_TUI_SYNTAX_H

#include <stddef.h>

#include "doc.h"

/* Append line[0..n) (without its newline), coloured, to d's current line. */
void syntax_line(struct doc *d, const char *line, size_t n, int *in_comment);
/* The same for Python (a Python/Triton candidate): '#' comments, strings (a triple-quoted one
 * may span lines: *in_string keeps its open quote between lines, 0 at the start), numbers,
 * keywords, decorators, Triton's and torch's names. */
void syntax_line_python(struct doc *d, const char *line, size_t n, int *in_string);
/* syntax_line, or syntax_line_python when python is set; *state as each of them keeps it. */
void syntax_line_lang(struct doc *d, const char *line, size_t n, int *state, int python);
/* The role of one word (ROLE_KEYWORD, ROLE_TYPE, ROLE_BUILTIN or ROLE_CODE). */
int syntax_word_role(const char *w, size_t n);
/* Free the compiled pattern (at exit; it is compiled again when needed). */
void syntax_cleanup(void);

#endif
