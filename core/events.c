#include "events.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "jsonget.h"
#include "util.h"

/*
 * JSON has no NaN or infinity, and jansson refuses both, so a non-finite double travels as one
 * of the strings "nan", "inf", "-inf". jansson also refuses strings that are not valid UTF-8,
 * and a compile log or a file name can be anything: such bytes become U+FFFD before encoding.
 */

/* ---- encoding ------------------------------------------------------------------------------ */

static json_t *must(json_t *v)
{
	if (!v) {
		fputs("kbx: out of memory while encoding JSON\n", stderr);
		abort();
	}
	return v;
}

static void put(json_t *o, const char *key, json_t *v)
{
	if (json_object_set_new(o, key, must(v)) != 0)
		must(NULL);
}

/* Length of the valid UTF-8 sequence at p (avail bytes left), 0 when it is not one
 * (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF). */
static size_t utf8_seq(const unsigned char *p, size_t avail)
{
	unsigned char c = p[0];
	unsigned char lo = 0x80, hi = 0xBF;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4;
	else
		return 0;
	if (len > avail)
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return len;
}

/* A JSON string of the first len bytes of s, invalid UTF-8 replaced by U+FFFD. */
static json_t *jstrn(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	struct sbuf sb = SBUF_INIT;
	size_t i = 0, n;
	json_t *v;

	while (i < len && (n = utf8_seq(p + i, len - i)) != 0)
		i += n;
	if (i == len)
		return json_stringn(s, len);
	for (i = 0; i < len; ) {
		n = utf8_seq(p + i, len - i);
		if (n) {
			sbuf_add(&sb, s + i, n);
			i += n;
		} else {
			sbuf_adds(&sb, "\xEF\xBF\xBD");
			i++;
		}
	}
	v = json_stringn(sb.buf, sb.len);
	sbuf_release(&sb);
	return v;
}

/* JSON null for NULL. */
static json_t *jstr(const char *s)
{
	return s ? jstrn(s, strlen(s)) : json_null();
}

/* A fixed-size field, which may lack its NUL when it was filled to the brim. */
#define JFIXED(field) jstrn((field), strnlen((field), sizeof(field)))

static json_t *jnum(double d)
{
	if (isnan(d))
		return json_string("nan");
	if (isinf(d))
		return json_string(d > 0 ? "inf" : "-inf");
	return json_real(d);
}

static void fill_cmp(json_t *o, const struct cmp_result *c)
{
	json_t *worst = must(json_array()), *tiles = must(json_array());
	int nworst = c->nworst < 0 ? 0 : c->nworst > CMP_WORST ? CMP_WORST : c->nworst;
	int ntiles = 0;

	put(o, "n", json_integer((json_int_t)c->n));
	put(o, "mismatches", json_integer((json_int_t)c->mismatches));
	put(o, "nan_mismatches", json_integer((json_int_t)c->nan_mismatches));
	put(o, "inf_mismatches", json_integer((json_int_t)c->inf_mismatches));
	/* which way round: max_abs and the metrics below cover the `finite` pairs only */
	put(o, "cand_nonfinite", json_integer((json_int_t)c->cand_nonfinite));
	put(o, "ref_nonfinite", json_integer((json_int_t)c->ref_nonfinite));
	put(o, "finite", json_integer((json_int_t)c->finite));
	put(o, "max_abs", jnum(c->max_abs));
	put(o, "max_rel", jnum(c->max_rel));
	put(o, "max_ulp", jnum(c->max_ulp));
	put(o, "cosine", jnum(c->cosine));
	put(o, "l1_relative", jnum(c->l1_relative));
	put(o, "rmse", jnum(c->rmse));
	put(o, "rtol", jnum(c->rtol));
	put(o, "atol", jnum(c->atol));
	put(o, "pass", json_boolean(c->pass));
	for (int i = 0; i < nworst; i++) {
		const struct cmp_elem *e = &c->worst[i];
		json_t *w = must(json_object()), *coord = must(json_array());
		int nd = e->ndim < 0 ? 0 : e->ndim > CMP_MAX_DIMS ? CMP_MAX_DIMS : e->ndim;

		for (int d = 0; d < nd; d++)
			json_array_append_new(coord, must(json_integer(e->coord[d])));
		put(w, "coord", coord);
		put(w, "component", json_integer(e->component));
		put(w, "cand", jnum(e->cand));
		put(w, "ref", jnum(e->ref));
		put(w, "abs_err", jnum(e->abs_err));
		put(w, "rel_err", jnum(e->rel_err));
		put(w, "ulp", jnum(e->ulp));
		put(w, "score", jnum(e->score));
		json_array_append_new(worst, w);
	}
	put(o, "worst", worst);
	put(o, "tile_rows", json_integer(c->tile_rows));
	put(o, "tile_cols", json_integer(c->tile_cols));
	put(o, "tile_h", json_integer(c->tile_h));
	put(o, "tile_w", json_integer(c->tile_w));
	if (c->tile_rows > 0 && c->tile_cols > 0 && c->tile_rows <= CMP_TILES && c->tile_cols <= CMP_TILES)
		ntiles = c->tile_rows * c->tile_cols;
	for (int i = 0; i < ntiles; i++)
		json_array_append_new(tiles, must(jnum(c->tiles[i])));
	put(o, "tiles", tiles);
	{
		json_t *h = must(json_array());

		for (int i = 0; i < CMP_HIST; i++)
			json_array_append_new(h, must(json_integer((json_int_t)c->hist[i])));
		put(o, "hist", h);
	}
}

