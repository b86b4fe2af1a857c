// @kbx expect wrong
// Mistake: the second update adds beta * C (the original input) instead of beta * C1, a slip when
// fusing "C = ..." twice: KernelBenchX's function rebinds C to C1 before the second line. Wrong
// wherever beta != 0 and C1 != C, i.e. in every case but the zero matrices.
//
// @kbx scratch t f32 [n, n]
// @kbx launch gemm16<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(n, 16))), dim3(16, 16)>>>(A, B, C, t, n, m, i64(n), i64(1), alpha, beta)
// @kbx launch gemm16<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(n, 16))), dim3(16, 16)>>>(t, t, C, y, n, n, i64(1), i64(n), alpha, beta)

extern "C" __global__ void gemm16(const float* __restrict__ L, const float* __restrict__ R, const float* __restrict__ X,
                                  float* __restrict__ out, long long n, long long K, long long rk, long long rj,
                                  float alpha, float beta)
{
	__shared__ float Ls[16][17], Rs[16][17];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long i = (long long)blockIdx.y * 16 + ty, j = (long long)blockIdx.x * 16 + tx;
	float acc = 0.0f;
	for (long long k0 = 0; k0 < K; k0 += 16) {
		Ls[ty][tx] = (i < n && k0 + tx < K) ? L[i * K + k0 + tx] : 0.0f;
		Rs[ty][tx] = (k0 + ty < K && j < n) ? R[(k0 + ty) * rk + j * rj] : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			acc = fmaf(Ls[ty][kk], Rs[kk][tx], acc);
		__syncthreads();
	}
	if (i < n && j < n)
		out[i * n + j] = __fadd_rn(__fmul_rn(alpha, acc), __fmul_rn(beta, X[i * n + j]));
}
