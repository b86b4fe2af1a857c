/*
 * test_db_crash.c - the history under abuse: a writer killed with SIGKILL in the middle of
 * writing runs, several processes creating the same new file or writing at once, readers while
 * another process writes.
 *
 * Every run the children write is tagged (its message) and everything else about it (how many
 * case and perf rows, what each case's detail says) follows from the tag, so the parent can
 * check any run it finds without knowing which of them made it to disk. Children report
 * through their exit status and stderr, never through cmocka: its assertions must not run in a
 * forked process. Only the public db.h / recorder.h API writes and reads; SQLite is used
 * directly only for PRAGMA integrity_check, row counts, and to hold a lock on a new file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
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

/* A child still alive after this long is stuck (or its parent died in an assertion). */
#define CHILD_ALARM_S 60
#define PAD_LEN 80

/* --- helpers ------------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	/* xorshift64*: fixed seed, the same kill moments every run */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void set_alarm(void)
{
	alarm(CHILD_ALARM_S);
}

/* Flush before fork so that buffered output is not written twice. */
static pid_t fork_child(void)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		set_alarm();
	return pid;
}

/* Exit status of a child that should have exited 0; prints how it ended otherwise. */
static int wait_ok(pid_t pid, const char *who)
{
	int ws;

	assert_int_equal(waitpid(pid, &ws, 0), pid);
	if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
		return 1;
	if (WIFEXITED(ws))
		fprintf(stderr, "%s exited with status %d\n", who, WEXITSTATUS(ws));
	else if (WIFSIGNALED(ws))
		fprintf(stderr, "%s died of signal %d\n", who, WTERMSIG(ws));
	return 0;
}

/* --- tagged runs --------------------------------------------------------------------------- */

/* What a tag implies: the run's shape, different from one run to the next. */
static void tag_shape(const char *tag, int *ncases, int *nperf)
{
	uint64_t h = hash64(tag, strlen(tag), HASH64_INIT);

	*ncases = 150 + (int)(h % 100);
	*nperf = 1 + (int)((h >> 8) % 5);
}

/* The text every detail of case i of run `tag` carries: long enough that the run's rows fill
 * many pages, so a kill lands inside the transaction most of the time. */
static void case_marker(const char *tag, int i, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/%d/", tag, i);

	for (int j = 0; j < PAD_LEN && (size_t)n + 1 < size; j++)
		buf[n++] = (char)('a' + (i + j) % 26);
	buf[n] = '\0';
}

struct tagged_run {
	char tag[64], task[64], category[16];
	struct db_case *cases;
	char (*names)[24];
	char **json;
	int ncases;
	struct db_perf perf[8];
	char sizes[8][32];
	int nperf;
	struct db_run run;
};

/* Runs spread over 7 tasks in 3 categories with mixed verdicts, so that the summaries have
 * something to group. */
