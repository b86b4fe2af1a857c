// @kbx expect pass
// The former reference, replaced on 2026-12-03 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// fused_bmm_dropout_gelu reference: the three PyTorch stages, each into its own buffer.
//   stage `bmm`     (torch.bmm):     bmm[z, i, j] = sum_k input1[z, i, k] * input2[z, k, j]
//   stage `dropout` (F.dropout):     training and p > 0: element e of bmm (flat index) is kept iff
//                                    kbx_uniform(seed, e) >= p and becomes bmm * scale, with
//                                    scale = 1 / (1 - p) in f32; a dropped element is bmm * 0.
//                                    training = 0 or p = 0: a copy.
//   stage gelu      (F.gelu):        y = gelu(dropout), exact (erf) or tanh form.
// Keeping `bmm` and `dropout` in memory costs two extra passes over the [B, N, P] result: the price
// of a reference whose stages can be diffed (the product dominates the time anyway).
//
// bmm: a 256-thread block computes a 64 x 64 tile with a 4 x 4 register block per thread, walking k
// in slices of 16 through shared memory. The products of the f32 inputs are accumulated in f64 and
// rounded once, so `bmm` is the correctly rounded product (PyTorch's cuBLAS SGEMM, no TF32 by
// default, accumulates in f32: at m = 256 that is already ~1e-5 absolute, so an f32 reference would
// eat the whole tolerance of a candidate that sums in another order). f64 FMA runs at half the f32
// rate on H200. Out-of-range tile elements load as 0, so any n, m, p (m = 0: zeros) works.
// dropout and gelu: grid-stride elementwise loops; gelu uses PyTorch's CUDA formulas in f32 (same
// operation order), erff / tanhf being within 2 ulp of the functions PyTorch calls.
//
// @kbx scratch bmm f32 [b, n, p]
// @kbx scratch dropout f32 [b, n, p]
// @kbx launch bmm_tiled<<<dim3(max(1, cdiv(p, 64)), max(1, cdiv(n, 64)), max(1, b)), 256>>>(input1, input2, bmm, b, n, m, p)
// @kbx launch dropout_fwd<<<max(1, min(cdiv(b * n * p, 1024), 65536)), 256>>>(bmm, dropout, i64(b * n * p), dropout_p, training, seed)
// @kbx launch gelu_fwd<<<max(1, min(cdiv(b * n * p, 1024), 65536)), 256>>>(dropout, y, i64(b * n * p), approximate)

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
