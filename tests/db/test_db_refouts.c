/*
 * test_db_refouts.c - the reference's kept outputs in the history (db/refouts.c): a miss, a
 * round trip of a blob (empty and large ones too), replacement under one key, the oldest dropped
 * once they hold more than the cap and any older than the keeping time, the worker's view of
 * them (db_serve_env), and the migration of a version 7 history to 8.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "old_schemas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/refout.h"
#include "core/serve.h"
#include "core/util.h"
#include "db/db.h"
#include "fixture.h"

static void *bytes_of(size_t n, unsigned seed)
{
	unsigned char *p = malloc(n ? n : 1);

	for (size_t k = 0; k < n; k++)
		p[k] = (unsigned char)(seed + 31 * k);
	return p;
}

static void test_round_trip(void **state)
{
	struct db_fixture *f = *state;
	void *in = bytes_of(3 << 20, 1), *out = NULL;
	size_t size = 0;
	long long count = -1, total = -1;

	assert_int_equal(db_refout_get(f->db, "k1", &out, &size), KBX_ENOTFOUND);
	assert_null(out);
	assert_int_equal(db_refout_put(f->db, "k1", "LinearAlgebra/det", in, 3 << 20), KBX_OK);
	assert_int_equal(db_refout_get(f->db, "k1", &out, &size), KBX_OK);
	assert_int_equal(size, 3 << 20);
	assert_memory_equal(out, in, size);
	free(out);
	/* one key, one blob: the newer replaces it */
	assert_int_equal(db_refout_put(f->db, "k1", "LinearAlgebra/det", "abc", 3), KBX_OK);
	assert_int_equal(db_refout_get(f->db, "k1", &out, &size), KBX_OK);
	assert_int_equal(size, 3);
	assert_memory_equal(out, "abc", 3);
	free(out);
	/* an empty blob is one too */
	assert_int_equal(db_refout_put(f->db, "k0", "Math/add", "", 0), KBX_OK);
	assert_int_equal(db_refout_get(f->db, "k0", &out, &size), KBX_OK);
	assert_int_equal(size, 0);
	free(out);
	assert_int_equal(db_refout_usage(f->db, &count, &total), KBX_OK);
	assert_int_equal(count, 2);
	assert_int_equal(total, 3);

	assert_int_equal(db_refout_put(f->db, NULL, "Math/add", "x", 1), KBX_EINVAL);
	assert_int_equal(db_refout_put(f->db, "k2", NULL, "x", 1), KBX_EINVAL);
	assert_int_equal(db_refout_put(f->db, "k2", "Math/add", NULL, 1), KBX_EINVAL);
	free(in);
}

