/*
 * test_db.c - the history: schema and migrations, writing and reading runs, summaries and the
 * compile cache (the recorder: test_db_recorder.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "old_schemas.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/events.h"
#include "core/util.h"
#include "db/db.h"
#include "fixture.h"
#include "db/recorder.h"

/* --- helpers ------------------------------------------------------------------------------- */

static void exec(struct db *db, const char *sql)
{
	assert_int_equal(sqlite3_exec(db_sqlite(db), sql, NULL, NULL, NULL), SQLITE_OK);
}

/* The wall clock as the database reads it. time() may lag it by a tick (glibc reads a coarse
 * clock), so a bound built on time() can miss a created_at taken a millisecond later. */
static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64*: fixed seed, same junk every run */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

/* NUL-free junk of length [0, max], with quotes, SQL and non-UTF-8 bytes. */
static char *junk(size_t max)
{
	static const char *const pieces[] = { "'", "\"", "'); DROP TABLE runs; --", "\\", "%s%n", "\xff\xfe",
					      "\xc3", "\n\r\t", "NULL", "?1" };
	size_t n = (size_t)(rng() % (max + 1));
	char *s = xmalloc(n + 1);
	size_t i = 0;

	while (i < n) {
		if (rng() % 4 == 0) {
			const char *p = pieces[rng() % (sizeof(pieces) / sizeof(pieces[0]))];

			while (*p && i < n)
				s[i++] = *p++;
		} else {
			s[i++] = (char)(1 + rng() % 255);
		}
	}
	s[n] = '\0';
	return s;
}

static struct db_run simple_run(const char *task, const char *category, enum verdict v, double at,
				double sg, double sr)
{
	struct db_run r;

	memset(&r, 0, sizeof(r));
	r.task_id = task;
	r.category = category;
	r.verdict = v;
	r.created_at = at;
	r.speedup_golden = sg;
	r.speedup_ref = sr;
	r.cand_ms = -1;
	r.ref_ms = -1;
	return r;
}

static long long add_run(struct db *db, const char *task, const char *category, enum verdict v, double at,
			 double sg, double sr)
{
	struct db_run r = simple_run(task, category, v, at, sg, sr);

	assert_int_equal(db_run_insert(db, &r), KBX_OK);
	assert_true(r.id > 0);
	return r.id;
}

/* --- opening ------------------------------------------------------------------------------- */

static void restore_env(const char *name, char *saved)
{
	if (saved) {
		setenv(name, saved, 1);
		free(saved);
	} else {
		unsetenv(name);
	}
}

static char *save_env(const char *name)
{
	const char *v = getenv(name);

	return v ? xstrdup(v) : NULL;
}

static void test_default_path(void **state)
{
	char *kbx = save_env("KBX_DB"), *xdg = save_env("XDG_DATA_HOME"), *home = save_env("HOME");

	setenv("KBX_DB", "/somewhere/else.db", 1);
	setenv("XDG_DATA_HOME", "/xdg", 1);
	setenv("HOME", "/home/u", 1);
	assert_string_equal(db_default_path(), "/somewhere/else.db");
	unsetenv("KBX_DB");
	assert_string_equal(db_default_path(), "/xdg/kbx/history.db");
	setenv("KBX_DB", "", 1);
	assert_string_equal(db_default_path(), "/xdg/kbx/history.db");
	/* a relative XDG_DATA_HOME is invalid and ignored */
	setenv("XDG_DATA_HOME", "relative/dir", 1);
	assert_string_equal(db_default_path(), "/home/u/.local/share/kbx/history.db");
	unsetenv("XDG_DATA_HOME");
	assert_string_equal(db_default_path(), "/home/u/.local/share/kbx/history.db");
	restore_env("KBX_DB", kbx);
	restore_env("XDG_DATA_HOME", xdg);
	restore_env("HOME", home);
}

