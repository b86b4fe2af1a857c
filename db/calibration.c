/*
 * calibration.c - each GPU's stored calibration (core/calibrate.h) in the history.
 */
#include "db.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "../core/calibrate.h"

#define CAL_BUSY_TIMEOUT_MS 5000

/* "Not measured" (< 0) and NaN become NULL. */
static int bind_measure(sqlite3_stmt *st, int i, double v)
{
	return isnan(v) || v < 0 || isinf(v) ? sqlite3_bind_null(st, i) : sqlite3_bind_double(st, i, v);
}

static double column_measure(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_double(st, i);
}

static void column_fixed(sqlite3_stmt *st, int i, char *buf, size_t size)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	snprintf(buf, size, "%s", t ? (const char *)t : "");
}

enum kbx_status db_calibration_save(struct db *db, const struct calibration *c)
{
	sqlite3 *sq = db_sqlite(db);
	sqlite3_stmt *st;
	int rc;

	if (!c->gpu_name[0])
		return kbx_error(KBX_EINVAL, "cannot store a calibration without a GPU name");
	rc = sqlite3_prepare_v2(sq,
				"INSERT OR REPLACE INTO calibration (gpu_uuid, gpu_name, copy_gbps, fma_tflops,"
				" tensor_tflops, peak_gbps, measured_at, kbx_version)"
				" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_error(db, "store the calibration of '%s'", c->gpu_name);
	sqlite3_bind_text(st, 1, c->gpu_uuid, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, c->gpu_name, -1, SQLITE_TRANSIENT);
	bind_measure(st, 3, c->copy_gbps);
	bind_measure(st, 4, c->fma_tflops);
	bind_measure(st, 5, c->tensor_tflops);
	bind_measure(st, 6, c->peak_gbps);
	sqlite3_bind_double(st, 7, c->measured_at > 0 ? c->measured_at : db_now());
	if (c->kbx_version[0])
		sqlite3_bind_text(st, 8, c->kbx_version, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 8);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(db, "store the calibration of '%s'", c->gpu_name);
	return KBX_OK;
}

/*
 * The lookup itself, on either kind of connection: SQLITE_ROW with *out filled, SQLITE_DONE when
 * there is none, else SQLite's error. The UUID is tried first: ORDER BY puts its row ahead of
 * every row that matches only by name.
 */
static int lookup(sqlite3 *sq, const char *uuid, const char *name, struct calibration *out)
{
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = sqlite3_prepare_v2(sq,
				"SELECT gpu_uuid, gpu_name, copy_gbps, fma_tflops, tensor_tflops, peak_gbps, measured_at,"
				" kbx_version FROM calibration"
				" WHERE (?1 <> '' AND gpu_uuid = ?1) OR gpu_name = ?2"
				" ORDER BY (?1 <> '' AND gpu_uuid = ?1) DESC, measured_at DESC LIMIT 1", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_text(st, 1, uuid ? uuid : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, name ? name : "", -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		column_fixed(st, 0, out->gpu_uuid, sizeof(out->gpu_uuid));
		column_fixed(st, 1, out->gpu_name, sizeof(out->gpu_name));
		out->copy_gbps = column_measure(st, 2);
		out->fma_tflops = column_measure(st, 3);
		out->tensor_tflops = column_measure(st, 4);
		out->peak_gbps = column_measure(st, 5);
		out->measured_at = sqlite3_column_double(st, 6);
		column_fixed(st, 7, out->kbx_version, sizeof(out->kbx_version));
	}
	sqlite3_finalize(st);
	return rc;
}

static enum kbx_status not_found(const char *uuid, const char *name)
{
	return kbx_error(KBX_ENOTFOUND, "no calibration for '%s'%s%s%s", name ? name : "", uuid && *uuid ? " (" : "",
			 uuid && *uuid ? uuid : "", uuid && *uuid ? ")" : "");
}

enum kbx_status db_calibration_find(struct db *db, const char *uuid, const char *name, struct calibration *out)
{
	int rc = lookup(db_sqlite(db), uuid, name, out);

	if (rc == SQLITE_ROW)
		return KBX_OK;
	memset(out, 0, sizeof(*out));
	if (rc == SQLITE_DONE)
		return not_found(uuid, name);
	return db_error(db, "read the calibration of '%s'", name ? name : "");
}

enum kbx_status db_calibration_find_at(const char *path, const char *uuid, const char *name,
				       struct calibration *out)
{
	sqlite3 *sq = NULL;
	sqlite3_stmt *st;
	enum kbx_status ret;
	struct stat sb;
	int rc, has = 0;

	memset(out, 0, sizeof(*out));
	if (!path || !*path || stat(path, &sb) != 0)
		return kbx_error(KBX_ENOTFOUND, "no calibration: no history '%s'%s%s", path ? path : "",
				 path && *path ? ": " : "", path && *path ? strerror(errno) : "");
	/* Read only: a worker must not create or migrate the user's history. */
	rc = sqlite3_open_v2(path, &sq, SQLITE_OPEN_READONLY, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(sq, CAL_BUSY_TIMEOUT_MS);
		rc = sqlite3_prepare_v2(sq, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'calibration'", -1,
					&st, NULL);
	}
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		has = rc == SQLITE_ROW;
		sqlite3_finalize(st);
		rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	if (rc == SQLITE_OK && has)
		rc = lookup(sq, uuid, name, out);
	if (rc == SQLITE_ROW)
		ret = KBX_OK;
	else if (rc == SQLITE_OK || rc == SQLITE_DONE)
		ret = not_found(uuid, name);
	else
		ret = kbx_error(KBX_EDB, "cannot read the calibration in history '%s': %s", path,
				sq ? sqlite3_errmsg(sq) : sqlite3_errstr(rc));
	if (ret)
		memset(out, 0, sizeof(*out));
	sqlite3_close_v2(sq);
	return ret;
}
