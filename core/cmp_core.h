/*
 * cmp_core.h - the per-element rules of compare.h, shared by the host and the GPU.
 *
 * Written in the common subset of C99 and CUDA C++: compare.c includes it for the host path,
 * and gpucompare.c embeds its text (core/cmp_core_src.c, generated from this file by make)
 * into the comparison kernel that kbx compiles with NVRTC. Nothing here calls libc on the
 * device; the few operations that differ are macros below (CMP_*). Products and sums go
 * through CMP_MUL / CMP_ADD: on the device they are __dmul_rn / __dadd_rn, because NVRTC would
 * otherwise contract a + b * c into a fused multiply-add and round differently from the host
 * (tolerances atol + rtol * |r| must be the same double on both sides, or a count changes).
 *
 * struct cmp_state is one pass's running state over a run of elements; it is also the record
 * a GPU thread block writes for its chunk (the layout is the same on both sides: CMP_STATE_BYTES
 * is checked by each compiler). Records are folded with cmp_merge_state in element order.
 *
 * The worst list is ordered by (class, score, |err|, element index, component): a total order,
 * so that the 16 worst elements of a buffer are the same set in the same order whatever order
 * the elements were visited in (one pass, chunks on threads, thread blocks). In one pass in
 * index order this is exactly "equal keys keep index order".
 */
#ifndef KBX_CMP_CORE_H
#define KBX_CMP_CORE_H

#define CMPC_WORST 16
#define CMPC_HIST 16
#define CMPC_TILES 32
/* finite pairs per block of the metric sums (see struct cmp_state) */
#define CMPC_SUMBLOCK 4096
#define CMP_STATE_BYTES 1352

#if defined(__CUDACC__)
#define CMP_FN static __device__ __forceinline__
#define CMP_TABLE static __device__ const
typedef unsigned long long cmp_u64;
typedef long long cmp_i64;
#define CMP_INF __longlong_as_double(0x7ff0000000000000LL)
#define CMP_NAN __longlong_as_double(0x7ff8000000000000LL)
#define CMP_ISNAN(x) isnan(x)
#define CMP_ISFINITE(x) isfinite(x)
#define CMP_FABS(x) fabs(x)
#define CMP_MUL(a, b) __dmul_rn((a), (b))
#define CMP_ADD(a, b) __dadd_rn((a), (b))
#define CMP_SUB(a, b) __dsub_rn((a), (b))
#define CMP_F32_BITS(f) ((cmp_u64)__float_as_uint(f))
#define CMP_F64_BITS(d) ((cmp_u64)__double_as_longlong(d))
#define CMP_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#include <math.h>
#include <stdint.h>
#include <string.h>
#define CMP_FN static inline
#define CMP_TABLE static const
typedef uint64_t cmp_u64;
typedef int64_t cmp_i64;
#define CMP_INF INFINITY
#define CMP_NAN NAN
#define CMP_ISNAN(x) isnan(x)
#define CMP_ISFINITE(x) isfinite(x)
#define CMP_FABS(x) fabs(x)
#define CMP_MUL(a, b) ((a) * (b))
#define CMP_ADD(a, b) ((a) + (b))
#define CMP_SUB(a, b) ((a) - (b))
#define CMP_F32_BITS(f) cmp_f32_bits(f)
#define CMP_F64_BITS(d) cmp_f64_bits(d)
#define CMP_STATIC_ASSERT(c, m) _Static_assert(c, m)

CMP_FN cmp_u64 cmp_f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

CMP_FN cmp_u64 cmp_f64_bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}
#endif

struct cmp_worst_slot {
	cmp_u64 idx;            /* flat element index */
	int comp;
	int cls;                /* 2: NaN/Inf mismatch, 1: anything else with a positive score */
	double cand, ref, abs_err, rel_err, ulp, score;
};