static void fill_case(json_t *o, const struct case_result *c)
{
	json_t *outs = must(json_array());

	put(o, "name", JFIXED(c->name));
	put(o, "index", json_integer(c->index));
	put(o, "verdict", json_string(verdict_name(c->verdict)));
	put(o, "message", jstr(c->message));
	put(o, "oob_arg", JFIXED(c->oob_arg));
	put(o, "modified_arg", JFIXED(c->modified_arg));
	put(o, "nondeterministic", json_boolean(c->nondeterministic));
	put(o, "first_wrong_stage", JFIXED(c->first_wrong_stage));
	if (*c->stage_diagnosis)
		put(o, "stage_diagnosis", JFIXED(c->stage_diagnosis));
	if (c->stage) {
		json_t *st = must(json_object());

		put(st, "arg", JFIXED(c->stage->arg));
		fill_cmp(st, &c->stage->cmp);
		put(o, "stage", st);
	}
	put(o, "seconds", jnum(c->seconds));
	for (int i = 0; i < c->noutputs; i++) {
		json_t *out = must(json_object());

		put(out, "arg", JFIXED(c->outputs[i].arg));
		fill_cmp(out, &c->outputs[i].cmp);
		if (c->outputs[i].quant.valid)
			put(out, "quant", quant_to_json(&c->outputs[i].quant));
		json_array_append_new(outs, out);
	}
	put(o, "outputs", outs);
}

static json_t *stats_obj(const struct sample_stats *s)
{
	json_t *o = must(json_object());

	put(o, "median", jnum(s->median));
	put(o, "p20", jnum(s->p20));
	put(o, "p80", jnum(s->p80));
	put(o, "min", jnum(s->min));
	put(o, "max", jnum(s->max));
	put(o, "mean", jnum(s->mean));
	put(o, "stddev", jnum(s->stddev));
	put(o, "n", json_integer(s->n));
	return o;
}

/* A fraction of the calibration, or null when there is none (the struct says so with <= 0). */
static json_t *jfraction(double v)
{
	return v > 0 && isfinite(v) ? json_real(v) : json_null();
}

static void fill_perf(json_t *o, const struct perf_result *p)
{
	put(o, "row", json_integer(p->row));
	put(o, "input_size", jstr(p->input_size));
	put(o, "cand", stats_obj(&p->cand));
	put(o, "ref", stats_obj(&p->ref));
	put(o, "has_ref", json_boolean(p->has_ref));
	put(o, "golden_ms", jnum(p->golden_ms));
	put(o, "bytes", jnum(p->bytes));
	put(o, "flops", jnum(p->flops));
	put(o, "gbps", jnum(p->gbps));
	put(o, "tflops", jnum(p->tflops));
	put(o, "correct", json_boolean(p->correct));
	put(o, "impossible", json_boolean(p->impossible));
	put(o, "message", jstr(p->message));
	put(o, "bw_fraction", jfraction(p->bw_fraction));
	put(o, "flop_fraction", jfraction(p->flop_fraction));
	if (p->ref_outputs_kept)
		put(o, "ref_outputs_kept", json_integer(p->ref_outputs_kept));
	if (p->bench_stop[0]) {
		json_t *t = must(json_object());

		put(t, "mode", JFIXED(p->bench_mode));
		put(t, "stop", JFIXED(p->bench_stop));
		put(t, "rsd", jnum(p->cand_rsd));
		put(t, "hide_latency", json_boolean(p->hide_latency));
		put(t, "ref_is_cand", json_boolean(p->ref_is_cand));
		if (p->ref_kept) {
			put(t, "ref_kept", json_true());
			put(t, "ref_age_s", jnum(p->ref_age_s));
		}
		if (p->clocks.valid) {
			const struct clock_summary *c = &p->clocks;
			json_t *k = must(json_object());

			put(k, "sm_mhz", jnum(c->sm_mhz));
			put(k, "min_sm_mhz", jnum(c->min_sm_mhz));
			put(k, "mem_mhz", jnum(c->mem_mhz));
			put(k, "max_sm_mhz", jnum(c->max_sm_mhz));
			put(k, "temp_c", jnum(c->temp_c));
			put(k, "power_w", jnum(c->power_w));
			put(k, "reasons", json_integer((json_int_t)c->reasons));
			put(k, "reasons_valid", json_boolean(c->reasons_valid));
			put(k, "readings", json_integer(c->valid));
			put(t, "clocks", k);
		}
		put(o, "timing", t);
	}
}

static void fill_compile(json_t *o, const struct compile_result *c)
{
	json_t *diags = must(json_array());

	put(o, "ok", json_boolean(c->ok));
	put(o, "cached", json_boolean(c->cached));
	put(o, "seconds", jnum(c->seconds));
	put(o, "log", jstr(c->log));
	put(o, "options", jstr(c->options));
	put(o, "arch", JFIXED(c->arch));
	for (int i = 0; i < c->ndiags; i++) {
		json_t *d = must(json_object());

		put(d, "line", json_integer(c->diags[i].line));
		put(d, "col", json_integer(c->diags[i].col));
		put(d, "severity", JFIXED(c->diags[i].severity));
		put(d, "message", jstr(c->diags[i].message));
		json_array_append_new(diags, d);
	}
	put(o, "diags", diags);
}

