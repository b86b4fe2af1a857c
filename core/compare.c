#include "compare.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/*
 * One pass over the buffers. The loops are instantiated per dtype by a macro so that the load
 * of an element is a plain typed read, not a switch per element: this runs on outputs of
 * 100M elements. Coordinates of the worst elements are only worked out at the end, from their
 * flat index; tiles are walked as (row, tile column, element) so that no division happens per
 * element.
 */

struct worst_slot {
	size_t idx;
	int comp;
	int cls;        /* 2: NaN/Inf mismatch, 1: anything else with a positive score */
	double cand, ref, abs_err, rel_err, ulp, score;
};

struct cmp_state {
	double rtol, atol;
	enum dtype ulp_dt;
	size_t mm, nan_mm, inf_mm;
	size_t cand_nf, ref_nf;  /* one side non-finite, the other finite */
	unsigned long long hist[CMP_HIST];
	double max_abs, max_rel, max_ulp;
	/* Sums over finite pairs, accumulated in blocks so that 100M small terms do not drown in
	 * one large running total. */
	double b_dot, b_cc, b_rr, b_l1n, b_l1d, b_se;
	int b_n;
	double dot, cc, rr, l1n, l1d, se;
	size_t nfinite;
	struct worst_slot worst[CMP_WORST];
	int nworst;
	double worst_floor;     /* score of the last slot once all are taken */
};

#define CMP_BLOCK 4096

static void flush_block(struct cmp_state *s)
{
	s->dot += s->b_dot;
	s->cc += s->b_cc;
	s->rr += s->b_rr;
	s->l1n += s->b_l1n;
	s->l1d += s->b_l1d;
	s->se += s->b_se;
	s->b_dot = s->b_cc = s->b_rr = s->b_l1n = s->b_l1d = s->b_se = 0;
	s->b_n = 0;
}

static inline void add_finite(struct cmp_state *s, double c, double r, double d)
{
	s->b_dot += c * r;
	s->b_cc += c * c;
	s->b_rr += r * r;
	s->b_l1n += fabs(d);
	s->b_l1d += fabs(r);
	s->b_se += d * d;
	s->nfinite++;
	if (++s->b_n == CMP_BLOCK)
		flush_block(s);
}

/* Ordering of candidates for the worst list: class, then score, then absolute error. */
static int worse_than(int cls, double score, double abs_err, const struct worst_slot *w)
{
	if (cls != w->cls)
		return cls > w->cls;
	if (score != w->score)
		return score > w->score;
	return abs_err > w->abs_err;
}

static void worst_insert(struct cmp_state *s, int cls, size_t idx, int comp, double c, double r,
			 double abs_err, double rel_err, double ulp, double score)
{
	int i;

	if (s->nworst == CMP_WORST && !worse_than(cls, score, abs_err, &s->worst[CMP_WORST - 1]))
		return;
	i = s->nworst < CMP_WORST ? s->nworst++ : CMP_WORST - 1;
	/* Equal keys keep the earlier element first: shift only past strictly smaller ones. */
	while (i > 0 && worse_than(cls, score, abs_err, &s->worst[i - 1])) {
		s->worst[i] = s->worst[i - 1];
		i--;
	}
	s->worst[i] = (struct worst_slot){ idx, comp, cls, c, r, abs_err, rel_err, ulp, score };
	if (s->nworst == CMP_WORST)
		s->worst_floor = s->worst[CMP_WORST - 1].score;
}

static double nonfinite_pair(struct cmp_state *s, double c, double r, size_t idx, int comp)
{
	double abs_err;

	if (isnan(c) || isnan(r)) {
		if (isnan(c) && isnan(r)) {
			s->hist[0]++;
			return 0;
		}
		s->nan_mm++;
		abs_err = NAN;
	} else {
		if (c == r) {
			s->hist[0]++;
			return 0;
		}
		s->inf_mm++;
		abs_err = INFINITY;
	}
	if (isfinite(r))
		s->cand_nf++;
	else if (isfinite(c))
		s->ref_nf++;
	s->mm++;
	s->hist[CMP_HIST - 1]++;
	worst_insert(s, 2, idx, comp, c, r, abs_err, abs_err, dtype_ulp_distance(s->ulp_dt, c, r), INFINITY);
	return INFINITY;
}

