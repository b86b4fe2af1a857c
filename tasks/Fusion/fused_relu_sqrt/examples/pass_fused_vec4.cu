// @kbx expect pass
// Correct alternative: one fused pass, float4 loads and stores, a scalar loop for the n % 4 tail;
// relu as a select that keeps NaN (v > 0 ? v : (v != v ? v : 0) folded into one comparison), the
// IEEE square root. Half the memory traffic of the staged reference.
//
// @kbx launch relu_sqrt4<<<max(1, min(cdiv(n, 1024), 65536)), 256>>>(x, y, n)

static __device__ __forceinline__ float f(float v)
{
	return __fsqrt_rn(!(v <= 0.0f) ? v : 0.0f); // NaN fails v <= 0 and is kept
}

extern "C" __global__ void relu_sqrt4(const float* __restrict__ x, float* __restrict__ y, long long n)
{
	const long long nv = n / 4, stride = (long long)gridDim.x * blockDim.x;
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	for (long long i = tid; i < nv; i += stride) {
		float4 v = reinterpret_cast<const float4*>(x)[i];
		reinterpret_cast<float4*>(y)[i] = make_float4(f(v.x), f(v.y), f(v.z), f(v.w));
	}
	for (long long i = nv * 4 + tid; i < n; i += stride)
		y[i] = f(x[i]);
}
