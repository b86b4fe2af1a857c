// @kbx expect wrong
// Mistake: the stages in the wrong order: hardshrink is applied to the input and the result is
// dropped and scaled, hardshrink(x) * scale instead of hardshrink(x * scale). Kept values with
// lambd / scale < |x| <= lambd are zeroed although their scaled value passes the threshold. Right
// whenever dropout is off. One fused kernel, no scratch.
//
// @kbx launch shrink_drop<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(input, y, n, p, training, lambd, seed)

#include <kbx/rng.h>

extern "C" __global__ void shrink_drop(const float* __restrict__ x, float* __restrict__ y, long long n, float p,
                                       int training, float lambd, long long seed)
{
	const float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		float v = x[i];
		v = (v >= -lambd && v <= lambd) ? 0.0f : v;
		if (training && p > 0.0f)
			v = v * (kbx_uniform((unsigned long long)seed, (unsigned long long)i) >= p ? 1.0f : 0.0f) * scale;
		y[i] = v;
	}
}
