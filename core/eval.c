/*
 * eval.c - batch evaluation: items, sharding, progress, scheduling, reports (see eval.h).
 */
#include "eval.h"

#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonget.h"
#include "lang.h"
#include "result.h"
#include "util.h"

/* ---- items ---------------------------------------------------------------------------------- */

/* "Activation/gelu.py", "gelu.cu", "Activation__gelu" -> a task of the catalogue, or NULL. */
static const struct task *resolve(const struct catalogue *cat, const char *hint)
{
	char *s = xstrdup(hint), *dot, *sep;
	const struct task *t;

	dot = strrchr(s, '.');
	if (dot && !strchr(dot, '/'))
		*dot = '\0';
	sep = strstr(s, "__");
	if (sep) {
		sep[0] = '/';
		memmove(sep + 1, sep + 2, strlen(sep + 2) + 1);
	}
	t = catalogue_find(cat, s);
	if (!t) {
		/* "Category/name" as the last two components of a longer path, then the name alone */
		char *last = strrchr(s, '/');

		if (last) {
			char *prev = last;

			while (prev > s && prev[-1] != '/')
				prev--;
			if (prev > s)
				t = catalogue_find(cat, prev);
			if (!t)
				t = catalogue_find(cat, last + 1);
		}
	}
	free(s);
	return t;
}

/* The item's source as it came (len bytes), checked as every candidate is (lang.h): a refused
 * one keeps the reason and an empty source, never its bytes. */
static void add_item(struct eval_item **items, int *n, size_t *cap, const struct catalogue *cat, char *id,
		     const char *hint, char *source, size_t len, char *source_name)
{
	struct eval_item *it;
	const struct task *t = resolve(cat, hint);

	XGROW(*items, (size_t)*n + 1, *cap);
	it = &(*items)[(*n)++];
	memset(it, 0, sizeof(*it));
	it->id = id;
	it->task_hint = xstrdup(hint);
	it->task_id = t ? xstrdup(t->id) : NULL;
	it->source = source;
	it->source_name = source_name;
	if (lang_check_source(source_name, source, len) != KBX_OK) {
		it->refused = xstrdup(kbx_last_error());
		kbx_clear_error();
		free(source);
		it->source = source = xstrdup("");
	}
	it->python = lang_detect(source_name, source) == LANG_PYTHON;
	sha256_hex(source, strlen(source), it->sha);
}

static enum kbx_status load_jsonl(const char *path, const struct catalogue *cat, struct eval_item **items, int *n)
{
	char *text, *p, *line;
	size_t len, cap = 0;
	int lineno = 0;
	enum kbx_status st = read_file(path, &text, &len);

	if (st)
		return st;
	for (p = text; p && *p; ) {
		char *nl = strchr(p, '\n');
		json_t *o;
		json_error_t err;
		const char *file, *predict;
		size_t plen;

		line = p;
		if (nl)
			*nl = '\0';
		p = nl ? nl + 1 : NULL;
		lineno++;
		while (*line == ' ' || *line == '\t' || *line == '\r')
			line++;
		if (!*line)
			continue;
		/* a NUL in "predict" is the item's fault, not the file's: the item is refused */
		o = json_loads(line, JSON_ALLOW_NUL, &err);
		if (!o || !json_is_object(o)) {
			st = kbx_error(KBX_EPARSE, "'%s' line %d: not a JSON object (%s)", path, lineno,
				       o ? "another JSON value" : err.text);
			json_decref(o);
			break;
		}
		if (jsonget_str(o, "file", &file, NULL) != JSONGET_FOUND ||
		    jsonget_str(o, "predict", &predict, &plen) != JSONGET_FOUND) {
			st = kbx_error(KBX_EPARSE, "'%s' line %d: expected string fields \"file\" and \"predict\"", path,
				       lineno);
			json_decref(o);
			break;
		}
		{
			int nul = memchr(predict, '\0', plen) != NULL;
			char *src = nul ? xmalloc(plen + 1) : lang_strip_fences(predict);

			if (nul) {
				memcpy(src, predict, plen);
				src[plen] = '\0';
			}
			add_item(items, n, &cap, cat, xasprintf("line %d", lineno), file, src, nul ? plen : strlen(src),
				 xasprintf("%s:%d", path, lineno));
		}
		json_decref(o);
	}
	free(text);
	return st;
}

