// @kbx expect pass
// Correct alternative: column-oriented back substitution in f32 by one block, the residual kept
// in shared memory for all k columns: for i = n-1 .. 0, x_i = r_i / a_ii, then every row above
// subtracts a[j, i] * x_i (one barrier per row). f32 rounding like PyTorch's own strsm.
//
// @kbx launch trsv_cols<<<1, 256, max(4, n * k * 4)>>>(a, b, y, x, alpha, n, k)

extern "C" __global__ void __launch_bounds__(256)
trsv_cols(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ y, float* __restrict__ x,
	  float alpha, long long n, long long k)
{
	extern __shared__ float rs[]; // [n][k]
	const long long nk = n * k;
	for (long long t = threadIdx.x; t < nk; t += blockDim.x)
		rs[t] = b[t];
	__syncthreads();
	for (long long i = n - 1; i >= 0; i--) {
		const float d = a[i * n + i];
		// row i is final once all rows below were subtracted: every thread divides its copy
		for (long long t = threadIdx.x; t < i * k; t += blockDim.x) {
			const long long j = t / k, c = t % k;
			rs[t] -= a[j * n + i] * (rs[i * k + c] / d);
		}
		__syncthreads();
		if (threadIdx.x < k)
			rs[i * k + threadIdx.x] /= d;
		__syncthreads();
	}
	for (long long t = threadIdx.x; t < nk; t += blockDim.x)
		x[t] = rs[t] + alpha * y[t / k];
}
