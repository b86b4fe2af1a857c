/* kbx db: the history file itself: where it is, merging other histories into it, and dropping the
 * reference's kept outputs. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../db/db.h"
#include "cli.h"

static const char db_usage[] =
	"usage: kbx db merge FILE...\n"
	"       kbx db path\n"
	"       kbx db drop-outputs\n"
	"\n"
	"  merge FILE...   copy the runs of other histories (one per GPU worker, say) into this one\n"
	"                  (--db PATH, else the default), with their cases, timings and compile\n"
	"                  cache; runs already here are skipped, so merging a file again adds nothing\n"
	"  path            print the path of the history\n"
	"  drop-outputs    drop the reference's outputs kept at perf rows (kbx doctor's 'kept'\n"
	"                  line) and give their space back; later runs run the reference again\n";

static int db_merge_files(struct cli *c, int nfiles, char **files)
{
	struct db *db;
	int rc = 0;

	if (nfiles < 1)
		return cli_fail(2, "db merge needs at least one history to merge (see kbx db --help)");
	if (db_open(c->db_path, &db))
		return cli_fail(2, "%s", kbx_last_error());
	/* Each file is its own transaction: one that fails leaves the others merged. */
	for (int i = 0; i < nfiles; i++) {
		struct db_merge_stats ms;

		if (db_merge(db, files[i], &ms) != KBX_OK) {
			rc = cli_fail(2, "%s", kbx_last_error());
			continue;
		}
		printf("merged %d runs from %s (%d already present)\n", ms.runs_merged, files[i], ms.runs_present);
		fflush(stdout);
	}
	db_close(db);
	return rc;
}

static int db_drop_outputs(struct cli *c, int nargs, char **args)
{
	struct db *db;
	long long count = 0, bytes = 0;

	if (nargs > 0)
		return cli_fail(2, "db drop-outputs takes no arguments ('%s')", args[0]);
	if (db_open(c->db_path, &db))
		return cli_fail(2, "%s", kbx_last_error());
	if (db_refout_usage(db, &count, &bytes) != KBX_OK || db_refout_clear(db) != KBX_OK) {
		int rc = cli_fail(2, "%s", kbx_last_error());

		db_close(db);
		return rc;
	}
	db_close(db);
	printf("dropped %lld kept reference output(s), %.1f MiB\n", count, bytes / 1048576.0);
	return 0;
}

int cmd_db(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	const char *sub;
	int opt;

	if (argc < 2)
		return cli_usage_error("db", "expected merge FILE..., path or drop-outputs");
	sub = argv[1];
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		fputs(db_usage, stdout);
		return 0;
	}
	/* Options of the subcommand: getopt sees "merge" as its program name. */
	while ((opt = getopt_long(argc - 1, argv + 1, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'h': fputs(db_usage, stdout); return 0;
		default: return cli_bad_option("db", opt, argv + 1);
		}
	}
	if (!strcmp(sub, "merge"))
		return db_merge_files(c, argc - 1 - optind, argv + 1 + optind);
	if (!strcmp(sub, "path")) {
		if (optind < argc - 1)
			return cli_fail(2, "db path takes no arguments ('%s')", argv[1 + optind]);
		printf("%s\n", c->db_path);
		return 0;
	}
	if (!strcmp(sub, "drop-outputs"))
		return db_drop_outputs(c, argc - 1 - optind, argv + 1 + optind);
	return cli_fail(2, "unknown db command '%s' (merge, path or drop-outputs)", sub);
}
