// fused_cos_signbit reference: the two PyTorch stages, each writing one of the two outputs.
//   stage `cos`     (torch.cos):     cos_result = cosf(input)
//   stage `signbit` (torch.signbit): sign_bit = the sign bit of cos_result (1 for negative values,
//                                    -0 and a NaN with its sign bit set)
// Both results are outputs, so no scratch buffer is needed for a stage-by-stage diff.
//
// cos_fwd: grid-stride over float4 groups (buffers are 256-byte aligned), then the n % 4 tail
// elements; cosf is CUDA's accurate cosine (<= 2 ulp, Payne-Hanek reduction for huge arguments),
// the function torch.cos calls for f32 on CUDA, so the sign of every result near a zero of the
// cosine is right. signbit_fwd: reads the bits of cos_result (one byte out per element). CUDA's
// cosf returns the canonical NaN 0x7fffffff for NaN and +-inf, whose sign bit is 0.
//
// @kbx launch cos_fwd<<<max(1, min(cdiv(n, 4096), 65536)), 256>>>(input, cos_result, n)
// @kbx launch signbit_fwd<<<max(1, min(cdiv(n, 1024), 65536)), 256>>>(cos_result, sign_bit, n)

extern "C" __global__ void __launch_bounds__(256)
cos_fwd(const float* __restrict__ x, float* __restrict__ out, long long n)
{
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long stride = (long long)gridDim.x * blockDim.x;
	const long long n4 = n / 4;
	const float4* x4 = reinterpret_cast<const float4*>(x);
	float4* o4 = reinterpret_cast<float4*>(out);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		a.x = cosf(a.x);
		a.y = cosf(a.y);
		a.z = cosf(a.z);
		a.w = cosf(a.w);
		o4[v] = a;
	}
	const long long i = n4 * 4 + tid; // at most 3 tail elements
	if (i < n)
		out[i] = cosf(x[i]);
}

extern "C" __global__ void __launch_bounds__(256)
signbit_fwd(const float* __restrict__ c, unsigned char* __restrict__ sign, long long n)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		sign[i] = (unsigned char)(__float_as_uint(c[i]) >> 31);
}
