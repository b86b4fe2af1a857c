// y = log(x / (1 - x)) after an optional clamp, the three f32 ops PyTorch runs for KernelBenchX's logit:
//   clamp: NaN stays NaN, else min(max(x, lo), hi) with lo = (float)eps, hi = (float)(1.0 - eps)
//   1 - x and x / (1 - x): IEEE f32, correctly rounded (NVRTC divides with -prec-div=true by default),
//   then logf.
// Fusing them changes nothing: every intermediate is rounded to f32 as PyTorch's tensors are.
// Memory-bound: grid-stride loop over float4 groups, then the n % 4 tail elements.

// @kbx launch logit_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n, use_eps, eps)

__device__ __forceinline__ float logit_one(float v, int use_eps, float lo, float hi)
{
	if (use_eps && !isnan(v))
		v = fminf(fmaxf(v, lo), hi);
	return logf(v / (1.0f - v));
}

extern "C" __global__ void logit_f32(const float *__restrict__ x, float *__restrict__ y, long long n, int use_eps,
				    double eps)
{
	const float lo = (float)eps;
	const float hi = (float)(1.0 - eps);
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *y4 = reinterpret_cast<float4 *>(y);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		a.x = logit_one(a.x, use_eps, lo, hi);
		a.y = logit_one(a.y, use_eps, lo, hi);
		a.z = logit_one(a.z, use_eps, lo, hi);
		a.w = logit_one(a.w, use_eps, lo, hi);
		y4[v] = a;
	}
	long long i = n4 * 4 + tid;
	if (i < n)
		y[i] = logit_one(x[i], use_eps, lo, hi);
}
