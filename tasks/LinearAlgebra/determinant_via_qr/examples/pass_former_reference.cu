// @kbx expect pass
// The former reference, replaced on 2026-12-01 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// determinant_via_qr reference: det = det(Q) * prod(diag(R)) from a Householder QR in f64.
//
// The QR is LinearAlgebra/qr's (LAPACK's geqr2 reflectors, one cooperative kernel, the matrix
// stored transposed so that columns are contiguous; one grid barrier per column, every block
// building the same reflector, one warp per trailing column). Q is never formed: a Householder
// reflector with tau != 0 has determinant -1 (tau = 0 is the identity), so thread 0 forms
// det = prod over j of (tau_j != 0 ? -beta_j : beta_j), beta_j = R[j, j], in f64 and rounds it
// to f32 once. n = 0 gives 1; beyond the f32 range the rounding gives +-inf.
//
// Precision: f64 throughout: the correctly rounded determinant of the f32 input up to
// ~n 1e-16 cond(A). Cost: unblocked (O(n^3) memory traffic over the trailing matrix): about
// 10x PyTorch's blocked geqrf at the largest perf size (n = 8192).
//
// @kbx scratch wt f64 [max(1, n * n)]
// @kbx scratch aux f64 [max(1, 3 * n)]
// @kbx launch det_qr<<<sms, 256>>>(a, d, wt, aux, n, mode) cooperative

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 256
#define FULL 0xffffffffu

// Sum over the block; every thread gets it. s has THREADS / 32 slots; ends with a barrier.
__device__ double block_sum(double v, double* s)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(FULL, v, off);
	if (threadIdx.x % 32 == 0)
		s[threadIdx.x / 32] = v;
	__syncthreads();
	double t = 0.0;
	for (int q = 0; q < THREADS / 32; q++)
		t += s[q];
	__syncthreads();
	return t;
}

extern "C" __global__ void __launch_bounds__(THREADS)
det_qr(const float* __restrict__ a, float* __restrict__ d, double* __restrict__ wt, double* __restrict__ aux, long long n,
       int mode)
{
	cg::grid_group grid = cg::this_grid();
	__shared__ double s_red[THREADS / 32];
	const int lane = threadIdx.x % 32;
	const long long gtid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long gstride = (long long)gridDim.x * blockDim.x;
	const long long gwarp = gtid / 32, nwarps = gstride / 32;
	const long long m = n, k = n; // square; mode changes nothing for a square matrix
	double* tau = aux;
	double* beta = aux + 2 * k;

	for (long long e = gtid; e < m * n; e += gstride)
		wt[(e % n) * m + e / n] = (double)a[e];
	grid.sync();
	for (long long j = 0; j < k; j++) {
		const double* x = wt + j * m; // column j of A
		double ss = 0.0;
		for (long long i = j + 1 + threadIdx.x; i < m; i += THREADS)
			ss += x[i] * x[i];
		ss = block_sum(ss, s_red);
		const double alpha = x[j];
		double t = 0.0, sc = 0.0, bt = alpha;
		if (ss > 0.0) {
			const double nrm = sqrt(alpha * alpha + ss);
			bt = alpha >= 0.0 ? -nrm : nrm;
			t = (bt - alpha) / bt;
			sc = 1.0 / (alpha - bt);
		}
		if (gtid == 0) {
			tau[j] = t;
			beta[j] = bt;
		}
		if (t != 0.0)
			for (long long c = j + 1 + gwarp; c < n; c += nwarps) {
				double* col = wt + c * m;
				const double cj = col[j]; // read by every lane before lane 0 rewrites it
				double dd = 0.0;
				for (long long i = j + 1 + lane; i < m; i += 32)
					dd += x[i] * col[i];
				for (int off = 16; off > 0; off >>= 1)
					dd += __shfl_xor_sync(FULL, dd, off);
				dd = t * (cj + sc * dd); // tau * v^T col
				if (lane == 0)
					col[j] -= dd;
				for (long long i = j + 1 + lane; i < m; i += 32)
					col[i] -= dd * sc * x[i];
			}
		grid.sync();
	}
	if (gtid == 0) {
		double det = 1.0;
		for (long long j = 0; j < k; j++)
			det *= tau[j] != 0.0 ? -beta[j] : beta[j];
		d[0] = (float)det;
	}
}
