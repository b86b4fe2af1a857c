// @kbx expect wrong
// Mistake: the upper flag is ignored and the lower factor L is returned for upper = 1 too
// (PyTorch returns U = L^T there): every upper case is wrong.
//
// @kbx launch chol_lower_only<<<max(1, batch), 1024>>>(a, l, batch, n, upper)

extern "C" __global__ void __launch_bounds__(1024)
chol_lower_only(const float* __restrict__ a, float* __restrict__ l, long long batch, long long n, int upper)
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
		const long long t = n - j - 1;
		for (long long e = threadIdx.x; e < t * t; e += blockDim.x) {
			const long long i = j + 1 + e / t, c = j + 1 + e % t;
			if (c <= i)
				L[i * n + c] -= L[i * n + j] * L[c * n + j];
		}
		__syncthreads();
	}
	// BUG: no transpose when upper = 1
}
