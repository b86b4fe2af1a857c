// @kbx expect wrong
// Mistake: the second product is formed as C1^T @ C1 (the transpose on the wrong side: R read
// row-major from the transposed L). Both are symmetric, but they are different matrices unless C1
// is normal (test_case_2_identity, test_case_3_zeros pass; everything random fails).
//
// @kbx scratch t f32 [n, n]
// @kbx launch gemm16<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(n, 16))), dim3(16, 16)>>>(A, B, C, t, n, m, i64(m), i64(1), i64(n), i64(1), alpha, beta)
// @kbx launch gemm16<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(n, 16))), dim3(16, 16)>>>(t, t, t, y, n, n, i64(1), i64(n), i64(n), i64(1), alpha, beta)

// out[i, j] = alpha * sum_k L(i, k) * R(k, j) + beta * X[i, j]; L(i, k) = L[i * li + k * lk],
// R(k, j) = R[k * rk + j * rj]
extern "C" __global__ void gemm16(const float* __restrict__ L, const float* __restrict__ R, const float* __restrict__ X,
                                  float* __restrict__ out, long long n, long long K, long long li, long long lk,
                                  long long rk, long long rj, float alpha, float beta)
{
	__shared__ float Ls[16][17], Rs[16][17];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long i = (long long)blockIdx.y * 16 + ty, j = (long long)blockIdx.x * 16 + tx;
	float acc = 0.0f;
	for (long long k0 = 0; k0 < K; k0 += 16) {
		Ls[ty][tx] = (i < n && k0 + tx < K) ? L[i * li + (k0 + tx) * lk] : 0.0f;
		Rs[ty][tx] = (k0 + ty < K && j < n) ? R[(k0 + ty) * rk + j * rj] : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			acc = fmaf(Ls[ty][kk], Rs[kk][tx], acc);
		__syncthreads();
	}
	if (i < n && j < n)
		out[i * n + j] = __fadd_rn(__fmul_rn(alpha, acc), __fmul_rn(beta, X[i * n + j]));
}
