/*
 * quant.c - quantization triage: error in steps, row and column profiles, saturation, diagnosis.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quant.h"
#include "stats.h"
#include "util.h"

/* |error| / step this far past 1/2 or 1 still counts in the lower bin: a difference of exactly one
 * step carries the float rounding of the values it is the difference of */
#define BIN_SLACK 1e-3

/* ---- the [quant] section ---------------------------------------------------------------- */

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* "0, 1" or "" into axes; returns the position after the list or NULL. */
static const char *parse_axes(const char *s, int *axes, int *n, char stop)
{
	*n = 0;
	s = skip_space(s);
	while (*s && *s != stop) {
		char *end;
		long a = strtol(s, &end, 10);

		if (end == s || a < 0 || a >= 16 || *n == QUANT_MAX_AXES)
			return NULL;
		axes[(*n)++] = (int)a;
		s = skip_space(end);
		if (*s == ',')
			s = skip_space(s + 1);
		else if (*s && *s != stop)
			return NULL;
	}
	return s;
}

static enum kbx_status parse_step(struct quant_spec *spec, const char *value, const char *where)
{
	const char *s = skip_space(value);

	spec->nf = 0;
	while (*s) {
		struct quant_factor *f;
		size_t len = 0;

		if (spec->nf == QUANT_MAX_FACTORS)
			return kbx_error(KBX_EPARSE, "step = '%s' in [quant] of %s: at most %d factors", value, where,
					 QUANT_MAX_FACTORS);
		f = &spec->f[spec->nf++];
		memset(f, 0, sizeof(*f));
		while (s[len] == '_' || (s[len] >= 'a' && s[len] <= 'z') || (s[len] >= 'A' && s[len] <= 'Z') ||
		       (len && s[len] >= '0' && s[len] <= '9'))
			len++;
		if (len) {
			if (len >= sizeof(f->buf) || s[len] != '(')
				return kbx_error(KBX_EPARSE, "step = '%s' in [quant] of %s: expected BUFFER(axes) at '%s'",
						 value, where, s);
			memcpy(f->buf, s, len);
			s = parse_axes(s + len + 1, f->axes, &f->naxes, ')');
			if (!s || *s != ')')
				return kbx_error(KBX_EPARSE, "step = '%s' in [quant] of %s: bad axes of '%s'", value, where,
						 f->buf);
			s++;
		} else {
			char *end;

			f->constant = strtod(s, &end);
			if (end == s || !(f->constant > 0))
				return kbx_error(KBX_EPARSE, "step = '%s' in [quant] of %s: expected BUFFER(axes) or a "
						 "positive number at '%s'", value, where, s);
			s = end;
		}
		s = skip_space(s);
		if (*s == '*')
			s = skip_space(s + 1);
		else if (*s)
			return kbx_error(KBX_EPARSE, "step = '%s' in [quant] of %s: expected '*' at '%s'", value, where, s);
	}
	if (!spec->nf)
		return kbx_error(KBX_EPARSE, "empty step in [quant] of %s", where);
	return KBX_OK;
}

/* "0, 1 : row" */
static enum kbx_status parse_profile(const char *key, const char *value, int *axes, int *n, char *name,
				     size_t namelen, const char *where)
{
	const char *s = parse_axes(value, axes, n, ':');
	size_t len;

	if (!s || *s != ':' || !*n)
		return kbx_error(KBX_EPARSE, "%s = '%s' in [quant] of %s: expected 'AXES : NAME' as in '0 : row'", key,
				 value, where);
	s = skip_space(s + 1);
	len = strlen(s);
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (!len || len >= namelen)
		return kbx_error(KBX_EPARSE, "%s = '%s' in [quant] of %s: a name of 1 to %zu characters after ':'", key,
				 value, where, namelen - 1);
	memcpy(name, s, len);
	name[len] = '\0';
	return KBX_OK;
}

enum kbx_status quant_spec_set(struct quant_spec *spec, const char *key, const char *value, const char *where)
{
	if (!strcmp(key, "output")) {
		if (!*value || strlen(value) >= sizeof(spec->output))
			return kbx_error(KBX_EPARSE, "output = '%s' in [quant] of %s: expected an output's name", value, where);
		snprintf(spec->output, sizeof(spec->output), "%s", value);
		return KBX_OK;
	}
	if (!strcmp(key, "step"))
		return parse_step(spec, value, where);
	if (!strcmp(key, "rows"))
		return parse_profile(key, value, spec->row_axes, &spec->nrow_axes, spec->row_name,
				     sizeof(spec->row_name), where);
	if (!strcmp(key, "columns"))
		return parse_profile(key, value, spec->col_axes, &spec->ncol_axes, spec->col_name,
				     sizeof(spec->col_name), where);
	if (!strcmp(key, "range")) {
		char *end, *end2;
		double lo = strtod(value, &end), hi;

		end = (char *)skip_space(end);
		if (*end == ',')
			end++;
		hi = strtod(end, &end2);
		if (end == value || end2 == end || *skip_space(end2) || !(lo < hi))
			return kbx_error(KBX_EPARSE, "range = '%s' in [quant] of %s: expected 'LOW, HIGH' as in '-127, 127'",
					 value, where);
		spec->qmin = lo;
		spec->qmax = hi;
		return KBX_OK;
	}
	if (!strcmp(key, "quantized")) {
		if (strcmp(value, "0") && strcmp(value, "1"))
			return kbx_error(KBX_EPARSE, "quantized = '%s' in [quant] of %s: expected 0 or 1", value, where);
		spec->quantized = *value == '1';
		return KBX_OK;
	}
	return kbx_error(KBX_EPARSE, "unknown key '%s' in [quant] of %s (expected output, step, rows, columns, range "
			 "or quantized)", key, where);
}

