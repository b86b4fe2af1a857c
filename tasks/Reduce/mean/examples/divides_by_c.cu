// @kbx expect wrong
// Mistake: divides by c only, forgetting that dims (0, 2) reduce a * c elements; every case with
// a > 1 (the test's dim = (0, 2)) comes out a times too large.
// @kbx launch mean_block<<<max(1, b * d), 256>>>(x, y, a, b, c, d)

extern "C" __global__ void mean_block(const float *__restrict__ x, float *__restrict__ y, long long a, long long b,
				      long long c, long long d)
{
	__shared__ double s[256];
	long long o = blockIdx.x;
	if (o >= b * d)
		return;
	long long j = o / d, l = o % d;
	double acc = 0.0;
	for (long long r = threadIdx.x; r < a * c; r += blockDim.x) {
		long long i = r / c, k = r % c;
		acc += x[((i * b + j) * c + k) * d + l];
	}
	s[threadIdx.x] = acc;
	__syncthreads();
	for (int h = 128; h > 0; h >>= 1) {
		if (threadIdx.x < h)
			s[threadIdx.x] += s[threadIdx.x + h];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[o] = (float)(s[0] / (double)c);
}
