// @kbx expect pass
// Correct alternative: two halves per thread (__half2), tanh(x) = sign(x) * (1 - 2 / (exp(2|x|) + 1))
// in f32, the odd last element alone. It never overflows (exp = inf gives exactly 1); near 0 it
// cancels, but the absolute error stays ~1e-7, far inside atol = 5e-3. copysignf keeps -0 and NaN.
// @kbx launch tanh_f16<<<max(1, cdiv(n, 512)), 256>>>(x, y, n)

#include <cuda_fp16.h>

__device__ __forceinline__ float tanh_stable(float v)
{
	return copysignf(1.0f - 2.0f / (expf(2.0f * fabsf(v)) + 1.0f), v);
}

extern "C" __global__ void tanh_f16(const __half *__restrict__ x, __half *__restrict__ y, long long n)
{
	long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long i = 2 * p;
	if (i + 1 < n) {
		float2 f = __half22float2(reinterpret_cast<const __half2 *>(x)[p]);
		reinterpret_cast<__half2 *>(y)[p] = __floats2half2_rn(tanh_stable(f.x), tanh_stable(f.y));
	} else if (i < n) {
		y[i] = __float2half_rn(tanh_stable(__half2float(x[i])));
	}
}
