// @kbx expect pass
// Correct alternative: one kernel, one block per channel: a single pass accumulates sum and sum of squares
// in f64 (var = E[x^2] - mean^2 loses nothing that matters in f64 for f16 data), then the same block
// normalises its channel. Simple, but only C blocks run: slow for the large perf shapes.
// @kbx launch bn_fused<<<max(1, c), 512>>>(x, running_mean, running_var, weight, bias, y, n, c, i64(h * w), training, momentum, eps)

#include <cuda_fp16.h>

extern "C" __global__ void bn_fused(const __half *__restrict__ x, float *__restrict__ running_mean,
				    float *__restrict__ running_var, const float *__restrict__ weight,
				    const float *__restrict__ bias, __half *__restrict__ y, long long n, long long c,
				    long long hw, int training, float momentum, float eps)
{
	__shared__ double red[2][16];
	__shared__ float stats[2];
	long long ch = blockIdx.x;
	long long cnt = n * hw;
	if (training) {
		double s = 0.0, q = 0.0;
		for (long long b = 0; b < n; b++) {
			const __half *xp = x + (b * c + ch) * hw;
			for (long long p = threadIdx.x; p < hw; p += blockDim.x) {
				double v = (double)__half2float(xp[p]);
				s += v;
				q += v * v;
			}
		}
		for (int o = 16; o > 0; o >>= 1) {
			s += __shfl_xor_sync(0xffffffffu, s, o);
			q += __shfl_xor_sync(0xffffffffu, q, o);
		}
		if ((threadIdx.x & 31) == 0) {
			red[0][threadIdx.x >> 5] = s;
			red[1][threadIdx.x >> 5] = q;
		}
		__syncthreads();
		if (threadIdx.x == 0) {
			double ts = 0.0, tq = 0.0;
			for (int i = 0; i < (int)(blockDim.x >> 5); i++) {
				ts += red[0][i];
				tq += red[1][i];
			}
			double mean = ts / (double)cnt;
			double var = tq / (double)cnt - mean * mean;
			if (var < 0.0)
				var = 0.0;
			float var_f = (float)var;
			stats[0] = (float)mean;
			stats[1] = (float)(1.0 / sqrt((double)var_f + (double)eps));
			running_mean[ch] = (1.0f - momentum) * running_mean[ch] + momentum * (float)mean;
			running_var[ch] = (1.0f - momentum) * running_var[ch] +
					  momentum * (float)(var * (double)cnt / (double)(cnt - 1));
		}
	} else if (threadIdx.x == 0) {
		stats[0] = running_mean[ch];
		stats[1] = (float)(1.0 / sqrt((double)running_var[ch] + (double)eps));
	}
	__syncthreads();
	float mean = stats[0], invstd = stats[1], wt = weight[ch], bs = bias[ch];
	for (long long b = 0; b < n; b++) {
		const __half *xp = x + (b * c + ch) * hw;
		__half *yp = y + (b * c + ch) * hw;
		for (long long p = threadIdx.x; p < hw; p += blockDim.x)
			yp[p] = __float2half_rn(((__half2float(xp[p]) - mean) * invstd) * wt + bs);
	}
}
