/*
 * test_db_calibration.c - stored calibrations (db/calibration.c): saving, looking up by UUID and
 * by name, the worker's read-only lookup, the migration of a version 3 history to 4, and merging
 * histories that have calibrations.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "old_schemas.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/calibrate.h"
#include "core/util.h"
#include "db/db.h"
#include "fixture.h"

static struct calibration cal(const char *name, const char *uuid, double copy, double at)
{
	struct calibration c;

	memset(&c, 0, sizeof(c));
	snprintf(c.gpu_name, sizeof(c.gpu_name), "%s", name);
	snprintf(c.gpu_uuid, sizeof(c.gpu_uuid), "%s", uuid);
	c.copy_gbps = copy;
	c.fma_tflops = 60;
	c.tensor_tflops = 500;
	c.peak_gbps = 4800;
	c.measured_at = at;
	snprintf(c.kbx_version, sizeof(c.kbx_version), "0.9.1");
	return c;
}

#define UUID_A "GPU-aaaaaaaa-0000-0000-0000-000000000000"
#define UUID_B "GPU-bbbbbbbb-0000-0000-0000-000000000000"

static void test_save_find(void **state)
{
	struct db_fixture *f = *state;
	struct calibration a = cal("NVIDIA H200", UUID_A, 4000, 1000), b = cal("NVIDIA H200", UUID_B, 3900, 2000), got;

	assert_int_equal(db_calibration_find(f->db, UUID_A, "NVIDIA H200", &got), KBX_ENOTFOUND);
	assert_non_null(strstr(kbx_last_error(), "no calibration for 'NVIDIA H200' (" UUID_A ")"));
	assert_string_equal(got.gpu_name, "");

	assert_int_equal(db_calibration_save(f->db, &a), KBX_OK);
	assert_int_equal(db_calibration_save(f->db, &b), KBX_OK);
	/* by UUID, even though b (same name) is newer */
	assert_int_equal(db_calibration_find(f->db, UUID_A, "NVIDIA H200", &got), KBX_OK);
	assert_string_equal(got.gpu_uuid, UUID_A);
	assert_true(got.copy_gbps == 4000 && got.fma_tflops == 60 && got.tensor_tflops == 500);
	assert_true(got.peak_gbps == 4800 && got.measured_at == 1000);
	assert_string_equal(got.kbx_version, "0.9.1");
	/* a third board of the model: the newest of its name */
	assert_int_equal(db_calibration_find(f->db, "GPU-cccccccc-0000-0000-0000-000000000000", "NVIDIA H200", &got),
			 KBX_OK);
	assert_string_equal(got.gpu_uuid, UUID_B);
	/* no UUID from the driver: by name */
	assert_int_equal(db_calibration_find(f->db, "", "NVIDIA H200", &got), KBX_OK);
	assert_string_equal(got.gpu_uuid, UUID_B);
	assert_int_equal(db_calibration_find(f->db, NULL, "NVIDIA H200", &got), KBX_OK);
	/* a UUID is found whatever name is asked with (a driver that renames the board) */
	assert_int_equal(db_calibration_find(f->db, UUID_A, "H200 renamed", &got), KBX_OK);
	assert_true(got.copy_gbps == 4000);
	/* another model */
	assert_int_equal(db_calibration_find(f->db, "", "NVIDIA A100", &got), KBX_ENOTFOUND);
	assert_int_equal(db_calibration_find(f->db, "", "", &got), KBX_ENOTFOUND);

	/* calibrating again replaces the board's row */
	a = cal("NVIDIA H200", UUID_A, 4100, 3000);
	assert_int_equal(db_calibration_save(f->db, &a), KBX_OK);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM calibration"), 2);
	assert_int_equal(db_calibration_find(f->db, UUID_A, "NVIDIA H200", &got), KBX_OK);
	assert_true(got.copy_gbps == 4100 && got.measured_at == 3000);
	/* and now it is the newest of the name */
	assert_int_equal(db_calibration_find(f->db, "", "NVIDIA H200", &got), KBX_OK);
	assert_string_equal(got.gpu_uuid, UUID_A);
}

