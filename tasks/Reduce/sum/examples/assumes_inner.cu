// @kbx expect wrong
// Mistake: wrong axis. Assumes the reduced elements of an output are contiguous (d = 1) and sums
// x[o * a * c + r] for r < a * c; dim = 0 of a matrix (d > 1) and dims (0, 2) with a > 1 come out wrong.
// @kbx launch sum_rows<<<max(1, b * d), 256>>>(x, y, a, b, c, d)

extern "C" __global__ void sum_rows(const float *__restrict__ x, float *__restrict__ y, long long a, long long b,
				   long long c, long long d)
{
	__shared__ double s[256];
	long long o = blockIdx.x;
	if (o >= b * d)
		return;
	long long len = a * c;
	double acc = 0.0;
	for (long long r = threadIdx.x; r < len; r += blockDim.x)
		acc += x[o * len + r];
	s[threadIdx.x] = acc;
	__syncthreads();
	for (int h = 128; h > 0; h >>= 1) {
		if (threadIdx.x < h)
			s[threadIdx.x] += s[threadIdx.x + h];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[o] = (float)s[0];
}
