// @kbx expect wrong
// Mistake: wrong axis. Writes src[i, j, l] to y[i, j, index] (flat offset (i * c + j) * d + index), the
// index taken as the coordinate of the last dim and j as that of dim, instead of y[i, index, l].
// @kbx launch scatter_copy<<<max(1, cdiv(a * c * d, 256)), 256>>>(input, y, i64(a * c * d))
// @kbx launch scatter_bad<<<max(1, cdiv(a * k * d, 256)), 256>>>(index, src, y, a, c, d, k)

extern "C" __global__ void scatter_copy(const float *__restrict__ input, float *__restrict__ y, long long n)
{
	long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (e < n)
		y[e] = input[e];
}

extern "C" __global__ void scatter_bad(const long long *__restrict__ index, const float *__restrict__ src,
				       float *__restrict__ y, long long a, long long c, long long d, long long k)
{
	long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= a * k * d)
		return;
	long long i = e / (k * d), j = (e / d) % k;
	long long off = (i * c + j) * d + index[e];
	if (off < a * c * d)
		y[off] = src[e];
}
