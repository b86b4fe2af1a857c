// erfc(x) and sqrt(x) in f32 in one pass: CUDA's erfcf (max 4 ulp, accurate deep into the tail) and the
// correctly rounded sqrtf, which already gives NaN for x < 0 (and -0 for -0), as torch.sqrt followed by
// KernelBenchX's `sqrt_result[input < 0] = nan`.
// Memory-bound (one read, two writes): a grid-stride loop over float4 groups, four groups per thread,
// then the n % 4 tail.

// @kbx launch erfc_sqrt_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, erfc_result, sqrt_result, n)

extern "C" __global__ void erfc_sqrt_f32(const float *__restrict__ x, float *__restrict__ erfc_result,
					 float *__restrict__ sqrt_result, long long n)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *e4 = reinterpret_cast<float4 *>(erfc_result);
	float4 *s4 = reinterpret_cast<float4 *>(sqrt_result);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		e4[v] = make_float4(erfcf(a.x), erfcf(a.y), erfcf(a.z), erfcf(a.w));
		s4[v] = make_float4(sqrtf(a.x), sqrtf(a.y), sqrtf(a.z), sqrtf(a.w));
	}
	long long i = n4 * 4 + tid; /* at most 3 tail elements */
	if (i < n) {
		erfc_result[i] = erfcf(x[i]);
		sqrt_result[i] = sqrtf(x[i]);
	}
}