enum kbx_status quant_spec_check(const struct quant_spec *spec, const char *where)
{
	if (!*spec->output || !spec->nf)
		return kbx_error(KBX_EPARSE, "[quant] of %s needs both output and step", where);
	if (spec->quantized && !(spec->qmin < spec->qmax))
		return kbx_error(KBX_EPARSE, "[quant] of %s: quantized = 1 needs a range", where);
	return KBX_OK;
}

/* ---- the step per element ----------------------------------------------------------------- */

/* Row-major index over the given axes of coord; *count gets the product of their sizes. */
static size_t axes_index(const size_t *coord, const size_t *shape, const int *axes, int naxes, size_t *count)
{
	size_t idx = 0, cnt = 1;

	for (int i = 0; i < naxes; i++) {
		idx = idx * shape[axes[i]] + coord[axes[i]];
		cnt *= shape[axes[i]];
	}
	if (count)
		*count = cnt;
	return idx;
}

static void next_coord(size_t *coord, const size_t *shape, int ndim)
{
	for (int d = ndim - 1; d >= 0; d--) {
		if (++coord[d] < shape[d])
			return;
		coord[d] = 0;
	}
}

static size_t numel(const size_t *shape, int ndim)
{
	size_t n = 1;

	for (int d = 0; d < ndim; d++)
		n *= shape[d];
	return n;
}

enum kbx_status quant_step_fill(const struct quant_spec *spec, const size_t *shape, int ndim,
				const struct quant_scale *scales, int nscales, double *step)
{
	size_t n = numel(shape, ndim), coord[16] = { 0 };
	double *reduced[QUANT_MAX_FACTORS] = { NULL };
	enum kbx_status st = KBX_OK;
	int k;

	if (ndim > 16)
		return kbx_error(KBX_EINVAL, "output '%s' has %d dims, the quantization lens takes 16", spec->output, ndim);
	for (k = 0; k < spec->nf && !st; k++) {
		const struct quant_factor *f = &spec->f[k];
		const struct quant_scale *sc = NULL;
		size_t count, per;

		if (!*f->buf)
			continue;
		for (int i = 0; i < nscales; i++)
			if (!strcmp(scales[i].name, f->buf))
				sc = &scales[i];
		for (int i = 0; i < f->naxes && !st; i++)
			if (f->axes[i] >= ndim)
				st = kbx_error(KBX_EINVAL, "step factor '%s' names axis %d of output '%s', which has %d",
					       f->buf, f->axes[i], spec->output, ndim);
		if (st)
			break;
		if (!sc) {
			st = kbx_error(KBX_ENOTFOUND, "no reference scratch buffer '%s' for the quantization step", f->buf);
			break;
		}
		axes_index(coord, shape, f->axes, f->naxes, &count);
		if (!count)
			continue;
		if (sc->n < count || sc->n % count) {
			st = kbx_error(KBX_EINVAL, "scratch buffer '%s' holds %zu values, not a multiple of the %zu its "
				       "axes index", f->buf, sc->n, count);
			break;
		}
		per = sc->n / count;
		reduced[k] = xcalloc(count, sizeof(double));
		for (size_t i = 0; i < count; i++) {
			double sum = 0;

			for (size_t j = 0; j < per; j++)
				sum += sc->v[i * per + j];
			reduced[k][i] = sum / (double)per;
		}
	}
	for (size_t e = 0; e < n && !st; e++) {
		double s = 1;

		for (k = 0; k < spec->nf; k++)
			s *= reduced[k] ? reduced[k][axes_index(coord, shape, spec->f[k].axes, spec->f[k].naxes, NULL)]
					: spec->f[k].constant;
		step[e] = s;
		next_coord(coord, shape, ndim);
	}
	for (k = 0; k < QUANT_MAX_FACTORS; k++)
		free(reduced[k]);
	return st;
}

/* ---- analysis ------------------------------------------------------------------------------ */

const char *quant_conclusion(const char *diagnosis, size_t *evidence_len)
{
	const char *p;
	int depth = 0;

	for (p = diagnosis; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		else if (!depth && p[0] == ':' && p[1] == ' ' && p[2])
			break;
	}
	if (!*p) {
		*evidence_len = 0;
		return diagnosis;
	}
	*evidence_len = (size_t)(p - diagnosis);
	return p + 2;
}

const char *quant_bin_label(enum quant_bin b)
{
	switch (b) {
	case QB_EXACT:
		return "exact";
	case QB_HALF:
		return "<= 1/2 step";
	case QB_ONE:
		return "<= 1 step";
	case QB_MORE:
		return "> 1 step";
	case QB_COUNT:
		break;
	}
	return "?";
}