struct cmp_state {
	double rtol, atol;
	cmp_u64 mm, nan_mm, inf_mm;
	cmp_u64 cand_nf, ref_nf;        /* one side non-finite, the other finite */
	cmp_u64 nfinite;
	cmp_u64 hist[CMPC_HIST];
	double max_abs, max_rel, max_ulp;
	/* Sums over finite pairs, accumulated in blocks of CMPC_SUMBLOCK so that 100M small terms
	 * do not drown in one large running total. */
	double b_dot, b_cc, b_rr, b_l1n, b_l1d, b_se;
	double dot, cc, rr, l1n, l1d, se;
	double worst_floor;     /* score of the last slot once all are taken */
	int b_n;
	int nworst;
	struct cmp_worst_slot worst[CMPC_WORST];
};

CMP_STATIC_ASSERT(sizeof(struct cmp_worst_slot) == 64, "cmp_worst_slot layout");
CMP_STATIC_ASSERT(sizeof(struct cmp_state) == CMP_STATE_BYTES, "cmp_state layout");

CMP_FN void cmp_flush_block(struct cmp_state *s)
{
	s->dot = CMP_ADD(s->dot, s->b_dot);
	s->cc = CMP_ADD(s->cc, s->b_cc);
	s->rr = CMP_ADD(s->rr, s->b_rr);
	s->l1n = CMP_ADD(s->l1n, s->b_l1n);
	s->l1d = CMP_ADD(s->l1d, s->b_l1d);
	s->se = CMP_ADD(s->se, s->b_se);
	s->b_dot = s->b_cc = s->b_rr = s->b_l1n = s->b_l1d = s->b_se = 0;
	s->b_n = 0;
}

CMP_FN void cmp_add_finite(struct cmp_state *s, double c, double r, double d)
{
	s->b_dot = CMP_ADD(s->b_dot, CMP_MUL(c, r));
	s->b_cc = CMP_ADD(s->b_cc, CMP_MUL(c, c));
	s->b_rr = CMP_ADD(s->b_rr, CMP_MUL(r, r));
	s->b_l1n = CMP_ADD(s->b_l1n, CMP_FABS(d));
	s->b_l1d = CMP_ADD(s->b_l1d, CMP_FABS(r));
	s->b_se = CMP_ADD(s->b_se, CMP_MUL(d, d));
	s->nfinite++;
	if (++s->b_n == CMPC_SUMBLOCK)
		cmp_flush_block(s);
}

/* The worst-list order on keys; ord = idx * 2 + comp. An equal |err| or a NaN one (only
 * NaN/Inf mismatches, class 2, have one) falls to index order, earlier first. */
CMP_FN int cmp_key_worse(int cls, double score, double abs_err, cmp_u64 ord, int wcls, double wscore, double wabs,
			 cmp_u64 word)
{
	if (cls != wcls)
		return cls > wcls;
	if (score != wscore)
		return score > wscore;
	if (abs_err > wabs)
		return 1;
	if (abs_err < wabs)
		return 0;
	return ord < word;
}

CMP_FN int cmp_worse_than(int cls, double score, double abs_err, cmp_u64 idx, int comp, const struct cmp_worst_slot *w)
{
	return cmp_key_worse(cls, score, abs_err, idx * 2 + (cmp_u64)comp, w->cls, w->score, w->abs_err,
			     w->idx * 2 + (cmp_u64)w->comp);
}

CMP_FN void cmp_worst_insert(struct cmp_state *s, int cls, cmp_u64 idx, int comp, double c, double r, double abs_err,
			     double rel_err, double ulp, double score)
{
	int i;

	if (s->nworst == CMPC_WORST && !cmp_worse_than(cls, score, abs_err, idx, comp, &s->worst[CMPC_WORST - 1]))
		return;
	i = s->nworst < CMPC_WORST ? s->nworst++ : CMPC_WORST - 1;
	while (i > 0 && cmp_worse_than(cls, score, abs_err, idx, comp, &s->worst[i - 1])) {
		s->worst[i] = s->worst[i - 1];
		i--;
	}
	s->worst[i].idx = idx;
	s->worst[i].comp = comp;
	s->worst[i].cls = cls;
	s->worst[i].cand = c;
	s->worst[i].ref = r;
	s->worst[i].abs_err = abs_err;
	s->worst[i].rel_err = rel_err;
	s->worst[i].ulp = ulp;
	s->worst[i].score = score;
	if (s->nworst == CMPC_WORST)
		s->worst_floor = s->worst[CMPC_WORST - 1].score;
}