static void test_trim(void **state)
{
	struct db_fixture *f = *state;
	void *blob = bytes_of(1000, 2), *out = NULL;
	sqlite3 *sq = db_sqlite(f->db);
	size_t size;
	long long count, total;
	char key[8];

	/* five of 1000 bytes, each kept a second after the one before */
	for (int i = 0; i < 5; i++) {
		snprintf(key, sizeof(key), "t%d", i);
		assert_int_equal(db_refout_put(f->db, key, "Math/add", blob, 1000), KBX_OK);
	}
	assert_int_equal(sqlite3_exec(sq, "UPDATE ref_outputs SET kept_at = 1e9 + CAST(substr(key, 2) AS REAL)", NULL,
				      NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(sq, "UPDATE ref_outputs SET kept_at = kept_at + (strftime('%s', 'now') - 1e9)",
				      NULL, NULL, NULL), SQLITE_OK);
	/* a cap of 2500 bytes keeps the two newest */
	assert_int_equal(db_refout_trim(f->db, 2500), KBX_OK);
	assert_int_equal(db_refout_usage(f->db, &count, &total), KBX_OK);
	assert_int_equal(count, 2);
	assert_int_equal(total, 2000);
	assert_int_equal(db_refout_get(f->db, "t4", &out, &size), KBX_OK);
	free(out);
	assert_int_equal(db_refout_get(f->db, "t3", &out, &size), KBX_OK);
	free(out);
	assert_int_equal(db_refout_get(f->db, "t2", &out, &size), KBX_ENOTFOUND);
	/* one kept 40 days ago goes whatever the cap */
	assert_int_equal(sqlite3_exec(sq, "UPDATE ref_outputs SET kept_at = kept_at - 40 * 86400 WHERE key = 't3'",
				      NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(db_refout_trim(f->db, 1LL << 40), KBX_OK);
	assert_int_equal(db_refout_get(f->db, "t3", &out, &size), KBX_ENOTFOUND);
	assert_int_equal(db_refout_get(f->db, "t4", &out, &size), KBX_OK);
	free(out);
	/* a put keeps the one it put */
	assert_int_equal(db_refout_put(f->db, "t5", "Math/add", blob, 1000), KBX_OK);
	assert_int_equal(db_refout_get(f->db, "t5", &out, &size), KBX_OK);
	free(out);
	/* clear: every one goes, an empty one too */
	assert_int_equal(db_refout_put(f->db, "t6", "Math/add", "", 0), KBX_OK);
	assert_int_equal(db_refout_clear(f->db), KBX_OK);
	assert_int_equal(db_refout_usage(f->db, &count, &total), KBX_OK);
	assert_int_equal(count, 0);
	assert_int_equal(total, 0);
	free(blob);
}

/* The worker reaches them through its environment, on the history its compile cache opened. */
static void test_serve_env(void **state)
{
	struct db_fixture *f = *state;
	struct serve_env env;
	struct compile_cache cc;
	struct ref_output_cache rc;
	void *out = NULL;
	size_t size = 0;

	db_serve_env(&env, "tasks", NULL);
	assert_non_null(env.ref_outputs);
	assert_int_equal(env.open_cache(env.ctx, f->path, &cc), 0);
	env.ref_outputs(env.ctx, &cc, &rc);
	assert_int_equal(rc.get(rc.ctx, "w", &out, &size), -1);
	assert_int_equal(kbx_last_error()[0], '\0');   /* a miss leaves no error behind */
	rc.put(rc.ctx, "w", "LinearAlgebra/eig", "outputs", 7);
	assert_int_equal(rc.get(rc.ctx, "w", &out, &size), 0);
	assert_int_equal(size, 7);
	assert_memory_equal(out, "outputs", 7);
	free(out);
	env.close_cache(env.ctx, &cc);
	/* and the fixture's own handle sees what the worker kept */
	assert_int_equal(db_refout_get(f->db, "w", &out, &size), KBX_OK);
	free(out);
}

static const char schema_v7[] =
	OLD_SCHEMA_V1 OLD_SCHEMA_V2_STEP OLD_SCHEMA_V3_STEP OLD_SCHEMA_V4_STEP OLD_SCHEMA_V5_STEP OLD_SCHEMA_V6_STEP
	OLD_SCHEMA_V7_STEP
	"INSERT INTO ref_timings (key, task_id, gpu, \"row\", median, measured_at) VALUES"
	" ('kt', 'Math/add', 'NVIDIA H200', 0, 0.5, 100.0);"
	"PRAGMA user_version = 7;";

static void test_migrate_v7(void **state)
{
	struct db_fixture *f = *state;
	void *out = NULL;
	size_t size;
	sqlite3 *sq;

	db_close(f->db);
	f->db = NULL;
	unlink(f->path);
	assert_int_equal(sqlite3_open(f->path, &sq), SQLITE_OK);
	assert_int_equal(sqlite3_exec(sq, schema_v7, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sq);

	assert_int_equal(db_open(f->path, &f->db), KBX_OK);
	assert_int_equal(db_schema_version(f->db), DB_SCHEMA_VERSION);
	sq = db_sqlite(f->db);
	assert_int_equal(q_int(sq, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'ref_outputs'"), 1);
	assert_int_equal(q_int(sq, "SELECT COUNT(*) FROM ref_outputs"), 0);
	/* the kept timing is as it was */
	assert_int_equal(q_int(sq, "SELECT COUNT(*) FROM ref_timings WHERE key = 'kt'"), 1);
	assert_int_equal(db_refout_put(f->db, "m", "Math/add", "x", 1), KBX_OK);
	assert_int_equal(db_refout_get(f->db, "m", &out, &size), KBX_OK);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_trim, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_serve_env, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v7, db_fixture_setup, db_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
