/*
 * db.h - the history: every run, its per-case results and per-row timings, and the compile
 * cache, in one SQLite file.
 *
 * The file is $XDG_DATA_HOME/kbx/history.db (default ~/.local/share/kbx/history.db) unless a
 * path is given. db_open creates folders as needed, sets WAL mode and a busy timeout, and brings
 * the schema up to date through numbered migrations inside a transaction (the version lives in
 * PRAGMA user_version). A run is written in one transaction: after a crash it is there entirely
 * or not at all. SQLite errors become KBX_EDB with a message naming the operation and SQLite's
 * own message.
 */
#ifndef KBX_DB_H
#define KBX_DB_H

#include <stddef.h>

#include "../core/result.h"
#include "../core/status.h"

struct db;

/*
 * Schema 3 added to every run the CUDA device it ran on, the evaluation it belongs to, the
 * history file it was merged from, and a uid: 32 lowercase hex digits, random for a new run,
 * copied by db_merge, so that merging the same file twice adds nothing. Runs from before
 * schema 3 got a uid derived from their id and content (the same in every copy of a file).
 */
/*
 * Schema 4 added the table `calibration`: per GPU, the copy bandwidth and FMA and tensor
 * throughput `kbx doctor --calibrate` measured (core/calibrate.h).
 */
/*
 * Schema 5 added to every perf row how it was timed and under what conditions: the candidate's
 * mean, standard deviation and largest sample, the timing mode, why it stopped and the samples'
 * relative standard deviation, whether launch latency was hidden, and the clock summary read
 * around the timed block (core/nvml.h), so that history can tell a real change from noise
 * (core/timecmp.h, db/vsbest.h). Rows from before schema 5 have NULL there.
 */
#define DB_SCHEMA_VERSION 8

/* Default history path (static storage); honours $KBX_DB, then $XDG_DATA_HOME, then $HOME. */
const char *db_default_path(void);
enum kbx_status db_open(const char *path, struct db **out);
void db_close(struct db *db);
/* An existing history this process cannot write (the file, or its folder) is opened read-only:
 * everything reads, writes fail with SQLite's "readonly database". 1 when that is the case. */
int db_readonly(const struct db *db);
/* PRAGMA integrity_check: KBX_OK, or KBX_EDB "history 'x' is damaged (integrity check: ...)".
 * A damaged history still opens; readers say so and show what they can read. */
enum kbx_status db_check(struct db *db);
int db_schema_version(struct db *db);

/* What a run stores. Strings may be NULL; doubles < 0 mean "not available". */
struct db_case {
	const char *name;
	enum verdict verdict;
	double max_abs, max_rel, max_ulp;
	long long mismatches;
	const char *detail_json;     /* case_result_to_json */
};

struct db_perf {
	int row;
	const char *input_size;
	double cand_ms, cand_p20, cand_p80, cand_min;
	int cand_n;
	double ref_ms, golden_ms;
	double gbps, tflops;
	/* Schema 5, after the older fields so that positional initializers of those still work,
	 * and so that a zeroed tail means "not known" (stored as NULL, read back as below):
	 * - cand_max, cand_stddev, cand_rsd count only with a cand_mean > 0; read back -1 when not
	 *   stored;
	 * - bench_mode ("fixed", "noise"), bench_stop ("count", "noise", "cap") and hide_latency
	 *   (1 when launch latency was hidden) count only with a bench_mode; read back "" and -1;
	 * - clocks count only with clocks.valid > 0 (the number of readings); read back with
	 *   valid = 0 and every figure 0 when there were none. */
	double cand_max, cand_mean, cand_stddev, cand_rsd;
	char bench_mode[8], bench_stop[8];
	int hide_latency;
	struct clock_summary clocks;
};

struct db_run {
	long long id;                /* set by db_run_insert */
	char uid[33];                /* set by db_run_insert */
	const char *task_id, *category;
	const char *gpu;
	int driver_version;
	const char *source, *source_hash, *source_path;
	const char *compile_options;
	enum verdict verdict;
	const char *warnings;        /* comma-separated */
	const char *message;
	unsigned long long seed;
	double speedup_golden, speedup_ref;
	double cand_ms, ref_ms;
	double created_at;           /* unix seconds; 0 = now */
	const char *summary_json;
	const struct db_case *cases;
	int ncases;
	const struct db_perf *perf;
	int nperf;
	int has_device;              /* whether device is known (a memset struct says no) */
	int device;                  /* CUDA ordinal the worker used */
	const char *eval;            /* the evaluation's name or id; NULL for an interactive run */
	double written_at;           /* set by db_run_insert: the created_at it stored */
};

