/*
 * model.c - the catalogue indexed by category, the history's figures, search and filters.
 */
#include "model.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

void model_init(struct model *m, const struct catalogue *cat)
{
	size_t cap = 0;

	memset(m, 0, sizeof(*m));
	m->cat = cat;
	m->hist = xcalloc((size_t)(cat->ntasks ? cat->ntasks : 1), sizeof(*m->hist));
	for (int i = 0; i < cat->ntasks; i++) {
		const char *c = cat->tasks[i]->category;

		if (!m->ncats || strcmp(m->cats[m->ncats - 1].name, c)) {
			XGROW(m->cats, m->ncats + 1, cap);
			memset(&m->cats[m->ncats], 0, sizeof(m->cats[0]));
			m->cats[m->ncats].name = c;
			m->cats[m->ncats].first = i;
			m->ncats++;
		}
		m->cats[m->ncats - 1].count++;
	}
}

void model_free(struct model *m)
{
	free(m->cats);
	free(m->hist);
	free(m->series);
	memset(m, 0, sizeof(*m));
}

int model_task_index(const struct model *m, const struct task *t)
{
	for (int i = 0; t && i < m->cat->ntasks; i++)
		if (m->cat->tasks[i] == t)
			return i;
	return -1;
}

int model_task_by_id(const struct model *m, const char *id)
{
	/* 176 tasks: a scan is cheaper than keeping an index in step with the catalogue's order */
	for (int i = 0; i < m->cat->ntasks; i++)
		if (!strcmp(m->cat->tasks[i]->id, id))
			return i;
	return -1;
}

int model_category_index(const struct model *m, const char *name)
{
	for (int i = 0; i < m->ncats; i++)
		if (!strcmp(m->cats[i].name, name))
			return i;
	return -1;
}

void model_apply_history(struct model *m, const struct db_category_stat *cs, int ncs, const struct db_task_stat *ts,
			 int nts)
{
	memset(m->hist, 0, sizeof(*m->hist) * (size_t)(m->cat->ntasks ? m->cat->ntasks : 1));
	for (int i = 0; i < m->cat->ntasks; i++)
		m->hist[i].best_speedup = -1;
	for (int i = 0; i < m->ncats; i++) {
		memset(&m->cats[i].stat, 0, sizeof(m->cats[i].stat));
		m->cats[i].stat.best_speedup = m->cats[i].stat.median_speedup = -1;
	}
	m->total_runs = 0;
	m->tasks_tried = m->tasks_passed = 0;
	for (int i = 0; i < ncs; i++) {
		int c = model_category_index(m, cs[i].category);

		m->total_runs += cs[i].attempts;
		if (c >= 0)
			m->cats[c].stat = cs[i];
	}
	for (int i = 0; i < nts; i++) {
		int k = model_task_by_id(m, ts[i].task_id);

		if (k < 0)
			continue; /* a task no longer in the catalogue */
		m->hist[k].attempts = ts[i].attempts;
		m->hist[k].passes = ts[i].passes;
		m->hist[k].last = ts[i].last_verdict;
		m->hist[k].last_at = ts[i].last_at;
		m->hist[k].best_speedup = ts[i].best_speedup;
		m->tasks_tried++;
		if (ts[i].passes)
			m->tasks_passed++;
	}
}

enum kbx_status model_load_history(struct model *m, struct db *db)
{
	struct db_category_stat *cs = NULL;
	struct db_task_stat *ts = NULL;
	int ncs = 0, nts = 0;
	enum kbx_status st = KBX_OK;

	if (db) {
		st = db_category_stats(db, &cs, &ncs);
		if (!st)
			st = db_task_stats(db, NULL, &ts, &nts);
	}
	if (st) {
		free(cs);
		return st;
	}
	model_apply_history(m, cs, ncs, ts, nts);
	free(cs);
	free(ts);
	return KBX_OK;
}

enum kbx_status model_load_series(struct model *m, struct db *db, int nbuckets)
{
	int rows = m->ncats + 1;

	free(m->series);
	m->series = NULL;
	m->nseries = 0;
	if (!db || nbuckets <= 0)
		return KBX_OK;
	m->series = xmalloc(sizeof(double) * (size_t)rows * (size_t)nbuckets);
	m->nseries = nbuckets;
	for (int i = 0; i < rows * nbuckets; i++)
		m->series[i] = -1;
	for (int c = 0; c < rows; c++) {
		enum kbx_status st;

		/* a category without runs needs no query */
		if (c > 0 && !m->cats[c - 1].stat.attempts)
			continue;
		if (c == 0 && !m->total_runs)
			continue;
		st = db_category_series(db, c ? m->cats[c - 1].name : NULL, nbuckets, m->series + (size_t)c * nbuckets);
		if (st)
			return st;
	}
	return KBX_OK;
}

