// @kbx expect pass
// The former reference, replaced on 2026-12-03 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// fused_bmm_rmsnorm_gelu_dropout_sub reference: the four stages of the KernelBenchX function, each
// into its own buffer. The function's body stops at dropout and returns its result: `other` is
// accepted and never subtracted (see task.ini), so there is no `sub` stage.
//   stage `bmm`      (torch.bmm):      bmm[z, i, j] = sum_k input1[z, i, k] * input2[z, k, j]
//   stage `rmsnorm`  (F.rms_norm over the last dim, weight None): per row r of the [b * n, p]
//                    result, rmsnorm_rstd[r] = 1 / sqrt(mean_j bmm[r, j]^2 + eps) (one launch),
//                    rmsnorm = bmm * rmsnorm_rstd[r] (the next launch)
//   stage `gelu`     (F.gelu):         exact (erf) or tanh form
//   stage dropout    (F.dropout):      training and p > 0: element e of gelu (flat index) is kept
//                                      iff kbx_uniform(seed, e) >= p and becomes gelu * scale,
//                                      scale = 1 / (1 - p) in f32; a dropped element is gelu * 0.
//                                      training = 0 or p = 0: a copy.
// Keeping every stage in memory costs three extra passes over the [b, n, p] result: the price of a
// reference whose stages can be diffed (the product dominates the time anyway).
//
// bmm: a 256-thread block computes a 64 x 64 tile with a 4 x 4 register block per thread, walking k
// in slices of 16 through shared memory. The products of the f32 inputs are accumulated in f64 and
// rounded once, so `bmm` is the correctly rounded product (PyTorch's cuBLAS SGEMM, no TF32 by
// default, accumulates in f32, a few ulp from it). f64 FMA runs at half the f32 rate on H200.
// Out-of-range tile elements load as 0, so any n, m, p (m = 0: zeros) works.
// rmsnorm: one block per row; the squares of the f32 values are exact in f64 and summed there, the
// mean, + eps and 1 / sqrt in f64, rounded to f32 once (PyTorch: pow, mean, add, rsqrt in f32, a
// few ulp from it); then each element is multiplied by the f32 rstd, as PyTorch's z * rstd.
// gelu and dropout: grid-stride elementwise loops; gelu uses PyTorch's CUDA formulas in f32.
//
// @kbx scratch bmm f32 [b, n, p]
// @kbx scratch rmsnorm_rstd f32 [b * n]
// @kbx scratch rmsnorm f32 [b, n, p]
// @kbx scratch gelu f32 [b, n, p]
// @kbx launch bmm_tiled<<<dim3(max(1, cdiv(p, 64)), max(1, cdiv(n, 64)), max(1, b)), 256>>>(input1, input2, bmm, b, n, m, p)
// @kbx launch rms_rstd<<<max(1, min(b * n, 1048576)), 256>>>(bmm, rmsnorm_rstd, i64(b * n), p, eps)
// @kbx launch rms_apply<<<dim3(max(1, min(cdiv(p, 1024), 64)), max(1, min(b * n, 65535))), 256>>>(bmm, rmsnorm_rstd, rmsnorm, i64(b * n), p)
// @kbx launch gelu_fwd<<<max(1, min(cdiv(b * n * p, 1024), 65536)), 256>>>(rmsnorm, gelu, i64(b * n * p), approximate)
// @kbx launch dropout_fwd<<<max(1, min(cdiv(b * n * p, 1024), 65536)), 256>>>(gelu, y, i64(b * n * p), dropout_p, training, seed)

#include <kbx/rng.h>

#define BM 64
#define BN 64
#define BK 16

