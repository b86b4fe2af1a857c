/*
 * recorder.h - the history writer: a struct run_events that turns one run's events into one
 * row of the history.
 *
 * It keeps the compile result's options, every case result and perf row as they arrive, and on
 * done() writes the whole run (task, category, GPU and driver from the summary, the source and
 * its sha256, verdict, warnings, speedups, per-case JSON details, per-row timings with how they
 * were taken and the clock readings around them) in one transaction. Use it alongside the other
 * listeners through events_tee:
 *
 *     struct recorder *rec = recorder_new(db, task->id, task->category, src, path, seed);
 *     recorder_set_context(rec, device, eval_name);      (kbx eval: where, and for what)
 *     struct run_events rev = recorder_events(rec);
 *     ... run the engine with rev (or a tee including it) ...
 *     if (recorder_status(rec) != KBX_OK)
 *             warn("%s", recorder_error(rec));
 *     recorder_free(rec);
 *
 * A run without a done() event is not written. A second done() is ignored.
 */
#ifndef KBX_RECORDER_H
#define KBX_RECORDER_H

#include "../core/events.h"
#include "db.h"
#include "vsbest.h"

struct recorder;

/* Strings are copied; db must outlive the recorder. source and source_path may be NULL. */
struct recorder *recorder_new(struct db *db, const char *task_id, const char *category,
			      const char *source, const char *source_path, unsigned long long seed);
/* Where and for what the run happens: the CUDA ordinal the worker uses (< 0: not known) and the
 * evaluation it belongs to (NULL for an interactive run; copied). Without a call, neither is
 * recorded. Call it before done(). */
void recorder_set_context(struct recorder *r, int device, const char *eval);
/* The events to feed; ctx is r. */
struct run_events recorder_events(struct recorder *r);
/* The run's id once done() wrote it; 0 before, or if writing failed. */
long long recorder_run_id(const struct recorder *r);
/* The error of writing the run; KBX_OK when it was written or nothing was tried yet. */
enum kbx_status recorder_status(const struct recorder *r);
/* The message of that error ("" when none). */
const char *recorder_error(const struct recorder *r);
/* The run it wrote against the best earlier attempt at its task (vsbest.h), from what it holds:
 * the same as vsbest_find on db_run_get of the run, without reading the run back (the earlier
 * attempts are read from the history). found = 0 when the run was not written or did not pass;
 * KBX_EDB when the history cannot be read. Release out with vsbest_free. */
enum kbx_status recorder_vs_best(const struct recorder *r, struct vsbest *out);
void recorder_free(struct recorder *r);

#endif
