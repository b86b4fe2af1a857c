// @kbx task Reduce/sum
// @kbx expect wrong
// @kbx because case corner_dim0: (output 'y': 3 of 3 elements differ|left 3 of 3 elements of 'y' unwritten)
// Depends on leftover device memory: adds its total into y (y[o] += total) as if the caller had
// zeroed the output first (a forgotten cudaMemset in host code). The sum itself is right (one
// block per output, f64 accumulation), so with a zeroed y every case would pass; kbx fills outputs
// with NaN bytes before each run, and NaN + total stays NaN. (The GPU returns the canonical NaN, not
// the all-ones poison pattern, so the message is "differ"; "unwritten" is accepted too.)
// @kbx launch sum_into<<<max(1, b * d), 256>>>(x, y, a, b, c, d)

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
sum_into(const float *__restrict__ x, float *__restrict__ y, long long a, long long b, long long c, long long d)
{
	long long o = blockIdx.x;
	if (o >= b * d)
		return;
	long long j = o / d, l = o % d;
	double acc = 0.0;
	for (long long i = 0; i < a; i++)
		for (long long k = threadIdx.x; k < c; k += BLOCK)
			acc += (double)x[((i * b + j) * c + k) * d + l];
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		y[o] += (float)acc; /* assumes y starts at 0 */
}
