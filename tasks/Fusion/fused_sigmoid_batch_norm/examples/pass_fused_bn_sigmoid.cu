// @kbx expect pass
// Correct alternative: the statistics by one block per channel with Welford in f32 per thread and
// Chan's parallel merge across the block (stable for offset data), then batch norm and sigmoid fused
// in one elementwise pass (no `batch_norm` buffer). Keeps the reference's bn_mean / bn_invstd names,
// so they are diffed.
//
// @kbx scratch bn_mean f32 [c]
// @kbx scratch bn_invstd f32 [c]
// @kbx launch stats<<<max(1, min(c, 1048576)), 128>>>(x, running_mean, running_var, bn_mean, bn_invstd, n, c, l, training, momentum, eps)
// @kbx launch bn_sigmoid<<<max(1, min(cdiv(n * c * l, 256), 1048576)), 256>>>(x, bn_mean, bn_invstd, weight, bias, y, n, c, l)

struct Wf {
	float n, mean, m2;
};

static __device__ Wf wmerge(Wf a, Wf b)
{
	if (a.n == 0.0f)
		return b;
	if (b.n == 0.0f)
		return a;
	Wf r;
	r.n = a.n + b.n;
	float d = b.mean - a.mean;
	r.mean = a.mean + d * (b.n / r.n);
	r.m2 = a.m2 + b.m2 + d * d * (a.n * b.n / r.n);
	return r;
}

extern "C" __global__ void stats(const float* __restrict__ x, float* __restrict__ running_mean,
                                 float* __restrict__ running_var, float* __restrict__ mean_c,
                                 float* __restrict__ invstd_c, long long n, long long c, long long l, int training,
                                 float momentum, float eps)
{
	__shared__ Wf sh[4];
	for (long long ch = blockIdx.x; ch < c; ch += gridDim.x) {
		if (!training) {
			if (threadIdx.x == 0) {
				mean_c[ch] = running_mean[ch];
				invstd_c[ch] = 1.0f / sqrtf(running_var[ch] + eps);
			}
			continue;
		}
		const long long cnt = n * l;
		Wf a = { 0.0f, 0.0f, 0.0f };
		for (long long i = threadIdx.x; i < cnt; i += blockDim.x) {
			float v = x[((i / l) * c + ch) * l + i % l];
			a.n += 1.0f;
			float d = v - a.mean;
			a.mean += d / a.n;
			a.m2 += d * (v - a.mean);
		}
		for (int off = 16; off > 0; off >>= 1) {
			Wf b = { __shfl_xor_sync(0xffffffffu, a.n, off), __shfl_xor_sync(0xffffffffu, a.mean, off),
			         __shfl_xor_sync(0xffffffffu, a.m2, off) };
			a = wmerge(a, b);
		}
		if (threadIdx.x % 32 == 0)
			sh[threadIdx.x / 32] = a;
		__syncthreads();
		if (threadIdx.x == 0) {
			a = wmerge(wmerge(sh[0], sh[1]), wmerge(sh[2], sh[3]));
			float var = a.m2 / (float)cnt;
			mean_c[ch] = a.mean;
			invstd_c[ch] = 1.0f / sqrtf(var + eps);
			running_mean[ch] = (1.0f - momentum) * running_mean[ch] + momentum * a.mean;
			running_var[ch] = (1.0f - momentum) * running_var[ch] + momentum * (a.m2 / (float)(cnt - 1));
		}
		__syncthreads();
	}
}

extern "C" __global__ void bn_sigmoid(const float* __restrict__ x, const float* __restrict__ mean_c,
                                      const float* __restrict__ invstd_c, const float* __restrict__ weight,
                                      const float* __restrict__ bias, float* __restrict__ y, long long n, long long c,
                                      long long l)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n * c * l;
	     i += (long long)gridDim.x * blockDim.x) {
		long long ch = (i / l) % c;
		float v = (x[i] - mean_c[ch]) * invstd_c[ch] * weight[ch] + bias[ch];
		y[i] = 1.0f / (1.0f + expf(-v));
	}
}
