// log elementwise in f32 with CUDA's logf (max 1 ulp error, denormals handled exactly), the function
// PyTorch's CUDA log kernel calls for float.
// Memory-bound: a grid-stride loop over float4 groups, four groups per thread, then the n % 4 tail.

// @kbx launch log_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n)

__device__ __forceinline__ float log_one(float v)
{
	return logf(v);
}

extern "C" __global__ void log_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *y4 = reinterpret_cast<float4 *>(y);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		a.x = log_one(a.x);
		a.y = log_one(a.y);
		a.z = log_one(a.z);
		a.w = log_one(a.w);
		y4[v] = a;
	}
	long long i = n4 * 4 + tid; /* at most 3 tail elements */
	if (i < n)
		y[i] = log_one(x[i]);
}
