/*
 * test_db_merge.c - merging histories (db_merge, kbx db merge): two workers' histories, one
 * per device, merged into a third with every run exactly once and everything that hangs off it;
 * merging again adds nothing; files that are not histories are refused by name; an old (v2)
 * history is merged through a migrated copy; a failure part-way leaves nothing behind; damaged
 * sources never crash it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "old_schemas.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "core/events.h"
#include "core/util.h"
#include "db/db.h"
#include "fixture.h"
#include "db/recorder.h"

/* --- helpers ------------------------------------------------------------------------------- */

struct fixture {
	char dir[256];
	char a[300], b[300], c[300];
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	if (make_tmpdir(f->dir, sizeof(f->dir)) != 0) {
		free(f);
		return -1;
	}
	snprintf(f->a, sizeof(f->a), "%s/worker0.db", f->dir);
	snprintf(f->b, sizeof(f->b), "%s/worker1.db", f->dir);
	snprintf(f->c, sizeof(f->c), "%s/merged.db", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	chmod(f->a, 0600);
	rm_tree(f->dir);
	free(f);
	return 0;
}

static long long dq(struct db *db, const char *sql)
{
	return q_int(db_sqlite(db), "%s", sql);
}

static void exec(sqlite3 *sq, const char *sql)
{
	if (sqlite3_exec(sq, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(sq));
}

static struct db *open_db(const char *path)
{
	struct db *db = NULL;

	if (db_open(path, &db) != KBX_OK)
		fail_msg("%s", kbx_last_error());
	return db;
}

static void merge_ok(struct db *db, const char *src, int merged, int present)
{
	struct db_merge_stats ms;

	if (db_merge(db, src, &ms) != KBX_OK)
		fail_msg("merge of '%s': %s", src, kbx_last_error());
	assert_int_equal(ms.runs_merged, merged);
	assert_int_equal(ms.runs_present, present);
	assert_int_equal(sqlite3_get_autocommit(db_sqlite(db)), 1);
}

/*
 * A worker's history: n runs on `device` for evaluation `eval`, each with 1-3 cases and 0-2 perf
 * rows, everything derived from tag and index; one more run through the recorder; compile cache
 * entries "<tag>-k" and "shared" (whose image is the tag).
 */
static void make_worker(const char *path, int device, const char *eval, const char *tag, int n, double t0)
{
	struct db *db = open_db(path);

	for (int i = 0; i < n; i++) {
		char task[64], src[64], msg[64], names[3][32], json[3][64], isz[2][32];
		struct db_case cases[3];
		struct db_perf perf[2];
		struct db_run r;

		memset(&r, 0, sizeof(r));
		snprintf(task, sizeof(task), "Fusion/%s_%d", tag, i % 3);
		snprintf(src, sizeof(src), "// %s run %d\n", tag, i);
		snprintf(msg, sizeof(msg), "%s:%d", tag, i);
		for (int k = 0; k < 3; k++) {
			snprintf(names[k], sizeof(names[k]), "case%d", k);
			snprintf(json[k], sizeof(json[k]), "{\"run\":\"%s:%d\",\"case\":%d}", tag, i, k);
			cases[k] = (struct db_case){ names[k], k == 2 ? V_WRONG : V_PASS, 0.1 * k, 0.2 * k, k, k, json[k] };
		}
		for (int k = 0; k < 2; k++) {
			snprintf(isz[k], sizeof(isz[k]), "{\"n\":%d}", 1024 << k);
			perf[k] = (struct db_perf){ .row = k, .input_size = isz[k], .cand_ms = 0.5 + i, .cand_p20 = 0.4,
						    .cand_p80 = 0.6, .cand_min = 0.3, .cand_n = 10 + k, .ref_ms = 1.0,
						    .golden_ms = -1, .gbps = 2.5, .tflops = -1 };
			/* schema 5: timing details and clocks on some rows, none on others */
			if ((i + k) % 2) {
				perf[k].cand_max = 0.9;
				perf[k].cand_mean = 0.55 + i;
				perf[k].cand_stddev = 0.05;
				perf[k].cand_rsd = 0.05 / (0.55 + i);
				snprintf(perf[k].bench_mode, sizeof(perf[k].bench_mode), "noise");
				snprintf(perf[k].bench_stop, sizeof(perf[k].bench_stop), "cap");
				perf[k].hide_latency = k;
				perf[k].clocks = (struct clock_summary){ 1755, 1700, 2619, 1980, 71, 690,
									 CLOCK_REASON_SW_POWER_CAP | (1ULL << 63), 1, 2 };
			}
		}
		r.task_id = task;
		r.category = "Fusion";
		r.gpu = "NVIDIA H200";
		r.driver_version = 12080;
		r.source = src;
		r.source_hash = tag;
		r.compile_options = "-arch=sm_90";
		r.verdict = i % 2 ? V_PASS : V_WRONG;
		r.warnings = i % 3 ? NULL : "nondeterministic";
		r.message = msg;
		r.seed = 1000 + (unsigned)i;
		r.speedup_golden = i % 2 ? 1.0 + i : -1;
		r.speedup_ref = -1;
		r.cand_ms = 0.5 + i;
		r.ref_ms = -1;
		r.created_at = t0 + i;
		r.summary_json = "{}";
		r.cases = cases;
		r.ncases = 1 + i % 3;
		r.perf = perf;
		r.nperf = i % 3;
		r.has_device = 1;
		r.device = device;
		r.eval = eval;
		assert_int_equal(db_run_insert(db, &r), KBX_OK);
	}
	{
		struct recorder *rec = recorder_new(db, "Activation/gelu", "Activation", "// rec", "x.cu", 3);
		struct run_events ev = recorder_events(rec);
		struct run_summary sum;

		recorder_set_context(rec, device, eval);
		memset(&sum, 0, sizeof(sum));
		sum.verdict = V_NOT_RUN;
		sum.speedup_golden = sum.speedup_ref = -1;
		ev.done(ev.ctx, &sum);
		assert_int_equal(recorder_status(rec), KBX_OK);
		recorder_free(rec);
	}
	{
		char key[64];

		snprintf(key, sizeof(key), "%s-k", tag);
		assert_int_equal(db_cache_put(db, key, "sm_90", "-O3", tag, strlen(tag), "log"), KBX_OK);
		assert_int_equal(db_cache_put(db, "shared", "sm_90", "-O3", tag, strlen(tag), NULL), KBX_OK);
	}
	db_close(db);
}

/* "a.x IS b.x AND ..." over the columns of `table` but those in skip. */
static char *same_columns(sqlite3 *sq, const char *table, const char *const *skip)
{
	struct sbuf sb = SBUF_INIT;
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(sq, "SELECT name FROM pragma_table_info(?1)", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sbuf_adds(&sb, "1");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		int skipped = 0;

		for (const char *const *s = skip; *s; s++)
			skipped |= !strcmp(name, *s);
		if (!skipped)
			sbuf_addf(&sb, " AND a.\"%s\" IS b.\"%s\"", name, name);
	}
	sqlite3_finalize(st);
	return sbuf_detach(&sb);
}

/*
 * Every run of `src` is in `dst` exactly once (by uid) with the same values in every column but
 * id and origin, and so is every case result and perf row of it, matched through the uid.
 */
static void assert_all_copied(const char *dst, const char *src)
{
	static const char *const run_skip[] = { "id", "origin", NULL };
	static const char *const child_skip[] = { "run_id", NULL };
	sqlite3 *sq;
	char *same;
	long long n;

	assert_int_equal(sqlite3_open_v2(dst, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	q_int(sq, "ATTACH %Q AS s", src);
	n = q_int(sq, "SELECT COUNT(*) FROM s.runs");
	assert_true(n > 0);
	assert_int_equal(q_int(sq, "SELECT COUNT(*) FROM s.runs a WHERE (SELECT COUNT(*) FROM main.runs b"
			       " WHERE b.uid = a.uid) = 1"), n);
	same = same_columns(sq, "runs", run_skip);
	assert_int_equal(q_int(sq, "SELECT COUNT(*) FROM s.runs a JOIN main.runs b ON a.uid = b.uid WHERE %s", same), n);
	free(same);
	for (const char *const *t = (const char *const[]){ "case_results", "perf_rows", NULL }; *t; t++) {
		long long rows = q_int(sq, "SELECT COUNT(*) FROM s.%s", *t);

		same = same_columns(sq, *t, child_skip);
		assert_int_equal(q_int(sq, "SELECT COUNT(*) FROM s.%s a JOIN s.runs ar ON ar.id = a.run_id"
				       " JOIN main.runs br ON br.uid = ar.uid"
				       " JOIN main.%s b ON b.run_id = br.id WHERE %s", *t, *t, same), rows);
		/* and no more than those */
		assert_int_equal(q_int(sq, "SELECT COUNT(*) FROM main.%s b JOIN main.runs br ON br.id = b.run_id"
				       " WHERE br.uid IN (SELECT uid FROM s.runs)", *t), rows);
		free(same);
	}
	sqlite3_close(sq);
}

/* The frozen v2 schema (as in test_db.c): a history written by an older kbx. */
static const char schema_v2[] =
	OLD_SCHEMA_V1 OLD_SCHEMA_V2_STEP
	"INSERT INTO runs (task_id, category, gpu, verdict, seed, source, source_hash, created_at) VALUES"
	" ('Math/add', 'Math', 'NVIDIA H200', 'pass', 7, 'src a', 'aa', 100.5),"
	" ('Math/add', 'Math', NULL, 'wrong', 8, 'src b', 'bb', 200.25),"
	" ('Math/sub', 'Math', NULL, 'pass', 9, NULL, NULL, 300);"
	"INSERT INTO case_results (run_id, idx, name, verdict, detail_json) VALUES"
	" (1, 0, 'c0', 'pass', '{}'), (1, 1, 'c1', 'pass', '{}'), (2, 0, 'c0', 'wrong', '{\"x\":1}');"
	"INSERT INTO perf_rows (run_id, \"row\", cand_ms, cand_n) VALUES (1, 0, 0.5, 10), (1, 1, 0.75, 10);"
	"INSERT INTO compile_cache (key, image, created_at) VALUES ('old', x'0102', 50);"
	"PRAGMA user_version = 2;";

static void make_v2(const char *path)
{
	sqlite3 *sq;

	assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
	exec(sq, schema_v2);
	sqlite3_close(sq);
}

static void write_bytes(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	fclose(fp);
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

/* --- tests --------------------------------------------------------------------------------- */

static void test_merge_workers(void **state)
{
	struct fixture *f = *state;
	char abs_a[PATH_MAX], abs_c[PATH_MAX], d_path[320], *before, *after;
	size_t before_len, after_len;
	struct db_merge_stats ms;
	struct db_run_detail d;
	struct db *c, *dd;
	long long id;

	/* two workers, interleaved in time, one per GPU */
	make_worker(f->a, 0, "nightly", "a", 6, 1000);
	make_worker(f->b, 1, "nightly", "b", 4, 1002.5);
	assert_non_null(realpath(f->a, abs_a));
	assert_int_equal(read_file(f->a, &before, &before_len), KBX_OK);
	/* read-only is all a source needs */
	assert_int_equal(chmod(f->a, 0444), 0);

	/* the target already has a run of its own */
	c = open_db(f->c);
	{
		struct db_run r;

		memset(&r, 0, sizeof(r));
		r.task_id = "Math/add";
		r.category = "Math";
		r.verdict = V_PASS;
		r.speedup_golden = r.speedup_ref = r.cand_ms = r.ref_ms = -1;
		r.created_at = 5;
		assert_int_equal(db_run_insert(c, &r), KBX_OK);
		assert_int_equal(r.id, 1);
	}
	assert_int_equal(db_merge(c, f->a, &ms), KBX_OK);
	assert_int_equal(ms.runs_merged, 7);
	assert_int_equal(ms.runs_present, 0);
	assert_int_equal(ms.cache_merged, 2);
	assert_int_equal(db_merge(c, f->b, &ms), KBX_OK);
	assert_int_equal(ms.runs_merged, 5);
	assert_int_equal(ms.runs_present, 0);
	assert_int_equal(ms.cache_merged, 1);      /* "shared" was already there */

	assert_int_equal(dq(c, "SELECT COUNT(*) FROM runs"), 13);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM runs WHERE device = 0 AND eval = 'nightly'"), 7);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM runs WHERE device = 1 AND eval = 'nightly'"), 5);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM runs WHERE id = 1 AND task_id = 'Math/add'"
			    " AND origin IS NULL AND device IS NULL"), 1);
	assert_int_equal(q_int(db_sqlite(c), "SELECT COUNT(*) FROM runs WHERE origin = %Q", abs_a), 7);
	/* a copy is stored once per run: 6 runs with 1+2+3+1+2+3 cases and 0+1+2+0+1+2 perf rows */
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM case_results"), 12 + 1 + 2 + 3 + 1);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM perf_rows"), 6 + 0 + 1 + 2 + 0);
	/* the schema 5 columns come along: timing details and clocks where the source had them
	 * (rows with i + k odd: row 0 of a's runs 1 and 5, row 1 of its run 2; the same of b's 1 and 2),
	 * the 64-bit reasons mask intact, NULL where it had none */
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM perf_rows WHERE sm_mhz = 1755 AND min_sm_mhz = 1700"
			    " AND max_sm_mhz = 1980 AND clock_readings = 2 AND reasons_valid = 1 AND bench_mode = 'noise'"
			    " AND bench_stop = 'cap' AND cand_stddev = 0.05"), 5);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM perf_rows WHERE reasons = (4 | (1 << 63))"), 5);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM perf_rows WHERE sm_mhz IS NULL AND clock_readings IS NULL"
			    " AND bench_mode IS NULL AND cand_mean IS NULL"), 4);
	/* the first merge's image wins */
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM compile_cache WHERE key = 'shared' AND image = CAST('a' AS BLOB)"), 1);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM compile_cache"), 3);
	/* within a source, ids follow time */
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM runs x, runs y WHERE x.origin = y.origin AND x.id < y.id"
			    " AND x.created_at > y.created_at"), 0);
	db_close(c);
	assert_all_copied(f->c, f->a);
	assert_all_copied(f->c, f->b);

	/* through the API: device, evaluation, origin, uid */
	c = open_db(f->c);
	id = dq(c, "SELECT id FROM runs WHERE message = 'b:3'");
	assert_true(id > 1);
	assert_int_equal(db_run_get(c, id, &d), KBX_OK);
	assert_int_equal(d.row.device, 1);
	assert_string_equal(d.row.eval, "nightly");
	assert_string_equal(d.row.task_id, "Fusion/b_0");
	assert_int_equal(d.ncases, 1);
	assert_int_equal(d.nperf, 0);
	assert_non_null(strstr(d.origin, "worker1.db"));
	assert_int_equal(strlen(d.uid), 32);
	db_run_detail_free(&d);
	{
		struct db_category_stat *cs;
		int n;

		assert_int_equal(db_category_stats(c, &cs, &n), KBX_OK);
		assert_int_equal(n, 3);
		assert_string_equal(cs[1].category, "Fusion");
		assert_int_equal(cs[1].attempts, 10);
		free(cs);
	}

	/* again: nothing new, in either order */
	merge_ok(c, f->b, 0, 5);
	merge_ok(c, f->a, 0, 7);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM runs"), 13);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM case_results"), 19);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM perf_rows"), 9);
	/* the target's own file: everything is there */
	merge_ok(c, f->c, 0, 13);
	db_close(c);

	/* the source was only read */
	assert_int_equal(read_file(f->a, &after, &after_len), KBX_OK);
	assert_int_equal(after_len, before_len);
	assert_memory_equal(after, before, before_len);
	free(before);
	free(after);

	/* merged histories merge on: uids travel, a run keeps the origin it was first merged from */
	assert_non_null(realpath(f->c, abs_c));
	snprintf(d_path, sizeof(d_path), "%s/second.db", f->dir);
	dd = open_db(d_path);
	merge_ok(dd, f->c, 13, 0);
	merge_ok(dd, f->a, 0, 7);
	merge_ok(dd, f->b, 0, 5);
	assert_int_equal(q_int(db_sqlite(dd), "SELECT COUNT(*) FROM runs WHERE origin = %Q", abs_a), 7);
	assert_int_equal(q_int(db_sqlite(dd), "SELECT COUNT(*) FROM runs WHERE origin = %Q", abs_c), 1);
	db_close(dd);
	assert_all_copied(d_path, f->a);
	assert_all_copied(d_path, f->c);
}

