// y = exp(sqrt(x)) in f32: PyTorch's two kernels, torch.sqrt (IEEE sqrtf, correctly rounded) then torch.exp
// (expf, within 2 ulp), fused; the intermediate is an f32 either way. Negative x gives NaN, exp(sqrt(+inf))
// = +inf, and the result overflows to +inf past x ~ 7872 (sqrt(x) > 88.72).
// Memory-bound: a grid-stride loop over float4 groups (cudaMalloc'd buffers are 256-byte aligned), then the
// n % 4 tail elements, one each for the first threads of the grid.

// @kbx launch sqrt_exp_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n)

__device__ __forceinline__ float op(float v)
{
	return expf(sqrtf(v));
}

extern "C" __global__ void sqrt_exp_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
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
