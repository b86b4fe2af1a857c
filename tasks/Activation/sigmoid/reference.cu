// Sigmoid, f32 in and out, PyTorch's CUDA formula: y = 1 / (1 + expf(-x)) in f32 (IEEE division,
// the accurate expf; both within 2 ulp), so the result is within a few ulp of the true value
// wherever it is above the absolute tolerance. exp(-x) = inf (x < -88.7) gives 1 / inf = 0, and
// NaN propagates through expf.
// Memory-bound: a grid-stride loop over float4 groups (cudaMalloc'd buffers are 256-byte aligned),
// four groups per thread (cdiv(n, 4096) blocks of 256), then the n % 4 tail elements, one each for
// the first threads of the grid.

// @kbx launch sigmoid_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n)

__device__ __forceinline__ float sigmoid_one(float v)
{
	return 1.0f / (1.0f + expf(-v));
}

extern "C" __global__ void sigmoid_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *y4 = reinterpret_cast<float4 *>(y);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		a.x = sigmoid_one(a.x);
		a.y = sigmoid_one(a.y);
		a.z = sigmoid_one(a.z);
		a.w = sigmoid_one(a.w);
		y4[v] = a;
	}
	long long i = n4 * 4 + tid; /* at most 3 tail elements */
	if (i < n)
		y[i] = sigmoid_one(x[i]);
}