static void test_save_values(void **state)
{
	struct db_fixture *f = *state;
	struct calibration c = cal("Tesla P100", "", 500, 0), got;
	double before = db_now();

	/* not measured: stored NULL, read back as -1; no time: now */
	c.tensor_tflops = -1;
	c.peak_gbps = NAN;
	c.kbx_version[0] = '\0';
	assert_int_equal(db_calibration_save(f->db, &c), KBX_OK);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM calibration WHERE tensor_tflops IS NULL"
			       " AND peak_gbps IS NULL AND kbx_version IS NULL AND gpu_uuid = ''"), 1);
	assert_int_equal(db_calibration_find(f->db, "", "Tesla P100", &got), KBX_OK);
	assert_true(got.tensor_tflops == -1 && got.peak_gbps == -1);
	assert_true(got.measured_at >= before - 1 && got.measured_at <= db_now() + 1);
	assert_string_equal(got.kbx_version, "");

	/* a calibration names its GPU */
	c.gpu_name[0] = '\0';
	assert_int_equal(db_calibration_save(f->db, &c), KBX_EINVAL);

	/* quotes and odd bytes are data */
	c = cal("x'); DROP TABLE calibration; --\xff", "'", 1, 5);
	assert_int_equal(db_calibration_save(f->db, &c), KBX_OK);
	assert_int_equal(db_calibration_find(f->db, "'", "nothing", &got), KBX_OK);
	assert_string_equal(got.gpu_name, c.gpu_name);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM calibration"), 2);
}