/* A pair with a NaN or an infinity. ulp is the ordered-key distance of the two bit patterns
 * (as dtype_ulp_distance gives for values of the dtype): NaN against anything, and opposite
 * infinities, are inf. Returns the score (0 when the pair matches). */
CMP_FN double cmp_nonfinite_pair(struct cmp_state *s, double c, double r, cmp_u64 idx, int comp, double ulp)
{
	double abs_err;

	if (CMP_ISNAN(c) || CMP_ISNAN(r)) {
		if (CMP_ISNAN(c) && CMP_ISNAN(r)) {
			s->hist[0]++;
			return 0;
		}
		s->nan_mm++;
		abs_err = CMP_NAN;
		ulp = CMP_INF;
	} else {
		if (c == r) {
			s->hist[0]++;
			return 0;
		}
		s->inf_mm++;
		abs_err = CMP_INF;
		if (!CMP_ISFINITE(c) && !CMP_ISFINITE(r))
			ulp = CMP_INF;  /* -inf against inf */
	}
	if (CMP_ISFINITE(r))
		s->cand_nf++;
	else if (CMP_ISFINITE(c))
		s->ref_nf++;
	s->mm++;
	s->hist[CMPC_HIST - 1]++;
	cmp_worst_insert(s, 2, idx, comp, c, r, abs_err, abs_err, ulp, CMP_INF);
	return CMP_INF;
}

/* Histogram bin of a nonzero finite error a against tolerance tol (see CMP_HIST in compare.h). */
CMP_TABLE double cmp_decade[13] = { 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6 };

CMP_FN int cmp_hist_bin(double a, double tol)
{
	int b = 1;

	while (b < CMPC_HIST - 2 && !(a < CMP_MUL(cmp_decade[b - 1], tol)))
		b++;
	return b;
}

/*
 * The hot path. Divisions are the expensive part, so the score (|err| / tol) and the relative
 * error are compared by multiplying first and only divided out when they may set a new maximum
 * or enter the worst list. *tmax is the running maximum score of the current tile.
 */
CMP_FN void cmp_visit_float(struct cmp_state *s, double c, double r, cmp_u64 idx, int comp, double *tmax, double ulp)
{
	double d, a, ar, tol;

	if (!CMP_ISFINITE(c) || !CMP_ISFINITE(r)) {
		if (cmp_nonfinite_pair(s, c, r, idx, comp, ulp) > 0)
			*tmax = CMP_INF;
		return;
	}
	d = CMP_SUB(c, r);
	a = CMP_FABS(d);
	ar = CMP_FABS(r);
	cmp_add_finite(s, c, r, d);
	if (a == 0) {
		s->hist[0]++;
		return;
	}
	tol = CMP_ADD(s->atol, CMP_MUL(s->rtol, ar));
	s->hist[cmp_hist_bin(a, tol)]++;
	if (!(a <= tol))
		s->mm++;
	if (ulp > s->max_ulp)
		s->max_ulp = ulp;
	if (a > s->max_abs)
		s->max_abs = a;
	/* NaN products (inf * 0) fall through to the exact computation */
	if (!(a <= CMP_MUL(s->max_rel, ar))) {
		double rel = ar > 0 ? a / ar : CMP_INF;
		if (rel > s->max_rel)
			s->max_rel = rel;
	}
	if (!(a <= CMP_MUL(*tmax, tol))) {
		double score = tol > 0 ? a / tol : CMP_INF;
		if (score > *tmax)
			*tmax = score;
	}
	if (s->nworst < CMPC_WORST || !(a < CMP_MUL(s->worst_floor, tol))) {
		double score = tol > 0 ? a / tol : CMP_INF;
		if (!(score >= 0))      /* inf / inf at the very top of the double range */
			score = CMP_INF;
		cmp_worst_insert(s, 1, idx, comp, c, r, a, ar > 0 ? a / ar : CMP_INF, ulp, score);
	}
}

