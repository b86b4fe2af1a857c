// @kbx expect pass
// Correct alternative: a classic tiled GEMM (64 x 64 output tiles, k staged through shared memory 16
// at a time, 4 x 4 register blocks, f32 fmaf accumulation) with bias, threshold and softplus fused
// into the epilogue: lin is never written. Wasteful for the perf GEMV (bsz = 1 fills one row of each
// tile), but correct: f32 sums of the cases' randn products stay ~1e-6 from exact.
//
// @kbx launch gemm_softplus<<<dim3(max(1, cdiv(n, 64)), max(1, cdiv(bsz, 64))), 256>>>(input, weight, bias, y, bsz, k, n, has_bias, beta, threshold)

extern "C" __global__ void gemm_softplus(const float* __restrict__ x, const float* __restrict__ w,
                                         const float* __restrict__ bias, float* __restrict__ y, long long bsz,
                                         long long k, long long n, int has_bias, float beta, float threshold)
{
	__shared__ float Xs[16][65], Ws[16][65];
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const long long r0 = (long long)blockIdx.y * 64, c0 = (long long)blockIdx.x * 64;
	float acc[4][4] = {};
	for (long long k0 = 0; k0 < k; k0 += 16) {
		for (int e = tid; e < 1024; e += 256) {
			int row = e / 16, kk = e % 16;
			Xs[kk][row] = (r0 + row < bsz && k0 + kk < k) ? x[(r0 + row) * k + k0 + kk] : 0.0f;
			Ws[kk][row] = (c0 + row < n && k0 + kk < k) ? w[(c0 + row) * k + k0 + kk] : 0.0f;
		}
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = fmaf(Xs[kk][ty + 16 * i], Ws[kk][tx + 16 * j], acc[i][j]);
		__syncthreads();
	}
	const float inv_beta = (float)(1.0 / (double)beta);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			long long r = r0 + ty + 16 * i, c = c0 + tx + 16 * j;
			if (r >= bsz || c >= n)
				continue;
			float v = has_bias ? acc[i][j] + bias[c] : acc[i][j];
			y[r * n + c] = v > threshold ? v : inv_beta * logf(1.0f + expf(beta * v));
		}
}
