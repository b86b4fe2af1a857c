// @kbx expect pass
// Correct alternative: one 256-thread block per row with an f32 shared-memory tree for A[i] . x,
// the updated y[i] written in place, then a second kernel forms dot(y, x) in one block with f32
// partial sums and an f32 tree, like an f32 BLAS dot. Another summation order, within atol.
//
// @kbx launch mv_rows<<<max(1, n), 256>>>(A, x, y, n, alpha, beta)
// @kbx launch dot_f32<<<1, 1024>>>(y, x, result, n)

extern "C" __global__ void __launch_bounds__(256)
mv_rows(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, long long n, float alpha,
        float beta)
{
	__shared__ float red[256];
	const long long i = blockIdx.x;
	if (i >= n)
		return;
	float acc = 0.0f;
	for (long long c = threadIdx.x; c < n; c += 256)
		acc = fmaf(A[i * n + c], x[c], acc);
	red[threadIdx.x] = acc;
	__syncthreads();
	for (int s = 128; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[i] = alpha * red[0] + beta * y[i];
}

extern "C" __global__ void __launch_bounds__(1024)
dot_f32(const float* __restrict__ y, const float* __restrict__ x, float* __restrict__ result, long long n)
{
	__shared__ float red[1024];
	float acc = 0.0f;
	for (long long i = threadIdx.x; i < n; i += 1024)
		acc = fmaf(y[i], x[i], acc);
	red[threadIdx.x] = acc;
	__syncthreads();
	for (int s = 512; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		result[0] = red[0];
}
