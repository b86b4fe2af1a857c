// @kbx expect wrong
// Mistake: processes whole 8-value vectors only; the last n % 8 elements are never written (sizes 1, 7, prime and odd fail).
// @kbx launch tanh_bf16<<<max(1, cdiv(n, 2048)), 256>>>(x, y, n)

#include <cuda_bf16.h>

extern "C" __global__ void tanh_bf16(const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ y,
				     long long n)
{
	long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (v >= n / 8)
		return;
	uint4 p = reinterpret_cast<const uint4 *>(x)[v];
	__nv_bfloat162 *h = reinterpret_cast<__nv_bfloat162 *>(&p);
	for (int k = 0; k < 4; k++) {
		float2 f = __bfloat1622float2(h[k]);
		h[k] = __floats2bfloat162_rn(tanhf(f.x), tanhf(f.y));
	}
	reinterpret_cast<uint4 *>(y)[v] = p;
}
