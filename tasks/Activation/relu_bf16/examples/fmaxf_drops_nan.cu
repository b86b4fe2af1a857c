// @kbx expect wrong
// Mistake: y = fmaxf(x, 0) in f32; fmaxf returns the non-NaN operand, so NaN inputs become 0 instead of staying NaN (special-values cases fail).
// @kbx launch relu_bf16<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

#include <cuda_bf16.h>

extern "C" __global__ void relu_bf16(const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ y,
				     long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __float2bfloat16_rn(fmaxf(__bfloat162float(x[i]), 0.0f));
}
