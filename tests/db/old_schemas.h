/*
 * old_schemas.h - the history's schema as kbx shipped it, one migration step at a time, frozen
 * here (never generated from db/db.c) so that the tests open files an older kbx really wrote.
 * A file at version N is OLD_SCHEMA_V1 followed by the steps up to N; the steps are the text of
 * db.c's migrations at the time (version 1 created the tables, 2 added covering indexes, 3 a
 * run's device, evaluation, origin and uid, 4 the calibration table).
 */
#ifndef KBX_TESTS_OLD_SCHEMAS_H
#define KBX_TESTS_OLD_SCHEMAS_H

#define OLD_SCHEMA_V1 \
	"CREATE TABLE runs (" \
	"  id INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL, category TEXT NOT NULL, gpu TEXT," \
	"  driver_version INTEGER, source TEXT, source_hash TEXT, source_path TEXT, compile_options TEXT," \
	"  verdict TEXT NOT NULL, warnings TEXT, message TEXT, seed INTEGER, speedup_golden REAL," \
	"  speedup_ref REAL, cand_ms REAL, ref_ms REAL, created_at REAL NOT NULL, summary_json TEXT);" \
	"CREATE INDEX runs_category_time ON runs(category, created_at);" \
	"CREATE INDEX runs_task_time ON runs(task_id, created_at);" \
	"CREATE INDEX runs_time ON runs(created_at);" \
	"CREATE INDEX runs_source_hash ON runs(source_hash);" \
	"CREATE TABLE case_results (" \
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, idx INTEGER NOT NULL," \
	"  name TEXT NOT NULL, verdict TEXT NOT NULL, max_abs REAL, max_rel REAL, max_ulp REAL," \
	"  mismatches INTEGER, detail_json TEXT, PRIMARY KEY (run_id, idx));" \
	"CREATE TABLE perf_rows (" \
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, \"row\" INTEGER NOT NULL," \
	"  input_size TEXT, cand_ms REAL, cand_p20 REAL, cand_p80 REAL, cand_min REAL, cand_n INTEGER," \
	"  ref_ms REAL, golden_ms REAL, gbps REAL, tflops REAL, PRIMARY KEY (run_id, \"row\"));" \
	"CREATE TABLE compile_cache (" \
	"  key TEXT PRIMARY KEY NOT NULL, arch TEXT, options TEXT, image BLOB NOT NULL, log TEXT," \
	"  created_at REAL NOT NULL);" \
	"CREATE INDEX compile_cache_time ON compile_cache(created_at);"

#define OLD_SCHEMA_V2_STEP \
	"CREATE INDEX runs_category_summary ON runs(category, task_id, verdict, created_at, speedup_golden, speedup_ref);" \
	"CREATE INDEX runs_task_summary ON runs(task_id, created_at, verdict, speedup_golden, speedup_ref, category);"

#define OLD_SCHEMA_V3_STEP \
	"ALTER TABLE runs ADD COLUMN device INTEGER;" \
	"ALTER TABLE runs ADD COLUMN eval TEXT;" \
	"ALTER TABLE runs ADD COLUMN origin TEXT;" \
	"ALTER TABLE runs ADD COLUMN uid TEXT;" \
	"CREATE UNIQUE INDEX runs_uid ON runs(uid);"

#define OLD_SCHEMA_V4_STEP \
	"CREATE TABLE calibration (gpu_uuid TEXT NOT NULL, gpu_name TEXT NOT NULL, copy_gbps REAL, fma_tflops REAL," \
	"  tensor_tflops REAL, peak_gbps REAL, measured_at REAL NOT NULL, kbx_version TEXT," \
	"  PRIMARY KEY (gpu_uuid, gpu_name));" \
	"CREATE INDEX calibration_name ON calibration(gpu_name, measured_at);"

#define OLD_SCHEMA_V5_STEP \
	"ALTER TABLE perf_rows ADD COLUMN cand_max REAL;" \
	"ALTER TABLE perf_rows ADD COLUMN cand_mean REAL;" \
	"ALTER TABLE perf_rows ADD COLUMN cand_stddev REAL;" \
	"ALTER TABLE perf_rows ADD COLUMN cand_rsd REAL;" \
	"ALTER TABLE perf_rows ADD COLUMN bench_mode TEXT;" \
	"ALTER TABLE perf_rows ADD COLUMN bench_stop TEXT;" \
	"ALTER TABLE perf_rows ADD COLUMN hide_latency INTEGER;" \
	"ALTER TABLE perf_rows ADD COLUMN sm_mhz REAL;" \
	"ALTER TABLE perf_rows ADD COLUMN min_sm_mhz REAL;" \
	"ALTER TABLE perf_rows ADD COLUMN mem_mhz REAL;" \
	"ALTER TABLE perf_rows ADD COLUMN max_sm_mhz REAL;" \
	"ALTER TABLE perf_rows ADD COLUMN temp_c REAL;" \
	"ALTER TABLE perf_rows ADD COLUMN power_w REAL;" \
	"ALTER TABLE perf_rows ADD COLUMN reasons INTEGER;" \
	"ALTER TABLE perf_rows ADD COLUMN reasons_valid INTEGER;" \
	"ALTER TABLE perf_rows ADD COLUMN clock_readings INTEGER;"

/* version 6 changed rows, not tables */
#define OLD_SCHEMA_V6_STEP ""

#define OLD_SCHEMA_V7_STEP \
	"CREATE TABLE ref_timings (" \
	"  key TEXT PRIMARY KEY NOT NULL," \
	"  task_id TEXT NOT NULL," \
	"  gpu TEXT," \
	"  \"row\" INTEGER NOT NULL," \
	"  median REAL, p20 REAL, p80 REAL, min REAL, max REAL, mean REAL, stddev REAL, n INTEGER," \
	"  sm_mhz REAL, min_sm_mhz REAL, max_sm_mhz REAL, mem_mhz REAL, clock_readings INTEGER," \
	"  measured_at REAL NOT NULL" \
	");" \
	"CREATE INDEX ref_timings_time ON ref_timings(measured_at);"

#endif
