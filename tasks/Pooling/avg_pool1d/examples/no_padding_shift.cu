// @kbx expect wrong
// Mistake: forgets to shift the window left by padding (start = o * stride); with padding > 0 every window
// is shifted right by `padding` elements (the padding cases fail; padding = 0 cases pass).
// @kbx launch avg_pool1d_f32<<<max(1, cdiv(n * c * lo, 256)), 256>>>(x, y, n, c, l, lo, kernel_size, stride, padding)

extern "C" __global__ void avg_pool1d_f32(const float *__restrict__ x, float *__restrict__ y, long long n,
					  long long c, long long l, long long lo, long long kernel_size,
					  long long stride, long long padding)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n * c * lo)
		return;
	long long row = i / lo;
	long long o = i % lo;
	long long start = o * stride;
	long long end = min(start + kernel_size, l);
	float sum = 0.0f;
	for (long long t = start; t < end; t++)
		sum += x[row * l + t];
	y[i] = sum / (float)kernel_size;
}