/* What is not a history is refused, naming the file, and the target is as it was. */
static void test_merge_refused(void **state)
{
	struct fixture *f = *state;
	char path[320], junk[8192];
	struct db_merge_stats ms;
	struct db *c;
	sqlite3 *sq;

	make_worker(f->a, 0, NULL, "a", 2, 10);
	c = open_db(f->c);
	merge_ok(c, f->a, 3, 0);

	snprintf(path, sizeof(path), "%s/missing.db", f->dir);
	ms.runs_merged = 99;
	assert_int_equal(db_merge(c, path, &ms), KBX_ENOTFOUND);
	assert_non_null(strstr(kbx_last_error(), "missing.db"));
	assert_non_null(strstr(kbx_last_error(), "No such file"));
	assert_int_equal(ms.runs_merged, 0);
	assert_int_equal(access(path, F_OK), -1);   /* and it was not created */

	rng_state = 0x0123456789abcdefULL;
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)rng();
	snprintf(path, sizeof(path), "%s/garbage.db", f->dir);
	write_bytes(path, junk, sizeof(junk));
	assert_int_equal(db_merge(c, path, &ms), KBX_EINVAL);
	assert_non_null(strstr(kbx_last_error(), "garbage.db"));
	assert_non_null(strstr(kbx_last_error(), "not a kbx history"));

	snprintf(path, sizeof(path), "%s/empty.db", f->dir);
	write_bytes(path, "", 0);
	assert_int_equal(db_merge(c, path, NULL), KBX_EINVAL);
	assert_non_null(strstr(kbx_last_error(), "empty.db"));
	assert_non_null(strstr(kbx_last_error(), "not a kbx history (no table 'runs')"));

	snprintf(path, sizeof(path), "%s/other.db", f->dir);
	assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
	exec(sq, "CREATE TABLE runs (x); CREATE TABLE notes (y)");
	sqlite3_close(sq);
	assert_int_equal(db_merge(c, path, NULL), KBX_EINVAL);
	assert_non_null(strstr(kbx_last_error(), "other.db"));
	assert_non_null(strstr(kbx_last_error(), "no table 'case_results'"));

	/* kbx's tables but no version: made by something else */
	snprintf(path, sizeof(path), "%s/noversion.db", f->dir);
	make_v2(path);
	assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
	exec(sq, "PRAGMA user_version = 0");
	sqlite3_close(sq);
	assert_int_equal(db_merge(c, path, NULL), KBX_EINVAL);
	assert_non_null(strstr(kbx_last_error(), "noversion.db"));
	assert_non_null(strstr(kbx_last_error(), "schema version 0"));

	snprintf(path, sizeof(path), "%s/newer.db", f->dir);
	make_worker(path, 0, NULL, "n", 1, 10);
	assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
	exec(sq, "PRAGMA user_version = 99");
	sqlite3_close(sq);
	assert_int_equal(db_merge(c, path, NULL), KBX_EDB);
	assert_non_null(strstr(kbx_last_error(), "newer.db"));
	assert_non_null(strstr(kbx_last_error(), "schema version 99, newer"));

	assert_int_equal(db_merge(c, f->dir, NULL), KBX_EINVAL);
	assert_non_null(strstr(kbx_last_error(), "not a file"));
	assert_int_equal(db_merge(c, NULL, NULL), KBX_EINVAL);

	/* nothing changed, and the connection still writes */
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM runs"), 3);
	assert_int_equal(sqlite3_get_autocommit(db_sqlite(c)), 1);
	make_worker(f->b, 1, NULL, "b", 1, 20);
	merge_ok(c, f->b, 2, 0);
	db_close(c);
}

