/*
 * db.c - opening the history, its schema and migrations, writing runs, the compile cache.
 */
#include "db.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../core/util.h"

/* The compile cache keeps this many entries; the oldest go first. */
#define DB_CACHE_MAX 2000
#define DB_BUSY_TIMEOUT_MS 5000

struct db {
	sqlite3 *sq;
	char *path;
	int readonly;           /* the file or its folder cannot be written: opened for reading */
};

/*
 * Migration i (1-based) brings user_version i-1 to i. Never edit one that has shipped: add the
 * next. Each runs in its own transaction together with the user_version bump.
 *
 * Doubles that are "not available" are NULL; verdicts are stored by name (core/result.h) so that
 * reordering the enum never changes what old rows mean.
 */
static const char *const migrations[] = {
	/* 1: the initial schema */
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  task_id TEXT NOT NULL,"
	"  category TEXT NOT NULL,"
	"  gpu TEXT,"
	"  driver_version INTEGER,"
	"  source TEXT,"
	"  source_hash TEXT,"
	"  source_path TEXT,"
	"  compile_options TEXT,"
	"  verdict TEXT NOT NULL,"
	"  warnings TEXT,"
	"  message TEXT,"
	"  seed INTEGER,"
	"  speedup_golden REAL,"
	"  speedup_ref REAL,"
	"  cand_ms REAL,"
	"  ref_ms REAL,"
	"  created_at REAL NOT NULL,"
	"  summary_json TEXT"
	");"
	/* history per category and per task, newest first or over time */
	"CREATE INDEX runs_category_time ON runs(category, created_at);"
	"CREATE INDEX runs_task_time ON runs(task_id, created_at);"
	"CREATE INDEX runs_time ON runs(created_at);"
	/* earlier attempts with the same source */
	"CREATE INDEX runs_source_hash ON runs(source_hash);"
	"CREATE TABLE case_results ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL,"
	"  name TEXT NOT NULL,"
	"  verdict TEXT NOT NULL,"
	"  max_abs REAL,"
	"  max_rel REAL,"
	"  max_ulp REAL,"
	"  mismatches INTEGER,"
	"  detail_json TEXT,"
	"  PRIMARY KEY (run_id, idx)"
	");"
	"CREATE TABLE perf_rows ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  \"row\" INTEGER NOT NULL,"
	"  input_size TEXT,"
	"  cand_ms REAL,"
	"  cand_p20 REAL,"
	"  cand_p80 REAL,"
	"  cand_min REAL,"
	"  cand_n INTEGER,"
	"  ref_ms REAL,"
	"  golden_ms REAL,"
	"  gbps REAL,"
	"  tflops REAL,"
	"  PRIMARY KEY (run_id, \"row\")"
	");"
	"CREATE TABLE compile_cache ("
	"  key TEXT PRIMARY KEY NOT NULL,"
	"  arch TEXT,"
	"  options TEXT,"
	"  image BLOB NOT NULL,"
	"  log TEXT,"
	"  created_at REAL NOT NULL"
	");"
	"CREATE INDEX compile_cache_time ON compile_cache(created_at);",
	/* 2: covering indexes for the summaries the explorer draws at start: with 100,000 runs the
	 * per-category and per-task queries read these instead of every row (and its source). */
	"CREATE INDEX runs_category_summary ON runs(category, task_id, verdict, created_at, speedup_golden, speedup_ref);"
	"CREATE INDEX runs_task_summary ON runs(task_id, created_at, verdict, speedup_golden, speedup_ref, category);",
	/* 3: where a run ran (CUDA ordinal) and for which evaluation; the file a merged run came
	 * from; an identity that survives merging. Old runs get theirs from their id and content
	 * (kbx_legacy_uid, registered by db_open), not at random, so that two copies of one old
	 * history migrate to the same uids and merging both adds each run once. */
	"ALTER TABLE runs ADD COLUMN device INTEGER;"
	"ALTER TABLE runs ADD COLUMN eval TEXT;"
	"ALTER TABLE runs ADD COLUMN origin TEXT;"
	"ALTER TABLE runs ADD COLUMN uid TEXT;"
	"UPDATE runs SET uid = kbx_legacy_uid(id, task_id, category, created_at, verdict, seed, source_hash);"
	"CREATE UNIQUE INDEX runs_uid ON runs(uid);",
	/* 4: what each GPU was measured to do (kbx doctor --calibrate, core/calibrate.h), one row per
	 * board: its UUID ('' when the driver gave none) and name; a new calibration replaces the
	 * old. Looked up by UUID, else by name (the same model), newest first. Not tied to runs, so
	 * db_merge leaves it alone. */
	"CREATE TABLE calibration ("
	"  gpu_uuid TEXT NOT NULL,"
	"  gpu_name TEXT NOT NULL,"
	"  copy_gbps REAL,"
	"  fma_tflops REAL,"
	"  tensor_tflops REAL,"
	"  peak_gbps REAL,"
	"  measured_at REAL NOT NULL,"
	"  kbx_version TEXT,"
	"  PRIMARY KEY (gpu_uuid, gpu_name)"
	");"
	"CREATE INDEX calibration_name ON calibration(gpu_name, measured_at);",
	/* 5: how each perf row was timed and under what conditions, so that history can tell a
	 * real change from noise (core/timecmp.h): the rest of the candidate's sample summary, the
	 * timing mode (core/bench.h), and the clock summary read around the timed block
	 * (core/nvml.h). NULL where not known: every row from before, and the clocks of a run
	 * without NVML. reasons holds NVML's 64-bit mask as SQLite's signed integer. */
	"ALTER TABLE perf_rows ADD COLUMN cand_max REAL;"
	"ALTER TABLE perf_rows ADD COLUMN cand_mean REAL;"
	"ALTER TABLE perf_rows ADD COLUMN cand_stddev REAL;"
	"ALTER TABLE perf_rows ADD COLUMN cand_rsd REAL;"
	"ALTER TABLE perf_rows ADD COLUMN bench_mode TEXT;"
	"ALTER TABLE perf_rows ADD COLUMN bench_stop TEXT;"
	"ALTER TABLE perf_rows ADD COLUMN hide_latency INTEGER;"
	"ALTER TABLE perf_rows ADD COLUMN sm_mhz REAL;"
	"ALTER TABLE perf_rows ADD COLUMN min_sm_mhz REAL;"
	"ALTER TABLE perf_rows ADD COLUMN mem_mhz REAL;"
	"ALTER TABLE perf_rows ADD COLUMN max_sm_mhz REAL;"
	"ALTER TABLE perf_rows ADD COLUMN temp_c REAL;"
	"ALTER TABLE perf_rows ADD COLUMN power_w REAL;"
	"ALTER TABLE perf_rows ADD COLUMN reasons INTEGER;"
	"ALTER TABLE perf_rows ADD COLUMN reasons_valid INTEGER;"
	"ALTER TABLE perf_rows ADD COLUMN clock_readings INTEGER;",
	/* 6: the impossible_timing verdict (core/ceiling.h). Runs from before it that passed with the
	 * impossible-timing warning were never passes: they take the verdict, and lose the speedups
	 * that were kept for them. */
	"UPDATE runs SET verdict = 'impossible_timing', speedup_golden = NULL, speedup_ref = NULL"
	" WHERE verdict = 'pass' AND (',' || COALESCE(warnings, '') || ',') LIKE '%,impossible-timing,%';",
	/* 7: the reference's timings kept across runs (core/reftime.h, db/reftimes.c), one per key
	 * (GPU, driver, kbx version, task, reference image, perf row, seed, timing method). */
	"CREATE TABLE ref_timings ("
	"  key TEXT PRIMARY KEY NOT NULL,"
	"  task_id TEXT NOT NULL,"
	"  gpu TEXT,"
	"  \"row\" INTEGER NOT NULL,"
	"  median REAL, p20 REAL, p80 REAL, min REAL, max REAL, mean REAL, stddev REAL, n INTEGER,"
	"  sm_mhz REAL, min_sm_mhz REAL, max_sm_mhz REAL, mem_mhz REAL, clock_readings INTEGER,"
	"  measured_at REAL NOT NULL"
	");"
	"CREATE INDEX ref_timings_time ON ref_timings(measured_at);",
	/* 8: the reference's outputs at perf rows kept across runs (core/refout.h, db/refouts.c),
	 * one blob per key (kbx version, GPU model, task, reference image, the row's bindings and
	 * the digests of its inputs). */
	"CREATE TABLE ref_outputs ("
	"  key TEXT PRIMARY KEY NOT NULL,"
	"  task_id TEXT NOT NULL,"
	"  bytes INTEGER NOT NULL,"
	"  data BLOB NOT NULL,"
	"  kept_at REAL NOT NULL"
	");"
	"CREATE INDEX ref_outputs_time ON ref_outputs(kept_at);",
};