/* Histogram bin of a nonzero finite error a against tolerance tol (see CMP_HIST). */
static inline int hist_bin(double a, double tol)
{
	static const double decade[13] = { 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6 };
	int b = 1;

	while (b < CMP_HIST - 2 && !(a < decade[b - 1] * tol))
		b++;
	return b;
}

/*
 * The hot path. Divisions are the expensive part, so the score (|err| / tol) and the relative
 * error are compared by multiplying first and only divided out when they may set a new maximum
 * or enter the worst list. *tmax is the running maximum score of the current tile.
 */
static inline void visit_float(struct cmp_state *s, double c, double r, size_t idx, int comp, double *tmax,
				double ulp)
{
	double d, a, ar, tol;

	if (!isfinite(c) || !isfinite(r)) {
		if (nonfinite_pair(s, c, r, idx, comp) > 0)
			*tmax = INFINITY;
		return;
	}
	d = c - r;
	a = fabs(d);
	ar = fabs(r);
	add_finite(s, c, r, d);
	if (a == 0) {
		s->hist[0]++;
		return;
	}
	tol = s->atol + s->rtol * ar;
	s->hist[hist_bin(a, tol)]++;
	if (!(a <= tol))
		s->mm++;
	if (ulp > s->max_ulp)
		s->max_ulp = ulp;
	if (a > s->max_abs)
		s->max_abs = a;
	/* NaN products (inf * 0) fall through to the exact computation */
	if (!(a <= s->max_rel * ar)) {
		double rel = ar > 0 ? a / ar : INFINITY;
		if (rel > s->max_rel)
			s->max_rel = rel;
	}
	if (!(a <= *tmax * tol)) {
		double score = tol > 0 ? a / tol : INFINITY;
		if (score > *tmax)
			*tmax = score;
	}
	if (s->nworst < CMP_WORST || !(a < s->worst_floor * tol)) {
		double score = tol > 0 ? a / tol : INFINITY;
		if (!(score >= 0))      /* inf / inf at the very top of the double range */
			score = INFINITY;
		worst_insert(s, 1, idx, comp, c, r, a, ar > 0 ? a / ar : INFINITY, ulp, score);
	}
}

/* Integers and bool must be equal; the values go through double only for the error figures. */
static inline void visit_int(struct cmp_state *s, long long ci, long long ri, size_t idx, int comp, double *tmax)
{
	double c = (double)ci, r = (double)ri, a, ar, rel;

	add_finite(s, c, r, c - r);
	if (ci == ri) {
		s->hist[0]++;
		return;
	}
	s->mm++;
	s->hist[CMP_HIST - 2]++;
	*tmax = INFINITY;
	a = fabs(c - r);
	ar = fabs(r);
	rel = ar > 0 ? a / ar : INFINITY;
	if (a > s->max_abs)
		s->max_abs = a;
	if (rel > s->max_rel)
		s->max_rel = rel;
	worst_insert(s, 1, idx, comp, c, r, a, rel, 0, INFINITY);
}

/* How the flat buffer maps onto the tile map. */
struct cmp_walk {
	size_t rows;            /* product of all dims but the last */
	long long h, w;         /* the last two dims (1 and n for 1-D, 1 and 1 for 0-d) */
	long long tile_h, tile_w, tile_cols;
	float *tiles;
};

/*
 * A segment is one tile column of one row: segment g is row g / tile_cols, tile column
 * g % tile_cols. The loops walk segments [slo, shi) and keep the tile maxima in `tiles`.
 */