/* nftw has no context argument: the folder walk collects paths here (one walk at a time). */
static char **walk_paths;
static int walk_n;
static size_t walk_cap;
static pthread_mutex_t walk_lock = PTHREAD_MUTEX_INITIALIZER;

static int walk_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	size_t l = strlen(path);

	(void)sb;
	(void)ftw;
	if (flag == FTW_F && ((l > 3 && !strcmp(path + l - 3, ".cu")) || (l > 3 && !strcmp(path + l - 3, ".py")))) {
		XGROW(walk_paths, (size_t)walk_n + 1, walk_cap);
		walk_paths[walk_n++] = xstrdup(path);
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static enum kbx_status load_dir(const char *dir, const struct catalogue *cat, struct eval_item **items, int *n)
{
	enum kbx_status st = KBX_OK;
	size_t cap = 0, dl = strlen(dir);
	int i;

	pthread_mutex_lock(&walk_lock);
	walk_paths = NULL;
	walk_n = 0;
	walk_cap = 0;
	if (nftw(dir, walk_one, 16, FTW_PHYS) != 0)
		st = kbx_error(KBX_EIO, "cannot read folder '%s': %s", dir, strerror(errno));
	qsort(walk_paths, (size_t)walk_n, sizeof(*walk_paths), cmp_str);
	for (i = 0; i < walk_n; i++) {
		char *src;
		size_t len;
		const char *rel = walk_paths[i] + dl;

		while (*rel == '/')
			rel++;
		if (!st)
			st = read_file(walk_paths[i], &src, &len);
		if (!st)
			add_item(items, n, &cap, cat, xstrdup(rel), rel, src, len, xstrdup(walk_paths[i]));
		free(walk_paths[i]);
	}
	free(walk_paths);
	walk_paths = NULL;
	pthread_mutex_unlock(&walk_lock);
	return st;
}

enum kbx_status eval_items_load(const char *source, const struct catalogue *cat, struct eval_item **items, int *n)
{
	struct stat sb;
	size_t l = strlen(source), cap = 0;
	enum kbx_status st;

	*items = NULL;
	*n = 0;
	if (stat(source, &sb) != 0)
		return kbx_error(KBX_ENOTFOUND, "cannot read '%s': %s", source, strerror(errno));
	if (S_ISDIR(sb.st_mode))
		st = load_dir(source, cat, items, n);
	else if (l > 6 && !strcmp(source + l - 6, ".jsonl"))
		st = load_jsonl(source, cat, items, n);
	else {
		char *src;
		size_t len;
		const char *base = strrchr(source, '/');

		st = read_file(source, &src, &len);
		if (!st)
			add_item(items, n, &cap, cat, xstrdup(source), base ? base + 1 : source, src, len, xstrdup(source));
	}
	if (st) {
		eval_items_free(*items, *n);
		*items = NULL;
		*n = 0;
	}
	return st;
}

void eval_items_free(struct eval_item *items, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(items[i].id);
		free(items[i].task_id);
		free(items[i].task_hint);
		free(items[i].source);
		free(items[i].source_name);
		free(items[i].refused);
	}
	free(items);
}

enum kbx_status eval_parse_shard(const char *text, int *index, int *count)
{
	char *end;
	long i, c;

	i = strtol(text, &end, 10);
	if (end == text || *end != '/')
		return kbx_error(KBX_EPARSE, "bad shard '%s': expected I/N, e.g. 0/4", text);
	c = strtol(end + 1, &end, 10);
	if (*end || c < 1 || c > 100000 || i < 0 || i >= c)
		return kbx_error(KBX_EPARSE, "bad shard '%s': expected I/N with 0 <= I < N", text);
	*index = (int)i;
	*count = (int)c;
	return KBX_OK;
}

