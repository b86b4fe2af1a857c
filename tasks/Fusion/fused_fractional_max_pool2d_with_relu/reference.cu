// fused_fractional_max_pool2d_with_relu reference: the stages of the KernelBenchX function, each
// into its own buffer.
//   stage `random_samples` (the samples F.fractional_max_pool2d draws when none are given): for
//       plane q = sample * c + channel, random_samples[2q] = kbx_uniform(seed, 2q) (the W sample)
//       and random_samples[2q + 1] = kbx_uniform(seed, 2q + 1) (the H sample), uniform in [0, 1)
//       with 24 random bits, like torch.rand in f32; kbx's generator replaces PyTorch's.
//   stage `relu`  (F.relu): max(x, 0), NaN kept
//   stage fractional_max_pool2d: window start per dim, as PyTorch's CUDA kernel (get_interval):
//       alpha = (in - pool) / (out - 1) in f32; start(i) = in - pool for the last index i = out - 1,
//       else (int)((i + sample) * alpha) - (int)(sample * alpha) (f32 products, truncation). The
//       window is pool_h x pool_w from (start_h, start_w); y = its maximum, indices = the flat
//       position h * w_in + w of the first maximum in row-major scan order (a later value wins only
//       if strictly greater, or if it is NaN: a NaN makes y NaN and indices the last NaN's position).
// Keeping `relu` in memory costs one extra pass over the input: the price of a reference whose
// stages can be diffed. Each stage is a grid-stride loop, one thread per element or output.
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
	const float alpha = (float)(in - pool) / (float)(out - 1);
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
