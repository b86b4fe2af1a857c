// @kbx expect wrong
// Mistake: processes whole 8-half vectors only; the last n % 8 elements are never written (sizes 1, 7, prime and odd fail).
// @kbx launch sigmoid_f16<<<max(1, cdiv(n, 2048)), 256>>>(x, y, n)

#include <cuda_fp16.h>

extern "C" __global__ void sigmoid_f16(const __half *__restrict__ x, __half *__restrict__ y, long long n)
{
	long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (v >= n / 8)
		return;
	uint4 p = reinterpret_cast<const uint4 *>(x)[v];
	__half2 *h = reinterpret_cast<__half2 *>(&p);
	for (int k = 0; k < 4; k++) {
		float2 f = __half22float2(h[k]);
		h[k] = __floats2half2_rn(1.0f / (1.0f + expf(-f.x)), 1.0f / (1.0f + expf(-f.y)));
	}
	reinterpret_cast<uint4 *>(y)[v] = p;
}