int eval_shard(struct eval_item *items, int n, int index, int count)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		if (i % count == index) {
			if (k != i) {
				struct eval_item tmp = items[k];

				items[k] = items[i];
				items[i] = tmp;
			}
			k++;
		}
	}
	return k;
}

enum kbx_status eval_parse_gpus(const char *text, int *gpus, int max, int *n)
{
	const char *p = text;

	*n = 0;
	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);
		int k;

		if (end == p || v < 0 || v > 1023 || (*end && *end != ','))
			return kbx_error(KBX_EPARSE, "bad GPU list '%s': expected ordinals like 0,1", text);
		for (k = 0; k < *n; k++)
			if (gpus[k] == v)
				return kbx_error(KBX_EPARSE, "bad GPU list '%s': %ld appears twice", text, v);
		if (*n == max)
			return kbx_error(KBX_EPARSE, "bad GPU list '%s': more than %d GPUs", text, max);
		gpus[(*n)++] = (int)v;
		p = *end ? end + 1 : end;
	}
	if (!*n)
		return kbx_error(KBX_EPARSE, "bad GPU list '%s': expected ordinals like 0,1", text);
	return KBX_OK;
}

/* ---- records -------------------------------------------------------------------------------- */

/* The conclusion of the lens on the case's first failing output that has one, else of the
 * stage's diagnosis (both read "evidence: conclusion"). */
void eval_record_triage(struct eval_record *r, const struct case_result *c)
{
	const char *why = NULL;
	size_t n;

	if (r->failed_case || c->verdict == V_PASS || c->verdict == V_NOT_RUN)
		return;
	r->failed_case = xstrdup(c->name);
	if (*c->first_wrong_stage)
		r->failed_stage = xstrdup(c->first_wrong_stage);
	for (int i = 0; i < c->noutputs && !why; i++)
		if (!c->outputs[i].cmp.pass && c->outputs[i].quant.valid && *c->outputs[i].quant.diagnosis)
			why = quant_conclusion(c->outputs[i].quant.diagnosis, &n);
	if (!why && *c->stage_diagnosis)
		why = quant_conclusion(c->stage_diagnosis, &n);
	if (why)
		r->diagnosis = xstrdup(why);
}

/* The split's fields as numbers of o (a record or a summary), under the same names. */
static void split_put(json_t *o, const struct time_split *t)
{
#define PUT_SPLIT(f, required) json_object_set_new(o, #f, json_real(t->f));
	TIME_SPLIT_LIST(PUT_SPLIT)
#undef PUT_SPLIT
}

char *eval_record_to_json(const struct eval_record *r)
{
	json_t *o = json_object();
	char *s;

	json_object_set_new(o, "id", json_string(r->id ? r->id : ""));
	json_object_set_new(o, "task", r->task_id ? json_string(r->task_id) : json_null());
	json_object_set_new(o, "category", r->category ? json_string(r->category) : json_null());
	json_object_set_new(o, "sha256", json_string(r->sha));
	json_object_set_new(o, "verdict", json_string(r->verdict));
	json_object_set_new(o, "call", json_boolean(r->call));
	json_object_set_new(o, "exe", json_boolean(r->exe));
	json_object_set_new(o, "perf", json_boolean(r->perf));
	json_object_set_new(o, "cases_passed", json_integer(r->cases_passed));
	json_object_set_new(o, "cases_total", json_integer(r->cases_total));
	json_object_set_new(o, "speedup_golden", jsonget_measure_or_null(r->speedup_golden));
	json_object_set_new(o, "speedup_ref", jsonget_measure_or_null(r->speedup_ref));
	json_object_set_new(o, "ms", jsonget_measure_or_null(r->ms));
	json_object_set_new(o, "ref_ms", jsonget_measure_or_null(r->ref_ms));
	json_object_set_new(o, "golden_ms", jsonget_measure_or_null(r->golden_ms));
	json_object_set_new(o, "gbps", jsonget_measure_or_null(r->gbps));
	json_object_set_new(o, "tflops", jsonget_measure_or_null(r->tflops));
	/* A zeroed record has no calibration either: a fraction is null unless positive. */
	json_object_set_new(o, "bw_fraction", r->bw_fraction > 0 ? jsonget_measure_or_null(r->bw_fraction) : json_null());
	json_object_set_new(o, "flop_fraction", r->flop_fraction > 0 ? jsonget_measure_or_null(r->flop_fraction) : json_null());
	json_object_set_new(o, "device", json_integer(r->device));
	json_object_set_new(o, "ref_kept_rows", json_integer(r->ref_kept_rows));
	json_object_set_new(o, "ref_outputs_kept", json_integer(r->ref_outputs_kept));
	json_object_set_new(o, "seconds", json_real(r->seconds));
	json_object_set_new(o, "started", jsonget_measure_or_null(r->started));
	split_put(o, &r->split);
	json_object_set_new(o, "message", json_string(r->message ? r->message : ""));
	json_object_set_new(o, "failed_case", r->failed_case ? json_string(r->failed_case) : json_null());
	json_object_set_new(o, "first_wrong_stage", r->failed_stage ? json_string(r->failed_stage) : json_null());
	json_object_set_new(o, "diagnosis", r->diagnosis ? json_string(r->diagnosis) : json_null());
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!s)
		abort();
	return s;
}

