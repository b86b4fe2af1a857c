// @kbx expect pass
// Correct alternative: 64 x 64-tile GEMMs (f32 fmaf, 4 x 4 per thread); softmax and dropout fused in
// one row kernel (f32 online max / sum, the kbx/rng.h mask, written to `dropout`, the reference's
// name, so it is diffed); residual add and layer norm fused in another (f32 two-pass statistics per
// row).
//
// @kbx scratch matmul f32 [b * s, dk]
// @kbx scratch dropout f32 [b * s, dk]
// @kbx scratch matmul2 f32 [b * s, dout]
// @kbx launch gemm64<<<dim3(max(1, cdiv(dk, 64)), max(1, cdiv(b * s, 64))), 256>>>(input, weight1, matmul, i64(b * s), dk, din)
// @kbx launch softmax_dropout<<<max(1, min(b * s, 65536)), 256>>>(matmul, dropout, i64(b * s), dk, p, seed)
// @kbx launch gemm64<<<dim3(max(1, cdiv(dout, 64)), max(1, cdiv(b * s, 64))), 256>>>(dropout, weight2, matmul2, i64(b * s), dout, dk)
// @kbx launch add_layer_norm<<<max(1, min(b * s, 65536)), 256>>>(matmul2, residual, y, i64(b * s), dout, eps)

#include <kbx/rng.h>

#define NEG_INF __int_as_float(0xff800000)

// C [M, N] = A [M, K] @ B [K, N], all row-major
extern "C" __global__ void gemm64(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                  long long M, long long N, long long K)
{
	__shared__ float As[16][65], Bs[16][65];
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const long long r0 = (long long)blockIdx.y * 64, c0 = (long long)blockIdx.x * 64;
	float acc[4][4] = {};
	for (long long k0 = 0; k0 < K; k0 += 16) {
		for (int e = tid; e < 1024; e += 256) {
			int row = e / 16, kk = e % 16;
			As[kk][row] = (r0 + row < M && k0 + kk < K) ? A[(r0 + row) * K + k0 + kk] : 0.0f;
			int col = e % 64, kb = e / 64;
			Bs[kb][col] = (c0 + col < N && k0 + kb < K) ? B[(k0 + kb) * N + c0 + col] : 0.0f;
		}
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = fmaf(As[kk][ty + 16 * i], Bs[kk][tx + 16 * j], acc[i][j]);
		__syncthreads();
	}
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			long long r = r0 + ty + 16 * i, c = c0 + tx + 16 * j;
			if (r < M && c < N)
				C[r * N + c] = acc[i][j];
		}
}

static __device__ void merge(float& m, float& s, float m2, float s2)
{
	float mm = isnan(m) || isnan(m2) ? m + m2 : fmaxf(m, m2);
	float a = m == NEG_INF ? 0.0f : s * expf(m - mm);
	float c = m2 == NEG_INF ? 0.0f : s2 * expf(m2 - mm);
	m = mm;
	s = a + c;
}

extern "C" __global__ void softmax_dropout(const float* __restrict__ x, float* __restrict__ y, long long rows,
                                           long long cols, float p, long long seed)
{
	__shared__ float sm[8], ss[8];
	const float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
	for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
		float m = NEG_INF, s = 0.0f;
		for (long long k = threadIdx.x; k < cols; k += 256)
			merge(m, s, x[r * cols + k], 1.0f);
		for (int off = 16; off > 0; off >>= 1)
			merge(m, s, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, s, off));
		if (threadIdx.x % 32 == 0) {
			sm[threadIdx.x / 32] = m;
			ss[threadIdx.x / 32] = s;
		}
		__syncthreads();
		m = NEG_INF;
		s = 0.0f;
		for (int w = 0; w < 8; w++)
			merge(m, s, sm[w], ss[w]);
		__syncthreads();
		const float inv = m == NEG_INF ? __int_as_float(0x7fc00000) : 1.0f / s;
		for (long long k = threadIdx.x; k < cols; k += 256) {
			long long i = r * cols + k;
			bool keep = p < 1.0f && kbx_uniform((unsigned long long)seed, (unsigned long long)i) >= p;
			y[i] = keep ? expf(x[i] - m) * inv * scale : 0.0f;
		}
	}
}

static __device__ float bsum(float v, float* sh)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, off);
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = v;
	__syncthreads();
	float r = 0.0f;
	for (int w = 0; w < 8; w++)
		r += sh[w];
	__syncthreads();
	return r;
}

extern "C" __global__ void add_layer_norm(const float* __restrict__ z, const float* __restrict__ res,
                                          float* __restrict__ y, long long rows, long long cols, float eps)
{
	__shared__ float sh[8];
	for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
		float s = 0.0f;
		for (long long k = threadIdx.x; k < cols; k += 256)
			s += z[r * cols + k] + res[r * cols + k];
		const float mean = bsum(s, sh) / (float)cols;
		float q = 0.0f;
		for (long long k = threadIdx.x; k < cols; k += 256) {
			float d = z[r * cols + k] + res[r * cols + k] - mean;
			q += d * d;
		}
		const float rstd = rsqrtf(bsum(q, sh) / (float)cols + eps);
		for (long long k = threadIdx.x; k < cols; k += 256)
			y[r * cols + k] = (z[r * cols + k] + res[r * cols + k] - mean) * rstd;
	}
}
