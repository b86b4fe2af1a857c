/*
 * compare_int.h - what compare.c shares with gpucompare.c: the shape's geometry and the last
 * step from a folded struct cmp_state (cmp_core.h) to a struct cmp_result, so that the host
 * pass, the GPU pass and its host emulation give their results through the same code.
 */
#ifndef KBX_COMPARE_INT_H
#define KBX_COMPARE_INT_H

#include "cmp_core.h"
#include "compare.h"

struct cmp_setup {
	struct cmp_geom g;
	long long eff[CMP_MAX_DIMS];    /* the shape, leading dims folded past CMP_MAX_DIMS */
	int nd, ncomp;
};

/* Clear out, set its tolerances and tile map dims, and fill a zeroed state s and su.
 * ndim < 0 counts as 0; negative extents as 0 (compare_buffers' leniency: callers that must
 * refuse them check first). */
void compare_setup(enum dtype dt, const long long *shape, int ndim, const struct tolerance *tol,
		   struct cmp_state *s, struct cmp_setup *su, struct cmp_result *out);

/* Counts, maxima, metrics, the verdict and the worst elements' coordinates from s (the folded
 * state of the whole buffer); out->tiles is the caller's. */
void compare_finish(const struct cmp_state *s, const struct cmp_setup *su, const struct tolerance *tol,
		    struct cmp_result *out);

#endif
