#include "compare.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "util.h"

/*
 * One pass over the buffers. The loops are instantiated per dtype by a macro so that the load
 * of an element is a plain typed read, not a switch per element: this runs on outputs of
 * 100M elements. Coordinates of the worst elements are only worked out at the end, from their
 * flat index; tiles are walked as (row, tile column, element) so that no division happens per
 * element. What happens to one element (its class, errors, ULP distance, histogram bin, the worst
 * list, the metric sums) is cmp_core.h, which the GPU comparison (gpucompare.h) compiles too.
 */

CMP_STATIC_ASSERT(CMPC_WORST == CMP_WORST && CMPC_HIST == CMP_HIST && CMPC_TILES == CMP_TILES,
		  "compare.h and cmp_core.h disagree");

/*
 * A segment is one tile column of one row: segment g is row g / tile_cols, tile column
 * g % tile_cols. The loops walk segments [slo, shi) and keep the tile maxima in `tiles`.
 */
#define CMP_LOOP(NAME, T, NC, VISIT) \
	static void NAME(struct cmp_state *s, const T *cp, const T *rp, const struct cmp_geom *w, size_t slo, \
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

CMP_LOOP(loop_f32, float, 1, CMP_VISIT_F32)
CMP_LOOP(loop_f64, double, 1, CMP_VISIT_F64)
CMP_LOOP(loop_f16, uint16_t, 1, CMP_VISIT_F16)
CMP_LOOP(loop_bf16, uint16_t, 1, CMP_VISIT_BF16)
CMP_LOOP(loop_c64, float, 2, CMP_VISIT_F32)
CMP_LOOP(loop_i8, int8_t, 1, CMP_VISIT_INT)
CMP_LOOP(loop_u8, uint8_t, 1, CMP_VISIT_INT)
CMP_LOOP(loop_i16, int16_t, 1, CMP_VISIT_INT)
CMP_LOOP(loop_i32, int32_t, 1, CMP_VISIT_INT)
CMP_LOOP(loop_i64, int64_t, 1, CMP_VISIT_INT)

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

static void run_loop(enum dtype dt, struct cmp_state *s, const void *cand, const void *ref, const struct cmp_geom *w,
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
	cmp_flush_block(s);
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
	const struct cmp_geom *w;
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
			 const struct cmp_geom *w, float *tiles)
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
		run_loop(dt, s, cand, ref, w, 0, segs, tiles);
		return;
	}
	j.dt = dt;
	j.cand = cand;
	j.ref = ref;
	j.w = w;
	j.segs = segs;
	j.per = per;
	j.tiles = tiles;
	j.states = xcalloc(nchunks, sizeof(*j.states));
	for (c = 0; c < nchunks; c++) {
		j.states[c].rtol = s->rtol;
		j.states[c].atol = s->atol;
	}
	pthread_mutex_init(&j.lock, NULL);
	parallel_for(nchunks, 1, chunk_range, &j);
	pthread_mutex_destroy(&j.lock);
	for (c = 0; c < nchunks; c++)
		cmp_merge_state(s, &j.states[c]);
	free(j.states);
}

void compare_setup(enum dtype dt, const long long *shape, int ndim, const struct tolerance *tol,
		   struct cmp_state *s, struct cmp_setup *su, struct cmp_result *out)
{
	struct cmp_geom *w = &su->g;
	size_t nelem = 1;
	int i;

	memset(out, 0, sizeof(*out));
	memset(s, 0, sizeof(*s));
	memset(su, 0, sizeof(*su));
	su->nd = effective_shape(shape, ndim < 0 ? 0 : ndim, su->eff);
	for (i = 0; i < su->nd; i++)
		nelem *= (size_t)su->eff[i];
	su->ncomp = dtype_components(dt);
	compare_tolerance(tol, dt, &s->rtol, &s->atol);