struct entry_acc {
	double sum, sumsq, max;
	unsigned long long cnt;
	double logstep;          /* sum of log(step) over the entry's elements */
	double cand_x, ref_x;    /* sums of |candidate - exact| and |reference - exact| */
	unsigned long long xcnt; /* elements with an exact value */
	double cr, rr, cc;       /* sums of candidate * reference, reference^2, candidate^2, in steps */
};

/* Whether the candidate's error follows the reference's scale along one profile: over the
 * entries, the slope of log(mean |cand - exact| / mean |ref - exact|) against the entry's mean
 * log step, with its standard error. The reference's own error shares every entry's magnitudes,
 * so the ratio is flat (slope ~0) for a candidate that quantizes each entry with its own scale,
 * however it rounds; one scale for the whole tensor makes it grow as the entry's scale shrinks
 * (slope toward -1). */
struct scale_follow {
	int valid;
	int n;                   /* entries used */
	double slope, se;
};

#define FOLLOW_MIN_ENTRIES 4
#define FOLLOW_MIN_SPREAD 0.02   /* the entries' log steps must differ by this much (sd) */
#define FOLLOW_SLOPE -0.3        /* a slope at or below this, */
#define FOLLOW_SIGMAS 3.0        /* and this many standard errors below 0, is not following */

static struct scale_follow follow_fit(const struct entry_acc *acc, size_t n)
{
	struct scale_follow f = { 0 };
	double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, m, vx, b, res;
	int k = 0;

	for (size_t i = 0; i < n; i++) {
		double x, y;

		if (!acc[i].cnt || !acc[i].xcnt || !(acc[i].cand_x > 0) || !(acc[i].ref_x > 0))
			continue;
		x = acc[i].logstep / (double)acc[i].cnt;
		y = log(acc[i].cand_x / acc[i].ref_x);
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		syy += y * y;
		k++;
	}
	if (k < FOLLOW_MIN_ENTRIES)
		return f;
	m = (double)k;
	vx = sxx / m - (sx / m) * (sx / m);
	if (!(vx > FOLLOW_MIN_SPREAD * FOLLOW_MIN_SPREAD))
		return f;
	b = (sxy / m - (sx / m) * (sy / m)) / vx;
	/* residual variance of y about the fitted line */
	res = (syy / m - (sy / m) * (sy / m)) - b * b * vx;
	f.valid = 1;
	f.n = k;
	f.slope = b;
	f.se = sqrt((res > 0 ? res : 0) / (vx * m));
	return f;
}

static int not_following(const struct scale_follow *f)
{
	return f->valid && f->slope <= FOLLOW_SLOPE && f->slope + FOLLOW_SIGMAS * f->se < 0;
}

/* One element into its row's or column's accumulator; x is the exact value, NaN for none. */
static void acc_add(struct entry_acc *a, double err, double step, double cand, double ref, double x)
{
	a->sum += err;
	a->sumsq += err * err;
	a->cnt++;
	if (err > a->max)
		a->max = err;
	a->logstep += log(step);
	a->cr += (cand / step) * (ref / step);
	a->rr += (ref / step) * (ref / step);
	a->cc += (cand / step) * (cand / step);
	if (isfinite(x)) {
		a->cand_x += fabs(cand - x);
		a->ref_x += fabs(ref - x);
		a->xcnt++;
	}
}

static void profile_finish(struct quant_profile *p, const char *name, const struct entry_acc *acc, size_t n)
{
	double *means = xcalloc(n ? n : 1, sizeof(double)), msum = 0, msq = 0, wsum = 0;
	size_t used = 0, wn = 0;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->n = (int)n;
	p->ncells = n < QUANT_PROFILE_CELLS ? (int)n : QUANT_PROFILE_CELLS;
	for (int c = 0; c < p->ncells; c++) {
		size_t lo = (size_t)c * n / (size_t)p->ncells, hi = (size_t)(c + 1) * n / (size_t)p->ncells;

		for (size_t i = lo; i < hi; i++) {
			double mean = acc[i].cnt ? acc[i].sum / (double)acc[i].cnt : 0;

			if (acc[i].max > p->cell_max[c])
				p->cell_max[c] = (float)acc[i].max;
			if (mean > p->cell_mean[c])
				p->cell_mean[c] = (float)mean;
		}
	}
	for (size_t i = 0; i < n; i++) {
		double mean, var;

		if (!acc[i].cnt)
			continue;
		mean = acc[i].sum / (double)acc[i].cnt;
		means[used++] = mean;
		msum += mean;
		msq += mean * mean;
		var = acc[i].sumsq / (double)acc[i].cnt - mean * mean;
		if (acc[i].cnt > 1 && mean > 0) {
			wsum += sqrt(var > 0 ? var : 0) / mean;
			wn++;
		}
		/* keep the QUANT_WORST largest means, largest first; ties keep the lower index */
		for (int w = 0; w < QUANT_WORST; w++) {
			if (w < p->nworst && !(mean > p->worst_mean[w]))
				continue;
			if (w >= p->nworst && mean <= 0)
				break;
			for (int m = (p->nworst < QUANT_WORST ? p->nworst : QUANT_WORST - 1); m > w; m--) {
				p->worst[m] = p->worst[m - 1];
				p->worst_mean[m] = p->worst_mean[m - 1];
				p->worst_max[m] = p->worst_max[m - 1];
			}
			p->worst[w] = (long long)i;
			p->worst_mean[w] = mean;
			p->worst_max[w] = acc[i].max;
			if (p->nworst < QUANT_WORST)
				p->nworst++;
			break;
		}
	}
	if (used) {
		double avg = msum / (double)used, var = msq / (double)used - avg * avg;

		qsort(means, used, sizeof(double), stats_cmp_double);
		p->median_mean = used % 2 ? means[used / 2] : (means[used / 2 - 1] + means[used / 2]) / 2;
		p->spread = avg > 0 ? sqrt(var > 0 ? var : 0) / avg : 0;
	}
	p->within = wn ? wsum / (double)wn : 0;
	free(means);
}

