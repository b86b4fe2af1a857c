// @kbx expect pass
// The former reference, replaced on 2026-12-01 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// GELU on bf16, as PyTorch's CUDA kernel for BFloat16: widen to f32, evaluate PyTorch's f32 formula
// (same operation order as its GeluCUDAKernelImpl), round once to bf16 (__float2bfloat16_rn):
//   approximate = 0: x * 0.5f * (1 + erff(x * M_SQRT1_2))
//   approximate = 1: 0.5f * x * (1 + tanhf(kBeta * (x + kKappa * x^3)))
// erff and tanhf are within 2 f32 ulp; the f32 result is ~2^16 times more accurate than a bf16 ulp,
// so the output is the correctly rounded bf16 value except in rare near-tie cases.
// Memory-bound: a grid-stride loop over 16-byte vectors of 8 bf16 values (cudaMalloc'd buffers are
// 256-byte aligned), four vectors per thread (cdiv(n, 8192) blocks of 256), then the n % 8 tail
// elements, one each for the first threads of the grid.

// @kbx launch gelu_bf16<<<max(1, cdiv(n, 8192)), 256>>>(x, y, n, approximate)

#include <cuda_bf16.h>

__device__ __forceinline__ float gelu_one(float x, int approximate)
{
	if (approximate) {
		const float kBeta = 0.7978845608028654f; /* sqrt(2 / pi) */
		const float kKappa = 0.044715f;
		float x_cube = x * x * x;
		float inner = kBeta * (x + kKappa * x_cube);
		return 0.5f * x * (1.0f + tanhf(inner));
	}
	const float kAlpha = 0.7071067811865476f; /* M_SQRT1_2 */
	return x * 0.5f * (1.0f + erff(x * kAlpha));
}

extern "C" __global__ void gelu_bf16(const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ y,
				     long long n, int approximate)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n8 = n / 8;
	const uint4 *x8 = reinterpret_cast<const uint4 *>(x);
	uint4 *y8 = reinterpret_cast<uint4 *>(y);
	for (long long v = tid; v < n8; v += stride) {
		uint4 p = x8[v];
		__nv_bfloat162 *h = reinterpret_cast<__nv_bfloat162 *>(&p);
#pragma unroll
		for (int k = 0; k < 4; k++) {
			float2 f = __bfloat1622float2(h[k]);
			h[k] = __floats2bfloat162_rn(gelu_one(f.x, approximate), gelu_one(f.y, approximate));
		}
		y8[v] = p;
	}
	long long i = n8 * 8 + tid; /* at most 7 tail elements */
	if (i < n)
		y[i] = __float2bfloat16_rn(gelu_one(__bfloat162float(x[i]), approximate));
}
