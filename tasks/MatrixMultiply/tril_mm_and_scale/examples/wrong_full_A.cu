// @kbx expect wrong
// Mistake: tril forgotten, the whole of A is multiplied (y = beta * alpha * A @ B). Right only
// when A is already lower triangular (test_case_2, test_case_3, test_case_4_zero_A); every random
// case fails.
//
// @kbx launch tril_forgotten<<<dim3(max(1, cdiv(p, 16)), max(1, cdiv(n, 16))), dim3(16, 16)>>>(A, B, y, n, p, alpha, beta)

#define T 16

extern "C" __global__ void tril_forgotten(const float* __restrict__ A, const float* __restrict__ B,
                                          float* __restrict__ y, long long n, long long p, float alpha, float beta)
{
	__shared__ float As[T][T + 1];
	__shared__ float Bs[T][T + 1];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row = (long long)blockIdx.y * T + ty;
	const long long col = (long long)blockIdx.x * T + tx;
	float acc = 0.0f;
	for (long long k0 = 0; k0 < n; k0 += T) {
		As[ty][tx] = (row < n && k0 + tx < n) ? A[row * n + k0 + tx] : 0.0f;
		Bs[ty][tx] = (k0 + ty < n && col < p) ? B[(k0 + ty) * p + col] : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < T; kk++)
			acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
		__syncthreads();
	}
	if (row < n && col < p)
		y[row * p + col] = beta * (alpha * acc);
}
