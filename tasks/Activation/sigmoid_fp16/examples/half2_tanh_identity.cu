// @kbx expect pass
// Correct alternative: two halves per thread (__half2), sigmoid(x) = 0.5 + 0.5 * tanh(x / 2) in
// f32, the odd last element alone. For very negative x the identity cancels, but only where the
// result is below ~1e-7, far inside atol = 5e-3; NaN, +-inf give NaN, 1, 0.
// @kbx launch sigmoid_f16<<<max(1, cdiv(n, 512)), 256>>>(x, y, n)

#include <cuda_fp16.h>

__device__ __forceinline__ float sig(float v)
{
	return fmaf(0.5f, tanhf(0.5f * v), 0.5f);
}

extern "C" __global__ void sigmoid_f16(const __half *__restrict__ x, __half *__restrict__ y, long long n)
{
	long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long i = 2 * p;
	if (i + 1 < n) {
		float2 f = __half22float2(reinterpret_cast<const __half2 *>(x)[p]);
		reinterpret_cast<__half2 *>(y)[p] = __floats2half2_rn(sig(f.x), sig(f.y));
	} else if (i < n) {
		y[i] = __float2half_rn(sig(__half2float(x[i])));
	}
}
