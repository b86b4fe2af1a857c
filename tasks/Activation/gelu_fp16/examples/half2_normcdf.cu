// @kbx expect pass
// Correct alternative: two halves per thread (__half2), the odd last element alone; erf form as
// x * normcdff(x), tanh form through 0.5 * (1 + tanh(u)) = 1 / (1 + exp(-2u)), in f32. Both are at
// least as accurate as PyTorch's f32 formulas, far below an f16 ulp, and give the same NaN / inf
// results (x * 0 = NaN for x = -inf).
// @kbx launch gelu_f16<<<max(1, cdiv(n, 512)), 256>>>(x, y, n, approximate)

#include <cuda_fp16.h>

__device__ __forceinline__ float g(float v, int approximate)
{
	if (approximate) {
		float u = 0.7978845608028654f * (v + 0.044715f * (v * v * v));
		return v / (1.0f + expf(-2.0f * u));
	}
	return v * normcdff(v);
}

extern "C" __global__ void gelu_f16(const __half *__restrict__ x, __half *__restrict__ y, long long n,
				   int approximate)
{
	long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long i = 2 * p;
	if (i + 1 < n) {
		float2 f = __half22float2(reinterpret_cast<const __half2 *>(x)[p]);
		reinterpret_cast<__half2 *>(y)[p] = __floats2half2_rn(g(f.x, approximate), g(f.y, approximate));
	} else if (i < n) {
		y[i] = __float2half_rn(g(__half2float(x[i]), approximate));
	}
}
