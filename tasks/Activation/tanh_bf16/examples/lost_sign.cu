// @kbx expect wrong
// Mistake: evaluates the overflow-free form 1 - 2 / (exp(2|x|) + 1) on |x| and forgets to give the result the sign of x: every negative input gets a positive result.
// @kbx launch tanh_bf16<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

#include <cuda_bf16.h>

extern "C" __global__ void tanh_bf16(const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ y,
				     long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float a = fabsf(__bfloat162float(x[i]));
		y[i] = __float2bfloat16_rn(1.0f - 2.0f / (expf(2.0f * a) + 1.0f));
	}
}