enum kbx_status db_run_insert(struct db *db, struct db_run *run);
/* A perf row as db_run_get (db_perf_read) gives it back once db_run_insert has written `in`:
 * what the history does not keep reads as "not known" there, and so it does in *out. For a run
 * just written, without reading it back. out->input_size is in's (not a copy). */
void db_perf_stored(const struct db_perf *in, struct db_perf *out);
/* A perf event as the history keeps it (what the recorder writes): the candidate's timing only
 * when it was timed, throughput only with the task's formula; dp->input_size is a copy. */
void db_perf_from_result(const struct perf_result *p, struct db_perf *dp);
/* A history row as a perf event (a past run shown as a live one): what the history does not
 * keep (bytes, flops) reads as unknown, the row as correct (only correct rows are timed);
 * q->input_size is a copy. */
void db_perf_to_result(const struct db_perf *p, struct perf_result *q);

/* Compile cache, keyed by sha256(source + options + arch). KBX_ENOTFOUND on a miss. */
enum kbx_status db_cache_get(struct db *db, const char *key, void **image, size_t *size, char **log);
enum kbx_status db_cache_put(struct db *db, const char *key, const char *arch, const char *options,
			     const void *image, size_t size, const char *log);

/* The reference's kept timings (core/reftime.h), by key. KBX_ENOTFOUND on a miss. */
struct ref_timing;
enum kbx_status db_reftime_get(struct db *db, const char *key, struct ref_timing *out);
enum kbx_status db_reftime_put(struct db *db, const char *key, const char *task_id, const char *gpu_name, int row,
			       const struct ref_timing *t);

/* The reference's kept outputs at perf rows (core/refout.h), by key: a blob that get returns
 * malloc'd. KBX_ENOTFOUND on a miss. put keeps at most DB_REFOUTS_MAX_BYTES in all, dropping the
 * oldest first, and none older than 30 days. */
#define DB_REFOUTS_MAX_BYTES ((long long)2 << 30)
enum kbx_status db_refout_get(struct db *db, const char *key, void **blob, size_t *size);
enum kbx_status db_refout_put(struct db *db, const char *key, const char *task_id, const void *blob, size_t size);
/* Their count and bytes in all. */
enum kbx_status db_refout_usage(struct db *db, long long *count, long long *bytes);
/* The oldest go until the rest hold at most `cap` bytes, and any kept more than 30 days ago. */
enum kbx_status db_refout_trim(struct db *db, long long cap);
/* All of them go, and the file gives their space back (VACUUM). */
enum kbx_status db_refout_clear(struct db *db);

/* The cache above as the engine's compile cache (core/engine.h). */
struct compile_cache db_compile_cache(struct db *db);

/* A worker's environment (core/serve.h): the compile cache and calibration of the history a
 * request names, the tasks root, and the host candidate (NULL for CUDA). */
struct serve_env;
struct host_candidate;
void db_serve_env(struct serve_env *env, const char *tasks_root, const struct host_candidate *host);

/* History summaries. */
struct db_category_stat {
	char category[64];
	int attempts, passes;
	int tasks_tried, tasks_passed;
	double best_speedup, median_speedup;   /* over passing runs, vs golden else vs reference; < 0 none */
	double last_at;
	int impossible;                         /* runs with verdict impossible_timing, not passes */
};
enum kbx_status db_category_stats(struct db *db, struct db_category_stat **out, int *n);
/* The median speedup over every category's passing runs (as in db_category_stat); < 0 none. */
enum kbx_status db_median_speedup(struct db *db, double *out);

struct db_task_stat {
	char task_id[160];
	int attempts, passes;
	enum verdict last_verdict;
	double last_at;
	double best_speedup;                    /* < 0 none */
	int impossible;                         /* runs with verdict impossible_timing */
};
/* category NULL = all tasks with history. */
enum kbx_status db_task_stats(struct db *db, const char *category, struct db_task_stat **out, int *n);

/* One row per run, newest first. Filters may be NULL; limit <= 0 = no limit. */
struct db_run_row {
	long long id;
	char task_id[160];
	char category[64];
	char gpu[128];
	enum verdict verdict;
	char warnings[128];
	double speedup_golden, speedup_ref, cand_ms;
	double created_at;
	char source_hash[65];
	int device;                  /* -1 when not recorded */
	char eval[128];              /* "" for an interactive run */
};
enum kbx_status db_runs_list(struct db *db, const char *category, const char *task_id, int limit,
			     struct db_run_row **out, int *n);

