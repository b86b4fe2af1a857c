// @kbx expect pass
// Correct alternative: one fused pass, float4 loads and stores for the body and a scalar loop for
// the last n % 4 elements; lets the compiler contract into FMAs (rounding differs from eager
// PyTorch by an ulp or so, well inside 1e-5). Buffers come from the allocator, 16-byte aligned.
//
// @kbx launch add_gelu_vec4<<<max(1, min(cdiv(n, 1024), 65536)), 256>>>(input, other, y, n, alpha, approximate)

static __device__ __forceinline__ float gelu1(float r, int approximate)
{
	if (approximate)
		return 0.5f * r * (1.0f + tanhf(0.797884524f * (r + 0.044715f * r * r * r)));
	return r * 0.5f * (1.0f + erff(r * 0.70710678f));
}

extern "C" __global__ void add_gelu_vec4(const float* __restrict__ input, const float* __restrict__ other,
                                         float* __restrict__ y, long long n, float alpha, int approximate)
{
	long long nv = n / 4;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const float4* x4 = reinterpret_cast<const float4*>(input);
	const float4* o4 = reinterpret_cast<const float4*>(other);
	float4* y4 = reinterpret_cast<float4*>(y);
	for (long long i = tid; i < nv; i += stride) {
		float4 a = x4[i], b = o4[i], r;
		r.x = gelu1(a.x + alpha * b.x, approximate);
		r.y = gelu1(a.y + alpha * b.y, approximate);
		r.z = gelu1(a.z + alpha * b.z, approximate);
		r.w = gelu1(a.w + alpha * b.w, approximate);
		y4[i] = r;
	}
	for (long long i = nv * 4 + tid; i < n; i += stride)
		y[i] = gelu1(input[i] + alpha * other[i], approximate);
}
