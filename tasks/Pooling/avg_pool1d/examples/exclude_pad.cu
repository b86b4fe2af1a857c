// @kbx expect wrong
// Mistake: divides by the number of in-bounds elements (count_include_pad = False) instead of kernel_size;
// every window that overlaps the padding (corner_padding, prime_length, ...) comes out too large.
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
	long long start = max(o * stride - padding, 0LL);
	long long end = min(o * stride - padding + kernel_size, l);
	float sum = 0.0f;
	for (long long t = start; t < end; t++)
		sum += x[row * l + t];
	y[i] = sum / (float)(end - start);
}
