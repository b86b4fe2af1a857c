// @kbx expect wrong
// Mistake: the interval step alpha = (in - k) / (out - 1) computed in integer arithmetic. Right
// whenever out - 1 divides in - k (KernelBenchX's test_case_1..3: 6 / 3, its random draws: 30 / 15,
// consecutive_windows), wrong otherwise (test_case_4_kernel3: 5 / 3 becomes 1, non_square, kernel_1,
// perf_layout). Same stages and scratch names as the reference; `random_samples` and `relu` match,
// so the wrong stage is the pooling, the outputs.
//
// @kbx scratch random_samples f32 [n * c * 2]
// @kbx scratch relu f32 [n, c, h, w]
// @kbx launch draw_samples<<<max(1, min(cdiv(n * c * 2, 256), 4096)), 256>>>(random_samples, i64(n * c * 2), seed)
// @kbx launch relu_fwd<<<max(1, min(cdiv(n * c * h * w, 1024), 65536)), 256>>>(x, relu, i64(n * c * h * w))
// @kbx launch frac_max_pool<<<max(1, min(cdiv(n * c * oh * ow, 256), 65536)), 256>>>(relu, random_samples, y, indices, i64(n * c), h, w, oh, ow, kh, kw)

#include <kbx/rng.h>

extern "C" __global__ void __launch_bounds__(256)
draw_samples(float* __restrict__ samples, long long total, long long seed)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
		samples[i] = kbx_uniform((unsigned long long)seed, (unsigned long long)i);
}

extern "C" __global__ void __launch_bounds__(256)
relu_fwd(const float* __restrict__ x, float* __restrict__ out, long long total)
{
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x) {
		const float v = x[e];
		out[e] = (v > 0.0f || v != v) ? v : 0.0f;
	}
}

// PyTorch's get_interval for one dimension.
static __device__ __forceinline__ long long interval_start(float sample, long long index, long long in, long long out,
                                                          long long pool)
{
	if (index == out - 1)
		return in - pool;
	const float alpha = (float)((in - pool) / (out - 1)); // BUG: integer division, then converted
	return (long long)__fmul_rn(__fadd_rn((float)index, sample), alpha) - (long long)__fmul_rn(sample, alpha);
}

extern "C" __global__ void __launch_bounds__(256)
frac_max_pool(const float* __restrict__ x, const float* __restrict__ samples, float* __restrict__ y,
              long long* __restrict__ indices, long long planes, long long h, long long w, long long oh, long long ow,
              long long kh, long long kw)
{
	const long long total = planes * oh * ow;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
		const long long q = i / (oh * ow), oy = (i / ow) % oh, ox = i % ow;
		const long long pw = interval_start(samples[2 * q], ox, w, ow, kw);
		const long long ph = interval_start(samples[2 * q + 1], oy, h, oh, kh);
		const float* xp = x + q * h * w;
		float best = __int_as_float(0xff800000); // -inf
		long long besti = ph * w + pw;
		for (long long r = ph; r < ph + kh; r++)
			for (long long s = pw; s < pw + kw; s++) {
				const float v = xp[r * w + s];
				if (v > best || v != v) {
					best = v;
					besti = r * w + s;
				}
			}
		y[i] = best;
		indices[i] = besti;
	}
}
