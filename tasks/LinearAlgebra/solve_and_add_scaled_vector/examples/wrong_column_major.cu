// @kbx expect wrong
// Mistake: the matrix is indexed as if it were column-major (a[j * n + i] for element (i, j)), so
// the "upper triangle" read is really the lower triangle of a, transposed: every case with
// anything below the diagonal (all random ones) and test_case_1 come out wrong.
//
// @kbx scratch r f64 [max(1, n * k)]
// @kbx launch trsv_cm<<<max(1, k), 256>>>(a, b, y, x, r, alpha, n, k)

extern "C" __global__ void __launch_bounds__(256)
trsv_cm(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ y, float* __restrict__ x,
	double* __restrict__ r, float alpha, long long n, long long k)
{
	const long long c = blockIdx.x;
	if (c >= k)
		return;
	double* rc = r + c * n;
	for (long long i = threadIdx.x; i < n; i += blockDim.x)
		rc[i] = b[i * k + c];
	__syncthreads();
	for (long long i = n - 1; i >= 0; i--) {
		if (threadIdx.x == 0)
			rc[i] /= a[i * n + i];
		__syncthreads();
		for (long long j = threadIdx.x; j < i; j += blockDim.x)
			rc[j] -= (double)a[i * n + j] * rc[i]; // BUG: element (j, i) is a[j * n + i]
		__syncthreads();
	}
	for (long long i = threadIdx.x; i < n; i += blockDim.x)
		x[i * k + c] = (float)(rc[i] + (double)alpha * y[i]);
}
