// @kbx expect wrong
// Mistake: LU without pivoting (the pivot search runs but its result is ignored): the factors are
// those of A itself, not of A with its rows in pivot order, and x = A^-1 b. Right only when partial
// pivoting would swap nothing (test_case_1, diagdom_257, ...). Same stages and scratch names as the
// reference where it has them (no `lu_pivots`: it never pivots): the first wrong stage reported
// should be `lu_work` (the factors of A without row exchanges).
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
			const long long p = k; // BUG: no row exchange (LU without pivoting)
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