/* The entries of a profile differ beyond what per-element noise explains: their means spread by
 * more than 15% and by more than three times the spread expected of a mean over `per` elements
 * with the noise left after the row and column means are taken out (r->noise). */
static int profile_differs(const struct quant_profile *p, double per, double noise)
{
	if (p->n < 2 || per < 1)
		return 0;
	return p->spread > 0.15 && p->spread > 3 * noise / sqrt(per);
}

static void say_worst(char *buf, size_t len, const struct quant_profile *p)
{
	if (p->nworst)
		snprintf(buf, len, "worst %s %lld: %.3g steps, median %.3g", p->name, p->worst[0], p->worst_mean[0],
			 p->median_mean);
	else
		snprintf(buf, len, "no %s with an error", p->name);
}

/* The rows' (or the columns') own least-squares factors, taken together (entry_factors()). */
struct entry_factors {
	int n;                  /* entries with a reference to fit */
	double lo, hi;          /* the smallest and largest entry's own factor */
	double resid;           /* what is left after each entry's own fit, relative, over all */
	double worst;           /* the same for the entry it fits least (INFINITY for a factor 0) */
	double side;            /* the share of entries whose factor lies on the same side of 1 as the
				 * whole output's (1 when none has one) */
};

/* The output as a whole scaled against the reference's: the least-squares factor k of
 * candidate = k * reference over the measured elements, each counted in its own steps (as the
 * rest of the lens counts them: else the rows of the largest range decide alone, and a fit per
 * row or column of a few elements follows them), its standard error, the residual left
 * (relative to k * reference), the share of rows and of columns whose own factor lies on the
 * same side of 1 as k, and the share of differing elements nearer zero than the reference's.
 * Rounding v / scale toward zero leaves every quantized value up to a step nearer zero, which a
 * sum of products carries into the output as a shrink of about half a step per factor in its
 * typical magnitude (1 to 4% at int8's tens of steps), the same in every row and column; one
 * scale per tensor or per batch leaves k at 1 and rows on both sides. */
struct magnitude_fit {
	int valid;
	double k, se, resid;
	double nearer;
	struct entry_factors rowf, colf;
};

#define MAG_MIN 0.005           /* a shrink or growth smaller than this is not reported */
#define MAG_TRUNC_MAX 0.1       /* a shrink larger than this is not rounding (int8; int4: 2 / 8) */

/* What the diagnosis reads beside the profiles and the fits: from the spec, whether the steps
 * keep a scale along the rows' (the columns') axes, so that a pattern along them can be blamed on
 * one, and the quantized range's largest magnitude (0 when none is given); from the values, how
 * large they are against their steps and how those past the range stand to the exact result. */
struct lens_context {
	int rows_scaled, cols_scaled;
	double range;
	double ref_steps;       /* mean |reference| / step: how many steps the values span */
	double rel_err;         /* sum |candidate - reference| / sum |reference| */
	unsigned long long beyond_judged, beyond_nearer; /* values past the range with an exact
				 * result, and those of them nearer it than the reference's */
};

/* Below this many steps the values are too small for their steps to tell a quantization apart
 * from rounding (linear_w4a16's inputs scaled by 0.01 against scales taken for inputs of 1). */
#define FEW_STEPS 4.0

/* 1 when one of the step's factors is indexed by one of these output axes. */
static int axes_scaled(const struct quant_spec *spec, const int *axes, int naxes)
{
	int f, a, b;

	for (f = 0; f < spec->nf; f++)
		for (a = 0; spec->f[f].buf[0] && a < spec->f[f].naxes; a++)
			for (b = 0; b < naxes; b++)
				if (spec->f[f].axes[a] == axes[b])
					return 1;
	return 0;
}

/* Each row's (or column's) own least-squares factor: their range, the residual left when every
 * entry has its own (0 when each is exactly a multiple of the reference's), and how many lie on
 * the same side of 1 as k, the whole output's. */
static struct entry_factors entry_factors(const struct entry_acc *acc, size_t n, double k_all)
{
	struct entry_factors f = { 0, INFINITY, -INFINITY, INFINITY, 0, 1 };
	double ssr = 0, fitted = 0;
	size_t i, same = 0;

