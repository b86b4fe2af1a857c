// avg_pool1d, f32, ceil_mode = False, count_include_pad = True: the arithmetic of PyTorch's CUDA
// avg_pool2d kernel (avg_pool1d runs as avg_pool2d with a 1 x kernel_size window):
//   start = o * stride - padding, end = min(start + kernel_size, l + padding),
//   pool_size = end - start (padding counted), then clip [start, end) to [0, l),
//   y = (f32 sum of x over the clipped window, left to right) / pool_size.
// One output element per thread (flat over n * c * lo); windows are short, so each thread reads its
// window directly; neighbouring threads read neighbouring windows (coalesced for small strides).

// @kbx launch avg_pool1d_f32<<<max(1, cdiv(n * c * lo, 256)), 256>>>(x, y, n, c, l, lo, kernel_size, stride, padding)

extern "C" __global__ void avg_pool1d_f32(const float *__restrict__ x, float *__restrict__ y, long long n,
					  long long c, long long l, long long lo, long long kernel_size,
					  long long stride, long long padding)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n * c * lo)
		return;
	long long row = i / lo;
	long long o = i - row * lo;
	long long start = o * stride - padding;
	long long end = min(start + kernel_size, l + padding);
	long long pool_size = end - start;
	start = max(start, 0LL);
	end = min(end, l);
	const float *xr = x + row * l;
	float sum = 0.0f;
	for (long long t = start; t < end; t++)
		sum += xr[t];
	y[i] = sum / (float)pool_size;
}
