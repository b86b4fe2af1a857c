// @kbx expect wrong
// Mistake: negative indices are used as they are, writing before the slice (or outside the tensor)
// instead of counting from the end (negative_indices, every_slice, special_huge_value).
// @kbx launch index_fill<<<max(1, cdiv(a * k * d, 256)), 256>>>(x, index, a, c, d, k, value)

extern "C" __global__ void index_fill(float *__restrict__ x, const long long *__restrict__ index, long long a,
				      long long c, long long d, long long k, float value)
{
	long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= a * k * d)
		return;
	long long l = e % d, r = e / d;
	long long j = r % k, i = r / k;
	long long idx = index[j];
	long long off = (i * c + idx) * d + l;
	if (off >= 0 && off < a * c * d)
		x[off] = value;
}
