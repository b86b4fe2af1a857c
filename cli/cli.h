/*
 * cli.h - the command-line interface: one function per command, shared options, printers.
 */
#ifndef KBX_CLI_H
#define KBX_CLI_H

#include <stdio.h>

#include "../core/events.h"
#include "../core/task.h"

struct cli {
	const char *db_path;        /* --db, else db_default_path() */
	const char *tasks_root;     /* --tasks, else task_default_root() */
	int no_history;             /* --no-history */
	struct catalogue cat;
	int cat_loaded;
};

/* Load the catalogue once; prints the error and returns nonzero on failure. */
int cli_catalogue(struct cli *c);
/* Find a task or print "unknown task" with close matches; NULL when not found. */
const struct task *cli_task(struct cli *c, const char *id);
/* Print "kbx: message" to stderr; returns the exit status to use. */
int cli_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int cmd_list(struct cli *c, int argc, char **argv);
int cmd_show(struct cli *c, int argc, char **argv);
int cmd_starter(struct cli *c, int argc, char **argv);
int cmd_run(struct cli *c, int argc, char **argv);
int cmd_export(struct cli *c, int argc, char **argv);
int cmd_eval(struct cli *c, int argc, char **argv);
int cmd_worker(struct cli *c, int argc, char **argv);
int cmd_history(struct cli *c, int argc, char **argv);
int cmd_db(struct cli *c, int argc, char **argv);
int cmd_doctor(struct cli *c, int argc, char **argv);

/* Human-readable run output on `out` (print.c). */
struct text_printer {
	FILE *out;
	int color;
	int verbose;
	int cases, cases_failed;
	int perf_header_done;
	enum verdict verdict;       /* V_ERROR until the done event */
};
struct run_events text_printer_events(struct text_printer *p);

/* Collects a whole run as one JSON document (print.c); json_printer_dump prints it. */
struct json_printer;
struct json_printer *json_printer_new(const char *task_id);
struct run_events json_printer_events(struct json_printer *p);
enum verdict json_printer_verdict(const struct json_printer *p);
void json_printer_dump(struct json_printer *p, FILE *out);
void json_printer_free(struct json_printer *p);

/* "★★☆☆☆" for a difficulty (ASCII "**---" when the locale is not UTF-8). */
const char *cli_stars(int difficulty, char *buf, size_t len);
int cli_utf8(void);

#endif
