/*
 * refouts.c - the reference's kept outputs at perf rows (core/refout.h) in the history: one blob
 * per key, replaced by each new one; the oldest go first once they hold DB_REFOUTS_MAX_BYTES,
 * and none stays longer than REFOUTS_KEEP_S.
 */
#include "db.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "../core/util.h"

#define REFOUTS_KEEP_S (30.0 * 86400)

enum kbx_status db_refout_get(struct db *db, const char *key, void **blob, size_t *size)
{
	sqlite3_stmt *st;
	enum kbx_status ret;
	int rc;

	*blob = NULL;
	*size = 0;
	rc = sqlite3_prepare_v2(db_sqlite(db), "SELECT data FROM ref_outputs WHERE key = ?1", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_error(db, "read the reference's kept outputs");
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const void *p = sqlite3_column_blob(st, 0);
		int n = sqlite3_column_bytes(st, 0);

		*blob = xmalloc(n > 0 ? (size_t)n : 1);
		if (n > 0)
			memcpy(*blob, p, (size_t)n);
		*size = (size_t)(n > 0 ? n : 0);
		ret = KBX_OK;
	} else if (rc == SQLITE_DONE) {
		ret = kbx_error(KBX_ENOTFOUND, "no kept reference outputs '%s'", key);
	} else {
		ret = db_error(db, "read the reference's kept outputs");
	}
	sqlite3_finalize(st);
	return ret;
}

enum kbx_status db_refout_usage(struct db *db, long long *count, long long *bytes)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(db_sqlite(db), "SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM ref_outputs", -1, &st,
				NULL);
	if (rc != SQLITE_OK)
		return db_error(db, "count the reference's kept outputs");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*count = sqlite3_column_int64(st, 0);
		*bytes = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? KBX_OK : db_error(db, "count the reference's kept outputs");
}

enum kbx_status db_refout_trim(struct db *db, long long cap)
{
	sqlite3 *sq = db_sqlite(db);
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(sq,
				"DELETE FROM ref_outputs WHERE key IN (SELECT key FROM (SELECT key, SUM(bytes) OVER"
				" (ORDER BY kept_at DESC, key) AS upto FROM ref_outputs) WHERE upto > ?1)"
				" OR kept_at < ?2",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_error(db, "drop old kept reference outputs");
	sqlite3_bind_int64(st, 1, cap);
	sqlite3_bind_double(st, 2, db_now() - REFOUTS_KEEP_S);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? KBX_OK : db_error(db, "drop old kept reference outputs");
}

enum kbx_status db_refout_clear(struct db *db)
{
	if (sqlite3_exec(db_sqlite(db), "DELETE FROM ref_outputs", NULL, NULL, NULL) != SQLITE_OK)
		return db_error(db, "drop the reference's kept outputs");
	if (sqlite3_exec(db_sqlite(db), "VACUUM", NULL, NULL, NULL) != SQLITE_OK)
		return db_error(db, "give the kept outputs' space back (VACUUM)");
	return KBX_OK;
}

enum kbx_status db_refout_put(struct db *db, const char *key, const char *task_id, const void *blob, size_t size)
{
	sqlite3_stmt *st;
	int rc;

	if (!key || !task_id || !blob)
		return kbx_error(KBX_EINVAL, "kept reference outputs need a key, a task and a blob");
	if ((long long)size > DB_REFOUTS_MAX_BYTES || size > (size_t)0x7fffffff)
		return kbx_error(KBX_EINVAL, "reference outputs of %zu bytes are too large to keep", size);
	rc = sqlite3_prepare_v2(db_sqlite(db),
				"INSERT OR REPLACE INTO ref_outputs (key, task_id, bytes, data, kept_at)"
				" VALUES (?1, ?2, ?3, ?4, ?5)",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_error(db, "keep the reference's outputs of '%s'", task_id);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, task_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)size);
	sqlite3_bind_blob(st, 4, blob, (int)size, SQLITE_STATIC);
	sqlite3_bind_double(st, 5, db_now());
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(db, "keep the reference's outputs of '%s'", task_id);
	return db_refout_trim(db, DB_REFOUTS_MAX_BYTES);
}
