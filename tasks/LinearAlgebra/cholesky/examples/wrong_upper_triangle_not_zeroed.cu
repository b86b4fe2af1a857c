// @kbx expect wrong
// Mistake: the factorization runs in place on a copy of the whole matrix and the triangle that
// is not part of the factor is never cleared: L comes back with A's entries above the diagonal
// (PyTorch returns exact zeros there). Wrong on every case with n > 1.
//
// @kbx launch chol_nozero<<<max(1, batch), 1024>>>(a, l, batch, n, upper)

extern "C" __global__ void __launch_bounds__(1024)
chol_nozero(const float* __restrict__ a, float* __restrict__ l, long long batch, long long n, int upper)
{
	if (blockIdx.x >= batch)
		return;
	const float* A = a + blockIdx.x * n * n;
	float* L = l + blockIdx.x * n * n;
	for (long long e = threadIdx.x; e < n * n; e += blockDim.x)
		L[e] = A[e]; // BUG: the upper triangle keeps A's values
	__syncthreads();
	for (long long j = 0; j < n; j++) {
		if (threadIdx.x == 0)
			L[j * n + j] = sqrtf(L[j * n + j]);
		__syncthreads();
		for (long long i = j + 1 + threadIdx.x; i < n; i += blockDim.x)
			L[i * n + j] /= L[j * n + j];
		__syncthreads();
		const long long t = n - j - 1;
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
				const float t = L[e];
				L[e] = L[j * n + i];
				L[j * n + i] = t;
			}
		}
}