_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == DB_SCHEMA_VERSION,
	       "one migration per schema version");

enum kbx_status db_error(struct db *db, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return kbx_error(KBX_EDB, "cannot %s in history '%s': %s", what, db->path,
			 sqlite3_errmsg(db->sq));
}

struct sqlite3 *db_sqlite(struct db *db)
{
	return db->sq;
}

const char *db_path(struct db *db)
{
	return db->path;
}

/*
 * kbx_legacy_uid(value, ...): the uid of a run recorded before schema 3, 32 hex digits of the
 * SHA-256 of its arguments with their types. Doubles go in as their bits, not as text: the
 * locale must not change a uid.
 */
static void sql_legacy_uid(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct sbuf sb = SBUF_INIT;
	char hex[65];

	for (int i = 0; i < argc; i++) {
		switch (sqlite3_value_type(argv[i])) {
		case SQLITE_NULL:
			sbuf_adds(&sb, "n;");
			break;
		case SQLITE_INTEGER:
			sbuf_addf(&sb, "i%lld;", (long long)sqlite3_value_int64(argv[i]));
			break;
		case SQLITE_FLOAT: {
			double d = sqlite3_value_double(argv[i]);
			unsigned long long bits;

			memcpy(&bits, &d, sizeof(bits));
			sbuf_addf(&sb, "f%016llx;", bits);
			break;
		}
		default: {
			const unsigned char *t = sqlite3_value_text(argv[i]);
			int n = sqlite3_value_bytes(argv[i]);

			sbuf_addf(&sb, "t%d:", n);
			if (t && n > 0)
				sbuf_add(&sb, (const char *)t, (size_t)n);
			sbuf_adds(&sb, ";");
			break;
		}
		}
	}
	sha256_hex(sb.buf ? sb.buf : "", sb.len, hex);
	sbuf_release(&sb);
	sqlite3_result_text(ctx, hex, 32, SQLITE_TRANSIENT);
}