static void fill_summary(json_t *o, const struct run_summary *s)
{
	json_t *warnings = must(json_array());

	put(o, "verdict", json_string(verdict_name(s->verdict)));
	for (unsigned i = 0; warning_name(i); i++)
		if (s->warnings & (1u << i))
			json_array_append_new(warnings, must(json_string(warning_name(i))));
	put(o, "warnings", warnings);
	put(o, "message", jstr(s->message));
	put(o, "cases_total", json_integer(s->cases_total));
	put(o, "cases_passed", json_integer(s->cases_passed));
	put(o, "perf_unchecked", json_boolean(s->perf_unchecked));
	put(o, "speedup_golden", jnum(s->speedup_golden));
	put(o, "speedup_ref", jnum(s->speedup_ref));
	put(o, "cand_ms_sum", jnum(s->cand_ms_sum));
	put(o, "ref_ms_sum", jnum(s->ref_ms_sum));
	put(o, "golden_ms_sum", jnum(s->golden_ms_sum));
	put(o, "gpu", JFIXED(s->gpu));
	put(o, "golden_table", JFIXED(s->golden_table));
	put(o, "driver_version", json_integer(s->driver_version));
	put(o, "seconds", jnum(s->seconds));
	{
		json_t *split = must(json_object());

#define PUT_SPLIT(f, required) put(split, #f, jnum(s->split.f));
		TIME_SPLIT_LIST(PUT_SPLIT)
#undef PUT_SPLIT
		put(o, "split", split);
	}
}

static void fill_calibration(json_t *o, const struct calibration *c)
{
	put(o, "gpu_name", JFIXED(c->gpu_name));
	put(o, "gpu_uuid", JFIXED(c->gpu_uuid));
	put(o, "copy_gbps", jnum(c->copy_gbps));
	put(o, "fma_tflops", jnum(c->fma_tflops));
	put(o, "tensor_tflops", jnum(c->tensor_tflops));
	put(o, "peak_gbps", jnum(c->peak_gbps));
	put(o, "measured_at", jnum(c->measured_at));
	put(o, "kbx_version", JFIXED(c->kbx_version));
}

static char *dump(json_t *o)
{
	char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(o);
	if (!text)
		must(NULL);
	return text;
}

char *case_result_to_json(const struct case_result *c)
{
	json_t *o = must(json_object());

	fill_case(o, c);
	return dump(o);
}

char *perf_result_to_json(const struct perf_result *p)
{
	json_t *o = must(json_object());

	fill_perf(o, p);
	return dump(o);
}

char *compile_result_to_json(const struct compile_result *c)
{
	json_t *o = must(json_object());

	fill_compile(o, c);
	return dump(o);
}

char *run_summary_to_json(const struct run_summary *s)
{
	json_t *o = must(json_object());

	fill_summary(o, s);
	return dump(o);
}

char *calibration_to_json(const struct calibration *c)
{
	json_t *o = must(json_object());

	fill_calibration(o, c);
	return dump(o);
}

/* ---- the writer ---------------------------------------------------------------------------- */

static json_t *event(const char *ev)
{
	json_t *o = must(json_object());

	put(o, "ev", json_string(ev));
	return o;
}

static void emit(FILE *out, json_t *o)
{
	char *text = dump(o);

	/* One write per line, so that a reader never sees half an event followed by another's. */
	fprintf(out, "%s\n", text);
	fflush(out);
	free(text);
}

static void w_phase(void *ctx, const char *what, double limit_s)
{
	json_t *o = event("phase");

	put(o, "what", jstr(what ? what : ""));
	put(o, "limit_s", jnum(limit_s));
	emit(ctx, o);
}

static void w_compile(void *ctx, const struct compile_result *c)
{
	json_t *o = event("compile");

	fill_compile(o, c);
	emit(ctx, o);
}

static void w_case(void *ctx, const struct case_result *c)
{
	json_t *o = event("case");

	fill_case(o, c);
	emit(ctx, o);
}

static void w_perf(void *ctx, const struct perf_result *p)
{
	json_t *o = event("perf");

	fill_perf(o, p);
	emit(ctx, o);
}

static void w_log(void *ctx, const char *text)
{
	json_t *o = event("log");

	put(o, "text", jstr(text ? text : ""));
	emit(ctx, o);
}

static void w_done(void *ctx, const struct run_summary *s)
{
	json_t *o = event("done");

	fill_summary(o, s);
	emit(ctx, o);
}

void events_json_calibration(FILE *out, const struct calibration *c)
{
	json_t *o = event("calibration");

	fill_calibration(o, c);
	emit(out, o);
}

struct run_events events_json_writer(FILE *out)
{
	return (struct run_events){
		.ctx = out,
		.phase = w_phase,
		.compile = w_compile,
		.case_done = w_case,
		.perf_row = w_perf,
		.log = w_log,
		.done = w_done,
	};
}

/* ---- decoding ------------------------------------------------------------------------------ */

/* Every field the writer writes is required; the first one missing or of the wrong type is
 * remembered for the error message. */
struct dec {
	const char *bad;
};

static const json_t *field(struct dec *d, const json_t *o, const char *key)
{
	const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;

	if (!v && !d->bad)
		d->bad = key;
	return v;
}

static void fail(struct dec *d, const char *key)
{
	if (!d->bad)
		d->bad = key;
}

static double value_num(struct dec *d, const json_t *v, const char *key)
{
	const char *s;

	if (json_is_number(v))
		return json_number_value(v);
	if (json_is_string(v)) {
		s = json_string_value(v);
		if (strcmp(s, "nan") == 0)
			return NAN;
		if (strcmp(s, "inf") == 0)
			return INFINITY;
		if (strcmp(s, "-inf") == 0)
			return -INFINITY;
	}
	fail(d, key);
	return 0;
}

