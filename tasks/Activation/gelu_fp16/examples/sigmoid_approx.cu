// @kbx expect wrong
// Mistake: uses the "quick GELU" approximation x * sigmoid(1.702 x) for both forms; it is off by up to ~0.02 (around |x| = 2), beyond the 5e-3 tolerance.
// @kbx launch gelu_f16<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)

#include <cuda_fp16.h>

extern "C" __global__ void gelu_f16(const __half *__restrict__ x, __half *__restrict__ y, long long n,
				   int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = __half2float(x[i]);
		y[i] = __float2half_rn(v / (1.0f + expf(-1.702f * v)));
	}
}
