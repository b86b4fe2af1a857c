// @kbx expect pass
// Correct alternative: a 2-D grid, blockIdx.y walks the (n, c) rows (looping past 65535) and x the outputs of
// a row, so no 64-bit division per element; same window arithmetic and summation order as the reference.
// @kbx launch avg_pool1d_f32<<<dim3(max(1, cdiv(lo, 128)), max(1, min(n * c, 65535))), 128>>>(x, y, n, c, l, lo, kernel_size, stride, padding)

extern "C" __global__ void avg_pool1d_f32(const float *__restrict__ x, float *__restrict__ y, long long n,
					  long long c, long long l, long long lo, long long kernel_size,
					  long long stride, long long padding)
{
	long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= lo)
		return;
	long long start = o * stride - padding;
	long long end = start + kernel_size;
	if (end > l + padding)
		end = l + padding;
	float pool_size = (float)(end - start);
	if (start < 0)
		start = 0;
	if (end > l)
		end = l;
	for (long long row = blockIdx.y; row < n * c; row += gridDim.y) {
		const float *xr = x + row * l;
		float sum = 0.0f;
		for (long long t = start; t < end; t++)
			sum += xr[t];
		y[row * lo + o] = sum / pool_size;
	}
}