/* Integers and bool must be equal; the values go through double only for the error figures. */
CMP_FN void cmp_visit_int(struct cmp_state *s, cmp_i64 ci, cmp_i64 ri, cmp_u64 idx, int comp, double *tmax)
{
	double c = (double)ci, r = (double)ri, a, ar, rel;

	cmp_add_finite(s, c, r, CMP_SUB(c, r));
	if (ci == ri) {
		s->hist[0]++;
		return;
	}
	s->mm++;
	s->hist[CMPC_HIST - 2]++;
	*tmax = CMP_INF;
	a = CMP_FABS(CMP_SUB(c, r));
	ar = CMP_FABS(r);
	rel = ar > 0 ? a / ar : CMP_INF;
	if (a > s->max_abs)
		s->max_abs = a;
	if (rel > s->max_rel)
		s->max_rel = rel;
	cmp_worst_insert(s, 1, idx, comp, c, r, a, rel, 0, CMP_INF);
}

/* ULP distances of finite pairs, read off the bit patterns in hand: the same ordered-key
 * distance as dtype_ulp_distance (tests/core/test_compare holds the two equal). */
CMP_FN double cmp_key_dist(cmp_i64 ka, cmp_i64 kb)
{
	return (double)(ka >= kb ? (cmp_u64)ka - (cmp_u64)kb : (cmp_u64)kb - (cmp_u64)ka);
}

CMP_FN cmp_i64 cmp_key_of(cmp_u64 bits, cmp_u64 sign)
{
	return bits & sign ? -(cmp_i64)(bits & (sign - 1)) : (cmp_i64)bits;
}

CMP_FN double cmp_ulp_16(unsigned short a, unsigned short b)
{
	return cmp_key_dist(cmp_key_of(a, 0x8000), cmp_key_of(b, 0x8000));
}

CMP_FN double cmp_ulp_f32(float a, float b)
{
	return cmp_key_dist(cmp_key_of(CMP_F32_BITS(a), 1ULL << 31), cmp_key_of(CMP_F32_BITS(b), 1ULL << 31));
}

CMP_FN double cmp_ulp_f64(double a, double b)
{
	return cmp_key_dist(cmp_key_of(CMP_F64_BITS(a), 1ULL << 63), cmp_key_of(CMP_F64_BITS(b), 1ULL << 63));
}

/* f16 and bf16 to float: dtype.c's f16_to_f32 / bf16_to_f32 on the host, the same values here
 * on the device (a NaN's payload aside, which nothing reads). */
#if defined(__CUDACC__)
CMP_FN float cmp_f16_to_f32(unsigned short h)
{
	float f;

	asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
	return f;
}

CMP_FN float cmp_bf16_to_f32(unsigned short h)
{
	return __uint_as_float((unsigned int)h << 16);
}
#else
#define cmp_f16_to_f32(h) f16_to_f32(h)
#define cmp_bf16_to_f32(h) bf16_to_f32(h)
#endif

#define CMP_VISIT_F32(s, c, r, e, k, tm) cmp_visit_float(s, c, r, e, k, tm, cmp_ulp_f32(c, r))
#define CMP_VISIT_F64(s, c, r, e, k, tm) cmp_visit_float(s, c, r, e, k, tm, cmp_ulp_f64(c, r))
#define CMP_VISIT_F16(s, c, r, e, k, tm) \
	cmp_visit_float(s, cmp_f16_to_f32(c), cmp_f16_to_f32(r), e, k, tm, cmp_ulp_16(c, r))
#define CMP_VISIT_BF16(s, c, r, e, k, tm) \
	cmp_visit_float(s, cmp_bf16_to_f32(c), cmp_bf16_to_f32(r), e, k, tm, cmp_ulp_16(c, r))
#define CMP_VISIT_INT(s, c, r, e, k, tm) cmp_visit_int(s, (cmp_i64)(c), (cmp_i64)(r), e, k, tm)

#if !defined(__CUDACC__)
/* Fold state b into a (b covers later elements than a; for the worst list the order is moot).
 * Host only: the GPU's block records are folded on the host. */