	w->n = nelem;
	w->h = su->nd >= 2 ? su->eff[su->nd - 2] : 1;
	w->w = su->nd >= 1 ? su->eff[su->nd - 1] : 1;
	if (nelem == 0) {
		w->rows = 0;
		w->tile_h = w->tile_w = 1;
		out->tile_rows = out->tile_cols = 0;
	} else {
		w->rows = nelem / (size_t)w->w;
		w->tile_h = ceil_div(w->h, CMP_TILES);
		w->tile_w = ceil_div(w->w, CMP_TILES);
		out->tile_rows = (int)ceil_div(w->h, w->tile_h);
		out->tile_cols = (int)ceil_div(w->w, w->tile_w);
	}
	w->tile_cols = out->tile_cols;
	out->tile_h = w->tile_h;
	out->tile_w = w->tile_w;
	out->rtol = s->rtol;
	out->atol = s->atol;
}

void compare_finish(const struct cmp_state *s, const struct cmp_setup *su, const struct tolerance *tol,
		    struct cmp_result *out)
{
	int i;

	out->n = (size_t)su->g.n * (size_t)su->ncomp;
	out->mismatches = s->mm;
	memcpy(out->hist, s->hist, sizeof(out->hist));
	out->nan_mismatches = s->nan_mm;
	out->inf_mismatches = s->inf_mm;
	out->cand_nonfinite = s->cand_nf;
	out->ref_nonfinite = s->ref_nf;
	out->finite = s->nfinite;
	out->max_abs = s->max_abs;
	out->max_rel = s->max_rel;
	out->max_ulp = s->max_ulp;
	out->rtol = s->rtol;
	out->atol = s->atol;
	metrics(s, out);

	if (tol && tol->metric) {
		out->pass = s->nan_mm == 0 && s->inf_mm == 0;
		if (tol->cosine_sim >= 0 && !(out->cosine >= tol->cosine_sim))
			out->pass = 0;
		if (tol->l1_relative >= 0 && !(out->l1_relative <= tol->l1_relative))
			out->pass = 0;
		/* rmse is an absolute error, like atol: a scaled case moves it by the same factor */
		if (tol->rmse >= 0 && !(out->rmse <= tol->rmse * (tol->atol_scale > 0 ? tol->atol_scale : 1)))
			out->pass = 0;
	} else {
		out->pass = s->mm == 0;
	}

	out->nworst = s->nworst;
	for (i = 0; i < s->nworst; i++) {
		const struct cmp_worst_slot *ws = &s->worst[i];
		struct cmp_elem *el = &out->worst[i];
		size_t rest = (size_t)ws->idx;

		for (int d = su->nd - 1; d >= 0; d--) {
			el->coord[d] = (long long)(rest % (size_t)su->eff[d]);
			rest /= (size_t)su->eff[d];
		}
		el->ndim = su->nd;
		el->component = ws->comp;
		el->cand = ws->cand;
		el->ref = ws->ref;
		el->abs_err = ws->abs_err;
		el->rel_err = ws->rel_err;
		el->ulp = ws->ulp;
		el->score = ws->score;
	}
}