static void tagged_run_init(struct tagged_run *t, const char *tag, int k)
{
	char marker[160];

	memset(t, 0, sizeof(*t));
	snprintf(t->tag, sizeof(t->tag), "%s", tag);
	snprintf(t->task, sizeof(t->task), "crash/task%d", k % 7);
	snprintf(t->category, sizeof(t->category), "cat%d", k % 3);
	tag_shape(tag, &t->ncases, &t->nperf);
	t->cases = xcalloc((size_t)t->ncases, sizeof(*t->cases));
	t->names = xcalloc((size_t)t->ncases, sizeof(*t->names));
	t->json = xcalloc((size_t)t->ncases, sizeof(*t->json));
	for (int i = 0; i < t->ncases; i++) {
		struct sbuf sb = SBUF_INIT;

		case_marker(tag, i, marker, sizeof(marker));
		sbuf_addf(&sb, "{\"name\":\"case_%d\",\"index\":%d,\"message\":\"%s\"}", i, i, marker);
		t->json[i] = sbuf_detach(&sb);
		snprintf(t->names[i], sizeof(t->names[i]), "case_%d", i);
		t->cases[i].name = t->names[i];
		t->cases[i].verdict = i % 11 ? V_PASS : V_WRONG;
		t->cases[i].max_abs = i * 0.5;
		t->cases[i].max_rel = -1;
		t->cases[i].max_ulp = i;
		t->cases[i].mismatches = i % 11 ? 0 : i;
		t->cases[i].detail_json = t->json[i];
	}
	for (int i = 0; i < t->nperf; i++) {
		snprintf(t->sizes[i], sizeof(t->sizes[i]), "{\"n\":%d}", 1024 << i);
		t->perf[i] = (struct db_perf){ .row = i, .input_size = t->sizes[i], .cand_ms = 0.1 * (i + 1),
					       .cand_p20 = 0.09, .cand_p80 = 0.2, .cand_min = 0.05, .cand_n = 20,
					       .ref_ms = 0.3, .golden_ms = -1, .gbps = 10, .tflops = -1 };
	}
	t->run.task_id = t->task;
	t->run.category = t->category;
	t->run.gpu = "NVIDIA Test GPU";
	t->run.driver_version = 12040;
	t->run.source = "extern \"C\" __global__ void k() {}\n";
	t->run.verdict = k % 4 ? V_PASS : V_WRONG;
	t->run.message = t->tag;
	t->run.seed = (unsigned long long)k;
	t->run.speedup_golden = -1;
	t->run.speedup_ref = 1.0 + k % 5;
	t->run.cand_ms = 1;
	t->run.ref_ms = 2;
	t->run.cases = t->cases;
	t->run.ncases = t->ncases;
	t->run.perf = t->perf;
	t->run.nperf = t->nperf;
}

static void tagged_run_free(struct tagged_run *t)
{
	for (int i = 0; i < t->ncases; i++)
		free(t->json[i]);
	free(t->json);
	free(t->names);
	free(t->cases);
}

/* The same run as cli/cmd_run.c writes it: events into the recorder, one done(). */
static enum kbx_status record_through_events(struct db *db, struct tagged_run *t, long long *id,
					     char *err, size_t errsize)
{
	struct recorder *rec = recorder_new(db, t->task, t->category, t->run.source, "k.cu", t->run.seed);
	struct run_events ev = recorder_events(rec);
	struct run_summary sum;
	enum kbx_status st;
	char marker[160];

	for (int i = 0; i < t->ncases; i++) {
		struct case_result c;

		memset(&c, 0, sizeof(c));
		snprintf(c.name, sizeof(c.name), "case_%d", i);
		c.index = i;
		c.verdict = t->cases[i].verdict;
		case_marker(t->tag, i, marker, sizeof(marker));
		c.message = marker;
		ev.case_done(ev.ctx, &c);
	}
	for (int i = 0; i < t->nperf; i++) {
		struct perf_result p;

		memset(&p, 0, sizeof(p));
		p.row = i;
		p.input_size = t->sizes[i];
		p.cand = (struct sample_stats){ .median = 0.1, .p20 = 0.09, .p80 = 0.2, .min = 0.05, .n = 20 };
		p.golden_ms = -1;
		p.bytes = -1;
		p.flops = -1;
		ev.perf_row(ev.ctx, &p);
	}
	memset(&sum, 0, sizeof(sum));
	sum.verdict = t->run.verdict;
	sum.message = t->tag;
	sum.speedup_golden = -1;
	sum.speedup_ref = t->run.speedup_ref;
	sum.cand_ms_sum = 1;
	sum.ref_ms_sum = 2;
	snprintf(sum.gpu, sizeof(sum.gpu), "NVIDIA Test GPU");
	ev.done(ev.ctx, &sum);
	st = recorder_status(rec);
	*id = recorder_run_id(rec);
	snprintf(err, errsize, "%s", recorder_error(rec));
	recorder_free(rec);
	return st;
}

