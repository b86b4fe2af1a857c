// fused_log_tanh reference: the two PyTorch stages, each into its own buffer.
//   stage `log`  (torch.log):  log = logf(input)
//   stage `tanh` (torch.tanh): y = tanhf(log)
// CUDA's logf (1 ulp) and tanhf (2 ulp) are the functions PyTorch's kernels call on f32. Keeping
// `log` in memory costs one extra write and read of n floats: the price of a reference whose stages
// can be diffed. Both stages: grid-stride loops with float4 loads and stores for the body (the
// allocator's buffers are 16-byte aligned) and a scalar loop for the n % 4 tail.
//
// @kbx scratch log f32 [n]
// @kbx launch log_fwd<<<max(1, min(cdiv(n, 1024), 65536)), 256>>>(input, log, n)
// @kbx launch tanh_fwd<<<max(1, min(cdiv(n, 1024), 65536)), 256>>>(log, y, n)

extern "C" __global__ void __launch_bounds__(256)
log_fwd(const float* __restrict__ x, float* __restrict__ y, long long n)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const float4* x4 = reinterpret_cast<const float4*>(x);
	float4* y4 = reinterpret_cast<float4*>(y);
	for (long long q = tid; q < n / 4; q += stride) {
		float4 v = x4[q];
		v.x = logf(v.x);
		v.y = logf(v.y);
		v.z = logf(v.z);
		v.w = logf(v.w);
		y4[q] = v;
	}
	for (long long i = (n / 4) * 4 + tid; i < n; i += stride)
		y[i] = logf(x[i]);
}

extern "C" __global__ void __launch_bounds__(256)
tanh_fwd(const float* __restrict__ x, float* __restrict__ y, long long n)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const float4* x4 = reinterpret_cast<const float4*>(x);
	float4* y4 = reinterpret_cast<float4*>(y);
	for (long long q = tid; q < n / 4; q += stride) {
		float4 v = x4[q];
		v.x = tanhf(v.x);
		v.y = tanhf(v.y);
		v.z = tanhf(v.z);
		v.w = tanhf(v.w);
		y4[q] = v;
	}
	for (long long i = (n / 4) * 4 + tid; i < n; i += stride)
		y[i] = tanhf(x[i]);
}
