// Leaky ReLU, f32 in and out, PyTorch's CUDA formula: y = x > 0 ? x : x * negative_slope (the
// slope is an f32 value). NaN fails x > 0 and gives NaN * slope = NaN; -inf * 0 = NaN. One f32
// multiply per negative element: a correct candidate matches bit for bit.
// Memory-bound: a grid-stride loop over float4 groups (cudaMalloc'd buffers are 256-byte aligned),
// four groups per thread (cdiv(n, 4096) blocks of 256), then the n % 4 tail elements, one each for
// the first threads of the grid.

// @kbx launch leaky_relu_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n, negative_slope)

__device__ __forceinline__ float leaky_one(float v, float slope)
{
	return v > 0.0f ? v : v * slope;
}

extern "C" __global__ void leaky_relu_f32(const float *__restrict__ x, float *__restrict__ y, long long n,
					  float negative_slope)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *y4 = reinterpret_cast<float4 *>(y);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		a.x = leaky_one(a.x, negative_slope);
		a.y = leaky_one(a.y, negative_slope);
		a.z = leaky_one(a.z, negative_slope);
		a.w = leaky_one(a.w, negative_slope);
		y4[v] = a;
	}
	long long i = n4 * 4 + tid; /* at most 3 tail elements */
	if (i < n)
		y[i] = leaky_one(x[i], negative_slope);
}
