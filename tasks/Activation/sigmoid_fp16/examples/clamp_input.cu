// @kbx expect wrong
// Mistake: clamps x to [-20, 20] "for stability" with fminf/fmaxf, which return the non-NaN operand: NaN inputs become sigmoid(20) = 1 instead of NaN.
// @kbx launch sigmoid_f16<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

#include <cuda_fp16.h>

extern "C" __global__ void sigmoid_f16(const __half *__restrict__ x, __half *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = fminf(fmaxf(__half2float(x[i]), -20.0f), 20.0f);
		y[i] = __float2half_rn(1.0f / (1.0f + expf(-v)));
	}
}
