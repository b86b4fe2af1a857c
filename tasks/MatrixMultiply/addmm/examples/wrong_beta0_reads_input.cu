// @kbx expect wrong
// Mistake: the epilogue always computes alpha * acc + beta * input. With beta = 0 that is
// 0 * NaN = NaN and 0 * inf = NaN where input holds them, but torch.addmm ignores input entirely
// when beta = 0 (special_beta0_ignores_input, empty_k_beta0). Everything else is right.
//
// @kbx launch addmm_naive_epilogue<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16))), dim3(16, 16)>>>(input, mat1, mat2, y, m, k, n, beta, alpha)

#define T 16

extern "C" __global__ void addmm_naive_epilogue(const float* __restrict__ input, const float* __restrict__ a,
                                                const float* __restrict__ b, float* __restrict__ y,
                                                long long m, long long k, long long n, float beta, float alpha)
{
	__shared__ float As[T][T + 1];
	__shared__ float Bs[T][T + 1];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row = (long long)blockIdx.y * T + ty;
	const long long col = (long long)blockIdx.x * T + tx;
	float acc = 0.0f;
	for (long long k0 = 0; k0 < k; k0 += T) {
		As[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0f;
		Bs[ty][tx] = (k0 + ty < k && col < n) ? b[(k0 + ty) * n + col] : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < T; kk++)
			acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
		__syncthreads();
	}
	if (row < m && col < n)
		y[row * n + col] = alpha * acc + beta * input[row * n + col];
}
