// sqrt(exp(x)) in f32, the two steps of exp_sqrt as PyTorch runs them: expf (max 2 ulp) rounded to
// f32, then sqrtf (correctly rounded). Keeping the f32 intermediate matters only for overflow: exp(x)
// is inf above 88.72 and so is the result, as in PyTorch.
// Memory-bound: a grid-stride loop over float4 groups, four groups per thread, then the n % 4 tail.

// @kbx launch exp_sqrt_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n)

__device__ __forceinline__ float exp_sqrt_one(float v)
{
	float e = expf(v);
	return sqrtf(e);
}

extern "C" __global__ void exp_sqrt_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *y4 = reinterpret_cast<float4 *>(y);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		a.x = exp_sqrt_one(a.x);
		a.y = exp_sqrt_one(a.y);
		a.z = exp_sqrt_one(a.z);
		a.w = exp_sqrt_one(a.w);
		y4[v] = a;
	}
	long long i = n4 * 4 + tid; /* at most 3 tail elements */
	if (i < n)
		y[i] = exp_sqrt_one(x[i]);
}
