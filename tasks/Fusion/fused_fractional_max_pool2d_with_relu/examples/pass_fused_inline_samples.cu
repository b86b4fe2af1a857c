// @kbx expect pass
// Correct alternative: one kernel. Each output draws its plane's two samples itself
// (kbx_uniform(seed, 2 q) for W, (seed, 2 q + 1) for H, the task's convention), computes the window
// start with PyTorch's f32 formula and takes the max of relu(x) on the fly with the same tie and
// NaN rule (strictly greater, or NaN). No intermediate buffers.
//
// @kbx launch frac_pool_relu<<<max(1, cdiv(n * c * oh * ow, 256)), 256>>>(x, y, indices, i64(n * c), h, w, oh, ow, kh, kw, seed)

#include <kbx/rng.h>

static __device__ long long start_of(float u, long long i, long long in, long long out, long long k)
{
	if (i == out - 1)
		return in - k;
	float alpha = (float)(in - k) / (float)(out - 1);
	return (long long)(((float)i + u) * alpha) - (long long)(u * alpha);
}

extern "C" __global__ void frac_pool_relu(const float* __restrict__ x, float* __restrict__ y, long long* __restrict__ indices,
                                          long long planes, long long h, long long w, long long oh, long long ow,
                                          long long kh, long long kw, long long seed)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= planes * oh * ow)
		return;
	long long q = i / (oh * ow), oy = (i / ow) % oh, ox = i % ow;
	float uw = kbx_uniform((unsigned long long)seed, (unsigned long long)(2 * q));
	float uh = kbx_uniform((unsigned long long)seed, (unsigned long long)(2 * q + 1));
	long long pw = start_of(uw, ox, w, ow, kw), ph = start_of(uh, oy, h, oh, kh);
	float best = __int_as_float(0xff800000);
	long long bi = ph * w + pw;
	for (long long r = ph; r < ph + kh; r++)
		for (long long c = pw; c < pw + kw; c++) {
			float v = x[q * h * w + r * w + c];
			v = (v > 0.0f || v != v) ? v : 0.0f;
			if (v > best || v != v) {
				best = v;
				bi = r * w + c;
			}
		}
	y[i] = best;
	indices[i] = bi;
}