/* --- checking a history file --------------------------------------------------------------- */

struct found_run {
	long long id;
	char tag[64];
};

/*
 * The file is sound and holds only whole runs: integrity_check says ok, no case or perf row
 * without its run, and every run has exactly the rows its tag calls for. Returns the runs
 * found (caller frees).
 */
static struct found_run *check_file(struct db *db, int *nfound)
{
	struct found_run *runs = NULL;
	size_t cap = 0;
	sqlite3_stmt *st;
	char buf[64];
	int n = 0, rc;

	assert_string_equal(q_text(db, buf, sizeof(buf), "PRAGMA integrity_check"), "ok");
	assert_string_equal(q_text(db, buf, sizeof(buf), "PRAGMA journal_mode"), "wal");
	assert_int_equal(q_int(db_sqlite(db), "SELECT COUNT(*) FROM case_results WHERE run_id NOT IN (SELECT id FROM runs)"), 0);
	assert_int_equal(q_int(db_sqlite(db), "SELECT COUNT(*) FROM perf_rows WHERE run_id NOT IN (SELECT id FROM runs)"), 0);
	assert_int_equal(sqlite3_prepare_v2(db_sqlite(db),
					    "SELECT id, message,"
					    " (SELECT COUNT(*) FROM case_results c WHERE c.run_id = r.id),"
					    " (SELECT COUNT(*) FROM perf_rows p WHERE p.run_id = r.id)"
					    " FROM runs r ORDER BY id", -1, &st, NULL), SQLITE_OK);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *tag = (const char *)sqlite3_column_text(st, 1);
		int ncases, nperf;

		assert_non_null(tag);
		tag_shape(tag, &ncases, &nperf);
		if (sqlite3_column_int(st, 2) != ncases || sqlite3_column_int(st, 3) != nperf)
			fail_msg("run %lld '%s' is torn: %d of %d cases, %d of %d perf rows",
				 (long long)sqlite3_column_int64(st, 0), tag, sqlite3_column_int(st, 2), ncases,
				 sqlite3_column_int(st, 3), nperf);
		XGROW(runs, n + 1, cap);
		runs[n].id = sqlite3_column_int64(st, 0);
		snprintf(runs[n].tag, sizeof(runs[n].tag), "%s", tag);
		n++;
	}
	assert_int_equal(rc, SQLITE_DONE);
	sqlite3_finalize(st);
	*nfound = n;
	return runs;
}

/* What db_run_get gives back for a run is everything its tag says, case by case. */
static void check_run_detail(struct db *db, const struct found_run *f)
{
	struct db_run_detail d;
	char marker[160];
	int ncases, nperf;

	tag_shape(f->tag, &ncases, &nperf);
	if (db_run_get(db, f->id, &d) != KBX_OK)
		fail_msg("db_run_get %lld: %s", f->id, kbx_last_error());
	assert_int_equal(d.row.id, f->id);
	assert_string_equal(d.message, f->tag);
	assert_int_equal(d.ncases, ncases);
	assert_int_equal(d.nperf, nperf);
	for (int i = 0; i < ncases; i++) {
		char name[24];

		snprintf(name, sizeof(name), "case_%d", i);
		assert_string_equal(d.case_names[i], name);
		case_marker(f->tag, i, marker, sizeof(marker));
		if (!d.case_json[i] || !strstr(d.case_json[i], marker))
			fail_msg("run %lld case %d detail lacks '%s': %s", f->id, i, marker,
				 d.case_json[i] ? d.case_json[i] : "(null)");
	}
	for (int i = 0; i < nperf; i++)
		assert_int_equal(d.perf[i].row, i);
	db_run_detail_free(&d);
}

