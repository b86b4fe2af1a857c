// @kbx expect wrong
// Mistake: dropout scaled wrongly: elements are dropped with the right mask, but the kept ones are
// not multiplied by 1 / (1 - p), so the expectation shrinks by 1 - p. Right in eval mode and for
// p = 0 only. Same stages and scratch names as the reference: the first wrong stage reported should
// be `dropout`.
//
// @kbx scratch dropout f32 [n]
// @kbx launch dropout_fwd<<<max(1, min(cdiv(n, 1024), 65536)), 256>>>(input, dropout, n, p, training, seed)
// @kbx launch hardshrink_fwd<<<max(1, min(cdiv(n, 1024), 65536)), 256>>>(dropout, y, n, lambd)

#include <kbx/rng.h>

// PyTorch's kernel computes x * mask * scale with mask 0 or 1, so a dropped NaN or inf gives NaN;
// scale = 1 / keep_prob (keep_prob = 1 - p rounded to f32, the quotient rounded to f32).
static __device__ __forceinline__ float drop1(float v, long long i, bool active, float p, float scale,
                                              long long seed)
{
	if (!active)
		return v;
	float mask = kbx_uniform((unsigned long long)seed, (unsigned long long)i) >= p ? 1.0f : 0.0f;
	(void)scale; // BUG: kept elements are not rescaled by 1 / (1 - p)
	return __fmul_rn(v, mask);
}

extern "C" __global__ void __launch_bounds__(256)
dropout_fwd(const float* __restrict__ x, float* __restrict__ out, long long n, float p, int training, long long seed)
{
	const bool active = training && p > 0.0f;
	const float keep = (float)(1.0 - (double)p);
	const float scale = p < 1.0f ? (float)(1.0 / (double)keep) : 0.0f;
	const long long stride = (long long)gridDim.x * blockDim.x;
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long nv = n / 4;
	const float4* x4 = reinterpret_cast<const float4*>(x);
	float4* o4 = reinterpret_cast<float4*>(out);
	for (long long q = tid; q < nv; q += stride) {
		float4 v = x4[q];
		v.x = drop1(v.x, 4 * q, active, p, scale, seed);
		v.y = drop1(v.y, 4 * q + 1, active, p, scale, seed);
		v.z = drop1(v.z, 4 * q + 2, active, p, scale, seed);
		v.w = drop1(v.w, 4 * q + 3, active, p, scale, seed);
		o4[q] = v;
	}
	for (long long i = 4 * nv + tid; i < n; i += stride)
		out[i] = drop1(x[i], i, active, p, scale, seed);
}

// F.hardshrink on CUDA: (a >= -lambd && a <= lambd) ? 0 : a (NaN fails both tests and stays NaN).
static __device__ __forceinline__ float shrink1(float v, float lambd)
{
	return (v >= -lambd && v <= lambd) ? 0.0f : v;
}

extern "C" __global__ void __launch_bounds__(256)
hardshrink_fwd(const float* __restrict__ x, float* __restrict__ y, long long n, float lambd)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long nv = n / 4;
	const float4* x4 = reinterpret_cast<const float4*>(x);
	float4* y4 = reinterpret_cast<float4*>(y);
	for (long long q = tid; q < nv; q += stride) {
		float4 v = x4[q];
		v.x = shrink1(v.x, lambd);
		v.y = shrink1(v.y, lambd);
		v.z = shrink1(v.z, lambd);
		v.w = shrink1(v.w, lambd);
		y4[q] = v;
	}
	for (long long i = 4 * nv + tid; i < n; i += stride)
		y[i] = shrink1(x[i], lambd);
}
