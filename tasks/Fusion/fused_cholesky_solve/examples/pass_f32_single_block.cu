// @kbx expect pass
// Correct alternative: everything in f32 and in one 1024-thread block: a right-looking Cholesky
// factorisation into the `cholesky` scratch buffer (the same content as the reference's, so a
// failure would be localised), then both triangular solves, one right-hand side at a time, with the
// running vector in shared memory. f32 throughout, like PyTorch: ~cond(A) * sqrt(n) * 6e-8 from
// the exact solution, inside 1e-5 for the cases' well-conditioned matrices.
//
// @kbx scratch cholesky f32 [n, n]
// @kbx launch chol_solve_f32<<<1, 1024, max(1, n) * 4>>>(a, b, cholesky, x, n, k)

extern "C" __global__ void __launch_bounds__(1024)
chol_solve_f32(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ L, float* __restrict__ x,
               long long n, long long k)
{
	extern __shared__ float v[];
	__shared__ float piv;
	for (long long e = threadIdx.x; e < n * n; e += blockDim.x)
		L[e] = (e % n) <= (e / n) ? a[e] : 0.0f;
	__syncthreads();
	for (long long j = 0; j < n; j++) {
		if (threadIdx.x == 0)
			piv = sqrtf(L[j * n + j]);
		__syncthreads();
		for (long long i = j + threadIdx.x; i < n; i += blockDim.x)
			L[i * n + j] = i == j ? piv : L[i * n + j] / piv;
		__syncthreads();
		const long long m = n - j - 1;
		for (long long e = threadIdx.x; e < m * m; e += blockDim.x) {
			long long i = j + 1 + e / m, l = j + 1 + e % m;
			if (l <= i)
				L[i * n + l] -= L[i * n + j] * L[l * n + j];
		}
		__syncthreads();
	}
	for (long long c = 0; c < k; c++) {
		for (long long p = threadIdx.x; p < n; p += blockDim.x)
			v[p] = b[p * k + c];
		__syncthreads();
		for (long long i = 0; i < n; i++) { // forward: v <- L^-1 v, column-oriented
			if (threadIdx.x == 0)
				v[i] /= L[i * n + i];
			__syncthreads();
			for (long long p = i + 1 + threadIdx.x; p < n; p += blockDim.x)
				v[p] -= L[p * n + i] * v[i];
			__syncthreads();
		}
		for (long long i = n - 1; i >= 0; i--) { // backward: v <- L^-T v
			if (threadIdx.x == 0)
				v[i] /= L[i * n + i];
			__syncthreads();
			for (long long p = threadIdx.x; p < i; p += blockDim.x)
				v[p] -= L[i * n + p] * v[i];
			__syncthreads();
		}
		for (long long p = threadIdx.x; p < n; p += blockDim.x)
			x[p * k + c] = v[p];
		__syncthreads();
	}
}
