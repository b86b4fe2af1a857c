/*
 * quantjson.c - struct quant_result to and from JSON (quant.h).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "quant.h"

static int set(json_t *o, const char *key, json_t *v)
{
	return !v || json_object_set_new(o, key, v);
}

static json_t *floats(const float *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; a && i < n; i++)
		if (json_array_append_new(a, json_real(isfinite(v[i]) ? v[i] : 0))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *profile_json(const struct quant_profile *p)
{
	json_t *o = json_object(), *worst = json_array();
	int bad = !o || !worst;

	for (int i = 0; !bad && i < p->nworst && i < QUANT_WORST; i++)
		bad |= json_array_append_new(worst, json_pack("{s:I, s:f, s:f}", "index", (json_int_t)p->worst[i], "mean",
							       p->worst_mean[i], "max", p->worst_max[i])) != 0;
	if (!bad)
		bad = set(o, "name", json_string(p->name)) || set(o, "n", json_integer(p->n)) ||
		      set(o, "cell_max", floats(p->cell_max, p->ncells)) ||
		      set(o, "cell_mean", floats(p->cell_mean, p->ncells)) || set(o, "worst", worst) ||
		      set(o, "median_mean", json_real(p->median_mean)) || set(o, "spread", json_real(p->spread)) ||
		      set(o, "within", json_real(p->within));
	else
		json_decref(worst);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *quant_to_json(const struct quant_result *q)
{
	json_t *o = json_object(), *hist = json_array();
	int bad = !o || !hist;
	size_t evidence_len;

	for (int i = 0; !bad && i < QB_COUNT; i++)
		bad |= json_array_append_new(hist, json_integer((json_int_t)q->hist[i])) != 0;
	if (!bad)
		bad = set(o, "n", json_integer((json_int_t)q->n)) || set(o, "skipped", json_integer((json_int_t)q->skipped)) ||
		      set(o, "hist", hist) || set(o, "max_steps", json_real(q->max_steps)) ||
		      set(o, "mean_steps", json_real(q->mean_steps)) || set(o, "noise", json_real(q->noise)) ||
		      set(o, "rows", profile_json(&q->rows)) || set(o, "cols", profile_json(&q->cols)) ||
		      set(o, "diagnosis", json_string(q->diagnosis)) ||
		      set(o, "conclusion", json_string(quant_conclusion(q->diagnosis, &evidence_len)));
	else
		json_decref(hist);
	if (!bad && q->has_saturation)
		bad = set(o, "saturation", json_pack("{s:f, s:f, s:I, s:I, s:I, s:I}", "qmin", q->qmin, "qmax", q->qmax,
						      "ref_at_end", (json_int_t)q->ref_at_end, "cand_at_end",
						      (json_int_t)q->cand_at_end, "cand_beyond", (json_int_t)q->cand_beyond,
						      "cand_missed", (json_int_t)q->cand_missed));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- decoding ---- */

static enum kbx_status bad(const char *key)
{
	return kbx_error(KBX_EPARSE, "bad or missing field '%s' in a quantization lens", key);
}

static int num(const json_t *o, const char *key, double *v)
{
	const json_t *x = json_object_get(o, key);

	if (!json_is_number(x))
		return 0;
	*v = json_number_value(x);
	return isfinite(*v);
}

static int count(const json_t *o, const char *key, unsigned long long *v)
{
	const json_t *x = json_object_get(o, key);

	if (!json_is_integer(x) || json_integer_value(x) < 0)
		return 0;
	*v = (unsigned long long)json_integer_value(x);
	return 1;
}

static int text(const json_t *o, const char *key, char *buf, size_t size)
{
	const json_t *x = json_object_get(o, key);

	if (!json_is_string(x) || json_string_length(x) >= size)
		return 0;
	snprintf(buf, size, "%s", json_string_value(x));
	return 1;
}

static enum kbx_status read_profile(const json_t *o, const char *key, struct quant_profile *p)
{
	const json_t *mx, *mn, *worst;
	unsigned long long n;

	if (!json_is_object(o) || !text(o, "name", p->name, sizeof(p->name)) || !count(o, "n", &n) || n > 0x7fffffff ||
	    !num(o, "median_mean", &p->median_mean) || !num(o, "spread", &p->spread) || !num(o, "within", &p->within))
		return bad(key);
	p->n = (int)n;
	mx = json_object_get(o, "cell_max");
	mn = json_object_get(o, "cell_mean");
	worst = json_object_get(o, "worst");
	if (!json_is_array(mx) || !json_is_array(mn) || json_array_size(mx) != json_array_size(mn) ||
	    json_array_size(mx) > QUANT_PROFILE_CELLS || !json_is_array(worst) || json_array_size(worst) > QUANT_WORST)
		return bad(key);
	p->ncells = (int)json_array_size(mx);
	for (int i = 0; i < p->ncells; i++) {
		const json_t *a = json_array_get(mx, (size_t)i), *b = json_array_get(mn, (size_t)i);

		if (!json_is_number(a) || !json_is_number(b))
			return bad(key);
		p->cell_max[i] = (float)json_number_value(a);
		p->cell_mean[i] = (float)json_number_value(b);
	}
	p->nworst = (int)json_array_size(worst);
	for (int i = 0; i < p->nworst; i++) {
		const json_t *w = json_array_get(worst, (size_t)i), *idx = json_object_get(w, "index");

		if (!json_is_integer(idx) || !num(w, "mean", &p->worst_mean[i]) || !num(w, "max", &p->worst_max[i]))
			return bad(key);
		p->worst[i] = (long long)json_integer_value(idx);
	}
	return KBX_OK;
}

enum kbx_status quant_from_json(const json_t *o, struct quant_result *out)
{
	const json_t *hist, *sat;
	enum kbx_status st;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(o))
		return bad("quant");
	if (!count(o, "n", &out->n))
		return bad("n");
	if (!count(o, "skipped", &out->skipped))
		return bad("skipped");
	hist = json_object_get(o, "hist");
	if (!json_is_array(hist) || json_array_size(hist) != QB_COUNT)
		return bad("hist");
	for (int i = 0; i < QB_COUNT; i++) {
		const json_t *h = json_array_get(hist, (size_t)i);

		if (!json_is_integer(h) || json_integer_value(h) < 0)
			return bad("hist");
		out->hist[i] = (unsigned long long)json_integer_value(h);
	}
	if (!num(o, "max_steps", &out->max_steps))
		return bad("max_steps");
	if (!num(o, "mean_steps", &out->mean_steps))
		return bad("mean_steps");
	if (!num(o, "noise", &out->noise))
		return bad("noise");
	if ((st = read_profile(json_object_get(o, "rows"), "rows", &out->rows)) ||
	    (st = read_profile(json_object_get(o, "cols"), "cols", &out->cols)))
		return st;
	if (!text(o, "diagnosis", out->diagnosis, sizeof(out->diagnosis)))
		return bad("diagnosis");
	sat = json_object_get(o, "saturation");
	if (sat) {
		if (!num(sat, "qmin", &out->qmin) || !num(sat, "qmax", &out->qmax) ||
		    !count(sat, "ref_at_end", &out->ref_at_end) || !count(sat, "cand_at_end", &out->cand_at_end) ||
		    !count(sat, "cand_beyond", &out->cand_beyond) || !count(sat, "cand_missed", &out->cand_missed))
			return bad("saturation");
		out->has_saturation = 1;
	}
	out->valid = 1;
	return KBX_OK;
}