static void test_open_fresh(void **state)
{
	char dir[256], path[320], sub[300], buf[64];
	struct db *db = NULL;
	struct stat sb;

	assert_int_equal(make_tmpdir(dir, sizeof(dir)), 0);
	snprintf(sub, sizeof(sub), "%s/a", dir);
	snprintf(path, sizeof(path), "%s/a/b/history.db", dir);
	assert_int_equal(db_open(path, &db), KBX_OK);
	assert_non_null(db);
	assert_int_equal(db_schema_version(db), DB_SCHEMA_VERSION);
	assert_true(DB_SCHEMA_VERSION >= 4);
	assert_string_equal(q_text(db, buf, sizeof(buf), "PRAGMA journal_mode"), "wal");
	assert_int_equal(q_int(db_sqlite(db), "PRAGMA foreign_keys"), 1);
	assert_int_equal(q_int(db_sqlite(db), "PRAGMA synchronous"), 1);    /* NORMAL */
	assert_int_equal(q_int(db_sqlite(db), "PRAGMA busy_timeout"), 5000);
	for (const char *const *t = (const char *const[]){ "runs", "case_results", "perf_rows", "compile_cache",
							    "runs_category_time", "runs_task_time", "runs_uid", "calibration",
							    NULL }; *t; t++)
		assert_int_equal(q_int(db_sqlite(db), "SELECT COUNT(*) FROM sqlite_master WHERE name = '%s'", *t), 1);
	for (const char *const *c = (const char *const[]){ "device", "eval", "origin", "uid", NULL }; *c; c++)
		assert_int_equal(q_int(db_sqlite(db), "SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name = '%s'", *c), 1);
	/* the new folders are private */
	assert_int_equal(stat(sub, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0700);
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	assert_int_equal(stat(sub, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0700);
	assert_int_equal(q_int(db_sqlite(db), "SELECT COUNT(*) FROM runs"), 0);
	db_close(db);
	rm_tree(dir);
}

static void test_open_errors(void **state)
{
	char dir[256], path[320];
	struct db *db = (struct db *)&db;
	FILE *fp;

	assert_int_equal(make_tmpdir(dir, sizeof(dir)), 0);

	/* a parent that is a file */
	snprintf(path, sizeof(path), "%s/file", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("not a folder\n", fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/file/sub/history.db", dir);
	assert_int_not_equal(db_open(path, &db), KBX_OK);
	assert_null(db);
	assert_non_null(strstr(kbx_last_error(), "file/sub"));

	/* a file that is not SQLite */
	snprintf(path, sizeof(path), "%s/junk.db", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	for (int i = 0; i < 200; i++)
		fputs("this is certainly not a database file; ", fp);
	fclose(fp);
	assert_int_equal(db_open(path, &db), KBX_EDB);
	assert_null(db);
	assert_non_null(strstr(kbx_last_error(), "junk.db"));
	assert_non_null(strstr(kbx_last_error(), "not a database"));
	rm_tree(dir);
}

static void test_newer_schema_refused(void **state)
{
	struct db_fixture *f = *state;
	struct db *db = (struct db *)&db;
	char sql[64], newer[64];

	/* one past what this kbx knows, whatever that is now */
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", DB_SCHEMA_VERSION + 1);
	snprintf(newer, sizeof(newer), "schema version %d", DB_SCHEMA_VERSION + 1);
	exec(f->db, sql);
	db_close(f->db);
	f->db = NULL;
	assert_int_equal(db_open(f->path, &db), KBX_EDB);
	assert_null(db);
	assert_non_null(strstr(kbx_last_error(), newer));
	assert_non_null(strstr(kbx_last_error(), "newer"));
	assert_non_null(strstr(kbx_last_error(), f->path));
	/* leave it openable for teardown */
	{
		sqlite3 *sq;

		assert_int_equal(sqlite3_open(f->path, &sq), SQLITE_OK);
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", DB_SCHEMA_VERSION);
		assert_int_equal(sqlite3_exec(sq, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(sq);
	}
	assert_int_equal(db_open(f->path, &f->db), KBX_OK);
}

/*
 * The schema as kbx shipped it at versions 1 and 2, frozen here (never regenerated from db.c):
 * a history written by an older kbx, with a few runs, cases, perf rows and a cache entry.
 */
static const char schema_v1[] =
	OLD_SCHEMA_V1;
static const char schema_v2[] =
	OLD_SCHEMA_V2_STEP;
static const char old_rows[] =
	"INSERT INTO runs (task_id, category, gpu, verdict, seed, source, source_hash, created_at) VALUES"
	" ('Math/add', 'Math', 'NVIDIA H200', 'pass', 7, 'src a', 'aa', 100.5),"
	" ('Math/add', 'Math', NULL, 'wrong', 8, 'src b', 'bb', 200.25),"
	" ('Math/sub', 'Math', NULL, 'pass', 9, NULL, NULL, 300);"
	"INSERT INTO case_results (run_id, idx, name, verdict, detail_json) VALUES"
	" (1, 0, 'c0', 'pass', '{}'), (1, 1, 'c1', 'pass', '{}'), (2, 0, 'c0', 'wrong', '{\"x\":1}');"
	"INSERT INTO perf_rows (run_id, \"row\", cand_ms, cand_n) VALUES (1, 0, 0.5, 10), (1, 1, 0.75, 10);"
	"INSERT INTO compile_cache (key, image, created_at) VALUES ('old', x'0102', 50);";

static void make_old_history(const char *path, int version)
{
	sqlite3 *sq;
	char sql[400];

	unlink(path);
	snprintf(sql, sizeof(sql), "%s-wal", path);
	unlink(sql);
	snprintf(sql, sizeof(sql), "%s-shm", path);
	unlink(sql);
	assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
	assert_int_equal(sqlite3_exec(sq, schema_v1, NULL, NULL, NULL), SQLITE_OK);
	if (version >= 2)
		assert_int_equal(sqlite3_exec(sq, schema_v2, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(sq, old_rows, NULL, NULL, NULL), SQLITE_OK);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version);
	assert_int_equal(sqlite3_exec(sq, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sq);
}

static int is_uid(const char *s)
{
	if (strlen(s) != 32)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

/* A version 1 history is migrated to the current version: the covering indexes and the new
 * columns appear and the runs stay. */
static void test_migrate_v1(void **state)
{
	struct db_fixture *f = *state;

	db_close(f->db);
	make_old_history(f->path, 1);
	assert_int_equal(db_open(f->path, &f->db), KBX_OK);
	assert_int_equal(db_schema_version(f->db), DB_SCHEMA_VERSION);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'runs_%%_summary'"), 2);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM runs WHERE length(uid) = 32"), 3);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM case_results"), 3);
}

/* A version 2 history (built by hand above) gets device, eval, origin and uid: NULL for the
 * first three, and for the uid a value from each run's id and content, the same in every copy
 * of the file and different between runs. New runs get random uids. */
static void test_migrate_v2(void **state)
{
	struct db_fixture *f = *state;
	char copy[320], buf[64], uid1[64];
	struct db_run_detail d;
	struct db *other;
	char *bytes;
	size_t len;

	db_close(f->db);
	make_old_history(f->path, 2);
	assert_int_equal(read_file(f->path, &bytes, &len), KBX_OK);
	snprintf(copy, sizeof(copy), "%s/copy.db", f->dir);
	assert_int_equal(write_file(copy, bytes, len), KBX_OK);
	free(bytes);

	assert_int_equal(db_open(f->path, &f->db), KBX_OK);
	assert_int_equal(db_schema_version(f->db), DB_SCHEMA_VERSION);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM runs"), 3);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM runs WHERE device IS NULL AND eval IS NULL"
			       " AND origin IS NULL"), 3);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(DISTINCT uid) FROM runs"), 3);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM perf_rows"), 2);
	assert_int_equal(db_run_get(f->db, 1, &d), KBX_OK);
	assert_int_equal(d.row.device, -1);
	assert_string_equal(d.row.eval, "");
	assert_null(d.origin);
	assert_true(is_uid(d.uid));
	assert_string_equal(d.source, "src a");
	assert_int_equal(d.ncases, 2);
	assert_int_equal(d.nperf, 2);
	snprintf(uid1, sizeof(uid1), "%s", d.uid);
	db_run_detail_free(&d);

	/* the copy migrates to the same uids */
	assert_int_equal(db_open(copy, &other), KBX_OK);
	for (int id = 1; id <= 3; id++) {
		char a[64], b[64], sql[64];

		snprintf(sql, sizeof(sql), "SELECT uid FROM runs WHERE id = %d", id);
		assert_string_equal(q_text(f->db, a, sizeof(a), sql), q_text(other, b, sizeof(b), sql));
	}
	assert_string_equal(q_text(other, buf, sizeof(buf), "SELECT uid FROM runs WHERE id = 1"), uid1);
	db_close(other);

	/* a new run: random uid, device and eval as given */
	{
		struct db_run r = simple_run("Math/mul", "Math", V_PASS, 400, 1, 1);

		r.has_device = 1;
		r.device = 3;
		r.eval = "nightly-7";
		assert_int_equal(db_run_insert(f->db, &r), KBX_OK);
		assert_true(is_uid(r.uid));
		assert_string_not_equal(r.uid, uid1);
		assert_int_equal(db_run_get(f->db, r.id, &d), KBX_OK);
		assert_int_equal(d.row.device, 3);
		assert_string_equal(d.row.eval, "nightly-7");
		assert_string_equal(d.uid, r.uid);
		db_run_detail_free(&d);
	}
}

/* A run that passed with the impossible-timing warning (before the verdict existed) is migrated
 * to the impossible_timing verdict without speedups, and is no longer a pass in the summaries;
 * a pass with other warnings stays a pass. */
static void test_migrate_impossible_timing(void **state)
{
	struct db_fixture *f = *state;
	struct db_category_stat *cs;
	struct db_task_stat *ts;
	sqlite3 *sq;
	int n;

	db_close(f->db);
	make_old_history(f->path, 2);
	assert_int_equal(sqlite3_open(f->path, &sq), SQLITE_OK);
	assert_int_equal(sqlite3_exec(sq, "UPDATE runs SET warnings = 'no-golden,impossible-timing', speedup_ref = 146"
				      " WHERE id = 1; UPDATE runs SET warnings = 'impossible-timings-x', speedup_ref = 2"
				      " WHERE id = 3;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sq);
	assert_int_equal(db_open(f->path, &f->db), KBX_OK);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM runs WHERE id = 1 AND verdict = 'impossible_timing'"
			       " AND speedup_ref IS NULL"), 1);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM runs WHERE id = 3 AND verdict = 'pass'"
			       " AND speedup_ref = 2"), 1);
	assert_int_equal(db_category_stats(f->db, &cs, &n), KBX_OK);
	assert_int_equal(n, 1);
	assert_int_equal(cs[0].attempts, 3);
	assert_int_equal(cs[0].passes, 1);
	assert_int_equal(cs[0].impossible, 1);
	free(cs);
	assert_int_equal(db_task_stats(f->db, "Math", &ts, &n), KBX_OK);
	assert_int_equal(n, 2);
	assert_string_equal(ts[0].task_id, "Math/add");
	assert_int_equal(ts[0].passes, 0);
	assert_int_equal(ts[0].impossible, 1);
	assert_int_equal(ts[1].impossible, 0);
	free(ts);
}

/* A migration that fails leaves the file as it was: version 2, no new column. */
static void test_migrate_failure_rolls_back(void **state)
{
	struct db_fixture *f = *state;
	struct db *db = (struct db *)&db;
	sqlite3 *sq;

	db_close(f->db);
	f->db = NULL;
	make_old_history(f->path, 2);
	assert_int_equal(sqlite3_open(f->path, &sq), SQLITE_OK);
	/* a column the migration is about to add */
	assert_int_equal(sqlite3_exec(sq, "ALTER TABLE runs ADD COLUMN uid TEXT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sq);
	assert_int_equal(db_open(f->path, &db), KBX_EDB);
	assert_null(db);
	assert_non_null(strstr(kbx_last_error(), "schema migration 3 failed"));
	assert_non_null(strstr(kbx_last_error(), "uid"));
	assert_int_equal(sqlite3_open(f->path, &sq), SQLITE_OK);
	{
		sqlite3_stmt *st;

		assert_int_equal(sqlite3_prepare_v2(sq, "SELECT (SELECT user_version FROM pragma_user_version),"
						    " (SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name = 'device')",
						    -1, &st, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), 2);
		assert_int_equal(sqlite3_column_int(st, 1), 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(sq);
	/* leave a current history for teardown */
	unlink(f->path);
	assert_int_equal(db_open(f->path, &f->db), KBX_OK);
}

static void test_reopen_keeps_schema(void **state)
{
	struct db_fixture *f = *state;

	add_run(f->db, "Math/add", "Math", V_PASS, 10, 1.5, -1);
	/* If the v1 migration ran again, it would fail on the existing tables or recreate this index. */
	exec(f->db, "DROP INDEX runs_time");
	db_close(f->db);
	assert_int_equal(db_open(f->path, &f->db), KBX_OK);
	assert_int_equal(db_schema_version(f->db), DB_SCHEMA_VERSION);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM sqlite_master WHERE name = 'runs_time'"), 0);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM runs"), 1);
	/* and a second handle on the same file works alongside */
	{
		struct db *other;

		assert_int_equal(db_open(f->path, &other), KBX_OK);
		add_run(other, "Math/sub", "Math", V_WRONG, 11, -1, -1);
		assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM runs"), 2);
		db_close(other);
	}
}

/* Random files and damaged copies of a real history: open and summarise must fail cleanly or
 * work, never crash. */
static void test_open_garbage_files(void **state)
{
	struct db_fixture *f = *state;
	char path[320], wal[330], shm[330];
	char *good;
	size_t good_len;

	for (int i = 0; i < 30; i++) {
		char name[32];
		struct db_run r;

		snprintf(name, sizeof(name), "Fuzz/t%d", i % 7);
		r = simple_run(name, "Fuzz", (enum verdict)(i % V_COUNT), 100 + i, i * 0.1, -1);
		assert_int_equal(db_run_insert(f->db, &r), KBX_OK);
	}
	assert_int_equal(db_cache_put(f->db, "k", "sm_90", "-O3", "\1\2\3", 3, "log"), KBX_OK);
	exec(f->db, "PRAGMA wal_checkpoint(TRUNCATE)");
	assert_int_equal(read_file(f->path, &good, &good_len), KBX_OK);
	assert_true(good_len >= 4096);

	rng_state = 0x1234567887654321ULL;
	snprintf(path, sizeof(path), "%s/mutant.db", f->dir);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	snprintf(shm, sizeof(shm), "%s-shm", path);
	for (int iter = 0; iter < 150; iter++) {
		char *data = xmalloc(good_len);
		size_t len = good_len;
		struct db *db = NULL;
		enum kbx_status st;

		if (iter % 3 == 0) {
			len = 1 + rng() % (2 * good_len - 1);
			if (len > good_len)
				len = good_len;
			for (size_t i = 0; i < len; i++)
				data[i] = (char)rng();
		} else {
			memcpy(data, good, good_len);
			for (int k = 0, nflip = 1 + (int)(rng() % 40); k < nflip; k++)
				data[rng() % good_len] = (char)rng();
			if (iter % 5 == 0)
				len = rng() % good_len;
		}
		unlink(path);
		unlink(wal);
		unlink(shm);
		assert_int_equal(write_file(path, data, len), KBX_OK);
		free(data);
		st = db_open(path, &db);
		if (st == KBX_OK) {
			struct db_category_stat *cs;
			struct db_task_stat *ts;
			struct db_run_row *rows;
			struct db_run_detail d;
			double rates[5];
			void *img;
			size_t size;
			char *log;
			int n;

			if (db_category_stats(db, &cs, &n) == KBX_OK)
				free(cs);
			if (db_task_stats(db, NULL, &ts, &n) == KBX_OK)
				free(ts);
			if (db_runs_list(db, NULL, NULL, 0, &rows, &n) == KBX_OK) {
				for (int i = 0; i < n; i++)
					if (db_run_get(db, rows[i].id, &d) == KBX_OK)
						db_run_detail_free(&d);
				free(rows);
			}
			db_category_series(db, "Fuzz", 5, rates);
			if (db_cache_get(db, "k", &img, &size, &log) == KBX_OK) {
				free(img);
				free(log);
			}
			db_close(db);
		} else {
			assert_null(db);
			assert_true(strlen(kbx_last_error()) > 0);
		}
	}
	free(good);
}

/* --- writing and reading runs -------------------------------------------------------------- */

/* A process forked after its parent wrote runs still makes uids of its own (a generator seeded
 * once per process would repeat the parent's, and the child's inserts would collide). */
static void test_uid_after_fork(void **state)
{
	struct db_fixture *f = *state;
	pid_t pid;
	int status;

	add_run(f->db, "Math/add", "Math", V_PASS, 1, -1, -1);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct db *db;
		int bad = 0;

		if (db_open(f->path, &db) != KBX_OK)
			_exit(2);
		for (int i = 0; i < 5; i++) {
			struct db_run r = simple_run("Math/child", "Math", V_PASS, 10 + i, -1, -1);

			bad |= db_run_insert(db, &r) != KBX_OK;
		}
		db_close(db);
		_exit(bad);
	}
	for (int i = 0; i < 5; i++)
		add_run(f->db, "Math/parent", "Math", V_PASS, 20 + i, -1, -1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(DISTINCT uid) FROM runs"), 11);
}

static void test_insert_roundtrip(void **state)
{
	struct db_fixture *f = *state;
	struct db_case cases[3] = {
		{ "corner", V_PASS, 1e-7, 2e-6, 3.0, 0, "{\"case\":\"corner\"}" },
		{ "random_outlier", V_WRONG, 0.31, 2.4, 9e6, 312, "{\"case\":\"random_outlier\"}" },
		{ "crash", V_RUNTIME_ERROR, -1, -1, -1, -1, NULL },
	};
	struct db_perf perf[2] = {
		{ .row = 0, .input_size = "{\"n\":4096}", .cand_ms = 0.011, .cand_p20 = 0.010, .cand_p80 = 0.013,
		  .cand_min = 0.009, .cand_n = 120, .ref_ms = 0.02, .golden_ms = 0.015, .gbps = 3.0, .tflops = 0.004 },
		{ .row = 1, .cand_ms = 0.5, .cand_p20 = -1, .cand_p80 = -1, .cand_min = -1, .cand_n = 7, .ref_ms = -1,
		  .golden_ms = -1, .gbps = -1, .tflops = -1 },
	};
	struct db_run r;
	struct db_run_detail d;
	char buf[256];
	long long id1;
	double before = wall_now();

	memset(&r, 0, sizeof(r));
	r.task_id = "Activation/gelu";
	r.category = "Activation";
	r.gpu = "NVIDIA H200";
	r.driver_version = 13000;
	r.source = "extern \"C\" __global__ void k() {}\n";
	r.source_hash = "ab12";
	r.source_path = "/tmp/cand.cu";
	r.compile_options = "-arch=sm_90 -std=c++17";
	r.verdict = V_WRONG;
	r.warnings = "nondeterministic,no-golden";
	r.message = "case 'random_outlier': 312 of 4096 elements differ";
	r.seed = 0xFFFFFFFFFFFFFFFFULL;
	r.speedup_golden = -1;
	r.speedup_ref = 1.25;
	r.cand_ms = 0.511;
	r.ref_ms = -1;
	r.created_at = 1700000000.5;
	r.summary_json = "{\"verdict\":\"wrong\"}";
	r.cases = cases;
	r.ncases = 3;
	r.perf = perf;
	r.nperf = 2;
	r.has_device = 1;
	r.device = 0;       /* a real ordinal, not "unknown" */
	r.eval = "eval 'x'";
	assert_int_equal(db_run_insert(f->db, &r), KBX_OK);
	assert_true(r.id > 0);
	assert_true(is_uid(r.uid));
	id1 = r.id;

	assert_int_equal(db_run_get(f->db, id1, &d), KBX_OK);
	assert_int_equal(d.row.id, id1);
	assert_string_equal(d.row.task_id, "Activation/gelu");
	assert_string_equal(d.row.category, "Activation");
	assert_string_equal(d.row.gpu, "NVIDIA H200");
	assert_int_equal(d.row.verdict, V_WRONG);
	assert_string_equal(d.row.warnings, "nondeterministic,no-golden");
	assert_true(d.row.speedup_golden == -1);
	assert_true(d.row.speedup_ref == 1.25);
	assert_true(d.row.cand_ms == 0.511);
	assert_true(d.row.created_at == 1700000000.5);
	assert_string_equal(d.row.source_hash, "ab12");
	assert_int_equal(d.row.device, 0);
	assert_string_equal(d.row.eval, "eval 'x'");
	assert_string_equal(d.uid, r.uid);
	assert_null(d.origin);
	assert_string_equal(d.source, r.source);
	assert_string_equal(d.message, r.message);
	assert_string_equal(d.summary_json, r.summary_json);
	assert_int_equal(d.ncases, 3);
	for (int i = 0; i < 3; i++) {
		assert_string_equal(d.case_names[i], cases[i].name);
		assert_int_equal(d.case_verdicts[i], cases[i].verdict);
	}
	assert_string_equal(d.case_json[0], cases[0].detail_json);
	assert_string_equal(d.case_json[1], cases[1].detail_json);
	assert_null(d.case_json[2]);
	assert_int_equal(d.nperf, 2);
	for (int i = 0; i < 2; i++) {
		const struct db_perf *a = &perf[i], *b = &d.perf[i];

		assert_int_equal(b->row, a->row);
		assert_true(b->cand_ms == a->cand_ms);
		assert_true(b->cand_p20 == a->cand_p20);
		assert_true(b->cand_p80 == a->cand_p80);
		assert_true(b->cand_min == a->cand_min);
		assert_int_equal(b->cand_n, a->cand_n);
		assert_true(b->ref_ms == a->ref_ms);
		assert_true(b->golden_ms == a->golden_ms);
		assert_true(b->gbps == a->gbps);
		assert_true(b->tflops == a->tflops);
	}
	assert_string_equal(d.perf[0].input_size, "{\"n\":4096}");
	assert_string_equal(d.perf_input_size[0], "{\"n\":4096}");
	assert_null(d.perf[1].input_size);
	db_run_detail_free(&d);
	assert_null(d.source);

	/* what the columns hold: NULL for "not available", verdicts by name, all 64 seed bits */
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT speedup_golden IS NULL AND ref_ms IS NULL FROM runs WHERE id = %lld", id1), 1);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT driver_version FROM runs WHERE id = %lld", id1), 13000);
	assert_true((unsigned long long)q_int(db_sqlite(f->db), "SELECT seed FROM runs WHERE id = %lld", id1) == r.seed);
	assert_string_equal(q_text(f->db, buf, sizeof(buf), "SELECT verdict FROM runs"), "wrong");
	assert_string_equal(q_text(f->db, buf, sizeof(buf), "SELECT compile_options FROM runs"), r.compile_options);
	assert_string_equal(q_text(f->db, buf, sizeof(buf), "SELECT source_path FROM runs"), "/tmp/cand.cu");
	assert_string_equal(q_text(f->db, buf, sizeof(buf), "SELECT verdict FROM case_results WHERE idx = 2"),
			    "runtime_error");
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT mismatches FROM case_results WHERE idx = 1"), 312);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM case_results WHERE idx = 2 AND max_abs IS NULL"
			       " AND max_rel IS NULL AND max_ulp IS NULL AND mismatches IS NULL"), 1);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM case_results WHERE idx = 1 AND max_abs = 0.31"
			       " AND max_rel = 2.4 AND max_ulp = 9e6"), 1);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM perf_rows WHERE \"row\" = 1 AND cand_p20 IS NULL"
			       " AND ref_ms IS NULL AND gbps IS NULL"), 1);

	/* created_at 0 = now; no cases or perf rows is fine; NULL strings stay NULL */
	{
		struct db_run r2 = simple_run("Math/add", "Math", V_COMPILE_ERROR, 0, -1, -1);

		assert_int_equal(db_run_insert(f->db, &r2), KBX_OK);
		assert_true(r2.id > id1);
		assert_int_equal(db_run_get(f->db, r2.id, &d), KBX_OK);
		double after = wall_now();

		if (!(d.row.created_at >= before - 1 && d.row.created_at <= after + 1))
			fail_msg("created_at %.3f outside [%.3f - 1, %.3f + 1]", d.row.created_at, before, after);
		assert_int_equal(d.row.verdict, V_COMPILE_ERROR);
		assert_null(d.source);
		assert_null(d.message);
		assert_string_equal(d.row.gpu, "");
		assert_int_equal(d.ncases, 0);
		assert_int_equal(d.nperf, 0);
		assert_int_equal(d.row.device, -1);
		assert_string_equal(d.row.eval, "");
		assert_true(is_uid(d.uid));
		assert_string_not_equal(d.uid, r.uid);
		db_run_detail_free(&d);
		assert_int_equal(q_int(db_sqlite(f->db), "SELECT driver_version IS NULL AND device IS NULL AND eval IS NULL"
				       " FROM runs WHERE id = %lld", r2.id), 1);
	}

	assert_int_equal(db_run_get(f->db, 999999, &d), KBX_ENOTFOUND);
	assert_non_null(strstr(kbx_last_error(), "999999"));

	/* deleting a run takes its rows with it */
	exec(f->db, "DELETE FROM runs WHERE task_id = 'Activation/gelu'");
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM case_results"), 0);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM perf_rows"), 0);
}

