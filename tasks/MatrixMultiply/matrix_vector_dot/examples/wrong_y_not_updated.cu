// @kbx expect wrong
// Mistake: y is treated as an input: the updated values live in a register only and the buffer
// keeps its old contents. result is right, but KernelBenchX's function updates y in place
// (y.copy_(y_new)), and the inout y no longer matches on any case where it changes.
//
// @kbx launch mv_dot_no_store<<<1, 1024>>>(A, x, y, result, n, alpha, beta)

extern "C" __global__ void __launch_bounds__(1024)
mv_dot_no_store(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                float* __restrict__ result, long long n, float alpha, float beta)
{
	__shared__ double red[1024];
	double part = 0.0;
	for (long long i = threadIdx.x; i < n; i += 1024) {
		float acc = 0.0f;
		for (long long c = 0; c < n; c++)
			acc = fmaf(A[i * n + c], x[c], acc);
		float ynew = alpha * acc + beta * y[i];
		part += (double)(ynew * x[i]);
	}
	red[threadIdx.x] = part;
	__syncthreads();
	for (int s = 512; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		result[0] = (float)red[0];
}