enum kbx_status eval_record_from_json(const char *line, struct eval_record *r)
{
	json_error_t err;
	json_t *o = json_loads(line, 0, &err);

	memset(r, 0, sizeof(*r));
	if (!o || !json_is_object(o)) {
		json_decref(o);
		return kbx_error(KBX_EPARSE, "bad progress record: %s", o ? "not an object" : err.text);
	}
	r->id = jsonget_strdup(o, "id");
	r->task_id = jsonget_strdup(o, "task");
	r->category = jsonget_strdup(o, "category");
	r->message = jsonget_strdup(o, "message");
	r->failed_case = jsonget_strdup(o, "failed_case");        /* NULL in records from before */
	r->failed_stage = jsonget_strdup(o, "first_wrong_stage");
	r->diagnosis = jsonget_strdup(o, "diagnosis");
	snprintf(r->sha, sizeof(r->sha), "%s", jsonget_str_or(o, "sha256", ""));
	snprintf(r->verdict, sizeof(r->verdict), "%s", jsonget_str_or(o, "verdict", ""));
	r->call = jsonget_bool_or(o, "call", 0);
	r->exe = jsonget_bool_or(o, "exe", 0);
	r->perf = jsonget_bool_or(o, "perf", 0);
	r->cases_passed = (int)jsonget_int_or(o, "cases_passed", 0);
	r->cases_total = (int)jsonget_int_or(o, "cases_total", 0);
	r->speedup_golden = jsonget_num_or(o, "speedup_golden", -1);
	r->speedup_ref = jsonget_num_or(o, "speedup_ref", -1);
	r->ms = jsonget_num_or(o, "ms", -1);
	r->ref_ms = jsonget_num_or(o, "ref_ms", -1);
	r->golden_ms = jsonget_num_or(o, "golden_ms", -1);
	r->gbps = jsonget_num_or(o, "gbps", -1);
	r->tflops = jsonget_num_or(o, "tflops", -1);
	r->bw_fraction = jsonget_num_or(o, "bw_fraction", -1);
	r->flop_fraction = jsonget_num_or(o, "flop_fraction", -1);
	r->device = (int)jsonget_int_or(o, "device", 0);
	r->ref_kept_rows = (int)jsonget_int_or(o, "ref_kept_rows", 0);   /* 0 in records from before */
	r->ref_outputs_kept = (int)jsonget_int_or(o, "ref_outputs_kept", 0);
	r->seconds = jsonget_num_or(o, "seconds", -1);
	r->started = jsonget_num_or(o, "started", -1);   /* -1 in records from before */
#define GET_SPLIT(f, required) r->split.f = fmax(0, jsonget_num_or(o, #f, -1));
	TIME_SPLIT_LIST(GET_SPLIT)
#undef GET_SPLIT
	json_decref(o);
	if (!r->id || !*r->verdict) {
		eval_record_free(r);
		return kbx_error(KBX_EPARSE, "bad progress record: no id or verdict");
	}
	return KBX_OK;
}