static void assert_nothing_written(struct db *db)
{
	assert_int_equal(q_int(db_sqlite(db), "SELECT COUNT(*) FROM runs"), 0);
	assert_int_equal(q_int(db_sqlite(db), "SELECT COUNT(*) FROM case_results"), 0);
	assert_int_equal(q_int(db_sqlite(db), "SELECT COUNT(*) FROM perf_rows"), 0);
	assert_int_equal(sqlite3_get_autocommit(db_sqlite(db)), 1);
}

static void test_insert_atomic(void **state)
{
	struct db_fixture *f = *state;
	struct db_case cases[3] = {
		{ "a", V_PASS, 0, 0, 0, 0, "{}" },
		{ "b", V_PASS, 0, 0, 0, 0, "{}" },
		{ "c", V_PASS, 0, 0, 0, 0, "{}" },
	};
	struct db_perf perf[3] = {
		{ .row = 0, .cand_ms = 1, .cand_n = 1 },
		{ .row = 1, .cand_ms = 1, .cand_n = 1 },
		{ .row = 1, .cand_ms = 1, .cand_n = 1 },  /* same row twice: violates the primary key */
	};
	struct db_run r = simple_run("Fusion/x", "Fusion", V_PASS, 5, 1, 1);
	struct db_run_row *rows;
	int n;

	r.cases = cases;
	r.ncases = 3;
	r.perf = perf;
	r.nperf = 3;
	assert_int_equal(db_run_insert(f->db, &r), KBX_EDB);
	assert_int_equal(r.id, 0);
	assert_non_null(strstr(kbx_last_error(), "Fusion/x"));
	assert_non_null(strstr(kbx_last_error(), "perf"));
	assert_nothing_written(f->db);

	/* a case without a name, in the middle */
	r.nperf = 2;
	cases[1].name = NULL;
	assert_int_equal(db_run_insert(f->db, &r), KBX_EDB);
	assert_int_equal(r.id, 0);
	assert_nothing_written(f->db);

	/* rejected before anything is written */
	cases[1].name = "b";
	cases[2].verdict = (enum verdict)77;
	assert_int_equal(db_run_insert(f->db, &r), KBX_EINVAL);
	cases[2].verdict = V_PASS;
	r.verdict = V_COUNT;
	assert_int_equal(db_run_insert(f->db, &r), KBX_EINVAL);
	r.verdict = V_PASS;
	r.has_device = 1;
	r.device = -2;
	assert_int_equal(db_run_insert(f->db, &r), KBX_EINVAL);
	r.has_device = 0;
	r.task_id = NULL;
	assert_int_equal(db_run_insert(f->db, &r), KBX_EINVAL);
	r.task_id = "Fusion/x";
	r.cases = NULL;
	assert_int_equal(db_run_insert(f->db, &r), KBX_EINVAL);
	r.cases = cases;
	assert_nothing_written(f->db);

	/* and the connection is fine afterwards */
	assert_int_equal(db_run_insert(f->db, &r), KBX_OK);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM case_results"), 3);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM perf_rows"), 2);
	assert_int_equal(db_runs_list(f->db, NULL, NULL, 0, &rows, &n), KBX_OK);
	assert_int_equal(n, 1);
	free(rows);
}

