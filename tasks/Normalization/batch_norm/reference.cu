// batch_norm, f16 input / output, f32 statistics and affine parameters, NCHW contiguous.
//
// Stage 1, bn_stats (one block per channel): the per-channel mean and invstd used by stage 2.
//   training: two passes over the channel's N * H * W values (mean, then the sum of squared
//   deviations), accumulated in f64 per thread and through a warp-shuffle + shared-memory tree.
//   f64 makes the statistics exact to f32 rounding for any count (a long serial f32 sum per thread
//   would drift for the large counts of (32, 32, 1536, 128)), H200 has full-rate f64, and the passes
//   are memory bound. Thread 0 then updates the running statistics with the unbiased variance.
//   eval: mean = running_mean, var = running_var (not written).
//   invstd = 1 / sqrt(var + eps) is evaluated in f64 and rounded to f32, as PyTorch's InvStd does.
// Stage 2, bn_apply: y = ((x - mean) * invstd) * weight + bias in f32, rounded to f16 once; blockIdx.y
//   walks the (n, c) planes, x threads walk a plane (about 8 values each), with 16-byte loads and
//   stores of 8 halves when H * W is a multiple of 8 (every plane then starts 16-byte aligned), half2
//   when it is even, single halves otherwise.

// @kbx scratch mean_c f32 [c]
// @kbx scratch invstd_c f32 [c]
// @kbx launch bn_stats<<<max(1, c), 256>>>(x, running_mean, running_var, mean_c, invstd_c, n, c, i64(h * w), training, momentum, eps)
// @kbx launch bn_apply<<<dim3(max(1, min(cdiv(h * w, 2048), 1024)), max(1, min(n * c, 65535))), 256>>>(x, mean_c, invstd_c, weight, bias, y, n, c, i64(h * w))

#include <cuda_fp16.h>

/* Sum over the block (blockDim.x a multiple of 32, at most 1024); every thread gets the result. */
__device__ double block_sum(double v, double *sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		sh[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = lane < (int)(blockDim.x >> 5) ? sh[lane] : 0.0;
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_down_sync(0xffffffffu, v, o);
		if (lane == 0)
			sh[32] = v;
	}
	__syncthreads();
	double r = sh[32];
	__syncthreads(); /* sh may be reused by the next call */
	return r;
}

extern "C" __global__ void bn_stats(const __half *__restrict__ x, float *__restrict__ running_mean,
				    float *__restrict__ running_var, float *__restrict__ mean_c,
				    float *__restrict__ invstd_c, long long n, long long c, long long hw,
				    int training, float momentum, float eps)
{
	__shared__ double sh[33];
	long long ch = blockIdx.x;
	if (ch >= c)
		return;
	if (!training) {
		if (threadIdx.x == 0) {
			mean_c[ch] = running_mean[ch];
			invstd_c[ch] = (float)(1.0 / sqrt((double)running_var[ch] + (double)eps));
		}
		return;
	}
	long long cnt = n * hw;
	double s = 0.0;
	for (long long i = threadIdx.x; i < cnt; i += blockDim.x) {
		long long b = i / hw, p = i - b * hw;
		s += (double)__half2float(x[(b * c + ch) * hw + p]);
	}
	double mean = block_sum(s, sh) / (double)cnt;
	double q = 0.0;
	for (long long i = threadIdx.x; i < cnt; i += blockDim.x) {
		long long b = i / hw, p = i - b * hw;
		double d = (double)__half2float(x[(b * c + ch) * hw + p]) - mean;
		q += d * d;
	}
	double var = block_sum(q, sh) / (double)cnt; /* biased: used to normalise */
	if (threadIdx.x == 0) {
		float mean_f = (float)mean;
		float var_unbiased = (float)(var * (double)cnt / (double)(cnt - 1));
		mean_c[ch] = mean_f;
		invstd_c[ch] = (float)(1.0 / sqrt((double)(float)var + (double)eps));
		running_mean[ch] = (1.0f - momentum) * running_mean[ch] + momentum * mean_f;
		running_var[ch] = (1.0f - momentum) * running_var[ch] + momentum * var_unbiased;
	}
}

extern "C" __global__ void bn_apply(const __half *__restrict__ x, const float *__restrict__ mean_c,
				    const float *__restrict__ invstd_c, const float *__restrict__ weight,
				    const float *__restrict__ bias, __half *__restrict__ y, long long n, long long c,
				    long long hw)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	for (long long plane = blockIdx.y; plane < n * c; plane += gridDim.y) {
		long long ch = plane % c;
		float mean = mean_c[ch], invstd = invstd_c[ch], wt = weight[ch], bs = bias[ch];
		const __half *xp = x + plane * hw;
		__half *yp = y + plane * hw;
		if ((hw & 7) == 0) { /* 16-byte vectors of 8 halves: planes start 16-byte aligned */
			const uint4 *x8 = reinterpret_cast<const uint4 *>(xp);
			uint4 *y8 = reinterpret_cast<uint4 *>(yp);
			for (long long i = tid; i < hw / 8; i += stride) {
				uint4 raw = x8[i];
				__half2 *h = reinterpret_cast<__half2 *>(&raw);
				for (int k = 0; k < 4; k++) {
					float2 v = __half22float2(h[k]);
					v.x = ((v.x - mean) * invstd) * wt + bs;
					v.y = ((v.y - mean) * invstd) * wt + bs;
					h[k] = __floats2half2_rn(v.x, v.y);
				}
				y8[i] = raw;
			}
		} else if ((hw & 1) == 0) {
			const __half2 *x2 = reinterpret_cast<const __half2 *>(xp);
			__half2 *y2 = reinterpret_cast<__half2 *>(yp);
			for (long long i = tid; i < hw / 2; i += stride) {
				float2 v = __half22float2(x2[i]);
				v.x = ((v.x - mean) * invstd) * wt + bs;
				v.y = ((v.y - mean) * invstd) * wt + bs;
				y2[i] = __floats2half2_rn(v.x, v.y);
			}
		} else {
			for (long long i = tid; i < hw; i += stride) {
				float v = __half2float(xp[i]);
				yp[i] = __float2half_rn(((v - mean) * invstd) * wt + bs);
			}
		}
	}
}
