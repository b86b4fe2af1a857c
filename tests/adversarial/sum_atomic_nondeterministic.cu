// @kbx task Reduce/sum
// @kbx expect wrong
// @kbx because nondeterministic
// Nondeterministic atomics on a task that demands bit-identical results ([task] deterministic =
// yes). Every result is within tolerance, but a single output over a long reduction (b * d = 1,
// a * c >= 8192: the cases long_vector and long_vector_uniform, and the perf workload) is summed by
// per-thread float atomicAdd into y from many blocks (7 blocks of 16 threads for long_vector,
// 1024 blocks of 16 threads for long_vector_uniform); the order in which the atomics land, and so
// the rounding of the f32 accumulator, changes from run to run. The other cases take a
// deterministic block-per-output f64 path.
// Accuracy, simulated on the cases' actual inputs (seed 0) in random orders of the blocks: the
// worst error is 0.57 of the tolerance for long_vector (sum -17.25, 112 atomics; 4000 orders) and
// 0.5 for long_vector_uniform (sum 2.1e6, 16384 atomics; 400 orders), so the first run passes. Two
// random orders give the same bits with probability ~4% and ~1.6% (one output each): the second
// run differs on at least one of the two cases with probability ~99.9%, if the hardware's order
// is as random as that.
// @kbx launch sum_rows<<<max(1, b * d), 256>>>(x, y, a, b, c, d)
// @kbx launch sum_atomic<<<min(1024, max(1, cdiv(a * c, 4096))), 16>>>(x, y, a, b, c, d)

#define BLOCK 256

__device__ __forceinline__ bool atomic_path(long long a, long long b, long long c, long long d)
{
	return b * d == 1 && a * c >= 8192;
}

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

/* Deterministic path: one block per output, f64. On the atomic path it only zeroes y[0]. */
extern "C" __global__ void __launch_bounds__(BLOCK)
sum_rows(const float *__restrict__ x, float *__restrict__ y, long long a, long long b, long long c, long long d)
{
	long long o = blockIdx.x;
	if (atomic_path(a, b, c, d)) {
		if (o == 0 && threadIdx.x == 0)
			y[0] = 0.0f;
		return;
	}
	if (o >= b * d)
		return;
	long long j = o / d, l = o % d;
	double acc = 0.0;
	for (long long i = 0; i < a; i++)
		for (long long k = threadIdx.x; k < c; k += BLOCK)
			acc += (double)x[((i * b + j) * c + k) * d + l];
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		y[o] = (float)acc;
}

/* Atomic path: b = d = 1, so the a * c reduced elements are contiguous. */
extern "C" __global__ void sum_atomic(const float *__restrict__ x, float *__restrict__ y, long long a, long long b,
				      long long c, long long d)
{
	if (!atomic_path(a, b, c, d))
		return;
	long long n = a * c;
	long long stride = (long long)gridDim.x * blockDim.x;
	double acc = 0.0;
	for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += stride)
		acc += (double)x[r];
	atomicAdd(y, (float)acc);
}