static void test_garbage_text(void **state)
{
	struct db_fixture *f = *state;

	rng_state = 0x9E3779B97F4A7C15ULL;
	for (int iter = 0; iter < 150; iter++) {
		char *task = junk(150), *cat = junk(60), *gpu = junk(120), *warn = junk(120), *msg = junk(400);
		char *src = junk(3000), *hash = junk(64), *sj = junk(300), *path = junk(100), *opts = junk(100);
		char *cname[2] = { junk(60), junk(60) }, *cjson[2] = { junk(500), junk(10) };
		char *isz = junk(80);
		struct db_case cases[2] = {
			{ cname[0], V_PASS, 1, 1, 1, 1, cjson[0] },
			{ cname[1], V_WRONG, 2, 2, 2, 2, cjson[1] },
		};
		struct db_perf perf = { .row = 3, .input_size = isz, .cand_ms = 1, .cand_p20 = 1, .cand_p80 = 1,
					.cand_min = 1, .cand_n = 5, .ref_ms = 1, .golden_ms = 1, .gbps = 1, .tflops = 1 };
		struct db_run r = simple_run(task, cat, V_WRONG, 1000 + iter, -1, -1);
		struct db_run_detail d;
		struct db_run_row *rows;
		int n;

		r.gpu = gpu;
		r.warnings = warn;
		r.message = msg;
		r.source = src;
		r.source_hash = hash;
		r.summary_json = sj;
		r.source_path = path;
		r.compile_options = opts;
		r.cases = cases;
		r.ncases = 2;
		r.perf = &perf;
		r.nperf = 1;
		assert_int_equal(db_run_insert(f->db, &r), KBX_OK);
		assert_int_equal(db_run_get(f->db, r.id, &d), KBX_OK);
		assert_string_equal(d.row.task_id, task);
		assert_string_equal(d.row.category, cat);
		assert_string_equal(d.row.gpu, gpu);
		assert_string_equal(d.row.warnings, warn);
		assert_string_equal(d.row.source_hash, hash);
		assert_string_equal(d.message, msg);
		assert_string_equal(d.source, src);
		assert_string_equal(d.summary_json, sj);
		assert_int_equal(d.ncases, 2);
		for (int i = 0; i < 2; i++) {
			assert_string_equal(d.case_names[i], cname[i]);
			assert_string_equal(d.case_json[i], cjson[i]);
		}
		assert_int_equal(d.nperf, 1);
		assert_string_equal(d.perf[0].input_size, isz);
		db_run_detail_free(&d);

		/* junk works as a filter too, bound and not spliced into SQL */
		assert_int_equal(db_runs_list(f->db, cat, task, 0, &rows, &n), KBX_OK);
		assert_true(n >= 1);
		assert_int_equal(rows[0].id, r.id);
		free(rows);

		free(task), free(cat), free(gpu), free(warn), free(msg), free(src), free(hash), free(sj);
		free(path), free(opts), free(cname[0]), free(cname[1]), free(cjson[0]), free(cjson[1]), free(isz);
	}
	/* the tables survived the junk and summaries still work */
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM runs"), 150);
	{
		struct db_category_stat *cs;
		struct db_task_stat *ts;
		int n, total = 0;

		assert_int_equal(db_category_stats(f->db, &cs, &n), KBX_OK);
		for (int i = 0; i < n; i++)
			total += cs[i].attempts;
		assert_int_equal(total, 150);
		free(cs);
		assert_int_equal(db_task_stats(f->db, NULL, &ts, &n), KBX_OK);
		free(ts);
	}
}