#define CMP_LOOP(NAME, T, NC, VISIT) \
	static void NAME(struct cmp_state *s, const T *cp, const T *rp, const struct cmp_walk *w, size_t slo, \
			 size_t shi, float *tiles) \
	{ \
		size_t row = slo / (size_t)w->tile_cols; \
		long long tc = (long long)(slo % (size_t)w->tile_cols); \
		for (size_t g = slo; g < shi; g++) { \
			float *trow = tiles + (long long)(row % (size_t)w->h) / w->tile_h * w->tile_cols; \
			long long lo = tc * w->tile_w; \
			long long hi = lo + w->tile_w < w->w ? lo + w->tile_w : w->w; \
			size_t e = row * (size_t)w->w + (size_t)lo, end = e + (size_t)(hi - lo); \
			double tmax = 0; \
			for (; e < end; e++) \
				for (int k = 0; k < (NC); k++) \
					VISIT(s, cp[e * (NC) + k], rp[e * (NC) + k], e, k, &tmax); \
			if ((float)tmax > trow[tc]) \
				trow[tc] = (float)tmax; \
			if (++tc == w->tile_cols) { \
				tc = 0; \
				row++; \
			} \
		} \
	}

/*
 * ULP distances of finite pairs are read off the bit patterns in hand: the same ordered-key
 * distance as dtype_ulp_distance (the tests hold the two equal), without a call per element
 * that rounds both values back to their dtype first; through that call the comparison took
 * half as long again for f32 and twice as long for f16 and bf16.
 */
static inline double key_dist(int64_t ka, int64_t kb)
{
	return (double)(ka >= kb ? (uint64_t)ka - (uint64_t)kb : (uint64_t)kb - (uint64_t)ka);
}

static inline int64_t key_of(uint64_t bits, uint64_t sign)
{
	return bits & sign ? -(int64_t)(bits & (sign - 1)) : (int64_t)bits;
}

static inline double ulp_f16bits(uint16_t a, uint16_t b)
{
	return key_dist(key_of(a, 0x8000), key_of(b, 0x8000));
}

static inline double ulp_f32(float a, float b)
{
	uint32_t ua, ub;

	memcpy(&ua, &a, sizeof(ua));
	memcpy(&ub, &b, sizeof(ub));
	return key_dist(key_of(ua, 1ULL << 31), key_of(ub, 1ULL << 31));
}

static inline double ulp_f64(double a, double b)
{
	uint64_t ua, ub;

	memcpy(&ua, &a, sizeof(ua));
	memcpy(&ub, &b, sizeof(ub));
	return key_dist(key_of(ua, 1ULL << 63), key_of(ub, 1ULL << 63));
}

#define VISIT_F32(s, c, r, e, k, tm) visit_float(s, c, r, e, k, tm, ulp_f32(c, r))
#define VISIT_F64(s, c, r, e, k, tm) visit_float(s, c, r, e, k, tm, ulp_f64(c, r))
#define VISIT_F16(s, c, r, e, k, tm) visit_float(s, f16_to_f32(c), f16_to_f32(r), e, k, tm, ulp_f16bits(c, r))
#define VISIT_BF16(s, c, r, e, k, tm) visit_float(s, bf16_to_f32(c), bf16_to_f32(r), e, k, tm, ulp_f16bits(c, r))
#define VISIT_INT(s, c, r, e, k, tm) visit_int(s, (long long)(c), (long long)(r), e, k, tm)

CMP_LOOP(loop_f32, float, 1, VISIT_F32)
CMP_LOOP(loop_f64, double, 1, VISIT_F64)
CMP_LOOP(loop_f16, uint16_t, 1, VISIT_F16)
CMP_LOOP(loop_bf16, uint16_t, 1, VISIT_BF16)
CMP_LOOP(loop_c64, float, 2, VISIT_F32)
CMP_LOOP(loop_i8, int8_t, 1, VISIT_INT)
CMP_LOOP(loop_u8, uint8_t, 1, VISIT_INT)
CMP_LOOP(loop_i16, int16_t, 1, VISIT_INT)
CMP_LOOP(loop_i32, int32_t, 1, VISIT_INT)
CMP_LOOP(loop_i64, int64_t, 1, VISIT_INT)

