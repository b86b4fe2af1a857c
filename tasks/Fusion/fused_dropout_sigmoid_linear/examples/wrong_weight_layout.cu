// @kbx expect wrong
// Mistake: the weight read as an [in_features, out_features] matrix (input @ weight) instead of
// F.linear's [out_features, in_features] (input @ weight^T). Every index stays inside the buffer,
// so nothing crashes; the values are simply wrong except when weight is symmetric. Same stages and
// scratch names as the reference: the first wrong stage reported should be `linear`.
//
// @kbx scratch linear f32 [m, n]
// @kbx scratch sigmoid f32 [m, n]
// @kbx launch linear_tiled<<<dim3(max(1, cdiv(n, 64)), max(1, cdiv(m, 64))), 256>>>(input, weight, bias, linear, m, n, k)
// @kbx launch sigmoid_fwd<<<max(1, min(cdiv(m * n, 1024), 65536)), 256>>>(linear, sigmoid, i64(m * n))
// @kbx launch dropout_fwd<<<max(1, min(cdiv(m * n, 1024), 65536)), 256>>>(sigmoid, y, i64(m * n), p, training, seed)

#include <kbx/rng.h>

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
			Ws[kk][rr] = (gc < n && gk < kdim) ? w[gk * n + gc] : 0.0f; // BUG: weight read as [k, n]
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
				c[gr * n + gc] = (float)(acc[i][j] + (double)bias[gc]);
		}
	}
}

// torch.sigmoid on CUDA, in f32: 1 / (1 + exp(-x)); sigmoid(-inf) = 0, sigmoid(inf) = 1.
extern "C" __global__ void __launch_bounds__(256)
sigmoid_fwd(const float* __restrict__ x, float* __restrict__ y, long long total)
{
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x)
		y[e] = 1.0f / (1.0f + expf(-x[e]));
}

// F.dropout with kbx's mask: keep iff kbx_uniform(seed, e) >= p. PyTorch's kernel computes
// x * mask * scale with mask 0 or 1, so a dropped NaN or inf gives NaN; scale is 1 / keep_prob
// (keep_prob = 1 - p rounded to f32, the quotient rounded to f32). p = 1 drops everything (x * 0).
extern "C" __global__ void __launch_bounds__(256)
dropout_fwd(const float* __restrict__ x, float* __restrict__ out, long long n, float p, int training, long long seed)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	const bool active = training && p > 0.0f;
	const float keep = (float)(1.0 - (double)p);
	const float scale = p < 1.0f ? (float)(1.0 / (double)keep) : 0.0f;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
		float v = x[e];
		if (active) {
			float mask = kbx_uniform((unsigned long long)seed, (unsigned long long)e) >= p ? 1.0f : 0.0f;
			v = __fmul_rn(__fmul_rn(v, mask), scale);
		}
		out[e] = v;
	}
}