/* A category whose name is longer than the summary's field still groups correctly. */
static void test_long_category(void **state)
{
	struct db_fixture *f = *state;
	char longa[100], longb[100];
	struct db_category_stat *cs;
	int n;

	memset(longa, 'x', 80);
	longa[80] = '\0';
	memcpy(longb, longa, 81);
	longb[79] = 'y';   /* differs after the 63 characters kept */
	add_run(f->db, "t1", longa, V_PASS, 1, 2.0, -1);
	add_run(f->db, "t2", longb, V_PASS, 2, 4.0, -1);
	add_run(f->db, "t3", longb, V_WRONG, 3, -1, -1);
	assert_int_equal(db_category_stats(f->db, &cs, &n), KBX_OK);
	assert_int_equal(n, 2);
	assert_int_equal(cs[0].attempts, 1);
	assert_true(cs[0].best_speedup == 2.0);
	assert_int_equal(cs[1].attempts, 2);
	assert_true(cs[1].best_speedup == 4.0);
	assert_int_equal(strlen(cs[0].category), 63);
	free(cs);
}

/* --- history summaries --------------------------------------------------------------------- */

/*
 * Activation: a1 100 pass 2.0(golden, ref 1.0)  200 wrong  300 pass (ref only) 3.0
 *             a2 150 wrong  250 compile_error
 *             a3 350 pass 1.0  400 pass 0.5
 * Blas:       b1 1000 pass (no speedup)   b2 1100 wrong
 * Conv:       c1 50 wrong
 * Dup:        d1 500 wrong, then 500 pass (same instant, later id)
 */