	for (i = 0; i < n; i++) {
		double k, e;

		if (!(acc[i].rr > 0))
			continue;
		k = acc[i].cr / acc[i].rr;
		e = fmax(0, acc[i].cc - k * acc[i].cr);
		f.n++;
		f.lo = fmin(f.lo, k);
		f.hi = fmax(f.hi, k);
		ssr += e;
		fitted += k * k * acc[i].rr;
		f.worst = fmax(f.worst, k != 0 ? sqrt(e / (k * k * acc[i].rr)) : INFINITY);
		same += k != 1 && (k < 1) == (k_all < 1);
	}
	if (f.n && fitted > 0)
		f.resid = sqrt(ssr / fitted);
	if (f.n)
		f.side = (double)same / (double)f.n;
	return f;
}

static struct magnitude_fit magnitude_fit(double cr, double rr, double cc, unsigned long long n,
					  unsigned long long differ, unsigned long long nearer,
					  const struct entry_acc *racc, size_t nrows, const struct entry_acc *cacc,
					  size_t ncols)
{
	struct magnitude_fit m = { 0 };
	double ssr;

	if (n < 8 || !(rr > 0) || !isfinite(cr) || !isfinite(rr) || !isfinite(cc))
		return m;
	m.k = cr / rr;
	ssr = fmax(0, cc - 2 * m.k * cr + m.k * m.k * rr);
	m.se = sqrt(ssr / (double)(n - 1) / rr);
	m.resid = m.k != 0 ? sqrt(ssr / (m.k * m.k * rr)) : INFINITY;
	m.nearer = differ ? (double)nearer / (double)differ : 0;
	m.rowf = entry_factors(racc, nrows, m.k);
	m.colf = entry_factors(cacc, ncols, m.k);
	m.valid = 1;
	return m;
}

/* Every row (column) its own multiple of the reference's, the multiples differing: a fit per
 * entry leaves at most a tenth of what one factor for all leaves (global_resid), and at most a
 * fifth of any one entry (so that entries the candidate got right cannot hide those it did not:
 * attention's per-tensor example at another seed, whose small tokens lost their values), with
 * enough elements in each entry (4 on average) that a fit of its own is not exact by itself. 1
 * when that wrote the line. */
static int per_entry_line(struct quant_result *r, const struct entry_factors *f, const struct quant_profile *p,
			  double global_resid, int scaled)
{
	double spread = f->hi - f->lo;

	if (f->n < 2 || r->n < 4ULL * (unsigned long long)f->n || !(spread >= MAG_MIN) ||
	    !(f->resid <= 0.1 * global_resid) || !(f->worst <= 0.2))
		return 0;
	if (scaled)
		snprintf(r->diagnosis, sizeof(r->diagnosis), "each %s its own multiple of the reference's (%.4g to "
			 "%.4g, %.2g left over): the %s scales differ by a factor", p->name, f->lo, f->hi, f->resid,
			 p->name);
	else
		snprintf(r->diagnosis, sizeof(r->diagnosis), "each %s its own multiple of the reference's (%.4g to "
			 "%.4g, %.2g left over), though the steps keep no %s scale: something per %s multiplies the "
			 "output (another normalization?)", p->name, f->lo, f->hi, f->resid, p->name, p->name);
	return 1;
}

/* The magnitude rules of diagnose(): 1 when one of them wrote the line. */
static int magnitude_line(struct quant_result *r, const struct magnitude_fit *m, const struct lens_context *ax)
{
	const struct quant_profile *rp = &r->rows, *cp = &r->cols;
	double off = fabs(1 - m->k), trunc_max = ax->range > 0 ? fmax(MAG_TRUNC_MAX, 2 / ax->range) : MAG_TRUNC_MAX;
	/* a constant factor leaves float rounding, or little more: int4 truncation of uniform
	 * positive weights (linear_w4a16's perf_like_uniform) leaves 0.0028 of a 14% shrink */
	int constant = m->resid <= fmin(0.02 * off, 1e-3);
	char ratio[24], where[64] = "";

	if (!m->valid)
		return 0;
	if (!constant && (per_entry_line(r, &m->rowf, rp, m->resid, ax->rows_scaled) ||
			  per_entry_line(r, &m->colf, cp, m->resid, ax->cols_scaled)))
		return 1;
	if (off < MAG_MIN || off < 4 * m->se || m->rowf.side < 0.9 || m->colf.side < 0.9)
		return 0;
	if (rp->n && cp->n)
		snprintf(where, sizeof(where), ", in every %s and %s", rp->name, cp->name);
	else if (rp->n || cp->n)
		snprintf(where, sizeof(where), ", in every %s", rp->n ? rp->name : cp->name);
	if (constant) {
		stats_usual_ratio(fabs(m->k), ratio, sizeof(ratio));
		snprintf(r->diagnosis, sizeof(r->diagnosis), "every value %.4g%s times the reference's (least squares, "
			 "%.2g left over): a constant factor (another divisor or range?)", m->k, ratio, m->resid);
		return 1;
	}
	/* Truncation leans every quantized value toward zero; a scale too small clamps the largest
	 * ones: both shrink the output, and it cannot tell them apart (linear_w4a16's max / 8). */
	if (m->k < 1 && off <= trunc_max && m->nearer >= 0.6) {
		snprintf(r->diagnosis, sizeof(r->diagnosis), "values %.2g%% smaller in magnitude than the reference's "
			 "(least squares %.4g +- %.2g%s; %.0f%% of those that differ nearer zero): the quantized values "
			 "lean toward zero (v / scale truncated instead of rounded to the nearest, or the largest "
			 "clamped by a scale too small)", 100 * off, m->k, m->se, where, 100 * m->nearer);
		return 1;
	}
	return 0;
}

