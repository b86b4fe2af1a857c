#include "result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void time_split_add(struct time_split *sum, const struct time_split *part)
{
#define TIME_SPLIT_ADD(f, required) sum->f += part->f;
	TIME_SPLIT_LIST(TIME_SPLIT_ADD)
#undef TIME_SPLIT_ADD
}

const char *verdict_name(enum verdict v)
{
	switch (v) {
#define VERDICT_NAME(id, name, desc) case id: return name;
	VERDICT_LIST(VERDICT_NAME)
#undef VERDICT_NAME
	case V_COUNT:
		break;
	}
	return "unknown";
}

const char *verdict_description(enum verdict v)
{
	switch (v) {
#define VERDICT_DESC(id, name, desc) case id: return desc;
	VERDICT_LIST(VERDICT_DESC)
#undef VERDICT_DESC
	case V_COUNT:
		break;
	}
	return "unknown verdict";
}

int verdict_parse(const char *name, enum verdict *out)
{
	static const char *const names[] = {
#define VERDICT_STR(id, name, desc) name,
		VERDICT_LIST(VERDICT_STR)
#undef VERDICT_STR
	};

	if (!name)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(name, names[i]) == 0) {
			*out = (enum verdict)i;
			return 1;
		}
	}
	return 0;
}

static const char *const warning_names[] = {
#define WARNING_STR(id, name, desc) name,
	WARNING_LIST(WARNING_STR)
#undef WARNING_STR
};

#define NWARNINGS (sizeof(warning_names) / sizeof(warning_names[0]))

const char *warning_name(unsigned bit_index)
{
	return bit_index < NWARNINGS ? warning_names[bit_index] : NULL;
}

const char *warning_description(unsigned bit_index)
{
	static const char *const descs[] = {
#define WARNING_DESC(id, name, desc) desc,
		WARNING_LIST(WARNING_DESC)
#undef WARNING_DESC
	};

	return bit_index < NWARNINGS ? descs[bit_index] : NULL;
}

int warning_parse(const char *name, unsigned *bit_index)
{
	if (!name)
		return 0;
	for (unsigned i = 0; i < NWARNINGS; i++) {
		if (strcmp(name, warning_names[i]) == 0) {
			*bit_index = i;
			return 1;
		}
	}
	return 0;
}

char *warnings_string(unsigned mask)
{
	struct sbuf sb = SBUF_INIT;

	for (unsigned i = 0; i < NWARNINGS; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (sb.len)
			sbuf_adds(&sb, ",");
		sbuf_adds(&sb, warning_names[i]);
	}
	return sbuf_detach(&sb);
}

void case_result_free(struct case_result *c)
{
	if (!c)
		return;
	free(c->message);
	free(c->outputs);
	free(c->stage);
	memset(c, 0, sizeof(*c));
}

void perf_result_free(struct perf_result *p)
{
	if (!p)
		return;
	free(p->input_size);
	free(p->message);
	memset(p, 0, sizeof(*p));
}

void compile_result_free(struct compile_result *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->ndiags; i++)
		free(c->diags[i].message);
	free(c->diags);
	free(c->log);
	free(c->options);
	memset(c, 0, sizeof(*c));
}

void run_summary_free(struct run_summary *s)
{
	if (!s)
		return;
	free(s->message);
	memset(s, 0, sizeof(*s));
}

void case_result_copy(struct case_result *dst, const struct case_result *src)
{
	*dst = *src;
	dst->message = xstrdup_or_null(src->message);
	dst->outputs = NULL;
	if (src->noutputs > 0 && src->outputs) {
		dst->outputs = xmalloc(sizeof(*dst->outputs) * (size_t)src->noutputs);
		memcpy(dst->outputs, src->outputs, sizeof(*dst->outputs) * (size_t)src->noutputs);
	} else {
		dst->noutputs = 0;
	}
	dst->stage = NULL;
	if (src->stage) {
		dst->stage = xmalloc(sizeof(*dst->stage));
		*dst->stage = *src->stage;
	}
}

void perf_result_copy(struct perf_result *dst, const struct perf_result *src)
{
	*dst = *src;
	dst->input_size = xstrdup_or_null(src->input_size);
	dst->message = xstrdup_or_null(src->message);
}

void compile_result_copy(struct compile_result *dst, const struct compile_result *src)
{
	*dst = *src;
	dst->log = xstrdup_or_null(src->log);
	dst->options = xstrdup_or_null(src->options);
	dst->diags = NULL;
	if (src->ndiags > 0 && src->diags) {
		dst->diags = xmalloc(sizeof(*dst->diags) * (size_t)src->ndiags);
		for (int i = 0; i < src->ndiags; i++) {
			dst->diags[i] = src->diags[i];
			dst->diags[i].message = xstrdup_or_null(src->diags[i].message);
		}
	} else {
		dst->ndiags = 0;
	}
}

void run_summary_copy(struct run_summary *dst, const struct run_summary *src)
{
	*dst = *src;
	dst->message = xstrdup_or_null(src->message);
}

void compile_result_add_diag(struct compile_result *cr, int line, int col, const char *severity, const char *msg)
{
	struct compile_diag *d;

	cr->diags = xrealloc(cr->diags, ((size_t)cr->ndiags + 1) * sizeof(*cr->diags));
	d = &cr->diags[cr->ndiags++];
	memset(d, 0, sizeof(*d));
	d->line = line;
	d->col = col;
	snprintf(d->severity, sizeof(d->severity), "%s", severity);
	d->message = xstrdup(msg);
}
