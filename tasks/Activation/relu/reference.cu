// ReLU, f32 in and out, as PyTorch's CUDA clamp_min(x, 0): NaN is returned as it is, every other
// value becomes max(x, 0). Exact: no rounding happens, so any correct candidate matches bit for bit
// (up to the sign of zero for x = -0).
// Memory-bound: a grid-stride loop over float4 groups (cudaMalloc'd buffers are 256-byte aligned),
// four groups per thread (cdiv(n, 4096) blocks of 256), then the n % 4 tail elements, one each for
// the first threads of the grid.

// @kbx launch relu_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n)

__device__ __forceinline__ float relu_one(float v)
{
	return v != v ? v : fmaxf(v, 0.0f); /* NaN first, as clamp_min does */
}

extern "C" __global__ void relu_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *y4 = reinterpret_cast<float4 *>(y);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		a.x = relu_one(a.x);
		a.y = relu_one(a.y);
		a.z = relu_one(a.z);
		a.w = relu_one(a.w);
		y4[v] = a;
	}
	long long i = n4 * 4 + tid; /* at most 3 tail elements */
	if (i < n)
		y[i] = relu_one(x[i]);
}
