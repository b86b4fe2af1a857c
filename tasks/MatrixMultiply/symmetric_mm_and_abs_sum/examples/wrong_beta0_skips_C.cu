// @kbx expect wrong
// Mistake: beta * C is skipped when beta = 0, as cuBLAS's addmm-style epilogue would. Here it is a
// plain elementwise product and 0 * NaN = NaN must reach the sum (special_beta0_nan).
//
// @kbx launch abs_sum_skip<<<1, 1024>>>(A, C, y, n, m, alpha, beta)

extern "C" __global__ void __launch_bounds__(1024)
abs_sum_skip(const float* __restrict__ A, const float* __restrict__ C, float* __restrict__ y, long long n,
             long long m, float alpha, float beta)
{
	__shared__ double red[1024];
	double part = 0.0;
	for (long long e = threadIdx.x; e < n * n; e += 1024) {
		long long i = e / n, j = e % n;
		float s = 0.0f;
		for (long long k = 0; k < m; k++)
			s = fmaf(A[i * m + k], A[j * m + k], s);
		float v = alpha * s;
		if (beta != 0.0f)
			v += beta * C[e];
		part += fabsf(v);
	}
	red[threadIdx.x] = part;
	__syncthreads();
	for (int s = 512; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[0] = (float)red[0];
}
