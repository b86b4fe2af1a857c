// @kbx expect pass
// Correct alternative: two halves per thread with the native f16 instruction __hmax2_nan (max that
// returns NaN when an operand is NaN, unlike __hmax2), the odd last element alone. Exact, as the
// reference.
// @kbx launch relu_f16<<<max(1, cdiv(n, 512)), 256>>>(x, y, n)

#include <cuda_fp16.h>

extern "C" __global__ void relu_f16(const __half *__restrict__ x, __half *__restrict__ y, long long n)
{
	long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long i = 2 * p;
	if (i + 1 < n) {
		__half2 v = reinterpret_cast<const __half2 *>(x)[p];
		reinterpret_cast<__half2 *>(y)[p] = __hmax2_nan(v, __float2half2_rn(0.0f));
	} else if (i < n) {
		y[i] = __hmax_nan(x[i], __float2half(0.0f));
	}
}
