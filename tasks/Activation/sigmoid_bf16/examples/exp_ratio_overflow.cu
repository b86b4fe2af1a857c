// @kbx expect wrong
// Mistake: y = exp(x) / (1 + exp(x)); for x > 88.7 expf overflows and the result is inf / inf = NaN instead of 1 (wide-range and special cases fail).
// @kbx launch sigmoid_bf16<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

#include <cuda_bf16.h>

extern "C" __global__ void sigmoid_bf16(const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ y,
					long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float e = expf(__bfloat162float(x[i]));
		y[i] = __float2bfloat16_rn(e / (1.0f + e));
	}
}
