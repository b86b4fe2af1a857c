// @kbx expect pass
// Correct alternative: the same 64 x 64-tile GEMM (k staged 16 at a time, 4 x 4 per thread, f32
// fmaf), but each accumulator starts from its column's bias instead of taking it after the sum, an
// order kernels often use. The partial sums then stay near |bias| (randn) while the products are
// ~1e-3 (the perf weight is uniform(-0.002, 0.002)), so each add rounds at the bias's ulp: at
// k = 2^15 the result is ~2.8e-6 std off the exact one (a numpy model), over the cases' 1e-5 at
// about one output a row; [tolerance.perf] covers this order, and this example holds it to that.
//
// @kbx launch gemm_softplus<<<dim3(max(1, cdiv(n, 64)), max(1, cdiv(bsz, 64))), 256>>>(input, weight, bias, y, bsz, k, n, has_bias, beta, threshold)

extern "C" __global__ void gemm_softplus(const float* __restrict__ x, const float* __restrict__ w,
                                         const float* __restrict__ bias, float* __restrict__ y, long long bsz,
                                         long long k, long long n, int has_bias, float beta, float threshold)
{
	__shared__ float Xs[16][65], Ws[16][65];
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const long long r0 = (long long)blockIdx.y * 64, c0 = (long long)blockIdx.x * 64;
	float acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = has_bias && c0 + tx + 16 * j < n ? bias[c0 + tx + 16 * j] : 0.0f;
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
			float v = acc[i][j];
			y[r * n + c] = v > threshold ? v : inv_beta * logf(1.0f + expf(beta * v));
		}
}
