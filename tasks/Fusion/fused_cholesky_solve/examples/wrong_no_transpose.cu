// @kbx expect wrong
// Mistake: the second solve uses L where the function uses L.T: x = L^-1 L^-1 b instead of
// (L L^T)^-1 b. Right only when L is diagonal (the `diagonal` case and n = 1). The `cholesky` and
// `solve` stages match the reference's, so the wrong stage is the last one, the output.
//
// @kbx scratch chol_work f64 [n, n]
// @kbx scratch cholesky f32 [n, n]
// @kbx scratch solve_f64 f64 [n, k]
// @kbx scratch solve f32 [n, k]
// @kbx launch chol_factor<<<1, 1024, max(1, n) * 8>>>(a, chol_work, cholesky, n)
// @kbx launch lower_solve<<<max(1, k), 256, max(1, n) * 8>>>(chol_work, b, solve_f64, solve, n, k)
// @kbx launch upper_solve<<<max(1, k), 256, max(1, n) * 8>>>(chol_work, solve_f64, x, n, k)

extern "C" __global__ void __launch_bounds__(1024)
chol_factor(const float* __restrict__ a, double* __restrict__ w, float* __restrict__ lf, long long n)
{
	extern __shared__ double colj[]; // column j of L, rows j..n-1
	const long long nn = n * n;
	for (long long e = threadIdx.x; e < nn; e += blockDim.x)
		w[e] = (double)a[e];
	__syncthreads();
	for (long long j = 0; j < n; j++) {
		const double d = sqrt(w[j * n + j]); // every thread reads the pivot before anyone changes it
		for (long long i = j + threadIdx.x; i < n; i += blockDim.x) {
			double v = i == j ? d : w[i * n + j] / d;
			colj[i] = v;
		}
		__syncthreads();
		for (long long i = j + threadIdx.x; i < n; i += blockDim.x)
			w[i * n + j] = colj[i];
		// trailing update of the lower triangle: rows and columns j + 1 .. n - 1
		const long long m = n - j - 1;
		for (long long e = threadIdx.x; e < m * m; e += blockDim.x) {
			const long long i = j + 1 + e / m, l = j + 1 + e % m;
			if (l <= i)
				w[i * n + l] -= colj[i] * colj[l];
		}
		__syncthreads();
	}
	for (long long e = threadIdx.x; e < nn; e += blockDim.x) {
		const long long i = e / n, l = e % n;
		lf[e] = l <= i ? (float)w[e] : 0.0f;
	}
}

// Sum over the block (blockDim.x == 256); every thread gets the result.
static __device__ double block_sum(double v)
{
	__shared__ double sh[8];
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	double r = 0.0;
	for (int q = 0; q < 8; q++)
		r += sh[q];
	__syncthreads();
	return r;
}

// Forward substitution L y = b for right-hand side c = blockIdx.x (b and y are [n, k]).
extern "C" __global__ void __launch_bounds__(256)
lower_solve(const double* __restrict__ w, const float* __restrict__ b, double* __restrict__ y64,
            float* __restrict__ y32, long long n, long long k)
{
	extern __shared__ double ys[];
	const long long c = blockIdx.x;
	if (c >= k)
		return;
	for (long long i = 0; i < n; i++) {
		double s = 0.0;
		for (long long p = threadIdx.x; p < i; p += blockDim.x)
			s += w[i * n + p] * ys[p];
		s = block_sum(s);
		if (threadIdx.x == 0) {
			double v = ((double)b[i * k + c] - s) / w[i * n + i];
			ys[i] = v;
			y64[i * k + c] = v;
			y32[i * k + c] = (float)v;
		}
		__syncthreads();
	}
}

// Back substitution for right-hand side c = blockIdx.x.
// BUG: solves L x = y (a second forward substitution: L[p][i] for p > i, walked downwards) instead
// of L^T x = y, i.e. torch.linalg.solve(L, y) where the function has solve(L.T, y).
extern "C" __global__ void __launch_bounds__(256)
upper_solve(const double* __restrict__ w, const double* __restrict__ y64, float* __restrict__ x, long long n,
            long long k)
{
	extern __shared__ double r[];
	__shared__ double xi;
	const long long c = blockIdx.x;
	if (c >= k)
		return;
	for (long long p = threadIdx.x; p < n; p += blockDim.x)
		r[p] = y64[p * k + c];
	__syncthreads();
	for (long long i = 0; i < n; i++) {
		if (threadIdx.x == 0) {
			xi = r[i] / w[i * n + i];
			x[i * k + c] = (float)xi;
		}
		__syncthreads();
		const double v = xi;
		for (long long p = i + 1 + threadIdx.x; p < n; p += blockDim.x)
			r[p] -= w[p * n + i] * v;
		__syncthreads();
	}
}
