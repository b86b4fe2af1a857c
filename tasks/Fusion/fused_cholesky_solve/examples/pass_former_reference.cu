// @kbx expect pass
// The former reference, replaced on 2026-12-03 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// fused_cholesky_solve reference: the three stages of the KernelBenchX function.
//   stage `cholesky` (torch.cholesky(A)):         A = L L^T, L lower triangular, zeros above
//   stage `solve`    (torch.linalg.solve(L, b)):  L y = b   (forward substitution)
//   stage output     (torch.linalg.solve(L.T, y)): L^T x = y (back substitution)
// The chain runs in f64 on f64 copies (`chol_work`, `solve_f64`) and each stage's result is also
// stored rounded to f32 in `cholesky` and `solve` for the stage-by-stage diff; x is rounded once.
// So x is the solution of the f32 system to ~1e-15 relative; PyTorch's all-f32 chain (cuSOLVER
// potrf, then two LU solves) is ~cond(A) * sqrt(n) * 6e-8 from it, which the well-conditioned
// spd(d) inputs of the cases keep below ~3e-6 (see task.ini).
//
// chol_factor: one 1024-thread block, right-looking: for each column j, d = sqrt(W[j][j]), the
// column below the diagonal is divided by d and copied to shared memory, then the trailing lower
// triangle is updated, W[i][l] -= L[i][j] * L[l][j] (threads over row-major (i, l), coalesced).
// n sequential steps of O((n - j)^2) parallel work; W stays in L2 for the sizes used (n <= 512).
// lower_solve: one block per right-hand side; row i: a block reduction of L[i][0..i) . y[0..i)
// (row i of L is contiguous), then y[i] = (b[i] - s) / L[i][i]. upper_solve: one block per
// right-hand side, right-looking: x[i] = r[i] / L[i][i], then r[p] -= L[i][p] * x[i] for p < i
// (row i of L again), i from n - 1 down to 0.
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

// Back substitution L^T x = y for right-hand side c = blockIdx.x.
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
	for (long long i = n - 1; i >= 0; i--) {
		if (threadIdx.x == 0) {
			xi = r[i] / w[i * n + i];
			x[i * k + c] = (float)xi;
		}
		__syncthreads();
		const double v = xi;
		for (long long p = threadIdx.x; p < i; p += blockDim.x)
			r[p] -= w[i * n + p] * v; // L^T[p][i] = L[i][p]
		__syncthreads();
	}
}
