// floor elementwise in f32 with floorf (exact: one instruction, cvt.rmi), as PyTorch's CUDA floor.
// Memory-bound: a grid-stride loop over float4 groups, four groups per thread, then the n % 4 tail.

// @kbx launch floor_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n)

__device__ __forceinline__ float floor_one(float v)
{
	return floorf(v);
}

extern "C" __global__ void floor_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *y4 = reinterpret_cast<float4 *>(y);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		a.x = floor_one(a.x);
		a.y = floor_one(a.y);
		a.z = floor_one(a.z);
		a.w = floor_one(a.w);
		y4[v] = a;
	}
	long long i = n4 * 4 + tid; /* at most 3 tail elements */
	if (i < n)
		y[i] = floor_one(x[i]);
}