/* A v2 history (before device, eval and uids) is merged through a migrated temporary copy:
 * the file itself stays v2 and unchanged, no copy is left behind, and merging it again, or
 * after it was migrated in place, adds nothing. */
static void test_merge_v2_source(void **state)
{
	struct fixture *f = *state;
	char tmpdir[320], *before, *after, *saved_tmp;
	size_t before_len, after_len;
	struct db_merge_stats ms;
	struct db *c, *a;
	sqlite3 *sq;
	int left = 0;

	make_v2(f->a);
	assert_int_equal(read_file(f->a, &before, &before_len), KBX_OK);
	snprintf(tmpdir, sizeof(tmpdir), "%s/tmp", f->dir);
	assert_int_equal(mkdir(tmpdir, 0700), 0);
	saved_tmp = getenv("TMPDIR") ? xstrdup(getenv("TMPDIR")) : NULL;
	setenv("TMPDIR", tmpdir, 1);

	c = open_db(f->c);
	assert_int_equal(db_merge(c, f->a, &ms), KBX_OK);
	assert_int_equal(ms.runs_merged, 3);
	assert_int_equal(ms.runs_present, 0);
	assert_int_equal(ms.cache_merged, 1);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM case_results"), 3);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM perf_rows"), 2);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM runs WHERE device IS NULL AND eval IS NULL"
			    " AND length(uid) = 32 AND origin LIKE '%worker0.db'"), 3);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM runs r JOIN case_results c ON c.run_id = r.id"
			    " WHERE r.source = 'src b' AND c.detail_json = '{\"x\":1}'"), 1);
	merge_ok(c, f->a, 0, 3);

	/* no temporary copy left */
	{
		char cmd[400];
		FILE *p;

		snprintf(cmd, sizeof(cmd), "ls -A '%s'", tmpdir);
		p = popen(cmd, "r");
		assert_non_null(p);
		while (fgetc(p) != EOF)
			left++;
		pclose(p);
	}
	assert_int_equal(left, 0);
	if (saved_tmp) {
		setenv("TMPDIR", saved_tmp, 1);
		free(saved_tmp);
	} else {
		unsetenv("TMPDIR");
	}

	/* the source is still v2, byte for byte */
	assert_int_equal(read_file(f->a, &after, &after_len), KBX_OK);
	assert_int_equal(after_len, before_len);
	assert_memory_equal(after, before, before_len);
	free(before);
	free(after);
	assert_int_equal(sqlite3_open_v2(f->a, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(q_int(sq, "PRAGMA user_version"), 2);
	sqlite3_close(sq);

	/* migrated in place, its runs get the uids the copy had */
	a = open_db(f->a);
	assert_int_equal(db_schema_version(a), DB_SCHEMA_VERSION);
	db_close(a);
	merge_ok(c, f->a, 0, 3);
	assert_all_copied(f->c, f->a);
	db_close(c);
}

/* A merge that fails part-way through a source leaves none of that source. */
static void test_merge_atomic(void **state)
{
	struct fixture *f = *state;
	struct db *c, *a;

	make_worker(f->a, 0, "e", "a", 6, 100);
	/* the last run's perf row is the one the target refuses */
	a = open_db(f->a);
	exec(db_sqlite(a), "UPDATE perf_rows SET cand_ms = 42 WHERE run_id = (SELECT id FROM runs WHERE message = 'a:5')"
	     " AND \"row\" = 1");
	db_close(a);
	make_worker(f->b, 1, "e", "b", 2, 200);
	c = open_db(f->c);
	merge_ok(c, f->b, 3, 0);
	exec(db_sqlite(c), "CREATE TRIGGER boom BEFORE INSERT ON perf_rows WHEN NEW.cand_ms = 42"
	     " BEGIN SELECT RAISE(ABORT, 'boom'); END");
	assert_int_equal(db_merge(c, f->a, NULL), KBX_EDB);
	assert_non_null(strstr(kbx_last_error(), "worker0.db"));
	assert_non_null(strstr(kbx_last_error(), "merged.db"));
	assert_non_null(strstr(kbx_last_error(), "boom"));
	assert_int_equal(sqlite3_get_autocommit(db_sqlite(c)), 1);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM runs"), 3);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM compile_cache"), 2);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM case_results"), 3);
	exec(db_sqlite(c), "DROP TRIGGER boom");
	merge_ok(c, f->a, 7, 0);
	db_close(c);
	assert_all_copied(f->c, f->a);
}

