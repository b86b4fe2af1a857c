/*
 * syntax.h - CUDA C++ colouring with PCRE2, into role-tagged doc lines.
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
/* The role of one word (ROLE_KEYWORD, ROLE_TYPE, ROLE_BUILTIN or ROLE_CODE). */
int syntax_word_role(const char *w, size_t n);
/* Free the compiled pattern (at exit; it is compiled again when needed). */
void syntax_cleanup(void);

#endif
