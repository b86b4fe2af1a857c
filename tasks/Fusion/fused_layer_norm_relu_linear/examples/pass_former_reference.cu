// @kbx expect pass
// The former reference, replaced on 2026-12-04 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// fused_layer_norm_relu_linear reference: the three PyTorch stages, each into its own buffer.
//   stage `linear`     (F.linear): linear = input @ weight^T + bias, the exact sum rounded once
//   stage `relu`       (F.relu):   relu = max(linear, 0), NaN kept
//   stage `layer_norm` (F.layer_norm over the last dim, no affine): per-row statistics first
//                      (`layer_norm_mean`, `layer_norm_invstd`), then y = (relu - mean) * invstd
// Keeping `linear` and `relu` in memory costs two extra passes over the [m, n] output: the price of
// a reference whose stages can be diffed (the product dominates the time).
//
// linear: a 256-thread block computes a 32-row x 128-feature tile, 4 x 4 per thread, k staged through
// shared memory 16 at a time (both operands are read along k, coalesced; out-of-range elements load
// as 0, so any m, k, n works, k = 0 included). Products of the f32 inputs are accumulated in f64 and
// rounded once with the bias: the correctly rounded product (f64 FMA runs at half the f32 rate on
// H200; the perf shapes are skinny, m = 32, and bound by reading the weight).
// relu: elementwise. ln_stats: one block per row, f64 sums S1 = sum (r - r0), S2 = sum (r - r0)^2 with
// r0 the row's first value (warp shuffles, then shared memory): mean = r0 + S1 / n,
// var = (S2 - S1^2 / n) / n, invstd = 1 / sqrt(var + eps). ln_apply: blockIdx.y walks the rows.
//
// @kbx scratch linear f32 [m, n]
// @kbx scratch relu f32 [m, n]
// @kbx scratch layer_norm_mean f32 [m]
// @kbx scratch layer_norm_invstd f32 [m]
// @kbx launch linear_fwd<<<dim3(max(1, cdiv(n, 128)), max(1, cdiv(m, 32))), 256>>>(input, weight, bias, linear, m, k, n, has_bias)
// @kbx launch relu_fwd<<<max(1, min(cdiv(m * n, 1024), 65536)), 256>>>(linear, relu, i64(m * n))
// @kbx launch ln_stats<<<max(1, m), 256>>>(relu, layer_norm_mean, layer_norm_invstd, m, n, eps)
// @kbx launch ln_apply<<<dim3(max(1, min(cdiv(n, 1024), 64)), max(1, min(m, 65535))), 256>>>(relu, layer_norm_mean, layer_norm_invstd, y, m, n)

#define TM 32  // rows per tile
#define TN 128 // features per tile
#define TK 16

extern "C" __global__ void __launch_bounds__(256)
linear_fwd(const float* __restrict__ x, const float* __restrict__ wt, const float* __restrict__ bias,
           float* __restrict__ out, long long m, long long k, long long n, int has_bias)
{
	__shared__ double As[TK][TM + 1]; // As[kk][row]
	__shared__ double Bs[TK][TN + 1]; // Bs[kk][feature]
	const int tid = threadIdx.x, tx = tid % 32, ty = tid / 32;
	const long long row0 = (long long)blockIdx.y * TM, col0 = (long long)blockIdx.x * TN;
	double acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0;
	for (long long k0 = 0; k0 < k; k0 += TK) {
		for (int r = 0; r < 2; r++) { // input tile: 32 rows x 16 k, consecutive threads along k
			int idx = tid + 256 * r, row = idx / TK, kk = idx % TK;
			long long gr = row0 + row, gk = k0 + kk;
			As[kk][row] = (gr < m && gk < k) ? (double)x[gr * k + gk] : 0.0;
		}
		for (int r = 0; r < 8; r++) { // weight tile: 128 features x 16 k, consecutive threads along k
			int idx = tid + 256 * r, col = idx / TK, kk = idx % TK;
			long long gc = col0 + col, gk = k0 + kk;
			Bs[kk][col] = (gc < n && gk < k) ? (double)wt[gc * k + gk] : 0.0;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < TK; kk++) {
			double av[4], bv[4];
			for (int i = 0; i < 4; i++)
				av[i] = As[kk][ty + 8 * i];
			for (int j = 0; j < 4; j++)
				bv[j] = Bs[kk][tx + 32 * j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = fma(av[i], bv[j], acc[i][j]);
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++) {
		long long gr = row0 + ty + 8 * i;
		if (gr >= m)
			continue;
		for (int j = 0; j < 4; j++) {
			long long gc = col0 + tx + 32 * j;
			if (gc < n)
				out[gr * n + gc] = (float)(acc[i][j] + (has_bias ? (double)bias[gc] : 0.0));
		}
	}
}

// F.relu on CUDA (clamp_min(x, 0)): NaN is returned unchanged.
extern "C" __global__ void __launch_bounds__(256)
relu_fwd(const float* __restrict__ x, float* __restrict__ y, long long total)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
		float v = x[e];
		y[e] = (v != v || v > 0.0f) ? v : 0.0f;
	}
}

static __device__ __forceinline__ double block_sum(double v, double* sh)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	double r = 0.0;
	for (int wi = 0; wi < 8; wi++)
		r += sh[wi];
	__syncthreads();
	return r;
}

extern "C" __global__ void __launch_bounds__(256)
ln_stats(const float* __restrict__ r, float* __restrict__ mean_r, float* __restrict__ invstd_r, long long m,
         long long n, float eps)
{
	__shared__ double sh[8];
	const long long row = blockIdx.x;
	if (row >= m || n == 0)
		return;
	const float* rp = r + row * n;
	const double r0 = (double)rp[0];
	double s1 = 0.0, s2 = 0.0;
	for (long long e = threadIdx.x; e < n; e += 256) {
		double v = (double)rp[e] - r0;
		s1 += v;
		s2 = fma(v, v, s2);
	}
	s1 = block_sum(s1, sh);
	s2 = block_sum(s2, sh);
	if (threadIdx.x == 0) {
		double m2 = s2 - s1 * (s1 / (double)n);
		if (m2 < 0.0) // rounding only; keeps NaN
			m2 = 0.0;
		mean_r[row] = (float)(r0 + s1 / (double)n);
		invstd_r[row] = (float)(1.0 / sqrt(m2 / (double)n + (double)eps));
	}
}

extern "C" __global__ void __launch_bounds__(256)
ln_apply(const float* __restrict__ r, const float* __restrict__ mean_r, const float* __restrict__ invstd_r,
         float* __restrict__ y, long long m, long long n)
{
	for (long long row = blockIdx.y; row < m; row += gridDim.y) {
		const float mean = mean_r[row], invstd = invstd_r[row];
		for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += (long long)gridDim.x * blockDim.x)
			y[row * n + e] = __fmul_rn(__fsub_rn(r[row * n + e], mean), invstd);
	}
}