/* The summaries agree with the number of runs, and each run reads back whole. */
static void check_queries(struct db *db, const struct found_run *runs, int n)
{
	struct db_category_stat *cs;
	struct db_task_stat *ts;
	struct db_run_row *rows;
	double rates[12];
	int ncs, nts, nrows, sum;

	assert_int_equal(db_runs_list(db, NULL, NULL, 0, &rows, &nrows), KBX_OK);
	assert_int_equal(nrows, n);
	for (int i = 0; i < nrows; i++) {
		int seen = 0;

		for (int j = 0; j < n && !seen; j++)
			seen = runs[j].id == rows[i].id;
		assert_true(seen);
	}
	free(rows);
	assert_int_equal(db_category_stats(db, &cs, &ncs), KBX_OK);
	sum = 0;
	for (int i = 0; i < ncs; i++)
		sum += cs[i].attempts;
	assert_int_equal(sum, n);
	free(cs);
	assert_int_equal(db_task_stats(db, NULL, &ts, &nts), KBX_OK);
	sum = 0;
	for (int i = 0; i < nts; i++)
		sum += ts[i].attempts;
	assert_int_equal(sum, n);
	free(ts);
	assert_int_equal(db_category_series(db, "cat0", 12, rates), KBX_OK);
	for (int i = 0; i < n; i++)
		check_run_detail(db, &runs[i]);
}

/* After all that, the file still takes a run and a cache entry, and gives them back. */
static void check_still_writable(struct db *db, const char *tag)
{
	struct tagged_run t;
	struct found_run f;
	void *image;
	size_t size;
	char *log;

	tagged_run_init(&t, tag, 1);
	if (db_run_insert(db, &t.run) != KBX_OK)
		fail_msg("insert after the abuse: %s", kbx_last_error());
	f.id = t.run.id;
	snprintf(f.tag, sizeof(f.tag), "%s", tag);
	check_run_detail(db, &f);
	tagged_run_free(&t);
	assert_int_equal(db_cache_put(db, "k", "sm_90", "-O3", "image", 5, "log"), KBX_OK);
	assert_int_equal(db_cache_get(db, "k", &image, &size, &log), KBX_OK);
	assert_int_equal(size, 5);
	assert_memory_equal(image, "image", 5);
	free(image);
	free(log);
}

/* --- kill -9 during writes ----------------------------------------------------------------- */

enum { REC_OPEN, REC_BEGIN, REC_DONE };

/* What the writer tells the parent; 16 bytes, so each write on the pipe is atomic. */
struct rec {
	int kind, k;
	long long id;
};

