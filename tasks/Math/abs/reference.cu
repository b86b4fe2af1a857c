// |x| elementwise in f32: fabsf clears the sign bit (exact; NaN stays NaN, -0 becomes +0), as
// PyTorch's CUDA abs does.
// Memory-bound: a grid-stride loop over float4 groups (cudaMalloc'd buffers are 256-byte aligned), four
// groups per thread (cdiv(n, 4096) blocks of 256), then the n % 4 tail elements, one each for the first
// threads of the grid.

// @kbx launch abs_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n)

__device__ __forceinline__ float abs_one(float v)
{
	return fabsf(v);
}

extern "C" __global__ void abs_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *y4 = reinterpret_cast<float4 *>(y);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		a.x = abs_one(a.x);
		a.y = abs_one(a.y);
		a.z = abs_one(a.z);
		a.w = abs_one(a.w);
		y4[v] = a;
	}
	long long i = n4 * 4 + tid; /* at most 3 tail elements */
	if (i < n)
		y[i] = abs_one(x[i]);
}
