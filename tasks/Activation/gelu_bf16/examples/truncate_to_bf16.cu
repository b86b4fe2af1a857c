// @kbx expect wrong
// Mistake: converts the f32 result to bf16 by keeping its upper 16 bits (truncation toward zero) instead of rounding to nearest: gelu(x) just below x for x ~ 2..6 comes out one bf16 ulp low, beyond the tolerance for |y| >= 2.
// @kbx launch gelu_bf16<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)

#include <cuda_bf16.h>

extern "C" __global__ void gelu_bf16(const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ y,
				     long long n, int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = __bfloat162float(x[i]), r;
	if (approximate)
		r = 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
	else
		r = v * 0.5f * (1.0f + erff(v * 0.7071067811865476f));
	reinterpret_cast<unsigned short *>(y)[i] = (unsigned short)(__float_as_uint(r) >> 16);
}
