/*
 * fixture.c - the history tests' shared fixture (see fixture.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "core/status.h"

int make_tmpdir(char *dir, size_t size)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, size, "%s/kbx-test-db-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void rm_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int db_fixture_setup(void **state)
{
	struct db_fixture *f = xcalloc(1, sizeof(*f));

	if (make_tmpdir(f->dir, sizeof(f->dir)) != 0) {
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s/history.db", f->dir);
	if (db_open(f->path, &f->db) != KBX_OK) {
		fprintf(stderr, "%s\n", kbx_last_error());
		rm_tree(f->dir);
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

int db_fixture_teardown(void **state)
{
	struct db_fixture *f = *state;

	db_close(f->db);
	rm_tree(f->dir);
	free(f);
	return 0;
}

long long q_int(sqlite3 *sq, const char *fmt, ...)
{
	char *sql;
	sqlite3_stmt *st;
	long long v = -1000;
	va_list ap;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(sq));
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return v;
}

const char *q_text(struct db *db, char *buf, size_t size, const char *sql)
{
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db_sqlite(db), sql, -1, &st, NULL), SQLITE_OK);
	snprintf(buf, size, "<null>");
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}
