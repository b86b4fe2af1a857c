// @kbx expect pass
// The former reference, replaced on 2026-12-03 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// fused_lu_solve reference: the PyTorch stages, each into its own buffer.
//   stage `lu`    (torch.linalg.lu): LAPACK getrf with partial pivoting, in f64 in `lu_work`
//                 (row-major, L strictly below the diagonal with its unit diagonal implied, U on
//                 and above), `lu_pivots` the row exchanged with row j at step j (0-based ipiv);
//                 `lu` is that packed factorisation rounded to f32.
//   stage `solve` (torch.linalg.solve(L @ U, b)): L @ U = P^T A is the factored matrix itself, so
//                 x = U^-1 (L^-1 b) by forward and back substitution on the factors; b is not
//                 permuted. (Forming L @ U and factoring it again, as the function does, gives the
//                 same x up to rounding: its pivot order is the identity.)
//
// lu_factor: one cooperative kernel, unblocked right-looking elimination in f64. Step k: block 0
// finds the pivot (the first row of largest |.| in column k at or below k; NaN never wins) with a
// block reduction and swaps the two rows over all n columns; grid barrier; every block takes rows
// k+1+blockIdx.x, k+1+blockIdx.x+gridDim.x, ...: the multiplier l = a_ik / a_kk (no division for a
// zero pivot, as getrf), then a_ij -= l a_kj along the row (coalesced); grid barrier. 2n barriers
// and O(n^3) f64 memory traffic: simple, exact to f64 rounding, ~5x slower than cuSOLVER's blocked
// getrf at n = 4096 (the price of an unblocked reference). lu_solve: one block, the right-hand side
// in shared memory (f64), column-oriented forward (unit L) and back substitution; x rounded once.
//
// @kbx scratch lu_work f64 [n, n]
// @kbx scratch lu_pivots i64 [n]
// @kbx scratch lu f32 [n, n]
// @kbx launch lu_factor<<<sms, 256>>>(A, lu_work, lu_pivots, lu, n) cooperative
// @kbx launch lu_solve<<<1, 1024, n * 8>>>(lu_work, b, x, n)

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 256

extern "C" __global__ void __launch_bounds__(THREADS)
lu_factor(const float* __restrict__ A, double* __restrict__ W, long long* __restrict__ piv, float* __restrict__ lu,
          long long n)
{
	cg::grid_group grid = cg::this_grid();
	__shared__ double sv[THREADS];
	__shared__ long long si[THREADS];
	const long long gtid = (long long)blockIdx.x * THREADS + threadIdx.x;
	const long long nth = (long long)gridDim.x * THREADS;
	for (long long e = gtid; e < n * n; e += nth)
		W[e] = (double)A[e];
	grid.sync();

	for (long long k = 0; k < n; k++) {
		if (blockIdx.x == 0) {
			// pivot search: threads scan increasing rows and keep the first strict maximum
			double best = -1.0;
			long long bi = k;
			for (long long i = k + threadIdx.x; i < n; i += THREADS) {
				double v = fabs(W[i * n + k]);
				if (v > best) {
					best = v;
					bi = i;
				}
			}
			sv[threadIdx.x] = best;
			si[threadIdx.x] = bi;
			__syncthreads();
			for (int s = THREADS / 2; s > 0; s >>= 1) {
				if (threadIdx.x < s) {
					double ov = sv[threadIdx.x + s];
					long long oi = si[threadIdx.x + s];
					if (ov > sv[threadIdx.x] || (ov == sv[threadIdx.x] && oi < si[threadIdx.x])) {
						sv[threadIdx.x] = ov;
						si[threadIdx.x] = oi;
					}
				}
				__syncthreads();
			}
			const long long p = si[0];
			if (threadIdx.x == 0)
				piv[k] = p;
			if (p != k)
				for (long long j = threadIdx.x; j < n; j += THREADS) {
					double t = W[k * n + j];
					W[k * n + j] = W[p * n + j];
					W[p * n + j] = t;
				}
		}
		grid.sync();
		const double pv = W[k * n + k];
		for (long long i = k + 1 + blockIdx.x; i < n; i += gridDim.x) {
			double l = W[i * n + k];
			if (pv != 0.0)
				l = l / pv;
			__syncthreads(); // every thread has read a_ik before it is overwritten
			if (threadIdx.x == 0)
				W[i * n + k] = l;
			for (long long j = k + 1 + threadIdx.x; j < n; j += THREADS)
				W[i * n + j] = fma(-l, W[k * n + j], W[i * n + j]);
		}
		grid.sync();
	}
	for (long long e = gtid; e < n * n; e += nth)
		lu[e] = (float)W[e];
}

extern "C" __global__ void __launch_bounds__(1024)
lu_solve(const double* __restrict__ W, const float* __restrict__ b, float* __restrict__ x, long long n)
{
	extern __shared__ double y[];
	const int t = threadIdx.x, bs = blockDim.x;
	for (long long i = t; i < n; i += bs)
		y[i] = (double)b[i];
	__syncthreads();
	// forward: L y = b, L unit lower triangular (column-oriented)
	for (long long k = 0; k < n; k++) {
		const double yk = y[k];
		for (long long i = k + 1 + t; i < n; i += bs)
			y[i] = fma(-W[i * n + k], yk, y[i]);
		__syncthreads();
	}
	// backward: U x = y
	for (long long k = n - 1; k >= 0; k--) {
		const double xk = y[k] / W[k * n + k];
		for (long long i = t; i < k; i += bs)
			y[i] = fma(-W[i * n + k], xk, y[i]);
		__syncthreads(); // every thread has read y[k]
		if (t == 0)
			y[k] = xk;
		__syncthreads();
	}
	for (long long i = t; i < n; i += bs)
		x[i] = (float)y[i];
}
