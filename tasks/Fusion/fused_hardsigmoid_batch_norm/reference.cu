// fused_hardsigmoid_batch_norm reference: the PyTorch stages, each into its own buffer.
//   stage `batch_norm` (F.batch_norm): per-channel statistics first (`batch_norm_mean`,
//                      `batch_norm_invstd`: the batch's in training, the running ones in eval; the
//                      running statistics are updated here in training), then
//                      batch_norm = ((x - mean) * invstd) * weight + bias
//   stage `hardsigmoid` (F.hardsigmoid): y = min(max(batch_norm + 3, 0), 6) * f32(1/6)
// Keeping `batch_norm` in memory costs one extra write and read of the tensor: the price of a
// reference whose stages can be diffed.
//
// bn_stats: one block per channel. Training: with the shift s = the channel's first element, the
// block sums S1 = sum (x - s) and S2 = sum (x - s)^2 in f64 over the N * H * W values (warp shuffles,
// then shared memory), so mean = s + S1 / cnt and var = (S2 - S1^2 / cnt) / cnt are exact to well
// below f32 precision; invstd = 1 / sqrt(var + eps). Eval: mean = running_mean,
// invstd = 1 / sqrt(running_var + eps). bn_apply: blockIdx.y walks the (image, channel) planes,
// x-blocks stride within a plane (coalesced). hardsigmoid: grid-stride elementwise; the max / min are
// written as comparisons so that NaN propagates, as PyTorch's std::max / std::min do.
//
// @kbx scratch batch_norm_mean f32 [c]
// @kbx scratch batch_norm_invstd f32 [c]
// @kbx scratch batch_norm f32 [n, c, h, w]
// @kbx launch bn_stats<<<max(1, c), 256>>>(x, running_mean, running_var, batch_norm_mean, batch_norm_invstd, n, c, i64(h * w), training, momentum, eps)
// @kbx launch bn_apply<<<dim3(max(1, min(cdiv(h * w, 1024), 1024)), max(1, min(n * c, 65535))), 256>>>(x, batch_norm_mean, batch_norm_invstd, weight, bias, batch_norm, n, c, i64(h * w))
// @kbx launch hardsigmoid_fwd<<<max(1, min(cdiv(n * c * h * w, 1024), 65536)), 256>>>(batch_norm, y, i64(n * c * h * w))

#define BLOCK 256

static __device__ __forceinline__ double block_sum(double v, double* sh)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	double r = 0.0;
	for (int wi = 0; wi < BLOCK / 32; wi++)
		r += sh[wi];
	__syncthreads();
	return r;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
bn_stats(const float* __restrict__ x, float* __restrict__ running_mean, float* __restrict__ running_var,
         float* __restrict__ mean_c, float* __restrict__ invstd_c, long long n, long long c, long long hw,
         int training, float momentum, float eps)
{
	__shared__ double sh[BLOCK / 32];
	const long long ch = blockIdx.x;
	if (ch >= c)
		return;
	if (!training) {
		if (threadIdx.x == 0) {
			mean_c[ch] = running_mean[ch];
			invstd_c[ch] = (float)(1.0 / sqrt((double)running_var[ch] + (double)eps));
		}
		return;
	}
	const long long cnt = n * hw;
	const double shift = cnt > 0 ? (double)x[ch * hw] : 0.0;
	double s1 = 0.0, s2 = 0.0;
	for (long long b = 0; b < n; b++) {
		const float* plane = x + (b * c + ch) * hw;
		for (long long s = threadIdx.x; s < hw; s += BLOCK) {
			double v = (double)plane[s] - shift;
			s1 += v;
			s2 = fma(v, v, s2);
		}
	}
	s1 = block_sum(s1, sh);
	s2 = block_sum(s2, sh);
	if (threadIdx.x == 0) {
		double m2 = s2 - s1 * (s1 / (double)cnt);
		if (m2 < 0.0) // rounding only; keeps NaN
			m2 = 0.0;
		double mean = shift + s1 / (double)cnt;
		double var = m2 / (double)cnt; // biased: used to normalise
		mean_c[ch] = (float)mean;
		invstd_c[ch] = (float)(1.0 / sqrt(var + (double)eps));
		double mom = (double)momentum;
		running_mean[ch] = (float)((1.0 - mom) * (double)running_mean[ch] + mom * mean);
		running_var[ch] = (float)((1.0 - mom) * (double)running_var[ch] + mom * (m2 / (double)(cnt - 1)));
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
bn_apply(const float* __restrict__ x, const float* __restrict__ mean_c, const float* __restrict__ invstd_c,
         const float* __restrict__ weight, const float* __restrict__ bias, float* __restrict__ out, long long n,
         long long c, long long hw)
{
	for (long long plane = blockIdx.y; plane < n * c; plane += gridDim.y) {
		const long long ch = plane % c;
		const float mean = mean_c[ch], invstd = invstd_c[ch], wt = weight[ch], bs = bias[ch];
		const float* xp = x + plane * hw;
		float* op = out + plane * hw;
		for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < hw;
		     s += (long long)gridDim.x * blockDim.x)
			op[s] = ((xp[s] - mean) * invstd) * wt + bs;
	}
}

// F.hardsigmoid on CUDA: std::min(std::max(x + 3, 0), 6) * (1.0f / 6.0f); std::max(a, b) is
// (a < b) ? b : a and std::min(a, b) is (b < a) ? b : a, so NaN passes through both.
extern "C" __global__ void __launch_bounds__(BLOCK)
hardsigmoid_fwd(const float* __restrict__ x, float* __restrict__ y, long long n)
{
	const float one_sixth = 1.0f / 6.0f;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
		float t = x[e] + 3.0f;
		t = (t < 0.0f) ? 0.0f : t;
		t = (6.0f < t) ? 6.0f : t;
		y[e] = t * one_sixth;
	}
}