void compare_tolerance(const struct tolerance *tol, enum dtype dt, double *rtol, double *atol)
{
	double def = 0;

	switch (dt) {
	case DT_F16:
	case DT_BF16:
		def = 5e-3;
		break;
	case DT_F32:
	case DT_F64:
	case DT_C64:
		def = 1e-5;
		break;
	case DT_I8:
	case DT_U8:
	case DT_I16:
	case DT_I32:
	case DT_I64:
	case DT_BOOL:
	case DT_COUNT:
		/* Exact whatever the task says: its [tolerance] is for its float outputs, and an
		 * index output next to them (topk, argmax) must still match exactly. */
		*rtol = 0;
		*atol = 0;
		return;
	}
	*rtol = tol && tol->rtol >= 0 ? tol->rtol : def;
	*atol = tol && tol->atol >= 0 ? tol->atol : def;
	if (tol && tol->atol_scale > 0)
		*atol *= tol->atol_scale;
	/* a perf row's bound ([tolerance.perf]) only ever loosens the case tolerance */
	if (tol && tol->perf_rtol > *rtol)
		*rtol = tol->perf_rtol;
	if (tol && tol->perf_atol > *atol)
		*atol = tol->perf_atol;
}

/* A shape of more than CMP_MAX_DIMS dims has its leading dims folded into one. */
static int effective_shape(const long long *shape, int ndim, long long *eff)
{
	int fold, i;

	if (ndim <= CMP_MAX_DIMS) {
		for (i = 0; i < ndim; i++)
			eff[i] = shape[i] > 0 ? shape[i] : 0;
		return ndim;
	}
	fold = ndim - CMP_MAX_DIMS + 1;
	eff[0] = 1;
	for (i = 0; i < fold; i++)
		eff[0] *= shape[i] > 0 ? shape[i] : 0;
	for (i = fold; i < ndim; i++)
		eff[i - fold + 1] = shape[i] > 0 ? shape[i] : 0;
	return CMP_MAX_DIMS;
}

static long long ceil_div(long long a, long long b)
{
	return (a + b - 1) / b;
}

static void metrics(const struct cmp_state *s, struct cmp_result *out)
{
	if (s->cc == 0 && s->rr == 0)
		out->cosine = 1;
	else if (s->cc == 0 || s->rr == 0)
		out->cosine = 0;
	else
		out->cosine = s->dot / (sqrt(s->cc) * sqrt(s->rr));
	if (s->l1d > 0)
		out->l1_relative = s->l1n / s->l1d;
	else
		out->l1_relative = s->l1n > 0 ? INFINITY : 0;
	out->rmse = s->nfinite ? sqrt(s->se / (double)s->nfinite) : 0;
}

static void run_loop(enum dtype dt, struct cmp_state *s, const void *cand, const void *ref, const struct cmp_walk *w,
		     size_t slo, size_t shi, float *tiles)
{
	switch (dt) {
	case DT_F32: loop_f32(s, cand, ref, w, slo, shi, tiles); break;
	case DT_F64: loop_f64(s, cand, ref, w, slo, shi, tiles); break;
	case DT_F16: loop_f16(s, cand, ref, w, slo, shi, tiles); break;
	case DT_BF16: loop_bf16(s, cand, ref, w, slo, shi, tiles); break;
	case DT_C64: loop_c64(s, cand, ref, w, slo, shi, tiles); break;
	case DT_I8: loop_i8(s, cand, ref, w, slo, shi, tiles); break;
	/* bool bytes compare raw: a byte the kernel never wrote still holds poison (0xA5), which
	 * must not pass for "true". */
	case DT_U8:
	case DT_BOOL: loop_u8(s, cand, ref, w, slo, shi, tiles); break;
	case DT_I16: loop_i16(s, cand, ref, w, slo, shi, tiles); break;
	case DT_I32: loop_i32(s, cand, ref, w, slo, shi, tiles); break;
	case DT_I64: loop_i64(s, cand, ref, w, slo, shi, tiles); break;
	case DT_COUNT: break;
	}
	flush_block(s);
}

