// @kbx expect wrong
// Mistake: y [n, 1] is not broadcast over the k columns of b: alpha * y is added to column 0
// only (as if b were a vector). Right whenever k = 1, wrong on every case with k > 1.
//
// @kbx scratch r f64 [max(1, n * k)]
// @kbx launch trsv_nobc<<<max(1, k), 256>>>(a, b, y, x, r, alpha, n, k)

extern "C" __global__ void __launch_bounds__(256)
trsv_nobc(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ y, float* __restrict__ x,
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
			rc[j] -= (double)a[j * n + i] * rc[i];
		__syncthreads();
	}
	for (long long i = threadIdx.x; i < n; i += blockDim.x)
		x[i * k + c] = (float)(rc[i] + (c == 0 ? (double)alpha * y[i] : 0.0)); // BUG: y belongs to every column
}