void eval_record_free(struct eval_record *r)
{
	free(r->id);
	free(r->task_id);
	free(r->category);
	free(r->message);
	free(r->failed_case);
	free(r->failed_stage);
	free(r->diagnosis);
	memset(r, 0, sizeof(*r));
}

enum kbx_status eval_progress_load(const char *path, struct eval_record **recs, int *n)
{
	char *text, *p;
	size_t len, cap = 0;
	enum kbx_status st;

	*recs = NULL;
	*n = 0;
	if (access(path, F_OK) != 0)
		return KBX_OK;
	st = read_file(path, &text, &len);
	if (st)
		return st;
	for (p = text; *p; ) {
		char *nl = strchr(p, '\n');
		struct eval_record r;

		if (!nl)        /* a torn last line: the item did not finish */
			break;
		*nl = '\0';
		if (*p && eval_record_from_json(p, &r) == KBX_OK) {
			int k;

			/* a later record of the same item replaces an earlier one */
			for (k = 0; k < *n && strcmp((*recs)[k].id, r.id); k++)
				;
			if (k < *n) {
				eval_record_free(&(*recs)[k]);
				(*recs)[k] = r;
			} else {
				XGROW(*recs, (size_t)*n + 1, cap);
				(*recs)[(*n)++] = r;
			}
		} else {
			kbx_clear_error();
		}
		p = nl + 1;
	}
	free(text);
	return KBX_OK;
}

int eval_done(const struct eval_record *recs, int n, const struct eval_item *item)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(recs[i].id, item->id) && !strcmp(recs[i].sha, item->sha))
			return 1;
	return 0;
}

/* ---- scheduling ----------------------------------------------------------------------------- */

struct sched {
	struct eval_item *const *items;
	int n, next, finished;
	eval_run_fn run;
	eval_done_fn done;
	void *ctx;
	pthread_mutex_t lock;
};

struct worker_arg {
	struct sched *s;
	int worker;
};

static void *sched_main(void *p)
{
	struct worker_arg *w = p;
	struct sched *s = w->s;

	for (;;) {
		struct eval_record rec;
		int i;

		pthread_mutex_lock(&s->lock);
		i = s->next < s->n ? s->next++ : -1;
		pthread_mutex_unlock(&s->lock);
		if (i < 0)
			break;
		memset(&rec, 0, sizeof(rec));
		s->run(s->items[i], w->worker, s->ctx, &rec);
		pthread_mutex_lock(&s->lock);
		s->finished++;
		if (s->done)
			s->done(&rec, s->finished, s->n, s->ctx);
		pthread_mutex_unlock(&s->lock);
		eval_record_free(&rec);
	}
	return NULL;
}

