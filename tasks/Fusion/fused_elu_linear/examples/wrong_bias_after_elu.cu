// @kbx expect wrong
// Mistake: an epilogue in the wrong order: the GEMM stores x @ W^T and the bias is added after the
// activation, elu(x @ W^T) + b instead of elu(x @ W^T + b). Right only when the bias is 0 (the four
// KernelBenchX corner cases); the random draws fail. Same stages and scratch names as the
// reference: the first wrong stage reported should be `linear` (it lacks the bias).
//
// @kbx scratch linear f32 [m, n]
// @kbx launch linear_tiled<<<dim3(max(1, cdiv(n, 64)), max(1, cdiv(m, 64))), 256>>>(input, weight, bias, linear, m, n, k)
// @kbx launch elu_fwd<<<max(1, min(cdiv(m * n, 1024), 65536)), 256>>>(linear, bias, y, i64(m * n), n, alpha)

#define BM 64
#define BN 64
#define BK 16

// c[i, j] = sum_kk a[i, kk] * w[j, kk] + bias[j]: a [m, kdim], w [n, kdim], c [m, n].
extern "C" __global__ void __launch_bounds__(256)
linear_tiled(const float* __restrict__ a, const float* __restrict__ w, const float* __restrict__ bias,
             float* __restrict__ c, long long m, long long n, long long kdim)
{
	__shared__ float As[BK][BM + 1]; // As[kk][row]
	__shared__ float Ws[BK][BN + 1]; // Ws[kk][col]
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const long long row0 = (long long)blockIdx.y * BM, col0 = (long long)blockIdx.x * BN;
	double acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0;
	for (long long k0 = 0; k0 < kdim; k0 += BK) {
		for (int r = 0; r < 4; r++) { // 64 rows x 16 k of each operand, consecutive threads along k
			int idx = tid + 256 * r, rr = idx / BK, kk = idx % BK;
			long long gk = k0 + kk, gr = row0 + rr, gc = col0 + rr;
			As[kk][rr] = (gr < m && gk < kdim) ? a[gr * kdim + gk] : 0.0f;
			Ws[kk][rr] = (gc < n && gk < kdim) ? w[gc * kdim + gk] : 0.0f;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < BK; kk++) {
			float av[4], bv[4];
			for (int i = 0; i < 4; i++)
				av[i] = As[kk][ty + 16 * i];
			for (int j = 0; j < 4; j++)
				bv[j] = Ws[kk][tx + 16 * j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = fma((double)av[i], (double)bv[j], acc[i][j]);
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++) {
		long long gr = row0 + ty + 16 * i;
		if (gr >= m)
			continue;
		for (int j = 0; j < 4; j++) {
			long long gc = col0 + tx + 16 * j;
			if (gc < n)
				c[gr * n + gc] = (float)acc[i][j]; // BUG: the bias is left for the epilogue...
		}
	}
}

// F.elu on CUDA, in f32: x > 0 ? x : expm1(x) * alpha (NaN takes the second branch and stays NaN).
extern "C" __global__ void __launch_bounds__(256)
elu_fwd(const float* __restrict__ x, const float* __restrict__ bias, float* __restrict__ y, long long total, long long n,
        float alpha)
{
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x) {
		const float v = x[e];
		const float b = bias[e % n];
		y[e] = (v > 0.0f ? v : __fmul_rn(expm1f(v), alpha)) + b; // BUG: ... which adds it after the activation
	}
}
