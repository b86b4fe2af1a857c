// @kbx expect pass
// Correct alternative: the two-pass algorithm, one block of 512 threads per output: first the mean
// (f64 sum / c), then the sum of squared deviations from it (f64), both with a shared-memory tree.
// Reads the data twice, so slower than the reference, but exact.
// @kbx launch std_two_pass<<<max(1, a * d), 512>>>(x, y, a, c, d, correction)

__device__ double tree_sum(double *s, double v)
{
	s[threadIdx.x] = v;
	__syncthreads();
	for (int h = 256; h > 0; h >>= 1) {
		if (threadIdx.x < h)
			s[threadIdx.x] += s[threadIdx.x + h];
		__syncthreads();
	}
	double r = s[0];
	__syncthreads();
	return r;
}

extern "C" __global__ void std_two_pass(const float *__restrict__ x, float *__restrict__ y, long long a, long long c,
					long long d, int correction)
{
	__shared__ double s[512];
	long long o = blockIdx.x;
	if (o >= a * d)
		return;
	long long i = o / d, l = o % d;
	const float *row = x + i * c * d + l;
	double acc = 0.0;
	for (long long k = threadIdx.x; k < c; k += 512)
		acc += row[k * d];
	double mean = tree_sum(s, acc) / (double)c;
	acc = 0.0;
	for (long long k = threadIdx.x; k < c; k += 512) {
		double e = row[k * d] - mean;
		acc += e * e;
	}
	double m2 = tree_sum(s, acc);
	if (threadIdx.x == 0) {
		double div = (double)c > (double)correction ? (double)c - correction : 0.0;
		y[o] = (float)sqrt(m2 / div);
	}
}