/* Fold chunk state b into a (b covers later elements than a). */
static void merge_state(struct cmp_state *a, const struct cmp_state *b)
{
	int i;

	a->mm += b->mm;
	a->nan_mm += b->nan_mm;
	a->inf_mm += b->inf_mm;
	a->cand_nf += b->cand_nf;
	a->ref_nf += b->ref_nf;
	for (i = 0; i < CMP_HIST; i++)
		a->hist[i] += b->hist[i];
	if (b->max_abs > a->max_abs)
		a->max_abs = b->max_abs;
	if (b->max_rel > a->max_rel)
		a->max_rel = b->max_rel;
	if (b->max_ulp > a->max_ulp)
		a->max_ulp = b->max_ulp;
	a->dot += b->dot;
	a->cc += b->cc;
	a->rr += b->rr;
	a->l1n += b->l1n;
	a->l1d += b->l1d;
	a->se += b->se;
	a->nfinite += b->nfinite;
	/* In b's order after a's: equal keys keep the earlier element first, as one pass would. */
	for (i = 0; i < b->nworst; i++) {
		const struct worst_slot *w = &b->worst[i];

		worst_insert(a, w->cls, w->idx, w->comp, w->cand, w->ref, w->abs_err, w->rel_err, w->ulp, w->score);
	}
}

/*
 * Large buffers are compared in chunks of about CMP_CHUNK elements (whole segments), each with
 * its own state, on several threads; the states are folded in chunk order. The chunks depend on
 * the shape only, never on the number of threads, so the sums (and every figure) are the same
 * on any machine; a buffer of one chunk is one pass, exactly as before chunks existed.
 */
#define CMP_CHUNK ((size_t)1 << 20)

struct chunk_job {
	enum dtype dt;
	const void *cand, *ref;
	const struct cmp_walk *w;
	size_t segs, per;               /* segments in all, per chunk */
	struct cmp_state *states;       /* one per chunk, zeroed, tolerances set */
	float *tiles;                   /* the result's tile map: maxima merged under lock */
	pthread_mutex_t lock;
};

static void chunk_range(void *arg, size_t lo, size_t hi)
{
	struct chunk_job *j = arg;
	float tiles[CMP_TILES * CMP_TILES];
	size_t c;
	int i;

	memset(tiles, 0, sizeof(tiles));
	for (c = lo; c < hi; c++) {
		size_t slo = c * j->per, shi = slo + j->per < j->segs ? slo + j->per : j->segs;

		run_loop(j->dt, &j->states[c], j->cand, j->ref, j->w, slo, shi, tiles);
	}
	pthread_mutex_lock(&j->lock);
	for (i = 0; i < CMP_TILES * CMP_TILES; i++)
		if (tiles[i] > j->tiles[i])
			j->tiles[i] = tiles[i];
	pthread_mutex_unlock(&j->lock);
}

static void compare_walk(enum dtype dt, struct cmp_state *s, const void *cand, const void *ref,
			 const struct cmp_walk *w)
{
	size_t segs = w->rows * (size_t)w->tile_cols, per, nchunks, c;
	struct chunk_job j;

	if (!segs)
		return;
	per = CMP_CHUNK / (size_t)w->tile_w;
	if (per == 0)
		per = 1;
	nchunks = (segs + per - 1) / per;
	if (nchunks <= 1) {
		run_loop(dt, s, cand, ref, w, 0, segs, w->tiles);
		return;
	}
	j.dt = dt;
	j.cand = cand;
	j.ref = ref;
	j.w = w;
	j.segs = segs;
	j.per = per;
	j.tiles = w->tiles;
	j.states = xcalloc(nchunks, sizeof(*j.states));
	for (c = 0; c < nchunks; c++) {
		j.states[c].rtol = s->rtol;
		j.states[c].atol = s->atol;
		j.states[c].ulp_dt = s->ulp_dt;
	}
	pthread_mutex_init(&j.lock, NULL);
	parallel_for(nchunks, 1, chunk_range, &j);
	pthread_mutex_destroy(&j.lock);
	for (c = 0; c < nchunks; c++)
		merge_state(s, &j.states[c]);
	free(j.states);
}

