// @kbx expect pass
// Correct alternative: the hardware instruction tanh.approx.f32 (sm_75+, relative error about
// 2^-11), one element per thread. That error is below half a bf16 ulp, so the bf16 result is the
// reference's or one ulp away, inside the tolerance; the instruction maps NaN to NaN, +-inf to +-1
// and keeps the sign of zero.
// @kbx launch tanh_bf16<<<max(1, cdiv(n, 128)), 128>>>(x, y, n)

#include <cuda_bf16.h>

extern "C" __global__ void tanh_bf16(const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ y,
				     long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = __bfloat162float(x[i]), t;
		asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(v));
		y[i] = __float2bfloat16_rn(t);
	}
}
