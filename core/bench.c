/*
 * Timing one call sequence: see bench.h. The fixed mode is do_bench's method step for step, so
 * that its medians can be put next to the golden tables (doc/timing.md, bench/timing_fidelity.py).
 */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define ESTIMATE_CALLS 5
#define FIXED_CAP 100000
#define HOLD_TIMEOUT_MS 2000.0
#define HOLD_BATCH 64           /* repetitions queued behind one hold, at first */
#define NOISE_SAMPLE_CAP 1000000

void bench_options_default(struct bench_options *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = BENCH_FIXED;
	o->warmup_ms = 25;
	o->rep_ms = 100;
	o->max_rep = FIXED_CAP;
	o->rsd_target = 0.005;
	o->min_samples = 10;
	o->min_ms = 10;
	o->max_ms = 1000;
}

int bench_mode_parse(const char *s)
{
	if (!strcmp(s, "fixed"))
		return BENCH_FIXED;
	if (!strcmp(s, "noise"))
		return BENCH_NOISE;
	return -1;
}

const char *bench_mode_name(enum bench_mode m)
{
	return m == BENCH_NOISE ? "noise" : "fixed";
}

double bench_budget_s(const struct bench_options *o)
{
	return (o->warmup_ms + (o->mode == BENCH_NOISE ? o->max_ms : o->rep_ms)) / 1000.0;
}

int bench_fixed_count(double rep_ms, double est_ms, int cap)
{
	double n;

	if (!(est_ms > 0))
		est_ms = 1e-4;
	n = rep_ms / est_ms;
	if (!(n >= 1))
		return 1;
	return n > cap ? cap : (int)n;
}

int bench_noise_done(const struct bench_options *o, int n, double rsd, double elapsed_ms, const char **why)
{
	if (elapsed_ms >= o->max_ms || n >= NOISE_SAMPLE_CAP) {
		*why = "cap";
		return 1;
	}
	if (n >= o->min_samples && elapsed_ms >= o->min_ms && rsd <= o->rsd_target) {
		*why = "noise";
		return 1;
	}
	return 0;
}

/* Growing sample storage. */
struct samples {
	double *ms;
	int n, cap;
};

static void samples_add(struct samples *s, double v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->ms = xrealloc(s->ms, (size_t)s->cap * sizeof(*s->ms));
	}
	s->ms[s->n++] = v;
}

static double samples_rsd(const struct samples *s)
{
	double mean = 0, var = 0;
	int i;

	if (s->n < 2)
		return INFINITY;
	for (i = 0; i < s->n; i++)
		mean += s->ms[i];
	mean /= s->n;
	for (i = 0; i < s->n; i++)
		var += (s->ms[i] - mean) * (s->ms[i] - mean);
	var /= s->n - 1;
	return mean > 0 ? sqrt(var) / mean : INFINITY;
}

/* Event pairs, created once and reused by every batch. */
struct events {
	gpu_event *start, *end;
	int n;
};

static enum kbx_status events_grow(struct gpu *g, struct events *e, int n)
{
	enum kbx_status st = KBX_OK;

	if (n <= e->n)
		return KBX_OK;
	e->start = xrealloc(e->start, (size_t)n * sizeof(*e->start));
	e->end = xrealloc(e->end, (size_t)n * sizeof(*e->end));
	while (e->n < n) {
		if ((st = gpu_event_create(g, &e->start[e->n])))
			break;
		if ((st = gpu_event_create(g, &e->end[e->n]))) {
			gpu_event_destroy(g, e->start[e->n]);
			break;
		}
		e->n++;
	}
	return st;
}

static void events_free(struct gpu *g, struct events *e)
{
	int i;

	for (i = 0; i < e->n; i++) {
		gpu_event_destroy(g, e->start[i]);
		gpu_event_destroy(g, e->end[i]);
	}
	free(e->start);
	free(e->end);
}

/* What precedes a call outside the events: prepare (every call), then the flush (timed calls
 * and the estimate), so that what prepare wrote is out of L2 as the flush leaves it. */
static enum kbx_status flush(const struct bench_call *c)
{
	enum kbx_status st = c->prepare ? c->prepare(c->ctx) : KBX_OK;

	return !st && c->flush ? c->flush(c->ctx) : st;
}

/* do_bench's estimate: one event pair around ESTIMATE_CALLS flushed calls. One shortcut: when
 * one call is known to take more than twice the warm-up and the repetition budget (c->hint_ms),
 * the counts will be 1 and 1 whatever the estimate says, so one call estimates (a call of 10 s
 * would otherwise cost 40 s for nothing); the calls that are timed are do_bench's. */
static enum kbx_status estimate(struct gpu *g, const struct bench_call *c, double long_ms, double *est_ms)
{
	gpu_event e0, e1;
	enum kbx_status st;
	float ms = 0;
	int i, calls = c->hint_ms > 2 * long_ms ? 1 : ESTIMATE_CALLS;

	if ((st = gpu_event_create(g, &e0)))
		return st;
	if ((st = gpu_event_create(g, &e1))) {
		gpu_event_destroy(g, e0);
		return st;
	}
	st = gpu_sync(g);
	if (!st)
		st = gpu_event_record(g, e0);
	for (i = 0; i < calls && !st; i++) {
		st = flush(c);
		if (!st)
			st = c->call(c->ctx);
	}
	if (!st)
		st = gpu_event_record(g, e1);
	if (!st)
		st = gpu_sync(g);
	if (!st)
		st = gpu_event_elapsed_ms(g, e0, e1, &ms);
	gpu_event_destroy(g, e0);
	gpu_event_destroy(g, e1);
	*est_ms = ms / calls;
	if (!(*est_ms > 0))
		*est_ms = 1e-4;
	return st;
}

