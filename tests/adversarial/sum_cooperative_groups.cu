// @kbx task Reduce/sum
// @kbx expect pass
// Correct, written in an unusual way: one cooperative launch of one block per SM that synchronises
// the whole grid with cooperative_groups' grid.sync(). Phase 1: the b * d * 8 work items (each
// output's reduction cut into 8 chunks of the flattened (i, k) range) are dealt to the blocks in
// turn; a block sums its chunk in f64 and stores it in the scratch buffer `part`. grid.sync().
// Phase 2: each output adds its 8 partials in a fixed order. f64 throughout and no atomics, so it
// is accurate and bit-for-bit deterministic. Empty reductions give 0 (empty chunks); with no
// outputs the scratch is empty and both phases do nothing.
// @kbx scratch part f64 [b * d * 8]
// @kbx launch sum_coop<<<sms, 256>>>(x, part, y, a, b, c, d) cooperative

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define BLOCK 256
#define CHUNKS 8

__device__ __forceinline__ double block_sum(double v)
{
	__shared__ double warp_sums[BLOCK / 32];
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	__syncthreads(); /* the previous call's readers are done with warp_sums */
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
sum_coop(const float *__restrict__ x, double *part, float *__restrict__ y, long long a, long long b,
	 long long c, long long d)
{
	cg::grid_group grid = cg::this_grid();
	long long outputs = b * d, total = a * c;
	long long chunk = (total + CHUNKS - 1) / CHUNKS;

	for (long long w = blockIdx.x; w < outputs * CHUNKS; w += gridDim.x) {
		long long o = w / CHUNKS, p = w % CHUNKS;
		long long j = o / d, l = o % d;
		long long r0 = p * chunk, r1 = min(total, r0 + chunk);
		double acc = 0.0;
		for (long long r = r0 + threadIdx.x; r < r1; r += BLOCK) {
			long long i = r / c, k = r % c;
			acc += (double)x[((i * b + j) * c + k) * d + l];
		}
		acc = block_sum(acc);
		if (threadIdx.x == 0)
			part[w] = acc;
	}
	grid.sync();
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < outputs;
	     o += (long long)gridDim.x * blockDim.x) {
		double s = 0.0;
		for (int p = 0; p < CHUNKS; p++)
			s += part[o * CHUNKS + p];
		y[o] = (float)s;
	}
}
