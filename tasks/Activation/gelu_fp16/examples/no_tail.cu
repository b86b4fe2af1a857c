// @kbx expect wrong
// Mistake: processes whole 8-half vectors only; the last n % 8 elements are never written (sizes 1, 7, prime and odd fail).
// @kbx launch gelu_f16<<<max(1, cdiv(n, 2048)), 256>>>(x, y, n, approximate)

#include <cuda_fp16.h>

__device__ __forceinline__ float g(float v, int approximate)
{
	if (approximate)
		return 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
	return v * 0.5f * (1.0f + erff(v * 0.7071067811865476f));
}

extern "C" __global__ void gelu_f16(const __half *__restrict__ x, __half *__restrict__ y, long long n,
				   int approximate)
{
	long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (v >= n / 8)
		return;
	uint4 p = reinterpret_cast<const uint4 *>(x)[v];
	__half2 *h = reinterpret_cast<__half2 *>(&p);
	for (int k = 0; k < 4; k++) {
		float2 f = __half22float2(h[k]);
		h[k] = __floats2half2_rn(g(f.x, approximate), g(f.y, approximate));
	}
	reinterpret_cast<uint4 *>(y)[v] = p;
}
