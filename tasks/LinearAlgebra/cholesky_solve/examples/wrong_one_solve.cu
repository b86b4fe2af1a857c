// @kbx expect wrong
// Mistake: only the forward solve L y = b is done (as if l were the whole matrix A's factor in
// an LU sense), the backward solve with L^T is missing: x = L^-1 b instead of (L L^T)^-1 b.
//
// @kbx launch chol_half<<<max(1, batch * k), 256>>>(b, l, x, batch, n, k, upper)

extern "C" __global__ void __launch_bounds__(256)
chol_half(const float* __restrict__ b, const float* __restrict__ l, float* __restrict__ x, long long batch,
	  long long n, long long k, int upper)
{
	if (blockIdx.x >= batch * k)
		return;
	const long long bi = blockIdx.x / k, c = blockIdx.x % k;
	const float* F = l + bi * n * n;
	float* xc = x + bi * n * k + c;
	const long long gr = upper ? 1 : n, gc = upper ? n : 1;
	for (long long i = threadIdx.x; i < n; i += blockDim.x)
		xc[i * k] = b[bi * n * k + i * k + c];
	for (long long j = 0; j < n; j++) {
		__syncthreads();
		const float yj = xc[j * k] / F[j * gr + j * gc];
		__syncthreads();
		for (long long i = j + 1 + threadIdx.x; i < n; i += blockDim.x)
			xc[i * k] -= F[i * gr + j * gc] * yj;
		if (threadIdx.x == 0)
			xc[j * k] = yj;
	}
	// BUG: no backward solve with the transposed factor
}
