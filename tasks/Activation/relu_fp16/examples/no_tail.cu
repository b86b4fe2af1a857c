// @kbx expect wrong
// Mistake: processes whole 8-half vectors only; the last n % 8 elements are never written (sizes 1, 7, prime and odd fail).
// @kbx launch relu_f16<<<max(1, cdiv(n, 2048)), 256>>>(x, y, n)

#include <cuda_fp16.h>

extern "C" __global__ void relu_f16(const __half *__restrict__ x, __half *__restrict__ y, long long n)
{
	long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (v >= n / 8)
		return;
	uint4 p = reinterpret_cast<const uint4 *>(x)[v];
	__half2 *h = reinterpret_cast<__half2 *>(&p);
	const __half2 zero = __float2half2_rn(0.0f);
	for (int k = 0; k < 4; k++)
		h[k] = __hmax2_nan(h[k], zero);
	reinterpret_cast<uint4 *>(y)[v] = p;
}