int db_register_functions(struct sqlite3 *sq)
{
	return sqlite3_create_function_v2(sq, "kbx_legacy_uid", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
					  sql_legacy_uid, NULL, NULL, NULL);
}

/*
 * A new run's uid: 128 random bits from the kernel. Not SQLite's randomblob(): its generator is
 * seeded once per process, and a child forked after the parent used it would repeat the
 * parent's sequence. Without getrandom or /dev/urandom, time, pid and a counter still make
 * uids that differ between runs.
 */
static void new_uid(char out[33])
{
	static unsigned long long counter;
	unsigned char b[16];
	size_t got = 0;

	while (got < sizeof(b)) {
		ssize_t n = getrandom(b + got, sizeof(b) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got < sizeof(b)) {
		FILE *fp = fopen("/dev/urandom", "rb");

		got = fp ? fread(b, 1, sizeof(b), fp) : 0;
		if (fp)
			fclose(fp);
	}
	if (got < sizeof(b)) {
		char seed[128], hex[65];
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(seed, sizeof(seed), "%lld.%09ld/%ld/%llu/%p", (long long)ts.tv_sec, ts.tv_nsec,
			 (long)getpid(), ++counter, (void *)seed);
		sha256_hex(seed, strlen(seed), hex);
		memcpy(out, hex, 32);
		out[32] = '\0';
		return;
	}
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

double db_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *db_default_path(void)
{
	static char path[PATH_MAX + 64];
	const char *env, *home;

	env = getenv("KBX_DB");
	if (env && *env) {
		snprintf(path, sizeof(path), "%s", env);
		return path;
	}
	/* The XDG spec says to ignore a relative $XDG_DATA_HOME. */
	env = getenv("XDG_DATA_HOME");
	if (env && env[0] == '/') {
		snprintf(path, sizeof(path), "%s/kbx/history.db", env);
		return path;
	}
	home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());

		home = pw && pw->pw_dir ? pw->pw_dir : ".";
	}
	snprintf(path, sizeof(path), "%s/.local/share/kbx/history.db", home);
	return path;
}

/* mkdir -p of the folders above `path`, each new one private to the user: the history holds
 * everyone's candidate sources. */
static enum kbx_status make_parents(const char *path)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	enum kbx_status st = KBX_OK;

	if (slash && slash != dir) {
		*slash = '\0';
		st = make_dirs(dir, 0700);
		if (st)
			kbx_wrap(st, "cannot create history '%s'", path);
	}
	free(dir);
	return st;
}

static enum kbx_status exec_sql(struct db *db, const char *sql, const char *what)
{
	char *msg = NULL;

	if (sqlite3_exec(db->sq, sql, NULL, NULL, &msg) != SQLITE_OK) {
		enum kbx_status st = kbx_error(KBX_EDB, "cannot %s in history '%s': %s", what, db->path,
					       msg ? msg : sqlite3_errmsg(db->sq));

		sqlite3_free(msg);
		return st;
	}
	return KBX_OK;
}

/*
 * Turning a new file to WAL rewrites its header: the connection reads it, then asks for the
 * write lock while still holding its read lock, and when another connection has the write lock
 * SQLite answers SQLITE_BUSY at once, without the busy handler (waiting could deadlock). So two
 * processes opening a history that does not exist yet would see "database is locked": retry
 * for as long as the busy timeout.
 */
static enum kbx_status enable_wal(struct db *db)
{
	double deadline = db_now() + DB_BUSY_TIMEOUT_MS / 1000.0;
	int rc;

	while ((rc = sqlite3_exec(db->sq, "PRAGMA journal_mode=WAL", NULL, NULL, NULL)) != SQLITE_OK &&
	       (rc & 0xff) == SQLITE_BUSY && db_now() < deadline)
		sqlite3_sleep(10);
	return rc == SQLITE_OK ? KBX_OK : db_error(db, "enable WAL mode");
}

static void rollback(struct db *db)
{
	/* Keeps the caller's message: the failure that led here is the one worth reporting. */
	if (!sqlite3_get_autocommit(db->sq))
		sqlite3_exec(db->sq, "ROLLBACK", NULL, NULL, NULL);
}

