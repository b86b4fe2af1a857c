/*
 * taskini.h - reading a task.ini: every section with its full name and line, every key with its
 * value and line, in file order (core/task.c gives them meaning).
 *
 * Built on inih, fed through a reader of our own that counts lines, refuses lines inih would
 * cut, and keeps full section names. Errors name the file and the line (kbx_error, KBX_EPARSE).
 */
#ifndef KBX_TASKINI_H
#define KBX_TASKINI_H

#include <stddef.h>

#include "status.h"

struct raw_entry {
	char *key;
	char *value;
	int line;
};

struct raw_section {
	char *name;
	int line;
	struct raw_entry *e;
	int n, cap;
};

struct ini_state {
	const char *path;
	const char *buf;
	size_t len, pos;
	int lineno;             /* line last handed to inih */
	int cont;               /* that line continues the previous value */
	int have_key;           /* inih's "previous name" is set */
	struct raw_section *secs;
	int nsecs, cap;
	enum kbx_status st;
	int failed;
};

/* text[0..len) is the file's content; path only names it in messages. *s is set up even on an
 * error (what was read before it): taskini_free it either way. */
enum kbx_status taskini_parse(const char *path, const char *text, size_t len, struct ini_state *s);
/* The same for the file at path. */
enum kbx_status taskini_read(const char *path, struct ini_state *s);
void taskini_free(struct ini_state *s);
/* The section of that name, or NULL. */
const struct raw_section *taskini_section(const struct ini_state *s, const char *name);

#endif
