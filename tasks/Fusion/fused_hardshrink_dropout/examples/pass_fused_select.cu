// @kbx expect pass
// Correct alternative: one fused pass without the intermediate buffer; the mask decides first and a
// dropped element is written as x * 0 (so NaN and inf inputs still give NaN), a kept one as
// hardshrink(x * scale). Scalar grid-stride loop.
//
// @kbx launch hardshrink_dropout<<<max(1, min(cdiv(n, 512), 65536)), 256>>>(input, y, n, p, training, lambd, seed)

#include <kbx/rng.h>

extern "C" __global__ void hardshrink_dropout(const float* __restrict__ x, float* __restrict__ y, long long n, float p,
                                              int training, float lambd, long long seed)
{
	const bool active = training && p > 0.0f;
	const float scale = p < 1.0f ? (float)(1.0 / (double)(float)(1.0 - (double)p)) : 0.0f;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		float v = x[i];
		if (active)
			v = kbx_uniform((unsigned long long)seed, (unsigned long long)i) >= p ? v * scale : v * 0.0f;
		y[i] = fabsf(v) > lambd || v != v ? v : 0.0f;
	}
}
