// @kbx expect wrong
// Mistake: dropout scaled wrongly: kept elements are multiplied by 1 / p instead of 1 / (1 - p).
// The default p = 0.5 hides it (both are 2): KernelBenchX's test_case_1, 2 and 4 and the perf
// workload pass; p = 0.3, 0.1, 0.9 and 0.99 fail. Same stages and scratch names as the reference;
// dropout is the last stage, so the wrong stage is the output (`relu` and everything before match).
//
// @kbx scratch conv2d f32 [n, oc, ho, wo]
// @kbx scratch bn_part f64 [oc * max(1, min(cdiv(n * ho * wo, 16384), 1024)) * 2]
// @kbx scratch bn_mean f32 [oc]
// @kbx scratch bn_invstd f32 [oc]
// @kbx scratch batch_norm f32 [n, oc, ho, wo]
// @kbx scratch relu f32 [n, oc, ho, wo]
// @kbx launch conv2d_fwd<<<dim3(max(1, min(cdiv(ho * wo, 256), 4096)), max(1, min(n * oc, 65535))), 256, max(1, c / groups * kh * kw) * 4>>>(input, weight, bias, conv2d, n, c, h, w, oc, kh, kw, ho, wo, stride, padding, dilation, groups)
// @kbx launch bn_partial<<<dim3(max(1, oc), max(1, min(cdiv(n * ho * wo, 16384), 1024))), 256>>>(conv2d, bn_part, n, oc, i64(ho * wo))
// @kbx launch bn_stats<<<max(1, oc), 256>>>(bn_part, bn_mean, bn_invstd, oc, i64(max(1, min(cdiv(n * ho * wo, 16384), 1024))), i64(n * ho * wo), f32(1e-5))
// @kbx launch bn_apply<<<dim3(max(1, min(cdiv(ho * wo, 1024), 4096)), max(1, min(n * oc, 65535))), 256>>>(conv2d, bn_mean, bn_invstd, batch_norm, n, oc, i64(ho * wo))
// @kbx launch relu_fwd<<<max(1, min(cdiv(n * oc * ho * wo, 1024), 65536)), 256>>>(batch_norm, relu, i64(n * oc * ho * wo))
// @kbx launch dropout_fwd<<<max(1, min(cdiv(n * oc * ho * wo, 1024), 65536)), 256>>>(relu, y, i64(n * oc * ho * wo), p, i32(1), seed)

#include <kbx/rng.h>

extern "C" __global__ void __launch_bounds__(256)
conv2d_fwd(const float* __restrict__ x, const float* __restrict__ wt, const float* __restrict__ bias,
           float* __restrict__ out, long long n, long long c, long long h, long long w, long long oc, long long kh,
           long long kw, long long ho, long long wo, long long stride, long long pad, long long dil, long long groups)
{
	extern __shared__ float filt[];
	const long long cg = c / groups, ocg = oc / groups, fsize = cg * kh * kw;
	for (long long plane = blockIdx.y; plane < n * oc; plane += gridDim.y) {
		const long long s = plane / oc, co = plane % oc, g = co / ocg;
		__syncthreads(); // the previous plane's filter is no longer read
		for (long long t = threadIdx.x; t < fsize; t += blockDim.x)
			filt[t] = wt[co * fsize + t];
		__syncthreads();
		const float* xs = x + (s * c + g * cg) * h * w;
		const double b0 = (double)bias[co];
		for (long long pix = (long long)blockIdx.x * blockDim.x + threadIdx.x; pix < ho * wo;
		     pix += (long long)gridDim.x * blockDim.x) {
			const long long oy = pix / wo, ox = pix % wo;
			double acc = b0;
			for (long long ci = 0; ci < cg; ci++) {
				const float* xc = xs + ci * h * w;
				const float* fc = filt + ci * kh * kw;
				for (long long ky = 0; ky < kh; ky++) {
					const long long iy = oy * stride - pad + ky * dil;
					if (iy < 0 || iy >= h)
						continue;
					for (long long kx = 0; kx < kw; kx++) {
						const long long ix = ox * stride - pad + kx * dil;
						if (ix >= 0 && ix < w)
							acc += (double)xc[iy * w + ix] * (double)fc[ky * kw + kx];
					}
				}
			}
			out[plane * ho * wo + pix] = (float)acc;
		}
	}
}