static void send_rec(int fd, int kind, int k, long long id)
{
	struct rec r = { kind, k, id };

	if (write(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(9);
}

/* Writes runs until killed. The run is built before BEGIN is sent, so that the time between
 * BEGIN and DONE is almost all db_run_insert. */
static void crash_writer(const char *path, int round, int fd)
{
	struct db *db;
	char tag[64];

	if (db_open(path, &db) != KBX_OK) {
		fprintf(stderr, "writer: %s\n", kbx_last_error());
		_exit(2);
	}
	send_rec(fd, REC_OPEN, 0, 0);
	for (int k = 0; k < 100000; k++) {
		struct tagged_run t;

		snprintf(tag, sizeof(tag), "r%d/k%d", round, k);
		tagged_run_init(&t, tag, k);
		send_rec(fd, REC_BEGIN, k, 0);
		if (db_run_insert(db, &t.run) != KBX_OK) {
			fprintf(stderr, "writer: %s\n", kbx_last_error());
			_exit(3);
		}
		send_rec(fd, REC_DONE, k, t.run.id);
		tagged_run_free(&t);
	}
	_exit(4);
}

static const struct found_run *find_tag(const struct found_run *runs, int n, const char *tag)
{
	for (int i = 0; i < n; i++)
		if (strcmp(runs[i].tag, tag) == 0)
			return &runs[i];
	return NULL;
}

static void test_kill_during_write(void **state)
{
	enum { ROUNDS = 20 };
	char dir[256], path[320], tag[64];
	int torn = 0, committed_unreported = 0, total_done = 0;
	const struct found_run *f;
	struct found_run *runs = NULL;
	struct db *db;
	int nruns = 0;

	assert_int_equal(make_tmpdir(dir, sizeof(dir)), 0);
	snprintf(path, sizeof(path), "%s/history.db", dir);
	for (int round = 0; round < ROUNDS; round++) {
		/* Every fifth round (the first among them, on a file that does not exist yet) the
		 * clock starts at fork, so the kill may land in db_open or the migrations. */
		int from_fork = round % 5 == 0;
		long delay = from_fork ? (long)(rng() % 40) : 5 + (long)(rng() % 120);
		int fds[2], last_begin = -1, last_done = -1, ws;
		struct rec r;
		ssize_t got;
		pid_t pid;

		assert_int_equal(pipe(fds), 0);
		pid = fork_child();
		if (pid == 0) {
			close(fds[0]);
			crash_writer(path, round, fds[1]);
		}
		close(fds[1]);
		if (!from_fork) {
			got = read(fds[0], &r, sizeof(r));
			if (got != (ssize_t)sizeof(r) || r.kind != REC_OPEN) {
				wait_ok(pid, "writer");
				fail_msg("round %d: the writer could not open the history", round);
			}
		}
		sleep_ms(delay);
		assert_int_equal(kill(pid, SIGKILL), 0);
		assert_int_equal(waitpid(pid, &ws, 0), pid);
		if (!WIFSIGNALED(ws) || WTERMSIG(ws) != SIGKILL)
			fail_msg("round %d: the writer ended by itself (status %d) before the kill", round, ws);

		free(runs);
		assert_int_equal(db_open(path, &db), KBX_OK);
		runs = check_file(db, &nruns);
		/* Every run the writer saw committed is there (a killed process loses no committed
		 * transaction, even with synchronous=NORMAL), with the id it was given. */
		while ((got = read(fds[0], &r, sizeof(r))) == (ssize_t)sizeof(r)) {
			if (r.kind == REC_BEGIN)
				last_begin = r.k;
			if (r.kind != REC_DONE)
				continue;
			last_done = r.k;
			total_done++;
			snprintf(tag, sizeof(tag), "r%d/k%d", round, r.k);
			f = find_tag(runs, nruns, tag);
			if (!f)
				fail_msg("round %d: committed run '%s' is missing", round, tag);
			assert_int_equal(f->id, r.id);
		}
		assert_int_equal(got, 0);
		close(fds[0]);
		/* The run in flight is either all there (killed after COMMIT) or not at all;
		 * check_file has already refused a partial one. */
		if (last_begin > last_done) {
			snprintf(tag, sizeof(tag), "r%d/k%d", round, last_begin);
			if (find_tag(runs, nruns, tag))
				committed_unreported++;
			else
				torn++;
		}
		db_close(db);
	}
	fprintf(stderr, "kill -9: %d rounds, %d runs committed, %d kills inside a transaction, "
		"%d after COMMIT before the writer noticed, %d runs in the file\n", ROUNDS, total_done, torn,
		committed_unreported, nruns);
	/* Otherwise the test proved nothing: nearly all of the writer's time is inside
	 * db_run_insert, so most kills must land there. */
	assert_true(torn >= ROUNDS / 4);
	assert_true(total_done > 0);

	assert_int_equal(db_open(path, &db), KBX_OK);
	check_queries(db, runs, nruns);
	check_still_writable(db, "after/kill");
	db_close(db);
	free(runs);
	/* And the run written after the abuse is as whole as the rest when read afresh. */
	assert_int_equal(db_open(path, &db), KBX_OK);
	runs = check_file(db, &nruns);
	assert_non_null(find_tag(runs, nruns, "after/kill"));
	db_close(db);
	free(runs);
	rm_tree(dir);
}

/* --- writers at once ----------------------------------------------------------------------- */

/* Wait until the parent closes the write end of `go`, so that all children start together. */
static void wait_go(int go_read)
{
	char c;

	while (read(go_read, &c, 1) < 0 && errno == EINTR)
		;
	close(go_read);
}

/* N runs into the file; odd writers go through the recorder, as `kbx run` does. Any error,
 * SQLITE_BUSY among them, fails the child. */
static void concurrent_writer(const char *path, int w, int nruns, int go_read)
{
	struct db *db;
	char tag[64], err[1024];

	wait_go(go_read);
	if (db_open(path, &db) != KBX_OK) {
		fprintf(stderr, "writer %d: %s\n", w, kbx_last_error());
		exit(2);
	}
	for (int k = 0; k < nruns; k++) {
		struct tagged_run t;
		enum kbx_status st;
		long long id = 0;

		snprintf(tag, sizeof(tag), "w%d/k%d", w, k);
		tagged_run_init(&t, tag, k);
		if (w % 2) {
			st = record_through_events(db, &t, &id, err, sizeof(err));
		} else {
			st = db_run_insert(db, &t.run);
			id = t.run.id;
			snprintf(err, sizeof(err), "%s", kbx_last_error());
		}
		tagged_run_free(&t);
		if (st != KBX_OK || id <= 0) {
			fprintf(stderr, "writer %d run %d: %s\n", w, k, err);
			db_close(db);
			exit(3);
		}
	}
	db_close(db);
	exit(0);
}

static void test_concurrent_writers(void **state)
{
	enum { WRITERS = 4, RUNS = 25 };
	char dir[256], path[320], tag[64], who[32];
	struct found_run *runs;
	pid_t pids[WRITERS];
	int go[2], nruns, ok = 1;
	struct db *db;

	assert_int_equal(make_tmpdir(dir, sizeof(dir)), 0);
	/* No file yet: the writers race to create it and run the migrations too. */
	snprintf(path, sizeof(path), "%s/sub/history.db", dir);
	assert_int_equal(pipe(go), 0);
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork_child();
		if (pids[w] == 0) {
			close(go[1]);
			concurrent_writer(path, w, RUNS, go[0]);
		}
	}
	close(go[0]);
	close(go[1]);
	for (int w = 0; w < WRITERS; w++) {
		snprintf(who, sizeof(who), "writer %d", w);
		ok &= wait_ok(pids[w], who);
	}
	assert_true(ok);

	assert_int_equal(db_open(path, &db), KBX_OK);
	assert_int_equal(db_schema_version(db), DB_SCHEMA_VERSION);
	runs = check_file(db, &nruns);
	assert_int_equal(nruns, WRITERS * RUNS);
	for (int w = 0; w < WRITERS; w++)
		for (int k = 0; k < RUNS; k++) {
			snprintf(tag, sizeof(tag), "w%d/k%d", w, k);
			if (!find_tag(runs, nruns, tag))
				fail_msg("run '%s' is missing", tag);
		}
	check_queries(db, runs, nruns);
	check_still_writable(db, "after/writers");
	db_close(db);
	free(runs);
	rm_tree(dir);
}

/* Open a history that does not exist yet, write one small run, close. */
static void first_opener(const char *path, int who, int go_read)
{
	struct db_run run;
	struct db *db;
	char tag[32];

	wait_go(go_read);
	if (db_open(path, &db) != KBX_OK) {
		fprintf(stderr, "opener %d: %s\n", who, kbx_last_error());
		exit(2);
	}
	snprintf(tag, sizeof(tag), "o%d", who);
	memset(&run, 0, sizeof(run));
	run.task_id = "crash/open";
	run.category = "cat0";
	run.verdict = V_PASS;
	run.message = tag;
	run.speedup_golden = run.speedup_ref = run.cand_ms = run.ref_ms = -1;
	if (db_run_insert(db, &run) != KBX_OK) {
		fprintf(stderr, "opener %d: %s\n", who, kbx_last_error());
		db_close(db);
		exit(3);
	}
	db_close(db);
	exit(0);
}

/* Several `kbx` started at once on a machine without a history yet: they race to create the
 * file, switch it to WAL and migrate it, and none may see "database is locked". */
static void test_concurrent_first_open(void **state)
{
	enum { ROUNDS = 8, OPENERS = 6 };
	char dir[256], path[320], who[48];
	pid_t pids[OPENERS];
	struct db *db;
	char mode[16];
	int go[2], ok = 1;

	assert_int_equal(make_tmpdir(dir, sizeof(dir)), 0);
	for (int round = 0; round < ROUNDS && ok; round++) {
		snprintf(path, sizeof(path), "%s/h%d/history.db", dir, round);
		assert_int_equal(pipe(go), 0);
		for (int i = 0; i < OPENERS; i++) {
			pids[i] = fork_child();
			if (pids[i] == 0) {
				close(go[1]);
				first_opener(path, i, go[0]);
			}
		}
		close(go[0]);
		close(go[1]);
		for (int i = 0; i < OPENERS; i++) {
			snprintf(who, sizeof(who), "round %d opener %d", round, i);
			ok &= wait_ok(pids[i], who);
		}
		if (!ok)
			break;
		assert_int_equal(db_open(path, &db), KBX_OK);
		assert_int_equal(db_schema_version(db), DB_SCHEMA_VERSION);
		assert_int_equal(q_int(db_sqlite(db), "SELECT COUNT(*) FROM runs"), OPENERS);
		assert_string_equal(q_text(db, mode, sizeof(mode), "PRAGMA journal_mode"), "wal");
		db_close(db);
	}
	assert_true(ok);
	rm_tree(dir);
}

/*
 * The same race made certain: another process holds the write lock on the new, still empty
 * file (the parent here, standing for a second kbx that is writing the header) when kbx
 * switches it to WAL. SQLite refuses that at once, without the busy handler; kbx must wait for
 * the lock, not fail with "database is locked".
 */
static void test_open_while_write_locked(void **state)
{
	char dir[256], path[320];
	sqlite3 *sq;
	pid_t pid;
	int go[2], fd;

	assert_int_equal(make_tmpdir(dir, sizeof(dir)), 0);
	snprintf(path, sizeof(path), "%s/history.db", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	/* Fork before the parent opens SQLite: a connection's locks must not cross a fork. */
	assert_int_equal(pipe(go), 0);
	pid = fork_child();
	if (pid == 0) {
		struct db *db;

		close(go[1]);
		wait_go(go[0]);
		if (db_open(path, &db) != KBX_OK) {
			fprintf(stderr, "opener: %s\n", kbx_last_error());
			exit(2);
		}
		db_close(db);
		exit(0);
	}
	close(go[0]);
	assert_int_equal(sqlite3_open(path, &sq), SQLITE_OK);
	/* the COMMIT below waits out the child's momentary read lock between its tries (on a loaded
	 * machine it met one, and without a busy timeout failed with SQLITE_BUSY) */
	sqlite3_busy_timeout(sq, 10000);
	assert_int_equal(sqlite3_exec(sq, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	close(go[1]);
	/* Long enough for the child to reach the switch to WAL, well within its busy timeout. */
	sleep_ms(300);
	assert_int_equal(sqlite3_exec(sq, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sq);
	assert_true(wait_ok(pid, "opener"));
	rm_tree(dir);
}

/* --- readers while a writer writes --------------------------------------------------------- */

/*
 * Reads the history over and over while the writer works: the list only grows, the newest run
 * is always whole, the summaries never fail. Every few rounds the connection is opened afresh,
 * which also runs db_open's migration check against a busy file. Stops once it has seen all
 * `expect` runs.
 */
static void reader(const char *path, int who, int expect, int go_read)
{
	struct db *db = NULL;
	int last = 0, iter = 0, midway = 0;
	double deadline;

	wait_go(go_read);
	deadline = now_seconds() + 30;
	for (;;) {
		struct db_category_stat *cs;
		struct db_task_stat *ts;
		struct db_run_row *rows;
		double rates[8];
		int n, ncs, nts;

		if (!db && db_open(path, &db) != KBX_OK)
			goto fail;
		if (db_runs_list(db, NULL, NULL, 0, &rows, &n) != KBX_OK)
			goto fail;
		if (n < last) {
			fprintf(stderr, "reader %d: the history shrank from %d to %d runs\n", who, last, n);
			exit(4);
		}
		last = n;
		midway += n > 0 && n < expect;
		if (n > 0) {
			struct db_run_detail d;
			int ncases, nperf;

			if (db_run_get(db, rows[0].id, &d) != KBX_OK) {
				free(rows);
				goto fail;
			}
			tag_shape(d.message ? d.message : "", &ncases, &nperf);
			if (d.ncases != ncases || d.nperf != nperf) {
				fprintf(stderr, "reader %d: run %lld read half-written: %d of %d cases\n", who,
					rows[0].id, d.ncases, ncases);
				exit(5);
			}
			db_run_detail_free(&d);
		}
		free(rows);
		if (db_category_stats(db, &cs, &ncs) != KBX_OK)
			goto fail;
		free(cs);
		if (db_task_stats(db, "cat1", &ts, &nts) != KBX_OK)
			goto fail;
		free(ts);
		if (db_category_series(db, "cat2", 8, rates) != KBX_OK)
			goto fail;
		if (++iter % 4 == 0) {
			db_close(db);
			db = NULL;
		}
		if (last >= expect)
			break;
		if (now_seconds() > deadline) {
			fprintf(stderr, "reader %d: saw only %d of %d runs in time\n", who, last, expect);
			exit(6);
		}
	}
	db_close(db);
	if (!midway) {
		/* It never read while the writer was half done: the test would prove nothing. */
		fprintf(stderr, "reader %d: never read during the writes (%d reads)\n", who, iter);
		exit(7);
	}
	exit(0);
fail:
	fprintf(stderr, "reader %d: %s\n", who, kbx_last_error());
	exit(3);
}

static void test_readers_during_writes(void **state)
{
	enum { RUNS = 40, READERS = 2 };
	char dir[256], path[320], who[32];
	struct found_run *runs;
	pid_t writer, readers[READERS];
	int go[2], nruns, ok;
	struct db *db;

	assert_int_equal(make_tmpdir(dir, sizeof(dir)), 0);
	snprintf(path, sizeof(path), "%s/history.db", dir);
	/* The file exists before the readers start, so that "no file yet" is not what they test. */
	assert_int_equal(db_open(path, &db), KBX_OK);
	db_close(db);
	assert_int_equal(pipe(go), 0);
	writer = fork_child();
	if (writer == 0) {
		close(go[1]);
		concurrent_writer(path, 0, RUNS, go[0]);
	}
	for (int i = 0; i < READERS; i++) {
		readers[i] = fork_child();
		if (readers[i] == 0) {
			close(go[1]);
			reader(path, i, RUNS, go[0]);
		}
	}
	close(go[0]);
	close(go[1]);
	ok = wait_ok(writer, "writer");
	for (int i = 0; i < READERS; i++) {
		snprintf(who, sizeof(who), "reader %d", i);
		ok &= wait_ok(readers[i], who);
	}
	assert_true(ok);

	assert_int_equal(db_open(path, &db), KBX_OK);
	runs = check_file(db, &nruns);
	assert_int_equal(nruns, RUNS);
	check_queries(db, runs, nruns);
	db_close(db);
	free(runs);
	rm_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kill_during_write),
		cmocka_unit_test(test_concurrent_first_open),
		cmocka_unit_test(test_open_while_write_locked),
		cmocka_unit_test(test_concurrent_writers),
		cmocka_unit_test(test_readers_during_writes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
