// @kbx expect pass
// Correct alternative: the bias is skipped, because training-mode batch norm subtracts the channel
// mean and a per-channel constant cancels exactly (up to rounding); the convolution accumulates in
// f32 into `conv_nobias` (a name of its own: it differs from the reference's `conv2d` by the bias).
// One block per channel computes the batch statistics in f32 (two passes over the channel) and a
// single epilogue kernel applies normalisation, ReLU and dropout (kbx's mask, 1 / (1 - p)).
//
// @kbx scratch conv_nobias f32 [n, oc, ho, wo]
// @kbx scratch stats f32 [2 * oc]
// @kbx launch conv_nobias_fwd<<<max(1, cdiv(n * oc * ho * wo, 256)), 256>>>(input, weight, conv_nobias, n, c, h, w, oc, kh, kw, ho, wo, stride, padding, dilation, groups)
// @kbx launch channel_stats<<<max(1, oc), 512>>>(conv_nobias, stats, n, oc, i64(ho * wo))
// @kbx launch bn_relu_dropout<<<max(1, cdiv(n * oc * ho * wo, 256)), 256>>>(conv_nobias, stats, y, n, oc, i64(ho * wo), p, seed)

#include <kbx/rng.h>

extern "C" __global__ void conv_nobias_fwd(const float* __restrict__ x, const float* __restrict__ wt, float* __restrict__ out,
                                           long long n, long long c, long long h, long long w, long long oc, long long kh,
                                           long long kw, long long ho, long long wo, long long stride, long long pad,
                                           long long dil, long long groups)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n * oc * ho * wo)
		return;
	long long ox = i % wo, oy = (i / wo) % ho, co = (i / (wo * ho)) % oc, s = i / (wo * ho * oc);
	long long cg = c / groups, g = co / (oc / groups);
	float acc = 0.0f;
	for (long long ci = 0; ci < cg; ci++)
		for (long long ky = 0; ky < kh; ky++) {
			long long iy = oy * stride - pad + ky * dil;
			if (iy < 0 || iy >= h)
				continue;
			for (long long kx = 0; kx < kw; kx++) {
				long long ix = ox * stride - pad + kx * dil;
				if (ix >= 0 && ix < w)
					acc = fmaf(x[((s * c + g * cg + ci) * h + iy) * w + ix], wt[((co * cg + ci) * kh + ky) * kw + kx], acc);
			}
		}
	out[i] = acc;
}

static __device__ float bsum(float v, float* sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	float r = 0.0f;
	for (int q = 0; q < (int)(blockDim.x >> 5); q++)
		r += sh[q];
	__syncthreads();
	return r;
}

extern "C" __global__ void channel_stats(const float* __restrict__ x, float* __restrict__ stats, long long n,
                                         long long oc, long long hw)
{
	__shared__ float sh[32];
	long long co = blockIdx.x, cnt = n * hw;
	if (co >= oc)
		return;
	float s = 0.0f;
	for (long long k = threadIdx.x; k < cnt; k += blockDim.x)
		s += x[((k / hw) * oc + co) * hw + k % hw];
	float mean = bsum(s, sh) / (float)cnt;
	float q = 0.0f;
	for (long long k = threadIdx.x; k < cnt; k += blockDim.x) {
		float d = x[((k / hw) * oc + co) * hw + k % hw] - mean;
		q += d * d;
	}
	float var = bsum(q, sh) / (float)cnt;
	if (threadIdx.x == 0) {
		stats[2 * co] = mean;
		stats[2 * co + 1] = rsqrtf(var + 1e-5f);
	}
}

extern "C" __global__ void bn_relu_dropout(const float* __restrict__ x, const float* __restrict__ stats, float* __restrict__ y,
                                           long long n, long long oc, long long hw, float p, long long seed)
{
	long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= n * oc * hw)
		return;
	long long co = (e / hw) % oc;
	float v = (x[e] - stats[2 * co]) * stats[2 * co + 1];
	v = (v > 0.0f || v != v) ? v : 0.0f;
	if (p > 0.0f)
		v = kbx_uniform((unsigned long long)seed, (unsigned long long)e) >= p ? v * (1.0f / (1.0f - p)) : v * 0.0f;
	y[e] = v;
}