static double get_num(struct dec *d, const json_t *o, const char *key)
{
	const json_t *v = field(d, o, key);

	return v ? value_num(d, v, key) : 0;
}

static long long get_ll(struct dec *d, const json_t *o, const char *key, long long lo, long long hi)
{
	long long x;

	if (jsonget_int(o, key, &x) == JSONGET_FOUND && x >= lo && x <= hi)
		return x;
	fail(d, key);
	return 0;
}

static int get_int(struct dec *d, const json_t *o, const char *key)
{
	return (int)get_ll(d, o, key, -2147483647LL - 1, 2147483647LL);
}

static size_t get_size(struct dec *d, const json_t *o, const char *key)
{
	return (size_t)get_ll(d, o, key, 0, LLONG_MAX);
}

/* An optional count: def when absent, else as get_size. */
static size_t get_opt_size(struct dec *d, const json_t *o, const char *key, size_t def)
{
	return json_object_get(o, key) ? get_size(d, o, key) : def;
}

static int get_bool(struct dec *d, const json_t *o, const char *key)
{
	int b = 0;

	if (jsonget_bool(o, key, &b) != JSONGET_FOUND)
		fail(d, key);
	return b;
}

/* A string, or null; *s and *len set only when a string. */
static int get_str(struct dec *d, const json_t *o, const char *key, const char **s, size_t *len)
{
	enum jsonget_found f = jsonget_str(o, key, s, len);

	if (f == JSONGET_ABSENT || f == JSONGET_WRONG)
		fail(d, key);
	return f == JSONGET_FOUND;
}

/* NULL for JSON null. */
static char *get_strdup(struct dec *d, const json_t *o, const char *key)
{
	const char *s;
	size_t len;

	return get_str(d, o, key, &s, &len) ? xstrndup(s, len) : NULL;
}

