/*
 * fixture.h - what the history tests share: a private temporary folder, a history opened in it
 * (the cmocka fixture most of them run under), and a one-number query.
 */
#ifndef KBX_TESTS_DB_FIXTURE_H
#define KBX_TESTS_DB_FIXTURE_H

#include <stddef.h>

#include <sqlite3.h>

#include "core/util.h"
#include "db/db.h"

/* A fresh private folder under $TMPDIR (default /tmp); 0, or -1 when it cannot be made. */
int make_tmpdir(char *dir, size_t size);
/* Remove a folder and everything below it. */
void rm_tree(const char *dir);

/* A history at dir/history.db, opened by db_fixture_setup, closed and removed by
 * db_fixture_teardown (cmocka setup and teardown functions). */
struct db_fixture {
	char dir[256];
	char path[300];
	struct db *db;
};
int db_fixture_setup(void **state);
int db_fixture_teardown(void **state);

/* One integer from a raw query, its SQL formatted by sqlite3_vmprintf (%Q, %lld, ...): -1000 for
 * NULL or no row; a query that does not prepare fails the test. No printf attribute: the
 * compiler does not know %Q. */
long long q_int(sqlite3 *sq, const char *fmt, ...);
/* One text from a raw query, copied into buf ("<null>" for NULL or no row). */
const char *q_text(struct db *db, char *buf, size_t size, const char *sql);

#endif