// Sums of (s, q) over the block (blockDim.x == 256); valid in thread 0.
static __device__ __forceinline__ void block_sum2(double& s, double& q)
{
	__shared__ double sh[2][8];
	for (int off = 16; off > 0; off >>= 1) {
		s += __shfl_down_sync(0xffffffffu, s, off);
		q += __shfl_down_sync(0xffffffffu, q, off);
	}
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0) {
		sh[0][warp] = s;
		sh[1][warp] = q;
	}
	__syncthreads();
	s = threadIdx.x < 8 ? sh[0][threadIdx.x] : 0.0;
	q = threadIdx.x < 8 ? sh[1][threadIdx.x] : 0.0;
	if (warp == 0)
		for (int off = 16; off > 0; off >>= 1) {
			s += __shfl_down_sync(0xffffffffu, s, off);
			q += __shfl_down_sync(0xffffffffu, q, off);
		}
}

// Block (co, p): chunk p of channel co's n * hw values (value k is x[k / hw, co, k % hw]).
extern "C" __global__ void __launch_bounds__(256)
bn_partial(const float* __restrict__ x, double* __restrict__ part, long long n, long long oc, long long hw)
{
	const long long co = blockIdx.x;
	if (co >= oc)
		return;
	const long long cnt = n * hw, chunks = gridDim.y, p = blockIdx.y;
	const long long chunk = (cnt + chunks - 1) / chunks;
	const long long k0 = p * chunk, k1 = min(cnt, k0 + chunk);
	double s = 0.0, q = 0.0;
	for (long long k = k0 + threadIdx.x; k < k1; k += 256) {
		const long long smp = k / hw, pix = k - smp * hw;
		const double v = (double)x[(smp * oc + co) * hw + pix];
		s += v;
		q += v * v;
	}
	block_sum2(s, q);
	if (threadIdx.x == 0) {
		part[(co * chunks + p) * 2] = s;
		part[(co * chunks + p) * 2 + 1] = q;
	}
}

extern "C" __global__ void __launch_bounds__(256)
bn_stats(const double* __restrict__ part, float* __restrict__ mean, float* __restrict__ invstd, long long oc,
         long long chunks, long long cnt, float eps)
{
	const long long co = blockIdx.x;
	if (co >= oc)
		return;
	double s = 0.0, q = 0.0;
	for (long long p = threadIdx.x; p < chunks; p += 256) {
		s += part[(co * chunks + p) * 2];
		q += part[(co * chunks + p) * 2 + 1];
	}
	block_sum2(s, q);
	if (threadIdx.x == 0) {
		const double m = s / (double)cnt;
		double var = q / (double)cnt - m * m;
		if (var < 0.0) // rounding of a (near-)constant channel
			var = 0.0;
		mean[co] = (float)m;
		invstd[co] = (float)(1.0 / sqrt(var + (double)eps));
	}
}

extern "C" __global__ void __launch_bounds__(256)
bn_apply(const float* __restrict__ x, const float* __restrict__ mean, const float* __restrict__ invstd,
         float* __restrict__ out, long long n, long long oc, long long hw)
{
	for (long long plane = blockIdx.y; plane < n * oc; plane += gridDim.y) {
		const long long co = plane % oc;
		const float mu = mean[co], is = invstd[co];
		for (long long pix = (long long)blockIdx.x * blockDim.x + threadIdx.x; pix < hw;
		     pix += (long long)gridDim.x * blockDim.x)
			out[plane * hw + pix] = __fmul_rn(__fsub_rn(x[plane * hw + pix], mu), is);
	}
}

// F.relu: max(x, 0) with NaN kept (x > 0 is false for NaN, so test for NaN explicitly)
extern "C" __global__ void __launch_bounds__(256)
relu_fwd(const float* __restrict__ x, float* __restrict__ out, long long total)
{
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x) {
		const float v = x[e];
		out[e] = (v > 0.0f || v != v) ? v : 0.0f;
	}
}

// F.dropout with kbx's mask: keep iff kbx_uniform(seed, e) >= p. PyTorch's kernel computes
// x * mask * scale with mask 0 or 1, so a dropped NaN or inf gives NaN; scale is 1 / keep_prob
// (keep_prob = 1 - p rounded to f32, the quotient rounded to f32). p = 1 drops everything (x * 0).
extern "C" __global__ void __launch_bounds__(256)
dropout_fwd(const float* __restrict__ x, float* __restrict__ out, long long n, float p, int training, long long seed)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	const bool active = training && p > 0.0f;
	const float keep = (float)(1.0 - (double)p);
	(void)keep;
	const float scale = p > 0.0f ? 1.0f / p : 0.0f; // BUG: 1 / p instead of 1 / (1 - p)
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
		float v = x[e];
		if (active) {
			float mask = kbx_uniform((unsigned long long)seed, (unsigned long long)e) >= p ? 1.0f : 0.0f;
			v = __fmul_rn(__fmul_rn(v, mask), scale);
		}
		out[e] = v;
	}
}
