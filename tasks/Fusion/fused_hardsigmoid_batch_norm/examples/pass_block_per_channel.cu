// @kbx expect pass
// Correct alternative: no intermediate tensor. One block per channel computes the batch statistics
// in f32 (two passes: mean, then centred squares), updates the running statistics, and then the same
// block writes hardsigmoid(batch_norm(x)) for its channel; in eval it uses the running statistics.
// NaN propagation by comparisons, as in PyTorch.
//
// @kbx launch bn_hsig_channel<<<max(1, c), 256>>>(x, running_mean, running_var, weight, bias, y, n, c, i64(h * w), training, momentum, eps)

__device__ float block_sum(float v, float* sh)
{
	sh[threadIdx.x] = v;
	__syncthreads();
	for (int s = 128; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			sh[threadIdx.x] += sh[threadIdx.x + s];
		__syncthreads();
	}
	float r = sh[0];
	__syncthreads();
	return r;
}

extern "C" __global__ void bn_hsig_channel(const float* __restrict__ x, float* __restrict__ running_mean,
                                           float* __restrict__ running_var, const float* __restrict__ weight,
                                           const float* __restrict__ bias, float* __restrict__ y, long long n,
                                           long long c, long long hw, int training, float momentum, float eps)
{
	__shared__ float sh[256];
	const long long ch = blockIdx.x;
	const long long cnt = n * hw;
	float mean, invstd;
	if (training) {
		float s = 0.0f;
		for (long long e = threadIdx.x; e < cnt; e += 256)
			s += x[((e / hw) * c + ch) * hw + e % hw];
		mean = block_sum(s, sh) / (float)cnt;
		float q = 0.0f;
		for (long long e = threadIdx.x; e < cnt; e += 256) {
			float d = x[((e / hw) * c + ch) * hw + e % hw] - mean;
			q = fmaf(d, d, q);
		}
		q = block_sum(q, sh);
		invstd = 1.0f / sqrtf(q / (float)cnt + eps);
		if (threadIdx.x == 0) {
			running_mean[ch] = (1.0f - momentum) * running_mean[ch] + momentum * mean;
			running_var[ch] = (1.0f - momentum) * running_var[ch] + momentum * (q / (float)(cnt - 1));
		}
	} else {
		mean = running_mean[ch];
		invstd = 1.0f / sqrtf(running_var[ch] + eps);
	}
	const float wt = weight[ch], bs = bias[ch];
	for (long long e = threadIdx.x; e < cnt; e += 256) {
		long long idx = ((e / hw) * c + ch) * hw + e % hw;
		float t = (x[idx] - mean) * invstd * wt + bs + 3.0f;
		t = t < 0.0f ? 0.0f : t;
		t = 6.0f < t ? 6.0f : t;
		y[idx] = t * (1.0f / 6.0f);
	}
}
