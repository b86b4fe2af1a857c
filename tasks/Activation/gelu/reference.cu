// GELU, f32 in and out, computed in f32 with PyTorch's CUDA formulas (same operation order):
//   approximate = 0: x * 0.5f * (1 + erff(x * M_SQRT1_2))
//   approximate = 1: 0.5f * x * (1 + tanhf(kBeta * (x + kKappa * x^3)))
// Memory-bound: a grid-stride loop over float4 groups (cudaMalloc'd buffers are 256-byte aligned),
// then the n % 4 tail elements, one each for the first threads of the grid. Four float4 groups per
// thread (cdiv(n, 4096) blocks of 256) ran at copy speed on an H200 (2^27 elements: 0.26 ms, the
// same as PyTorch and as a plain copy); one group per thread was ~10% slower.

// @kbx launch gelu_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n, approximate)

__device__ __forceinline__ float gelu_one(float x, int approximate)
{
	if (approximate) {
		const float kBeta = 0.7978845608028654f; /* sqrt(2) * (2 / sqrt(pi)) * 0.5 = sqrt(2 / pi) */
		const float kKappa = 0.044715f;
		float x_cube = x * x * x;
		float inner = kBeta * (x + kKappa * x_cube);
		return 0.5f * x * (1.0f + tanhf(inner));
	}
	const float kAlpha = 0.7071067811865476f; /* M_SQRT1_2 */
	return x * 0.5f * (1.0f + erff(x * kAlpha));
}

extern "C" __global__ void gelu_f32(const float *__restrict__ x, float *__restrict__ y, long long n,
				   int approximate)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *y4 = reinterpret_cast<float4 *>(y);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		a.x = gelu_one(a.x, approximate);
		a.y = gelu_one(a.y, approximate);
		a.z = gelu_one(a.z, approximate);
		a.w = gelu_one(a.w, approximate);
		y4[v] = a;
	}
	long long i = n4 * 4 + tid; /* at most 3 tail elements */
	if (i < n)
		y[i] = gelu_one(x[i], approximate);
}