static void make_history(struct db *db)
{
	add_run(db, "Activation/a1", "Activation", V_PASS, 100, 2.0, 1.0);
	add_run(db, "Activation/a2", "Activation", V_WRONG, 150, -1, -1);
	add_run(db, "Activation/a1", "Activation", V_WRONG, 200, -1, -1);
	add_run(db, "Activation/a2", "Activation", V_COMPILE_ERROR, 250, -1, -1);
	add_run(db, "Activation/a1", "Activation", V_PASS, 300, -1, 3.0);
	add_run(db, "Activation/a3", "Activation", V_PASS, 400, 0.5, 9.0);
	add_run(db, "Activation/a3", "Activation", V_PASS, 350, 1.0, -1);
	add_run(db, "Blas/b1", "Blas", V_PASS, 1000, -1, -1);
	add_run(db, "Blas/b2", "Blas", V_WRONG, 1100, 7.0, 7.0);   /* not passing: never counts */
	add_run(db, "Conv/c1", "Conv", V_WRONG, 50, -1, -1);
	add_run(db, "Dup/d1", "Dup", V_WRONG, 500, -1, -1);
	add_run(db, "Dup/d1", "Dup", V_PASS, 500, -1, 1.1);
}

static void test_category_stats(void **state)
{
	struct db_fixture *f = *state;
	struct db_category_stat *cs;
	int n;
	double all;

	assert_int_equal(db_category_stats(f->db, &cs, &n), KBX_OK);
	assert_int_equal(n, 0);
	free(cs);
	assert_int_equal(db_median_speedup(f->db, &all), KBX_OK);
	assert_true(all < 0);

	make_history(f->db);
	/* the explorer's All row: over every category's passing runs, 0.5 1.0 1.1 2.0 3.0 */
	assert_int_equal(db_median_speedup(f->db, &all), KBX_OK);
	assert_true(all == 1.1);
	assert_int_equal(db_category_stats(f->db, &cs, &n), KBX_OK);
	assert_int_equal(n, 4);
	assert_string_equal(cs[0].category, "Activation");
	assert_int_equal(cs[0].attempts, 7);
	assert_int_equal(cs[0].passes, 4);
	assert_int_equal(cs[0].tasks_tried, 3);
	assert_int_equal(cs[0].tasks_passed, 2);
	assert_true(cs[0].best_speedup == 3.0);
	assert_true(cs[0].median_speedup == 1.5);   /* of 2.0, 3.0, 1.0, 0.5 */
	assert_true(cs[0].last_at == 400);

	assert_string_equal(cs[1].category, "Blas");
	assert_int_equal(cs[1].attempts, 2);
	assert_int_equal(cs[1].passes, 1);
	assert_int_equal(cs[1].tasks_tried, 2);
	assert_int_equal(cs[1].tasks_passed, 1);
	assert_true(cs[1].best_speedup < 0);
	assert_true(cs[1].median_speedup < 0);
	assert_true(cs[1].last_at == 1100);

	assert_string_equal(cs[2].category, "Conv");
	assert_int_equal(cs[2].attempts, 1);
	assert_int_equal(cs[2].passes, 0);
	assert_int_equal(cs[2].tasks_tried, 1);
	assert_int_equal(cs[2].tasks_passed, 0);
	assert_true(cs[2].best_speedup < 0);
	assert_true(cs[2].last_at == 50);

	assert_string_equal(cs[3].category, "Dup");
	assert_int_equal(cs[3].attempts, 2);
	assert_int_equal(cs[3].passes, 1);
	assert_int_equal(cs[3].tasks_tried, 1);
	assert_int_equal(cs[3].tasks_passed, 1);
	assert_true(cs[3].best_speedup == 1.1);
	assert_true(cs[3].median_speedup == 1.1);
	free(cs);

	/* odd count: the middle value */
	add_run(f->db, "Activation/a2", "Activation", V_PASS, 260, 5.0, -1);
	assert_int_equal(db_category_stats(f->db, &cs, &n), KBX_OK);
	assert_true(cs[0].median_speedup == 2.0);   /* of 0.5 1 2 3 5 */
	assert_true(cs[0].best_speedup == 5.0);
	assert_int_equal(cs[0].tasks_passed, 3);
	free(cs);
}