/* The worker's lookup: read only, never creating or migrating the history. */
static void test_find_at(void **state)
{
	struct db_fixture *f = *state;
	struct calibration c = cal("NVIDIA H200", UUID_A, 4000, 1000), got;
	char path[400];
	struct stat sb;
	sqlite3 *sq;
	FILE *fp;

	/* missing file: not found, and not created */
	snprintf(path, sizeof(path), "%s/none.db", f->dir);
	assert_int_equal(db_calibration_find_at(path, UUID_A, "NVIDIA H200", &got), KBX_ENOTFOUND);
	assert_int_not_equal(stat(path, &sb), 0);
	assert_int_equal(db_calibration_find_at(NULL, UUID_A, "NVIDIA H200", &got), KBX_ENOTFOUND);
	assert_int_equal(db_calibration_find_at("", UUID_A, "NVIDIA H200", &got), KBX_ENOTFOUND);

	/* the history, with the writer's connection open, and after it closed */
	assert_int_equal(db_calibration_find_at(f->path, UUID_A, "NVIDIA H200", &got), KBX_ENOTFOUND);
	assert_int_equal(db_calibration_save(f->db, &c), KBX_OK);
	assert_int_equal(db_calibration_find_at(f->path, UUID_A, "NVIDIA H200", &got), KBX_OK);
	assert_true(got.copy_gbps == 4000);
	db_close(f->db);
	f->db = NULL;
	assert_int_equal(db_calibration_find_at(f->path, "", "NVIDIA H200", &got), KBX_OK);
	assert_string_equal(got.gpu_uuid, UUID_A);
	assert_int_equal(db_open(f->path, &f->db), KBX_OK);

	/* a version 3 history (no table): not found, and left at version 3 */
	snprintf(path, sizeof(path), "%s/v3.db", f->dir);
	assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
	assert_int_equal(sqlite3_exec(sq, "CREATE TABLE runs (id INTEGER PRIMARY KEY); PRAGMA user_version = 3", NULL,
				      NULL, NULL), SQLITE_OK);
	sqlite3_close(sq);
	assert_int_equal(db_calibration_find_at(path, UUID_A, "NVIDIA H200", &got), KBX_ENOTFOUND);
	assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
	assert_int_equal(q_int(sq, "PRAGMA user_version"), 3);
	sqlite3_close(sq);

	/* not a database, a folder, an empty file: an error or nothing, never a calibration */
	snprintf(path, sizeof(path), "%s/junk.db", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	for (int i = 0; i < 300; i++)
		fputs("certainly not SQLite; ", fp);
	fclose(fp);
	assert_int_not_equal(db_calibration_find_at(path, UUID_A, "NVIDIA H200", &got), KBX_OK);
	assert_string_equal(got.gpu_name, "");
	assert_int_not_equal(db_calibration_find_at(f->dir, UUID_A, "NVIDIA H200", &got), KBX_OK);
	snprintf(path, sizeof(path), "%s/empty.db", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(db_calibration_find_at(path, UUID_A, "NVIDIA H200", &got), KBX_ENOTFOUND);

	/* a table of that name that is not ours */
	snprintf(path, sizeof(path), "%s/other.db", f->dir);
	assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
	assert_int_equal(sqlite3_exec(sq, "CREATE TABLE calibration (x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sq);
	assert_int_equal(db_calibration_find_at(path, UUID_A, "NVIDIA H200", &got), KBX_EDB);
	assert_non_null(strstr(kbx_last_error(), "other.db"));
}

/* The schema as kbx shipped it at version 3, frozen here (never regenerated from db.c). */
static const char schema_v3[] =
	OLD_SCHEMA_V1 OLD_SCHEMA_V2_STEP OLD_SCHEMA_V3_STEP
	"INSERT INTO runs (task_id, category, gpu, verdict, seed, created_at, device, uid) VALUES"
	" ('Math/add', 'Math', 'NVIDIA H200', 'pass', 7, 100.5, 0, '0123456789abcdef0123456789abcdef');"
	"INSERT INTO perf_rows (run_id, \"row\", cand_ms, cand_n, gbps) VALUES (1, 0, 0.5, 10, 3000);"
	"PRAGMA user_version = 3;";

static void test_migrate_v3(void **state)
{
	struct db_fixture *f = *state;
	struct calibration c = cal("NVIDIA H200", UUID_A, 4000, 1000), got;
	sqlite3 *sq;

	db_close(f->db);
	f->db = NULL;
	unlink(f->path);
	assert_int_equal(sqlite3_open(f->path, &sq), SQLITE_OK);
	assert_int_equal(sqlite3_exec(sq, schema_v3, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sq);

	assert_int_equal(db_open(f->path, &f->db), KBX_OK);
	assert_int_equal(db_schema_version(f->db), DB_SCHEMA_VERSION);
	assert_true(DB_SCHEMA_VERSION >= 4);
	sq = db_sqlite(f->db);
	assert_int_equal(q_int(sq, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'calibration'"), 1);
	assert_int_equal(q_int(sq, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'calibration_name'"), 1);
	assert_int_equal(q_int(sq, "SELECT COUNT(*) FROM calibration"), 0);
	/* the runs are as they were */
	assert_int_equal(q_int(sq, "SELECT COUNT(*) FROM runs WHERE uid = '0123456789abcdef0123456789abcdef'"), 1);
	assert_int_equal(q_int(sq, "SELECT gbps FROM perf_rows"), 3000);
	assert_int_equal(db_calibration_save(f->db, &c), KBX_OK);
	assert_int_equal(db_calibration_find(f->db, UUID_A, "NVIDIA H200", &got), KBX_OK);
	/* and opening again migrates nothing */
	db_close(f->db);
	assert_int_equal(db_open(f->path, &f->db), KBX_OK);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM calibration"), 1);
}

/* Merging v4 histories copies runs as before; calibrations stay where they were measured. */
static void test_merge_v4(void **state)
{
	struct db_fixture *f = *state;
	struct calibration c = cal("NVIDIA H200", UUID_B, 3900, 1000), got;
	struct db_merge_stats ms;
	struct db_run r;
	struct db *other;
	char path[400];

	snprintf(path, sizeof(path), "%s/worker1.db", f->dir);
	assert_int_equal(db_open(path, &other), KBX_OK);
	memset(&r, 0, sizeof(r));
	r.task_id = "Math/add";
	r.category = "Math";
	r.verdict = V_PASS;
	r.speedup_golden = r.speedup_ref = r.cand_ms = r.ref_ms = -1;
	assert_int_equal(db_run_insert(other, &r), KBX_OK);
	assert_int_equal(db_calibration_save(other, &c), KBX_OK);
	db_close(other);

	assert_int_equal(db_merge(f->db, path, &ms), KBX_OK);
	assert_int_equal(ms.runs_merged, 1);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM runs"), 1);
	assert_int_equal(db_calibration_find(f->db, UUID_B, "NVIDIA H200", &got), KBX_ENOTFOUND);
	assert_int_equal(db_merge(f->db, path, &ms), KBX_OK);
	assert_int_equal(ms.runs_present, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_save_find, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_save_values, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_find_at, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v3, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_merge_v4, db_fixture_setup, db_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
