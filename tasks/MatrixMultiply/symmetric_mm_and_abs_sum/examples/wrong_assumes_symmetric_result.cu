// @kbx expect wrong
// Mistake: the symmetry of A @ A^T is carried over to C': only entries with i <= j are formed and
// the off-diagonal ones are counted twice. But beta * C is not symmetric, so |C'[j][i]| differs
// from |C'[i][j]| whenever C is not symmetric: right on test_case_1, _2 and _4 (constant C),
// wrong on test_case_3_zero_A (C = [[1, 2], [3, 4]]) and every random case.
//
// @kbx launch abs_sum_upper<<<1, 1024>>>(A, C, y, n, m, alpha, beta)

extern "C" __global__ void __launch_bounds__(1024)
abs_sum_upper(const float* __restrict__ A, const float* __restrict__ C, float* __restrict__ y, long long n,
              long long m, float alpha, float beta)
{
	__shared__ double red[1024];
	double part = 0.0;
	for (long long e = threadIdx.x; e < n * n; e += 1024) {
		long long i = e / n, j = e % n;
		if (i > j)
			continue;
		float s = 0.0f;
		for (long long k = 0; k < m; k++)
			s = fmaf(A[i * m + k], A[j * m + k], s);
		double v = fabsf(alpha * s + beta * C[i * n + j]);
		part += (i == j) ? v : 2.0 * v;
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
