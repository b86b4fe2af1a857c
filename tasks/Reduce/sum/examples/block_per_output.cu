// @kbx expect pass
// Correct alternative: one kernel, one block of 512 threads per output, f64 accumulation and a plain
// shared-memory tree. Right for every shape; slower than the reference when there are few outputs
// (the perf workload's single output runs on one SM).
// @kbx launch sum_block<<<max(1, b * d), 512>>>(x, y, a, b, c, d)

extern "C" __global__ void sum_block(const float *__restrict__ x, float *__restrict__ y, long long a, long long b,
				    long long c, long long d)
{
	__shared__ double s[512];
	long long o = blockIdx.x;
	if (o >= b * d)
		return;
	long long j = o / d, l = o % d;
	long long len = a * c;
	double acc = 0.0;
	for (long long r = threadIdx.x; r < len; r += blockDim.x) {
		long long i = r / c, k = r % c;
		acc += x[((i * b + j) * c + k) * d + l];
	}
	s[threadIdx.x] = acc;
	__syncthreads();
	for (int h = 256; h > 0; h >>= 1) {
		if (threadIdx.x < h)
			s[threadIdx.x] += s[threadIdx.x + h];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[o] = (float)s[0];
}
