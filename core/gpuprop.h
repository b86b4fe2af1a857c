/*
 * gpuprop.h - the qr property verifier's figures (verify.h) computed on the GPU, the eig
 * property's independence of eigenvectors, and the distribution verifier's statistics of uniform
 * draws (below).
 *
 * At a perf row of LinearAlgebra/qr (n = 4096) the host's checks are two f64 products of
 * 7e10 multiply-adds each (|A - QR| and Q^T Q) after copying Q, R and the reference's R: about
 * 6 s of an evaluation's item over its rows, where the candidate's time is 0.7 s. Here f64
 * kernels compute the same four figures per matrix from the device buffers, and only per-block
 * partial sums and maxima (a few KB) cross to the host, which adds them in block order (the
 * result does not depend on the GPU or on timing):
 *
 *   recon  |A - QR|_F / |A|_F        orth  max |Q^T Q - I|
 *   lower  max |R below diag| / |A|_F diff  max |R - D R_ref| / |A|_F (D: the row signs that make
 *                                           R's diagonal agree with R_ref's, as verify.c takes them)
 *
 * The products are exact (f32 operands widened to f64) and summed in another order than
 * verify.c's, so a figure agrees with the host's to f64 rounding; a NaN or inf anywhere makes the
 * figure NaN or inf. The engine uses them to PASS a perf row only: a matrix whose figures are not
 * all within the tolerance is judged again on the host, whose verdict and message stand (so a
 * failing report is always the host's, and a figure at the tolerance's edge within rounding is
 * the only place the two could part).
 */
#ifndef KBX_GPUPROP_H
#define KBX_GPUPROP_H

#include "gpu.h"
#include "status.h"

/* The CUDA source of the kernels (no include path needed). */
const char *gpuprop_source(void);

struct gpuprop;
/* Load a compiled image of gpuprop_source(); freed with gpuprop_close. */
enum kbx_status gpuprop_open(struct gpu *g, const void *image, struct gpuprop **out);
void gpuprop_close(struct gpuprop *p);

struct gpuprop_qr_figures {
	double recon, orth, lower, diff;
};

/* The figures of `batch` f32 matrices on the device, each row-major and contiguous: A [m x n],
 * Q [m x qcols], R and R_ref [rrows x n] (qcols = rrows: R's rows are Q's columns). out holds
 * batch entries. Refuses (KBX_EINVAL, nothing launched) a size below 1, shapes that do not fit
 * (qcols != rrows) and NULL buffers. Synchronises. */
enum kbx_status gpuprop_qr(struct gpuprop *p, gpu_ptr a, gpu_ptr q, gpu_ptr r, gpu_ptr r_ref, long long batch,
			   long long m, long long n, long long qcols, long long rrows, struct gpuprop_qr_figures *out);

/* What the distribution verifier tests of n f32 draws at a (engine_verify_distribution): their
 * mean and sample variance (two passes, f64; the host's to rounding), how many lie outside
 * [0, 1) (NaN included) and, when other is not 0, how many differ from other's (a != b as
 * doubles: the host's counts exactly). */
struct gpuprop_uniform {
	double mean, var;
	unsigned long long outside, differ;
};
enum kbx_status gpuprop_uniform(struct gpuprop *p, gpu_ptr a, gpu_ptr other, long long n, struct gpuprop_uniform *out);

/* out[i] = a[i * stride] for i < count (f32): a strided sample copied alone. */
enum kbx_status gpuprop_gather(struct gpuprop *p, gpu_ptr a, long long stride, long long count, float *out);

/* dense_min_pivot (dense.h) of the n x n complex (c64) matrix at v, row-major, its columns the
 * vectors: how far they are from linear dependence (1 orthogonal, 0 dependent; 1 for n = 0).
 * The same algorithm in f64, its sums in another order, so the host's value to rounding (a
 * near-tie between two pivot candidates may pick the other, which changes the value within
 * rounding of a tie). Refuses n above 32768. Synchronises. */
enum kbx_status gpuprop_min_pivot(struct gpuprop *p, gpu_ptr v, long long n, double *out);

#endif
