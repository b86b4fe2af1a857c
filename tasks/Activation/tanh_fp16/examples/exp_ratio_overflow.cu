// @kbx expect wrong
// Mistake: the textbook formula (exp(2x) - 1) / (exp(2x) + 1) in f32; for x > 44.4 exp(2x) overflows and the result is inf / inf = NaN instead of 1 (wide-range and special cases fail).
// @kbx launch tanh_f16<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

#include <cuda_fp16.h>

extern "C" __global__ void tanh_f16(const __half *__restrict__ x, __half *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float e = expf(2.0f * __half2float(x[i]));
		y[i] = __float2half_rn((e - 1.0f) / (e + 1.0f));
	}
}
