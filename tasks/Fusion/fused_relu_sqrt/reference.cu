// fused_relu_sqrt reference: the two PyTorch stages, each into its own buffer.
//   stage `relu` (torch.relu): relu = max(x, 0) with NaN kept
//   stage `sqrt` (torch.sqrt): y = sqrt(relu), correctly rounded (sqrtf under NVRTC's default
//                 -prec-sqrt=true), exactly what PyTorch computes
// Writing `relu` out and reading it back is one extra pass: the price of a reference whose stages
// can be diffed. Both kernels are grid-stride loops over float4 vectors (buffers are 16-byte
// aligned) with a scalar loop for the last n % 4 elements.
//
// @kbx scratch relu f32 [n]
// @kbx launch relu_vec<<<max(1, min(cdiv(n, 1024), 65536)), 256>>>(x, relu, n)
// @kbx launch sqrt_vec<<<max(1, min(cdiv(n, 1024), 65536)), 256>>>(relu, y, n)

static __device__ __forceinline__ float relu1(float v)
{
	return v > 0.0f || v != v ? v : 0.0f;
}

extern "C" __global__ void __launch_bounds__(256)
relu_vec(const float* __restrict__ x, float* __restrict__ out, long long n)
{
	const long long nv = n / 4, stride = (long long)gridDim.x * blockDim.x;
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const float4* x4 = reinterpret_cast<const float4*>(x);
	float4* o4 = reinterpret_cast<float4*>(out);
	for (long long i = tid; i < nv; i += stride) {
		float4 v = x4[i];
		o4[i] = make_float4(relu1(v.x), relu1(v.y), relu1(v.z), relu1(v.w));
	}
	for (long long i = nv * 4 + tid; i < n; i += stride)
		out[i] = relu1(x[i]);
}

extern "C" __global__ void __launch_bounds__(256)
sqrt_vec(const float* __restrict__ x, float* __restrict__ out, long long n)
{
	const long long nv = n / 4, stride = (long long)gridDim.x * blockDim.x;
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const float4* x4 = reinterpret_cast<const float4*>(x);
	float4* o4 = reinterpret_cast<float4*>(out);
	for (long long i = tid; i < nv; i += stride) {
		float4 v = x4[i];
		o4[i] = make_float4(sqrtf(v.x), sqrtf(v.y), sqrtf(v.z), sqrtf(v.w));
	}
	for (long long i = nv * 4 + tid; i < n; i += stride)
		out[i] = sqrtf(x[i]);
}