void compare_buffers(enum dtype dt, const void *cand, const void *ref, const long long *shape, int ndim,
		     const struct tolerance *tol, struct cmp_result *out)
{
	struct cmp_state s;
	struct cmp_setup su;

	compare_setup(dt, shape, ndim, tol, &s, &su, out);
	compare_walk(dt, &s, cand, ref, &su.g, out->tiles);
	compare_finish(&s, &su, tol, out);
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

/* ---- two reports of one comparison ------------------------------------------------------------ */

/* a and b the same (NaN with NaN), or within ulps units in the last place: of a float when
 * as_float (tile scores are floats), else of a double. */
static int close_ulps(double a, double b, int ulps, int as_float)
{
	if ((isnan(a) && isnan(b)) || a == b)
		return 1;
	if (isnan(a) || isnan(b) || isinf(a) || isinf(b))
		return 0;
	for (int i = 0; i < ulps && a != b; i++)
		a = as_float ? (double)nextafterf((float)a, (float)b) : nextafter(a, b);
	return a == b;
}

static int close_metric(double a, double b, double rtol, double scale)
{
	if ((isnan(a) && isnan(b)) || a == b)
		return 1;
	return fabs(a - b) <= rtol * fmax(scale, fmax(fabs(a), fabs(b)));
}

int compare_results_differ(const struct cmp_result *a, const struct cmp_result *b, double metric_rtol, int ulps,
			   char *why, size_t len)
{
	int i;

	if (len)
		why[0] = 0;
	if (a->n != b->n || a->mismatches != b->mismatches || a->nan_mismatches != b->nan_mismatches ||
	    a->inf_mismatches != b->inf_mismatches || a->cand_nonfinite != b->cand_nonfinite ||
	    a->ref_nonfinite != b->ref_nonfinite || a->finite != b->finite || a->pass != b->pass) {
		snprintf(why, len, "counts differ: n %zu/%zu, mismatches %zu/%zu, NaN %zu/%zu, inf %zu/%zu, candidate "
			 "non-finite %zu/%zu, reference non-finite %zu/%zu, finite %zu/%zu, pass %d/%d", a->n, b->n,
			 a->mismatches, b->mismatches, a->nan_mismatches, b->nan_mismatches, a->inf_mismatches,
			 b->inf_mismatches, a->cand_nonfinite, b->cand_nonfinite, a->ref_nonfinite, b->ref_nonfinite,
			 a->finite, b->finite, a->pass, b->pass);
		return 1;
	}
	if (!close_ulps(a->max_abs, b->max_abs, ulps, 0) || !close_ulps(a->max_rel, b->max_rel, ulps, 0) ||
	    !close_ulps(a->max_ulp, b->max_ulp, ulps, 0) || a->rtol != b->rtol || a->atol != b->atol) {
		snprintf(why, len, "maxima differ: abs %.17g/%.17g, rel %.17g/%.17g, ULP %.17g/%.17g, rtol %g/%g, atol %g/%g",
			 a->max_abs, b->max_abs, a->max_rel, b->max_rel, a->max_ulp, b->max_ulp, a->rtol, b->rtol, a->atol,
			 b->atol);
		return 1;
	}
	if (memcmp(a->hist, b->hist, sizeof(a->hist))) {
		snprintf(why, len, "the error histograms differ");
		return 1;
	}
	if (!close_metric(a->cosine, b->cosine, metric_rtol, 1) || !close_metric(a->l1_relative, b->l1_relative, metric_rtol, 0) ||
	    !close_metric(a->rmse, b->rmse, metric_rtol, 0)) {
		snprintf(why, len, "metrics differ: cosine %.17g/%.17g, l1_relative %.17g/%.17g, rmse %.17g/%.17g", a->cosine,
			 b->cosine, a->l1_relative, b->l1_relative, a->rmse, b->rmse);
		return 1;
	}
	if (a->tile_rows != b->tile_rows || a->tile_cols != b->tile_cols || a->tile_h != b->tile_h ||
	    a->tile_w != b->tile_w) {
		snprintf(why, len, "tile maps differ in shape: %dx%d of %lldx%lld against %dx%d of %lldx%lld", a->tile_rows,
			 a->tile_cols, a->tile_h, a->tile_w, b->tile_rows, b->tile_cols, b->tile_h, b->tile_w);
		return 1;
	}
	for (i = 0; i < CMP_TILES * CMP_TILES; i++)
		if (!close_ulps(a->tiles[i], b->tiles[i], ulps, 1)) {
			snprintf(why, len, "tile %d differs: %.9g against %.9g", i, (double)a->tiles[i], (double)b->tiles[i]);
			return 1;
		}
	if (a->nworst != b->nworst) {
		snprintf(why, len, "%d worst elements against %d", a->nworst, b->nworst);
		return 1;
	}
	for (i = 0; i < a->nworst; i++) {
		const struct cmp_elem *x = &a->worst[i], *y = &b->worst[i];

		if (x->ndim != y->ndim || memcmp(x->coord, y->coord, sizeof(x->coord)) || x->component != y->component ||
		    !close_ulps(x->cand, y->cand, 0, 0) || !close_ulps(x->ref, y->ref, 0, 0) ||
		    !close_ulps(x->abs_err, y->abs_err, ulps, 0) || !close_ulps(x->rel_err, y->rel_err, ulps, 0) ||
		    !close_ulps(x->ulp, y->ulp, ulps, 0) || !close_ulps(x->score, y->score, ulps, 0)) {
			snprintf(why, len, "worst element %d differs: at [%lld...] score %.17g, against [%lld...] score %.17g", i,
				 x->coord[0], x->score, y->coord[0], y->score);
			return 1;
		}
	}
	return 0;
}

int compare_bitwise(const void *a, const void *b, size_t bytes)
{
	return bytes == 0 || memcmp(a, b, bytes) == 0;
}