static void test_task_stats(void **state)
{
	struct db_fixture *f = *state;
	struct db_task_stat *ts;
	int n;

	make_history(f->db);
	assert_int_equal(db_task_stats(f->db, "Activation", &ts, &n), KBX_OK);
	assert_int_equal(n, 3);
	assert_string_equal(ts[0].task_id, "Activation/a1");
	assert_int_equal(ts[0].attempts, 3);
	assert_int_equal(ts[0].passes, 2);
	assert_int_equal(ts[0].last_verdict, V_PASS);
	assert_true(ts[0].last_at == 300);
	assert_true(ts[0].best_speedup == 3.0);
	assert_string_equal(ts[1].task_id, "Activation/a2");
	assert_int_equal(ts[1].attempts, 2);
	assert_int_equal(ts[1].passes, 0);
	assert_int_equal(ts[1].last_verdict, V_COMPILE_ERROR);
	assert_true(ts[1].last_at == 250);
	assert_true(ts[1].best_speedup < 0);
	assert_string_equal(ts[2].task_id, "Activation/a3");
	assert_int_equal(ts[2].passes, 2);
	/* inserted out of order: the latest by time is the 400 one */
	assert_int_equal(ts[2].last_verdict, V_PASS);
	assert_true(ts[2].last_at == 400);
	assert_true(ts[2].best_speedup == 1.0);
	free(ts);

	assert_int_equal(db_task_stats(f->db, NULL, &ts, &n), KBX_OK);
	assert_int_equal(n, 7);
	assert_string_equal(ts[3].task_id, "Blas/b1");
	assert_true(ts[3].best_speedup < 0);
	assert_string_equal(ts[4].task_id, "Blas/b2");
	assert_true(ts[4].best_speedup < 0);   /* its speedup came from a wrong run */
	assert_int_equal(ts[4].last_verdict, V_WRONG);
	assert_string_equal(ts[5].task_id, "Conv/c1");
	assert_string_equal(ts[6].task_id, "Dup/d1");
	free(ts);

	assert_int_equal(db_task_stats(f->db, "Dup", &ts, &n), KBX_OK);
	assert_int_equal(n, 1);
	assert_int_equal(ts[0].last_verdict, V_PASS);   /* same instant: the later run */
	free(ts);

	assert_int_equal(db_task_stats(f->db, "Nope", &ts, &n), KBX_OK);
	assert_int_equal(n, 0);
	free(ts);
}

static void test_runs_list(void **state)
{
	struct db_fixture *f = *state;
	struct db_run_row *rows;
	int n;
	static const double act_times[] = { 400, 350, 300, 250, 200, 150, 100 };

	make_history(f->db);
	assert_int_equal(db_runs_list(f->db, "Activation", NULL, 0, &rows, &n), KBX_OK);
	assert_int_equal(n, 7);
	for (int i = 0; i < n; i++) {
		assert_true(rows[i].created_at == act_times[i]);
		assert_string_equal(rows[i].category, "Activation");
	}
	assert_int_equal(rows[0].verdict, V_PASS);
	assert_true(rows[0].speedup_golden == 0.5);
	assert_true(rows[0].speedup_ref == 9.0);
	assert_true(rows[2].speedup_golden < 0);
	assert_true(rows[2].speedup_ref == 3.0);
	free(rows);

	assert_int_equal(db_runs_list(f->db, "Activation", NULL, 3, &rows, &n), KBX_OK);
	assert_int_equal(n, 3);
	assert_true(rows[2].created_at == 300);
	free(rows);

	assert_int_equal(db_runs_list(f->db, NULL, "Activation/a2", 0, &rows, &n), KBX_OK);
	assert_int_equal(n, 2);
	assert_int_equal(rows[0].verdict, V_COMPILE_ERROR);
	assert_int_equal(rows[1].verdict, V_WRONG);
	free(rows);

	assert_int_equal(db_runs_list(f->db, "Blas", "Activation/a2", 0, &rows, &n), KBX_OK);
	assert_int_equal(n, 0);
	free(rows);

	assert_int_equal(db_runs_list(f->db, NULL, NULL, -1, &rows, &n), KBX_OK);
	assert_int_equal(n, 12);
	assert_true(rows[0].created_at == 1100);
	assert_true(rows[11].created_at == 50);
	/* same instant: newest id first */
	assert_true(rows[2].created_at == 500 && rows[3].created_at == 500);
	assert_true(rows[2].id > rows[3].id);
	assert_int_equal(rows[2].verdict, V_PASS);
	free(rows);

	/* a verdict this kbx does not know reads as "error" */
	exec(f->db, "UPDATE runs SET verdict = 'exploded' WHERE task_id = 'Conv/c1'");
	assert_int_equal(db_runs_list(f->db, "Conv", NULL, 0, &rows, &n), KBX_OK);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].verdict, V_ERROR);
	free(rows);
}