/* A source another process is still writing (its WAL in use) is read as one snapshot. */
static void test_merge_live_source(void **state)
{
	struct fixture *f = *state;
	struct db *a, *c;

	make_worker(f->a, 0, NULL, "a", 3, 100);
	a = open_db(f->a);
	{
		struct db_run r;

		memset(&r, 0, sizeof(r));
		r.task_id = "Math/late";
		r.category = "Math";
		r.verdict = V_WRONG;
		r.speedup_golden = r.speedup_ref = r.cand_ms = r.ref_ms = -1;
		assert_int_equal(db_run_insert(a, &r), KBX_OK);
	}
	c = open_db(f->c);
	merge_ok(c, f->a, 5, 0);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM runs WHERE task_id = 'Math/late'"), 1);
	db_close(a);
	merge_ok(c, f->a, 0, 5);
	db_close(c);
}

/* Damaged copies of a real history: merging fails cleanly or works, never crashes, and the
 * target stays whole. */
static void test_merge_garbage(void **state)
{
	struct fixture *f = *state;
	char path[320], wal[330], shm[330];
	char *good;
	size_t good_len;
	struct db *c;
	int ok = 0, refused = 0;

	make_worker(f->a, 0, "e", "a", 12, 100);
	assert_int_equal(read_file(f->a, &good, &good_len), KBX_OK);
	assert_true(good_len >= 4096);
	snprintf(path, sizeof(path), "%s/mutant.db", f->dir);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	snprintf(shm, sizeof(shm), "%s-shm", path);
	c = open_db(f->c);
	rng_state = 0x5eed5eed5eed5eedULL;
	for (int iter = 0; iter < 120; iter++) {
		char *data = xmalloc(good_len);
		size_t len = good_len;
		struct db_merge_stats ms;
		enum kbx_status st;

		memcpy(data, good, good_len);
		if (iter % 4 == 0) {
			for (size_t i = 100; i < len; i++)
				data[i] = (char)rng();
		} else {
			for (int k = 0, nflip = 1 + (int)(rng() % 30); k < nflip; k++)
				data[rng() % good_len] = (char)rng();
		}
		if (iter % 5 == 0)
			len = rng() % good_len;
		unlink(path);
		unlink(wal);
		unlink(shm);
		write_bytes(path, data, len);
		free(data);
		st = db_merge(c, path, &ms);
		if (st == KBX_OK) {
			ok++;
			assert_true(ms.runs_merged + ms.runs_present <= 13);
		} else {
			refused++;
			assert_non_null(strstr(kbx_last_error(), "mutant.db"));
		}
		assert_int_equal(sqlite3_get_autocommit(db_sqlite(c)), 1);
	}
	assert_true(ok > 0);
	assert_true(refused > 0);
	{
		char buf[16] = "";
		sqlite3_stmt *st;

		assert_int_equal(sqlite3_prepare_v2(db_sqlite(c), "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		snprintf(buf, sizeof(buf), "%s", (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
		assert_string_equal(buf, "ok");
	}
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM pragma_foreign_key_check"), 0);
	assert_int_equal(dq(c, "SELECT COUNT(*) FROM runs WHERE uid IS NULL"), 0);
	db_close(c);
	free(good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_merge_workers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_v2_source, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_atomic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_live_source, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_garbage, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
