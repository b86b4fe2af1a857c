// @kbx expect wrong
// Mistake: the upper flag is ignored and the factor is always taken as lower triangular, so
// with upper = 1 the solves read the wrong triangle (zeros in the 2 x 2 tests, randn in the
// random ones): every upper case is wrong.
//
// @kbx launch chol_solve_lower_only<<<max(1, batch * k), 256>>>(b, l, x, batch, n, k, upper)

extern "C" __global__ void __launch_bounds__(256)
chol_solve_lower_only(const float* __restrict__ b, const float* __restrict__ l, float* __restrict__ x,
		      long long batch, long long n, long long k, int upper)
{
	if (blockIdx.x >= batch * k)
		return;
	const long long bi = blockIdx.x / k, c = blockIdx.x % k;
	const float* F = l + bi * n * n;
	float* xc = x + bi * n * k + c;
	const long long gr = n, gc = 1; // BUG: should be (1, n) when upper = 1
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
	for (long long j = n - 1; j >= 0; j--) {
		__syncthreads();
		const float xj = xc[j * k] / F[j * gr + j * gc];
		__syncthreads();
		for (long long i = threadIdx.x; i < j; i += blockDim.x)
			xc[i * k] -= F[j * gr + i * gc] * xj;
		if (threadIdx.x == 0)
			xc[j * k] = xj;
	}
}
