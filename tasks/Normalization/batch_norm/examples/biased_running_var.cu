// @kbx expect wrong
// Mistake: updates running_var with the biased batch variance (divides by cnt, not cnt - 1); the output y is
// right, but running_var is off by momentum * var / (cnt - 1) in every training case.
// @kbx scratch mean_c f32 [c]
// @kbx scratch invstd_c f32 [c]
// @kbx launch bn_stats<<<max(1, c), 256>>>(x, running_mean, running_var, mean_c, invstd_c, n, c, i64(h * w), training, momentum, eps)
// @kbx launch bn_apply<<<dim3(max(1, cdiv(h * w, 256)), max(1, min(n * c, 65535))), 256>>>(x, mean_c, invstd_c, weight, bias, y, n, c, i64(h * w))

#include <cuda_fp16.h>

extern "C" __global__ void bn_stats(const __half *__restrict__ x, float *__restrict__ running_mean,
				    float *__restrict__ running_var, float *__restrict__ mean_c,
				    float *__restrict__ invstd_c, long long n, long long c, long long hw,
				    int training, float momentum, float eps)
{
	__shared__ double s_sum[256];
	__shared__ double s_sq[256];
	long long ch = blockIdx.x;
	if (!training) {
		if (threadIdx.x == 0) {
			mean_c[ch] = running_mean[ch];
			invstd_c[ch] = 1.0f / sqrtf(running_var[ch] + eps);
		}
		return;
	}
	long long cnt = n * hw;
	double s = 0.0, q = 0.0;
	for (long long i = threadIdx.x; i < cnt; i += blockDim.x) {
		double v = (double)__half2float(x[((i / hw) * c + ch) * hw + i % hw]);
		s += v;
		q += v * v;
	}
	s_sum[threadIdx.x] = s;
	s_sq[threadIdx.x] = q;
	__syncthreads();
	for (int o = blockDim.x / 2; o > 0; o >>= 1) {
		if (threadIdx.x < o) {
			s_sum[threadIdx.x] += s_sum[threadIdx.x + o];
			s_sq[threadIdx.x] += s_sq[threadIdx.x + o];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		double mean = s_sum[0] / (double)cnt;
		double var = s_sq[0] / (double)cnt - mean * mean;
		mean_c[ch] = (float)mean;
		invstd_c[ch] = (float)(1.0 / sqrt(var + (double)eps));
		running_mean[ch] = (1.0f - momentum) * running_mean[ch] + momentum * (float)mean;
		running_var[ch] = (1.0f - momentum) * running_var[ch] + momentum * (float)var;
	}
}

extern "C" __global__ void bn_apply(const __half *__restrict__ x, const float *__restrict__ mean_c,
				    const float *__restrict__ invstd_c, const float *__restrict__ weight,
				    const float *__restrict__ bias, __half *__restrict__ y, long long n, long long c,
				    long long hw)
{
	long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (p >= hw)
		return;
	for (long long plane = blockIdx.y; plane < n * c; plane += gridDim.y) {
		long long ch = plane % c;
		float v = __half2float(x[plane * hw + p]);
		y[plane * hw + p] = __float2half_rn(((v - mean_c[ch]) * invstd_c[ch]) * weight[ch] + bias[ch]);
	}
}
