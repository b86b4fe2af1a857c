// @kbx expect wrong
// Mistake: row 1 of A is addressed with C's row length (A[p + k] instead of A[m + k]), the
// classic wrong-axis slip. Invisible when m = p (all four 2 x 2 test cases), wrong on every
// random draw (m = 2p) and most other cases. (Every read stays inside A for the task's shapes.)
//
// @kbx launch row_dot_wrong_stride<<<1, 1024>>>(A, B, C, y, m, p, alpha, beta)

extern "C" __global__ void __launch_bounds__(1024)
row_dot_wrong_stride(const float* __restrict__ A, const float* __restrict__ B, const float* __restrict__ C,
                     float* __restrict__ y, long long m, long long p, float alpha, float beta)
{
	__shared__ double red[1024];
	double part = 0.0;
	for (long long j = threadIdx.x; j < p; j += 1024) {
		float mm0 = 0.0f, mm1 = 0.0f;
		for (long long k = 0; k < m; k++) {
			float bv = B[k * p + j];
			mm0 = fmaf(A[k], bv, mm0);
			mm1 = fmaf(A[p + k], bv, mm1);
		}
		float c0 = alpha * mm0 + beta * C[j];
		float c1 = alpha * mm1 + beta * C[p + j];
		part += (double)c0 * c1;
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