static int read_user_version(struct db *db, int *version)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(db->sq, "PRAGMA user_version", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*version = sqlite3_column_int(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

int db_schema_version(struct db *db)
{
	int v = -1;

	if (!db || read_user_version(db, &v) != SQLITE_OK)
		return -1;
	return v;
}

static enum kbx_status migrate(struct db *db)
{
	int version;

	if (read_user_version(db, &version) != SQLITE_OK)
		return db_error(db, "read the schema version");
	if (version > DB_SCHEMA_VERSION)
		return kbx_error(KBX_EDB, "history '%s' has schema version %d, newer than this kbx knows (%d): "
				 "upgrade kbx or use another file with --db", db->path, version, DB_SCHEMA_VERSION);
	for (int i = version + 1; i <= DB_SCHEMA_VERSION; i++) {
		char bump[64];
		enum kbx_status st;

		st = exec_sql(db, "BEGIN IMMEDIATE", "start a migration");
		if (st != KBX_OK)
			return st;
		/* Another process may have migrated while we waited for the write lock. */
		if (read_user_version(db, &version) != SQLITE_OK) {
			st = db_error(db, "read the schema version");
			rollback(db);
			return st;
		}
		if (version >= i) {
			rollback(db);
			continue;
		}
		st = exec_sql(db, migrations[i - 1], "migrate the schema");
		if (st == KBX_OK) {
			snprintf(bump, sizeof(bump), "PRAGMA user_version = %d", i);
			st = exec_sql(db, bump, "migrate the schema");
		}
		if (st == KBX_OK)
			st = exec_sql(db, "COMMIT", "migrate the schema");
		if (st != KBX_OK) {
			rollback(db);
			return kbx_wrap(st, "schema migration %d failed", i);
		}
	}
	return KBX_OK;
}

/* An existing history that this process cannot write (the file, or the folder that must take
 * its -wal and -shm files): 1. A missing one is created as before. */
static int cannot_write(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int no;

	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	no = access(path, F_OK) == 0 && (access(path, W_OK) != 0 || access(slash ? dir : ".", W_OK) != 0);
	free(dir);
	return no;
}

/*
 * Read-only: WAL needs the -shm file, which a folder we cannot write may lack; then the file is
 * opened as immutable (no locks, no shared memory), which is right for a history nobody here
 * can change.
 */
static int open_readonly(struct db *db)
{
	char *uri;
	int rc = sqlite3_open_v2(db->path, &db->sq, SQLITE_OPEN_READONLY, NULL);

	if (rc == SQLITE_OK && sqlite3_exec(db->sq, "SELECT COUNT(*) FROM sqlite_master", NULL, NULL, NULL) == SQLITE_OK)
		return SQLITE_OK;
	sqlite3_close_v2(db->sq);
	db->sq = NULL;
	uri = sqlite3_mprintf("file:%q?immutable=1", db->path);
	rc = sqlite3_open_v2(uri, &db->sq, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	sqlite3_free(uri);
	return rc;
}

enum kbx_status db_open(const char *path, struct db **out)
{
	struct db *db;
	enum kbx_status st;
	int rc;

	*out = NULL;
	if (!path)
		path = db_default_path();
	/* ":memory:" and "" (a private temporary database) have no folder to create. */
	if (path[0] && path[0] != ':') {
		st = make_parents(path);
		if (st != KBX_OK)
			return st;
	}
	db = xcalloc(1, sizeof(*db));
	db->path = xstrdup(path);
	db->readonly = path[0] && path[0] != ':' && cannot_write(path);
	if (db->readonly)
		rc = open_readonly(db);
	else
		rc = sqlite3_open_v2(path, &db->sq, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		st = kbx_error(KBX_EDB, "cannot open history '%s': %s", path,
			       db->sq ? sqlite3_errmsg(db->sq) : sqlite3_errstr(rc));
		db_close(db);
		return st;
	}
	sqlite3_extended_result_codes(db->sq, 1);
	sqlite3_busy_timeout(db->sq, DB_BUSY_TIMEOUT_MS);
	if (db_register_functions(db->sq) != SQLITE_OK) {
		st = db_error(db, "register SQL functions");
		db_close(db);
		return st;
	}
	/* Opening is lazy: the first read is what finds a file that is not SQLite. */
	if (sqlite3_exec(db->sq, "SELECT COUNT(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK) {
		st = kbx_error(KBX_EDB, "cannot open history '%s': %s", path, sqlite3_errmsg(db->sq));
		db_close(db);
		return st;
	}
	/* journal_mode answers with the mode it got; an in-memory database stays "memory", which is
	 * fine. */
	if (db->readonly) {
		/* no WAL switch and no migration: both write */
		int v = -1;

		st = read_user_version(db, &v) == SQLITE_OK ? KBX_OK : db_error(db, "read the schema version");
		if (st == KBX_OK && v != DB_SCHEMA_VERSION)
			st = kbx_error(KBX_EDB, "history '%s' is read-only and has schema version %d, not %d: it cannot be "
				       "brought up to date here", path, v, DB_SCHEMA_VERSION);
	} else {
		st = enable_wal(db);
		if (st == KBX_OK)
			st = exec_sql(db, "PRAGMA synchronous=NORMAL", "set synchronous mode");
		if (st == KBX_OK)
			st = exec_sql(db, "PRAGMA foreign_keys=ON", "enable foreign keys");
		if (st == KBX_OK)
			st = migrate(db);
	}
	if (st != KBX_OK) {
		db_close(db);
		return st;
	}
	*out = db;
	return KBX_OK;
}

int db_readonly(const struct db *db)
{
	return db && db->readonly;
}

enum kbx_status db_check(struct db *db)
{
	sqlite3_stmt *st;
	char what[256] = "";
	int rc, ok = 0, rows = 0;

	rc = sqlite3_prepare_v2(db->sq, "PRAGMA integrity_check(3)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return kbx_error(KBX_EDB, "history '%s' is damaged: its integrity check cannot run: %s", db->path,
				 sqlite3_errmsg(db->sq));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *line = (const char *)sqlite3_column_text(st, 0);

		if (!rows++ && line && !strcmp(line, "ok"))
			ok = 1;
		if (line && strlen(what) < sizeof(what) / 2)
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s%.*s", rows > 1 ? "; " : "",
				 (int)strcspn(line, "\n"), line);
	}
	if (rc != SQLITE_DONE)
		snprintf(what, sizeof(what), "%s", sqlite3_errmsg(db->sq));
	sqlite3_finalize(st);
	if (ok && rc == SQLITE_DONE)
		return KBX_OK;
	return kbx_error(KBX_EDB, "history '%s' is damaged (integrity check: %s); what it holds may be incomplete",
			 db->path, what);
}

void db_close(struct db *db)
{
	if (!db)
		return;
	if (db->sq)
		sqlite3_close_v2(db->sq);
	free(db->path);
	free(db);
}

/* --- binding ------------------------------------------------------------------------------- */

static int bind_text(sqlite3_stmt *st, int i, const char *s)
{
	return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/* "Not available" (< 0) becomes NULL; so does NaN, which SQLite would store as NULL anyway. */
static int bind_opt_double(sqlite3_stmt *st, int i, double v)
{
	return isnan(v) || v < 0 ? sqlite3_bind_null(st, i) : sqlite3_bind_double(st, i, v);
}

static int bind_opt_int64(sqlite3_stmt *st, int i, long long v)
{
	return v < 0 ? sqlite3_bind_null(st, i) : sqlite3_bind_int64(st, i, v);
}

static const char *verdict_text(enum verdict v)
{
	return (unsigned)v < V_COUNT ? verdict_name(v) : NULL;
}

/* Run the bound statement to completion and reset it for the next row. */
static int step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* --- runs ---------------------------------------------------------------------------------- */

static const char insert_run_sql[] =
	"INSERT INTO runs (task_id, category, gpu, driver_version, source, source_hash, source_path,"
	" compile_options, verdict, warnings, message, seed, speedup_golden, speedup_ref, cand_ms,"
	" ref_ms, created_at, summary_json, device, eval, uid)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)";
static const char insert_case_sql[] =
	"INSERT INTO case_results (run_id, idx, name, verdict, max_abs, max_rel, max_ulp, mismatches,"
	" detail_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
static const char insert_perf_sql[] =
	"INSERT INTO perf_rows (run_id, \"row\", input_size, cand_ms, cand_p20, cand_p80, cand_min,"
	" cand_n, ref_ms, golden_ms, gbps, tflops, cand_max, cand_mean, cand_stddev, cand_rsd, bench_mode,"
	" bench_stop, hide_latency, sm_mhz, min_sm_mhz, mem_mhz, max_sm_mhz, temp_c, power_w, reasons,"
	" reasons_valid, clock_readings)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,"
	" ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28)";

static int insert_run_row(struct db *db, const struct db_run *r, const char *uid, sqlite3_int64 *id, double *at)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(db->sq, insert_run_sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	bind_text(st, 1, r->task_id);
	bind_text(st, 2, r->category);
	bind_text(st, 3, r->gpu);
	bind_opt_int64(st, 4, r->driver_version > 0 ? r->driver_version : -1);
	bind_text(st, 5, r->source);
	bind_text(st, 6, r->source_hash);
	bind_text(st, 7, r->source_path);
	bind_text(st, 8, r->compile_options);
	bind_text(st, 9, verdict_text(r->verdict));
	bind_text(st, 10, r->warnings);
	bind_text(st, 11, r->message);
	/* Stored as the same 64 bits; SQLite integers are signed. */
	sqlite3_bind_int64(st, 12, (sqlite3_int64)r->seed);
	bind_opt_double(st, 13, r->speedup_golden);
	bind_opt_double(st, 14, r->speedup_ref);
	bind_opt_double(st, 15, r->cand_ms);
	bind_opt_double(st, 16, r->ref_ms);
	*at = r->created_at > 0 ? r->created_at : db_now();
	sqlite3_bind_double(st, 17, *at);
	bind_text(st, 18, r->summary_json);
	if (r->has_device)
		sqlite3_bind_int(st, 19, r->device);
	else
		sqlite3_bind_null(st, 19);
	bind_text(st, 20, r->eval);
	bind_text(st, 21, uid);
	rc = step_done(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_OK)
		*id = sqlite3_last_insert_rowid(db->sq);
	return rc;
}

static int insert_cases(struct db *db, sqlite3_int64 id, const struct db_case *cases, int n)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(db->sq, insert_case_sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	for (int i = 0; i < n && rc == SQLITE_OK; i++) {
		const struct db_case *c = &cases[i];

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, i);
		bind_text(st, 3, c->name);
		bind_text(st, 4, verdict_text(c->verdict));
		bind_opt_double(st, 5, c->max_abs);
		bind_opt_double(st, 6, c->max_rel);
		bind_opt_double(st, 7, c->max_ulp);
		bind_opt_int64(st, 8, c->mismatches);
		bind_text(st, 9, c->detail_json);
		rc = step_done(st);
	}
	sqlite3_finalize(st);
	return rc;
}

/* A string column that holds one word of a known kind: "" (not known) is NULL. */
static int bind_word(sqlite3_stmt *st, int i, const char *s, size_t size)
{
	return s[0] && memchr(s, '\0', size) ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT)
					    : sqlite3_bind_null(st, i);
}

/* The schema 5 columns of a perf row from parameter `first` on, NULL where db.h says "not known". */
static void bind_perf_details(sqlite3_stmt *st, int first, const struct db_perf *p)
{
	const struct clock_summary *c = &p->clocks;
	int stats = p->cand_mean > 0;
	int timing = p->bench_mode[0] && memchr(p->bench_mode, '\0', sizeof(p->bench_mode));
	int clocks = c->valid > 0;
	int i = first;

	bind_opt_double(st, i++, stats ? p->cand_max : -1);
	bind_opt_double(st, i++, stats ? p->cand_mean : -1);
	bind_opt_double(st, i++, stats ? p->cand_stddev : -1);
	bind_opt_double(st, i++, stats ? p->cand_rsd : -1);
	bind_word(st, i++, p->bench_mode, sizeof(p->bench_mode));
	if (timing) {
		bind_word(st, i++, p->bench_stop, sizeof(p->bench_stop));
		sqlite3_bind_int(st, i++, p->hide_latency > 0);
	} else {
		sqlite3_bind_null(st, i++);
		sqlite3_bind_null(st, i++);
	}
	/* A figure NVML could not give is 0 in the summary (nvml.h): NULL here, like any other. */
	bind_opt_double(st, i++, clocks && c->sm_mhz > 0 ? c->sm_mhz : -1);
	bind_opt_double(st, i++, clocks && c->min_sm_mhz > 0 ? c->min_sm_mhz : -1);
	bind_opt_double(st, i++, clocks && c->mem_mhz > 0 ? c->mem_mhz : -1);
	bind_opt_double(st, i++, clocks && c->max_sm_mhz > 0 ? c->max_sm_mhz : -1);
	bind_opt_double(st, i++, clocks && c->temp_c > 0 ? c->temp_c : -1);
	bind_opt_double(st, i++, clocks && c->power_w > 0 ? c->power_w : -1);
	if (clocks && c->reasons_valid) {
		/* the same 64 bits; SQLite integers are signed */
		sqlite3_bind_int64(st, i++, (sqlite3_int64)c->reasons);
		sqlite3_bind_int(st, i++, 1);
	} else {
		sqlite3_bind_null(st, i++);
		if (clocks)
			sqlite3_bind_int(st, i++, 0);
		else
			sqlite3_bind_null(st, i++);
	}
	if (clocks)
		sqlite3_bind_int(st, i++, c->valid);
	else
		sqlite3_bind_null(st, i++);
}

/* bind_opt_double's value as column_opt_double and column_num read it back. */
static double stored_opt(double v)
{
	return isnan(v) || v < 0 ? -1.0 : v;
}

/* A clock figure: bound as above when > 0, read back by column_clock (finite and > 0, else 0). */
static double stored_clock(double v)
{
	return isfinite(v) && v > 0 ? v : 0;
}

/* One of the words db_perf_read accepts (NULL-terminated list), from a field that may lack its
 * NUL, else "". */
static void stored_word(const char *s, size_t size, const char *const *words, char *dst, size_t dsize)
{
	dst[0] = '\0';
	if (!memchr(s, '\0', size))
		return;
	for (; *words; words++)
		if (!strcmp(s, *words))
			snprintf(dst, dsize, "%s", s);
}

void db_perf_from_result(const struct perf_result *p, struct db_perf *dp)
{
	memset(dp, 0, sizeof(*dp));
	dp->row = p->row;
	dp->input_size = xstrdup_or_null(p->input_size);
	if (p->cand.n > 0) {
		dp->cand_ms = p->cand.median;
		dp->cand_p20 = p->cand.p20;
		dp->cand_p80 = p->cand.p80;
		dp->cand_min = p->cand.min;
		dp->cand_n = p->cand.n;
		dp->cand_max = p->cand.max;
		dp->cand_mean = p->cand.mean;
		dp->cand_stddev = p->cand.stddev;
		dp->cand_rsd = p->cand_rsd;
		/* how it was timed, only when the event said (rows from older workers do not) */
		if (p->bench_mode[0]) {
			snprintf(dp->bench_mode, sizeof(dp->bench_mode), "%.*s", (int)sizeof(p->bench_mode), p->bench_mode);
			snprintf(dp->bench_stop, sizeof(dp->bench_stop), "%.*s", (int)sizeof(p->bench_stop), p->bench_stop);
			dp->hide_latency = p->hide_latency != 0;
		}
		/* the conditions belong to the timing: none without one */
		dp->clocks = p->clocks;
	} else {
		dp->cand_ms = dp->cand_p20 = dp->cand_p80 = dp->cand_min = -1.0;
		dp->cand_n = 0;
	}
	dp->ref_ms = p->has_ref && p->ref.n > 0 ? p->ref.median : -1.0;
	dp->golden_ms = p->golden_ms;
	/* Throughput means nothing without the task's formula or a timing. */
	dp->gbps = p->bytes >= 0 && p->cand.n > 0 ? p->gbps : -1.0;
	dp->tflops = p->flops >= 0 && p->cand.n > 0 ? p->tflops : -1.0;
}

void db_perf_to_result(const struct db_perf *p, struct perf_result *q)
{
	memset(q, 0, sizeof(*q));
	q->row = p->row;
	q->input_size = xstrdup_or_null(p->input_size);
	q->cand.median = p->cand_ms;
	q->cand.p20 = p->cand_p20;
	q->cand.p80 = p->cand_p80;
	q->cand.min = p->cand_min;
	q->cand.n = p->cand_n;
	q->ref.median = p->ref_ms;
	q->has_ref = p->ref_ms >= 0;
	q->golden_ms = p->golden_ms;
	q->gbps = p->gbps;
	q->tflops = p->tflops;
	q->bytes = q->flops = -1;
	q->correct = 1;
	/* schema 5: how it was timed and under what clocks; absent in older rows */
	q->cand.max = p->cand_max;
	q->cand.mean = p->cand_mean;
	q->cand.stddev = p->cand_stddev;
	q->cand_rsd = p->cand_rsd;
	snprintf(q->bench_mode, sizeof(q->bench_mode), "%s", p->bench_mode);
	snprintf(q->bench_stop, sizeof(q->bench_stop), "%s", p->bench_stop);
	q->hide_latency = p->hide_latency > 0;
	q->clocks = p->clocks;
}

/* Mirrors insert_perf and bind_perf_details (the writing) and db_perf_read (the reading back);
 * tests/db/test_db.c checks the three agree. */
void db_perf_stored(const struct db_perf *in, struct db_perf *out)
{
	static const char *const modes[] = { "fixed", "noise", NULL };
	static const char *const stops[] = { "count", "noise", "cap", NULL };
	const struct clock_summary *c = &in->clocks;
	int stats = in->cand_mean > 0;
	int timing = in->bench_mode[0] && memchr(in->bench_mode, '\0', sizeof(in->bench_mode));

	memset(out, 0, sizeof(*out));
	out->row = in->row;
	out->input_size = in->input_size;
	out->cand_ms = stored_opt(in->cand_ms);
	out->cand_p20 = stored_opt(in->cand_p20);
	out->cand_p80 = stored_opt(in->cand_p80);
	out->cand_min = stored_opt(in->cand_min);
	out->cand_n = in->cand_n < 0 ? -1 : in->cand_n;
	out->ref_ms = stored_opt(in->ref_ms);
	out->golden_ms = stored_opt(in->golden_ms);
	out->gbps = stored_opt(in->gbps);
	out->tflops = stored_opt(in->tflops);
	out->cand_max = stats ? stored_opt(in->cand_max) : -1;
	out->cand_mean = stats ? stored_opt(in->cand_mean) : -1;
	out->cand_stddev = stats ? stored_opt(in->cand_stddev) : -1;
	out->cand_rsd = stats ? stored_opt(in->cand_rsd) : -1;
	stored_word(in->bench_mode, sizeof(in->bench_mode), modes, out->bench_mode, sizeof(out->bench_mode));
	if (timing)
		stored_word(in->bench_stop, sizeof(in->bench_stop), stops, out->bench_stop, sizeof(out->bench_stop));
	out->hide_latency = out->bench_mode[0] ? in->hide_latency > 0 : -1;
	if (c->valid > 0) {
		out->clocks.sm_mhz = stored_clock(c->sm_mhz);
		out->clocks.min_sm_mhz = stored_clock(c->min_sm_mhz);
		out->clocks.mem_mhz = stored_clock(c->mem_mhz);
		out->clocks.max_sm_mhz = stored_clock(c->max_sm_mhz);
		out->clocks.temp_c = stored_clock(c->temp_c);
		out->clocks.power_w = stored_clock(c->power_w);
		if (c->reasons_valid) {
			out->clocks.reasons = c->reasons;
			out->clocks.reasons_valid = 1;
		}
		out->clocks.valid = c->valid >= 2 ? 2 : c->valid;
	}
}

static int insert_perf(struct db *db, sqlite3_int64 id, const struct db_perf *perf, int n)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(db->sq, insert_perf_sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	for (int i = 0; i < n && rc == SQLITE_OK; i++) {
		const struct db_perf *p = &perf[i];

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, p->row);
		bind_text(st, 3, p->input_size);
		bind_opt_double(st, 4, p->cand_ms);
		bind_opt_double(st, 5, p->cand_p20);
		bind_opt_double(st, 6, p->cand_p80);
		bind_opt_double(st, 7, p->cand_min);
		bind_opt_int64(st, 8, p->cand_n);
		bind_opt_double(st, 9, p->ref_ms);
		bind_opt_double(st, 10, p->golden_ms);
		bind_opt_double(st, 11, p->gbps);
		bind_opt_double(st, 12, p->tflops);
		bind_perf_details(st, 13, p);
		rc = step_done(st);
	}
	sqlite3_finalize(st);
	return rc;
}

