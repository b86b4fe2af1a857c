// @kbx expect pass
// Correct alternative: one fused pass, no intermediate buffer: float4 loads and stores for the body,
// logf then tanhf in registers, a scalar loop for the n % 4 tail.
//
// @kbx launch log_tanh_vec4<<<max(1, min(cdiv(n, 1024), 65536)), 256>>>(input, y, n)

extern "C" __global__ void log_tanh_vec4(const float* __restrict__ x, float* __restrict__ y, long long n)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	for (long long q = tid; q < n / 4; q += stride) {
		float4 v = reinterpret_cast<const float4*>(x)[q];
		v.x = tanhf(logf(v.x));
		v.y = tanhf(logf(v.y));
		v.z = tanhf(logf(v.z));
		v.w = tanhf(logf(v.w));
		reinterpret_cast<float4*>(y)[q] = v;
	}
	for (long long i = (n / 4) * 4 + tid; i < n; i += stride)
		y[i] = tanhf(logf(x[i]));
}
