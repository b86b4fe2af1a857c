// @kbx task Reduce/sum
// @kbx expect wrong
// @kbx because case corner_dim0: output 'y': 3 of 3 elements differ
// Tail not handled, inside a reduction: each thread sums 4 consecutive reduced elements per step
// (for (r = 4 t; r + 3 < a * c; ...)), so the last (a * c) % 4 elements of every output are never
// added. Every output is written, with a wrong value. The first case reduces 2 elements per output
// ([[1, 2, 3], [4, 5, 6]], dim = 0): nothing is added and y = [0, 0, 0] instead of [5, 7, 9].
// @kbx launch sum_by4<<<max(1, b * d), 256>>>(x, y, a, b, c, d)

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

/* x[i, j, k, l] for the r-th reduced element (i, k) of output (j, l) */
__device__ __forceinline__ float elem(const float *x, long long r, long long j, long long l, long long b,
				      long long c, long long d)
{
	long long i = r / c, k = r % c;
	return x[((i * b + j) * c + k) * d + l];
}

extern "C" __global__ void __launch_bounds__(BLOCK)
sum_by4(const float *__restrict__ x, float *__restrict__ y, long long a, long long b, long long c, long long d)
{
	long long o = blockIdx.x;
	if (o >= b * d)
		return;
	long long j = o / d, l = o % d, total = a * c;
	double acc = 0.0;
	for (long long r = 4 * threadIdx.x; r + 3 < total; r += 4 * BLOCK)
		acc += ((double)elem(x, r, j, l, b, c, d) + (double)elem(x, r + 1, j, l, b, c, d)) +
		       ((double)elem(x, r + 2, j, l, b, c, d) + (double)elem(x, r + 3, j, l, b, c, d));
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		y[o] = (float)acc;
}
