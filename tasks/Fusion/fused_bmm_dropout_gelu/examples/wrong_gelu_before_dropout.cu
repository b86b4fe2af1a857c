// @kbx expect wrong
// Mistake: the stages fused in the wrong order: the epilogue computes dropout(gelu(bmm)) instead of
// gelu(dropout(bmm)). Agrees in eval mode and for p = 0, differs wherever dropout rescales. Keeps
// the `bmm` scratch buffer, which matches the reference's: the wrong stage is the fused epilogue
// after it (the output).
//
// @kbx scratch bmm f32 [b, n, p]
// @kbx launch bmm_tiled<<<dim3(max(1, cdiv(p, 64)), max(1, cdiv(n, 64)), max(1, b)), 256>>>(input1, input2, bmm, b, n, m, p)
// @kbx launch gelu_dropout<<<max(1, min(cdiv(b * n * p, 1024), 65536)), 256>>>(bmm, y, i64(b * n * p), dropout_p, training, seed, approximate)

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

// BUG: the epilogue applies gelu first and dropout second, dropout(gelu(z)) instead of
// gelu(dropout(z)); gelu(z / (1 - p)) != gelu(z) / (1 - p), so only eval mode and p = 0 agree.
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
gelu_dropout(const float* __restrict__ x, float* __restrict__ y, long long n, float p, int training, long long seed,
             int approximate)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	const bool active = training && p > 0.0f;
	const float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
		float v = gelu_one(x[e], approximate);
		if (active)
			v = kbx_uniform((unsigned long long)seed, (unsigned long long)e) >= p ? v * scale : v * 0.0f;
		y[e] = v;
	}
}
