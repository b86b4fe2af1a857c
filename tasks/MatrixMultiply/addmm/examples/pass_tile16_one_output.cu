// @kbx expect pass
// Correct alternative: the classic 16 x 16 shared-memory tiling, one output per thread, and an
// epilogue written as alpha * acc + beta * input without fma (still skipping input when beta = 0).
// Another rounding of the same f32 sum, which the tolerance must absorb.
//
// @kbx launch addmm_tile16<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16))), dim3(16, 16)>>>(input, mat1, mat2, y, m, k, n, beta, alpha)

#define T 16

extern "C" __global__ void addmm_tile16(const float* __restrict__ input, const float* __restrict__ a,
                                        const float* __restrict__ b, float* __restrict__ y, long long m,
                                        long long k, long long n, float beta, float alpha)
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
			acc += As[ty][kk] * Bs[kk][tx];
		__syncthreads();
	}
	if (row < m && col < n) {
		float p = __fmul_rn(alpha, acc);
		y[row * n + col] = beta == 0.0f ? p : __fadd_rn(p, __fmul_rn(beta, input[row * n + col]));
	}
}
