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

struct cmp_elem {
	long long coord[CMP_MAX_DIMS];
	int ndim;
	int component;          /* c64: 0 real, 1 imaginary */
	double cand, ref;
	double abs_err, rel_err, ulp, score;  /* score = abs_err / (atol + rtol*|ref|), inf for NaN/Inf mismatch */
};

struct cmp_result {
	size_t n;               /* elements compared (components for c64) */
	size_t mismatches;      /* elements outside tolerance (elementwise rule) */
	size_t nan_mismatches;  /* NaN in one and not the other */
	size_t inf_mismatches;  /* infinities that differ */
	double max_abs, max_rel, max_ulp;
	double cosine, l1_relative, rmse;
	double rtol, atol;      /* what was applied */
	int pass;
	struct cmp_elem worst[CMP_WORST];
	int nworst;
	int tile_rows, tile_cols;       /* tile map dims (<= CMP_TILES) */
	long long tile_h, tile_w;       /* elements per tile in each of the last two dims */
	float tiles[CMP_TILES * CMP_TILES]; /* max score per tile, row-major */
};

/* Effective tolerance for an output dtype under a task's tolerance section. */
void compare_tolerance(const struct tolerance *tol, enum dtype dt, double *rtol, double *atol);

void compare_buffers(enum dtype dt, const void *cand, const void *ref, const long long *shape, int ndim,
		     const struct tolerance *tol, struct cmp_result *out);

/* 1 when a and b hold the same bytes (bitwise re-run check). */
int compare_bitwise(const void *a, const void *b, size_t bytes);

#endif