enum kbx_status db_run_insert(struct db *db, struct db_run *run)
{
	sqlite3_int64 id = 0;
	double at = 0;
	enum kbx_status st;
	const char *what;
	char uid[33];
	int rc;

	run->id = 0;
	run->uid[0] = '\0';
	run->written_at = 0;
	if (!run->task_id || !run->category)
		return kbx_error(KBX_EINVAL, "cannot record a run without a task id and category");
	if ((run->ncases > 0 && !run->cases) || (run->nperf > 0 && !run->perf) || run->ncases < 0 ||
	    run->nperf < 0)
		return kbx_error(KBX_EINVAL, "cannot record run of '%s': bad case or perf row count",
				 run->task_id);
	if (!verdict_text(run->verdict))
		return kbx_error(KBX_EINVAL, "cannot record run of '%s': invalid verdict %d", run->task_id,
				 (int)run->verdict);
	if (run->has_device && run->device < 0)
		return kbx_error(KBX_EINVAL, "cannot record run of '%s': invalid device %d", run->task_id,
				 run->device);
	for (int i = 0; i < run->ncases; i++)
		if (!verdict_text(run->cases[i].verdict))
			return kbx_error(KBX_EINVAL, "cannot record run of '%s': invalid verdict %d in case %d",
					 run->task_id, (int)run->cases[i].verdict, i);