/* Time n repetitions (flush, start, call, end), optionally behind a stream hold, and append
 * their samples. *dropped is set when the hold timed out (the samples are not appended then:
 * some repetitions waited for the host). */
static enum kbx_status timed_batch(struct gpu *g, const struct bench_call *c, struct events *ev, int n, int hold,
				   struct samples *out, int *dropped)
{
	enum kbx_status st;
	int i;

	*dropped = 0;
	if ((st = events_grow(g, ev, n)))
		return st;
	if (hold && (st = gpu_stream_hold(g, HOLD_TIMEOUT_MS)))
		return st;
	for (i = 0; i < n && !st; i++) {
		st = flush(c);
		if (!st)
			st = gpu_event_record(g, ev->start[i]);
		if (!st)
			st = c->call(c->ctx);
		if (!st)
			st = gpu_event_record(g, ev->end[i]);
	}
	if (hold)
		gpu_stream_release(g);
	if (!st)
		st = gpu_sync(g);
	if (st)
		return st;
	if (hold && gpu_stream_hold_timed_out(g)) {
		*dropped = 1;
		return KBX_OK;
	}
	for (i = 0; i < n && !st; i++) {
		float v = 0;

		st = gpu_event_elapsed_ms(g, ev->start[i], ev->end[i], &v);
		samples_add(out, v);
	}
	return st;
}

int bench_hold_batch(const struct bench_options *o)
{
	return o->memory && o->memory->hold_batch > 0 ? o->memory->hold_batch : HOLD_BATCH;
}

/* The next and later batches are half as long, the run's later rows' too: they start from the
 * batch that fit instead of timing out again. */
enum kbx_status bench_batch_dropped(const struct bench_options *o, int *batch, int *dropped)
{
	(*dropped)++;
	if (*batch <= 1 || *dropped > 20)
		return kbx_error(KBX_ETIMEOUT, "hiding launch latency: the GPU waited more than %.0f ms for one "
				 "repetition to be enqueued", HOLD_TIMEOUT_MS);
	*batch /= 2;
	if (o->memory)
		o->memory->hold_batch = *batch;
	return KBX_OK;
}

enum kbx_status bench_run(struct gpu *g, const struct bench_call *c, const struct bench_options *o,
			  struct bench_result *out)
{
	struct events ev = { 0 };
	struct samples smp = { 0 };
	struct clock_window window;
	enum kbx_status st;
	double t0 = now_seconds();
	int i, n_warmup, batch = bench_hold_batch(o), dropped;

	memset(out, 0, sizeof(*out));
	memset(&window, 0, sizeof(window));
	out->stop = "count";
	st = estimate(g, c, fmax(o->warmup_ms, o->mode == BENCH_NOISE ? o->max_ms : o->rep_ms), &out->est_ms);
	if (st)
		return st;
	n_warmup = bench_fixed_count(o->warmup_ms, out->est_ms, FIXED_CAP);
	for (i = 0; i < n_warmup && !st; i++) {
		if (c->prepare)
			st = c->prepare(c->ctx);
		if (!st)
			st = c->call(c->ctx);
	}
	/* The warm-up has brought the clocks up; the queue may still hold its calls, which is the
	 * state the samples start in. */
	nvml_read(c->nvml, &window.before);
	if (o->mode == BENCH_FIXED) {
		int n_rep = bench_fixed_count(o->rep_ms, out->est_ms, o->max_rep > 0 ? o->max_rep : FIXED_CAP);

		/* Without a hold, every repetition is enqueued before the one sync, as do_bench does;
		 * with one, in batches that the launch queue can take. */
		while (!st && smp.n < n_rep) {
			int n = o->hide_latency ? (n_rep - smp.n < batch ? n_rep - smp.n : batch) : n_rep;

			st = timed_batch(g, c, &ev, n, o->hide_latency, &smp, &dropped);
			if (!st && dropped)
				st = bench_batch_dropped(o, &batch, &out->batches_dropped);
		}
	} else {
		const char *why = NULL;
		/* Batches of about 10 ms of calls (at least one), so that the noise is checked often
		 * enough to stop soon after the target is met but the syncs stay rare. */
		int per = bench_fixed_count(10.0, out->est_ms, o->hide_latency ? bench_hold_batch(o) : 4 * HOLD_BATCH);
		/* the time limits count the host's time (flushes and syncs included), so that the cap
		 * bounds what a row costs, not only the kernel's share of it */
		double t_timed = now_seconds();

		while (!st && !bench_noise_done(o, smp.n, samples_rsd(&smp), (now_seconds() - t_timed) * 1e3, &why)) {
			st = timed_batch(g, c, &ev, per, o->hide_latency, &smp, &dropped);
			if (!st && dropped)
				st = bench_batch_dropped(o, &per, &out->batches_dropped);
		}
		out->stop = why ? why : "cap";
	}
	nvml_read(c->nvml, &window.after);
	clock_window_summarize(&window, &out->clocks);
	if (!st) {
		stats_summarize(smp.ms, smp.n, &out->s);
		out->rsd = samples_rsd(&smp);
		if (!isfinite(out->rsd))
			out->rsd = 0;
	}
	out->wall_s = now_seconds() - t0;
	events_free(g, &ev);
	free(smp.ms);
	return st;
}
