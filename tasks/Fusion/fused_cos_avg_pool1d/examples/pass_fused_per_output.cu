// @kbx expect pass
// Correct alternative: one kernel, one thread per output window, cosf evaluated on the fly for the
// window's values (an input shared by overlapping windows is recomputed); no intermediate buffer.
//
// @kbx launch cos_pool<<<max(1, cdiv(n * c * lo, 256)), 256>>>(x, y, i64(n * c), l, lo, kernel_size, stride, padding, count_include_pad)

extern "C" __global__ void cos_pool(const float* __restrict__ x, float* __restrict__ y, long long rows, long long l,
                                    long long lo, long long k, long long stride, long long pad, int count_include_pad)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= rows * lo)
		return;
	long long row = i / lo, o = i % lo;
	long long start = o * stride - pad;
	long long end = min(start + k, l + pad);
	long long size = end - start;
	long long a = max(start, 0LL), b = min(end, l);
	float sum = 0.0f;
	for (long long t = a; t < b; t++)
		sum += cosf(x[row * l + t]);
	if (!count_include_pad)
		size = b - a;
	y[i] = a < b ? sum / (float)size : 0.0f;
}
