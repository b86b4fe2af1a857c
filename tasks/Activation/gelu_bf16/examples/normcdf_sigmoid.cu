// @kbx expect pass
// Correct alternative: one element per thread; erf form as x * normcdff(x), tanh form through the
// identity 0.5 * (1 + tanh(u)) = 1 / (1 + exp(-2u)), in f32, then rounded to nearest bf16. Both are
// at least as accurate as PyTorch's f32 formulas and give the same NaN / inf results.
// @kbx launch gelu_bf16<<<max(1, cdiv(n, 128)), 128>>>(x, y, n, approximate)

#include <cuda_bf16.h>

extern "C" __global__ void gelu_bf16(const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ y,
				     long long n, int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = __bfloat162float(x[i]);
	float r;
	if (approximate) {
		float u = 0.7978845608028654f * (v + 0.044715f * (v * v * v));
		r = v / (1.0f + expf(-2.0f * u));
	} else {
		r = v * normcdff(v);
	}
	y[i] = __float2bfloat16_rn(r);
}