	st = exec_sql(db, "BEGIN IMMEDIATE", "start writing a run");
	if (st != KBX_OK)
		return kbx_wrap(st, "cannot record run of '%s'", run->task_id);
	what = "insert the run";
	new_uid(uid);
	rc = insert_run_row(db, run, uid, &id, &at);
	if (rc == SQLITE_OK) {
		what = "insert its case results";
		rc = insert_cases(db, id, run->cases, run->ncases);
	}
	if (rc == SQLITE_OK) {
		what = "insert its perf rows";
		rc = insert_perf(db, id, run->perf, run->nperf);
	}
	if (rc == SQLITE_OK) {
		what = "commit the run";
		rc = sqlite3_exec(db->sq, "COMMIT", NULL, NULL, NULL);
	}
	if (rc != SQLITE_OK) {
		st = kbx_error(KBX_EDB, "cannot record run of '%s' in history '%s': %s: %s", run->task_id,
			       db->path, what, sqlite3_errmsg(db->sq));
		rollback(db);
		return st;
	}
	run->id = id;
	run->written_at = at;
	memcpy(run->uid, uid, sizeof(uid));
	return KBX_OK;
}

/* --- compile cache ------------------------------------------------------------------------- */

enum kbx_status db_cache_get(struct db *db, const char *key, void **image, size_t *size, char **log)
{
	sqlite3_stmt *st;
	enum kbx_status ret;
	int rc;

