// @kbx expect pass
// Correct alternative: one cooperative kernel in f32 that factors a copy of A in place (partial
// pivoting, LAPACK's rule, block 0 searching and swapping, the grid eliminating rows) and then, in
// block 0, runs both substitutions on b without permuting it. The inputs are well conditioned, so
// f32 arithmetic stays within the tolerance.
//
// @kbx scratch w32 f32 [n, n]
// @kbx scratch y32 f32 [n]
// @kbx launch lu_solve_f32<<<sms, 256>>>(A, b, w32, y32, x, n) cooperative

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void lu_solve_f32(const float* __restrict__ A, const float* __restrict__ b, float* __restrict__ W,
                                        float* __restrict__ y, float* __restrict__ x, long long n)
{
	cg::grid_group grid = cg::this_grid();
	__shared__ float sv[256];
	__shared__ long long si[256];
	const long long gtid = (long long)blockIdx.x * 256 + threadIdx.x, nth = (long long)gridDim.x * 256;
	for (long long e = gtid; e < n * n; e += nth)
		W[e] = A[e];
	grid.sync();
	for (long long k = 0; k < n; k++) {
		if (blockIdx.x == 0) {
			float best = -1.0f;
			long long bi = k;
			for (long long i = k + threadIdx.x; i < n; i += 256)
				if (fabsf(W[i * n + k]) > best) {
					best = fabsf(W[i * n + k]);
					bi = i;
				}
			sv[threadIdx.x] = best;
			si[threadIdx.x] = bi;
			__syncthreads();
			if (threadIdx.x == 0) {
				for (int t = 1; t < 256; t++)
					if (sv[t] > sv[0] || (sv[t] == sv[0] && si[t] < si[0])) {
						sv[0] = sv[t];
						si[0] = si[t];
					}
			}
			__syncthreads();
			const long long p = si[0];
			for (long long j = threadIdx.x; p != k && j < n; j += 256) {
				float t = W[k * n + j];
				W[k * n + j] = W[p * n + j];
				W[p * n + j] = t;
			}
		}
		grid.sync();
		const float pv = W[k * n + k];
		for (long long i = k + 1 + blockIdx.x; i < n; i += gridDim.x) {
			const float l = pv != 0.0f ? W[i * n + k] / pv : W[i * n + k];
			__syncthreads();
			if (threadIdx.x == 0)
				W[i * n + k] = l;
			for (long long j = k + 1 + threadIdx.x; j < n; j += 256)
				W[i * n + j] -= l * W[k * n + j];
		}
		grid.sync();
	}
	if (blockIdx.x != 0)
		return;
	for (long long i = threadIdx.x; i < n; i += 256)
		y[i] = b[i];
	__syncthreads();
	for (long long k = 0; k < n; k++) {
		const float yk = y[k];
		for (long long i = k + 1 + threadIdx.x; i < n; i += 256)
			y[i] -= W[i * n + k] * yk;
		__syncthreads();
	}
	for (long long k = n - 1; k >= 0; k--) {
		const float xk = y[k] / W[k * n + k];
		for (long long i = threadIdx.x; i < k; i += 256)
			y[i] -= W[i * n + k] * xk;
		__syncthreads();
		if (threadIdx.x == 0)
			x[k] = xk;
	}
}