static void diagnose(struct quant_result *r, double diag_mean, double off_mean, int square,
		     const struct scale_follow *rf, const struct scale_follow *cf, const struct magnitude_fit *mag,
		     const struct lens_context *ax)
{
	const struct quant_profile *rp = &r->rows, *cp = &r->cols;
	double per_row = rp->n ? (double)r->n / rp->n : 0, per_col = cp->n ? (double)r->n / cp->n : 0;
	int rows = profile_differs(rp, per_row, r->noise), cols = profile_differs(cp, per_col, r->noise);
	char rw[96], cw[96];

	say_worst(rw, sizeof(rw), rp);
	say_worst(cw, sizeof(cw), cp);
	if (!r->n) {
		snprintf(r->diagnosis, sizeof(r->diagnosis), "no element has a quantization step to measure against "
			 "(%llu left out: a scale of 0 or a NaN/Inf)", r->skipped);
		return;
	}
	/* Past the range, unless the steps do not follow the scales: a coarser grid (one scale per
	 * tensor) rounds a row's largest values past its own range by part of a coarse step, which
	 * is that coarser scale and not a missing clamp (layernorm_w8a8's per-tensor example); a
	 * missing clamp on the reference's own steps is nearer the exact result than the clamped
	 * values are, so it does not look like steps that do not follow. Where too few rows say
	 * whether the steps follow (corner_extreme_affine: 2), the values past the range say it
	 * themselves: unclamped, they are nearer the exact result than the reference's clamped
	 * ones; overshooting on a coarser grid, they are not. */
	if (r->has_saturation && r->cand_beyond && !not_following(rf) && !not_following(cf) &&
	    !(ax->beyond_judged && !ax->beyond_nearer)) {
		if (!r->cand_at_end)
			snprintf(r->diagnosis, sizeof(r->diagnosis), "no value clamped: %llu beyond [%g, %g] where the "
				 "reference holds %llu at the ends: saturation missing", r->cand_beyond, r->qmin, r->qmax,
				 r->ref_at_end);
		else
			snprintf(r->diagnosis, sizeof(r->diagnosis), "%llu values beyond [%g, %g] (the reference holds "
				 "%llu at the ends): saturation missing where they overflow", r->cand_beyond, r->qmin,
				 r->qmax, r->ref_at_end);
		return;
	}
	/* Within half a step would read "float rounding only"; with values of a step or so that differ
	 * by percents, the steps are too coarse to say so. (Within one step stays a rounding
	 * difference: linear_w4a16's corner_int4_boundary is one step off at one step.) */
	if (!r->hist[QB_MORE] && !r->hist[QB_ONE] && r->hist[QB_HALF] && ax->ref_steps < FEW_STEPS &&
	    ax->rel_err > 0.01) {
		snprintf(r->diagnosis, sizeof(r->diagnosis), "all errors within half a step (max %.2g), but the values "
			 "themselves span only %.2g steps on average and differ by %.2g%% (l1): too small for these "
			 "steps to tell a quantization from rounding (values far below the range the scales were "
			 "taken for?)", r->max_steps, ax->ref_steps, 100 * ax->rel_err);
		return;
	}
	if (!r->hist[QB_MORE] && !r->hist[QB_ONE]) {
		if (!r->hist[QB_HALF])
			snprintf(r->diagnosis, sizeof(r->diagnosis), "every value exact: the same quantization");
		else
			snprintf(r->diagnosis, sizeof(r->diagnosis), "all errors within half a step (max %.2g): the same "
				 "quantization, float rounding only", r->max_steps);
		return;
	}
	if (!r->hist[QB_MORE]) {
		snprintf(r->diagnosis, sizeof(r->diagnosis), "all errors within one step (%llu of %llu off by up to "
			 "one, none more): the rounding mode differs", r->hist[QB_ONE], r->n);
		return;
	}
	if (square && ax->rows_scaled && ax->cols_scaled && diag_mean <= 0.5 && off_mean > 2) {
		snprintf(r->diagnosis, sizeof(r->diagnosis), "exact on the diagonal (%s = %s), %.3g steps off it: the "
			 "%s and %s scales are swapped (a transposed scale)", rp->name, cp->name, off_mean, rp->name,
			 cp->name);
		return;
	}
	if (magnitude_line(r, mag, ax))
		return;
	if (not_following(rf) || not_following(cf)) {
		const struct quant_profile *p = not_following(rf) ? rp : cp;
		const struct scale_follow *f = not_following(rf) ? rf : cf;

		if (not_following(rf) && not_following(cf))
			snprintf(r->diagnosis, sizeof(r->diagnosis), "error against the exact result grows as the reference's "
				 "%s and %s scales shrink (log-log slope %.2f +- %.2f over %ss, %.2f +- %.2f over %ss): the "
				 "steps do not follow each %s's and %s's range, as with one scale per tensor", rp->name,
				 cp->name, rf->slope, rf->se, rp->name, cf->slope, cf->se, cp->name, rp->name, cp->name);
		else
			snprintf(r->diagnosis, sizeof(r->diagnosis), "error against the exact result grows as the reference's "
				 "%s scale shrinks (log-log slope %.2f +- %.2f over %d %ss): the steps do not follow each "
				 "%s's range: one scale for the whole tensor, or scales of another axis", p->name, f->slope,
				 f->se, f->n, p->name, p->name);
		return;
	}
	/* A pattern along an axis with a scale of its own blames that scale; where the steps keep none
	 * (linear_w4a16's batch rows, attention's dims), the pattern is the values' own. */
	if (rows && cols && ax->rows_scaled && ax->cols_scaled) {
		snprintf(r->diagnosis, sizeof(r->diagnosis), "error differs across %ss (%s) and across %ss (%s): the "
			 "%s and %s scales differ, as with one scale per tensor", rp->name, rw, cp->name, cw, rp->name,
			 cp->name);
		return;
	}
	if (rows && cols && ax->rows_scaled != ax->cols_scaled) {
		const struct quant_profile *p = ax->rows_scaled ? rp : cp, *o = ax->rows_scaled ? cp : rp;

		snprintf(r->diagnosis, sizeof(r->diagnosis), "error differs across %ss (%s) and across %ss (%s): the "
			 "%s scales differ (the steps keep no %s scale: that pattern follows the values)", rp->name, rw,
			 cp->name, cw, p->name, o->name);
		return;
	}
	if (rows || cols) {
		const struct quant_profile *p = rows ? rp : cp, *o = rows ? cp : rp;
		const char *w = rows ? rw : cw;
		char why[160];

		if (rows ? ax->rows_scaled : ax->cols_scaled)
			snprintf(why, sizeof(why), "the %s scales differ", p->name);
		else
			snprintf(why, sizeof(why), "the steps keep no %s scale, so it follows each %s's own values "
				 "(clamped or saturated ones, or another accumulation)", p->name, p->name);
		if (rows && cols)
			snprintf(r->diagnosis, sizeof(r->diagnosis), "error differs across %ss (%s) and across %ss (%s): "
				 "the steps keep no %s or %s scale, so it follows the values themselves (clamped or "
				 "saturated ones, or another accumulation)", rp->name, rw, cp->name, cw, rp->name, cp->name);
		else if (p->within < 0.1)
			snprintf(r->diagnosis, sizeof(r->diagnosis), "error constant along each %s, different across "
				 "%ss (%s): %s", p->name, p->name, w, why);
		else if (o->n)
			snprintf(r->diagnosis, sizeof(r->diagnosis), "error differs from %s to %s (%s), evenly across %ss: "
				 "%s", p->name, p->name, w, o->name, why);
		else
			snprintf(r->diagnosis, sizeof(r->diagnosis), "error differs from %s to %s (%s): %s", p->name,
				 p->name, w, why);
		return;
	}
	{
		char over[48] = "";

		if (rp->n && cp->n)
			snprintf(over, sizeof(over), " over %ss and %ss", rp->name, cp->name);
		else if (rp->n || cp->n)
			snprintf(over, sizeof(over), " over %ss", rp->n ? rp->name : cp->name);
		snprintf(r->diagnosis, sizeof(r->diagnosis), "errors of up to %.3g steps (mean %.3g) spread evenly%s: "
			 "quantized differently everywhere (another scale rule, no quantization, or another "
			 "accumulation)", r->max_steps, r->mean_steps, over);
	}
}

