// @kbx expect wrong
// Mistake: solves A x = b (the textbook use of an LU: the row exchanges are applied to b first) where
// KernelBenchX's function solves (L @ U) x = b, and L @ U is A with its rows in pivot order, so b must
// not be permuted. Right whenever pivoting swaps no rows; wrong for test_case_2_pivot,
// test_case_3_pivot and the permuted matrices. The factorisation is the reference's (`lu_work`,
// `lu_pivots` and `lu` match): the output is the first to differ.
//
// @kbx scratch lu_work f64 [n, n]
// @kbx scratch lu_pivots i64 [n]
// @kbx scratch lu f32 [n, n]
// @kbx launch lu_factor<<<sms, 256>>>(A, lu_work, lu_pivots, lu, n) cooperative
// @kbx launch lu_solve<<<1, 1024, n * 8>>>(lu_work, lu_pivots, b, x, n)

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
lu_solve(const double* __restrict__ W, const long long* __restrict__ piv, const float* __restrict__ b, float* __restrict__ x,
         long long n)
{
	extern __shared__ double y[];
	const int t = threadIdx.x, bs = blockDim.x;
	for (long long i = t; i < n; i += bs)
		y[i] = (double)b[i];
	__syncthreads();
	// BUG: the textbook solve of A x = b applies the row exchanges to b (y = P^T b) first; the
	// function solves (L U) x = b with L U = P^T A, where b is used as it is
	if (t == 0)
		for (long long k = 0; k < n; k++) {
			long long p = piv[k];
			double tmp = y[k];
			y[k] = y[p];
			y[p] = tmp;
		}
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
