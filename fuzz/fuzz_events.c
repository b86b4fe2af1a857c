/*
 * fuzz_events.c - JSON lines through the readers of core/events.c: the four *_from_json
 * functions and events_json_dispatch (the worker's wire format).
 *
 * Whatever a reader accepts must survive a round trip: to_json of the result reads back, and
 * writes the same text again. The dispatch sink serialises what it is given, so that a field
 * left uninitialised or dangling by the reader shows up under the sanitizers.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/events.h"
#include "fuzz.h"

#define ROUND_TRIP(type, from, to, freer) \
	static void round_trip_##from(const char *text) \
	{ \
		type a, b; \
		char *ja, *jb; \
		if (from(text, &a) != KBX_OK) \
			return; \
		ja = to(&a); \
		if (from(ja, &b) != KBX_OK) \
			abort(); \
		jb = to(&b); \
		if (strcmp(ja, jb) != 0) \
			abort(); \
		free(ja); \
		free(jb); \
		freer(&a); \
		freer(&b); \
	}

ROUND_TRIP(struct case_result, case_result_from_json, case_result_to_json, case_result_free)
ROUND_TRIP(struct perf_result, perf_result_from_json, perf_result_to_json, perf_result_free)
ROUND_TRIP(struct compile_result, compile_result_from_json, compile_result_to_json, compile_result_free)
ROUND_TRIP(struct run_summary, run_summary_from_json, run_summary_to_json, run_summary_free)

static size_t sink_bytes;

static void sink_phase(void *ctx, const char *what, double limit_s)
{
	sink_bytes += strlen(what) + (limit_s > 0);
}

static void sink_compile(void *ctx, const struct compile_result *c)
{
	char *j = compile_result_to_json(c);

	sink_bytes += strlen(j);
	free(j);
}

static void sink_case(void *ctx, const struct case_result *c)
{
	char *j = case_result_to_json(c);

	sink_bytes += strlen(j);
	free(j);
}

static void sink_perf(void *ctx, const struct perf_result *p)
{
	char *j = perf_result_to_json(p);

	sink_bytes += strlen(j);
	free(j);
}

static void sink_log(void *ctx, const char *text)
{
	sink_bytes += strlen(text);
}

static void sink_done(void *ctx, const struct run_summary *s)
{
	char *j = run_summary_to_json(s);

	sink_bytes += strlen(j);
	free(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct run_events sink = {
		.phase = sink_phase, .compile = sink_compile, .case_done = sink_case,
		.perf_row = sink_perf, .log = sink_log, .done = sink_done,
	};
	static const struct run_events none = { 0 };
	char *text = fuzz_cstr(data, size);

	round_trip_case_result_from_json(text);
	round_trip_perf_result_from_json(text);
	round_trip_compile_result_from_json(text);
	round_trip_run_summary_from_json(text);
	events_json_dispatch(text, &sink);
	events_json_dispatch(text, &none);
	free(text);
	return 0;
}