enum kbx_status eval_schedule(struct eval_item *const *items, int n, int nworkers, eval_run_fn run,
			      eval_done_fn done, void *ctx)
{
	struct sched s = { items, n, 0, 0, run, done, ctx, PTHREAD_MUTEX_INITIALIZER };
	pthread_t *th;
	struct worker_arg *args;
	int i, started = 0;
	enum kbx_status st = KBX_OK;

	if (nworkers < 1)
		return kbx_error(KBX_EINVAL, "no workers");
	th = xcalloc((size_t)nworkers, sizeof(*th));
	args = xcalloc((size_t)nworkers, sizeof(*args));
	for (i = 0; i < nworkers; i++) {
		args[i].s = &s;
		args[i].worker = i;
		if (pthread_create(&th[i], NULL, sched_main, &args[i]) != 0) {
			st = kbx_error(KBX_EINVAL, "cannot start worker thread %d", i);
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	free(args);
	return st;
}

/* ---- reports -------------------------------------------------------------------------------- */

/* How many wrong items concluded `text` (eval_record.diagnosis; the text is the record's). */
struct diag_count {
	const char *text;
	int n;
};

struct tally {
	int items, call, exe, perf, timed, slower;
	int impossible;         /* correct outputs, impossible timing (ceiling.h): neither exe nor timed */
	double sum, logsum;
	double seconds;
	struct time_split split;
	struct diag_count *diags;       /* in order of first appearance */
	int ndiags;
};

static void tally_diagnosis(struct tally *t, const char *text)
{
	int i;

	for (i = 0; i < t->ndiags && strcmp(t->diags[i].text, text); i++)
		;
	if (i == t->ndiags) {
		t->diags = xrealloc(t->diags, (size_t)(t->ndiags + 1) * sizeof(*t->diags));
		t->diags[t->ndiags++] = (struct diag_count){ text, 0 };
	}
	t->diags[i].n++;
}

static void tally_add(struct tally *t, const struct eval_record *r)
{
	if (r->diagnosis && *r->diagnosis)
		tally_diagnosis(t, r->diagnosis);
	t->items++;
	t->seconds += fmax(0, r->seconds);
	time_split_add(&t->split, &r->split);
	t->call += r->call;
	t->exe += r->exe;
	t->perf += r->perf;
	t->impossible += !strcmp(r->verdict, "impossible_timing");
	if (r->exe && r->perf && r->speedup_golden > 0) {
		t->timed++;
		t->sum += r->speedup_golden;
		t->logsum += log(r->speedup_golden);
		t->slower += r->speedup_golden < 1;
	}
}

static json_t *tally_json(const struct tally *t)
{
	json_t *o = json_object();

	json_object_set_new(o, "items", json_integer(t->items));
	json_object_set_new(o, "call", json_integer(t->call));
	json_object_set_new(o, "exe", json_integer(t->exe));
	json_object_set_new(o, "perf", json_integer(t->perf));
	json_object_set_new(o, "impossible_timing", json_integer(t->impossible));
	json_object_set_new(o, "call_rate", json_real(t->items ? (double)t->call / t->items : 0));
	json_object_set_new(o, "exe_rate", json_real(t->items ? (double)t->exe / t->items : 0));
	json_object_set_new(o, "timed", json_integer(t->timed));
	json_object_set_new(o, "speedup_mean", t->timed ? json_real(t->sum / t->timed) : json_null());
	json_object_set_new(o, "speedup_geomean", t->timed ? json_real(exp(t->logsum / t->timed)) : json_null());
	json_object_set_new(o, "slower_share", t->timed ? json_real((double)t->slower / t->timed) : json_null());
	/* Item seconds summed (with several GPUs, more than the wall time) and the workers' split
	 * of them; the rest of an item's seconds is starting the worker and recording. */
	json_object_set_new(o, "seconds", json_real(t->seconds));
	split_put(o, &t->split);
	{
		json_t *d = json_object();

		for (int i = 0; i < t->ndiags; i++)
			json_object_set_new(d, t->diags[i].text, json_integer(t->diags[i].n));
		json_object_set_new(o, "diagnoses", d);
	}
	return o;
}

/* Most items first, then by text (a report reads the same every time). */
static int diag_cmp(const void *a, const void *b)
{
	const struct diag_count *x = a, *y = b;

	return y->n != x->n ? (y->n > x->n) - (y->n < x->n) : strcmp(x->text, y->text);
}

/* The conclusions of a category's wrong items, most frequent first. */
static void diag_rows(FILE *out, const char *name, const struct tally *t)
{
	struct diag_count *d;

	if (!t->ndiags)
		return;
	d = xmalloc((size_t)t->ndiags * sizeof(*d));
	memcpy(d, t->diags, (size_t)t->ndiags * sizeof(*d));
	qsort(d, (size_t)t->ndiags, sizeof(*d), diag_cmp);
	for (int i = 0; i < t->ndiags; i++)
		fprintf(out, "%-16s %6d  %s\n", i ? "" : name, d[i].n, d[i].text);
	free(d);
}

static void tally_row(FILE *out, const char *name, const struct tally *t)
{
	char geo[32] = "-", slow[32] = "-";

	if (t->timed) {
		snprintf(geo, sizeof(geo), "%.3fx", exp(t->logsum / t->timed));
		snprintf(slow, sizeof(slow), "%.0f%%", 100.0 * t->slower / t->timed);
	}
	fprintf(out, "%-16s %6d %6.0f%% %6.0f%% %6.0f%% %8d %10s %8s\n", name, t->items,
		t->items ? 100.0 * t->call / t->items : 0, t->items ? 100.0 * t->exe / t->items : 0,
		t->items ? 100.0 * t->perf / t->items : 0, t->impossible, geo, slow);
}

/* write_file writes beside and renames: a report is whole or absent. */
static enum kbx_status write_json(const char *dir, const char *name, json_t *o)
{
	char *path = xasprintf("%s/%s", dir, name), *text = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
	enum kbx_status st;

	if (!text)
		abort();
	st = write_file(path, text, strlen(text));
	free(text);
	free(path);
	return st;
}

enum kbx_status eval_write_reports(const char *dir, const struct eval_record *recs, int n,
				   const struct catalogue *cat, FILE *out)
{
	json_t *items = json_array(), *metrics = json_object(), *summary = json_object(), *cats = json_object();
	struct tally all = { 0 }, *per;
	char **names;
	int ncat = 0, i, k;
	enum kbx_status st;

	names = xcalloc((size_t)n + 1, sizeof(*names));
	per = xcalloc((size_t)n + 1, sizeof(*per));
	for (i = 0; i < n; i++) {
		const struct eval_record *r = &recs[i];
		const char *c = r->category ? r->category : "(unknown task)";
		json_error_t err;
		char *line = eval_record_to_json(r);

		json_array_append_new(items, json_loads(line, 0, &err));
		free(line);
		for (k = 0; k < ncat && strcmp(names[k], c); k++)
			;
		if (k == ncat)
			names[ncat++] = (char *)c;
		tally_add(&per[k], r);
		tally_add(&all, r);
	}
	json_object_set_new(metrics, "items", items);
	for (k = 0; k < ncat; k++)
		json_object_set_new(cats, names[k], tally_json(&per[k]));
	json_object_set_new(summary, "overall", tally_json(&all));
	json_object_set_new(summary, "categories", cats);
	json_object_set_new(summary, "baseline", json_string("golden PyTorch eager timings of the GPU's table"));
	if (cat)
		json_object_set_new(summary, "catalogue_tasks", json_integer(cat->ntasks));
	st = write_json(dir, "metrics.json", metrics);
	if (!st)
		st = write_json(dir, "summary.json", summary);
	if (out) {
		/* categories in catalogue order, then any others */
		fprintf(out, "%-16s %6s %7s %7s %7s %8s %10s %8s\n", "category", "items", "call", "exe", "perf", "too fast",
			"speedup", "slower");
		for (i = 0; cat && i < cat->ntasks; i++) {
			const char *c = cat->tasks[i]->category;

			if (i && !strcmp(c, cat->tasks[i - 1]->category))
				continue;
			for (k = 0; k < ncat; k++)
				if (!strcmp(names[k], c))
					tally_row(out, c, &per[k]);
		}
		for (k = 0; k < ncat; k++) {
			int known = 0;

			for (i = 0; cat && i < cat->ntasks && !known; i++)
				known = !strcmp(cat->tasks[i]->category, names[k]);
			if (!known)
				tally_row(out, names[k], &per[k]);
		}
		tally_row(out, "all", &all);
		fprintf(out, "speedup: geometric mean vs golden PyTorch over correct, timed items; slower: their share "
			"below 1x; too fast: correct outputs timed faster than the device allows (impossible_timing, "
			"not in exe)\n");
		if (all.ndiags) {
			fprintf(out, "\nwhy wrong items failed (the quantization lens's or the first wrong stage's conclusion "
				"on their first wrong case):\n");
			for (k = 0; k < ncat; k++)
				diag_rows(out, names[k], &per[k]);
		}
	}
	json_decref(metrics);
	json_decref(summary);
	for (k = 0; k < ncat; k++)
		free(per[k].diags);
	free(all.diags);
	free(names);
	free(per);
	return st;
}
