// @kbx task Reduce/sum
// @kbx expect wrong
// @kbx because case long_vector
// Race between blocks: the P blocks of one output (P = cdiv(c, 8192), as in the reference) each
// store a partial sum in scratch, and block 0 adds them up, with no grid-wide synchronisation and
// in the wrong order: to hide latency it fetches the other blocks' partials into shared memory
// before it starts on its own chunk, i.e. before the other blocks (which each read 8192 floats
// first) can have stored them. It reads the scratch's NaN poison, so the sum is NaN. Every case
// with c <= 8192 has P = 1 and passes; long_vector (c = 24581, P = 4) is the first to fail, and
// long_vector_uniform (P = 513) would fail too. (__syncthreads only orders the threads of a block.)
// @kbx scratch part f64 [b * d * max(1, min(cdiv(c, 8192), 1024))]
// @kbx launch sum_racy<<<dim3(max(1, b * d), max(1, min(cdiv(c, 8192), 1024))), 256>>>(x, part, y, a, b, c, d)

#define BLOCK 256

__device__ __forceinline__ double block_sum(double v)
{
	__shared__ double warp_sums[BLOCK / 32];
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		warp_sums[warp] = v;
	__syncthreads();
	v = (threadIdx.x < BLOCK / 32) ? warp_sums[threadIdx.x] : 0.0;
	if (warp == 0)
		for (int off = 16; off > 0; off >>= 1)
			v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
sum_racy(const float *__restrict__ x, double *part, float *__restrict__ y, long long a, long long b, long long c,
	 long long d)
{
	__shared__ double others[1024];
	long long o = blockIdx.x;
	if (o >= b * d)
		return;
	long long j = o / d, l = o % d;
	long long chunks = gridDim.y, p = blockIdx.y;
	long long chunk = (c + chunks - 1) / chunks;
	long long k0 = p * chunk, k1 = min(c, k0 + chunk);

	if (p == 0) {
		/* "prefetch" the other blocks' partials: nothing guarantees they are there yet */
		for (long long q = 1 + threadIdx.x; q < chunks; q += BLOCK)
			others[q] = part[o * chunks + q];
		__syncthreads();
	}
	double acc = 0.0;
	for (long long i = 0; i < a; i++)
		for (long long k = k0 + threadIdx.x; k < k1; k += BLOCK)
			acc += (double)x[((i * b + j) * c + k) * d + l];
	acc = block_sum(acc);
	if (threadIdx.x != 0)
		return;
	if (p != 0) {
		part[o * chunks + p] = acc;
		return;
	}
	for (long long q = 1; q < chunks; q++)
		acc += others[q];
	y[o] = (float)acc;
}
