// @kbx expect wrong
// Mistake: the fused loop multiplies x[i] by the y[i] it read, not by the updated value it stores;
// KernelBenchX's function copies y_new into y first and then takes dot(y, x). y itself comes out
// right, result is wrong on every case where y changes.
//
// @kbx launch mv_dot_old_y<<<1, 1024>>>(A, x, y, result, n, alpha, beta)

extern "C" __global__ void __launch_bounds__(1024)
mv_dot_old_y(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
             float* __restrict__ result, long long n, float alpha, float beta)
{
	__shared__ double red[1024];
	double part = 0.0;
	for (long long i = threadIdx.x; i < n; i += 1024) {
		float acc = 0.0f;
		for (long long c = 0; c < n; c++)
			acc = fmaf(A[i * n + c], x[c], acc);
		float yold = y[i];
		y[i] = alpha * acc + beta * yold;
		part += (double)yold * x[i];
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
