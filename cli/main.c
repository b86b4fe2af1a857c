/*
 * kbx - explorer and harness for the KernelBenchX GPU-kernel benchmark.
 */

#include <getopt.h>
#include <limits.h>
#include <unistd.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/gpu.h"
#include "../core/nvrtc.h"
#include "../core/util.h"
#include "../db/db.h"
#include "../tui/tui.h"
#include "cli.h"

static const char usage[] =
	"usage: kbx [--db PATH] [--tasks DIR] [COMMAND [ARGS]]\n"
	"\n"
	"Without a command, kbx opens the explorer.\n"
	"\n"
	"commands:\n"
	"  list [--json] [--category C]     the task catalogue\n"
	"  show TASK [--json]               a task's contract, cases, perf rows and golden data\n"
	"  starter TASK                     a skeleton candidate with the right signature\n"
	"  run TASK [FILE] [options]        compile, verify and time FILE (default: the reference)\n"
	"  history [--category C] [--task T] [--json]\n"
	"                                   past runs, summarised per category or task\n"
	"  db merge FILE... | db path       merge other histories into this one; where it is\n"
	"  eval SOURCE --out DIR [--gpus 0,1] [--shard I/N]\n"
	"                                   evaluate many candidates (predictions.jsonl, a folder)\n"
	"  export TASK [FILE] --dir D [--case NAME]\n"
	"                                   inputs and outputs of each case as .npy files\n"
	"  doctor [--calibrate] [--device N]\n"
	"                                   driver, GPU, NVRTC, history and golden table;\n"
	"                                   --calibrate measures the GPU's copy, FMA and tensor peaks\n"
	"  worker                           (internal) the process that does GPU work\n"
	"\n"
	"global options:\n"
	"  --db PATH        history database (default $XDG_DATA_HOME/kbx/history.db)\n"
	"  --tasks DIR      task catalogue (default: the built-in one, or $KBX_TASKS)\n"
	"  --theme NAME     explorer colours: default, light, high-contrast, mono (or $KBX_THEME)\n"
	"  -h, --help       this help; `kbx help COMMAND` or `kbx COMMAND --help` for a command's options\n"
	"  -V, --version    version and git revision\n";

int cli_fail(int status, const char *fmt, ...)
{
	va_list ap;

	fputs("kbx: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return status;
}

int cli_catalogue(struct cli *c)
{
	enum kbx_status st;
	int i;

	if (c->cat_loaded)
		return 0;
	st = catalogue_load(c->tasks_root, &c->cat);
	if (st)
		return cli_fail(2, "%s", kbx_last_error());
	for (i = 0; i < c->cat.nerrors; i++)
		cli_fail(0, "skipped: %s", c->cat.errors[i]);
	c->cat_loaded = 1;
	return 0;
}

const struct task *cli_task(struct cli *c, const char *id)
{
	const struct task *t;
	int i, shown = 0;

	if (cli_catalogue(c))
		return NULL;
	t = catalogue_find(&c->cat, id);
	if (t)
		return t;
	fprintf(stderr, "kbx: unknown task '%s'", id);
	for (i = 0; i < c->cat.ntasks && shown < 5; i++) {
		if (strstr(c->cat.tasks[i]->id, id) || strstr(id, c->cat.tasks[i]->name)) {
			fprintf(stderr, "%s%s", shown ? ", " : "; did you mean ", c->cat.tasks[i]->id);
			shown++;
		}
	}
	fprintf(stderr, "\n");
	return NULL;
}

int cli_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && !strcmp(cs, "UTF-8");
}

const char *cli_stars(int difficulty, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	for (i = 1; i <= 5 && off + 4 < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s",
					cli_utf8() ? (i <= difficulty ? "\u2605" : "\u2606") : (i <= difficulty ? "*" : "-"));
	return buf;
}

static void version(void)
{
	printf("kbx %s (%s)\n", PACKAGE_VERSION, KBX_GIT_REV);
	printf("GPU support: %s; NVRTC %s\n", gpu_built() ? "built" : "not built",
	       nvrtc_built() ? nvrtc_version() : "not built");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "tasks", required_argument, NULL, 't' },
		{ "no-history", no_argument, NULL, 'n' },
		{ "theme", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	static const struct {
		const char *name;
		int (*fn)(struct cli *, int, char **);
	} commands[] = {
		{ "list", cmd_list }, { "show", cmd_show }, { "starter", cmd_starter }, { "run", cmd_run },
		{ "db", cmd_db },
		{ "export", cmd_export }, { "eval", cmd_eval }, { "worker", cmd_worker }, { "history", cmd_history }, { "doctor", cmd_doctor },
	};
	struct cli c = { 0 };
	size_t i;
	int opt, rc, optind_global;
	static char tasks_abs[PATH_MAX], db_abs[PATH_MAX];

	setlocale(LC_ALL, "");
	/* Stop at the first non-option: the command parses its own options. */
	while ((opt = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (opt) {
		case 'd': c.db_path = optarg; break;
		case 't': c.tasks_root = optarg; break;
		case 'n': c.no_history = 1; break;
		case 'T': tui_set_theme(optarg); break;
		case 'h': fputs(usage, stdout); return 0;
		case 'V': version(); return 0;
		default: return cli_bad_option(NULL, opt, argv);
		}
	}
	if (!c.tasks_root)
		c.tasks_root = task_default_root();
	if (!c.db_path)
		c.db_path = db_default_path();
	/* The worker runs in a directory of its own: every path it gets must be absolute. */
	if (realpath(c.tasks_root, tasks_abs))
		c.tasks_root = tasks_abs;
	if (c.db_path[0] != '/' && getcwd(db_abs, sizeof(db_abs) - strlen(c.db_path) - 2)) {
		strcat(db_abs, "/");
		strcat(db_abs, c.db_path);
		c.db_path = db_abs;
	}
	if (optind >= argc) {
		if (cli_catalogue(&c))
			return 2;
		rc = tui_main(&c.cat, c.db_path, c.tasks_root);
		catalogue_free(&c.cat);
		return rc;
	}
	/* kbx help [COMMAND]: the usage, or the command's (as kbx COMMAND --help) */
	if (!strcmp(argv[optind], "help")) {
		static char help_opt[] = "--help";
		char *hargv[3];

		if (optind + 1 >= argc) {
			fputs(usage, stdout);
			return 0;
		}
		if (optind + 2 < argc)
			return cli_usage_error("help", "expected at most one COMMAND, not also '%s'", argv[optind + 2]);
		for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
			if (strcmp(argv[optind + 1], commands[i].name))
				continue;
			if (commands[i].fn == cmd_worker) {
				/* the worker reads requests on stdin: it is not started for a help text */
				puts("kbx worker: (internal) the process that compiles and runs candidates; --kept when it "
				     "serves run after run (kbx eval --reuse-worker): it keeps the CUDA context up between them");
				return 0;
			}
			hargv[0] = argv[optind + 1];
			hargv[1] = help_opt;
			hargv[2] = NULL;
			optind = 0;
			return commands[i].fn(&c, 2, hargv);
		}
		return cli_fail(2, "no command '%s' to help with (see kbx --help)", argv[optind + 1]);
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[optind], commands[i].name)) {
			optind_global = optind;
			optind = 0; /* re-initialise getopt for the command's own options */
			rc = commands[i].fn(&c, argc - optind_global, argv + optind_global);
			if (c.cat_loaded)
				catalogue_free(&c.cat);
			return rc;
		}
	}
	return cli_fail(2, "unknown command '%s' (see kbx --help)", argv[optind]);
}
