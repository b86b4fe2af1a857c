// @kbx expect wrong
// Mistake: the batch variance in one f32 pass as E[x^2] - E[x]^2. Fine for centred data, but with
// |mean| >> std the two terms cancel: on training_long_channels (uniform(30, 31), var = 1/12) the f32
// sums behind E[x^2] ~ 930 lose ~0.1% of the variance, ~2e-4 in the outputs. Same stages and scratch
// names as the reference: the first wrong stage reported is `bn_invstd` (bn_mean is still right).
//
// @kbx scratch bn_mean f32 [c]
// @kbx scratch bn_invstd f32 [c]
// @kbx scratch batch_norm f32 [n, c, l]
// @kbx launch bn_stats<<<max(1, min(cdiv(c, 8), 65536)), 256>>>(x, running_mean, running_var, bn_mean, bn_invstd, n, c, l, training, momentum, eps)
// @kbx launch bn_apply<<<max(1, min(cdiv(n * c * l, 1024), 65536)), 256>>>(x, bn_mean, bn_invstd, weight, bias, batch_norm, n, c, l)
// @kbx launch sigmoid<<<max(1, min(cdiv(n * c * l, 1024), 65536)), 256>>>(batch_norm, y, i64(n * c * l))

extern "C" __global__ void __launch_bounds__(256)
bn_stats(const float* __restrict__ x, float* __restrict__ running_mean, float* __restrict__ running_var,
         float* __restrict__ mean_c, float* __restrict__ invstd_c, long long n, long long c, long long l,
         int training, float momentum, float eps)
{
	if (!training) {
		for (long long ch = (long long)blockIdx.x * blockDim.x + threadIdx.x; ch < c;
		     ch += (long long)gridDim.x * blockDim.x) {
			mean_c[ch] = running_mean[ch];
			invstd_c[ch] = (float)(1.0 / sqrt((double)running_var[ch] + (double)eps));
		}
		return;
	}
	const int lane = threadIdx.x & 31;
	const long long cnt = n * l;
	for (long long ch = (long long)blockIdx.x * 8 + (threadIdx.x >> 5); ch < c; ch += (long long)gridDim.x * 8) {
		// BUG: one pass in f32, var = E[x^2] - E[x]^2: cancels catastrophically when |mean| >> std
		float s = 0.0f, ss = 0.0f;
		for (long long i = lane; i < cnt; i += 32) {
			float v = x[((i / l) * c + ch) * l + i % l];
			s += v;
			ss += v * v;
		}
		for (int off = 16; off > 0; off >>= 1) {
			s += __shfl_xor_sync(0xffffffffu, s, off);
			ss += __shfl_xor_sync(0xffffffffu, ss, off);
		}
		const double mean = (double)(s / (float)cnt);
		const double var = (double)fmaxf(ss / (float)cnt - (float)mean * (float)mean, 0.0f);
		if (lane == 0) {
			float mean_f = (float)mean;
			float var_unbiased = (float)(var * (double)cnt / (double)(cnt - 1));
			mean_c[ch] = mean_f;
			invstd_c[ch] = (float)(1.0 / sqrt((double)(float)var + (double)eps));
			running_mean[ch] = (1.0f - momentum) * running_mean[ch] + momentum * mean_f;
			running_var[ch] = (1.0f - momentum) * running_var[ch] + momentum * var_unbiased;
		}
	}
}

extern "C" __global__ void __launch_bounds__(256)
bn_apply(const float* __restrict__ x, const float* __restrict__ mean_c, const float* __restrict__ invstd_c,
         const float* __restrict__ weight, const float* __restrict__ bias, float* __restrict__ out, long long n,
         long long c, long long l)
{
	const long long total = n * c * l;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
	     i += (long long)gridDim.x * blockDim.x) {
		const long long ch = (i / l) % c;
		out[i] = __fadd_rn(__fmul_rn(__fmul_rn(__fsub_rn(x[i], mean_c[ch]), invstd_c[ch]), weight[ch]), bias[ch]);
	}
}

// torch.sigmoid for f32: 1 / (1 + exp(-v)) (expf, IEEE division); float4 body, scalar tail
extern "C" __global__ void __launch_bounds__(256)
sigmoid(const float* __restrict__ x, float* __restrict__ y, long long n)
{
	const long long nv = n / 4, stride = (long long)gridDim.x * blockDim.x;
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	for (long long i = tid; i < nv; i += stride) {
		float4 v = reinterpret_cast<const float4*>(x)[i];
		v.x = 1.0f / (1.0f + expf(-v.x));
		v.y = 1.0f / (1.0f + expf(-v.y));
		v.z = 1.0f / (1.0f + expf(-v.z));
		v.w = 1.0f / (1.0f + expf(-v.w));
		reinterpret_cast<float4*>(y)[i] = v;
	}
	for (long long i = nv * 4 + tid; i < n; i += stride)
		y[i] = 1.0f / (1.0f + expf(-x[i]));
}