/* What is left of |error| / step after its row and column means are taken out (a two-way
 * additive fit: e - row mean - column mean + overall mean), as a coefficient of variation. */
static double residual_noise(const struct quant_spec *spec, const double *cand, const double *ref,
			     const double *step, const size_t *shape, int ndim, const struct entry_acc *racc,
			     size_t nrows, const struct entry_acc *cacc, size_t ncols, double mean)
{
	size_t n = numel(shape, ndim), coord[16] = { 0 };
	double ss = 0;
	unsigned long long cnt = 0;

	if (!(mean > 0))
		return 0;
	for (size_t e = 0; e < n; e++, next_coord(coord, shape, ndim)) {
		double c = cand[e], r = ref[e], s = step[e], d, rm = mean, cm = mean;

		if (!isfinite(c) || !isfinite(r) || !(s > 0) || !isfinite(s))
			continue;
		if (nrows) {
			const struct entry_acc *a = &racc[axes_index(coord, shape, spec->row_axes, spec->nrow_axes, NULL)];

			rm = a->sum / (double)a->cnt;
		}
		if (ncols) {
			const struct entry_acc *a = &cacc[axes_index(coord, shape, spec->col_axes, spec->ncol_axes, NULL)];

			cm = a->sum / (double)a->cnt;
		}
		d = fabs(c - r) / s - rm - cm + mean;
		ss += d * d;
		cnt++;
	}
	return cnt ? sqrt(ss / (double)cnt) / mean : 0;
}

static int at_end(double q, double lo, double hi)
{
	double i = rint(q);

	return i == lo || i == hi;
}

void quant_analyse(const struct quant_spec *spec, const double *cand, const double *ref, const double *step,
		   const size_t *shape, int ndim, struct quant_result *out)
{
	quant_analyse_exact(spec, cand, ref, NULL, step, shape, ndim, out);
}

