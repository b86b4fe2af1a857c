/* kbx list: the catalogue, grouped by category. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char list_usage[] =
	"usage: kbx list [--json] [--category C]\n"
	"\n"
	"The task catalogue grouped by category: name, difficulty and summary.\n"
	"  --json          a JSON array of {id, category, name, difficulty, summary, cases, perf_rows}\n"
	"  --category C    only the tasks of category C\n";

int cmd_list(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "category", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	const char *category = NULL;
	int opt, json = 0, i, shown = 0;
	const char *last = "";

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = 1; break;
		case 'c': category = optarg; break;
		case 'h': fputs(list_usage, stdout); return 0;
		default: return cli_bad_option("list", opt, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("list", "takes no arguments ('%s')", argv[optind]);
	if (cli_catalogue(c))
		return 2;
	if (json) {
		json_t *a = json_array();

		for (i = 0; i < c->cat.ntasks; i++) {
			const struct task *t = c->cat.tasks[i];

			if (category && strcasecmp(category, t->category))
				continue;
			json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:i, s:s, s:i, s:i}", "id", t->id, "category",
							   t->category, "name", t->name, "difficulty", t->difficulty,
							   "summary", t->summary ? t->summary : "", "cases", t->ncases,
							   "perf_rows", t->perf.nrows));
		}
		json_dumpf(a, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(a);
		return 0;
	}
	for (i = 0; i < c->cat.ntasks; i++) {
		const struct task *t = c->cat.tasks[i];
		char stars[64];
		int n = 0, j;

		if (category && strcasecmp(category, t->category))
			continue;
		if (strcmp(last, t->category)) {
			for (j = i; j < c->cat.ntasks && !strcmp(c->cat.tasks[j]->category, t->category); j++)
				n++;
			printf("%s%s (%d)\n", shown ? "\n" : "", t->category, n);
			last = t->category;
		}
		printf("  %-40s %s  %s\n", t->name, cli_stars(t->difficulty, stars, sizeof(stars)),
		       t->summary ? t->summary : "");
		shown++;
	}
	if (!shown && category)
		return cli_fail(1, "no tasks in category '%s'", category);
	return 0;
}
