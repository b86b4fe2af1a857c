/*
 * test_db_reftimes.c - the reference's kept timings in the history (db/reftimes.c): a miss, a
 * round trip of every field, replacement under one key, old rows dropped as new ones come, the
 * worker's view of them (db_serve_env), and the migration of a version 6 history to 7.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "old_schemas.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/reftime.h"
#include "core/serve.h"
#include "core/util.h"
#include "db/db.h"
#include "fixture.h"

static struct ref_timing timing(double median, double at)
{
	struct ref_timing t;

	memset(&t, 0, sizeof(t));
	t.s.median = median;
	t.s.p20 = median * 0.99;
	t.s.p80 = median * 1.01;
	t.s.min = median * 0.98;
	t.s.max = median * 1.05;
	t.s.mean = median * 1.001;
	t.s.stddev = median * 0.004;
	t.s.n = 163;
	t.clocks.valid = 2;
	t.clocks.sm_mhz = 1980;
	t.clocks.min_sm_mhz = 1975;
	t.clocks.max_sm_mhz = 1980;
	t.clocks.mem_mhz = 3201;
	t.measured_at = at;
	return t;
}

static void test_round_trip(void **state)
{
	struct db_fixture *f = *state;
	struct ref_timing in = timing(0.6114, db_now() - 10), out;

	assert_int_equal(db_reftime_get(f->db, "k1", &out), KBX_ENOTFOUND);
	assert_int_equal(out.s.n, 0);
	assert_int_equal(db_reftime_put(f->db, "k1", "Activation/gelu", "NVIDIA H200", 15, &in), KBX_OK);
	assert_int_equal(db_reftime_get(f->db, "k1", &out), KBX_OK);
	assert_true(out.s.median == in.s.median && out.s.p20 == in.s.p20 && out.s.p80 == in.s.p80);
	assert_true(out.s.min == in.s.min && out.s.max == in.s.max && out.s.mean == in.s.mean);
	assert_true(out.s.stddev == in.s.stddev);
	assert_int_equal(out.s.n, 163);
	assert_true(out.clocks.sm_mhz == 1980 && out.clocks.min_sm_mhz == 1975 && out.clocks.max_sm_mhz == 1980);
	assert_true(out.clocks.mem_mhz == 3201);
	assert_int_equal(out.clocks.valid, 2);
	assert_true(out.measured_at == in.measured_at);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT \"row\" FROM ref_timings WHERE key = 'k1'"), 15);

	/* one key, one timing: the newer replaces it */
	in = timing(0.7, db_now());
	assert_int_equal(db_reftime_put(f->db, "k1", "Activation/gelu", "NVIDIA H200", 15, &in), KBX_OK);
	assert_int_equal(db_reftime_get(f->db, "k1", &out), KBX_OK);
	assert_true(out.s.median == 0.7);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM ref_timings"), 1);

	assert_int_equal(db_reftime_put(f->db, NULL, "Activation/gelu", "NVIDIA H200", 15, &in), KBX_EINVAL);
}

static void test_old_dropped(void **state)
{
	struct db_fixture *f = *state;
	struct ref_timing old = timing(1.0, db_now() - 40 * 86400.0), recent = timing(2.0, db_now() - 86400.0), out;

	assert_int_equal(db_reftime_put(f->db, "old", "Math/add", "NVIDIA H200", 0, &old), KBX_OK);
	/* a row older than the keeping time goes when the next one comes (itself included) */
	assert_int_equal(db_reftime_get(f->db, "old", &out), KBX_ENOTFOUND);
	assert_int_equal(db_reftime_put(f->db, "recent", "Math/add", "NVIDIA H200", 1, &recent), KBX_OK);
	assert_int_equal(db_reftime_get(f->db, "recent", &out), KBX_OK);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM ref_timings"), 1);
}

/* The worker reaches them through its environment, on the history its compile cache opened. */
static void test_serve_env(void **state)
{
	struct db_fixture *f = *state;
	struct serve_env env;
	struct compile_cache cc;
	struct ref_timing_cache rc;
	struct ref_timing in = timing(0.25, db_now()), out;

	db_serve_env(&env, "tasks", NULL);
	assert_non_null(env.ref_timings);
	assert_int_equal(env.open_cache(env.ctx, f->path, &cc), 0);
	env.ref_timings(env.ctx, &cc, &rc);
	assert_int_equal(rc.get(rc.ctx, "w", &out), -1);
	assert_int_equal(kbx_last_error()[0], '\0');   /* a miss leaves no error behind */
	rc.put(rc.ctx, "w", "Reduce/sum", "NVIDIA H200", 2, &in);
	assert_int_equal(rc.get(rc.ctx, "w", &out), 0);
	assert_true(out.s.median == 0.25);
	env.close_cache(env.ctx, &cc);
	/* and the fixture's own handle sees what the worker kept */
	assert_int_equal(db_reftime_get(f->db, "w", &out), KBX_OK);
}

static const char schema_v6[] =
	OLD_SCHEMA_V1 OLD_SCHEMA_V2_STEP OLD_SCHEMA_V3_STEP OLD_SCHEMA_V4_STEP OLD_SCHEMA_V5_STEP OLD_SCHEMA_V6_STEP
	"INSERT INTO runs (task_id, category, gpu, verdict, seed, created_at, device, uid) VALUES"
	" ('Math/add', 'Math', 'NVIDIA H200', 'pass', 7, 100.5, 0, '0123456789abcdef0123456789abcdef');"
	"INSERT INTO perf_rows (run_id, \"row\", cand_ms, ref_ms, cand_n, gbps, sm_mhz) VALUES (1, 0, 0.5, 0.6, 10, 3000, 1980);"
	"PRAGMA user_version = 6;";

static void test_migrate_v6(void **state)
{
	struct db_fixture *f = *state;
	struct ref_timing in = timing(0.5, db_now()), out;
	sqlite3 *sq;

	db_close(f->db);
	f->db = NULL;
	unlink(f->path);
	assert_int_equal(sqlite3_open(f->path, &sq), SQLITE_OK);
	assert_int_equal(sqlite3_exec(sq, schema_v6, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sq);

	assert_int_equal(db_open(f->path, &f->db), KBX_OK);
	assert_int_equal(db_schema_version(f->db), DB_SCHEMA_VERSION);
	sq = db_sqlite(f->db);
	assert_int_equal(q_int(sq, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'ref_timings'"), 1);
	assert_int_equal(q_int(sq, "SELECT COUNT(*) FROM ref_timings"), 0);
	/* the runs are as they were */
	assert_int_equal(q_int(sq, "SELECT gbps FROM perf_rows"), 3000);
	assert_int_equal(q_int(sq, "SELECT sm_mhz FROM perf_rows"), 1980);
	assert_int_equal(db_reftime_put(f->db, "m", "Math/add", "NVIDIA H200", 0, &in), KBX_OK);
	assert_int_equal(db_reftime_get(f->db, "m", &out), KBX_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_old_dropped, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_serve_env, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v6, db_fixture_setup, db_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