static void assert_rates(const double *got, const double *want, int n)
{
	for (int i = 0; i < n; i++) {
		if (fabs(got[i] - want[i]) > 1e-12)
			fail_msg("bucket %d: got %g, want %g", i, got[i], want[i]);
	}
}

static void test_category_series(void **state)
{
	struct db_fixture *f = *state;
	double rates[12];

	assert_int_equal(db_category_series(f->db, "Activation", 4, rates), KBX_OK);
	assert_rates(rates, (const double[]){ -1, -1, -1, -1 }, 4);

	make_history(f->db);
	/* span 100..400 in 3 buckets of 100: {100 pass, 150 wrong} {200 wrong, 250 ce} {300, 350, 400 pass} */
	assert_int_equal(db_category_series(f->db, "Activation", 3, rates), KBX_OK);
	assert_rates(rates, (const double[]){ 0.5, 0.0, 1.0 }, 3);
	/* 12 buckets of 25: every other one empty */
	assert_int_equal(db_category_series(f->db, "Activation", 12, rates), KBX_OK);
	assert_rates(rates, (const double[]){ 1, -1, 0, -1, 0, -1, 0, -1, 1, -1, 1, 1 }, 12);
	/* a single bucket is the overall pass rate */
	assert_int_equal(db_category_series(f->db, "Activation", 1, rates), KBX_OK);
	assert_rates(rates, (const double[]){ 4.0 / 7.0 }, 1);
	/* one instant: it all lands in the newest bucket */
	assert_int_equal(db_category_series(f->db, "Dup", 4, rates), KBX_OK);
	assert_rates(rates, (const double[]){ -1, -1, -1, 0.5 }, 4);
	assert_int_equal(db_category_series(f->db, "Conv", 2, rates), KBX_OK);
	assert_rates(rates, (const double[]){ -1, 0 }, 2);
	assert_int_equal(db_category_series(f->db, "Nope", 3, rates), KBX_OK);
	assert_rates(rates, (const double[]){ -1, -1, -1 }, 3);
	/* all categories: span 50..1100 in 2 buckets split at 575 */
	assert_int_equal(db_category_series(f->db, NULL, 2, rates), KBX_OK);
	assert_rates(rates, (const double[]){ 5.0 / 10.0, 1.0 / 2.0 }, 2);
	assert_int_equal(db_category_series(f->db, "Activation", 0, rates), KBX_EINVAL);
}

/* --- compile cache ------------------------------------------------------------------------- */

static void test_cache(void **state)
{
	struct db_fixture *f = *state;
	static const unsigned char img1[] = { 0x7f, 'E', 'L', 'F', 0, 0, 1, 0xff, 0 };
	static const unsigned char img2[] = { 1, 2, 3 };
	void *img;
	size_t size;
	char *log;
	char key[32];

	assert_int_equal(db_cache_get(f->db, "nope", &img, &size, &log), KBX_ENOTFOUND);
	assert_null(img);
	assert_non_null(strstr(kbx_last_error(), "nope"));

	assert_int_equal(db_cache_put(f->db, "k1", "sm_90", "-arch=sm_90", img1, sizeof(img1), "warning: x"), KBX_OK);
	assert_int_equal(db_cache_get(f->db, "k1", &img, &size, &log), KBX_OK);
	assert_int_equal(size, sizeof(img1));
	assert_memory_equal(img, img1, sizeof(img1));
	assert_string_equal(log, "warning: x");
	free(img);
	free(log);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM compile_cache WHERE key = 'k1' AND arch = 'sm_90'"
			       " AND options = '-arch=sm_90' AND created_at > 1600000000"), 1);

	/* replacing */
	assert_int_equal(db_cache_put(f->db, "k1", "sm_90", "-arch=sm_90", img2, sizeof(img2), NULL), KBX_OK);
	assert_int_equal(db_cache_get(f->db, "k1", &img, &size, &log), KBX_OK);
	assert_int_equal(size, 3);
	assert_memory_equal(img, img2, 3);
	assert_string_equal(log, "");
	free(img);
	free(log);
	/* out-parameters are optional */
	assert_int_equal(db_cache_get(f->db, "k1", NULL, &size, NULL), KBX_OK);
	assert_int_equal(size, 3);

	/* empty image */
	assert_int_equal(db_cache_put(f->db, "empty", NULL, NULL, NULL, 0, ""), KBX_OK);
	assert_int_equal(db_cache_get(f->db, "empty", &img, &size, &log), KBX_OK);
	assert_int_equal(size, 0);
	assert_non_null(img);
	free(img);
	free(log);
	assert_int_equal(db_cache_put(f->db, NULL, NULL, NULL, img2, 3, NULL), KBX_EINVAL);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM compile_cache"), 2);

	/* the bound: 2000 entries, the oldest go first; re-putting one makes it new */
	exec(f->db, "DELETE FROM compile_cache");
	for (int i = 0; i < 2000; i++) {
		snprintf(key, sizeof(key), "key%04d", i);
		assert_int_equal(db_cache_put(f->db, key, "sm_90", "", &i, sizeof(i), NULL), KBX_OK);
	}
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM compile_cache"), 2000);
	assert_int_equal(db_cache_put(f->db, "key0000", "sm_90", "", img2, 3, NULL), KBX_OK);
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM compile_cache"), 2000);
	for (int i = 2000; i < 2003; i++) {
		snprintf(key, sizeof(key), "key%04d", i);
		assert_int_equal(db_cache_put(f->db, key, "sm_90", "", &i, sizeof(i), NULL), KBX_OK);
	}
	assert_int_equal(q_int(db_sqlite(f->db), "SELECT COUNT(*) FROM compile_cache"), 2000);
	assert_int_equal(db_cache_get(f->db, "key0000", &img, &size, NULL), KBX_OK);
	assert_memory_equal(img, img2, 3);
	free(img);
	for (int i = 1; i <= 3; i++) {
		snprintf(key, sizeof(key), "key%04d", i);
		assert_int_equal(db_cache_get(f->db, key, NULL, NULL, NULL), KBX_ENOTFOUND);
	}
	assert_int_equal(db_cache_get(f->db, "key0004", &img, &size, NULL), KBX_OK);
	assert_int_equal(size, sizeof(int));
	assert_int_equal(*(int *)img, 4);
	free(img);
	assert_int_equal(db_cache_get(f->db, "key2002", NULL, NULL, NULL), KBX_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_path),
		cmocka_unit_test(test_open_fresh),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test_setup_teardown(test_newer_schema_refused, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_reopen_keeps_schema, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v1, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v2, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_impossible_timing, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_failure_rolls_back, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_open_garbage_files, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_insert_roundtrip, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_uid_after_fork, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_insert_atomic, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_garbage_text, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_long_category, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_category_stats, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_task_stats, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_runs_list, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_category_series, db_fixture_setup, db_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_cache, db_fixture_setup, db_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
