/*
 * compare.h - compare a candidate's output buffer with the reference's.
 *
 * Element rules (KernelBenchX's, torch.allclose with equal_nan): NaN matches NaN only; an
 * infinity matches the same infinity only; elsewhere |c - r| <= atol + rtol * |r|. Integer and
 * bool outputs must be equal. c64 compares real and imaginary parts as two components.
 * Metric tolerances (cosine similarity, l1_relative, rmse, as KernelBenchX's quantization
 * checks) replace the elementwise test when tol->metric is set; the metrics are computed always.
 *
 * The result keeps the worst elements (by |err| / (atol + rtol*|r|), NaN/Inf mismatches first)
 * with their coordinates, the maximum ULP error, and a coarse map of the error over tiles of the
 * last two dimensions (at most CMP_TILES x CMP_TILES), for the diff heatmap.
 *
 * Details a reader of the result may need:
 * - worst[] holds only elements with a positive score (none when the output is exact), highest
 *   first; equal scores keep index order. Coordinates are row-major over the shape; a shape of
 *   more than CMP_MAX_DIMS dims has its leading dims folded into coord[0].
 * - A NaN mismatch has abs_err = rel_err = NaN, an infinity mismatch inf; both score inf.
 *   Integer mismatches score inf too (the tolerance is 0) and rank among themselves by abs_err.
 * - max_abs, max_rel, max_ulp and the metrics cover the pairs where both are finite (`finite`
 *   of them): a candidate that writes NaN where the reference is finite can show max abs 0 and
 *   cosine 1 over the rest, so whoever shows these figures shows compare_nonfinite_note too. rel_err is
 *   inf where the reference is 0 and the error is not. cosine of two zero vectors is 1, of one
 *   zero vector 0; l1_relative is inf when sum|r| = 0 < sum|c - r|.
 * - Integer and bool outputs are compared as raw values: a bool byte the kernel never wrote
 *   (still poison) does not pass for true.
 * - Tiles: 2-D and up over the last two dims (max over the leading ones); 1-D is one row of tiles;
 *   0-d one tile; an empty output none (tile_rows = tile_cols = 0). Each tile is tile_h x tile_w
 *   elements (the last row and column of tiles may be cut short) and holds the max score in it.
 */
#ifndef KBX_COMPARE_H
#define KBX_COMPARE_H

#include <stddef.h>

#include "dtype.h"
#include "status.h"
#include "task.h"

#define CMP_WORST 16
#define CMP_TILES 32
#define CMP_MAX_DIMS 8
/* Error histogram: bin 0 exact; 1 below 1e-6 of the tolerance; 2..13 the decades from 1e-6 to
 * 1e6 times the tolerance (bins 8 and up fail the elementwise test); 14 at least 1e6 times (and
 * integer mismatches); 15 NaN/Inf mismatches. */
#define CMP_HIST 16

struct cmp_elem {
	long long coord[CMP_MAX_DIMS];
	int ndim;
	int component;          /* c64: 0 real, 1 imaginary */
	double cand, ref;
	double abs_err, rel_err, ulp, score;  /* score = abs_err / (atol + rtol*|ref|), inf for NaN/Inf mismatch */
};

struct cmp_result {
	size_t n;               /* elements compared (components for c64) */
	size_t mismatches;      /* elements outside tolerance (elementwise rule), NaN/Inf mismatches included */
	size_t nan_mismatches;  /* NaN in one and not the other */
	size_t inf_mismatches;  /* infinities that differ */
	size_t cand_nonfinite;  /* candidate NaN or inf where the reference is finite */
	size_t ref_nonfinite;   /* reference NaN or inf where the candidate is finite */
	size_t finite;          /* pairs where both are finite: what max_abs..rmse cover */
	double max_abs, max_rel, max_ulp;
	double cosine, l1_relative, rmse;
	double rtol, atol;      /* what was applied */
	int pass;
	struct cmp_elem worst[CMP_WORST];
	int nworst;
	int tile_rows, tile_cols;       /* tile map dims (<= CMP_TILES) */
	long long tile_h, tile_w;       /* elements per tile in each of the last two dims */
	float tiles[CMP_TILES * CMP_TILES]; /* max score per tile, row-major */
	unsigned long long hist[CMP_HIST];  /* elements per error bin (see CMP_HIST) */
};

/* Effective tolerance for an output dtype under a task's tolerance section (NULL = defaults):
 * the task's rtol/atol where >= 0, else the dtype's default (f16/bf16 5e-3, f32/f64/c64 1e-5).
 * At a perf row, tol->perf_rtol/perf_atol ([tolerance.perf]) raise them where larger.
 * Integer and bool outputs get 0/0 whatever the task says: a [tolerance] is written for the
 * float outputs, and an index output beside them (topk, argmax) must still match exactly. */
void compare_tolerance(const struct tolerance *tol, enum dtype dt, double *rtol, double *atol);

/* Compare n = prod(shape) elements of dtype dt (ndim 0: one element; shape may then be NULL).
 * One pass, no allocation. */
void compare_buffers(enum dtype dt, const void *cand, const void *ref, const long long *shape, int ndim,
		     const struct tolerance *tol, struct cmp_result *out);

/* One line on what the summary figures leave out, "" when nothing: how many candidate NaN/inf
 * where the reference is finite, how many the reverse, and over how many finite pairs max abs,
 * cosine, l1_relative and rmse were computed ("3 NaN/inf in the candidate where the reference is
 * finite; max abs and metrics over 1021 of 1024 finite pairs"). Always NUL-terminated. */
void compare_nonfinite_note(const struct cmp_result *r, char *buf, size_t size);

/* Whether two reports of one comparison differ (the host's compare_buffers and the GPU's,
 * gpucompare.h): the counts, the histogram, the tile map's shape and the worst elements' places
 * must be equal; the maxima, the tiles and the worst elements' figures within `ulps` units in the
 * last place (0: bit for bit; gpucompare.h names the ties that may leave one apart); the metric
 * sums within metric_rtol relative (0: bit for bit; the cosine within metric_rtol absolutely too,
 * as it nears 0), as they are added in another order: the emulation of the GPU's decomposition
 * agrees to 1e-12, the GPU's double sums of 2^29 terms with the host's to a few 1e-12 (a random
 * walk of sqrt(n) roundings). 1 when they differ, with what differs in why (always
 * NUL-terminated), else 0. */
int compare_results_differ(const struct cmp_result *a, const struct cmp_result *b, double metric_rtol, int ulps,
			   char *why, size_t len);

/* 1 when a and b hold the same bytes (bitwise re-run check). */
int compare_bitwise(const void *a, const void *b, size_t bytes);

#endif