	if (image)
		*image = NULL;
	if (size)
		*size = 0;
	if (log)
		*log = NULL;
	if (!key)
		return kbx_error(KBX_EINVAL, "compile cache lookup without a key");
	rc = sqlite3_prepare_v2(db->sq, "SELECT image, log FROM compile_cache WHERE key = ?1", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_error(db, "read the compile cache");
	bind_text(st, 1, key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const void *blob = sqlite3_column_blob(st, 0);
		size_t n = (size_t)sqlite3_column_bytes(st, 0);
		const unsigned char *text = sqlite3_column_text(st, 1);

		if (image) {
			/* One spare byte so that an empty image is still a valid allocation. */
			*image = xmalloc(n + 1);
			if (n)
				memcpy(*image, blob, n);
		}
		if (size)
			*size = n;
		if (log)
			*log = xstrdup(text ? (const char *)text : "");
		ret = KBX_OK;
	} else if (rc == SQLITE_DONE) {
		ret = kbx_error(KBX_ENOTFOUND, "no compile cache entry '%s'", key);
	} else {
		ret = db_error(db, "read the compile cache");
	}
	sqlite3_finalize(st);
	return ret;
}

int db_cache_trim(struct db *db)
{
	sqlite3_stmt *st;
	int rc;

	/* Ties in created_at (same clock tick) go by insertion order. */
	rc = sqlite3_prepare_v2(db->sq,
				"DELETE FROM compile_cache WHERE key IN (SELECT key FROM compile_cache"
				" ORDER BY created_at DESC, rowid DESC LIMIT -1 OFFSET ?1)", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int(st, 1, DB_CACHE_MAX);
		rc = step_done(st);
		sqlite3_finalize(st);
	}
	return rc;
}

enum kbx_status db_cache_put(struct db *db, const char *key, const char *arch, const char *options,
			     const void *image, size_t size, const char *log)
{
	sqlite3_stmt *st = NULL;
	enum kbx_status ret;
	int rc;

	if (!key || (!image && size))
		return kbx_error(KBX_EINVAL, "compile cache entry without a key or image");
	if (size > INT_MAX)
		return kbx_error(KBX_EINVAL, "compile cache image for '%s' is too large (%zu bytes)", key, size);
	ret = exec_sql(db, "BEGIN IMMEDIATE", "write the compile cache");
	if (ret != KBX_OK)
		return ret;
	rc = sqlite3_prepare_v2(db->sq,
				"INSERT OR REPLACE INTO compile_cache (key, arch, options, image, log, created_at)"
				" VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		bind_text(st, 1, key);
		bind_text(st, 2, arch);
		bind_text(st, 3, options);
		/* A zero-length blob, not NULL, for an empty image. */
		if (size)
			sqlite3_bind_blob(st, 4, image, (int)size, SQLITE_TRANSIENT);
		else
			sqlite3_bind_zeroblob(st, 4, 0);
		bind_text(st, 5, log);
		sqlite3_bind_double(st, 6, db_now());
		rc = step_done(st);
		sqlite3_finalize(st);
	}
	if (rc == SQLITE_OK)
		rc = db_cache_trim(db);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db->sq, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		ret = db_error(db, "write compile cache entry '%s'", key);
		rollback(db);
		return ret;
	}
	return KBX_OK;
}
