/*
 * reftimes.c - the reference's kept timings (core/reftime.h) in the history: one row per key,
 * replaced by each new live timing; rows older than REFTIMES_KEEP_S are dropped as new ones come.
 */
#include "db.h"

#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "../core/reftime.h"

#define REFTIMES_KEEP_S (30.0 * 86400)

enum kbx_status db_reftime_get(struct db *db, const char *key, struct ref_timing *out)
{
	sqlite3_stmt *st;
	enum kbx_status ret;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = sqlite3_prepare_v2(db_sqlite(db),
				"SELECT median, p20, p80, min, max, mean, stddev, n, sm_mhz, min_sm_mhz, max_sm_mhz,"
				" mem_mhz, clock_readings, measured_at FROM ref_timings WHERE key = ?1",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_error(db, "read the reference's kept timings");
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		struct sample_stats *s = &out->s;
		struct clock_summary *c = &out->clocks;

		s->median = sqlite3_column_double(st, 0);
		s->p20 = sqlite3_column_double(st, 1);
		s->p80 = sqlite3_column_double(st, 2);
		s->min = sqlite3_column_double(st, 3);
		s->max = sqlite3_column_double(st, 4);
		s->mean = sqlite3_column_double(st, 5);
		s->stddev = sqlite3_column_double(st, 6);
		s->n = sqlite3_column_int(st, 7);
		c->sm_mhz = sqlite3_column_double(st, 8);
		c->min_sm_mhz = sqlite3_column_double(st, 9);
		c->max_sm_mhz = sqlite3_column_double(st, 10);
		c->mem_mhz = sqlite3_column_double(st, 11);
		c->valid = sqlite3_column_int(st, 12);
		out->measured_at = sqlite3_column_double(st, 13);
		ret = KBX_OK;
	} else if (rc == SQLITE_DONE) {
		ret = kbx_error(KBX_ENOTFOUND, "no kept reference timing '%s'", key);
	} else {
		ret = db_error(db, "read the reference's kept timings");
	}
	sqlite3_finalize(st);
	return ret;
}

enum kbx_status db_reftime_put(struct db *db, const char *key, const char *task_id, const char *gpu_name, int row,
			       const struct ref_timing *t)
{
	sqlite3 *sq = db_sqlite(db);
	sqlite3_stmt *st;
	const struct sample_stats *s = &t->s;
	const struct clock_summary *c = &t->clocks;
	int rc;

	if (!key || !task_id)
		return kbx_error(KBX_EINVAL, "a kept reference timing needs a key and a task");
	rc = sqlite3_prepare_v2(sq,
				"INSERT OR REPLACE INTO ref_timings (key, task_id, gpu, \"row\", median, p20, p80, min, max,"
				" mean, stddev, n, sm_mhz, min_sm_mhz, max_sm_mhz, mem_mhz, clock_readings, measured_at)"
				" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_error(db, "keep the reference's timing of '%s'", task_id);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, task_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, gpu_name ? gpu_name : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, row);
	sqlite3_bind_double(st, 5, s->median);
	sqlite3_bind_double(st, 6, s->p20);
	sqlite3_bind_double(st, 7, s->p80);
	sqlite3_bind_double(st, 8, s->min);
	sqlite3_bind_double(st, 9, s->max);
	sqlite3_bind_double(st, 10, s->mean);
	sqlite3_bind_double(st, 11, s->stddev);
	sqlite3_bind_int(st, 12, s->n);
	sqlite3_bind_double(st, 13, c->sm_mhz);
	sqlite3_bind_double(st, 14, c->min_sm_mhz);
	sqlite3_bind_double(st, 15, c->max_sm_mhz);
	sqlite3_bind_double(st, 16, c->mem_mhz);
	sqlite3_bind_int(st, 17, c->valid);
	sqlite3_bind_double(st, 18, t->measured_at > 0 ? t->measured_at : db_now());
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(db, "keep the reference's timing of '%s'", task_id);
	rc = sqlite3_prepare_v2(sq, "DELETE FROM ref_timings WHERE measured_at < ?1", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_double(st, 1, db_now() - REFTIMES_KEEP_S);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
	}
	return rc == SQLITE_DONE ? KBX_OK : db_error(db, "drop old kept reference timings");
}
