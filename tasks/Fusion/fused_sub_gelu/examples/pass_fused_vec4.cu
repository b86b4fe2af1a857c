// @kbx expect pass
// Correct alternative: one fused pass with float4 loads and stores and a scalar loop for the n % 4
// tail; the compiler may contract into FMAs (an ulp or so from eager PyTorch, well inside 1e-5).
//
// @kbx launch sub_gelu4<<<max(1, min(cdiv(n, 1024), 65536)), 256>>>(input, other, y, n, alpha, approximate)

static __device__ __forceinline__ float f(float a, float b, float alpha, int approximate)
{
	float r = a - alpha * b;
	if (approximate)
		return 0.5f * r * (1.0f + tanhf(0.7978846f * (r + 0.044715f * r * r * r)));
	return r * erff(r * 0.70710678f) * 0.5f;
}

extern "C" __global__ void sub_gelu4(const float* __restrict__ input, const float* __restrict__ other,
                                     float* __restrict__ y, long long n, float alpha, int approximate)
{
	const long long nv = n / 4, stride = (long long)gridDim.x * blockDim.x;
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	for (long long i = tid; i < nv; i += stride) {
		float4 a = reinterpret_cast<const float4*>(input)[i], b = reinterpret_cast<const float4*>(other)[i];
		reinterpret_cast<float4*>(y)[i] = make_float4(f(a.x, b.x, alpha, approximate), f(a.y, b.y, alpha, approximate),
		                                              f(a.z, b.z, alpha, approximate), f(a.w, b.w, alpha, approximate));
	}
	for (long long i = nv * 4 + tid; i < n; i += stride)
		y[i] = f(input[i], other[i], alpha, approximate);
}
