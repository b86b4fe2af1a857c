// @kbx expect wrong
// Mistake: uses the "quick GELU" approximation x * sigmoid(1.702 x) for both forms; it is off by up to ~0.02 (around |x| = 2), beyond the 5e-3 tolerance.
// @kbx launch gelu_bf16<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)

#include <cuda_bf16.h>

extern "C" __global__ void gelu_bf16(const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ y,
				     long long n, int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = __bfloat162float(x[i]);
		y[i] = __float2bfloat16_rn(v / (1.0f + expf(-1.702f * v)));
	}
}