/* Into a fixed buffer, cut at a character boundary when too long. */
static void get_fixed(struct dec *d, const json_t *o, const char *key, char *buf, size_t size)
{
	const char *s;
	size_t len;

	buf[0] = '\0';
	if (!get_str(d, o, key, &s, &len))
		return;
	if (len >= size) {
		len = size - 1;
		while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
			len--;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
}

static const json_t *get_array(struct dec *d, const json_t *o, const char *key, size_t max)
{
	const json_t *v = field(d, o, key);

	if (v && (!json_is_array(v) || json_array_size(v) > max)) {
		fail(d, key);
		return NULL;
	}
	return v;
}

static enum verdict get_verdict(struct dec *d, const json_t *o, const char *key)
{
	const json_t *v = field(d, o, key);
	enum verdict vd = V_ERROR;

	if (v && (!json_is_string(v) || !verdict_parse(json_string_value(v), &vd)))
		fail(d, key);
	return vd;
}

static void read_cmp(struct dec *d, const json_t *o, struct cmp_result *c)
{
	const json_t *worst, *tiles;
	size_t i, nt;

	memset(c, 0, sizeof(*c));
	c->n = get_size(d, o, "n");
	c->mismatches = get_size(d, o, "mismatches");
	c->nan_mismatches = get_size(d, o, "nan_mismatches");
	c->inf_mismatches = get_size(d, o, "inf_mismatches");
	/* Optional: results written before these counts have none; their pairs read as finite, so
	 * that no note is made up for them. */
	c->cand_nonfinite = get_opt_size(d, o, "cand_nonfinite", 0);
	c->ref_nonfinite = get_opt_size(d, o, "ref_nonfinite", 0);
	c->finite = get_opt_size(d, o, "finite", c->n);
	c->max_abs = get_num(d, o, "max_abs");
	c->max_rel = get_num(d, o, "max_rel");
	c->max_ulp = get_num(d, o, "max_ulp");
	c->cosine = get_num(d, o, "cosine");
	c->l1_relative = get_num(d, o, "l1_relative");
	c->rmse = get_num(d, o, "rmse");
	c->rtol = get_num(d, o, "rtol");
	c->atol = get_num(d, o, "atol");
	c->pass = get_bool(d, o, "pass");
	worst = get_array(d, o, "worst", CMP_WORST);
	for (i = 0; worst && i < json_array_size(worst); i++) {
		const json_t *w = json_array_get(worst, i);
		const json_t *coord = get_array(d, w, "coord", CMP_MAX_DIMS);
		struct cmp_elem *e = &c->worst[i];

		if (!json_is_object(w))
			fail(d, "worst");
		for (size_t k = 0; coord && k < json_array_size(coord); k++) {
			const json_t *x = json_array_get(coord, k);
			if (!json_is_integer(x))
				fail(d, "coord");
			e->coord[k] = json_integer_value(x);
		}
		e->ndim = coord ? (int)json_array_size(coord) : 0;
		e->component = get_int(d, w, "component");
		e->cand = get_num(d, w, "cand");
		e->ref = get_num(d, w, "ref");
		e->abs_err = get_num(d, w, "abs_err");
		e->rel_err = get_num(d, w, "rel_err");
		e->ulp = get_num(d, w, "ulp");
		e->score = get_num(d, w, "score");
	}
	c->nworst = worst ? (int)json_array_size(worst) : 0;
	c->tile_rows = (int)get_ll(d, o, "tile_rows", 0, CMP_TILES);
	c->tile_cols = (int)get_ll(d, o, "tile_cols", 0, CMP_TILES);
	c->tile_h = get_ll(d, o, "tile_h", 0, LLONG_MAX);
	c->tile_w = get_ll(d, o, "tile_w", 0, LLONG_MAX);
	nt = (size_t)c->tile_rows * (size_t)c->tile_cols;
	tiles = get_array(d, o, "tiles", CMP_TILES * CMP_TILES);
	if (tiles && json_array_size(tiles) != nt)
		fail(d, "tiles");
	for (i = 0; tiles && i < json_array_size(tiles) && i < nt; i++)
		c->tiles[i] = (float)value_num(d, json_array_get(tiles, i), "tiles");
	{
		/* Optional: results written before the histogram existed have none (all zeros). */
		const json_t *h = json_object_get(o, "hist");

		if (h && (!json_is_array(h) || json_array_size(h) > CMP_HIST))
			fail(d, "hist");

		if (h && json_array_size(h) != CMP_HIST)
			fail(d, "hist");
		for (i = 0; h && i < json_array_size(h) && i < CMP_HIST; i++) {
			const json_t *v = json_array_get(h, i);

			if (!json_is_integer(v) || json_integer_value(v) < 0)
				fail(d, "hist");
			else
				c->hist[i] = (unsigned long long)json_integer_value(v);
		}
	}
}

static void read_case(struct dec *d, const json_t *o, struct case_result *c)
{
	const json_t *outs;

	memset(c, 0, sizeof(*c));
	get_fixed(d, o, "name", c->name, sizeof(c->name));
	c->index = get_int(d, o, "index");
	c->verdict = get_verdict(d, o, "verdict");
	c->message = get_strdup(d, o, "message");
	get_fixed(d, o, "oob_arg", c->oob_arg, sizeof(c->oob_arg));
	get_fixed(d, o, "modified_arg", c->modified_arg, sizeof(c->modified_arg));
	c->nondeterministic = get_bool(d, o, "nondeterministic");
	get_fixed(d, o, "first_wrong_stage", c->first_wrong_stage, sizeof(c->first_wrong_stage));
	/* optional: only a wrong stage has one, and writers from before it have none */
	if (json_object_get(o, "stage_diagnosis"))
		get_fixed(d, o, "stage_diagnosis", c->stage_diagnosis, sizeof(c->stage_diagnosis));
	/* optional too: the stage's comparison, with its worst elements */
	if (json_object_get(o, "stage")) {
		const json_t *st = json_object_get(o, "stage");

		if (!json_is_object(st)) {
			fail(d, "stage");
		} else {
			c->stage = xcalloc(1, sizeof(*c->stage));
			get_fixed(d, st, "arg", c->stage->arg, sizeof(c->stage->arg));
			read_cmp(d, st, &c->stage->cmp);
		}
	}
	c->seconds = get_num(d, o, "seconds");
	outs = get_array(d, o, "outputs", 4096);
	if (outs && json_array_size(outs) > 0) {
		c->noutputs = (int)json_array_size(outs);
		c->outputs = xcalloc((size_t)c->noutputs, sizeof(*c->outputs));
		for (int i = 0; i < c->noutputs; i++) {
			const json_t *out = json_array_get(outs, (size_t)i);

			if (!json_is_object(out))
				fail(d, "outputs");
			get_fixed(d, out, "arg", c->outputs[i].arg, sizeof(c->outputs[i].arg));
			read_cmp(d, out, &c->outputs[i].cmp);
			if (json_object_get(out, "quant") &&
			    quant_from_json(json_object_get(out, "quant"), &c->outputs[i].quant))
				fail(d, "quant");
		}
	}
}

static void read_stats(struct dec *d, const json_t *o, const char *key, struct sample_stats *s)
{
	const json_t *v = field(d, o, key);

	memset(s, 0, sizeof(*s));
	if (v && !json_is_object(v))
		fail(d, key);
	if (!json_is_object(v))
		return;
	s->median = get_num(d, v, "median");
	s->p20 = get_num(d, v, "p20");
	s->p80 = get_num(d, v, "p80");
	s->min = get_num(d, v, "min");
	s->max = get_num(d, v, "max");
	s->mean = get_num(d, v, "mean");
	s->stddev = get_num(d, v, "stddev");
	s->n = get_int(d, v, "n");
}

/* Optional (perf rows written before calibrations existed have none): -1 when absent or null,
 * else a non-negative finite number. */
static double get_fraction(struct dec *d, const json_t *o, const char *key)
{
	enum jsonget_found f;
	double x = -1;

	f = jsonget_num(o, key, &x);
	if (f == JSONGET_ABSENT || f == JSONGET_NULL)
		return -1;
	if (f == JSONGET_WRONG || !(x >= 0) || !isfinite(x)) {
		fail(d, key);
		return -1;
	}
	return x;
}

static void read_perf(struct dec *d, const json_t *o, struct perf_result *p)
{
	const json_t *t, *k;

	memset(p, 0, sizeof(*p));
	p->row = get_int(d, o, "row");
	p->input_size = get_strdup(d, o, "input_size");
	read_stats(d, o, "cand", &p->cand);
	read_stats(d, o, "ref", &p->ref);
	p->has_ref = get_bool(d, o, "has_ref");
	p->golden_ms = get_num(d, o, "golden_ms");
	p->bytes = get_num(d, o, "bytes");
	p->flops = get_num(d, o, "flops");
	p->gbps = get_num(d, o, "gbps");
	p->tflops = get_num(d, o, "tflops");
	p->correct = get_bool(d, o, "correct");
	/* optional: writers from before the timing ceilings */
	p->impossible = json_is_true(json_object_get(o, "impossible"));
	p->message = get_strdup(d, o, "message");
	p->bw_fraction = get_fraction(d, o, "bw_fraction");
	p->flop_fraction = get_fraction(d, o, "flop_fraction");
	/* optional: written only when some were */
	if (json_object_get(o, "ref_outputs_kept"))
		p->ref_outputs_kept = get_int(d, o, "ref_outputs_kept");
	/* Optional: rows from before timing modes existed, and rows never timed, have none. */
	t = json_object_get(o, "timing");
	if (t && !json_is_null(t)) {
		if (!json_is_object(t)) {
			fail(d, "timing");
			return;
		}
		get_fixed(d, t, "mode", p->bench_mode, sizeof(p->bench_mode));
		get_fixed(d, t, "stop", p->bench_stop, sizeof(p->bench_stop));
		p->cand_rsd = get_num(d, t, "rsd");
		p->hide_latency = get_bool(d, t, "hide_latency");
		p->ref_is_cand = get_bool(d, t, "ref_is_cand");
		/* optional: writers from before kept reference timings */
		p->ref_kept = json_is_true(json_object_get(t, "ref_kept"));
		if (p->ref_kept)
			p->ref_age_s = get_num(d, t, "ref_age_s");
		k = json_object_get(t, "clocks");
		if (k && !json_is_null(k)) {
			struct clock_summary *c = &p->clocks;

			if (!json_is_object(k)) {
				fail(d, "clocks");
				return;
			}
			c->sm_mhz = get_num(d, k, "sm_mhz");
			c->min_sm_mhz = get_num(d, k, "min_sm_mhz");
			c->mem_mhz = get_num(d, k, "mem_mhz");
			c->max_sm_mhz = get_num(d, k, "max_sm_mhz");
			c->temp_c = get_num(d, k, "temp_c");
			c->power_w = get_num(d, k, "power_w");
			c->reasons = (unsigned long long)get_ll(d, k, "reasons", 0, LLONG_MAX);
			c->reasons_valid = get_bool(d, k, "reasons_valid");
			c->valid = get_int(d, k, "readings");
			if (c->valid < 1 || c->valid > 2)
				fail(d, "readings");
		}
	}
}

static void read_compile(struct dec *d, const json_t *o, struct compile_result *c)
{
	const json_t *diags;

	memset(c, 0, sizeof(*c));
	c->ok = get_bool(d, o, "ok");
	c->cached = get_bool(d, o, "cached");
	c->seconds = get_num(d, o, "seconds");
	c->log = get_strdup(d, o, "log");
	c->options = get_strdup(d, o, "options");
	get_fixed(d, o, "arch", c->arch, sizeof(c->arch));
	diags = get_array(d, o, "diags", 1 << 20);
	if (diags && json_array_size(diags) > 0) {
		c->ndiags = (int)json_array_size(diags);
		c->diags = xcalloc((size_t)c->ndiags, sizeof(*c->diags));
		for (int i = 0; i < c->ndiags; i++) {
			const json_t *g = json_array_get(diags, (size_t)i);
			struct compile_diag *dg = &c->diags[i];

			if (!json_is_object(g))
				fail(d, "diags");
			dg->line = get_int(d, g, "line");
			dg->col = get_int(d, g, "col");
			get_fixed(d, g, "severity", dg->severity, sizeof(dg->severity));
			dg->message = get_strdup(d, g, "message");
		}
	}
}

static void read_summary(struct dec *d, const json_t *o, struct run_summary *s)
{
	const json_t *warnings, *split;

	memset(s, 0, sizeof(*s));
	s->verdict = get_verdict(d, o, "verdict");
	warnings = get_array(d, o, "warnings", 1024);
	for (size_t i = 0; warnings && i < json_array_size(warnings); i++) {
		const json_t *w = json_array_get(warnings, i);
		unsigned bit;

		/* A name this build does not know is dropped, not an error: the history may hold
		 * summaries written by a newer kbx. */
		if (!json_is_string(w))
			fail(d, "warnings");
		else if (warning_parse(json_string_value(w), &bit))
			s->warnings |= 1u << bit;
	}
	s->message = get_strdup(d, o, "message");
	s->cases_total = get_int(d, o, "cases_total");
	s->cases_passed = get_int(d, o, "cases_passed");
	/* optional: summaries from before it read as checked */
	s->perf_unchecked = json_object_get(o, "perf_unchecked") ? get_bool(d, o, "perf_unchecked") : 0;
	s->speedup_golden = get_num(d, o, "speedup_golden");
	s->speedup_ref = get_num(d, o, "speedup_ref");
	s->cand_ms_sum = get_num(d, o, "cand_ms_sum");
	s->ref_ms_sum = get_num(d, o, "ref_ms_sum");
	s->golden_ms_sum = get_num(d, o, "golden_ms_sum");
	get_fixed(d, o, "gpu", s->gpu, sizeof(s->gpu));
	get_fixed(d, o, "golden_table", s->golden_table, sizeof(s->golden_table));
	s->driver_version = get_int(d, o, "driver_version");
	s->seconds = get_num(d, o, "seconds");
	/* Optional: summaries from before the split existed have none. */
	split = json_object_get(o, "split");
	if (split && !json_is_null(split)) {
		if (!json_is_object(split)) {
			fail(d, "split");
			return;
		}
#define GET_SPLIT(f, required) \
	if ((required) || json_object_get(split, #f)) \
		s->split.f = get_num(d, split, #f);
		TIME_SPLIT_LIST(GET_SPLIT)
#undef GET_SPLIT
	}
}

static void read_calibration(struct dec *d, const json_t *o, struct calibration *c)
{
	memset(c, 0, sizeof(*c));
	get_fixed(d, o, "gpu_name", c->gpu_name, sizeof(c->gpu_name));
	get_fixed(d, o, "gpu_uuid", c->gpu_uuid, sizeof(c->gpu_uuid));
	c->copy_gbps = get_num(d, o, "copy_gbps");
	c->fma_tflops = get_num(d, o, "fma_tflops");
	c->tensor_tflops = get_num(d, o, "tensor_tflops");
	c->peak_gbps = get_num(d, o, "peak_gbps");
	c->measured_at = get_num(d, o, "measured_at");
	get_fixed(d, o, "kbx_version", c->kbx_version, sizeof(c->kbx_version));
	if (!c->gpu_name[0])
		fail(d, "gpu_name");
}

/* A calibration owns no memory; this only clears it, for FROM_JSON's failure path. */
static void calibration_clear(struct calibration *c)
{
	memset(c, 0, sizeof(*c));
}

static enum kbx_status load_object(const char *text, const char *what, json_t **out)
{
	json_error_t err;
	json_t *o;

	*out = NULL;
	if (!text)
		return kbx_error(KBX_EPARSE, "no text for %s", what);
	o = json_loads(text, 0, &err);
	if (!o)
		return kbx_error(KBX_EPARSE, "malformed %s at column %d: %s", what, err.column, err.text);
	if (!json_is_object(o)) {
		json_decref(o);
		return kbx_error(KBX_EPARSE, "malformed %s: not a JSON object", what);
	}
	*out = o;
	return KBX_OK;
}

#define FROM_JSON(fname, type, reader, freer, what) \
	enum kbx_status fname(const char *text, type *out) \
	{ \
		struct dec d = { NULL }; \
		enum kbx_status st; \
		json_t *o; \
		memset(out, 0, sizeof(*out)); \
		st = load_object(text, what, &o); \
		if (st != KBX_OK) \
			return st; \
		reader(&d, o, out); \
		json_decref(o); \
		if (d.bad) { \
			freer(out); \
			return kbx_error(KBX_EPARSE, "malformed %s: bad or missing field '%s'", what, d.bad); \
		} \
		return KBX_OK; \
	}

FROM_JSON(case_result_from_json, struct case_result, read_case, case_result_free, "case result")
FROM_JSON(perf_result_from_json, struct perf_result, read_perf, perf_result_free, "perf result")
FROM_JSON(compile_result_from_json, struct compile_result, read_compile, compile_result_free, "compile result")
FROM_JSON(run_summary_from_json, struct run_summary, read_summary, run_summary_free, "run summary")
FROM_JSON(calibration_from_json, struct calibration, read_calibration, calibration_clear, "calibration")

enum kbx_status events_json_dispatch(const char *line, const struct run_events *ev)
{
	return events_json_dispatch_ex(line, ev, NULL, NULL);
}

enum kbx_status events_json_dispatch_ex(const char *line, const struct run_events *ev, calibration_fn on_calibration,
					void *calibration_ctx)
{
	struct dec d = { NULL };
	enum kbx_status st;
	const json_t *evv;
	const char *name;
	json_t *o;

	st = load_object(line, "worker event", &o);
	if (st != KBX_OK)
		return st;
	evv = json_object_get(o, "ev");
	if (!json_is_string(evv)) {
		json_decref(o);
		return kbx_error(KBX_EPARSE, "malformed worker event: no \"ev\" name");
	}
	name = json_string_value(evv);

	if (strcmp(name, "phase") == 0) {
		char *what = get_strdup(&d, o, "what");
		double limit = get_num(&d, o, "limit_s");

		if (!what)
			fail(&d, "what");
		if (!d.bad && ev->phase)
			ev->phase(ev->ctx, what, limit);
		free(what);
	} else if (strcmp(name, "log") == 0) {
		char *text = get_strdup(&d, o, "text");

		if (!text)
			fail(&d, "text");
		if (!d.bad && ev->log)
			ev->log(ev->ctx, text);
		free(text);
	} else if (strcmp(name, "compile") == 0) {
		struct compile_result c;

		read_compile(&d, o, &c);
		if (!d.bad && ev->compile)
			ev->compile(ev->ctx, &c);
		compile_result_free(&c);
	} else if (strcmp(name, "case") == 0) {
		struct case_result c;

		read_case(&d, o, &c);
		if (!d.bad && ev->case_done)
			ev->case_done(ev->ctx, &c);
		case_result_free(&c);
	} else if (strcmp(name, "perf") == 0) {
		struct perf_result p;

		read_perf(&d, o, &p);
		if (!d.bad && ev->perf_row)
			ev->perf_row(ev->ctx, &p);
		perf_result_free(&p);
	} else if (strcmp(name, "done") == 0) {
		struct run_summary s;

		read_summary(&d, o, &s);
		if (!d.bad && ev->done)
			ev->done(ev->ctx, &s);
		run_summary_free(&s);
	} else if (strcmp(name, "calibration") == 0) {
		struct calibration c;

		read_calibration(&d, o, &c);
		if (!d.bad && on_calibration)
			on_calibration(calibration_ctx, &c);
	} else {
		st = kbx_error(KBX_EPARSE, "unknown worker event '%.64s'", name);
		json_decref(o);
		return st;
	}
	if (d.bad)
		st = kbx_error(KBX_EPARSE, "malformed '%s' worker event: bad or missing field '%s'", name, d.bad);
	json_decref(o);
	return st;
}

/* ---- tee ----------------------------------------------------------------------------------- */

#define TEE_EACH(ctx, cb, ...) \
	do { \
		const struct run_events_tee *t_ = (ctx); \
		for (int i_ = 0; i_ < 4; i_++) \
			if (t_->to[i_] && t_->to[i_]->cb) \
				t_->to[i_]->cb(t_->to[i_]->ctx, __VA_ARGS__); \
	} while (0)

static void tee_phase(void *ctx, const char *what, double limit_s)
{
	TEE_EACH(ctx, phase, what, limit_s);
}

static void tee_compile(void *ctx, const struct compile_result *c)
{
	TEE_EACH(ctx, compile, c);
}

static void tee_case(void *ctx, const struct case_result *c)
{
	TEE_EACH(ctx, case_done, c);
}

static void tee_perf(void *ctx, const struct perf_result *p)
{
	TEE_EACH(ctx, perf_row, p);
}

static void tee_log(void *ctx, const char *text)
{
	TEE_EACH(ctx, log, text);
}

static void tee_done(void *ctx, const struct run_summary *s)
{
	TEE_EACH(ctx, done, s);
}

struct run_events events_tee(struct run_events_tee *tee)
{
	return (struct run_events){
		.ctx = tee,
		.phase = tee_phase,
		.compile = tee_compile,
		.case_done = tee_case,
		.perf_row = tee_perf,
		.log = tee_log,
		.done = tee_done,
	};
}

/* ---- typed events -------------------------------------------------------------------------- */

/* A copy of s (NULL: "") with invalid UTF-8 replaced by U+FFFD, as jstrn writes it. */
static char *clean_dup(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = strlen((const char *)p), i = 0, n;
	struct sbuf sb = SBUF_INIT;

	while (i < len && (n = utf8_seq(p + i, len - i)) != 0)
		i += n;
	if (i == len)
		return xstrdup((const char *)p);
	sbuf_add(&sb, (const char *)p, i);
	while (i < len) {
		n = utf8_seq(p + i, len - i);
		if (n) {
			sbuf_add(&sb, (const char *)p + i, n);
			i += n;
		} else {
			sbuf_adds(&sb, "\xEF\xBF\xBD");
			i++;
		}
	}
	return sbuf_detach(&sb);
}

static struct run_event *event_new(enum run_event_kind kind)
{
	struct run_event *e = xcalloc(1, sizeof(*e));

	e->kind = kind;
	return e;
}

struct run_event *run_event_new_phase(const char *what, double limit_s)
{
	struct run_event *e = event_new(RUN_EVENT_PHASE);

	e->text = clean_dup(what);
	e->limit_s = limit_s;
	return e;
}

struct run_event *run_event_new_compile(const struct compile_result *c)
{
	struct run_event *e = event_new(RUN_EVENT_COMPILE);

	compile_result_copy(&e->compile, c);
	return e;
}

struct run_event *run_event_new_case(const struct case_result *c)
{
	struct run_event *e = event_new(RUN_EVENT_CASE);

	case_result_copy(&e->kase, c);
	return e;
}

struct run_event *run_event_new_perf(const struct perf_result *p)
{
	struct run_event *e = event_new(RUN_EVENT_PERF);

	perf_result_copy(&e->perf, p);
	return e;
}

struct run_event *run_event_new_log(const char *text)
{
	struct run_event *e = event_new(RUN_EVENT_LOG);

	e->text = clean_dup(text);
	return e;
}

struct run_event *run_event_new_done(const struct run_summary *s)
{
	struct run_event *e = event_new(RUN_EVENT_DONE);

	run_summary_copy(&e->summary, s);
	if (e->summary.message) {
		char *m = clean_dup(e->summary.message);

		free(e->summary.message);
		e->summary.message = m;
	}
	return e;
}

void run_event_dispatch(const struct run_event *e, const struct run_events *to)
{
	if (!e || !to)
		return;
	switch (e->kind) {
	case RUN_EVENT_PHASE:
		if (to->phase)
			to->phase(to->ctx, e->text, e->limit_s);
		break;
	case RUN_EVENT_COMPILE:
		if (to->compile)
			to->compile(to->ctx, &e->compile);
		break;
	case RUN_EVENT_CASE:
		if (to->case_done)
			to->case_done(to->ctx, &e->kase);
		break;
	case RUN_EVENT_PERF:
		if (to->perf_row)
			to->perf_row(to->ctx, &e->perf);
		break;
	case RUN_EVENT_LOG:
		if (to->log)
			to->log(to->ctx, e->text);
		break;
	case RUN_EVENT_DONE:
		if (to->done)
			to->done(to->ctx, &e->summary);
		break;
	}
}

void run_event_free(struct run_event *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case RUN_EVENT_PHASE:
	case RUN_EVENT_LOG:
		break;
	case RUN_EVENT_COMPILE:
		compile_result_free(&e->compile);
		break;
	case RUN_EVENT_CASE:
		case_result_free(&e->kase);
		break;
	case RUN_EVENT_PERF:
		perf_result_free(&e->perf);
		break;
	case RUN_EVENT_DONE:
		run_summary_free(&e->summary);
		break;
	}
	free(e->text);
	free(e);
}
