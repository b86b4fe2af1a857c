// GELU on f16, as PyTorch's CUDA kernel for Half: widen to f32, evaluate PyTorch's f32 formula
// (same operation order as its GeluCUDAKernelImpl), round once to f16 (__float2half_rn):
//   approximate = 0: x * 0.5f * (1 + erff(x * M_SQRT1_2))
//   approximate = 1: 0.5f * x * (1 + tanhf(kBeta * (x + kKappa * x^3)))
// erff and tanhf are within 2 f32 ulp; the f32 result is far more accurate than an f16 ulp, so the
// output is the correctly rounded f16 value except in rare near-tie cases (then one ulp away).
// Memory-bound: a grid-stride loop over 16-byte vectors of 8 halves (cudaMalloc'd buffers are
// 256-byte aligned), four vectors per thread (cdiv(n, 8192) blocks of 256), then the n % 8 tail
// elements, one each for the first threads of the grid.

// @kbx launch gelu_f16<<<max(1, cdiv(n, 8192)), 256>>>(x, y, n, approximate)

#include <cuda_fp16.h>

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

extern "C" __global__ void gelu_f16(const __half *__restrict__ x, __half *__restrict__ y, long long n,
				   int approximate)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n8 = n / 8;
	const uint4 *x8 = reinterpret_cast<const uint4 *>(x);
	uint4 *y8 = reinterpret_cast<uint4 *>(y);
	for (long long v = tid; v < n8; v += stride) {
		uint4 p = x8[v];
		__half2 *h = reinterpret_cast<__half2 *>(&p);
#pragma unroll
		for (int k = 0; k < 4; k++) {
			float2 f = __half22float2(h[k]);
			h[k] = __floats2half2_rn(gelu_one(f.x, approximate), gelu_one(f.y, approximate));
		}
		y8[v] = p;
	}
	long long i = n8 * 8 + tid; /* at most 7 tail elements */
	if (i < n)
		y[i] = __float2half_rn(gelu_one(__half2float(x[i]), approximate));
}
