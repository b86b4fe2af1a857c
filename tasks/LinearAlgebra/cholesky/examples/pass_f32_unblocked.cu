// @kbx expect pass
// @kbx perf_expect timeout: one block factors the whole matrix (n^3 / 3 flops through one SM); on
// the H200, alone, its launch at n = 8192 (perf row 6) ran past kbx's 10 s limit
// (bench/perf_check.py, issue 22); its cases and the rows below pass
// Correct alternative: unblocked right-looking Cholesky in f32, one block per matrix, computed
// in place in the output: copy the lower triangle, then per column j: sqrt of the pivot, scale
// the column below it, rank-1 update of the trailing lower triangle; the upper factor is the
// transpose, written at the end.
//
// @kbx launch chol_f32<<<max(1, batch), 1024>>>(a, l, batch, n, upper)

extern "C" __global__ void __launch_bounds__(1024)
chol_f32(const float* __restrict__ a, float* __restrict__ l, long long batch, long long n, int upper)
{
	if (blockIdx.x >= batch)
		return;
	const float* A = a + blockIdx.x * n * n;
	float* L = l + blockIdx.x * n * n;
	for (long long e = threadIdx.x; e < n * n; e += blockDim.x)
		L[e] = (e % n <= e / n) ? A[e] : 0.0f;
	__syncthreads();
	for (long long j = 0; j < n; j++) {
		if (threadIdx.x == 0)
			L[j * n + j] = sqrtf(L[j * n + j]);
		__syncthreads();
		for (long long i = j + 1 + threadIdx.x; i < n; i += blockDim.x)
			L[i * n + j] /= L[j * n + j];
		__syncthreads();
		const long long t = n - j - 1; // trailing size: update L[i][c] for j < c <= i
		for (long long e = threadIdx.x; e < t * t; e += blockDim.x) {
			const long long i = j + 1 + e / t, c = j + 1 + e % t;
			if (c <= i)
				L[i * n + c] -= L[i * n + j] * L[c * n + j];
		}
		__syncthreads();
	}
	if (upper)
		for (long long e = threadIdx.x; e < n * n; e += blockDim.x) {
			const long long i = e / n, j = e % n;
			if (j > i) {
				L[e] = L[j * n + i];
				L[j * n + i] = 0.0f;
			}
		}
}