const double *model_series(const struct model *m, int c)
{
	if (!m->series || c < 0 || c > m->ncats)
		return NULL;
	return m->series + (size_t)c * (size_t)m->nseries;
}

void model_set_series(struct model *m, double *series, int nbuckets)
{
	free(m->series);
	m->series = series;
	m->nseries = series ? nbuckets : 0;
}

/* ---- search ------------------------------------------------------------------------------ */

const char *verdict_filter_name(enum verdict_filter vf)
{
	switch (vf) {
#define VF_NAME(id, name) case id: return name;
	VERDICT_FILTER_LIST(VF_NAME)
#undef VF_NAME
	case VF_COUNT:
		break;
	}
	return "?";
}

void search_init(struct search *s)
{
	memset(s, 0, sizeof(*s));
}

void search_free(struct search *s)
{
	pcre2_match_data_free(s->md);
	pcre2_code_free(s->re);
	s->md = s->re = NULL;
	s->pattern[0] = '\0';
}

enum kbx_status search_set(struct search *s, const char *pattern)
{
	uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
	pcre2_code *re;
	int err, caps = 0, summaries = pattern[0] == '?';
	PCRE2_SIZE off;
	const char *typed = pattern;

	if (strlen(pattern) >= sizeof(s->pattern))
		return kbx_error(KBX_EINVAL, "pattern too long (at most %zu characters)", sizeof(s->pattern) - 1);
	if (!*pattern) {
		int d = s->difficulty;
		enum verdict_filter vf = s->vf;

		search_free(s);
		s->difficulty = d;
		s->vf = vf;
		return KBX_OK;
	}
	/* '?' is no pattern's start in PCRE2 (a quantifier of nothing): it asks for summaries too */
	if (summaries)
		pattern++;
	/* smart case, as in less and vim: a capital letter makes the search case-sensitive;
	 * escapes like \S or \W do not count as capitals */
	for (const char *p = pattern; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (isupper((unsigned char)*p))
			caps = 1;
	}
	if (!caps)
		opts |= PCRE2_CASELESS;
	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts, &err, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(err, msg, sizeof(msg));
		return kbx_error(KBX_EPARSE, "bad pattern '%s': %s at offset %zu", pattern, (const char *)msg, (size_t)off);
	}
	pcre2_match_data_free(s->md);
	pcre2_code_free(s->re);
	s->re = re;
	s->md = pcre2_match_data_create_from_pattern(re, NULL);
	s->summaries = summaries;
	snprintf(s->pattern, sizeof(s->pattern), "%s", typed);
	return KBX_OK;
}

int search_active(const struct search *s)
{
	return s->re || s->difficulty || s->vf != VF_ANY;
}

int search_text(const struct search *s, const char *text)
{
	if (!s->re)
		return 1;
	if (!text)
		return 0;
	return pcre2_match(s->re, (PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, 0, 0, s->md, NULL) >= 0;
}

int search_task(const struct search *s, const struct task *t, const struct task_hist *h)
{
	int tried = h && h->attempts > 0;

	if (s->difficulty && t->difficulty != s->difficulty)
		return 0;
	switch (s->vf) {
	case VF_ANY:
		break;
	case VF_UNTRIED:
		if (tried)
			return 0;
		break;
	case VF_PASSING:
		if (!tried || h->last != V_PASS)
			return 0;
		break;
	case VF_FAILING:
		if (!tried || h->last == V_PASS)
			return 0;
		break;
	case VF_COUNT:
		break;
	}
	if (!s->re)
		return 1;
	return search_text(s, t->name) || search_text(s, t->id) || (s->summaries && search_text(s, t->summary));
}

int find_row(int n, int cur, int dir, int again, int (*match)(void *ctx, int i), void *ctx, int *wrapped)
{
	int i, k;

	*wrapped = 0;
	if (n <= 0)
		return -1;
	if (cur < 0 || cur >= n)
		cur = dir > 0 ? 0 : n - 1;
	else if (again)
		cur += dir;
	for (k = 0; k < n; k++) {
		i = cur + k * dir;
		if (i >= n || i < 0) {
			*wrapped = 1;
			i = dir > 0 ? i - n : i + n;
		}
		if (match(ctx, i))
			return i;
	}
	*wrapped = 0;
	return -1;
}
