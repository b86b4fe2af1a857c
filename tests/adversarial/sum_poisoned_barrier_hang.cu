// @kbx task Reduce/sum
// @kbx expect timeout
// @kbx because ran past its 3 s limit
// @kbx args --launch-timeout 3
// Infinite loop through leftover memory: a hand-rolled grid barrier (atomicAdd on an arrival
// counter, then spin until every block has arrived) whose counter lives in a scratch buffer the
// kernel never zeroes. kbx poisons scratch i32 memory with 0xA5 bytes, so the counter starts at
// -1515870811 and never reaches the number of blocks: every block spins forever and the worker
// must be killed. (With a zeroed counter and a grid that fits on the GPU at once, it would work.)
// @kbx scratch arrived i32 [1]
// @kbx scratch part f64 [b * d * 2]
// @kbx launch sum_barrier<<<dim3(max(1, b * d), 2), 256>>>(x, arrived, part, y, a, b, c, d)

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
sum_barrier(const float *__restrict__ x, int *arrived, double *part, float *__restrict__ y, long long a, long long b,
	    long long c, long long d)
{
	long long o = blockIdx.x, p = blockIdx.y;
	long long outputs = b * d;
	double acc = 0.0;

	/* phase 1: block (o, p) sums half p of output o's reduction */
	if (o < outputs) {
		long long j = o / d, l = o % d;
		long long half = (c + 1) / 2, k0 = p * half, k1 = min(c, k0 + half);
		for (long long i = 0; i < a; i++)
			for (long long k = k0 + threadIdx.x; k < k1; k += BLOCK)
				acc += (double)x[((i * b + j) * c + k) * d + l];
	}
	acc = block_sum(acc);
	if (threadIdx.x == 0 && o < outputs)
		part[o * 2 + p] = acc;

	/* grid barrier: the counter is assumed to start at 0 */
	if (threadIdx.x == 0) {
		__threadfence();
		atomicAdd(arrived, 1);
		while (atomicAdd(arrived, 0) < (int)(gridDim.x * gridDim.y))
			;
	}
	__syncthreads();

	/* phase 2 */
	if (threadIdx.x == 0 && p == 0 && o < outputs)
		y[o] = (float)(part[o * 2] + part[o * 2 + 1]);
}