// c[z] = a[z] @ bb[z]: a [nb, n, m], bb [nb, m, p], c [nb, n, p], all contiguous.
extern "C" __global__ void __launch_bounds__(256)
bmm_tiled(const float* __restrict__ a, const float* __restrict__ bb, float* __restrict__ c, long long nb, long long n,
          long long m, long long p)
{
	__shared__ float As[BK][BM + 1]; // transposed: As[kk][row]
	__shared__ float Bs[BK][BN];
	const long long z = blockIdx.z;
	if (z >= nb)
		return;
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const long long row0 = (long long)blockIdx.y * BM, col0 = (long long)blockIdx.x * BN;
	const float* A = a + z * n * m;
	const float* B = bb + z * m * p;
	float* C = c + z * n * p;
	double acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0;
	for (long long k0 = 0; k0 < m; k0 += BK) {
		for (int r = 0; r < 4; r++) { // A tile: 64 rows x 16 k, consecutive threads along k
			int idx = tid + 256 * r, row = idx / BK, kk = idx % BK;
			long long gr = row0 + row, gk = k0 + kk;
			As[kk][row] = (gr < n && gk < m) ? A[gr * m + gk] : 0.0f;
		}
		for (int r = 0; r < 4; r++) { // B tile: 16 k x 64 columns, consecutive threads along p
			int idx = tid + 256 * r, kk = idx / BN, col = idx % BN;
			long long gk = k0 + kk, gc = col0 + col;
			Bs[kk][col] = (gk < m && gc < p) ? B[gk * p + gc] : 0.0f;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < BK; kk++) {
			float av[4], bv[4];
			for (int i = 0; i < 4; i++)
				av[i] = As[kk][ty + 16 * i];
			for (int j = 0; j < 4; j++)
				bv[j] = Bs[kk][tx + 16 * j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = fma((double)av[i], (double)bv[j], acc[i][j]);
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++) {
		long long gr = row0 + ty + 16 * i;
		if (gr >= n)
			continue;
		for (int j = 0; j < 4; j++) {
			long long gc = col0 + tx + 16 * j;
			if (gc < p)
				C[gr * p + gc] = (float)acc[i][j];
		}
	}
}

// Sum over the block (blockDim.x == 256); every thread gets the result.
static __device__ double block_sum(double v)
{
	__shared__ double sh[8];
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	double r = 0.0;
	for (int w = 0; w < 8; w++)
		r += sh[w];
	__syncthreads();
	return r;
}

// rstd[r] = 1 / sqrt(mean of x[r, :]^2 + eps), one block per row (grid-stride over rows). An empty
// row (p = 0) has nothing to normalise; its rstd is never read.
extern "C" __global__ void __launch_bounds__(256)
rms_rstd(const float* __restrict__ x, float* __restrict__ rstd, long long rows, long long p, float eps)
{
	for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
		const float* xr = x + r * p;
		double ss = 0.0;
		for (long long j = threadIdx.x; j < p; j += 256) {
			double v = (double)xr[j];
			ss += v * v;
		}
		ss = block_sum(ss);
		if (threadIdx.x == 0)
			rstd[r] = (float)(1.0 / sqrt(ss / (double)p + (double)eps));
	}
}

// out[r, j] = x[r, j] * rstd[r]: blockIdx.y walks rows, x threads walk a row.
extern "C" __global__ void __launch_bounds__(256)
rms_apply(const float* __restrict__ x, const float* __restrict__ rstd, float* __restrict__ out, long long rows,
          long long p)
{
	for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
		const float s = rstd[r];
		for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < p; j += (long long)gridDim.x * blockDim.x)
			out[r * p + j] = __fmul_rn(x[r * p + j], s);
	}
}

// F.gelu on CUDA, in f32: approximate = 0: x * 0.5 * (1 + erf(x * M_SQRT1_2));
// approximate = 1: 0.5 * x * (1 + tanh(kBeta * (x + kKappa * x^3))), kBeta = sqrt(2 / pi).
static __device__ __forceinline__ float gelu_one(float x, int approximate)
{
	if (approximate) {
		const float kBeta = 0.7978845608028654f, kKappa = 0.044715f;
		float x_cube = x * x * x;
		float inner = kBeta * (x + kKappa * x_cube);
		return 0.5f * x * (1.0f + tanhf(inner));
	}
	const float kAlpha = 0.7071067811865476f;
	return x * 0.5f * (1.0f + erff(x * kAlpha));
}

extern "C" __global__ void __launch_bounds__(256)
gelu_fwd(const float* __restrict__ x, float* __restrict__ y, long long n, int approximate)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
		y[e] = gelu_one(x[e], approximate);
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