void compare_buffers(enum dtype dt, const void *cand, const void *ref, const long long *shape, int ndim,
		     const struct tolerance *tol, struct cmp_result *out)
{
	static struct cmp_state zero_state;
	struct cmp_state s = zero_state;
	long long eff[CMP_MAX_DIMS];
	struct cmp_walk w;
	size_t nelem = 1;
	int nd, ncomp, i;

	memset(out, 0, sizeof(*out));
	nd = effective_shape(shape, ndim < 0 ? 0 : ndim, eff);
	for (i = 0; i < nd; i++)
		nelem *= (size_t)eff[i];
	ncomp = dtype_components(dt);

	compare_tolerance(tol, dt, &s.rtol, &s.atol);
	s.ulp_dt = dt == DT_C64 ? DT_F32 : dt;

	w.h = nd >= 2 ? eff[nd - 2] : 1;
	w.w = nd >= 1 ? eff[nd - 1] : 1;
	w.tiles = out->tiles;
	if (nelem == 0) {
		w.rows = 0;
		w.tile_h = w.tile_w = 1;
		out->tile_rows = out->tile_cols = 0;
	} else {
		w.rows = nelem / (size_t)w.w;
		w.tile_h = ceil_div(w.h, CMP_TILES);
		w.tile_w = ceil_div(w.w, CMP_TILES);
		out->tile_rows = (int)ceil_div(w.h, w.tile_h);
		out->tile_cols = (int)ceil_div(w.w, w.tile_w);
	}
	w.tile_cols = out->tile_cols;
	out->tile_h = w.tile_h;
	out->tile_w = w.tile_w;

	compare_walk(dt, &s, cand, ref, &w);

	out->n = nelem * (size_t)ncomp;
	out->mismatches = s.mm;
	memcpy(out->hist, s.hist, sizeof(out->hist));
	out->nan_mismatches = s.nan_mm;
	out->inf_mismatches = s.inf_mm;
	out->cand_nonfinite = s.cand_nf;
	out->ref_nonfinite = s.ref_nf;
	out->finite = s.nfinite;
	out->max_abs = s.max_abs;
	out->max_rel = s.max_rel;
	out->max_ulp = s.max_ulp;
	out->rtol = s.rtol;
	out->atol = s.atol;
	metrics(&s, out);

	if (tol && tol->metric) {
		out->pass = s.nan_mm == 0 && s.inf_mm == 0;
		if (tol->cosine_sim >= 0 && !(out->cosine >= tol->cosine_sim))
			out->pass = 0;
		if (tol->l1_relative >= 0 && !(out->l1_relative <= tol->l1_relative))
			out->pass = 0;
		/* rmse is an absolute error, like atol: a scaled case moves it by the same factor */
		if (tol->rmse >= 0 && !(out->rmse <= tol->rmse * (tol->atol_scale > 0 ? tol->atol_scale : 1)))
			out->pass = 0;
	} else {
		out->pass = s.mm == 0;
	}

	out->nworst = s.nworst;
	for (i = 0; i < s.nworst; i++) {
		const struct worst_slot *ws = &s.worst[i];
		struct cmp_elem *el = &out->worst[i];
		size_t rest = ws->idx;

		for (int d = nd - 1; d >= 0; d--) {
			el->coord[d] = (long long)(rest % (size_t)eff[d]);
			rest /= (size_t)eff[d];
		}
		el->ndim = nd;
		el->component = ws->comp;
		el->cand = ws->cand;
		el->ref = ws->ref;
		el->abs_err = ws->abs_err;
		el->rel_err = ws->rel_err;
		el->ulp = ws->ulp;
		el->score = ws->score;
	}
}

void compare_nonfinite_note(const struct cmp_result *r, char *buf, size_t size)
{
	int len = 0;

	if (!size)
		return;
	buf[0] = '\0';
	if (r->cand_nonfinite)
		len += snprintf(buf + len, size - (size_t)len, "%zu NaN/inf in the candidate where the reference is finite",
				r->cand_nonfinite);
	if (r->ref_nonfinite && (size_t)len < size)
		len += snprintf(buf + len, size - (size_t)len, "%s%zu finite in the candidate where the reference is NaN/inf",
				len ? ", " : "", r->ref_nonfinite);
	/* other non-finite pairs (NaN against inf, -inf against inf) leave the figures short too */
	if (r->finite < r->n && (r->nan_mismatches || r->inf_mismatches) && (size_t)len < size)
		snprintf(buf + len, size - (size_t)len, "%smax abs and metrics over %zu of %zu finite pairs", len ? "; " : "",
			 r->finite, r->n);
}

int compare_bitwise(const void *a, const void *b, size_t bytes)
{
	return bytes == 0 || memcmp(a, b, bytes) == 0;
}
