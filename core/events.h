/*
 * events.h - how a run reports what happens, and the worker's wire format.
 *
 * The engine (engine.h) calls a struct run_events as it goes. Inside the worker those calls are
 * written as JSON lines on a pipe (events_json_writer); the parent reads the lines back into the
 * same structs (events_json_dispatch) and calls its own run_events: the CLI's text printer, the
 * JSON printer, the history writer and the TUI each implement this one interface. The explorer,
 * whose worker_run runs on a thread of its own, receives them there as typed events (struct
 * run_event below, handed over by evqueue.h), decoded once.
 *
 * Wire format, one JSON object per line, "ev" naming the event:
 *   {"ev":"phase","what":"case corner launch 1","limit_s":10}   the parent's watchdog deadline
 *   {"ev":"compile", ...compile_result...}
 *   {"ev":"case", ...case_result...}
 *   {"ev":"perf", ...perf_result...}
 *   {"ev":"log","text":"..."}
 *   {"ev":"done", ...run_summary...}
 *   {"ev":"calibration", ...calibration...}   the answer to a calibrate request (calibrate.h)
 *
 * The objects carry every field of the struct under its own name, with these shapes:
 *   compile  diags: [{line, col, severity, message}]
 *   case     verdict: name; nondeterministic: bool; outputs: [{arg, ...cmp_result}]
 *   cmp      pass: bool; worst: [{coord: [..], component, cand, ref, abs_err, rel_err, ulp,
 *            score}]; tile_rows, tile_cols, tile_h, tile_w; tiles: [tile_rows * tile_cols]
 *   perf     input_size: the JSON text as a string; cand, ref: {median, p20, p80, min, max,
 *            mean, stddev, n}; has_ref, correct: bool; bw_fraction, flop_fraction: a number,
 *            or null without a calibration (optional when read: older writers lack them)
 *   done     verdict: name; warnings: [names]
 * Doubles that are NaN or infinite are the strings "nan", "inf", "-inf".
 */
#ifndef KBX_EVENTS_H
#define KBX_EVENTS_H

#include <stdio.h>

#include "result.h"
#include "status.h"

struct calibration;

/* A phase whose text begins with this is kbx's own work (downloading and checking outputs, the
 * property verifiers), not the candidate's: its watchdog ends the run as an error of kbx, never a
 * timeout charged to the candidate. Shown without the prefix. */
#define RUN_PHASE_OWN "kbx: "

struct run_events {
	void *ctx;
	/* A new stage begins; it must end within limit_s seconds (0 = no limit). */
	void (*phase)(void *ctx, const char *what, double limit_s);
	void (*compile)(void *ctx, const struct compile_result *c);
	void (*case_done)(void *ctx, const struct case_result *c);
	void (*perf_row)(void *ctx, const struct perf_result *p);
	void (*log)(void *ctx, const char *text);
	void (*done)(void *ctx, const struct run_summary *s);
};

/* Events written as JSON lines to `out` (flushed after each line). */
struct run_events events_json_writer(FILE *out);

/* Parse one line and call the matching callback (NULL callbacks skip the event; the structs
 * passed live only during the call). KBX_EPARSE on a malformed line or an unknown event. */
enum kbx_status events_json_dispatch(const char *line, const struct run_events *ev);

/*
 * A calibration is not an event of a run, so struct run_events has no place for it: the worker
 * writes it with events_json_calibration, and the parent reads it with events_json_dispatch_ex,
 * which is events_json_dispatch plus a callback for it (NULL: skipped, as by
 * events_json_dispatch).
 */
typedef void (*calibration_fn)(void *ctx, const struct calibration *c);
void events_json_calibration(FILE *out, const struct calibration *c);
enum kbx_status events_json_dispatch_ex(const char *line, const struct run_events *ev, calibration_fn on_calibration,
					void *calibration_ctx);

/* Serialise results as JSON text (for --json output and the history's detail columns): the
 * same objects as on the wire, without "ev". Non-finite doubles are the strings "nan", "inf",
 * "-inf"; invalid UTF-8 in strings becomes U+FFFD; NULL strings are null. Caller frees. */
char *case_result_to_json(const struct case_result *c);
char *perf_result_to_json(const struct perf_result *p);
char *compile_result_to_json(const struct compile_result *c);
char *run_summary_to_json(const struct run_summary *s);
char *calibration_to_json(const struct calibration *c);

/* The reverse, for text written by the functions above (the history's detail columns, a saved
 * --json file); an "ev" key is ignored. *out is zeroed first, and freed again on failure
 * (KBX_EPARSE, naming the first bad field). Release with the matching *_free. */
enum kbx_status case_result_from_json(const char *text, struct case_result *out);
enum kbx_status perf_result_from_json(const char *text, struct perf_result *out);
enum kbx_status compile_result_from_json(const char *text, struct compile_result *out);
enum kbx_status run_summary_from_json(const char *text, struct run_summary *out);
/* (a calibration owns nothing: no *_free) */
enum kbx_status calibration_from_json(const char *text, struct calibration *out);

/*
 * One event as a value: what a run_events callback was given, deep-copied, so that it can be
 * handed from the thread that decoded it to another (evqueue.h). The struct of its kind is the
 * one the callback gets: text and limit_s for a phase (text: what) and a log line, compile for
 * compile, kase for case_done, perf for perf_row, summary for done.
 *
 * Ownership: run_event_new_* return a new event that owns deep copies of everything it was given
 * (the *_copy functions of result.h); the caller owns the event until it hands it on, and
 * whoever holds it last releases it with run_event_free (the structs inside with their *_free).
 * run_event_dispatch lends the structs to the callback for the duration of the call only, as
 * events_json_dispatch does: a callback copies what it keeps.
 *
 * The text of a phase and a log line and the summary's message are the strings the parent makes
 * up itself (its watchdog's messages, a dead worker's stderr, compute-sanitizer's findings), so
 * they can hold any bytes: invalid UTF-8 in them becomes U+FFFD, as it does in the JSON writer.
 * NULL text becomes "", as on the wire.
 */
enum run_event_kind { RUN_EVENT_PHASE, RUN_EVENT_COMPILE, RUN_EVENT_CASE, RUN_EVENT_PERF, RUN_EVENT_LOG, RUN_EVENT_DONE };

struct run_event {
	enum run_event_kind kind;
	char *text;                     /* phase: what; log: the line */
	double limit_s;                 /* phase */
	union {
		struct compile_result compile;
		struct case_result kase;
		struct perf_result perf;
		struct run_summary summary;
	};
	struct run_event *next;         /* free for the holder's list (evqueue.c); NULL when new */
};

struct run_event *run_event_new_phase(const char *what, double limit_s);
struct run_event *run_event_new_compile(const struct compile_result *c);
struct run_event *run_event_new_case(const struct case_result *c);
struct run_event *run_event_new_perf(const struct perf_result *p);
struct run_event *run_event_new_log(const char *text);
struct run_event *run_event_new_done(const struct run_summary *s);
/* Call the callback of e's kind in `to` (a NULL callback skips it). */
void run_event_dispatch(const struct run_event *e, const struct run_events *to);
/* Free e and all it owns (not e->next); NULL is fine. */
void run_event_free(struct run_event *e);

/* A run_events that forwards every call to each of up to 4 others (NULL entries skipped). */
struct run_events_tee {
	const struct run_events *to[4];
};
struct run_events events_tee(struct run_events_tee *tee);

#endif