void quant_analyse_exact(const struct quant_spec *spec, const double *cand, const double *ref, const double *exact,
			 const double *step, const size_t *shape, int ndim, struct quant_result *out)
{
	struct scale_follow rf, cf;
	size_t n = numel(shape, ndim), coord[16] = { 0 }, nrows = 1, ncols = 1;
	struct entry_acc *racc, *cacc;
	double sum = 0, diag_sum = 0, off_sum = 0, cr = 0, rr = 0, cc = 0, ref_steps = 0, abs_err = 0, abs_ref = 0;
	unsigned long long diag_n = 0, off_n = 0, differ = 0, nearer = 0;
	struct magnitude_fit mag;
	struct lens_context ax = { 0 };
	int square;

	memset(out, 0, sizeof(*out));
	out->valid = 1;
	if (ndim > 16)
		ndim = 16;
	axes_index(coord, shape, spec->row_axes, spec->nrow_axes, &nrows);
	axes_index(coord, shape, spec->col_axes, spec->ncol_axes, &ncols);
	if (!spec->nrow_axes)
		nrows = 0;
	if (!spec->ncol_axes)
		ncols = 0;
	racc = xcalloc(nrows ? nrows : 1, sizeof(*racc));
	cacc = xcalloc(ncols ? ncols : 1, sizeof(*cacc));
	square = nrows > 1 && nrows == ncols;
	out->has_saturation = spec->quantized;
	out->qmin = spec->qmin;
	out->qmax = spec->qmax;
	for (size_t e = 0; e < n; e++, next_coord(coord, shape, ndim)) {
		double c = cand[e], r = ref[e], s = step[e], err;
		size_t ri, ci;

		if (!isfinite(c) || !isfinite(r) || !(s > 0) || !isfinite(s)) {
			out->skipped++;
			continue;
		}
		err = fabs(c - r) / s;
		out->n++;
		ref_steps += fabs(r) / s;
		abs_err += fabs(c - r);
		abs_ref += fabs(r);
		cr += (c / s) * (r / s);
		rr += (r / s) * (r / s);
		cc += (c / s) * (c / s);
		if (c != r) {
			differ++;
			nearer += fabs(c) < fabs(r);
		}
		/* a step off, computed in float, may land a hair past the bin's edge */
		out->hist[err == 0 ? QB_EXACT : err <= 0.5 + BIN_SLACK ? QB_HALF : err <= 1 + BIN_SLACK ? QB_ONE : QB_MORE]++;
		sum += err;
		if (err > out->max_steps)
			out->max_steps = err;
		if (nrows) {
			ri = axes_index(coord, shape, spec->row_axes, spec->nrow_axes, NULL);
			acc_add(&racc[ri], err, s, c, r, exact ? exact[e] : NAN);
		} else {
			ri = 0;
		}
		if (ncols) {
			ci = axes_index(coord, shape, spec->col_axes, spec->ncol_axes, NULL);
			acc_add(&cacc[ci], err, s, c, r, exact ? exact[e] : NAN);
		} else {
			ci = 1;
		}
		if (square) {
			if (ri == ci) {
				diag_sum += err;
				diag_n++;
			} else {
				off_sum += err;
				off_n++;
			}
		}
		if (spec->quantized) {
			double qc = c / s, qr = r / s, x = exact ? exact[e] : NAN;
			int ref_end = at_end(qr, spec->qmin, spec->qmax), cand_end = at_end(qc, spec->qmin, spec->qmax);
			int beyond = rint(qc) > spec->qmax || rint(qc) < spec->qmin;

			out->ref_at_end += ref_end;
			out->cand_at_end += cand_end;
			out->cand_beyond += beyond;
			out->cand_missed += ref_end && !cand_end;
			if (beyond && isfinite(x)) {
				ax.beyond_judged++;
				ax.beyond_nearer += fabs(c - x) < fabs(r - x);
			}
		}
	}
	out->mean_steps = out->n ? sum / (double)out->n : 0;
	profile_finish(&out->rows, spec->row_name, racc, nrows);
	profile_finish(&out->cols, spec->col_name, cacc, ncols);
	out->noise = residual_noise(spec, cand, ref, step, shape, ndim, racc, nrows, cacc, ncols, out->mean_steps);
	rf = follow_fit(racc, nrows);
	cf = follow_fit(cacc, ncols);
	mag = magnitude_fit(cr, rr, cc, out->n, differ, nearer, racc, nrows, cacc, ncols);
	ax.rows_scaled = axes_scaled(spec, spec->row_axes, spec->nrow_axes);
	ax.cols_scaled = axes_scaled(spec, spec->col_axes, spec->ncol_axes);
	ax.range = fmax(fabs(spec->qmin), fabs(spec->qmax));
	ax.ref_steps = out->n ? ref_steps / (double)out->n : 0;
	ax.rel_err = abs_ref > 0 ? abs_err / abs_ref : 0;
	diagnose(out, diag_n ? diag_sum / (double)diag_n : 0, off_n ? off_sum / (double)off_n : 0,
		 square && diag_n && off_n, &rf, &cf, &mag, &ax);
	free(racc);
	free(cacc);
}
