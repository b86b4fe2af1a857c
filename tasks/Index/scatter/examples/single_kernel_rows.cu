// @kbx expect pass
// Correct alternative: one kernel, one block per (i, l) slice: it copies the slice's c input values and,
// after a barrier, writes its k scattered values (distinct positions, so no races). Strided accesses
// when d > 1, so slower than the reference, but right.
// @kbx launch scatter_slices<<<max(1, min(a * d, 65535)), 128>>>(input, index, src, y, a, c, d, k)

extern "C" __global__ void scatter_slices(const float *__restrict__ input, const long long *__restrict__ index,
					  const float *__restrict__ src, float *__restrict__ y, long long a, long long c,
					  long long d, long long k)
{
	for (long long s = blockIdx.x; s < a * d; s += gridDim.x) {
		long long i = s / d, l = s % d;
		for (long long m = threadIdx.x; m < c; m += blockDim.x)
			y[(i * c + m) * d + l] = input[(i * c + m) * d + l];
		__syncthreads();
		for (long long j = threadIdx.x; j < k; j += blockDim.x) {
			long long e = (i * k + j) * d + l;
			y[(i * c + index[e]) * d + l] = src[e];
		}
		__syncthreads();
	}
}