/* Everything stored for one run (for the attempt diff): caller frees with db_run_detail_free. */
struct db_run_detail {
	struct db_run_row row;
	char *source;
	char *message;
	char *summary_json;
	char **case_names;
	char **case_json;
	enum verdict *case_verdicts;
	int ncases;
	struct db_perf *perf;
	char **perf_input_size;
	int nperf;
	char *origin;                /* the file it was merged from; NULL when recorded here */
	char uid[33];
};
enum kbx_status db_run_get(struct db *db, long long id, struct db_run_detail *out);
void db_run_detail_free(struct db_run_detail *d);

/* Pass rate of a category per time bucket (oldest first), for the sparkline: n buckets over
 * the span of its history. rates[i] < 0 when a bucket has no runs. */
enum kbx_status db_category_series(struct db *db, const char *category, int nbuckets, double *rates);

/*
 * Merging histories (merge.c): copy every run of the history at src_path that this one lacks
 * (by uid), with everything that refers to it (case results, perf rows: any table with a
 * foreign key to runs), and the compile cache entries whose key it lacks, in one transaction.
 * Run ids are new; a copied run's origin is the absolute path of src_path unless it already
 * had one. The source is opened read-only; one of an older schema is migrated in a temporary
 * copy; a file that is not a kbx history, or is newer than this kbx, is refused naming it.
 * Merging the same file twice adds nothing the second time.
 */
struct db_merge_stats {
	int runs_merged;             /* copied */
	int runs_present;            /* skipped: a run with the same uid was already here */
	int cache_merged;            /* compile cache entries copied */
};
enum kbx_status db_merge(struct db *db, const char *src_path, struct db_merge_stats *stats);
/* The path the history was opened with. */
const char *db_path(struct db *db);

/*
 * Calibrations (calibration.c): one per GPU, keyed by (gpu_uuid, gpu_name); saving replaces the
 * GPU's earlier one. A lookup takes the one with the same UUID (when uuid is not empty), else
 * the newest with the same name, which is another board of the same model: out->gpu_uuid says
 * which it was. KBX_ENOTFOUND when there is none. Doubles < 0 are stored as NULL and read back
 * as -1. db_calibration_find_at reads the history at `path` without creating or migrating it
 * (the worker's lookup): a missing file, or one from before schema 4, is KBX_ENOTFOUND.
 */
struct calibration;
enum kbx_status db_calibration_save(struct db *db, const struct calibration *c);
enum kbx_status db_calibration_find(struct db *db, const char *uuid, const char *name, struct calibration *out);
enum kbx_status db_calibration_find_at(const char *path, const char *uuid, const char *name,
				       struct calibration *out);

/* For db/'s own files (history.c, recorder.c, merge.c), not for callers outside db/: the SQLite
 * connection; a KBX_EDB error "cannot <what> in history 'path': <sqlite message>"; wall-clock
 * unix seconds as stored in created_at. */
struct sqlite3;
struct sqlite3 *db_sqlite(struct db *db);
enum kbx_status db_error(struct db *db, const char *fmt, ...) KBX_PRINTF(2, 3);
double db_now(void);
/* The SQL functions kbx's migrations use, on a connection of db/'s own; SQLite's result code. */
int db_register_functions(struct sqlite3 *sq);
/* Drop the oldest compile cache entries beyond the bound, inside the caller's transaction;
 * SQLite's result code. */
int db_cache_trim(struct db *db);
/* The columns of perf_rows that db_perf_read reads, in its order (for a SELECT of db/'s own). */
#define DB_PERF_COLUMNS \
	"\"row\", input_size, cand_ms, cand_p20, cand_p80, cand_min, cand_n, ref_ms, golden_ms, gbps, tflops," \
	" cand_max, cand_mean, cand_stddev, cand_rsd, bench_mode, bench_stop, hide_latency, sm_mhz," \
	" min_sm_mhz, mem_mhz, max_sm_mhz, temp_c, power_w, reasons, reasons_valid, clock_readings"
/* One perf row from DB_PERF_COLUMNS at column `first` of st, damaged values read as "not
 * known"; *input_size gets a copy of its input size (NULL when none) and p->input_size is left
 * NULL, for the caller to point at that copy once its arrays stop moving. */
struct sqlite3_stmt;
void db_perf_read(struct sqlite3_stmt *st, int first, struct db_perf *p, char **input_size);

#endif
