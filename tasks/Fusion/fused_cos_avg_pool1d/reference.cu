// fused_cos_avg_pool1d reference: the two PyTorch stages, each into its own buffer.
//   stage `cos`        (torch.cos):      cos = cosf(input), elementwise
//   stage avg_pool1d   (F.avg_pool1d(cos, kernel_size, stride, padding, ceil_mode, count_include_pad)):
//       window o covers [o * stride - padding, o * stride - padding + kernel_size), cut at
//       length + padding; pool_size = its length then (padding counted); the window is clipped to
//       [0, length) and its f32 sum, in order, is divided by pool_size (count_include_pad = 1) or by
//       the clipped length (0), as PyTorch's CUDA avg_pool2d kernel does (avg_pool1d runs as
//       avg_pool2d with a 1 x kernel_size window). An empty clipped window gives 0.
// Keeping `cos` in memory costs one extra write and read of the input's size: the price of a
// reference whose stages can be diffed.
//
// cos_fwd: grid-stride, float4 loads and stores for the body (buffers are 256-byte aligned) and a
// scalar tail; cosf is CUDA's accurate cosine (<= 2 ulp, Payne-Hanek reduction for huge
// arguments), the function torch.cos calls for f32 on CUDA. avg_pool1d: one thread per output,
// grid-stride over n * c * lo; neighbouring threads read neighbouring windows.
//
// @kbx scratch cos f32 [n, c, l]
// @kbx launch cos_fwd<<<max(1, min(cdiv(n * c * l, 4096), 65536)), 256>>>(x, cos, i64(n * c * l))
// @kbx launch avg_pool1d<<<max(1, min(cdiv(n * c * lo, 256), 65536)), 256>>>(cos, y, i64(n * c), l, lo, kernel_size, stride, padding, count_include_pad)

extern "C" __global__ void __launch_bounds__(256)
cos_fwd(const float* __restrict__ x, float* __restrict__ out, long long total)
{
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long stride = (long long)gridDim.x * blockDim.x;
	const long long n4 = total / 4;
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
	if (i < total)
		out[i] = cosf(x[i]);
}

extern "C" __global__ void __launch_bounds__(256)
avg_pool1d(const float* __restrict__ x, float* __restrict__ y, long long rows, long long l, long long lo, long long k,
           long long stride, long long pad, int count_include_pad)
{
	const long long total = rows * lo;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
		const long long row = i / lo, o = i % lo;
		long long start = o * stride - pad;
		long long end = min(start + k, l + pad);
		const long long pool_size = end - start;
		start = max(start, 0LL);
		end = min(end, l);
		if (start >= end) {
			y[i] = 0.0f;
			continue;
		}
		const float* xr = x + row * l;
		float sum = 0.0f;
		for (long long t = start; t < end; t++)
			sum += xr[t];
		y[i] = sum / (float)(count_include_pad ? pool_size : end - start);
	}
}
