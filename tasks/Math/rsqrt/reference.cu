// y = 1 / sqrt(x) in f32 through rsqrtf, the function PyTorch's CUDA rsqrt calls (within 2 ulp; an exact
// 1 / sqrtf differs by at most that). rsqrtf(+-0) = +-inf, rsqrtf(+inf) = 0, negative x and -inf give NaN.
// Memory-bound: a grid-stride loop over float4 groups (cudaMalloc'd buffers are 256-byte aligned), then the
// n % 4 tail elements, one each for the first threads of the grid.

// @kbx launch rsqrt_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n)

__device__ __forceinline__ float op(float v)
{
	return rsqrtf(v);
}

extern "C" __global__ void rsqrt_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *y4 = reinterpret_cast<float4 *>(y);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		y4[v] = make_float4(op(a.x), op(a.y), op(a.z), op(a.w));
	}
	long long i = n4 * 4 + tid; /* at most 3 tail elements */
	if (i < n)
		y[i] = op(x[i]);
}
