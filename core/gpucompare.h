/*
 * gpucompare.h - compare_buffers (compare.h) on the GPU: only the summaries cross to the host.
 *
 * At a perf row the outputs are hundreds of MB; copying them to the host to compare them there
 * dominated verification. Here a kernel compares the two device buffers with the same
 * per-element rules (cmp_core.h, compiled into the kernel from the same text) and each thread
 * block writes one struct cmp_state record for its chunk (a few KB); the host folds the records
 * in block order with cmp_merge_state and turns the result into the struct cmp_result that
 * compare_buffers gives.
 *
 * What is the same as compare_buffers, exactly: the verdict, every count (mismatches, NaN/inf,
 * finite pairs, the histogram), max abs / rel / ULP, the tile map and the worst elements (the
 * worst order is total: cmp_core.h). What may differ: the metric sums (cosine, l1_relative,
 * rmse) are added in another order (per thread, then a tree over the block, then the blocks),
 * so they agree to rounding, about 1e-15 relative; a metric tolerance sitting exactly on the
 * figure could in principle tip. Known limit shared with the host path: where two scores of
 * one tile (or two relative errors) differ by less than one double ulp, the host's
 * multiply-before-divide filter keeps whichever it met first, so the two paths may then differ
 * in the last bit of that maximum.
 *
 * The decomposition depends on the element count only (GPUCOMPARE_THREADS threads a block, at
 * most GPUCOMPARE_MAX_BLOCKS blocks), never on the device, so a result is the same on any GPU,
 * and gpucompare_emulate reproduces it on the host bit for bit (the tests hold the three paths
 * together without a GPU).
 *
 * Use: compile gpucompare_source() (no include path needed) for the device's sm_XY with
 * nvrtc_compile, or through the engine's compile cache as devgen does, and gpucompare_open the
 * image.
 */
#ifndef KBX_GPUCOMPARE_H
#define KBX_GPUCOMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "compare.h"
#include "dtype.h"
#include "gpu.h"
#include "status.h"
#include "task.h"

#define GPUCOMPARE_THREADS 256
#define GPUCOMPARE_MAX_BLOCKS 1024
/* more dims than any task has; shapes beyond are refused */
#define GPUCOMPARE_MAX_NDIM 64

/* The CUDA source of the comparison kernel (entry point "kbx_gpucompare"). */
const char *gpucompare_source(void);

struct gpucompare;
/* Load a compiled image of gpucompare_source(); *out is freed with gpucompare_close. */
enum kbx_status gpucompare_open(struct gpu *g, const void *image, struct gpucompare **out);
void gpucompare_close(struct gpucompare *c);

/* compare_buffers on device buffers cand and ref (prod(shape) elements of dt; ndim 0 is one
 * element and shape may be NULL). Synchronises. Refuses, with kbx_error and out cleared, a bad
 * dtype, ndim < 0 or > GPUCOMPARE_MAX_NDIM, a NULL shape with ndim > 0, a negative extent, a
 * size that overflows, and a NULL buffer holding elements. */
enum kbx_status gpucompare_buffers(struct gpucompare *c, enum dtype dt, gpu_ptr cand, gpu_ptr ref,
				   const long long *shape, int ndim, const struct tolerance *tol,
				   struct cmp_result *out);

/* The kernel's decomposition run on the host (host buffers): the same records, folded the same
 * way, so the same result as gpucompare_buffers bit for bit. Same argument checks. */
enum kbx_status gpucompare_emulate(enum dtype dt, const void *cand, const void *ref, const long long *shape,
				   int ndim, const struct tolerance *tol, struct cmp_result *out);

/* How a buffer of n elements is split: elements per block (a multiple of GPUCOMPARE_THREADS)
 * and the number of blocks (0 for n = 0). */
void gpucompare_plan(unsigned long long n, unsigned long long *per_block, unsigned *blocks);

/* A digest of n bytes at p, salted (the engine salts each output with its index): the 8-byte
 * words (little-endian, the last zero-padded) mixed with their index and added modulo 2^64, so
 * that the kernel's blocks may add them in any order. gpucompare_digest computes on the device
 * what gpucompare_digest_host computes on the host, the same number: the engine tells whether a
 * candidate's outputs after timing are the ones it gave before without copying them. Synchronises. */
uint64_t gpucompare_digest_host(const void *p, size_t n, uint64_t salt);
enum kbx_status gpucompare_digest(struct gpucompare *c, gpu_ptr p, size_t n, uint64_t salt, uint64_t *out);

/* --compare: where the outputs are compared with the reference's. both: the host judges, as with
 * host, and the GPU compares the same device buffers wherever its route allows, cases included; a
 * report that differs from the host's is an error of kbx (the test that the GPU path changes no
 * verdict, issue 20). */
enum compare_mode { COMPARE_HOST, COMPARE_GPU, COMPARE_BOTH };
/* "host", "gpu", "both"; parse: -1 for anything else. */
const char *compare_mode_name(int mode);
int compare_mode_parse(const char *s);

/* Where the engine compares a problem's outputs (`--compare gpu`, engine.h): on the GPU only at a
 * perf row of an elementwise task, of the qr property (gpuprop.h: its figures, a failing one
 * judged again on the host), of the eig property (the eigenvectors' independence on the device,
 * the rest on the host) or of the distribution verifier (f32 draws: gpuprop.h's statistics),
 * with the kernel usable; everything else on the host, as always.
 * A task with a [quant] lens or a [tolerance] exact result is compared on the GPU too: an output
 * that fails there is judged again on the host, which runs the lens and the exact target as it
 * always did, and a perf row that passes keeps no lens (its report is the verdict alone). Under
 * --compare both a task with an exact result stays on the host: an output that passes only
 * against the exact result is reported as that comparison, which the GPU's cannot equal.
 * Pure: tests/core/test_gpucompare. */
enum gpucompare_route {
	GPUCOMPARE_ON_GPU,
	GPUCOMPARE_HOST_OPTION,         /* --compare host, the default */
	GPUCOMPARE_HOST_CASE,           /* a case, not a perf row */
	GPUCOMPARE_HOST_VERIFIER,       /* the svd property, a verifier kbx does not know */
	GPUCOMPARE_HOST_EXACT,          /* [tolerance] exact under --compare both */
	GPUCOMPARE_HOST_NO_KERNEL       /* the kernel could not be compiled, loaded or run */
};
enum gpucompare_route gpucompare_route(const struct task *t, int want_gpu, int perf_row, int kernel_failed);
/* Why, in words, for a log line. */
const char *gpucompare_route_why(enum gpucompare_route how);

#endif
