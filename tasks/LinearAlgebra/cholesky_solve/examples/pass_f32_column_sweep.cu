// @kbx expect pass
// Correct alternative: one block per (matrix, right-hand-side column), f32 arithmetic, the column
// solved in place in x: forward substitution with the lower factor G (L, or U^T when upper),
// then backward substitution with G^T, one row at a time (two barriers per row).
//
// @kbx launch chol_solve_cols<<<max(1, batch * k), 256>>>(b, l, x, batch, n, k, upper)

extern "C" __global__ void __launch_bounds__(256)
chol_solve_cols(const float* __restrict__ b, const float* __restrict__ l, float* __restrict__ x, long long batch,
		long long n, long long k, int upper)
{
	if (blockIdx.x >= batch * k)
		return;
	const long long bi = blockIdx.x / k, c = blockIdx.x % k;
	const float* F = l + bi * n * n;
	float* xc = x + bi * n * k + c; // element i at xc[i * k]
	// G(i, j) with A = G G^T, read only for j <= i
	const long long gr = upper ? 1 : n, gc = upper ? n : 1;
	for (long long i = threadIdx.x; i < n; i += blockDim.x)
		xc[i * k] = b[bi * n * k + i * k + c];
	for (long long j = 0; j < n; j++) { // G y = b
		__syncthreads();
		const float yj = xc[j * k] / F[j * gr + j * gc];
		__syncthreads();
		for (long long i = j + 1 + threadIdx.x; i < n; i += blockDim.x)
			xc[i * k] -= F[i * gr + j * gc] * yj;
		if (threadIdx.x == 0)
			xc[j * k] = yj;
	}
	for (long long j = n - 1; j >= 0; j--) { // G^T x = y: (G^T)(i, j) = G(j, i)
		__syncthreads();
		const float xj = xc[j * k] / F[j * gr + j * gc];
		__syncthreads();
		for (long long i = threadIdx.x; i < j; i += blockDim.x)
			xc[i * k] -= F[j * gr + i * gc] * xj;
		if (threadIdx.x == 0)
			xc[j * k] = xj;
	}
}