CMP_FN void cmp_merge_state(struct cmp_state *a, const struct cmp_state *b)
{
	int i;

	a->mm += b->mm;
	a->nan_mm += b->nan_mm;
	a->inf_mm += b->inf_mm;
	a->cand_nf += b->cand_nf;
	a->ref_nf += b->ref_nf;
	for (i = 0; i < CMPC_HIST; i++)
		a->hist[i] += b->hist[i];
	if (b->max_abs > a->max_abs)
		a->max_abs = b->max_abs;
	if (b->max_rel > a->max_rel)
		a->max_rel = b->max_rel;
	if (b->max_ulp > a->max_ulp)
		a->max_ulp = b->max_ulp;
	a->dot = CMP_ADD(a->dot, b->dot);
	a->cc = CMP_ADD(a->cc, b->cc);
	a->rr = CMP_ADD(a->rr, b->rr);
	a->l1n = CMP_ADD(a->l1n, b->l1n);
	a->l1d = CMP_ADD(a->l1d, b->l1d);
	a->se = CMP_ADD(a->se, b->se);
	a->nfinite += b->nfinite;
	for (i = 0; i < b->nworst; i++) {
		const struct cmp_worst_slot *w = &b->worst[i];

		cmp_worst_insert(a, w->cls, w->idx, w->comp, w->cand, w->ref, w->abs_err, w->rel_err, w->ulp, w->score);
	}
}
#endif

/*
 * How the flat buffer maps onto the tile map: element e is row e / w, column e % w; its tile is
 * ((row % h) / tile_h, column / tile_w) in a map tile_cols wide. h and w are the last two dims
 * (1 and n for 1-D, 1 and 1 for 0-d).
 */
struct cmp_geom {
	cmp_u64 n;              /* elements (c64: complex elements) */
	cmp_u64 rows;           /* n / w */
	cmp_i64 h, w, tile_h, tile_w, tile_cols;
};

/*
 * One GPU thread's walk, and the host emulation of it: elements e, e + stride, ... below end,
 * with the tile maxima given to CMP_TILE_MAX(tiles, tile index, float score) as the walk
 * leaves each tile (the includer defines it and cmp_tile_t). Divisions happen only when the
 * walk wraps to another row.
 */
#define CMP_THREAD_WALK(NAME, T, NC, VISIT) \
	CMP_FN void NAME(struct cmp_state *s, const T *cp, const T *rp, const struct cmp_geom *g, cmp_u64 e, \
			 cmp_u64 end, cmp_u64 stride, cmp_tile_t *tiles) \
	{ \
		cmp_u64 w = (cmp_u64)g->w, row, col, clo = 0, chi = 0; \
		cmp_i64 base, tile = -1; \
		double tmax = 0; \
		if (e >= end) \
			return; \
		row = e / w; \
		col = e % w; \
		base = (cmp_i64)(row % (cmp_u64)g->h) / g->tile_h * g->tile_cols; \
		for (;;) { \
			if (col < clo || col >= chi) { \
				if (tile >= 0 && tmax > 0) \
					CMP_TILE_MAX(tiles, tile, (float)tmax); \
				clo = col / (cmp_u64)g->tile_w * (cmp_u64)g->tile_w; \
				chi = clo + (cmp_u64)g->tile_w; \
				tile = base + (cmp_i64)(clo / (cmp_u64)g->tile_w); \
				tmax = 0; \
			} \
			for (int k = 0; k < (NC); k++) \
				VISIT(s, cp[e * (NC) + k], rp[e * (NC) + k], e, k, &tmax); \
			e += stride; \
			if (e >= end) \
				break; \
			col += stride; \
			if (col >= w) { \
				cmp_i64 nb; \
				row += col / w; \
				col %= w; \
				nb = (cmp_i64)(row % (cmp_u64)g->h) / g->tile_h * g->tile_cols; \
				if (nb != base) { \
					base = nb; \
					clo = chi = 0; \
				} \
			} \
		} \
		if (tile >= 0 && tmax > 0) \
			CMP_TILE_MAX(tiles, tile, (float)tmax); \
	}

#endif
